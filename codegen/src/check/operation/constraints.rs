//! The one checker of declared operand constraints
//! ([`crate::record::Operands`]): ranks, dtype groups, the agreement of
//! every extent letter across operands (and, where a call must find it
//! equal, that it is named), whole shapes of operands of any rank, shared
//! leading extents, and divisibility. A kind whose payload keys are all
//! operands, flags, vocabulary members and scalars is read and checked by
//! its declaration alone ([`FamilyChecker::declared_kind`]); the others
//! read their keys themselves and call [`FamilyChecker::constrain`].

use std::ops::Range;

use super::{agree, Rule};
use crate::check::family::{err, FamilyChecker};
use crate::ir::{self, Arg, Extent};
use crate::model::{self, Spanned};
#[cfg(test)]
use crate::record::OperationKind;
use crate::record::{self, DtypeClass, Operands, Shape, Ty};
use crate::vocab::Member;

/// A declared kind's payload as read: each present tensor operand (its key,
/// parameter and the span of the name in the payload) and each vocabulary
/// key's member spelling.
pub(super) struct Bound<'s> {
    pub(super) operands: Vec<(&'static str, usize, &'s Range<usize>)>,
    pub(super) members: Vec<(&'static str, &'static str)>,
}

impl<'s> Bound<'s> {
    fn operand(&self, key: &str) -> Option<(usize, &'s Range<usize>)> {
        self.operands
            .iter()
            .find(|o| o.0 == key)
            .map(|&(_, i, span)| (i, span))
    }

    fn member(&self, key: &str) -> Option<&'static str> {
        self.members.iter().find(|m| m.0 == key).map(|m| m.1)
    }
}

/// Which groups of constraints held.
#[derive(Clone, Copy, Debug)]
pub(super) struct Held {
    pub(super) dtypes: bool,
    pub(super) shapes: bool,
}

/// An axis of an operand that carries a letter: (key, param, axis, span).
type At<'s> = (&'static str, usize, usize, &'s Range<usize>);

/// A present operand and its shape for one choice of the payload's
/// vocabulary members ([`Operands::resolve`]: `Any`, `Axes`, `Rows`,
/// `Rule`, or `Like` an operand of any rank).
#[derive(Clone, Copy)]
struct Placed<'s> {
    key: &'static str,
    param: usize,
    span: &'s Range<usize>,
    shape: Shape,
}

impl FamilyChecker<'_> {
    /// Check `decl` over the operands of `bound` (each resolved, with the
    /// right role, and without errors of its own).
    pub(super) fn constrain(&mut self, decl: &'static Operands, bound: &Bound<'_>) -> Held {
        let rule = Rule {
            code: decl.code,
            help: decl.help,
        };
        let dtypes = self.declared_dtypes(decl, bound, &rule);
        if !self.wrong_case(decl, bound, &rule) {
            return Held {
                dtypes,
                shapes: false,
            };
        }
        let placed = place(decl, bound, None);
        let mut shapes = self.declared_ranks(&placed, &rule);
        if shapes {
            shapes &= self.declared_shapes(decl, &placed, &rule);
        }
        Held { dtypes, shapes }
    }

    /// Every axis spelled `letter`, in operand order: of the operands of
    /// fixed rank, and after the leading extents of `Rows` ones.
    fn axes_of<'s>(&self, placed: &[Placed<'s>], letter: &str) -> Vec<At<'s>> {
        let mut members: Vec<At<'s>> = Vec::new();
        for p in placed {
            let (letters, lead) = match p.shape {
                Shape::Axes(l) => (l, 0),
                Shape::Rows(l) => (l, self.params[p.param].dims.len().saturating_sub(l.len())),
                _ => continue,
            };
            for (at, _) in letters.iter().enumerate().filter(|(_, l)| **l == letter) {
                members.push((p.key, p.param, lead + at, p.span));
            }
        }
        members
    }

    /// Whether an operand has the rank its shape gives.
    fn rank_fits(&self, p: &Placed<'_>) -> bool {
        let rank = self.params[p.param].dims.len();
        match p.shape {
            Shape::Axes(l) => rank == l.len(),
            Shape::Rows(l) => rank > l.len(),
            _ => true,
        }
    }

    /// Whether each operand has its rank and every letter's extents agree
    /// (nothing reported).
    fn fits(&self, decl: &'static Operands, placed: &[Placed<'_>]) -> bool {
        placed.iter().all(|p| self.rank_fits(p))
            && decl.extents.iter().all(|letter| {
                let extents: Vec<Extent> = self
                    .axes_of(placed, letter.letter)
                    .iter()
                    .map(|&(_, i, axis, _)| self.params[i].dims[axis])
                    .collect();
                extents
                    .iter()
                    .all(|&e| extents.iter().all(|&f| agree(e, f)))
            })
    }

    /// Operands shaped by a vocabulary key that fit another of its
    /// members, and not the payload's (a weight stored the other way
    /// round, or with a batch axis): one error, at the first operand whose
    /// shape the members set apart, naming the member that fits.
    fn wrong_case(&mut self, decl: &'static Operands, bound: &Bound<'_>, rule: &Rule) -> bool {
        let keys = decl.tensors.iter().filter_map(|o| match o.shape {
            Shape::ByKey(key, cases) => Some((key, cases)),
            _ => None,
        });
        for (key, cases) in keys {
            let Some(&(first, _)) = cases.first() else {
                continue;
            };
            let chosen = bound.member(key).unwrap_or(first);
            if self.fits(decl, &place(decl, bound, Some((key, chosen)))) {
                continue;
            }
            let Some(&(fits, _)) = cases.iter().find(|(m, _)| {
                *m != chosen && self.fits(decl, &place(decl, bound, Some((key, m))))
            }) else {
                continue;
            };
            let (have, want) = (
                place(decl, bound, Some((key, chosen))),
                place(decl, bound, Some((key, fits))),
            );
            // The operand to name: the first whose rank the payload's member
            // cannot give, else the first that the members shape apart.
            let differs = |h: &&Placed<'_>, w: &&Placed<'_>| {
                decl.shape_words(h.shape) != decl.shape_words(w.shape)
            };
            let pairs: Vec<(&Placed<'_>, &Placed<'_>)> = have
                .iter()
                .zip(&want)
                .filter(|(h, w)| differs(h, w))
                .collect();
            let Some(&(p, w)) = pairs
                .iter()
                .find(|(h, _)| !self.rank_fits(h))
                .or(pairs.first())
            else {
                continue;
            };
            let msg = format!(
                "{} is {}: that is {} (`{key} = \"{fits}\"`), not {} (`{key} = \"{chosen}\"`)",
                self.who(p.key, p.param),
                self.shape_text(&self.params[p.param].dims),
                decl.shape_words(w.shape),
                decl.shape_words(p.shape),
            );
            let d = err(rule.code, self.id, p.span, msg)
                .label(format!("shaped as `{key} = \"{fits}\"` declares"))
                .help(format!(
                    "declare `{key} = \"{fits}\"`, or declare `{}` as {}",
                    self.params[p.param].name,
                    decl.shape_words(p.shape)
                ));
            self.push(d);
            return false;
        }
        true
    }

    fn declared_ranks(&mut self, placed: &[Placed<'_>], rule: &Rule) -> bool {
        let fixed: Vec<(&str, usize, usize, &Range<usize>)> = placed
            .iter()
            .filter_map(|p| match p.shape {
                Shape::Axes(l) => Some((p.key, p.param, l.len(), p.span)),
                _ => None,
            })
            .collect();
        let mut ok = self.require_ranks(rule, &fixed);
        for p in placed {
            if let Shape::Rows(letters) = p.shape {
                ok &= self.require_min_rank(rule, p.key, p.param, letters.len() + 1, p.span);
            }
        }
        ok
    }

    fn declared_dtypes(&mut self, decl: &'static Operands, bound: &Bound<'_>, rule: &Rule) -> bool {
        let mut ok = true;
        for group in decl.dtypes {
            if let Some((key, member)) = group.unless {
                if bound.member(key) == Some(member) {
                    continue;
                }
            }
            let members: Vec<(&str, usize, &Range<usize>)> = group
                .members
                .iter()
                .filter_map(|&key| bound.operand(key).map(|(i, span)| (key, i, span)))
                .collect();
            let Some(&(first, i, span)) = members.first() else {
                continue;
            };
            ok &= match group.class {
                DtypeClass::Float => {
                    self.require_float(rule, first, i, span) && self.agree_dtype(rule, &members)
                }
                DtypeClass::Int32 => self.require_int32(rule, &members),
                DtypeClass::Same => self.agree_dtype(rule, &members),
            };
        }
        ok
    }

    fn declared_shapes(
        &mut self,
        decl: &'static Operands,
        placed: &[Placed<'_>],
        rule: &Rule,
    ) -> bool {
        let mut ok = true;
        // Operands of any rank, compared whole with those shaped like them.
        for root in placed.iter().filter(|p| matches!(p.shape, Shape::Any)) {
            let group: Vec<(&str, usize, &Range<usize>)> = placed
                .iter()
                .filter(|p| p.key == root.key || matches!(p.shape, Shape::Like(k) if k == root.key))
                .map(|p| (p.key, p.param, p.span))
                .collect();
            if group.len() > 1 {
                ok &= self.agree_shape(rule, &group);
            }
        }
        ok &= self.shared_rows(placed, rule);
        for letter in decl.extents {
            let members = self.axes_of(placed, letter.letter);
            if members.is_empty() {
                continue;
            }
            let agreed = self.agree_extent(rule, letter.subject, &members);
            ok &= agreed;
            if let (true, Some(tie)) = (agreed, letter.tie) {
                ok &= self.tie_extent(rule, letter.subject, tie, members);
            }
        }
        for d in decl.divides {
            let first = |letter: &str| self.axes_of(placed, letter).first().copied();
            let (Some(m), Some(v)) = (first(d.multiple), first(d.divisor)) else {
                continue;
            };
            let (a, b) = (self.params[m.1].dims[m.2], self.params[v.1].dims[v.2]);
            if let (Some(a), Some(b)) = (a.static_value(), b.static_value()) {
                if b == 0 || a % b != 0 {
                    let msg = format!(
                        "{} has {} = {a} {}, not a multiple of {} = {b} of {}",
                        self.who(m.0, m.1),
                        d.multiple,
                        d.counts,
                        d.divisor,
                        self.who(v.0, v.1)
                    );
                    self.push(
                        err(rule.code, self.id, v.3, msg)
                            .label(format!("{} must divide {}", d.divisor, d.multiple))
                            .help(d.why),
                    );
                    ok = false;
                }
            }
        }
        ok
    }

    /// One extent a call must find equal: named unless it is one tensor's.
    fn tie_extent(&mut self, rule: &Rule, subject: &str, tie: &str, members: Vec<At<'_>>) -> bool {
        // A tensor named twice (written in place) is one extent.
        let mut seen = Vec::new();
        let members: Vec<At<'_>> = members
            .into_iter()
            .filter(|&(_, i, _, _)| {
                let first = !seen.contains(&i);
                seen.push(i);
                first
            })
            .collect();
        members.len() < 2 || self.require_tied(rule, subject, tie, &members)
    }

    /// The `Rows` operands share their leading extents: equal ranks, and
    /// each leading extent agreed and, where dynamic, named.
    fn shared_rows(&mut self, placed: &[Placed<'_>], rule: &Rule) -> bool {
        let rows: Vec<(&'static str, usize, usize, &Range<usize>)> = placed
            .iter()
            .filter_map(|p| match p.shape {
                Shape::Rows(letters) => Some((
                    p.key,
                    p.param,
                    self.params[p.param].dims.len() - letters.len(),
                    p.span,
                )),
                _ => None,
            })
            .collect();
        let Some(&(key, i, lead, _)) = rows.first() else {
            return true;
        };
        if let Some(&(other, j, other_lead, span)) = rows.iter().find(|r| r.2 != lead) {
            let msg = format!(
                "{} has {other_lead} leading extents, but {} has {lead}",
                self.who(other, j),
                self.who(key, i)
            );
            let d = err(rule.code, self.id, span, msg)
                .label(format!(
                    "expected rank {}",
                    self.params[j].dims.len() - other_lead + lead
                ))
                .help(rule.help);
            self.push(d);
            return false;
        }
        let mut ok = true;
        for axis in 0..lead {
            let members: Vec<At<'_>> = rows.iter().map(|&(k, p, _, s)| (k, p, axis, s)).collect();
            let subject = format!("the leading extent {axis}");
            if self.agree_extent(rule, &subject, &members) {
                ok &= self.tie_extent(rule, &subject, "rows", members);
            } else {
                ok = false;
            }
        }
        ok
    }

    /// An operand's rank is at least `rank`.
    fn require_min_rank(
        &mut self,
        rule: &Rule,
        role: &str,
        i: usize,
        rank: usize,
        span: &Range<usize>,
    ) -> bool {
        let have = self.params[i].shape.len();
        if have >= rank {
            return true;
        }
        let msg = format!(
            "{} has rank {have}, expected {rank} or more",
            self.who(role, i)
        );
        let d = err(rule.code, self.id, span, msg)
            .label(format!("expected rank {rank} or more"))
            .help(rule.help);
        self.push(d);
        false
    }

    /// A kind checked by its declaration alone: every payload key read by
    /// its type, the operands resolved and given their roles, the
    /// constraints checked, the payload lowered.
    pub(super) fn declared_kind(&mut self, op: &model::Operation) -> Option<ir::Operation> {
        let kind = op.kind();
        let record = record::operation(kind);
        let decl = record::operands(kind);
        let mut args: Vec<(&'static str, Arg)> = Vec::new();
        let mut tensors: Vec<(&'static str, Spanned<String>, usize)> = Vec::new();
        let mut members = Vec::new();
        let mut complete = true;
        for f in record.fields {
            let Some(key) = f.key else { continue };
            let name = f.name;
            let arg = match f.ty {
                Ty::Param | Ty::OptParam => {
                    let text = self.key_value(op, name, key.optional, op.text(name));
                    match text {
                        Some(Some(t)) => match self.operand(&t) {
                            Some(i) => {
                                tensors.push((name, t, i));
                                Some(if matches!(f.ty, Ty::Param) {
                                    Arg::Param(i)
                                } else {
                                    Arg::OptParam(Some(i))
                                })
                            }
                            None => None,
                        },
                        Some(None) => Some(Arg::OptParam(None)),
                        None => None,
                    }
                }
                Ty::Bool => self
                    .key_value(op, name, key.optional, op.flag(name))
                    .map(|v| Arg::Bool(v.is_some_and(|b| b.value))),
                Ty::ScalarRef => self
                    .key_value(op, name, key.optional, op.scalar(name))
                    .flatten()
                    .and_then(|s| self.scalar_operand(&s, name).map(Arg::Scalar)),
                Ty::Vocab(v) => self
                    .key_value(op, name, key.optional, op.text(name))
                    .and_then(|t| match t {
                        None => Some(v.absent()),
                        Some(t) => self.vocab_member(op, name, v.members, &t),
                    })
                    .map(|m| {
                        members.push((name, m.spelling));
                        Arg::Vocab(m)
                    }),
                // No declared kind has another key type: a test holds
                // every declared kind to these (`declared_kinds_read_their_keys`).
                _ => None,
            };
            match arg {
                Some(a) => args.push((name, a)),
                None => complete = false,
            }
        }
        let mut ok = complete;
        for (key, t, i) in &tensors {
            let written = decl.operand(key).is_some_and(|o| o.written);
            ok &= self.operand_role(t, *i, written, false);
            ok &= !self.bad_params.contains(i);
        }
        if ok {
            let bound = Bound {
                operands: tensors.iter().map(|(k, t, i)| (*k, *i, &t.span)).collect(),
                members,
            };
            self.constrain(decl, &bound);
        }
        complete.then(|| ir::Operation::from_fields(kind, args))
    }

    /// A key's value: `Some(None)` when an optional key is left out;
    /// `None` (reported) when a required one is.
    fn key_value<T>(
        &mut self,
        op: &model::Operation,
        key: &str,
        optional: bool,
        value: Option<Spanned<T>>,
    ) -> Option<Option<Spanned<T>>> {
        if optional {
            return Some(value);
        }
        self.required_key(op, key, value).map(Some)
    }

    /// The member a vocabulary key names (the loader held it to the
    /// vocabulary; reported rather than trusted).
    fn vocab_member(
        &mut self,
        op: &model::Operation,
        key: &str,
        members: &'static [Member<'static>],
        t: &Spanned<String>,
    ) -> Option<&'static Member<'static>> {
        let found = members.iter().find(|m| m.spelling == t.value);
        if found.is_none() {
            self.required_key::<()>(op, key, None);
        }
        found
    }
}

/// Every present operand of `bound` with its shape, the vocabulary key
/// `choice.0` holding `choice.1` instead of the payload's member.
fn place<'s>(
    decl: &'static Operands,
    bound: &Bound<'s>,
    choice: Option<(&str, &'static str)>,
) -> Vec<Placed<'s>> {
    let member = |key: &str| match choice {
        Some((k, m)) if k == key => Some(m),
        _ => bound.member(key),
    };
    decl.tensors
        .iter()
        .filter_map(|o| {
            let (param, span) = bound.operand(o.key)?;
            Some(Placed {
                key: o.key,
                param,
                span,
                shape: decl.resolve(o.key, &member)?,
            })
        })
        .collect()
}

/// The kinds that read their own keys (`check_operation`'s arms); every
/// other kind is read and checked by its declaration alone.
#[cfg(test)]
const OWN_READERS: &[OperationKind] = &[
    OperationKind::ElementwiseBinary,
    OperationKind::Matmul,
    OperationKind::ElementwiseUnary,
    OperationKind::Reduce,
    OperationKind::Softmax,
    OperationKind::Norm,
    OperationKind::PagedAttentionDecode,
    OperationKind::PackedAttentionPrefill,
    OperationKind::Rope,
    OperationKind::Custom,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::OPERATIONS;

    /// Every letter of a shape means something: declared with its
    /// subject, or named by one of the kind's own rules.
    #[test]
    fn every_letter_is_declared() {
        for &(kind, _) in OPERATIONS {
            let decl = crate::record::operands(kind);
            for o in decl.tensors {
                let letters_of = |shape: Shape| match shape {
                    Shape::Axes(a) | Shape::Rows(a) => a.to_vec(),
                    _ => Vec::new(),
                };
                let letters: Vec<&str> = match o.shape {
                    Shape::ByKey(_, cases) => cases.iter().flat_map(|c| letters_of(c.1)).collect(),
                    shape => letters_of(shape),
                };
                for l in letters {
                    let declared = decl.extents.iter().any(|e| e.letter == l)
                        || decl.rules.iter().any(|r| r.starts_with(&format!("{l} ")))
                        || decl.rules.iter().any(|r| r.contains(&format!(" {l} ")));
                    assert!(
                        declared,
                        "`{kind}.{}`: letter {l} is declared nowhere",
                        o.key
                    );
                }
            }
        }
    }

    /// A kind read by [`FamilyChecker::declared_kind`] declares only keys
    /// it can read, and an operand for each parameter key.
    #[test]
    fn declared_kinds_read_their_keys() {
        for &(kind, record) in OPERATIONS.iter().filter(|(k, _)| !OWN_READERS.contains(k)) {
            let decl = record.kind.expect("a payload declares its kind").operands;
            for f in record.fields.iter().filter(|f| f.key.is_some()) {
                let ok = match f.ty {
                    Ty::Param | Ty::OptParam => decl.operand(f.name).is_some(),
                    Ty::Bool | Ty::ScalarRef | Ty::Vocab(_) => true,
                    _ => false,
                };
                assert!(
                    ok,
                    "`{kind}.{}`: the declared checker cannot read it",
                    f.name
                );
            }
            for o in decl.tensors {
                assert!(
                    record.field(o.key).is_some_and(|f| f.key.is_some()),
                    "`{kind}`: operand `{}` is no key of the payload",
                    o.key
                );
            }
        }
    }
}
