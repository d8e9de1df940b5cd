//! The operation rules: each operand names a parameter of the right kind and
//! direction, and each kind's shape and dtype relations hold between them.
//!
//! One mistake, one error: values that must agree (an extent appearing in
//! several operands, a shared dtype) are compared as a group, and a group
//! that disagrees is reported once, at the member that differs from the
//! others, with a note per member.

use std::ops::Range;

/// The keys of `[operation.<kind>]` a kind's rules read, typed: a struct
/// `$name` with a field per key and `$name::read`, which reads them from
/// the payload by name (`None`, reported, when a required key is not
/// there; the loader has held the table to the kind's schema, so it is).
/// A reader is `text`, `int`, `flag`, `ints`, `scalar`, `dim` or a
/// vocabulary type. In debug builds (the tests), `read` holds the view to
/// the kind's record: the same keys, each as optional as declared.
macro_rules! keys {
    (
        $name:ident {
            $($key:ident: $read:ident,)*
        }
        $(optional { $($okey:ident: $oread:ident,)* })?
    ) => {
        struct $name {
            $($key: keys!(@ty $read),)*
            $($($okey: Option<keys!(@ty $oread)>,)*)?
        }

        impl $name {
            /// Each key, and whether it is optional.
            const KEYS: &[(&str, bool)] =
                &[$((stringify!($key), false),)* $($((stringify!($okey), true),)*)?];

            fn read(
                c: &mut $crate::check::family::FamilyChecker<'_>,
                op: &$crate::model::Operation,
            ) -> Option<Self> {
                debug_assert!(
                    $crate::check::operation::declares(op.kind(), Self::KEYS),
                    "the keys {:?} of `{}` are not its record's",
                    Self::KEYS,
                    op.kind()
                );
                Some($name {
                    $($key: c.required_key(op, stringify!($key), keys!(@read op, $key, $read))?,)*
                    $($($okey: keys!(@read op, $okey, $oread),)*)?
                })
            }
        }
    };
    (@ty text) => { $crate::model::Spanned<String> };
    (@ty int) => { $crate::model::Spanned<i64> };
    (@ty flag) => { $crate::model::Spanned<bool> };
    (@ty ints) => { $crate::model::Spanned<Vec<$crate::model::Spanned<i64>>> };
    (@ty scalar) => { $crate::model::Spanned<$crate::model::ScalarOperand> };
    (@ty dim) => { $crate::model::Spanned<$crate::model::Dim> };
    (@ty $vocab:ident) => { $crate::model::Spanned<$vocab> };
    (@read $op:ident, $key:ident, text) => { $op.text(stringify!($key)) };
    (@read $op:ident, $key:ident, int) => { $op.int(stringify!($key)) };
    (@read $op:ident, $key:ident, flag) => { $op.flag(stringify!($key)) };
    (@read $op:ident, $key:ident, ints) => { $op.ints(stringify!($key)) };
    (@read $op:ident, $key:ident, scalar) => { $op.scalar(stringify!($key)) };
    (@read $op:ident, $key:ident, dim) => { $op.dim(stringify!($key)) };
    (@read $op:ident, $key:ident, $vocab:ident) => {
        $op.member(stringify!($key), $vocab::from_str_opt)
    };
}

mod attention;
mod constraints;
mod elementwise;

/// Whether `keys` (each with whether it is optional) are exactly the keys
/// `kind`'s record declares.
fn declares(kind: OperationKind, keys: &[(&str, bool)]) -> bool {
    let mut declared: Vec<(&str, bool)> = crate::record::operation(kind)
        .fields
        .iter()
        .filter_map(|f| Some((f.name, f.key?.optional)))
        .collect();
    let mut keys = keys.to_vec();
    declared.sort_unstable();
    keys.sort_unstable();
    declared == keys
}
mod matmul;
mod prefill;
mod reduction;
mod rope;

use super::dims::agree as shapes_agree;
use super::family::{err, FamilyChecker};
use crate::diag::{Code, Diagnostic, FileId};
use crate::ir::{self, Arg, Extent, ScalarRef};
use crate::model::{self, ScalarOperand, Spanned};
use crate::record::OperationKind;
use crate::vocab::{DType, DTypeClass, Direction};

/// Whether two declared extents may be one extent of equal operands
/// ([`Extent::agrees`]: equal static extents, or dynamic ones that are not
/// two different symbols). Every declaration rule compares extents through
/// this one function, and shapes through `check::agree`;
/// [`Extent::tied`] is the stricter relation a call can enforce.
pub(super) fn agree(a: Extent, b: Extent) -> bool {
    a.agrees(b)
}

/// One value of an agreement group: who holds it, the value, where the
/// payload names it.
struct Member<'s, T> {
    who: String,
    value: T,
    span: &'s Range<usize>,
    /// Where the value is declared (the parameter's dtype, shape or axis).
    decl: Option<Range<usize>>,
}

/// What one kind's agreement checks report with.
struct Rule<'h> {
    code: Code,
    help: &'h str,
}

impl<'a> FamilyChecker<'a> {
    /// Resolve an operand; diagnose unknown names.
    fn operand(&mut self, s: &Spanned<String>) -> Option<usize> {
        let target = self.param_index.get(s.value.as_str()).copied();
        self.refer(&s.span, target);
        match target {
            Some(i) => Some(i),
            None => {
                let help = self.known_params_help();
                self.push(
                    err(
                        Code::OperandUnknown,
                        self.id,
                        &s.span,
                        format!("operand `{}` names no parameter", s.value),
                    )
                    .label("unknown parameter")
                    .help(help),
                );
                None
            }
        }
    }

    /// Operand kind and direction: inputs are read tensors, the result is written.
    fn operand_role(
        &mut self,
        s: &Spanned<String>,
        i: usize,
        output: bool,
        accumulate: bool,
    ) -> bool {
        let p = &self.params[i];
        let problem = if !p.is_tensor() {
            Some("operands are tensors".to_owned())
        } else if output && accumulate && p.direction != Direction::InOut {
            Some("an accumulating result must be `inout`".to_owned())
        } else if output && p.direction == Direction::In {
            Some("the result must be `out` or `inout`".to_owned())
        } else if !output && p.direction == Direction::Out {
            Some("inputs must be `in` or `inout`".to_owned())
        } else {
            None
        };
        if let Some(label) = problem {
            let msg = if p.is_tensor() {
                format!("operand `{}` is an `{}` tensor", p.name, p.direction)
            } else {
                format!("operand `{}` is a scalar", p.name)
            };
            self.push(
                err(Code::OperandKind, self.id, &s.span, msg)
                    .label(label)
                    .help(
                    "operands are tensors: inputs `in` (or `inout`), the result `out` or `inout`",
                ),
            );
            return false;
        }
        true
    }

    /// Resolve every operand and check its role (`true` = the result). The
    /// indices when all resolve; `None` when a name is unknown. The flag
    /// says whether the shape rules may run: every role is right and no
    /// operand's own declaration had an error.
    fn operands<const N: usize>(
        &mut self,
        list: [(&Spanned<String>, bool); N],
    ) -> Option<([usize; N], bool)> {
        let resolved: Vec<Option<usize>> = list.iter().map(|(s, _)| self.operand(s)).collect();
        let mut out = [0; N];
        for (slot, r) in out.iter_mut().zip(&resolved) {
            *slot = (*r)?;
        }
        let mut ok = true;
        for ((s, output), &i) in list.iter().zip(&out) {
            ok &= self.operand_role(s, i, *output, false);
        }
        ok &= !out.iter().any(|i| self.bad_params.contains(i));
        Some((out, ok))
    }

    /// `who` for an operand: its role, and the parameter when named otherwise.
    fn who(&self, role: &str, i: usize) -> String {
        let name = &self.params[i].name;
        if name == role {
            format!("`{role}`")
        } else {
            format!("`{role}` (`{name}`)")
        }
    }

    /// `128`, `-1` or `"batch"`: an extent as the manifest spells it.
    fn extent_text(&self, e: Extent) -> String {
        match e {
            Extent::Symbol(i) => format!("{:?}", self.symbols[i].name),
            e => e.as_i64().to_string(),
        }
    }

    /// Agreement of one extent across operands: (role, param, axis, span).
    fn agree_extent(
        &mut self,
        rule: &Rule,
        subject: &str,
        members: &[(&str, usize, usize, &Range<usize>)],
    ) -> bool {
        let members: Vec<Member<'_, Extent>> = members
            .iter()
            .map(|&(role, i, axis, span)| Member {
                who: format!("{} axis {axis}", self.who(role, i)),
                value: self.params[i].dims[axis],
                span,
                decl: self.dim_span(i, axis as i32),
            })
            .collect();
        let found = disagreement(self.id, rule, subject, &members, agree, |e| {
            self.extent_text(e)
        });
        self.report(found)
    }

    /// An extent that a call must find equal in every member (the batch of
    /// paged attention, its block count) cannot be anonymous: two `-1`s are
    /// unrelated at call time, so the extent is named by a symbol (or is
    /// static). Run after the members agree; one error, at the first member.
    fn require_tied(
        &mut self,
        rule: &Rule,
        subject: &str,
        suggested: &str,
        members: &[(&str, usize, usize, &Range<usize>)],
    ) -> bool {
        let extents: Vec<Extent> = members
            .iter()
            .map(|&(_, i, axis, _)| self.params[i].dims[axis])
            .collect();
        if extents.iter().all(|&e| e.tied(extents[0])) {
            return true;
        }
        // At the first member that is -1 (the label says so), not the
        // first member, which may be named.
        let (role, i, axis, span) = members
            .iter()
            .copied()
            .find(|&(_, i, axis, _)| self.params[i].dims[axis] == Extent::Dynamic)
            .unwrap_or(members[0]);
        let names: Vec<String> = members.iter().map(|&(r, p, _, _)| self.who(r, p)).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let msg = format!(
            "{subject} is an anonymous dynamic extent (-1): a call could pass a different one to each of {}",
            and_list(&names)
        );
        self.push(
            err(rule.code, self.id, span, msg)
                .label(format!("{} axis {axis} is -1", self.who(role, i)))
                .help(format!(
                    "name it with a symbol in every shape, e.g. \"{suggested}\" instead of -1, so that each call checks they are equal"
                )),
        );
        false
    }

    /// Agreement of whole shapes: (role, param, span).
    fn agree_shape(&mut self, rule: &Rule, members: &[(&str, usize, &Range<usize>)]) -> bool {
        let list: Vec<Member<'_, &[Extent]>> = members
            .iter()
            .map(|&(role, i, span)| Member {
                who: self.who(role, i),
                value: self.params[i].dims.as_slice(),
                span,
                decl: self
                    .file
                    .params
                    .get(i)
                    .and_then(|d| Some(d.value.shape.as_ref()?.span.clone())),
            })
            .collect();
        let found = disagreement(self.id, rule, "the shape", &list, shapes_agree, |d| {
            self.shape_text(d)
        });
        self.report(found)
    }

    /// Agreement of dtypes: (role, param, span).
    fn agree_dtype(&mut self, rule: &Rule, members: &[(&str, usize, &Range<usize>)]) -> bool {
        let members: Vec<Member<'_, DType>> = members
            .iter()
            .map(|&(role, i, span)| Member {
                who: self.who(role, i),
                value: self.params[i].dtype,
                span,
                decl: self.file.params.get(i).map(|d| d.value.dtype.span.clone()),
            })
            .collect();
        let found = disagreement(
            self.id,
            rule,
            "the dtype",
            &members,
            |a, b| a == b,
            |d| d.to_string(),
        );
        self.report(found)
    }

    /// `d` with a label at parameter `i`'s declared dtype.
    pub(super) fn at_dtype(&self, d: Diagnostic, i: usize) -> Diagnostic {
        match self.file.params.get(i) {
            Some(decl) => d.related(
                self.id,
                decl.value.dtype.span.clone(),
                format!(
                    "`{}` is declared {} here",
                    self.params[i].name, self.params[i].dtype
                ),
            ),
            None => d,
        }
    }

    /// Index tensors of the attention kinds (block tables, lengths,
    /// offsets): int32, each reported at its operand.
    fn require_int32(&mut self, rule: &Rule, members: &[(&str, usize, &Range<usize>)]) -> bool {
        let mut ok = true;
        for &(role, i, span) in members {
            let d = self.params[i].dtype;
            if d != DType::Int32 {
                let msg = format!("{} is {d}, expected int32", self.who(role, i));
                let d = err(rule.code, self.id, span, msg)
                    .label("expected int32")
                    .help(rule.help);
                let d = self.at_dtype(d, i);
                self.push(d);
                ok = false;
            }
        }
        ok
    }

    /// Grouped-query attention: `H` (axis 1 of the query) a multiple of
    /// `H_kv` (axis `kv_axis` of the keys) when both are static.
    fn require_head_groups(
        &mut self,
        rule: &Rule,
        (query, q): (&str, usize),
        (keys, k, kv_axis): (&str, usize, usize),
        span: &Range<usize>,
    ) {
        let (h, hkv) = (self.params[q].dims[1], self.params[k].dims[kv_axis]);
        if let (Some(h), Some(hkv)) = (h.static_value(), hkv.static_value()) {
            if h % hkv != 0 {
                let msg = format!(
                    "{} has H = {h} heads, not a multiple of H_kv = {hkv} of {}",
                    self.who(query, q),
                    self.who(keys, k)
                );
                self.push(
                    err(rule.code, self.id, span, msg)
                        .label("H_kv must divide H")
                        .help("grouped-query attention shares each KV head among H / H_kv query heads"),
                );
            }
        }
    }

    /// `d` with a label at axis `axis` of parameter `i`'s declared shape.
    fn at_axis(&self, d: Diagnostic, i: usize, axis: usize) -> Diagnostic {
        match self.dim_span(i, axis as i32) {
            Some(span) => d.related(
                self.id,
                span,
                format!("`{}` axis {axis} is declared here", self.params[i].name),
            ),
            None => d,
        }
    }

    /// The span of axis `axis` (negative: from the end) of parameter `i`'s
    /// declared shape.
    fn dim_span(&self, i: usize, axis: i32) -> Option<Range<usize>> {
        let shape = &self.file.params.get(i)?.value.shape.as_ref()?.value;
        let at = if axis < 0 {
            shape.len().checked_sub(axis.unsigned_abs() as usize)?
        } else {
            axis as usize
        };
        Some(shape.get(at)?.span.clone())
    }

    /// Push a found diagnostic; `true` when there was none.
    fn report(&mut self, found: Option<Diagnostic>) -> bool {
        match found {
            Some(d) => {
                self.push(d);
                false
            }
            None => true,
        }
    }

    /// A float dtype where the kind computes in floating point.
    fn require_float(&mut self, rule: &Rule, role: &str, i: usize, span: &Range<usize>) -> bool {
        let d = self.params[i].dtype;
        if d.is_float() {
            return true;
        }
        let msg = format!("{} is {d}, not a float dtype", self.who(role, i));
        let d = err(rule.code, self.id, span, msg)
            .label("expected fp32, fp16, bf16 or another float dtype")
            .help(rule.help);
        let d = self.at_dtype(d, i);
        self.push(d);
        false
    }

    /// The operator `op` is defined on the dtype of operand `(role, i)`
    /// (`refusal` says why not: [`BinaryOp::refusal`] and the like): one
    /// error at the operator, with a label at the operand's dtype.
    fn require_domain<Op: Copy + std::fmt::Display>(
        &mut self,
        code: Code,
        op: &Spanned<Op>,
        refusal: fn(Op, DTypeClass) -> Option<&'static str>,
        (role, i): (&str, usize),
    ) -> bool {
        let d = self.params[i].dtype;
        let Some(reason) = refusal(op.value, d.class()) else {
            return true;
        };
        let accepted: Vec<&str> = [
            (DTypeClass::Float, "float"),
            (DTypeClass::Signed, "signed integer"),
            (DTypeClass::Unsigned, "unsigned integer"),
            (DTypeClass::Bool, "bool"),
        ]
        .into_iter()
        .filter(|&(c, _)| refusal(op.value, c).is_none())
        .map(|(_, name)| name)
        .collect();
        let msg = format!(
            "`{}` is not defined on {d}, the dtype of {}",
            op.value,
            self.who(role, i)
        );
        let e = err(code, self.id, &op.span, msg)
            .label(reason)
            .help(format!(
                "`{}` accepts {} operands; declare one of those dtypes (cast first with an `elementwise_unary` `cast` family)",
                op.value,
                and_list(&accepted)
            ));
        let e = self.at_dtype(e, i);
        self.push(e);
        false
    }

    /// The rank each operand must have (role, index, rank, span), every
    /// mistake reported; whether all have it.
    fn require_ranks(
        &mut self,
        rule: &Rule,
        operands: &[(&str, usize, usize, &Range<usize>)],
    ) -> bool {
        operands.iter().fold(true, |ok, &(role, i, rank, span)| {
            self.require_rank(rule, role, i, rank, span) && ok
        })
    }

    /// The rank an operand must have.
    fn require_rank(
        &mut self,
        rule: &Rule,
        role: &str,
        i: usize,
        rank: usize,
        span: &Range<usize>,
    ) -> bool {
        let have = self.params[i].shape.len();
        if have == rank {
            return true;
        }
        let msg = format!("{} has rank {have}, expected {rank}", self.who(role, i));
        let mut d = err(rule.code, self.id, span, msg)
            .label(format!("expected rank {rank}"))
            .help(rule.help);
        if let Some(shape) = self.file.params.get(i).and_then(|p| p.value.shape.as_ref()) {
            let name = &self.params[i].name;
            d = d.related(
                self.id,
                shape.span.clone(),
                format!("`{name}` has rank {have} here"),
            );
        }
        self.push(d);
        false
    }

    /// An axis of `input` (`None` when out of range: reported).
    fn axis(&mut self, axis: &Spanned<i64>, input: usize) -> Option<usize> {
        let rank = self.params[input].shape.len();
        match usize::try_from(axis.value) {
            Ok(a) if a < rank => Some(a),
            _ => {
                let msg = format!(
                    "axis {} is out of range for `{}` of rank {rank}",
                    axis.value, self.params[input].name
                );
                self.push(
                    err(Code::AxisOutOfRange, self.id, &axis.span, msg)
                        .label(format!("expected 0 to {}", rank.saturating_sub(1)))
                        .help("axes count from 0; the last axis of a rank-R tensor is R - 1"),
                );
                None
            }
        }
    }

    /// `eps` or `scale`: a positive finite constant, or a float scalar parameter.
    fn scalar_operand(&mut self, s: &Spanned<ScalarOperand>, key: &str) -> Option<ScalarRef> {
        let help = "write a positive number (`1e-6`), or the name of a float scalar parameter (fp32, fp16 or bf16)";
        match &s.value {
            ScalarOperand::Constant(v) => {
                if v.is_finite() && *v > 0.0 {
                    return Some(ScalarRef::Constant(*v));
                }
                self.push(
                    err(
                        Code::ScalarOperand,
                        self.id,
                        &s.span,
                        format!("`{key} = {v:?}` is not a positive finite constant"),
                    )
                    .label("must be finite and greater than 0")
                    .help(help),
                );
                None
            }
            ScalarOperand::Param(name) => {
                let named = Spanned {
                    span: s.span.clone(),
                    value: name.clone(),
                };
                let i = self.operand(&named)?;
                let p = &self.params[i];
                let problem = if p.is_tensor() {
                    Some(format!("`{key}` names tensor `{name}`"))
                } else if !p.dtype.is_float() {
                    Some(format!(
                        "`{key}` names `{name}`, a scalar of dtype {}",
                        p.dtype
                    ))
                } else {
                    None
                };
                match problem {
                    None => Some(ScalarRef::Param(i)),
                    Some(msg) => {
                        let d = err(Code::ScalarOperand, self.id, &s.span, msg)
                            .label("expected a float scalar parameter")
                            .help(help);
                        let d = self.at_dtype(d, i);
                        self.push(d);
                        None
                    }
                }
            }
        }
    }

    /// A key the kind requires: there unless the loader let through a
    /// table its schema refuses, which is reported rather than trusted.
    fn required_key<T>(
        &mut self,
        op: &model::Operation,
        key: &str,
        value: Option<Spanned<T>>,
    ) -> Option<Spanned<T>> {
        if value.is_none() {
            let kind = op.kind();
            self.push(
                err(
                    Code::MissingKey,
                    self.id,
                    &op.kind.span,
                    format!("`[operation.{kind}]` has no valid `{key}`"),
                )
                .label("in this table")
                .help(format!(
                    "declare `{key}` as docs/manifest.md describes `[operation.{kind}]`"
                )),
            );
        }
        value
    }

    pub(super) fn check_operation(&mut self) -> Option<ir::Operation> {
        let op = &self.file.operation.value;
        match op.kind() {
            OperationKind::ElementwiseBinary => self.elementwise_binary(op),
            OperationKind::Matmul => self.matmul(op),
            OperationKind::ElementwiseUnary => self.elementwise_unary(op),
            OperationKind::Reduce => self.reduce(op),
            OperationKind::Softmax => self.softmax(op),
            OperationKind::Norm => self.norm(op),
            OperationKind::PagedAttentionDecode => self.paged_attention_decode(op),
            OperationKind::PackedAttentionPrefill => self.packed_attention_prefill(op),
            OperationKind::Rope => self.rope(op),
            OperationKind::Custom => {
                let c = Custom::read(self, op)?;
                // Free text like a summary: required, newlines allowed.
                self.check_text(&c.semantics, "semantics", true, true);
                Some(ir::Operation::new(
                    OperationKind::Custom,
                    [("semantics", Arg::Text(c.semantics.value.clone()))],
                ))
            }
            // A kind with no reader of its own is checked by its declaration.
            _ => self.declared_kind(op),
        }
    }
}

keys! {
    Custom { semantics: text, }
}

/// One error when the members do not all agree, at the member that differs
/// from most others (the earliest such value on a tie), noting every member.
fn disagreement<T: Copy>(
    id: FileId,
    rule: &Rule,
    subject: &str,
    members: &[Member<'_, T>],
    same: impl Fn(T, T) -> bool,
    show: impl Fn(T) -> String,
) -> Option<Diagnostic> {
    let first = members.first()?;
    if members.iter().all(|m| same(m.value, first.value)) {
        return None;
    }
    let support = |v: T| members.iter().filter(|m| same(m.value, v)).count();
    let best = members.iter().map(|m| support(m.value)).max().unwrap_or(1);
    let reference = members
        .iter()
        .find(|m| support(m.value) == best)
        .map_or(first.value, |m| m.value);
    let odd = members.iter().find(|m| !same(m.value, reference))?;
    let agreeing: Vec<&str> = members
        .iter()
        .filter(|m| same(m.value, reference))
        .map(|m| m.who.as_str())
        .collect();
    let msg = format!(
        "{subject} disagrees: {} is {}, but {} {} {}",
        odd.who,
        show(odd.value),
        and_list(&agreeing),
        if agreeing.len() == 1 { "is" } else { "are" },
        show(reference),
    );
    // The label names what is on the operand's line; each member's value
    // is labelled where it is declared, which may be far from the payload.
    let mut d = err(rule.code, id, odd.span, msg)
        .label(format!("{} differs from the others", odd.who))
        .help(rule.help);
    let mut shown: Vec<&Range<usize>> = Vec::new();
    for m in members {
        d = d.note(format!("{} is {}", m.who, show(m.value)));
        if let Some(decl) = m.decl.as_ref().filter(|s| !shown.contains(s)) {
            shown.push(decl);
            d = d.related(
                id,
                decl.clone(),
                format!("{} is {} here", m.who, show(m.value)),
            );
        }
    }
    Some(d)
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[&str]) -> String {
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}
