//! `rope`: rotary position embedding of queries and keys by per-token
//! `cos` and `sin` tables.

use std::ops::Range;

use super::constraints::Bound;
use super::Rule;
use crate::check::family::{err, FamilyChecker};
use crate::diag::Code;
use crate::ir::{self, Arg};
use crate::model::{self, Spanned};
use crate::record;
use crate::record::OperationKind;

keys! {
    Rope {
        query: text,
        key: text,
        cos: text,
        sin: text,
        query_out: text,
        key_out: text,
        rotary_dim: int,
    }
    optional { interleaved: flag, }
}

impl FamilyChecker<'_> {
    pub(super) fn rope(&mut self, op: &model::Operation) -> Option<ir::Operation> {
        let r = &Rope::read(self, op)?;
        let ([q, k, cos, sin, q_out, k_out], ok) = self.operands([
            (&r.query, false),
            (&r.key, false),
            (&r.cos, false),
            (&r.sin, false),
            (&r.query_out, true),
            (&r.key_out, true),
        ])?;
        let rotary_dim = self.rotary_dim(&r.rotary_dim);
        if ok {
            let bound = Bound {
                operands: vec![
                    ("query", q, &r.query.span),
                    ("key", k, &r.key.span),
                    ("cos", cos, &r.cos.span),
                    ("sin", sin, &r.sin.span),
                    ("query_out", q_out, &r.query_out.span),
                    ("key_out", k_out, &r.key_out.span),
                ],
                members: Vec::new(),
            };
            let decl = record::operands(OperationKind::Rope);
            if let (true, Some(rotary_dim)) = (self.constrain(decl, &bound).shapes, rotary_dim) {
                let rule = Rule {
                    code: decl.code,
                    help: decl.help,
                };
                self.rotary_fits(
                    &rule,
                    (rotary_dim, &r.rotary_dim.span),
                    (q, &r.query.span),
                    (cos, &r.cos.span),
                );
            }
        }
        Some(ir::Operation::new(
            OperationKind::Rope,
            [
                ("query", Arg::Param(q)),
                ("key", Arg::Param(k)),
                ("cos", Arg::Param(cos)),
                ("sin", Arg::Param(sin)),
                ("query_out", Arg::Param(q_out)),
                ("key_out", Arg::Param(k_out)),
                ("rotary_dim", Arg::U32(rotary_dim?)),
                (
                    "interleaved",
                    Arg::Bool(r.interleaved.as_ref().is_some_and(|i| i.value)),
                ),
            ],
        ))
    }

    /// `rotary_dim`: a positive even count of entries.
    fn rotary_dim(&mut self, r: &Spanned<i64>) -> Option<u32> {
        match u32::try_from(r.value) {
            Ok(n) if n > 0 && n % 2 == 0 => Some(n),
            _ => {
                self.push(
                    err(
                        Code::RopeMismatch,
                        self.id,
                        &r.span,
                        format!("`rotary_dim = {}` is not a positive even count", r.value),
                    )
                    .label("expected 2, 4, ... (the rotated entries come in pairs)")
                    .help("`rotary_dim` counts the entries of each head that are rotated, from the first: the head size D for a full rotation"),
                );
                None
            }
        }
    }

    /// The rotated entries fit every call: the head size `D` (axis 2 of
    /// the queries) is static and at least `rotary_dim`, and the tables are
    /// `rotary_dim / 2` wide, statically.
    fn rotary_fits(
        &mut self,
        rule: &Rule,
        (rotary_dim, sr): (u32, &Range<usize>),
        (q, sq): (usize, &Range<usize>),
        (cos, sc): (usize, &Range<usize>),
    ) {
        match self.params[q].dims[2].static_value() {
            Some(d) if d >= i64::from(rotary_dim) => {}
            Some(d) => {
                let msg = format!(
                    "`rotary_dim = {rotary_dim}` exceeds the head size D = {d} of {}",
                    self.who("query", q)
                );
                // At the value that is too large; the head size is where
                // `query`'s axis 2 is declared.
                let e = err(rule.code, self.id, sr, msg)
                    .label(format!("more than D = {d}"))
                    .help("rotate at most the whole head: `rotary_dim` is at most D");
                let e = self.at_axis(e, q, 2);
                self.push(e);
            }
            None => {
                let msg = format!(
                    "the head size D of {} is dynamic: a call could pass D < rotary_dim = {rotary_dim}",
                    self.who("query", q)
                );
                let e = err(rule.code, self.id, sq, msg)
                    .label("D is -1 or a symbol")
                    .help("declare the head size static in `query` and `key`");
                let e = self.at_axis(e, q, 2);
                self.push(e);
            }
        }
        let half = i64::from(rotary_dim / 2);
        if self.params[cos].dims[1].static_value() != Some(half) {
            let have = self.extent_text(self.params[cos].dims[1]);
            let msg = format!(
                "{} is {have} wide, but `rotary_dim = {rotary_dim}` rotates {half} pairs",
                self.who("cos", cos)
            );
            let e = err(rule.code, self.id, sc, msg)
                .label(format!("expected {half}, static"))
                .help("`cos` and `sin` hold one angle per rotated pair: [T, rotary_dim / 2]");
            let e = self.at_axis(e, cos, 1);
            self.push(e);
        }
    }
}
