//! Patterns, the left-hand sides of `match` arms: a grammar of their own, where a
//! constructor may take an argument and a record may be left open (`..`).

use super::{Parsed, Parser, duplicate_field};
use crate::soil::lang::ast::*;
use crate::soil::lang::lex::Token;

impl Parser<'_> {
    /// A pattern: a constructor here may take an argument.
    pub(super) fn pattern(&mut self) -> Parsed<Pattern> {
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
