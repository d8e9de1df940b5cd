//! `elementwise_binary` and `elementwise_unary`: their declared
//! constraints, and the operator's domain over the operands' dtype.

use super::constraints::Bound;
use crate::check::family::FamilyChecker;
use crate::ir::{self, Arg};
use crate::model;
use crate::record;
use crate::record::OperationKind;
use crate::vocab::{BinaryOp, UnaryOp};

keys! {
    ElementwiseBinary { op: BinaryOp, lhs: text, rhs: text, out: text, }
}

keys! {
    ElementwiseUnary { op: UnaryOp, input: text, out: text, }
}

impl FamilyChecker<'_> {
    pub(super) fn elementwise_binary(&mut self, op: &model::Operation) -> Option<ir::Operation> {
        let e = &ElementwiseBinary::read(self, op)?;
        let ([lhs, rhs, out], ok) =
            self.operands([(&e.lhs, false), (&e.rhs, false), (&e.out, true)])?;
        if ok {
            let bound = Bound {
                operands: vec![
                    ("lhs", lhs, &e.lhs.span),
                    ("rhs", rhs, &e.rhs.span),
                    ("out", out, &e.out.span),
                ],
                members: vec![("op", e.op.value.as_str())],
            };
            let decl = record::operands(OperationKind::ElementwiseBinary);
            if self.constrain(decl, &bound).dtypes {
                self.require_domain(decl.code, &e.op, BinaryOp::refusal, ("lhs", lhs));
            }
        }
        Some(ir::Operation::new(
            OperationKind::ElementwiseBinary,
            [
                ("op", Arg::Vocab(e.op.value.member())),
                ("lhs", Arg::Param(lhs)),
                ("rhs", Arg::Param(rhs)),
                ("out", Arg::Param(out)),
            ],
        ))
    }

    pub(super) fn elementwise_unary(&mut self, op: &model::Operation) -> Option<ir::Operation> {
        let u = &ElementwiseUnary::read(self, op)?;
        let ([input, out], ok) = self.operands([(&u.input, false), (&u.out, true)])?;
        let op = u.op.value;
        if ok {
            let bound = Bound {
                operands: vec![("input", input, &u.input.span), ("out", out, &u.out.span)],
                members: vec![("op", op.as_str())],
            };
            let decl = record::operands(OperationKind::ElementwiseUnary);
            self.constrain(decl, &bound);
            self.require_domain(decl.code, &u.op, UnaryOp::refusal, ("input", input));
        }
        Some(ir::Operation::new(
            OperationKind::ElementwiseUnary,
            [
                ("op", Arg::Vocab(op.member())),
                ("input", Arg::Param(input)),
                ("out", Arg::Param(out)),
            ],
        ))
    }
}
