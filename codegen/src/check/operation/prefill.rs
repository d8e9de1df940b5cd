//! `packed_attention_prefill`: attention over variable-length sequences
//! packed along the token axis, located through cumulative offsets.

use std::ops::Range;

use super::constraints::Bound;
use super::Rule;
use crate::check::family::{err, FamilyChecker};
use crate::diag::Code;
use crate::ir::{self, Arg, Extent};
use crate::model::{self, Spanned};
use crate::record;
use crate::record::OperationKind;
use crate::vocab::ScalarDomain;

keys! {
    PackedAttentionPrefill {
        query: text,
        key: text,
        value: text,
        cu_seqlens_q: text,
        cu_seqlens_k: text,
        out: text,
        causal: flag,
        scale: scalar,
    }
    optional { max_seqlen_q: text, max_seqlen_k: text, }
}

impl FamilyChecker<'_> {
    pub(super) fn packed_attention_prefill(
        &mut self,
        op: &model::Operation,
    ) -> Option<ir::Operation> {
        let p = &PackedAttentionPrefill::read(self, op)?;
        let ([q, k, v, cq, ck, out], ok) = self.operands([
            (&p.query, false),
            (&p.key, false),
            (&p.value, false),
            (&p.cu_seqlens_q, false),
            (&p.cu_seqlens_k, false),
            (&p.out, true),
        ])?;
        let scale = self.scalar_operand(&p.scale, "scale");
        let max_q = self.length_operand(p.max_seqlen_q.as_ref(), "max_seqlen_q");
        let max_k = self.length_operand(p.max_seqlen_k.as_ref(), "max_seqlen_k");
        if ok {
            let bound = Bound {
                operands: vec![
                    ("query", q, &p.query.span),
                    ("key", k, &p.key.span),
                    ("value", v, &p.value.span),
                    ("cu_seqlens_q", cq, &p.cu_seqlens_q.span),
                    ("cu_seqlens_k", ck, &p.cu_seqlens_k.span),
                    ("out", out, &p.out.span),
                ],
                members: Vec::new(),
            };
            let decl = record::operands(OperationKind::PackedAttentionPrefill);
            if self.constrain(decl, &bound).shapes {
                let rule = Rule {
                    code: decl.code,
                    help: decl.help,
                };
                let (sq, sk, scq) = (&p.query.span, &p.key.span, &p.cu_seqlens_q.span);
                self.offsets_hold_a_sequence(&rule, cq, scq);
                if cq == ck {
                    // One offsets tensor: each sequence has as many keys as queries.
                    let tokens = [("query", q, 0, sq), ("key", k, 0, sk)];
                    if self.agree_extent(&rule, "the token count (one offsets tensor)", &tokens) {
                        self.require_tied(&rule, "the token count", "tokens", &tokens);
                    }
                }
            }
        }
        Some(ir::Operation::new(
            OperationKind::PackedAttentionPrefill,
            [
                ("query", Arg::Param(q)),
                ("key", Arg::Param(k)),
                ("value", Arg::Param(v)),
                ("cu_seqlens_q", Arg::Param(cq)),
                ("cu_seqlens_k", Arg::Param(ck)),
                ("out", Arg::Param(out)),
                ("max_seqlen_q", Arg::OptParam(max_q?)),
                ("max_seqlen_k", Arg::OptParam(max_k?)),
                ("causal", Arg::Bool(p.causal.value)),
                ("scale", Arg::Scalar(scale?)),
            ],
        ))
    }

    /// The offsets' length `B + 1` is at least 2 in every call: fewer
    /// offsets describe no sequence, and the tokens would belong to none.
    fn offsets_hold_a_sequence(&mut self, rule: &Rule, cq: usize, span: &Range<usize>) {
        let (smallest, help) = match self.params[cq].dims[0] {
            Extent::Static(n) => (
                n,
                "declare 2 or more offsets: one sequence is [0, T]".to_owned(),
            ),
            Extent::Symbol(i) => {
                let s = &self.symbols[i];
                let m = u64::from(s.multiple_of.max(1));
                let first = u64::from(s.min).div_ceil(m) * m;
                (
                    i64::try_from(first).unwrap_or(i64::MAX),
                    format!("declare `[dims.{}]` with `min = 2`", s.name),
                )
            }
            Extent::Dynamic => (
                -1,
                "name the length with a symbol and declare `min = 2` in its `[dims]` table"
                    .to_owned(),
            ),
        };
        if smallest >= 2 {
            return;
        }
        let what = if smallest < 0 {
            "any length".to_owned()
        } else {
            format!("length {smallest}")
        };
        let msg = format!(
            "{} may have {what}, but B + 1 is at least 2 (one sequence is [0, T])",
            self.who("cu_seqlens_q", cq)
        );
        let d = err(rule.code, self.id, span, msg)
            .label("at least 2 offsets")
            .help(help);
        let d = self.at_axis(d, cq, 0);
        self.push(d);
    }

    /// `max_seqlen_q` or `max_seqlen_k`: absent, or an integer scalar
    /// parameter. `None` when reported.
    fn length_operand(&mut self, s: Option<&Spanned<String>>, key: &str) -> Option<Option<usize>> {
        let Some(s) = s else {
            return Some(None);
        };
        let i = self.operand(s)?;
        let p = &self.params[i];
        let problem = if p.is_tensor() {
            Some(format!("`{key}` names tensor `{}`", p.name))
        } else if !matches!(p.dtype.scalar_domain(), ScalarDomain::Int(..)) {
            Some(format!(
                "`{key}` names `{}`, a scalar of dtype {}",
                p.name, p.dtype
            ))
        } else {
            None
        };
        let Some(msg) = problem else {
            return Some(Some(i));
        };
        let d = err(Code::PackedAttentionMismatch, self.id, &s.span, msg)
            .label("expected an integer scalar parameter")
            .help("name an integer scalar parameter that carries the longest sequence, or leave the key out");
        let d = self.at_dtype(d, i);
        self.push(d);
        None
    }
}
