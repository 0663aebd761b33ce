//! Expressions: `let`, `fun`, `if` and `match`, the boolean, comparison and arithmetic
//! operators by precedence, application, atoms and records. A definition's body, and its
//! `decreases` measure, is one of these.

use super::{Parsed, Parser, duplicate_field};
use crate::soil::lang::ast::*;
use crate::soil::lang::lex::Token;

impl Parser<'_> {
    pub(super) fn expr(&mut self) -> Parsed<Expr> {
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
        let base = self.depth;
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
                // The canonical form writes each binding after the first as a `let` of its
                // own, inside the one before: the level it nests there is charged here,
                // where the text has none, so that a tree within the limit prints to a
                // text within it (found by fuzzing: 64 `and`s).
                self.deeper()?;
            } else {
                break;
            }
        }
        self.expect_kw("in")?;
        let body = self.expr()?;
        self.depth = base;
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
}
