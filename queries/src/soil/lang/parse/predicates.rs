//! Predicates (`tr-grammar.md` §2.3), the `p` of a refinement type `{x : T | p}`: a
//! grammar of their own, with their own arithmetic expressions, apart from Soil's
//! expressions.

use super::{Parsed, Parser};
use crate::soil::lang::ast::*;
use crate::soil::lang::lex::Token;

impl Parser<'_> {
    pub(super) fn pred(&mut self) -> Parsed<Pred> {
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
}
