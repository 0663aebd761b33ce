//! Types: arrows (with an optional named parameter and a row of effects after `->`),
//! applied type constructors, type variables and refinement types `{x : T | p}`. A
//! definition's signature is one of these.

use super::{Parsed, Parser};
use crate::soil::lang::ast::*;
use crate::soil::lang::lex::Token;

impl Parser<'_> {
    fn starts_type_atom(&self, ahead: usize) -> bool {
        match self.peek(ahead) {
            Some(Token::TypeName(_) | Token::Op("(" | "{")) => true,
            Some(Token::Ident(name)) => Effect::named(name).is_none() && self.name_continues(ahead),
            _ => false,
        }
    }

    pub(super) fn ty(&mut self) -> Parsed<Type> {
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
}
