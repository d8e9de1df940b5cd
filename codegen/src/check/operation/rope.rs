//! `rope`: rotary position embedding of queries and keys by per-token
//! `cos` and `sin` tables.

use std::ops::Range;

use super::Rule;
use crate::check::family::{err, FamilyChecker};
use crate::diag::Code;
use crate::ir::{self, Arg};
use crate::model::{self, Spanned};
use crate::vocab::OperationKind;

const HELP: &str = "query [T, H, D] and key [T, H_kv, D] of one float dtype; cos and sin [T, rotary_dim / 2] of one float dtype; query_out and key_out shaped and typed like query and key";

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
            let rule = Rule {
                code: Code::RopeMismatch,
                help: HELP,
            };
            let (sq, sk, sc, ss, sqo, sko) = (
                &r.query.span,
                &r.key.span,
                &r.cos.span,
                &r.sin.span,
                &r.query_out.span,
                &r.key_out.span,
            );
            let ranks = self.require_ranks(
                &rule,
                &[
                    ("query", q, 3, sq),
                    ("key", k, 3, sk),
                    ("cos", cos, 2, sc),
                    ("sin", sin, 2, ss),
                    ("query_out", q_out, 3, sqo),
                    ("key_out", k_out, 3, sko),
                ],
            );
            if self.require_float(&rule, "query", q, sq) {
                self.agree_dtype(
                    &rule,
                    &[
                        ("query", q, sq),
                        ("key", k, sk),
                        ("query_out", q_out, sqo),
                        ("key_out", k_out, sko),
                    ],
                );
            }
            if self.require_float(&rule, "cos", cos, sc) {
                self.agree_dtype(&rule, &[("cos", cos, sc), ("sin", sin, ss)]);
            }
            if ranks {
                self.agree_shape(&rule, &[("query", q, sq), ("query_out", q_out, sqo)]);
                self.agree_shape(&rule, &[("key", k, sk), ("key_out", k_out, sko)]);
                self.agree_shape(&rule, &[("cos", cos, sc), ("sin", sin, ss)]);
                // A call must find T equal in every tensor: named (or
                // static), never two unrelated `-1`s. A tensor named twice
                // (rotated in place) is one extent.
                let mut tokens = vec![
                    ("query", q, 0, sq),
                    ("key", k, 0, sk),
                    ("cos", cos, 0, sc),
                    ("sin", sin, 0, ss),
                    ("query_out", q_out, 0, sqo),
                    ("key_out", k_out, 0, sko),
                ];
                if self.agree_extent(&rule, "the token count T", &tokens) {
                    let mut seen = Vec::new();
                    tokens.retain(|&(_, i, _, _)| {
                        let first = !seen.contains(&i);
                        seen.push(i);
                        first
                    });
                    self.require_tied(&rule, "the token count T", "tokens", &tokens);
                }
                let heads = [("query", q, 2, sq), ("key", k, 2, sk)];
                if self.agree_extent(&rule, "the head size D", &heads) {
                    if let Some(rotary_dim) = rotary_dim {
                        self.rotary_fits(&rule, rotary_dim, (q, sq), (cos, sc));
                    }
                }
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
        rotary_dim: u32,
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
                let e = err(rule.code, self.id, sq, msg)
                    .label(format!("D = {d}"))
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
