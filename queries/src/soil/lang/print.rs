//! The canonical text of a Soil tree (trellis's `soil-syntax-spec.md` §9): one text per
//! tree, its layout decided by structure alone, never by line width. Trellis prints its
//! checked-in examples to themselves, so they are the style this follows.
//!
//! - A definition prints its signature line, an optional `decreases` line, and its
//!   equation; a body that is a `let`, `if` or `match` goes on the following lines,
//!   indented two spaces a level, anything else after `=` on the same line.
//! - In those statement positions each `let` binding takes a line ending in `in`, and
//!   `if`/`then`/`else` and every match arm start lines of their own; a block inside a
//!   block is indented one more level. Elsewhere everything prints on one line.
//! - Parentheses appear exactly where reading the text back would otherwise give another
//!   tree. Two are stylistic: an applied type after a row is parenthesised, and a negated
//!   negation prints `-(-x)` (`--` would start a comment). One is missing, as in trellis:
//!   see [`reads_back_differently`].

use super::ast::*;
use super::lex::Token;
use std::fmt::Write;

/// The canonical text of a file: its definitions, separated by an empty line.
pub fn print_file(file: &SoilFile) -> String {
    let mut out = String::new();
    for (i, def) in file.defs.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        print_def(&mut out, def);
    }
    out
}

pub fn print_def(out: &mut String, def: &Def) {
    let _ = writeln!(out, "{} : {}", def.name, ty(&def.sig));
    if let Some(measure) = &def.decreases {
        let _ = writeln!(out, "decreases {}", inline(measure, 0));
    }
    out.push_str(&def.name);
    for p in &def.params {
        out.push(' ');
        out.push_str(p);
    }
    out.push_str(" =");
    after_head(out, &def.body, 0);
    out.push('\n');
}

/// Whether `def`'s canonical text reads back as another definition, or not at all.
///
/// Trellis's printer leaves out parentheses its own reader needs in two places. The hash
/// form is that text, so it must stay as trellis prints it; the text still tells the
/// trees apart (no two definitions share a hash form), only the reader does not.
///
/// - **The head.** The reader finds where the equation starts by looking ahead for
///   `name { ident } =`, and a bare name prints without parentheses. So a signature, or a
///   measure when there is one, whose text ends in bare names including the definition's
///   own name (`y : J y (a)`, printed `y : J y a`) reads back with the equation starting
///   at that name.
/// - **An annotated application ending in a bare name.** `((f x) : T)` prints as
///   `(f x : T)`, and the reader takes `x :` for the start of a signature, which ends the
///   application before `x`; the text does not parse.
pub fn reads_back_differently(def: &Def) -> bool {
    head_reads_back_differently(def)
        || def
            .decreases
            .iter()
            .chain([&def.body])
            .any(has_annotation_ending_in_argument)
}

fn head_reads_back_differently(def: &Def) -> bool {
    let before_head = match &def.decreases {
        Some(measure) => inline(measure, 0),
        None => ty(&def.sig),
    };
    let Ok(tokens) = super::lex::lex(&before_head) else {
        return false;
    };
    for lexed in tokens.iter().rev() {
        match &lexed.token {
            Token::Ident(name) if *name == def.name => return true,
            Token::Ident(_) => {}
            Token::PrivateIdent(name) => return *name == def.name,
            _ => return false,
        }
    }
    false
}

fn has_annotation_ending_in_argument(e: &Expr) -> bool {
    if let Expr::Annot(inner, _) = e
        && ends_in_bare_argument(&inline(inner, 0))
    {
        return true;
    }
    children(e)
        .into_iter()
        .any(has_annotation_ending_in_argument)
}

/// The expressions directly inside `e`.
fn children(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Let { bindings, body, .. } => {
            let mut out: Vec<&Expr> = bindings.iter().map(|(_, v)| v).collect();
            out.push(body);
            out
        }
        Expr::Fun { body, .. } | Expr::Not(body) | Expr::Neg(body) | Expr::Annot(body, _) => {
            vec![body]
        }
        Expr::If(a, b, c) => vec![a, b, c],
        Expr::Match { scrutinee, arms } => {
            let mut out = vec![&**scrutinee];
            out.extend(arms.iter().map(|(_, body)| body));
            out
        }
        Expr::Or(a, b)
        | Expr::And(a, b)
        | Expr::Cmp(_, a, b)
        | Expr::Arith(_, a, b)
        | Expr::App(a, b) => vec![a, b],
        Expr::Record { fields, .. } => fields.iter().map(|(_, v)| v).collect(),
        Expr::Path { .. }
        | Expr::Qualified { .. }
        | Expr::Ctor(_)
        | Expr::Lit(_)
        | Expr::Hole(_) => Vec::new(),
    }
}

/// Whether `text` ends in a bare name given as an argument: a name after something an
/// application can continue from.
fn ends_in_bare_argument(text: &str) -> bool {
    let Ok(tokens) = super::lex::lex(text) else {
        return false;
    };
    match tokens.as_slice() {
        [.., before, last] => {
            matches!(last.token, Token::Ident(_) | Token::PrivateIdent(_))
                && matches!(
                    before.token,
                    Token::Ident(_)
                        | Token::PrivateIdent(_)
                        | Token::TypeName(_)
                        | Token::Int(_)
                        | Token::Float(_)
                        | Token::Str(_)
                        | Token::Hole(_)
                        | Token::Op(")" | "}")
                )
        }
        _ => false,
    }
}

// ---- types ----

fn ty(t: &Type) -> String {
    match t {
        Type::Arrow {
            param,
            dom,
            effects,
            row_var,
            cod,
        } => {
            let dom = match param {
                Some(name) => format!("({name} : {})", ty(dom)),
                None if matches!(**dom, Type::Arrow { .. }) => format!("({})", ty(dom)),
                None => ty(dom),
            };
            let mut row = String::new();
            for e in effects {
                row.push_str(e.as_str());
                row.push(' ');
            }
            if let Some(v) = row_var {
                row.push_str(v);
                row.push(' ');
            }
            let cod = match &**cod {
                Type::Con { args, .. } if !row.is_empty() && !args.is_empty() => {
                    format!("({})", ty(cod))
                }
                _ => ty(cod),
            };
            format!("{dom} -> {row}{cod}")
        }
        Type::Con { name, args } => {
            let mut s = name.clone();
            for a in args {
                s.push(' ');
                match a {
                    Type::Con { args, .. } if !args.is_empty() => {
                        let _ = write!(s, "({})", ty(a));
                    }
                    Type::Arrow { .. } => {
                        let _ = write!(s, "({})", ty(a));
                    }
                    _ => s.push_str(&ty(a)),
                }
            }
            s
        }
        Type::Var(name) => name.clone(),
        Type::Refined { binder, base, pred } => {
            format!("{{{binder} : {} | {}}}", ty(base), predicate(pred, 0))
        }
    }
}

// ---- predicates ----

/// Levels: 0 `implies` (right-associative), 1 `or`, 2 `and`, 3 `not` and atoms.
fn predicate(p: &Pred, level: u8) -> String {
    let (text, own) = match p {
        Pred::Implies(a, b) => (
            format!("{} implies {}", predicate(a, 1), predicate(b, 0)),
            0,
        ),
        Pred::Or(a, b) => (format!("{} or {}", predicate(a, 1), predicate(b, 2)), 1),
        Pred::And(a, b) => (format!("{} and {}", predicate(a, 2), predicate(b, 3)), 2),
        Pred::Not(a) => (format!("not {}", predicate(a, 3)), 3),
        Pred::Cmp(op, a, b) => (format!("{} {} {}", pexpr(a), op.as_str(), pexpr(b)), 3),
        Pred::Is {
            scrutinee,
            type_name,
            ctor,
            payload,
        } => {
            let mut s = format!("{} is ", pexpr(scrutinee));
            if let Some(t) = type_name {
                let _ = write!(s, "{t}::");
            }
            s.push_str(ctor);
            if let Some(b) = payload {
                let _ = write!(s, "({b})");
            }
            (s, 3)
        }
        Pred::Call { name, args } => (call(name, args), 3),
    };
    if own < level {
        format!("({text})")
    } else {
        text
    }
}

fn call(name: &str, args: &[PExpr]) -> String {
    let mut s = name.to_owned();
    for a in args {
        s.push(' ');
        s.push_str(&pexpr_atom(a));
    }
    s
}

/// Arithmetic is left-nested: a right operand that is itself arithmetic is
/// parenthesised, whatever its operator.
fn pexpr(e: &PExpr) -> String {
    match e {
        PExpr::Arith(op, a, b) => format!("{} {} {}", pexpr(a), op.as_str(), pexpr_arg(b)),
        _ => pexpr_arg(e),
    }
}

fn pexpr_arg(e: &PExpr) -> String {
    match e {
        PExpr::Arith(..) => format!("({})", pexpr(e)),
        PExpr::Call { name, args } => call(name, args),
        _ => pexpr_atom(e),
    }
}

fn pexpr_atom(e: &PExpr) -> String {
    match e {
        PExpr::Lit(lit) => literal(lit),
        PExpr::Path { root, fields } => path(root, fields),
        _ => format!("({})", pexpr(e)),
    }
}

fn path(root: &str, fields: &[String]) -> String {
    let mut s = root.to_owned();
    for f in fields {
        s.push('.');
        s.push_str(f);
    }
    s
}

fn literal(lit: &Lit) -> String {
    match lit {
        Lit::Int(text) | Lit::Float(text) => text.clone(),
        Lit::Str(value) => {
            let mut s = String::from('"');
            for c in value.chars() {
                match c {
                    '"' => s.push_str("\\\""),
                    '\\' => s.push_str("\\\\"),
                    '\n' => s.push_str("\\n"),
                    '\r' => s.push_str("\\r"),
                    '\t' => s.push_str("\\t"),
                    c if (c as u32) < 0x20 => {
                        let _ = write!(s, "\\u{{{:x}}}", c as u32);
                    }
                    c => s.push(c),
                }
            }
            s.push('"');
            s
        }
    }
}

// ---- expressions: statement positions ----

fn is_block(e: &Expr) -> bool {
    matches!(e, Expr::Let { .. } | Expr::If(..) | Expr::Match { .. })
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// What follows a head ending in `=`, `->`, `then` or `else` at `level`: a block on the
/// next lines one level deeper, anything else after a space.
fn after_head(out: &mut String, e: &Expr, level: usize) {
    if is_block(e) {
        out.push('\n');
        block(out, e, level + 1);
    } else {
        out.push(' ');
        out.push_str(&inline(e, 0));
    }
}

/// `e` in statement position at `level`, without a final newline.
fn block(out: &mut String, e: &Expr, level: usize) {
    match e {
        Expr::Let {
            rec,
            bindings,
            body,
        } => {
            for (binder, value) in bindings {
                indent(out, level);
                out.push_str(if *rec { "let rec " } else { "let " });
                out.push_str(binder.as_deref().unwrap_or("_"));
                out.push_str(" =");
                let nested = match value {
                    v if is_block(v) => Some(v),
                    Expr::Fun { params, body } if is_block(body) => {
                        out.push_str(" fun");
                        for p in params {
                            out.push(' ');
                            out.push_str(p);
                        }
                        out.push_str(" ->");
                        Some(&**body)
                    }
                    _ => None,
                };
                match nested {
                    Some(b) => {
                        out.push('\n');
                        block(out, b, level + 1);
                        out.push('\n');
                        indent(out, level);
                        out.push_str("in\n");
                    }
                    None => {
                        let _ = writeln!(out, " {} in", inline(value, 0));
                    }
                }
            }
            if is_block(body) {
                block(out, body, level);
            } else {
                indent(out, level);
                out.push_str(&inline(body, 0));
            }
        }
        Expr::If(cond, then, otherwise) => {
            indent(out, level);
            let _ = writeln!(out, "if {}", inline(cond, 0));
            indent(out, level);
            out.push_str("then");
            after_head(out, then, level);
            out.push('\n');
            indent(out, level);
            out.push_str("else");
            after_head(out, otherwise, level);
        }
        Expr::Match { scrutinee, arms } => {
            indent(out, level);
            let _ = write!(out, "match {} with", inline(scrutinee, 0));
            for (pattern, body) in arms {
                out.push('\n');
                indent(out, level);
                let _ = write!(out, "| {} ->", pattern_text(pattern));
                after_head(out, body, level);
            }
        }
        _ => {
            indent(out, level);
            out.push_str(&inline(e, 0));
        }
    }
}

// ---- expressions: on one line ----

/// Binding strength, loosest first; what binds looser than its position requires is
/// parenthesised.
fn strength(e: &Expr) -> u8 {
    match e {
        Expr::Let { .. } | Expr::Fun { .. } | Expr::If(..) | Expr::Match { .. } => 0,
        Expr::Or(..) => 1,
        Expr::And(..) => 2,
        Expr::Not(..) => 3,
        Expr::Cmp(..) => 4,
        Expr::Arith(op, ..) if op.is_additive() => 5,
        Expr::Arith(..) => 6,
        Expr::Neg(..) => 7,
        Expr::App(..) => 8,
        _ => 9,
    }
}

fn inline(e: &Expr, level: u8) -> String {
    let text = match e {
        Expr::Let {
            rec,
            bindings,
            body,
        } => {
            let mut s = String::new();
            for (i, (binder, value)) in bindings.iter().enumerate() {
                s.push_str(match (i, rec) {
                    (0, true) => "let rec ",
                    (0, false) => "let ",
                    _ => " and ",
                });
                s.push_str(binder.as_deref().unwrap_or("_"));
                s.push_str(" = ");
                s.push_str(&inline(value, 0));
            }
            let _ = write!(s, " in {}", inline(body, 0));
            s
        }
        Expr::Fun { params, body } => {
            let mut s = String::from("fun");
            for p in params {
                s.push(' ');
                s.push_str(p);
            }
            let _ = write!(s, " -> {}", inline(body, 0));
            s
        }
        Expr::If(cond, then, otherwise) => format!(
            "if {} then {} else {}",
            inline(cond, 0),
            inline(then, 0),
            inline(otherwise, 0)
        ),
        Expr::Match { scrutinee, arms } => {
            let mut s = format!("match {} with", inline(scrutinee, 0));
            for (pattern, body) in arms {
                let _ = write!(s, " | {} -> {}", pattern_text(pattern), inline(body, 1));
            }
            s
        }
        Expr::Or(a, b) => format!("{} or {}", inline(a, 1), inline(b, 2)),
        Expr::And(a, b) => format!("{} and {}", inline(a, 2), inline(b, 3)),
        Expr::Not(a) => format!("not {}", inline(a, 3)),
        Expr::Cmp(op, a, b) => format!("{} {} {}", inline(a, 5), op.as_str(), inline(b, 5)),
        Expr::Arith(op, a, b) => {
            let own = strength(e);
            format!("{} {} {}", inline(a, own), op.as_str(), inline(b, own + 1))
        }
        Expr::Neg(a) if matches!(**a, Expr::Neg(_)) => format!("-({})", inline(a, 0)),
        Expr::Neg(a) => format!("-{}", inline(a, 7)),
        Expr::App(f, a) => format!("{} {}", inline(f, 8), inline(a, 9)),
        Expr::Path { root, fields } => path(root, fields),
        Expr::Qualified { space, name } => format!("{space}::{name}"),
        Expr::Ctor(name) => name.clone(),
        Expr::Record { update, fields } => {
            let mut s = String::from("{ ");
            if let Some((root, base)) = update {
                let _ = write!(s, "{} with ", path(root, base));
            }
            for (i, (name, value)) in fields.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                let _ = write!(s, "{name} = {}", inline(value, 0));
            }
            s.push_str(" }");
            s
        }
        Expr::Lit(lit) => literal(lit),
        // Self-delimiting: never parenthesised again.
        Expr::Annot(inner, t) => return format!("({} : {})", inline(inner, 0), ty(t)),
        Expr::Hole(name) => format!("?{name}"),
    };
    if strength(e) < level {
        format!("({text})")
    } else {
        text
    }
}

// ---- patterns ----

fn pattern_text(p: &Pattern) -> String {
    match p {
        Pattern::Wild => "_".into(),
        Pattern::Bind(name) => name.clone(),
        Pattern::Lit(lit) => literal(lit),
        Pattern::Ctor {
            type_name,
            name,
            arg,
        } => {
            let mut s = match type_name {
                Some(t) => format!("{t}::{name}"),
                None => name.clone(),
            };
            if let Some(arg) = arg {
                let inner = pattern_text(arg);
                match **arg {
                    Pattern::Ctor { arg: Some(_), .. } => {
                        let _ = write!(s, " ({inner})");
                    }
                    _ => {
                        let _ = write!(s, " {inner}");
                    }
                }
            }
            s
        }
        Pattern::Record { fields, open } => {
            let mut s = String::from("{ ");
            for (i, (name, sub)) in fields.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                s.push_str(name);
                if let Some(sub) = sub {
                    let _ = write!(s, " = {}", pattern_text(sub));
                }
            }
            if *open {
                s.push_str(", ..");
            }
            s.push_str(" }");
            s
        }
    }
}
