//! `paged_attention_decode`: the shapes of decode attention over a paged
//! KV cache in its declared layout, and the extents a call must find equal
//! in every tensor.

use std::ops::Range;

use super::Rule;
use crate::check::family::{err, FamilyChecker};
use crate::diag::Code;
use crate::ir::{self, Arg};
use crate::model;
use crate::record::OperationKind;
use crate::vocab::CacheLayout;

/// The shapes of every operand in `layout`, for help lines.
const fn help(layout: CacheLayout) -> &'static str {
    macro_rules! shapes {
        ($caches:literal) => {
            concat!(
                "query [B, H, D], ",
                $caches,
                ", block_table [B, max_blocks] int32, context_lens [B] int32, out [B, H, D]"
            )
        };
    }
    match layout {
        CacheLayout::Nhd => shapes!("caches [num_blocks, block_size, H_kv, D]"),
        CacheLayout::Hnd => shapes!("caches [num_blocks, H_kv, block_size, D]"),
        CacheLayout::XPacked => shapes!(
            "key_cache [num_blocks, H_kv, D / x, block_size, x] (x elements in 16 bytes), value_cache [num_blocks, H_kv, D, block_size]"
        ),
        CacheLayout::CombinedNhd => {
            shapes!("key_cache = value_cache [num_blocks, 2, block_size, H_kv, D]")
        }
        CacheLayout::CombinedHnd => {
            shapes!("key_cache = value_cache [num_blocks, 2, H_kv, block_size, D]")
        }
    }
}

keys! {
    PagedAttentionDecode {
        query: text,
        key_cache: text,
        value_cache: text,
        block_table: text,
        context_lens: text,
        out: text,
        scale: scalar,
    }
    optional { layout: CacheLayout, }
}

impl FamilyChecker<'_> {
    pub(super) fn paged_attention_decode(
        &mut self,
        op: &model::Operation,
    ) -> Option<ir::Operation> {
        let p = &PagedAttentionDecode::read(self, op)?;
        let layout = p.layout.as_ref().map_or(CacheLayout::DEFAULT, |l| l.value);
        let ([q, kc, vc, bt, cl, out], ok) = self.operands([
            (&p.query, false),
            (&p.key_cache, false),
            (&p.value_cache, false),
            (&p.block_table, false),
            (&p.context_lens, false),
            (&p.out, true),
        ])?;
        let scale = self.scalar_operand(&p.scale, "scale");
        let one_cache = self.cache_count(p, layout, kc, vc);
        if ok && one_cache {
            let rule = Rule {
                code: Code::PagedAttentionMismatch,
                help: help(layout),
            };
            let (sq, sk, sv, sb, sc, so) = (
                &p.query.span,
                &p.key_cache.span,
                &p.value_cache.span,
                &p.block_table.span,
                &p.context_lens.span,
                &p.out.span,
            );
            let (ka, va) = (layout.axes(true), layout.axes(false));
            let mut operands = vec![
                ("query", q, 3, sq),
                ("key_cache", kc, ka.rank, sk),
                ("value_cache", vc, va.rank, sv),
                ("block_table", bt, 2, sb),
                ("context_lens", cl, 1, sc),
                ("out", out, 3, so),
            ];
            // One combined cache: `value_cache` names the same tensor.
            if layout.combined() {
                operands.retain(|o| o.0 != "value_cache");
            }
            let ranks = self.require_ranks(&rule, &operands);
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
            self.require_int32(&rule, &[("block_table", bt, sb), ("context_lens", cl, sc)]);
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
                // A value cache in another layout is one error naming both,
                // not one per extent that moved.
                let value_elsewhere =
                    !layout.combined() && self.value_layout(&rule, layout, [q, kc, vc], sv);
                let mut head_size = vec![("query", q, 2, sq)];
                if ka.x.is_none() {
                    head_size.push(("key_cache", kc, ka.head_size, sk));
                }
                if !layout.combined() && !value_elsewhere {
                    head_size.push(("value_cache", vc, va.head_size, sv));
                }
                head_size.push(("out", out, 2, so));
                self.agree_extent(&rule, "the head size D", &head_size);
                if !layout.combined() && !value_elsewhere {
                    for (what, k, v) in [
                        ("num_blocks", ka.blocks, va.blocks),
                        ("block_size", ka.block_size, va.block_size),
                        ("the KV head count H_kv", ka.kv_heads, va.kv_heads),
                    ] {
                        let caches = [("key_cache", kc, k, sk), ("value_cache", vc, v, sv)];
                        if self.agree_extent(&rule, what, &caches) && what == "num_blocks" {
                            self.require_tied(&rule, what, "num_blocks", &caches);
                        }
                    }
                }
                if let Some(axis) = ka.pair {
                    self.cache_pair(&rule, kc, axis, sk);
                }
                if let Some(axis) = ka.x {
                    self.cache_x(&rule, [q, kc], axis, ka.head_size, sk);
                }
                self.require_head_groups(&rule, ("query", q), ("key_cache", kc, ka.kv_heads), sk);
            }
        }
        Some(ir::Operation::new(
            OperationKind::PagedAttentionDecode,
            [
                ("query", Arg::Param(q)),
                ("key_cache", Arg::Param(kc)),
                ("value_cache", Arg::Param(vc)),
                ("block_table", Arg::Param(bt)),
                ("context_lens", Arg::Param(cl)),
                ("out", Arg::Param(out)),
                ("scale", Arg::Scalar(scale?)),
                ("layout", Arg::Vocab(layout.member())),
            ],
        ))
    }

    /// A combined layout keeps keys and values in one tensor, which both
    /// operands name; the others keep two.
    fn cache_count(
        &mut self,
        p: &PagedAttentionDecode,
        layout: CacheLayout,
        kc: usize,
        vc: usize,
    ) -> bool {
        if layout.combined() == (kc == vc) {
            return true;
        }
        let (key, value) = (&self.params[kc].name, &self.params[vc].name);
        let d = if layout.combined() {
            let msg = format!(
                "layout `{layout}` keeps keys and values in one cache, but `key_cache` names `{key}` and `value_cache` names `{value}`"
            );
            err(Code::PagedAttentionMismatch, self.id, &p.value_cache.span, msg)
                .label(format!("expected `{key}`"))
                .help(format!(
                    "name the one cache {} in both, or declare a layout of two caches (nhd, hnd, x_packed)",
                    layout.shape_text(true)
                ))
        } else {
            let msg = format!(
                "`key_cache` and `value_cache` both name `{key}`, but layout `{layout}` keeps keys and values in two caches"
            );
            err(Code::PagedAttentionMismatch, self.id, &p.value_cache.span, msg)
                .label("the same cache as key_cache")
                .help("name the value cache, or declare `layout = \"combined_nhd\"` (or `\"combined_hnd\"`) for one cache [num_blocks, 2, ...] holding keys at 0 and values at 1")
        };
        let d = match &p.layout {
            Some(l) => d.related(self.id, l.span.clone(), "the layout is declared here"),
            None => d.note("no `layout` is declared: the default is `nhd`"),
        };
        self.push(d);
        false
    }

    /// A value cache laid out as another layout of two caches keeps it,
    /// where the key cache follows the declared one: one error naming the
    /// layouts, rather than one per axis. `true` when reported.
    fn value_layout(
        &mut self,
        rule: &Rule,
        layout: CacheLayout,
        [q, kc, vc]: [usize; 3],
        span: &Range<usize>,
    ) -> bool {
        let ka = layout.axes(true);
        let key = &self.params[kc].dims;
        // The value cache of layout `l` for the key cache's extents.
        let expected = |l: CacheLayout| {
            let va = l.axes(false);
            let mut dims = [ir::Extent::Dynamic; 4];
            dims[va.blocks] = key[ka.blocks];
            dims[va.block_size] = key[ka.block_size];
            dims[va.kv_heads] = key[ka.kv_heads];
            dims[va.head_size] = self.params[q].dims[2];
            dims
        };
        let value = &self.params[vc].dims;
        let fits = |dims: [ir::Extent; 4]| {
            value.len() == 4 && dims.iter().zip(value).all(|(a, b)| super::agree(*a, *b))
        };
        if fits(expected(layout)) {
            return false;
        }
        let Some(other) = [CacheLayout::Nhd, CacheLayout::Hnd, CacheLayout::XPacked]
            .into_iter()
            .find(|&l| l != layout && fits(expected(l)))
        else {
            return false;
        };
        let msg = format!(
            "{} is laid out {} (layout `{other}`), but layout `{layout}` keeps the value cache {}",
            self.who("value_cache", vc),
            other.shape_text(false),
            layout.shape_text(false)
        );
        let mut d = err(rule.code, self.id, span, msg)
            .label(format!("a `{other}` value cache"))
            .help(rule.help);
        if let Some(shape) = self
            .file
            .params
            .get(vc)
            .and_then(|p| p.value.shape.as_ref())
        {
            d = d.related(
                self.id,
                shape.span.clone(),
                format!("`{}` is declared here", self.params[vc].name),
            );
        }
        self.push(d);
        true
    }

    /// A combined cache's axis of keys and values has extent 2.
    fn cache_pair(&mut self, rule: &Rule, kc: usize, axis: usize, span: &Range<usize>) {
        let e = self.params[kc].dims[axis];
        if e.static_value() == Some(2) {
            return;
        }
        let msg = format!(
            "{} axis {axis} is {}, expected 2: keys at index 0, values at 1",
            self.who("key_cache", kc),
            self.extent_text(e)
        );
        let d = err(rule.code, self.id, span, msg)
            .label("expected 2 at axis 1")
            .help(rule.help);
        let d = self.at_axis(d, kc, axis);
        self.push(d);
    }

    /// `x_packed`'s key cache: `x` (static) elements fill 16 bytes, and
    /// `D / x` groups of them make the head size `D` of the query.
    fn cache_x(
        &mut self,
        rule: &Rule,
        [q, kc]: [usize; 2],
        x_axis: usize,
        groups_axis: usize,
        span: &Range<usize>,
    ) {
        let bits = self.params[kc].dtype.bits();
        let want = 128 / i64::from(bits);
        let dims = &self.params[kc].dims;
        let (x, groups, d) = (
            dims[x_axis].static_value(),
            dims[groups_axis].static_value(),
            self.params[q].dims[2].static_value(),
        );
        let who = self.who("key_cache", kc);
        let (axis, msg, label) = match (x, groups, d) {
            (Some(x), ..) if x != want => (
                x_axis,
                format!(
                    "{who} axis {x_axis} is x = {x}, but 16 bytes hold {want} elements of {}",
                    self.params[kc].dtype
                ),
                format!("expected x = {want}"),
            ),
            // The packing is fixed when the kernel is built: every extent
            // of it is static.
            (None, ..) | (_, None, _) => {
                let (a, what) = if x.is_none() {
                    (x_axis, "x")
                } else {
                    (groups_axis, "D / x")
                };
                let msg = format!(
                    "{who} axis {a} ({what}) is {}, but the x_packed layout needs it static",
                    self.extent_text(dims[a])
                );
                (a, msg, "expected a static extent".to_owned())
            }
            (_, _, None) => (
                groups_axis,
                format!(
                    "the head size D of {} is dynamic, but the x_packed layout needs it static",
                    self.who("query", q)
                ),
                "D / x of a dynamic D".to_owned(),
            ),
            (Some(x), Some(_), Some(d)) if d % x != 0 => (
                x_axis,
                format!("{who} has x = {x}, which does not divide the head size D = {d}"),
                format!("{x} does not divide {d}"),
            ),
            (Some(x), Some(g), Some(d)) if g * x != d => (
                groups_axis,
                format!(
                    "{who} axis {groups_axis} is {g}, expected D / x = {d} / {x} = {}",
                    d / x
                ),
                format!("expected {}", d / x),
            ),
            _ => return,
        };
        let d = err(rule.code, self.id, span, msg)
            .label(label)
            .help(rule.help);
        let d = self.at_axis(d, kc, axis);
        self.push(d);
    }
}
