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
//!
//! This module holds the parser's state, the helpers every part of the grammar uses
//! (depth, tokens, errors, look-ahead, field accesses and literals) and definitions; the
//! grammar's parts are in `types`, `predicates`, `expressions` and `patterns`.

mod expressions;
mod patterns;
mod predicates;
mod types;

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

    // ---- field accesses and literals ----

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
}

fn duplicate_field(p: &Parser, at: usize, name: &str) -> SyntaxError {
    p.error(
        "soil-duplicate-field",
        at,
        format!("field `{name}` appears twice"),
    )
}
