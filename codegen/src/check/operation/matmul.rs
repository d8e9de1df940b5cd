//! `matmul`: `[.., M, K] @ [K, N] -> [.., M, N]`, the payload's `m`, `k`
//! and `n` against the operands' extents.

use super::agree;
use crate::check::dims::agree as shapes_agree;
use crate::check::family::{err, FamilyChecker};
use crate::diag::Code;
use crate::ir::{self, Arg, Extent};
use crate::model;
use crate::record::OperationKind;

keys! {
    Matmul { m: dim, k: dim, n: dim, a: text, b: text, c: text, }
    optional { accumulate: flag, }
}

impl FamilyChecker<'_> {
    pub(super) fn matmul(&mut self, op: &model::Operation) -> Option<ir::Operation> {
        let m = &Matmul::read(self, op)?;
        let accumulate = m.accumulate.as_ref().is_some_and(|x| x.value);
        let (a, b, c) = (self.operand(&m.a), self.operand(&m.b), self.operand(&m.c));
        let (a, b, c) = (a?, b?, c?);
        let roles = self.operand_role(&m.a, a, false, false)
            & self.operand_role(&m.b, b, false, false)
            & self.operand_role(&m.c, c, true, accumulate);
        let (em, ek, en) = (
            self.payload_extent(&m.m, "m"),
            self.payload_extent(&m.k, "k"),
            self.payload_extent(&m.n, "n"),
        );
        let (em, ek, en) = (em?, ek?, en?);
        if roles && ![a, b, c].iter().any(|i| self.bad_params.contains(i)) {
            self.check_matmul_shapes(m, [em, ek, en], a, b, c);
        }
        Some(ir::Operation::new(
            OperationKind::Matmul,
            [
                ("m", Arg::Extent(em)),
                ("k", Arg::Extent(ek)),
                ("n", Arg::Extent(en)),
                ("a", Arg::Param(a)),
                ("b", Arg::Param(b)),
                ("c", Arg::Param(c)),
                ("accumulate", Arg::Bool(accumulate)),
            ],
        ))
    }

    fn check_matmul_shapes(
        &mut self,
        m: &Matmul,
        [em, ek, en]: [Extent; 3],
        a: usize,
        b: usize,
        c: usize,
    ) {
        const HELP: &str =
            "a matmul is [.., M, K] @ [K, N] -> [.., M, N]; use -1 where the extent is dynamic";
        let (pa, pb, pc) = (&self.params[a], &self.params[b], &self.params[c]);
        let mut found = Vec::new();
        let (ra, rb, rc) = (pa.dims.len(), pb.dims.len(), pc.dims.len());
        if ra < 2 || rc != ra || !(rb == 2 || rb == ra) {
            found.push(
                err(
                    Code::MatmulMismatch,
                    self.id,
                    &m.a.span,
                    format!("matmul ranks are a {ra}, b {rb}, c {rc}; expected a and c of equal rank >= 2 and b of rank 2 or that rank"),
                )
                .label("inconsistent with the parameters")
                .help(HELP),
            );
        } else {
            let dim = |s: &[Extent], from_end: usize| s[s.len() - from_end];
            let checks = [
                (
                    "m",
                    &m.m,
                    em,
                    [
                        (pa, dim(&pa.dims, 2), "a", -2),
                        (pc, dim(&pc.dims, 2), "c", -2),
                    ],
                ),
                (
                    "k",
                    &m.k,
                    ek,
                    [
                        (pa, dim(&pa.dims, 1), "a", -1),
                        (pb, dim(&pb.dims, 2), "b", -2),
                    ],
                ),
                (
                    "n",
                    &m.n,
                    en,
                    [
                        (pb, dim(&pb.dims, 1), "b", -1),
                        (pc, dim(&pc.dims, 1), "c", -1),
                    ],
                ),
            ];
            // Errors about one symbol are one mistake: the first is kept,
            // the later ones become its notes (a symbol naming `m` in `a`
            // and `n` in `b`).
            let mut by_symbol: Vec<(usize, usize)> = Vec::new();
            for (key, declared, want, operands) in checks {
                let payload = format!("`{key} = {}`", declared.value);
                let wrong: Vec<_> = operands
                    .iter()
                    .filter(|(_, extent, _, _)| !agree(*extent, want))
                    .collect();
                let describe = |p: &ir::Param, extent: Extent, role: &str, axis: i32| {
                    let operand = if p.name == role {
                        format!("`{role}`")
                    } else {
                        format!("`{role}` (`{}`)", p.name)
                    };
                    let extent = match extent {
                        Extent::Dynamic => "a dynamic extent".to_owned(),
                        Extent::Symbol(i) => format!("symbol `{}`", self.symbols[i].name),
                        Extent::Static(e) => format!("extent {e}"),
                    };
                    format!("{operand} has {extent} on axis {axis}")
                };
                let notes = || {
                    std::iter::once(format!("the payload declares {payload}")).chain(
                        operands
                            .iter()
                            .map(|&(p, e, role, axis)| describe(p, e, role, axis)),
                    )
                };
                match wrong.as_slice() {
                    [] => {}
                    // The declared value disagrees with both operands: the
                    // mistake is the declaration.
                    [_, _] => {
                        let mut d = err(
                            Code::MatmulMismatch,
                            self.id,
                            &declared.span,
                            format!("{payload} disagrees with both operands"),
                        )
                        .label("inconsistent with the parameters")
                        .help(HELP);
                        for n in notes() {
                            d = d.note(n);
                        }
                        for &(p, _, role, axis) in &operands {
                            if let Some(span) = self.dim_span(p.index, axis) {
                                d = d.related(self.id, span, format!("`{role}` axis {axis}"));
                            }
                        }
                        found.push(d);
                    }
                    // One operand differs: the error goes at its extent.
                    [&(p, extent, role, axis)] => {
                        let line = describe(p, extent, role, axis);
                        if let Extent::Symbol(sym) = extent {
                            if let Some(&(_, at)) = by_symbol.iter().find(|(s, _)| *s == sym) {
                                let first = std::mem::replace(
                                    &mut found[at],
                                    err(Code::MatmulMismatch, self.id, &declared.span, ""),
                                );
                                let mut d = first.note(format!("{line}, where {payload}"));
                                if let Some(span) = self.dim_span(p.index, axis) {
                                    d = d.related(
                                        self.id,
                                        span,
                                        format!("`{role}` axis {axis}, where {payload}"),
                                    );
                                }
                                found[at] = d;
                                continue;
                            }
                            by_symbol.push((sym, found.len()));
                        }
                        let span = self
                            .dim_span(p.index, axis)
                            .unwrap_or_else(|| declared.span.clone());
                        let mut d = err(
                            Code::MatmulMismatch,
                            self.id,
                            &span,
                            format!("{line}, but {payload}"),
                        )
                        .label(format!("expected {} (`{key}`)", declared.value))
                        .help(HELP);
                        for n in notes() {
                            d = d.note(n);
                        }
                        d = d.related(self.id, declared.span.clone(), format!("{payload} here"));
                        found.push(d);
                    }
                    _ => {}
                }
            }
            if !shapes_agree(&pa.dims[..ra - 2], &pc.dims[..rc - 2])
                || (rb == ra && !shapes_agree(&pb.dims[..rb - 2], &pa.dims[..ra - 2]))
            {
                found.push(
                    err(
                        Code::MatmulMismatch,
                        self.id,
                        &m.c.span,
                        "matmul batch dimensions of the operands differ",
                    )
                    .label("inconsistent with the parameters")
                    .help(HELP),
                );
            }
            if pa.dtype != pb.dtype {
                found.push(
                    err(
                        Code::MatmulMismatch,
                        self.id,
                        &m.b.span,
                        format!("`a` is {} but `b` is {}", pa.dtype, pb.dtype),
                    )
                    .label("inconsistent with the parameters")
                    .help(HELP),
                );
            }
        }
        for d in found {
            self.push(d);
        }
    }
}
