//! The tree of a `.soil` file: what the canonical printer needs, and nothing more. No
//! spans: positions matter only while parsing (for its errors), and the hash form must not
//! depend on them.

/// A parsed `.soil` file: one definition, or several in a `_private.soil`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SoilFile {
    pub defs: Vec<Def>,
}

/// `name : sig`, an optional `decreases` measure, then `name params = body`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Def {
    pub name: String,
    pub sig: Type,
    pub decreases: Option<Expr>,
    pub params: Vec<String>,
    pub body: Expr,
}

/// Effects, in the one order rows print them in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Effect {
    Div,
    Panic,
    Io,
    Ffi,
}

impl Effect {
    pub fn named(name: &str) -> Option<Effect> {
        match name {
            "div" => Some(Effect::Div),
            "panic" => Some(Effect::Panic),
            "io" => Some(Effect::Io),
            "ffi" => Some(Effect::Ffi),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Div => "div",
            Effect::Panic => "panic",
            Effect::Io => "io",
            Effect::Ffi => "ffi",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    /// `dom -> row cod`, or `(param : dom) -> row cod` when the domain is named.
    Arrow {
        param: Option<String>,
        dom: Box<Type>,
        /// Sorted, without duplicates.
        effects: Vec<Effect>,
        row_var: Option<String>,
        cod: Box<Type>,
    },
    /// A type name applied to its arguments (none for a bare name).
    Con {
        name: String,
        args: Vec<Type>,
    },
    Var(String),
    /// `{binder : base | pred}`.
    Refined {
        binder: String,
        base: Box<Type>,
        pred: Pred,
    },
}

/// Refinement predicates (trellis's `tr-grammar.md` §2.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pred {
    Implies(Box<Pred>, Box<Pred>),
    Or(Box<Pred>, Box<Pred>),
    And(Box<Pred>, Box<Pred>),
    Not(Box<Pred>),
    Cmp(CmpOp, PExpr, PExpr),
    /// `scrutinee is [Type::]Ctor[(payload)]`.
    Is {
        scrutinee: PExpr,
        type_name: Option<String>,
        ctor: String,
        payload: Option<String>,
    },
    /// A call used as a boolean.
    Call {
        name: String,
        args: Vec<PExpr>,
    },
}

/// The expressions of the predicate language: no binders, only `+`, `-` and `*`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PExpr {
    Lit(Lit),
    Path { root: String, fields: Vec<String> },
    Arith(ArithOp, Box<PExpr>, Box<PExpr>),
    Call { name: String, args: Vec<PExpr> },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lit {
    /// The digits, without underscores or sign.
    Int(String),
    /// The literal's text, without underscores.
    Float(String),
    /// The decoded value.
    Str(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn from_op(op: &str) -> Option<CmpOp> {
        Some(match op {
            "==" => CmpOp::Eq,
            "!=" => CmpOp::Ne,
            "<" => CmpOp::Lt,
            "<=" => CmpOp::Le,
            ">" => CmpOp::Gt,
            ">=" => CmpOp::Ge,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

impl ArithOp {
    pub fn as_str(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Mod => "%",
        }
    }

    /// `+` and `-` bind looser than `*`, `/` and `%`.
    pub fn is_additive(self) -> bool {
        matches!(self, ArithOp::Add | ArithOp::Sub)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expr {
    Let {
        rec: bool,
        /// `None` binds `_` (discarded).
        bindings: Vec<(Option<String>, Expr)>,
        body: Box<Expr>,
    },
    Fun {
        params: Vec<String>,
        body: Box<Expr>,
    },
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    Match {
        scrutinee: Box<Expr>,
        arms: Vec<(Pattern, Expr)>,
    },
    Or(Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    Arith(ArithOp, Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    App(Box<Expr>, Box<Expr>),
    /// A name with field accesses (`row.values`); a bare name has no fields.
    Path {
        root: String,
        fields: Vec<String>,
    },
    /// `module::def`, `Type::derived` or `Type::Ctor`.
    Qualified {
        space: String,
        name: String,
    },
    Ctor(String),
    /// `{ base with f = e, … }` or `{ f = e, … }`.
    Record {
        update: Option<(String, Vec<String>)>,
        fields: Vec<(String, Expr)>,
    },
    Lit(Lit),
    Annot(Box<Expr>, Type),
    /// A typed hole `?name`.
    Hole(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    Wild,
    Bind(String),
    Lit(Lit),
    Ctor {
        type_name: Option<String>,
        name: String,
        arg: Option<Box<Pattern>>,
    },
    /// `{ f = p, g, .. }`: a field without a pattern binds its own name (punning).
    Record {
        fields: Vec<(String, Option<Pattern>)>,
        open: bool,
    },
}
