//! A definition's hash form and free references: what its `soil_hash` is computed from
//! (trellis's `soil-syntax-spec.md` §9.1 and `lock-schema.md`'s recipe).
//!
//! The hash form is the canonical text with every local binder — equation parameters,
//! `let` and `let rec` binders, `fun` parameters, pattern binders — printed as `%N`, so
//! that renaming a local never moves a hash. The numbering, as trellis has it:
//!
//! - binders are numbered in the order they are met, from 0 for each definition;
//! - a `let` numbers all its binders before walking their values (sound: Soil forbids
//!   shadowing, so a value cannot mean an outer name its sibling binds);
//! - a punned record-pattern field `{ index, .. }` becomes `{ index = %N, .. }`: the field
//!   name stays, the binder is renamed;
//! - the signature is left as written (its parameter names are spec surface), and so are
//!   definition names, callees, types, constructors, fields and holes.
//!
//! The free references are what the body names but does not bind: other definitions,
//! `_private` helpers and builtins (told apart later, by what the root defines), plus the
//! types the signature and annotations name. Refinement predicates contribute none.

use super::ast::*;
use crate::hash::ContentHash;
use std::collections::BTreeSet;

/// One definition, ready to hash.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct HashForm {
    pub name: String,
    /// The canonical text with local binders numbered.
    pub text: String,
    /// Bare names used but not bound: definitions, private helpers or builtins. Each
    /// list is sorted, without duplicates (vectors rather than sets: a root holds one
    /// form per definition, kept between runs).
    pub names: Vec<String>,
    /// `module::def` references.
    pub qualified: Vec<String>,
    /// Type names in the signature, annotations and qualified names.
    pub types: Vec<String>,
    /// `Type::function` references: derived functions and numeric primitives.
    pub type_functions: Vec<String>,
}

/// The references of one definition while they are collected.
#[derive(Default)]
struct Refs {
    names: BTreeSet<String>,
    qualified: BTreeSet<String>,
    types: BTreeSet<String>,
    type_functions: BTreeSet<String>,
}

/// The hash forms of a file's definitions, in file order.
pub fn hash_forms(file: SoilFile) -> Vec<HashForm> {
    // Not `into_iter().map().collect()`: that would reuse the parse's allocation, sized
    // for definitions, and keep it for as long as the forms are held (125 MB more at 50k
    // definitions).
    let mut forms = Vec::with_capacity(file.defs.len());
    for def in file.defs {
        forms.push(hash_form(def));
    }
    forms
}

/// The hash form of `def`, which is renamed in place (its binders numbered) and printed:
/// taken by value, as the parse is not needed after (a copy was 16 of the 73 allocations
/// of hashing a small `.soil`).
pub fn hash_form(mut def: Def) -> HashForm {
    let mut walk = Walk {
        next: 0,
        scope: Vec::new(),
        refs: Refs::default(),
    };
    walk.types_of(&def.sig);
    for p in &mut def.params {
        walk.bind(p);
    }
    if let Some(measure) = &mut def.decreases {
        walk.expr(measure);
    }
    walk.expr(&mut def.body);
    let mut text = String::new();
    super::print::print_def(&mut text, &def);
    // A root keeps every definition's form: not the room that printing left.
    text.shrink_to_fit();
    let refs = walk.refs;
    HashForm {
        // Renaming numbers binders only; the definition keeps its name.
        name: def.name,
        text,
        names: refs.names.into_iter().collect(),
        qualified: refs.qualified.into_iter().collect(),
        types: refs.types.into_iter().collect(),
        type_functions: refs.type_functions.into_iter().collect(),
    }
}

/// `soil_hash` from a hash form and its references, each `(name, referent)`: a callee by
/// its `soil_hash`, a private helper by its own `soil_hash`, a user type by its `formal`
/// hash, a builtin by [`BUILTIN_REFERENT`]. The references are sorted by name, so their
/// order does not matter.
pub fn soil_hash<N: AsRef<str>, R: AsRef<str>>(text: &str, refs: &[(N, R)]) -> ContentHash {
    let mut sorted: Vec<(&str, &str)> =
        refs.iter().map(|(n, r)| (n.as_ref(), r.as_ref())).collect();
    sorted.sort_unstable();
    let mut edges = String::new();
    for (name, referent) in sorted {
        edges.push_str(name);
        edges.push('\0');
        edges.push_str(referent);
        edges.push('\n');
    }
    crate::soil::spec_hash::digest(&[b"soil-hash/1", text.as_bytes(), edges.as_bytes()])
}

/// What a builtin reference hashes as: the toolchain's builtin set, by the major version
/// of trellis's soil0 (builtins change only with it).
pub const BUILTIN_REFERENT: &str = "soil0-builtin/1";

struct Walk {
    next: usize,
    /// Original name and number of each binder in scope, innermost last.
    scope: Vec<(String, usize)>,
    refs: Refs,
}

impl Walk {
    fn bind(&mut self, name: &mut String) {
        let n = self.next;
        self.next += 1;
        self.scope.push((std::mem::take(name), n));
        *name = format!("%{n}");
    }

    /// Renames a use of a local, or records a free name.
    fn use_name(&mut self, name: &mut String) {
        match self
            .scope
            .iter()
            .rev()
            .find(|(original, _)| original == name)
        {
            Some((_, n)) => *name = format!("%{n}"),
            None => {
                self.refs.names.insert(name.clone());
            }
        }
    }

    fn types_of(&mut self, t: &Type) {
        match t {
            Type::Arrow { dom, cod, .. } => {
                self.types_of(dom);
                self.types_of(cod);
            }
            Type::Con { name, args } => {
                self.refs.types.insert(name.clone());
                for a in args {
                    self.types_of(a);
                }
            }
            Type::Var(_) => {}
            Type::Refined { base, .. } => self.types_of(base),
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        match e {
            Expr::Let { bindings, body, .. } => {
                let mark = self.scope.len();
                for (binder, _) in bindings.iter_mut() {
                    if let Some(name) = binder {
                        self.bind(name);
                    }
                }
                for (_, value) in bindings.iter_mut() {
                    self.expr(value);
                }
                self.expr(body);
                self.scope.truncate(mark);
            }
            Expr::Fun { params, body } => {
                let mark = self.scope.len();
                for p in params.iter_mut() {
                    self.bind(p);
                }
                self.expr(body);
                self.scope.truncate(mark);
            }
            Expr::Match { scrutinee, arms } => {
                self.expr(scrutinee);
                for (pattern, body) in arms.iter_mut() {
                    let mark = self.scope.len();
                    self.pattern(pattern);
                    self.expr(body);
                    self.scope.truncate(mark);
                }
            }
            Expr::If(a, b, c) => {
                self.expr(a);
                self.expr(b);
                self.expr(c);
            }
            Expr::Or(a, b)
            | Expr::And(a, b)
            | Expr::Cmp(_, a, b)
            | Expr::Arith(_, a, b)
            | Expr::App(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            Expr::Not(a) | Expr::Neg(a) => self.expr(a),
            Expr::Path { root, .. } => self.use_name(root),
            Expr::Record { update, fields } => {
                if let Some((root, _)) = update {
                    self.use_name(root);
                }
                for (_, value) in fields.iter_mut() {
                    self.expr(value);
                }
            }
            Expr::Annot(inner, t) => {
                self.expr(inner);
                self.types_of(t);
            }
            Expr::Qualified { space, name } => {
                let type_space = space.starts_with(|c: char| c.is_ascii_uppercase());
                if !type_space {
                    self.refs.qualified.insert(format!("{space}::{name}"));
                } else {
                    self.refs.types.insert(space.clone());
                    if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
                        self.refs.type_functions.insert(format!("{space}::{name}"));
                    }
                }
            }
            Expr::Ctor(_) | Expr::Lit(_) | Expr::Hole(_) => {}
        }
    }

    fn pattern(&mut self, p: &mut Pattern) {
        match p {
            Pattern::Wild | Pattern::Lit(_) => {}
            Pattern::Bind(name) => self.bind(name),
            Pattern::Ctor { type_name, arg, .. } => {
                if let Some(t) = type_name {
                    self.refs.types.insert(t.clone());
                }
                if let Some(arg) = arg {
                    self.pattern(arg);
                }
            }
            Pattern::Record { fields, .. } => {
                for (field, sub) in fields.iter_mut() {
                    match sub {
                        Some(sub) => self.pattern(sub),
                        None => {
                            let mut binder = field.clone();
                            self.bind(&mut binder);
                            *sub = Some(Pattern::Bind(binder));
                        }
                    }
                }
            }
        }
    }
}
