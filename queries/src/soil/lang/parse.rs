//! Soil's grammar (trellis's `soil-syntax-spec.md` §3 and §4, predicates from
//! `tr-grammar.md` §2.3), by recursive descent over the tokens of [`super::lex`].
//!
//! Soil has no layout rule, so a few places need a look ahead; the spec names them:
//!
//! - **The equation head.** Juxtaposition means a signature's type, or a `decreases`
//!   expression, could run on into `name params =`. A run of identifiers ending in `=`
//!   whose member is the definition's name starts the equation, and so does any such run
//!   when no member is (a mismatched name, reported as such rather than as a type error).
//!   In a `_private.soil`, `name :` starts the next definition.
//! - **`and`.** Followed by `name =` (or `_ =`), it separates `let` bindings; otherwise it
//!   is the boolean operator. `=` never occurs inside an expression.
//! - **Rows.** After `->`, effect names are the row; a further lower-case name is a row
//!   variable only if a type follows it.
//! - **Comparisons** do not chain: `a < b < c` is an error.
//! - **Match arms** extend as far as they can; a `|` belongs to the innermost `match`.
//! - **Predicates** try the comparison / `is` / call reading first and fall back to a
//!   parenthesised predicate.

use super::SyntaxError;
use super::ast::*;
use super::lex::{self, Lexed, Token};
use crate::text::LineIndex;

/// Parses a `.soil` file. `file_name` is its name (only `_private.soil` may hold several
/// definitions, and only private ones).
pub fn parse_file(src: &str, file_name: &str) -> Result<SoilFile, SyntaxError> {
    let tokens = lex::lex(src)?;
    let private = file_name.rsplit('/').next() == Some("_private.soil");
    let mut p = Parser {
        src,
        tokens,
        pos: 0,
        def_name: String::new(),
        depth: 0,
    };
    let mut defs = Vec::new();
    let mut second_at = None;
    while p.peek(0).is_some() {
        if defs.len() == 1 {
            second_at = Some(p.here());
        }
        defs.push(p.def(private)?);
    }
    if !private {
        if defs.is_empty() {
            return Err(p.expected("a definition"));
        }
        if let Some(at) = second_at {
            return Err(p.error(
                "soil-multiple-defs",
                at,
                "a .soil file holds exactly one definition (only `_private.soil` may hold \
                 several)"
                    .into(),
            ));
        }
    }
    Ok(SoilFile { defs })
}

type Parsed<T> = Result<T, SyntaxError>;

struct Parser<'a> {
    src: &'a str,
    tokens: Vec<Lexed>,
    pos: usize,
    /// The definition being parsed: its name marks the equation head.
    def_name: String,
    /// How deep the tree being built is at this point. Bounded by [`MAX_DEPTH`]: the
    /// tree is printed, hashed, cloned and dropped recursively, and a file nesting
    /// thousands of levels deep (found by fuzzing: an application of thousands of
    /// arguments) must be an error, not a stack overflow.
    depth: usize,
}

/// How deeply a definition may nest: parentheses, operators, applications, patterns and
/// types together. Far beyond any real definition.
pub const MAX_DEPTH: usize = 64;

impl Parser<'_> {
    // ---- depth ----

    /// One level deeper for what `f` parses.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Parsed<T>) -> Parsed<T> {
        self.deeper()?;
        let result = f(self);
        self.depth -= 1;
        result
    }

    /// A left-nested chain `operand (op operand)*`, each operator one token: `op` says
    /// whether the current token is one (and which), `build` joins the two sides. Each
    /// link is one level deeper.
    fn chain<T, O>(
        &mut self,
        operand: fn(&mut Self) -> Parsed<T>,
        op: impl Fn(&Self) -> Option<O>,
        build: impl Fn(O, T, T) -> T,
    ) -> Parsed<T> {
        let base = self.depth;
        let mut lhs = operand(self)?;
        while let Some(o) = op(self) {
            self.bump();
            self.deeper()?;
            lhs = build(o, lhs, operand(self)?);
        }
        self.depth = base;
        Ok(lhs)
    }

    /// `+` or `-` here: the additive operators of terms and predicates alike.
    fn additive(&self) -> Option<ArithOp> {
        match self.peek(0) {
            Some(Token::Op("+")) => Some(ArithOp::Add),
            Some(Token::Op("-")) => Some(ArithOp::Sub),
            _ => None,
        }
    }

    /// `*` here: the one multiplicative operator predicates share with terms.
    fn multiplicative(&self) -> Option<ArithOp> {
        self.is_op(0, "*").then_some(ArithOp::Mul)
    }

    /// One level deeper: a left-nested chain (`a + b + c`, `f a b c`) adds one per link.
    /// The caller restores the depth when the chain ends.
    fn deeper(&mut self) -> Parsed<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(
                "soil-too-deep",
                self.here(),
                format!("nested more than {MAX_DEPTH} levels deep"),
            ));
        }
        Ok(())
    }

    // ---- tokens ----

    fn peek(&self, ahead: usize) -> Option<&Token> {
        self.tokens.get(self.pos + ahead).map(|t| &t.token)
    }

    /// The byte offset of the current token (the end of the file past the last one).
    fn here(&self) -> usize {
        self.tokens
            .get(self.pos)
            .map_or(self.src.len(), |t| t.span.start)
    }

    fn bump(&mut self) {
        self.pos += 1;
    }

    fn is_op(&self, ahead: usize, op: &str) -> bool {
        matches!(self.peek(ahead), Some(Token::Op(o)) if *o == op)
    }

    fn is_kw(&self, ahead: usize, word: &str) -> bool {
        matches!(self.peek(ahead), Some(Token::Keyword(w)) if *w == word)
    }

    /// `implies` and `is` are words only inside predicates: they lex as identifiers.
    fn is_word(&self, ahead: usize, word: &str) -> bool {
        matches!(self.peek(ahead), Some(Token::Ident(n)) if n == word)
    }

    fn eat_op(&mut self, op: &str) -> bool {
        let yes = self.is_op(0, op);
        if yes {
            self.bump();
        }
        yes
    }

    fn expect_op(&mut self, op: &str) -> Parsed<()> {
        if self.eat_op(op) {
            Ok(())
        } else {
            Err(self.expected(&format!("`{op}`")))
        }
    }

    fn expect_kw(&mut self, word: &str) -> Parsed<()> {
        if self.is_kw(0, word) {
            self.bump();
            Ok(())
        } else {
            Err(self.expected(&format!("`{word}`")))
        }
    }

    fn ident(&mut self) -> Parsed<String> {
        match self.peek(0) {
            Some(Token::Ident(name)) => {
                let name = name.clone();
                self.bump();
                Ok(name)
            }
            _ => Err(self.expected("an identifier")),
        }
    }

    /// An identifier or a private identifier.
    fn def_name_token(&mut self) -> Parsed<String> {
        match self.peek(0) {
            Some(Token::Ident(name) | Token::PrivateIdent(name)) => {
                let name = name.clone();
                self.bump();
                Ok(name)
            }
            _ => Err(self.expected("a definition name")),
        }
    }

    fn type_name(&mut self, what: &str) -> Parsed<String> {
        match self.peek(0) {
            Some(Token::TypeName(name)) => {
                let name = name.clone();
                self.bump();
                Ok(name)
            }
            _ => Err(self.expected(what)),
        }
    }

    // ---- errors ----

    fn error(&self, code: &'static str, offset: usize, message: String) -> SyntaxError {
        SyntaxError {
            code,
            at: LineIndex::new(self.src).line_col(self.src, offset),
            message,
        }
    }

    fn expected(&self, what: &str) -> SyntaxError {
        let found = match self.peek(0) {
            None => "the end of the file".to_owned(),
            Some(Token::Str(_)) => "a string literal".to_owned(),
            Some(_) => {
                let span = &self.tokens[self.pos].span;
                format!("`{}`", &self.src[span.clone()])
            }
        };
        self.error(
            "soil-expected",
            self.here(),
            format!("expected {what}, found {found}"),
        )
    }

    // ---- look-ahead ----

    /// Whether the token `ahead` starts the equation head `name { ident } =` of the
    /// definition being parsed.
    fn is_equation_start(&self, ahead: usize) -> bool {
        let Some(Token::Ident(first) | Token::PrivateIdent(first)) = self.peek(ahead) else {
            return false;
        };
        let mut name_later = false;
        let mut i = ahead + 1;
        loop {
            match self.peek(i) {
                Some(Token::Ident(n)) => {
                    name_later |= *n == self.def_name;
                    i += 1;
                }
                Some(Token::Op("=")) => break,
                _ => return false,
            }
        }
        *first == self.def_name || !name_later
    }

    /// Whether the token `ahead` starts the next definition's signature (`name :`).
    fn is_signature_start(&self, ahead: usize) -> bool {
        matches!(
            self.peek(ahead),
            Some(Token::Ident(_) | Token::PrivateIdent(_))
        ) && self.is_op(ahead + 1, ":")
    }

    /// Whether a name at `ahead` belongs to what is being parsed rather than starting
    /// the equation or the next definition.
    fn name_continues(&self, ahead: usize) -> bool {
        !self.is_equation_start(ahead) && !self.is_signature_start(ahead)
    }

    // ---- definitions ----

    fn def(&mut self, private: bool) -> Parsed<Def> {
        let name_at = self.here();
        let name = self.def_name_token()?;
        if name.starts_with('_') != private {
            let message = if private {
                format!("`{name}`: definitions in `_private.soil` have private names (`_name`)")
            } else {
                format!("`{name}`: private definitions live only in `_private.soil`")
            };
            return Err(self.error("soil-misplaced-private", name_at, message));
        }
        self.def_name = name.clone();
        self.expect_op(":")?;
        let sig = self.ty()?;
        let decreases = if self.is_kw(0, "decreases") {
            self.bump();
            Some(self.expr()?)
        } else {
            None
        };
        let eq_at = self.here();
        let eq_name = self.def_name_token()?;
        if eq_name != name {
            return Err(self.error(
                "soil-name-mismatch",
                eq_at,
                format!("the equation is for `{eq_name}` but the signature names `{name}`"),
            ));
        }
        let mut params = Vec::new();
        while let Some(Token::Ident(_)) = self.peek(0) {
            params.push(self.ident()?);
        }
        self.expect_op("=")?;
        let body = self.expr()?;
        Ok(Def {
            name,
            sig,
            decreases,
            params,
            body,
        })
    }

    // ---- types ----

    fn starts_type_atom(&self, ahead: usize) -> bool {
        match self.peek(ahead) {
            Some(Token::TypeName(_) | Token::Op("(" | "{")) => true,
            Some(Token::Ident(name)) => Effect::named(name).is_none() && self.name_continues(ahead),
            _ => false,
        }
    }

    fn ty(&mut self) -> Parsed<Type> {
        self.nested(Self::ty_inner)
    }

    fn ty_inner(&mut self) -> Parsed<Type> {
        if self.is_op(0, "(") && matches!(self.peek(1), Some(Token::Ident(_))) && self.is_op(2, ":")
        {
            self.bump();
            let param = self.ident()?;
            self.bump();
            let dom = self.ty()?;
            self.expect_op(")")?;
            self.expect_op("->")?;
            return self.arrow_rest(Some(param), dom);
        }
        let dom = self.app_type()?;
        if self.eat_op("->") {
            self.arrow_rest(None, dom)
        } else {
            Ok(dom)
        }
    }

    /// What follows `->`: the row, then the codomain.
    fn arrow_rest(&mut self, param: Option<String>, dom: Type) -> Parsed<Type> {
        let mut effects = Vec::new();
        while let Some(Token::Ident(name)) = self.peek(0) {
            let Some(effect) = Effect::named(name) else {
                break;
            };
            if effects.contains(&effect) {
                return Err(self.expected("a distinct effect (this one is already in the row)"));
            }
            effects.push(effect);
            self.bump();
        }
        effects.sort();
        let mut row_var = None;
        if let Some(Token::Ident(name)) = self.peek(0)
            && Effect::named(name).is_none()
            && self.name_continues(0)
            && self.starts_type_atom(1)
        {
            row_var = Some(name.clone());
            self.bump();
        }
        // The canonical form parenthesises an applied type after a row, a level of
        // nesting this text may not spend: it is charged here, so that a tree within the
        // limit prints to a text within it.
        let cod = if (row_var.is_some() || !effects.is_empty()) && !self.is_op(0, "(") {
            self.nested(Self::ty)?
        } else {
            self.ty()?
        };
        Ok(Type::Arrow {
            param,
            dom: Box::new(dom),
            effects,
            row_var,
            cod: Box::new(cod),
        })
    }

    fn app_type(&mut self) -> Parsed<Type> {
        let Some(Token::TypeName(name)) = self.peek(0) else {
            return self.atype();
        };
        let name = name.clone();
        self.bump();
        let mut args = Vec::new();
        while self.starts_type_atom(0) {
            args.push(self.atype()?);
        }
        Ok(Type::Con { name, args })
    }

    fn atype(&mut self) -> Parsed<Type> {
        match self.peek(0) {
            Some(Token::TypeName(name)) => {
                let name = name.clone();
                self.bump();
                Ok(Type::Con {
                    name,
                    args: Vec::new(),
                })
            }
            Some(Token::Ident(name)) => {
                if Effect::named(name).is_some() {
                    return Err(self.expected("a type (effect names are reserved in types)"));
                }
                if !self.name_continues(0) {
                    return Err(self.expected("a type"));
                }
                let name = name.clone();
                self.bump();
                Ok(Type::Var(name))
            }
            Some(Token::Op("(")) => {
                self.bump();
                let ty = self.ty()?;
                self.expect_op(")")?;
                Ok(ty)
            }
            Some(Token::Op("{")) => {
                self.bump();
                let binder = self.ident()?;
                self.expect_op(":")?;
                let base = self.ty()?;
                self.expect_op("|")?;
                let pred = self.pred()?;
                self.expect_op("}")?;
                Ok(Type::Refined {
                    binder,
                    base: Box::new(base),
                    pred,
                })
            }
            _ => Err(self.expected("a type")),
        }
    }

    // ---- predicates ----

    fn pred(&mut self) -> Parsed<Pred> {
        self.nested(Self::pred_inner)
    }

    fn pred_inner(&mut self) -> Parsed<Pred> {
        let lhs = self.pred_or()?;
        if self.is_word(0, "implies") {
            self.bump();
            let rhs = self.pred()?;
            return Ok(Pred::Implies(Box::new(lhs), Box::new(rhs)));
        }
        Ok(lhs)
    }

    fn pred_or(&mut self) -> Parsed<Pred> {
        let or = |p: &Self| p.is_kw(0, "or").then_some(());
        self.chain(Self::pred_and, or, |(), a, b| {
            Pred::Or(Box::new(a), Box::new(b))
        })
    }

    fn pred_and(&mut self) -> Parsed<Pred> {
        let and = |p: &Self| p.is_kw(0, "and").then_some(());
        self.chain(Self::pred_not, and, |(), a, b| {
            Pred::And(Box::new(a), Box::new(b))
        })
    }

    fn pred_not(&mut self) -> Parsed<Pred> {
        if self.is_kw(0, "not") {
            self.bump();
            let inner = self.nested(Self::pred_not)?;
            return Ok(Pred::Not(Box::new(inner)));
        }
        let (start, depth) = (self.pos, self.depth);
        if let Ok(p) = self.pred_atom() {
            return Ok(p);
        }
        (self.pos, self.depth) = (start, depth);
        if self.eat_op("(") {
            let p = self.pred()?;
            self.expect_op(")")?;
            return Ok(p);
        }
        Err(self.expected("a predicate"))
    }

    /// A comparison, an `is` test or a call; the caller backtracks on failure.
    fn pred_atom(&mut self) -> Parsed<Pred> {
        let lhs = self.pexpr()?;
        if let Some(Token::Op(op)) = self.peek(0)
            && let Some(cmp) = CmpOp::from_op(op)
        {
            self.bump();
            return Ok(Pred::Cmp(cmp, lhs, self.pexpr()?));
        }
        if self.is_word(0, "is") {
            self.bump();
            let mut type_name = None;
            if matches!(self.peek(0), Some(Token::TypeName(_))) && self.is_op(1, "::") {
                type_name = Some(self.type_name("a type")?);
                self.bump();
            }
            let ctor = self.type_name("a constructor")?;
            let mut payload = None;
            if self.eat_op("(") {
                payload = Some(self.ident()?);
                self.expect_op(")")?;
            }
            return Ok(Pred::Is {
                scrutinee: lhs,
                type_name,
                ctor,
                payload,
            });
        }
        match lhs {
            PExpr::Call { name, args } => Ok(Pred::Call { name, args }),
            _ => Err(self.expected("a comparison, an `is` test or a call")),
        }
    }

    fn pexpr(&mut self) -> Parsed<PExpr> {
        self.nested(Self::pexpr_inner)
    }

    fn pexpr_inner(&mut self) -> Parsed<PExpr> {
        self.chain(Self::pexpr_mul, Self::additive, |op, a, b| {
            PExpr::Arith(op, Box::new(a), Box::new(b))
        })
    }

    fn pexpr_mul(&mut self) -> Parsed<PExpr> {
        self.chain(Self::pexpr_app, Self::multiplicative, |op, a, b| {
            PExpr::Arith(op, Box::new(a), Box::new(b))
        })
    }

    /// Calls are juxtaposition, headed by a bare name.
    fn pexpr_app(&mut self) -> Parsed<PExpr> {
        let head = self.pexpr_atom()?;
        if !self.starts_pexpr_atom() {
            return Ok(head);
        }
        let name = match head {
            PExpr::Path { root, fields } if fields.is_empty() => root,
            _ => return Err(self.expected("an operator (only a bare name can head a call)")),
        };
        let mut args = Vec::new();
        while self.starts_pexpr_atom() {
            args.push(self.pexpr_atom()?);
        }
        Ok(PExpr::Call { name, args })
    }

    fn starts_pexpr_atom(&self) -> bool {
        match self.peek(0) {
            Some(Token::Int(_) | Token::Float(_) | Token::Str(_) | Token::Op("(")) => true,
            Some(Token::Ident(name)) => name != "is" && name != "implies",
            _ => false,
        }
    }

    fn pexpr_atom(&mut self) -> Parsed<PExpr> {
        if let Some(lit) = self.literal() {
            return Ok(PExpr::Lit(lit));
        }
        match self.peek(0) {
            Some(Token::Ident(name)) if name != "is" && name != "implies" => {
                let root = name.clone();
                self.bump();
                let fields = self.fields()?;
                Ok(PExpr::Path { root, fields })
            }
            Some(Token::Op("(")) => {
                self.bump();
                let e = self.pexpr()?;
                self.expect_op(")")?;
                Ok(e)
            }
            _ => Err(self.expected("a predicate expression")),
        }
    }

    /// `.field` accesses after a name.
    fn fields(&mut self) -> Parsed<Vec<String>> {
        let mut fields = Vec::new();
        while self.is_op(0, ".") {
            match self.peek(1) {
                Some(Token::Ident(field)) => {
                    fields.push(field.clone());
                    self.pos += 2;
                }
                _ => {
                    self.bump();
                    return Err(self.expected("a field name"));
                }
            }
        }
        Ok(fields)
    }

    fn literal(&mut self) -> Option<Lit> {
        let lit = match self.peek(0)? {
            Token::Int(digits) => Lit::Int(digits.clone()),
            Token::Float(text) => Lit::Float(text.clone()),
            Token::Str(value) => Lit::Str(value.clone()),
            _ => return None,
        };
        self.bump();
        Some(lit)
    }

    // ---- expressions ----

    fn expr(&mut self) -> Parsed<Expr> {
        self.nested(Self::expr_inner)
    }

    fn expr_inner(&mut self) -> Parsed<Expr> {
        match self.peek(0) {
            Some(Token::Keyword("let")) => self.let_expr(),
            Some(Token::Keyword("fun")) => self.fun_expr(),
            Some(Token::Keyword("if")) => {
                self.bump();
                let cond = self.expr()?;
                self.expect_kw("then")?;
                let then = self.expr()?;
                self.expect_kw("else")?;
                let otherwise = self.expr()?;
                Ok(Expr::If(
                    Box::new(cond),
                    Box::new(then),
                    Box::new(otherwise),
                ))
            }
            Some(Token::Keyword("match")) => self.match_expr(),
            _ => self.or_expr(),
        }
    }

    fn let_expr(&mut self) -> Parsed<Expr> {
        self.bump();
        let rec = self.is_kw(0, "rec");
        if rec {
            self.bump();
        }
        let mut bindings = Vec::new();
        loop {
            let binder = if self.is_op(0, "_") {
                if rec {
                    return Err(self.error(
                        "soil-wildcard-in-let-rec",
                        self.here(),
                        "`_` cannot be bound by `let rec`".into(),
                    ));
                }
                self.bump();
                None
            } else {
                Some(self.def_name_token()?)
            };
            self.expect_op("=")?;
            bindings.push((binder, self.expr()?));
            if self.is_kw(0, "and") && self.and_starts_binding() {
                self.bump();
            } else {
                break;
            }
        }
        self.expect_kw("in")?;
        let body = self.expr()?;
        Ok(Expr::Let {
            rec,
            bindings,
            body: Box::new(body),
        })
    }

    fn fun_expr(&mut self) -> Parsed<Expr> {
        self.bump();
        let mut params = vec![self.ident()?];
        while let Some(Token::Ident(_)) = self.peek(0) {
            params.push(self.ident()?);
        }
        self.expect_op("->")?;
        let body = self.expr()?;
        Ok(Expr::Fun {
            params,
            body: Box::new(body),
        })
    }

    fn match_expr(&mut self) -> Parsed<Expr> {
        self.bump();
        let scrutinee = self.expr()?;
        self.expect_kw("with")?;
        self.expect_op("|")?;
        let mut arms = Vec::new();
        loop {
            let pattern = self.pattern()?;
            self.expect_op("->")?;
            arms.push((pattern, self.expr()?));
            if !self.eat_op("|") {
                break;
            }
        }
        Ok(Expr::Match {
            scrutinee: Box::new(scrutinee),
            arms,
        })
    }

    /// At an `and`: whether `name =` (or `_ =`) follows, making it a binding separator.
    fn and_starts_binding(&self) -> bool {
        let binder = matches!(
            self.peek(1),
            Some(Token::Ident(_) | Token::PrivateIdent(_) | Token::Op("_"))
        );
        binder && self.is_op(2, "=")
    }

    fn or_expr(&mut self) -> Parsed<Expr> {
        let or = |p: &Self| p.is_kw(0, "or").then_some(());
        self.chain(Self::and_expr, or, |(), a, b| {
            Expr::Or(Box::new(a), Box::new(b))
        })
    }

    fn and_expr(&mut self) -> Parsed<Expr> {
        let and = |p: &Self| (p.is_kw(0, "and") && !p.and_starts_binding()).then_some(());
        self.chain(Self::not_expr, and, |(), a, b| {
            Expr::And(Box::new(a), Box::new(b))
        })
    }

    fn not_expr(&mut self) -> Parsed<Expr> {
        if self.is_kw(0, "not") {
            self.bump();
            let inner = self.nested(Self::not_expr)?;
            return Ok(Expr::Not(Box::new(inner)));
        }
        let lhs = self.add_expr()?;
        let Some(Token::Op(op)) = self.peek(0) else {
            return Ok(lhs);
        };
        let Some(cmp) = CmpOp::from_op(op) else {
            return Ok(lhs);
        };
        self.bump();
        let rhs = self.add_expr()?;
        if let Some(Token::Op(op)) = self.peek(0)
            && CmpOp::from_op(op).is_some()
        {
            return Err(self.error(
                "soil-nonassoc-comparison",
                self.here(),
                "comparisons do not chain: write `a < b and b < c`".into(),
            ));
        }
        Ok(Expr::Cmp(cmp, Box::new(lhs), Box::new(rhs)))
    }

    fn add_expr(&mut self) -> Parsed<Expr> {
        self.chain(Self::mul_expr, Self::additive, |op, a, b| {
            Expr::Arith(op, Box::new(a), Box::new(b))
        })
    }

    fn mul_expr(&mut self) -> Parsed<Expr> {
        let op = |p: &Self| match p.peek(0) {
            Some(Token::Op("/")) => Some(ArithOp::Div),
            Some(Token::Op("%")) => Some(ArithOp::Mod),
            _ => p.multiplicative(),
        };
        self.chain(Self::unary_expr, op, |op, a, b| {
            Expr::Arith(op, Box::new(a), Box::new(b))
        })
    }

    fn unary_expr(&mut self) -> Parsed<Expr> {
        if self.eat_op("-") {
            // A negated negation prints as `-(-x)`: the parentheses' level is charged
            // here too, as for an applied type after a row.
            let inner = if self.is_op(0, "-") {
                self.nested(|p| p.nested(Self::unary_expr))?
            } else {
                self.nested(Self::unary_expr)?
            };
            return Ok(Expr::Neg(Box::new(inner)));
        }
        let base = self.depth;
        let mut head = self.atom()?;
        while self.starts_atom() {
            self.deeper()?;
            head = Expr::App(Box::new(head), Box::new(self.atom()?));
        }
        self.depth = base;
        Ok(head)
    }

    /// Whether the current token starts an application argument.
    fn starts_atom(&self) -> bool {
        match self.peek(0) {
            Some(
                Token::Int(_)
                | Token::Float(_)
                | Token::Str(_)
                | Token::Hole(_)
                | Token::TypeName(_)
                | Token::Op("(" | "{"),
            ) => true,
            Some(Token::Ident(_) | Token::PrivateIdent(_)) => self.name_continues(0),
            _ => false,
        }
    }

    fn atom(&mut self) -> Parsed<Expr> {
        if let Some(lit) = self.literal() {
            return Ok(Expr::Lit(lit));
        }
        match self.peek(0) {
            Some(Token::Ident(name)) => {
                let root = name.clone();
                self.bump();
                if self.eat_op("::") {
                    let Some(Token::Ident(name)) = self.peek(0) else {
                        return Err(self.expected("a definition name after `::`"));
                    };
                    let name = name.clone();
                    self.bump();
                    return Ok(Expr::Qualified { space: root, name });
                }
                let fields = self.fields()?;
                Ok(Expr::Path { root, fields })
            }
            Some(Token::PrivateIdent(name)) => {
                let root = name.clone();
                self.bump();
                let fields = self.fields()?;
                Ok(Expr::Path { root, fields })
            }
            Some(Token::TypeName(name)) => {
                let space = name.clone();
                self.bump();
                if !self.eat_op("::") {
                    return Ok(Expr::Ctor(space));
                }
                let Some(Token::Ident(name) | Token::TypeName(name)) = self.peek(0) else {
                    return Err(self.expected("a name after `::`"));
                };
                let name = name.clone();
                self.bump();
                Ok(Expr::Qualified { space, name })
            }
            Some(Token::Op("(")) => {
                self.bump();
                let e = self.expr()?;
                if self.eat_op(":") {
                    let ty = self.ty()?;
                    self.expect_op(")")?;
                    return Ok(Expr::Annot(Box::new(e), ty));
                }
                self.expect_op(")")?;
                Ok(e)
            }
            Some(Token::Op("{")) => self.record(),
            Some(Token::Hole(name)) => {
                let name = name.clone();
                self.bump();
                Ok(Expr::Hole(name))
            }
            _ => Err(self.expected("an expression")),
        }
    }

    fn record(&mut self) -> Parsed<Expr> {
        self.bump();
        let start = self.pos;
        let mut update = None;
        if let Some(Token::Ident(root)) = self.peek(0) {
            let root = root.clone();
            self.bump();
            let mut path = Vec::new();
            while self.is_op(0, ".") {
                let Some(Token::Ident(field)) = self.peek(1) else {
                    break;
                };
                path.push(field.clone());
                self.pos += 2;
            }
            if self.is_kw(0, "with") {
                self.bump();
                update = Some((root, path));
            } else {
                self.pos = start;
            }
        }
        let mut fields: Vec<(String, Expr)> = Vec::new();
        loop {
            let at = self.here();
            let Some(Token::Ident(name)) = self.peek(0) else {
                return Err(self.expected("a field name"));
            };
            let name = name.clone();
            if fields.iter().any(|(f, _)| *f == name) {
                return Err(duplicate_field(self, at, &name));
            }
            self.bump();
            self.expect_op("=")?;
            fields.push((name, self.expr()?));
            if !self.eat_op(",") {
                break;
            }
        }
        self.expect_op("}")?;
        Ok(Expr::Record { update, fields })
    }

    // ---- patterns ----

    /// A pattern: a constructor here may take an argument.
    fn pattern(&mut self) -> Parsed<Pattern> {
        self.pattern_with(true)
    }

    fn starts_pattern_atom(&self) -> bool {
        matches!(
            self.peek(0),
            Some(
                Token::Ident(_)
                    | Token::TypeName(_)
                    | Token::Int(_)
                    | Token::Float(_)
                    | Token::Str(_)
                    | Token::Op("_" | "{" | "(")
            )
        )
    }

    /// `with_arg`: a full pattern, where a constructor takes one atom as its argument;
    /// otherwise an atom, where it takes none.
    fn pattern_with(&mut self, with_arg: bool) -> Parsed<Pattern> {
        self.nested(|p| p.pattern_inner(with_arg))
    }

    fn pattern_inner(&mut self, with_arg: bool) -> Parsed<Pattern> {
        if let Some(lit) = self.literal() {
            return Ok(Pattern::Lit(lit));
        }
        match self.peek(0) {
            Some(Token::Op("_")) => {
                self.bump();
                Ok(Pattern::Wild)
            }
            Some(Token::Ident(name)) => {
                let name = name.clone();
                self.bump();
                Ok(Pattern::Bind(name))
            }
            Some(Token::TypeName(first)) => {
                let first = first.clone();
                self.bump();
                let (type_name, name) = if self.eat_op("::") {
                    (Some(first), self.type_name("a constructor after `::`")?)
                } else {
                    (None, first)
                };
                let arg = if with_arg && self.starts_pattern_atom() {
                    Some(Box::new(self.pattern_with(false)?))
                } else {
                    None
                };
                Ok(Pattern::Ctor {
                    type_name,
                    name,
                    arg,
                })
            }
            Some(Token::Op("{")) => self.record_pattern(),
            Some(Token::Op("(")) => {
                self.bump();
                let p = self.pattern()?;
                self.expect_op(")")?;
                Ok(p)
            }
            _ => Err(self.expected("a pattern")),
        }
    }

    fn record_pattern(&mut self) -> Parsed<Pattern> {
        self.bump();
        let mut fields: Vec<(String, Option<Pattern>)> = Vec::new();
        let mut open = false;
        loop {
            let at = self.here();
            let Some(Token::Ident(name)) = self.peek(0) else {
                return Err(self.expected("a field name"));
            };
            let name = name.clone();
            if fields.iter().any(|(f, _)| *f == name) {
                return Err(duplicate_field(self, at, &name));
            }
            self.bump();
            let pattern = if self.eat_op("=") {
                Some(self.pattern()?)
            } else {
                None
            };
            fields.push((name, pattern));
            if !self.eat_op(",") {
                break;
            }
            if self.eat_op("..") {
                open = true;
                break;
            }
        }
        self.expect_op("}")?;
        Ok(Pattern::Record { fields, open })
    }
}

fn duplicate_field(p: &Parser, at: usize, name: &str) -> SyntaxError {
    p.error(
        "soil-duplicate-field",
        at,
        format!("field `{name}` appears twice"),
    )
}
