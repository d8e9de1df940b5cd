//! The axis-wise kinds: `reduce`, `softmax` and `norm`.

use super::constraints::Bound;
use super::{shapes_agree, Rule};
use crate::check::family::{err, FamilyChecker};
use crate::diag::Code;
use crate::ir::{self, Arg, Extent};
use crate::model;
use crate::record;
use crate::record::OperationKind;
use crate::vocab::{NormKind, ReduceOp};

keys! {
    Reduce { op: ReduceOp, input: text, out: text, axes: ints, }
    optional { keepdim: flag, }
}

keys! {
    Softmax { input: text, out: text, axis: int, }
}

keys! {
    Norm { op: NormKind, input: text, weight: text, out: text, axis: int, eps: scalar, }
    optional { bias: text, }
}

impl FamilyChecker<'_> {
    pub(super) fn reduce(&mut self, op: &model::Operation) -> Option<ir::Operation> {
        let r = &Reduce::read(self, op)?;
        let ([input, out], ok) = self.operands([(&r.input, false), (&r.out, true)])?;
        let keepdim = r.keepdim.as_ref().is_some_and(|k| k.value);
        let mut axes: Vec<u32> = Vec::new();
        let mut axes_ok = true;
        for a in &r.axes.value {
            match self.axis(a, input) {
                Some(x) => {
                    let x = x as u32;
                    if axes.contains(&x) {
                        self.push(
                            err(
                                Code::AxisOutOfRange,
                                self.id,
                                &a.span,
                                format!("axis {x} is reduced twice"),
                            )
                            .label("repeated")
                            .help("list each reduced axis once"),
                        );
                        axes_ok = false;
                    } else {
                        axes.push(x);
                    }
                }
                None => axes_ok = false,
            }
        }
        if r.axes.value.is_empty() {
            self.push(
                err(
                    Code::AxisOutOfRange,
                    self.id,
                    &r.axes.span,
                    "a reduction needs at least one axis",
                )
                .label("empty")
                .help("list the reduced axes, e.g. `axes = [1]`"),
            );
            axes_ok = false;
        }
        axes.sort_unstable();
        if ok && axes_ok {
            let rule = Rule {
                code: Code::ReduceMismatch,
                help: "reduced axes are dropped (extent 1 with `keepdim = true`); the others keep their extent",
            };
            let shape = &self.params[input].dims;
            let mut derived: Vec<Extent> = Vec::with_capacity(shape.len());
            for (i, &e) in shape.iter().enumerate() {
                if !axes.contains(&(i as u32)) {
                    derived.push(e);
                } else if keepdim {
                    derived.push(Extent::Static(1));
                }
            }
            if derived.is_empty() {
                derived.push(Extent::Static(1));
            }
            let have = &self.params[out].dims;
            if !shapes_agree(have, &derived) {
                let msg = format!(
                    "{} is {}, but reducing {} over axes {axes:?} gives {}",
                    self.who("out", out),
                    self.shape_text(have),
                    self.who("input", input),
                    self.shape_text(&derived)
                );
                self.push(
                    err(rule.code, self.id, &r.out.span, msg)
                        .label(format!("expected shape {}", self.shape_text(&derived)))
                        .help(rule.help),
                );
            }
            let bound = Bound {
                operands: vec![("input", input, &r.input.span), ("out", out, &r.out.span)],
                members: vec![("op", r.op.value.as_str())],
            };
            if self
                .constrain(record::operands(OperationKind::Reduce), &bound)
                .dtypes
            {
                self.require_domain(rule.code, &r.op, ReduceOp::refusal, ("input", input));
            }
        }
        Some(ir::Operation::new(
            OperationKind::Reduce,
            [
                ("op", Arg::Vocab(r.op.value.member())),
                ("input", Arg::Param(input)),
                ("out", Arg::Param(out)),
                ("keepdim", Arg::Bool(keepdim)),
                ("axes", Arg::Indices(axes)),
            ],
        ))
    }

    pub(super) fn softmax(&mut self, op: &model::Operation) -> Option<ir::Operation> {
        let s = &Softmax::read(self, op)?;
        let ([input, out], ok) = self.operands([(&s.input, false), (&s.out, true)])?;
        let axis = self.axis(&s.axis, input)?;
        if ok {
            let bound = Bound {
                operands: vec![("input", input, &s.input.span), ("out", out, &s.out.span)],
                members: Vec::new(),
            };
            self.constrain(record::operands(OperationKind::Softmax), &bound);
        }
        Some(ir::Operation::new(
            OperationKind::Softmax,
            [
                ("input", Arg::Param(input)),
                ("out", Arg::Param(out)),
                ("axis", Arg::U32(axis as u32)),
            ],
        ))
    }

    pub(super) fn norm(&mut self, op: &model::Operation) -> Option<ir::Operation> {
        let n = &Norm::read(self, op)?;
        let ([input, weight, out], ok) =
            self.operands([(&n.input, false), (&n.weight, false), (&n.out, true)])?;
        let bias = match &n.bias {
            Some(b) => {
                let ([i], bias_ok) = self.operands([(b, false)])?;
                Some((i, bias_ok, &b.span))
            }
            None => None,
        };
        let eps = self.scalar_operand(&n.eps, "eps");
        let axis = self.axis(&n.axis, input);
        let rule = Rule {
            code: Code::NormMismatch,
            help: "`out` has the dtype and shape of `input`; `weight` and `bias` are [extent of `input` along `axis`]",
        };
        let op = n.op.value;
        match (op, bias) {
            (NormKind::LayerNorm, None) => self.push(
                err(
                    rule.code,
                    self.id,
                    &n.op.span,
                    "`layer_norm` needs a `bias` tensor",
                )
                .label("no `bias` declared")
                .help("add `bias = \"...\"` naming a tensor shaped like `weight`"),
            ),
            (NormKind::RmsNorm, Some((_, _, span))) => self.push(
                err(rule.code, self.id, span, "`rms_norm` takes no `bias`")
                    .label("not used by rms_norm")
                    .help("remove `bias`, or use `op = \"layer_norm\"`"),
            ),
            _ => {}
        }
        let bias_ok = bias.is_none_or(|(_, b, _)| b);
        if let (true, true, Some(axis)) = (ok, bias_ok, axis) {
            let mut operands = vec![
                ("input", input, &n.input.span),
                ("weight", weight, &n.weight.span),
                ("out", out, &n.out.span),
            ];
            if let (NormKind::LayerNorm, Some((b, _, span))) = (op, bias) {
                operands.push(("bias", b, span));
            }
            let bound = Bound {
                operands,
                members: vec![("op", op.as_str())],
            };
            // E, the extent of `input` along `axis` (a payload value, so not
            // a declared letter), is `weight`'s and `bias`'s one extent.
            if self
                .constrain(record::operands(OperationKind::Norm), &bound)
                .shapes
            {
                let extent: Vec<_> = std::iter::once(("input", input, axis, &n.input.span))
                    .chain(
                        bound.operands[1..]
                            .iter()
                            .filter(|o| o.0 != "out")
                            .map(|&(role, i, span)| (role, i, 0, span)),
                    )
                    .collect();
                self.agree_extent(&rule, "the normalized extent", &extent);
            }
        }
        Some(ir::Operation::new(
            OperationKind::Norm,
            [
                ("op", Arg::Vocab(op.member())),
                ("input", Arg::Param(input)),
                ("weight", Arg::Param(weight)),
                ("bias", Arg::OptParam(bias.map(|(b, _, _)| b))),
                ("out", Arg::Param(out)),
                ("axis", Arg::U32(axis? as u32)),
                ("eps", Arg::Scalar(eps?)),
            ],
        ))
    }
}
