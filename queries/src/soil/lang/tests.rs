//! The Soil reader and printer on small cases written here, each pinning one rule of the
//! syntax spec; `tests/trellis_conformance.rs` checks the same code against trellis's own
//! files when they are at hand.

use super::ast::*;
use super::hash_form::{BUILTIN_REFERENT, hash_form, soil_hash};
use super::parse::parse_file;
use super::print::{print_file, reads_back_differently};

fn parse(src: &str) -> SoilFile {
    parse_file(src, "t.soil").unwrap_or_else(|e| panic!("{e:?}\n{src}"))
}

/// Parsing and printing `src` gives `src` back.
fn canonical(src: &str) {
    assert_eq!(print_file(&parse(src)), src);
}

/// `src` prints as `want`, which is canonical.
fn prints_as(src: &str, want: &str) {
    assert_eq!(print_file(&parse(src)), want);
    canonical(want);
}

fn error(src: &str, file: &str) -> (String, u32, u32) {
    let e = parse_file(src, file).expect_err("does not parse");
    (e.code.to_owned(), e.at.line, e.at.column)
}

fn form(src: &str) -> super::hash_form::HashForm {
    hash_form(parse(src).defs.swap_remove(0))
}

#[test]
fn layout_is_structural() {
    canonical("f : (x : I64) -> I64\nf x = x + 1\n");
    canonical(
        "f : (xs : List F64) -> F64\nf xs =\n  let n = list_len xs in\n  if n == 0\n  then 0.0\n  else\n    match xs with\n    | _ -> 1.0\n",
    );
    // A `let` whose value is a block, or a function with a block body.
    canonical(
        "f : (x : I64) -> I64\nf x =\n  let y =\n    if x > 0\n    then x\n    else 0\n  in\n  let rec go = fun i ->\n    if i == 0\n    then y\n    else go (i - 1)\n  in\n  go x\n",
    );
    // Layout in the source does not matter.
    prints_as(
        "f : (x : I64) -> I64 f x = let y = x in y",
        "f : (x : I64) -> I64\nf x =\n  let y = x in\n  y\n",
    );
    // Outside statement positions, everything is one line.
    canonical(
        "f : (x : I64) -> I64\nf x = g (if x > 0 then 1 else 2) (match x with | 0 -> 1 | _ -> 2)\n",
    );
}

#[test]
fn parentheses_only_where_the_tree_needs_them() {
    prints_as(
        "f : (a : I64) -> I64\nf a = ((a - 1) - (2 - a)) * (a + 1)\n",
        "f : (a : I64) -> I64\nf a = (a - 1 - (2 - a)) * (a + 1)\n",
    );
    prints_as(
        "f : (a : Bool) -> Bool\nf a = not (a == a) or (a and (a or a))\n",
        "f : (a : Bool) -> Bool\nf a = not a == a or a and (a or a)\n",
    );
    canonical("f : (a : I64) -> I64\nf a = -(-a) + -g a\n");
    canonical(
        "f : (a : I64) -> I64\nf a = (g h) (k a) + (a : I64)\n"
            .replace("(g h)", "g h")
            .as_str(),
    );
    canonical("f : (a : Row) -> Row\nf a = { a.inner with count = a.count + 1, label = \"x\" }\n");
    canonical("f : (s : Str) -> Str\nf s = str_concat s \"\\\"q\\\" \\\\ \\n\\t\\u{1}\"\n");
    canonical("f : (x : Opt) -> I64\nf x = Opt::get x + ?rest\n");
}

#[test]
fn types_rows_and_refinements() {
    canonical(
        "f : (g : (a -> b) -> b) -> (xs : List (List a)) -> panic io e (Result a Str)\nf g xs = g xs\n",
    );
    prints_as(
        "f : (x : I64) -> panic io div I64\nf x = x\n",
        "f : (x : I64) -> div panic io I64\nf x = x\n",
    );
    canonical(
        "f : (xs : {v : List F64 | len v > 0 and not is_empty v}) -> {r : F64 | r >= 0.0 implies r <= 1.0 or r == 2.0 * (1.0 - 3.0)}\nf xs = 0.0\n",
    );
    canonical(
        "f : (r : Result I64 Str) -> {b : Bool | r is Result::Ok(v) or r is Err}\nf r = True\n",
    );
}

#[test]
fn patterns() {
    canonical(
        "f : (r : Row) -> I64\nf r =\n  match r with\n  | { count = 0, label, .. } -> 0\n  | { count = Some (Ok n) } -> n\n  | Shape::Circle _ -> 1\n  | \"x\" -> 2\n",
    );
}

#[test]
fn the_equation_head_ends_types_and_measures() {
    let file =
        parse("go : (n : I64) -> I64\ndecreases n\ngo n = if n == 0 then 0 else go (n - 1)\n");
    assert_eq!(file.defs[0].params, ["n"]);
    assert!(file.defs[0].decreases.is_some());
    // A row variable only when a type follows it: here `e` is one, `f` starts the head.
    let file = parse("f : (x : I64) -> e I64\nf x = x\n");
    let Type::Arrow { row_var, .. } = &file.defs[0].sig else {
        panic!()
    };
    assert_eq!(row_var.as_deref(), Some("e"));
    // In a private file, `name :` starts the next definition.
    let file = parse_file(
        "_a : (x : I64) -> I64\n_a x = x\n\n_b : (x : I64) -> I64\n_b x = _a x\n",
        "m/_private.soil",
    )
    .unwrap();
    assert_eq!(file.defs.len(), 2);
    canonical_private(&file);
}

fn canonical_private(file: &SoilFile) {
    let text = print_file(file);
    assert_eq!(
        print_file(&parse_file(&text, "_private.soil").unwrap()),
        text
    );
}

#[test]
fn let_bindings_joined_by_and() {
    let file = parse("f : (x : Bool) -> Bool\nf x = let a = x and x and b = x in a and b\n");
    let Expr::Let { bindings, .. } = &file.defs[0].body else {
        panic!()
    };
    assert_eq!(bindings.len(), 2);
    assert!(matches!(bindings[0].1, Expr::And(..)));
}

#[test]
fn errors_name_their_rule_and_place() {
    let src = "f : (x : I64) -> I64\nf x = \n";
    assert_eq!(error(src, "f.soil"), ("soil-expected".into(), 3, 1));
    let src = "f : (x : I64) -> Bool\nf x = 1 < x < 3\n";
    assert_eq!(
        error(src, "f.soil"),
        ("soil-nonassoc-comparison".into(), 2, 13)
    );
    let two = "f : (x : I64) -> I64\nf x = x\ng : (x : I64) -> I64\ng x = x\n";
    assert_eq!(error(two, "f.soil"), ("soil-multiple-defs".into(), 3, 1));
    let private = "_f : (x : I64) -> I64\n_f x = x\n";
    assert_eq!(
        error(private, "f.soil"),
        ("soil-misplaced-private".into(), 1, 1)
    );
    assert_eq!(
        error("f : (x : I64) -> I64\nf x = x\n", "_private.soil"),
        ("soil-misplaced-private".into(), 1, 1)
    );
    let src = "f : (x : I64) -> I64\nf x = let rec _ = x in x\n";
    assert_eq!(
        error(src, "f.soil"),
        ("soil-wildcard-in-let-rec".into(), 2, 15)
    );
    let src = "f : (x : I64) -> R\nf x = { a = 1, a = 2 }\n";
    assert_eq!(error(src, "f.soil"), ("soil-duplicate-field".into(), 2, 16));
    let src = "f : (x : I64) -> I64\ng x = x\n";
    assert_eq!(error(src, "f.soil"), ("soil-name-mismatch".into(), 2, 1));
    assert_eq!(error("", "f.soil"), ("soil-expected".into(), 1, 1));
    assert!(parse_file("", "_private.soil").unwrap().defs.is_empty());
}

#[test]
fn local_binders_are_numbered_and_free_names_kept() {
    let a = form(
        "f : (xs : List F64) -> F64\nf xs =\n  let n = list_len xs in\n  match xs with\n  | ys -> g n ys\n",
    );
    let b = form(
        "f : (xs : List F64) -> F64\nf xs =\n  let m = list_len xs in\n  match xs with\n  | zs -> g m zs\n",
    );
    assert_eq!(a.text, b.text, "renaming a local moves nothing");
    assert_eq!(
        a.text,
        "f : (xs : List F64) -> F64\nf %0 =\n  let %1 = list_len %0 in\n  match %0 with\n  | %2 -> g %1 %2\n"
    );
    assert_eq!(a.names.iter().collect::<Vec<_>>(), ["g", "list_len"]);
    assert_eq!(a.types.iter().collect::<Vec<_>>(), ["F64", "List"]);
}

#[test]
fn a_let_numbers_its_binders_before_its_values() {
    let f = form("f : (x : I64) -> I64\nf x = let a = fun y -> y and b = a x in b\n");
    // In statement position each binding prints as a `let` line of its own, as trellis
    // prints it.
    assert_eq!(
        f.text,
        "f : (x : I64) -> I64\nf %0 =\n  let %1 = fun %3 -> %3 in\n  let %2 = %1 %0 in\n  %2\n"
    );
}

#[test]
fn a_punned_field_keeps_its_name_and_renames_its_binder() {
    let f = form("f : Row -> U64\nf r =\n  match r with\n  | { index, .. } -> index\n");
    assert!(f.text.contains("| { index = %1, .. } -> %1"), "{}", f.text);
}

#[test]
fn references_by_kind() {
    let f = form(
        "f : (x : Row) -> I64\nf x = stats::mean (Row::width x) + ((_helper x) : Count) + Shape::Circle + Ok\n",
    );
    assert_eq!(f.names.iter().collect::<Vec<_>>(), ["_helper"]);
    assert_eq!(f.qualified.iter().collect::<Vec<_>>(), ["stats::mean"]);
    assert_eq!(f.type_functions.iter().collect::<Vec<_>>(), ["Row::width"]);
    assert_eq!(
        f.types.iter().collect::<Vec<_>>(),
        ["Count", "I64", "Row", "Shape"]
    );
}

#[test]
fn the_soil_hash_frames_its_parts_and_sorts_its_edges() {
    let edges = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    let a = soil_hash(
        "f x = g x\n",
        &edges(&[("g", "sha256:1"), ("h", BUILTIN_REFERENT)]),
    );
    let b = soil_hash(
        "f x = g x\n",
        &edges(&[("h", BUILTIN_REFERENT), ("g", "sha256:1")]),
    );
    assert_eq!(a, b);
    assert_ne!(
        a,
        soil_hash(
            "f x = g x\n",
            &edges(&[("g", "sha256:2"), ("h", BUILTIN_REFERENT)])
        )
    );
    // The recipe: SHA-256 over the tag, the text and the `name NUL referent` lines, each
    // framed by its length (64-bit little-endian).
    let mut framed = Vec::new();
    for part in [
        &b"soil-hash/1"[..],
        b"f x = g x\n",
        b"g\0sha256:1\nh\0soil0-builtin/1\n",
    ] {
        framed.extend_from_slice(&(part.len() as u64).to_le_bytes());
        framed.extend_from_slice(part);
    }
    assert_eq!(a, crate::hash::ContentHash::of(&framed));
}

/// Nesting beyond [`super::parse::MAX_DEPTH`] is an error, never a stack overflow: the
/// tree is printed, hashed, cloned and dropped recursively. (Found by fuzzing: a name
/// applied to thousands of string literals.)
#[test]
fn nesting_too_deep_is_an_error_not_an_overflow() {
    let n = 5_000;
    let cases = [
        format!("f : (x : I64) -> I64\nf x = y{}\n", " \"\"".repeat(n)),
        format!(
            "f : (x : I64) -> I64\nf x = {}x{}\n",
            "(".repeat(n),
            ")".repeat(n)
        ),
        format!("f : (x : I64) -> I64\nf x = x{}\n", " + x".repeat(n)),
        format!("f : (x : I64) -> I64\nf x = {}x\n", "- ".repeat(n)),
        format!("f : (x : Bool) -> Bool\nf x = {}x\n", "not ".repeat(n)),
        format!(
            "f : (x : I64) -> I64\nf x = {}x\n",
            "let y = x in ".repeat(n)
        ),
        format!("f : {}I64\nf x = x\n", "I64 -> ".repeat(n)),
        format!("f : {{v : I64 | {}v > 0}}\nf = 1\n", "not ".repeat(n)),
    ];
    // On a thread with the default 2 MiB stack, as rayon's workers have.
    let outcome = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            cases
                .iter()
                .map(|src| parse_file(src, "f.soil").map(|_| ()).map_err(|e| e.code))
                .collect::<Vec<_>>()
        })
        .unwrap()
        .join()
        .expect("no overflow");
    for (i, result) in outcome.into_iter().enumerate() {
        assert_eq!(result, Err("soil-too-deep"), "case {i}");
    }
    // Real definitions are far from the limit.
    let fine = format!(
        "f : (x : I64) -> I64\nf x = {}x{}\n",
        "(".repeat(40),
        ")".repeat(40)
    );
    assert!(parse_file(&fine, "f.soil").is_ok());
}

/// The canonical form adds parentheses of its own in two places (an applied type after a
/// row, a negated negation), and the parser charges their level where the text had none:
/// a tree the parser takes prints to a text it takes, up to the limit. (Found by fuzzing:
/// a 63-arrow signature ending in a row and an applied type.)
#[test]
fn the_printed_form_of_a_file_at_the_limit_parses() {
    for n in 1..80 {
        let cases = [
            format!("f : {}I64 -> e Row I64\nf x = x\n", "I64 -> ".repeat(n)),
            format!("f : {}I64 -> io Row I64\nf x = x\n", "I64 -> ".repeat(n)),
            format!("f : (x : I64) -> I64\nf x = {}x\n", "- ".repeat(n)),
            format!(
                "f : (x : I64) -> I64\nf x = {}x\n",
                "- (".repeat(n) + &")".repeat(n)
            ),
            // The canonical form writes `let a = 1 and b = 2 in …` as one `let` a binding.
            format!(
                "f : (x : I64) -> I64\nf x =\n  let a = 1 {}in\n  x\n",
                "and b = 2 ".repeat(n)
            ),
            format!(
                "f : (x : I64) -> I64\nf x =\n  let rec a = 1 {}in\n  x\n",
                "and b = 2 ".repeat(n)
            ),
        ];
        for src in cases {
            if let Ok(file) = parse_file(&src, "f.soil") {
                let printed = print_file(&file);
                let again = parse_file(&printed, "f.soil")
                    .unwrap_or_else(|e| panic!("{n}: {src:?} printed {printed:?}: {e:?}"));
                assert_eq!(print_file(&again), printed);
            }
        }
    }
}

/// Trellis's canonical form drops the parentheses around a bare name, so a signature or
/// measure ending in bare names that include the definition's own name reads back with the
/// equation starting at that name. Trellis does the same (and the hash form must stay its
/// text), so the printer keeps it and says which definitions it concerns; their hash forms
/// still differ from the definition they read back as.
#[test]
fn a_head_that_reads_back_differently_is_named() {
    for (src, printed) in [
        ("y : J y (a)\ny a = a\n", "y : J y a\ny a = a\n"),
        (
            "f : I64 -> I64\ndecreases g f (n)\nf n = n\n",
            "f : I64 -> I64\ndecreases g f n\nf n = n\n",
        ),
        (
            "f : I64 -> I64\ndecreases g f (n) m\nf n = n\n",
            "f : I64 -> I64\ndecreases g f n m\nf n = n\n",
        ),
    ] {
        let file = parse(src);
        assert!(reads_back_differently(&file.defs[0]), "{src}");
        assert_eq!(print_file(&file), printed);
        let again = parse(printed);
        assert_ne!(again, file, "{src}");
        assert_ne!(form(printed).text, form(src).text, "{src}");
    }
    let private = parse_file("_f : I64\ndecreases g _f (n)\n_f n = n\n", "_private.soil").unwrap();
    assert!(reads_back_differently(&private.defs[0]));
    // The own name followed by something other than bare names, or not at the end, or
    // another name: the canonical form reads back as itself.
    for src in [
        "y : J y (K a)\ny a = a\n",
        "y : J (K y) b\ny a = a\n",
        "y : a -> a\ny x = x\n",
        "f : I64 -> I64\ndecreases g (f n) + 1\nf n = n\n",
        "f : I64 -> I64\ndecreases g f n.size\nf n = n\n",
        "f : I64 -> I64\ndecreases g h (n)\nf n = n\n",
        "f : J f (a) -> I64\ndecreases n\nf n = n\n",
    ] {
        let file = parse(src);
        assert!(!reads_back_differently(&file.defs[0]), "{src}");
        let printed = print_file(&file);
        assert_eq!(parse(&printed), file, "{src}");
    }
}

/// The other place trellis's printer drops parentheses its reader needs: an annotated
/// application ending in a bare name prints as `(f x : T)`, where the reader takes `x :`
/// for a signature. Everything else around a `:` reads back as itself.
#[test]
fn an_annotated_application_ending_in_a_bare_name_is_named() {
    let body = |e: &str| format!("f : (x : I64) -> I64\nf x = {e}\n");
    for (e, named) in [
        ("((g x) : I64)", true),
        ("((g 1 x) : I64)", true),
        ("((Some x) : T)", true),
        ("(((x : J) g) : y)", true),
        ("1 + ((g x) : I64)", true),
        ("h ((if c then a else g x) : I64)", true),
        ("(x : I64)", false),
        ("((g x.y) : I64)", false),
        ("((a + x) : I64)", false),
        ("((g (x + 1)) : I64)", false),
        ("((g M::h) : I64)", false),
        ("((if c then a else x) : I64)", false),
        ("g (x : I64) y", false),
    ] {
        let src = body(e);
        let file = parse(&src);
        assert_eq!(reads_back_differently(&file.defs[0]), named, "{src}");
        let reread = parse_file(&print_file(&file), "f.soil");
        if named {
            assert!(reread.is_err(), "{src}");
        } else {
            assert_eq!(reread.unwrap(), file, "{src}");
        }
    }
}

#[test]
fn hash_forms_hold_no_room_left_from_the_parse() {
    // A file's forms are kept for the whole run (and in the cache): a vector that reused
    // the parse's, sized for definitions, cost 125 MB at 50k definitions.
    let src = "_f : (x : I64) -> I64\n_f x = x\n\n_g : (x : I64) -> I64\n_g x = _f x + 1\n";
    let forms = super::hash_form::hash_forms(parse_file(src, "_private.soil").unwrap());
    assert_eq!(forms.len(), 2);
    assert_eq!(forms.capacity(), forms.len());
}
