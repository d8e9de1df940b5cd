//! `paged_attention_decode`: the shapes of decode attention over a paged
//! KV cache, and the extents a call must find equal in every tensor.

use super::Rule;
use crate::check::family::{err, FamilyChecker};
use crate::diag::Code;
use crate::ir;
use crate::model;
use crate::vocab::DType;

impl FamilyChecker<'_> {
    pub(super) fn paged_attention_decode(
        &mut self,
        p: &model::PagedAttentionDecode,
    ) -> Option<ir::Operation> {
        let ([q, kc, vc, bt, cl, out], ok) = self.operands([
            (&p.query, false),
            (&p.key_cache, false),
            (&p.value_cache, false),
            (&p.block_table, false),
            (&p.context_lens, false),
            (&p.out, true),
        ])?;
        let scale = self.scalar_operand(&p.scale, "scale");
        if ok {
            let rule = Rule {
                code: Code::PagedAttentionMismatch,
                help: "query [B, H, D], caches [num_blocks, block_size, H_kv, D], block_table [B, max_blocks] int32, context_lens [B] int32, out [B, H, D]",
            };
            let (sq, sk, sv, sb, sc, so) = (
                &p.query.span,
                &p.key_cache.span,
                &p.value_cache.span,
                &p.block_table.span,
                &p.context_lens.span,
                &p.out.span,
            );
            let mut ranks = true;
            for (role, i, rank, span) in [
                ("query", q, 3, sq),
                ("key_cache", kc, 4, sk),
                ("value_cache", vc, 4, sv),
                ("block_table", bt, 2, sb),
                ("context_lens", cl, 1, sc),
                ("out", out, 3, so),
            ] {
                ranks &= self.require_rank(&rule, role, i, rank, span);
            }
            if self.require_float(&rule, "query", q, sq) {
                self.agree_dtype(
                    &rule,
                    &[
                        ("query", q, sq),
                        ("key_cache", kc, sk),
                        ("value_cache", vc, sv),
                        ("out", out, so),
                    ],
                );
            }
            for (role, i, span) in [("block_table", bt, sb), ("context_lens", cl, sc)] {
                let d = self.params[i].dtype;
                if d != DType::Int32 {
                    let msg = format!("{} is {d}, expected int32", self.who(role, i));
                    let d = err(rule.code, self.id, span, msg)
                        .label("expected int32")
                        .help(rule.help);
                    let d = self.at_dtype(d, i);
                    self.push(d);
                }
            }
            if ranks {
                let batch = [
                    ("query", q, 0, sq),
                    ("block_table", bt, 0, sb),
                    ("context_lens", cl, 0, sc),
                    ("out", out, 0, so),
                ];
                if self.agree_extent(&rule, "the batch B", &batch) {
                    self.require_tied(&rule, "the batch B", "batch", &batch);
                }
                self.agree_extent(
                    &rule,
                    "the head count H",
                    &[("query", q, 1, sq), ("out", out, 1, so)],
                );
                self.agree_extent(
                    &rule,
                    "the head size D",
                    &[
                        ("query", q, 2, sq),
                        ("key_cache", kc, 3, sk),
                        ("value_cache", vc, 3, sv),
                        ("out", out, 2, so),
                    ],
                );
                for (axis, what) in [
                    (0, "num_blocks"),
                    (1, "block_size"),
                    (2, "the KV head count H_kv"),
                ] {
                    let caches = [("key_cache", kc, axis, sk), ("value_cache", vc, axis, sv)];
                    if self.agree_extent(&rule, what, &caches) && axis == 0 {
                        self.require_tied(&rule, what, "num_blocks", &caches);
                    }
                }
                let (h, hkv) = (self.params[q].dims[1], self.params[kc].dims[2]);
                if let (Some(h), Some(hkv)) = (h.static_value(), hkv.static_value()) {
                    if h % hkv != 0 {
                        let msg = format!(
                            "{} has H = {h} heads, not a multiple of H_kv = {hkv} of {}",
                            self.who("query", q),
                            self.who("key_cache", kc)
                        );
                        self.push(
                            err(rule.code, self.id, sk, msg)
                                .label("H_kv must divide H")
                                .help("grouped-query attention shares each KV head among H / H_kv query heads"),
                        );
                    }
                }
            }
        }
        Some(ir::Operation::PagedAttentionDecode {
            query: q,
            key_cache: kc,
            value_cache: vc,
            block_table: bt,
            context_lens: cl,
            out,
            scale: scale?,
        })
    }
}
