//! What a family read from a description must hold before any decision is
//! made over it, checked by the reader itself whatever the unit's SHA-256
//! says (a digest recomputed over damaged bytes vouches for nothing):
//! every reference names an entry of the family's lists of the right
//! kind, every count agrees with the lists it counts, every value is in
//! its range. Each refusal names the field and the value.

use super::reader::{Malformed, Names, Reader, Ref};
use crate::types::{Abi, Family, Param};
use crate::vocab::{Direction, ParamKind};

/// The largest rank of a lowered shape: NZ blocks a tensor into 5 axes
/// whatever its logical rank (docs/manifest.md).
const NZ_LOWERED_RANK: usize = 5;

/// Read one family and check it.
pub fn family(r: &mut Reader, abi: &Abi) -> Result<Family, Malformed> {
    r.refs.clear();
    let at = r.pos;
    let f: Family = r.read()?;
    let refs = std::mem::take(&mut r.refs);
    let check = Check { f: &f, at, abi };
    check.params()?;
    check.references(&refs)?;
    check.returns()?;
    check.receipts()?;
    check.symbols()?;
    r.refs = refs;
    Ok(f)
}

/// Whether `s` is 64 lowercase hex digits.
pub fn is_digest(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

struct Check<'a> {
    f: &'a Family,
    /// Where the family's record begins.
    at: usize,
    abi: &'a Abi,
}

impl Check<'_> {
    fn bad(&self, what: impl std::fmt::Display) -> Malformed {
        self.bad_at(self.at, what)
    }

    fn bad_at(&self, at: usize, what: impl std::fmt::Display) -> Malformed {
        Malformed {
            offset: at,
            what: format!("family `{}`: {what}", self.f.name),
        }
    }

    /// Each parameter at its position, tensors with shapes of a rank the
    /// ABI allows, scalars without one, each numbered in its pool, and
    /// the counts equal to the pools.
    fn params(&self) -> Result<(), Malformed> {
        let f = self.f;
        if !is_digest(f.identity) {
            return Err(self.bad(format!(
                "`Family.identity` is `{}`: 64 lowercase hex digits expected",
                f.identity.escape_debug()
            )));
        }
        if f.revision == 0 {
            return Err(self.bad("`Family.revision` is 0: at least 1 expected"));
        }
        let (mut tensors, mut scalars) = (0u32, 0u32);
        let max_rank = self.abi.max_rank as usize;
        for (i, p) in f.params.iter().enumerate() {
            let name = p.name;
            if p.index as usize != i {
                return Err(self.bad(format!(
                    "`Param.index` of parameter `{name}` is {}, its position is {i}",
                    p.index
                )));
            }
            let pool = match p.kind {
                ParamKind::Tensor => &mut tensors,
                ParamKind::Scalar => &mut scalars,
            };
            if p.pool_index != *pool {
                return Err(self.bad(format!(
                    "`Param.pool_index` of {} `{name}` is {}, {} expected (its position among the \
                     family's {}s)",
                    p.kind, p.pool_index, *pool, p.kind
                )));
            }
            *pool += 1;
            match p.kind {
                ParamKind::Tensor => {
                    if p.shape.is_empty() || p.shape.len() > max_rank {
                        return Err(self.bad(format!(
                            "`Param.shape` of tensor `{name}` has rank {}: 1 to `max_rank` {max_rank} \
                             expected",
                            p.shape.len()
                        )));
                    }
                    let lowered = max_rank.max(NZ_LOWERED_RANK);
                    if p.lowered_shape.is_empty() || p.lowered_shape.len() > lowered {
                        return Err(self.bad(format!(
                            "`Param.lowered_shape` of tensor `{name}` has rank {}: 1 to {lowered} \
                             expected",
                            p.lowered_shape.len()
                        )));
                    }
                }
                ParamKind::Scalar => {
                    if !p.shape.is_empty() || !p.lowered_shape.is_empty() {
                        return Err(self.bad(format!(
                            "`Param.shape` of scalar `{name}` has rank {}: a scalar has no shape",
                            p.shape.len().max(p.lowered_shape.len())
                        )));
                    }
                    if p.direction != Direction::In {
                        return Err(self.bad(format!(
                            "`Param.direction` of scalar `{name}` is `{}`: a scalar is `in`",
                            p.direction
                        )));
                    }
                    if p.alignment != 1 {
                        return Err(self.bad(format!(
                            "`Param.alignment` of scalar `{name}` is {}: a scalar's is 1",
                            p.alignment
                        )));
                    }
                }
            }
        }
        for (field, declared, counted, limit, ceiling) in [
            (
                "tensor_count",
                f.tensor_count,
                tensors,
                "max_tensor_args",
                self.abi.max_tensor_args,
            ),
            (
                "scalar_count",
                f.scalar_count,
                scalars,
                "max_scalar_args",
                self.abi.max_scalar_args,
            ),
        ] {
            let kind = &field[..6];
            if declared != counted {
                return Err(self.bad(format!(
                    "`Family.{field}` is {declared}, its parameters hold {counted} {kind}s"
                )));
            }
            if counted > ceiling {
                return Err(self.bad(format!(
                    "{counted} {kind} parameters, over the ABI's `{limit}` {ceiling}"
                )));
            }
        }
        Ok(())
    }

    /// Every parameter reference read names a parameter; a scalar
    /// reference a scalar one.
    fn references(&self, refs: &[Ref]) -> Result<(), Malformed> {
        let params = self.f.params;
        for r in refs {
            let (record, field, value) = (r.record, r.field, r.value);
            let Some(p) = params.get(value as usize) else {
                return Err(self.bad_at(
                    r.at,
                    format!(
                        "`{record}.{field}` is parameter {value}, the family declares {}",
                        params.len()
                    ),
                ));
            };
            if r.names == Names::Scalar && p.kind != ParamKind::Scalar {
                return Err(self.bad_at(
                    r.at,
                    format!(
                        "`{record}.{field}` is parameter {value} (`{}`), a tensor: a scalar \
                         parameter expected",
                        p.name
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A written tensor, or what `what` names instead.
    fn written(&self, what: &str, i: u32) -> Result<&Param, Malformed> {
        let params = self.f.params;
        let Some(p) = params.get(i as usize) else {
            return Err(self.bad(format!(
                "{what} is parameter {i}, the family declares {}",
                params.len()
            )));
        };
        if p.kind != ParamKind::Tensor || p.direction == Direction::In {
            return Err(self.bad(format!(
                "{what} is parameter {i} (`{}`, {} {}): an `out` or `inout` tensor expected",
                p.name, p.direction, p.kind
            )));
        }
        Ok(p)
    }

    fn returns(&self) -> Result<(), Malformed> {
        for &i in self.f.returns {
            self.written("`Family.returns`", i)?;
        }
        for rc in self.f.receipts {
            for e in rc.evidence.errors {
                self.written("`OutputError.output`", e.output)?;
            }
        }
        Ok(())
    }

    fn receipts(&self) -> Result<(), Malformed> {
        let profiles = self.f.profiles.len();
        for rc in self.f.receipts {
            if rc.profile as usize >= profiles {
                return Err(self.bad(format!(
                    "`Receipt.profile` of receipt {} is profile {}, the family declares {profiles}",
                    rc.sha256.escape_debug(),
                    rc.profile
                )));
            }
            if !is_digest(rc.sha256) {
                return Err(self.bad(format!(
                    "`Receipt.sha256` is `{}`: 64 lowercase hex digits expected",
                    rc.sha256.escape_debug()
                )));
            }
        }
        Ok(())
    }

    /// Each symbol's constraints are a range, and each use is a dynamic
    /// extent of a tensor, named by its position among the tensors too.
    fn symbols(&self) -> Result<(), Malformed> {
        let params = self.f.params;
        for s in self.f.symbols {
            let name = s.name;
            if s.min < 0 {
                return Err(self.bad(format!(
                    "`Symbol.min` of symbol `{name}` is {}: at least 0 expected",
                    s.min
                )));
            }
            if let Some(max) = s.max.filter(|&m| m < s.min) {
                return Err(self.bad(format!(
                    "`Symbol.max` of symbol `{name}` is {max}, below its `min` {}",
                    s.min
                )));
            }
            if s.multiple_of < 1 {
                return Err(self.bad(format!(
                    "`Symbol.multiple_of` of symbol `{name}` is {}: at least 1 expected",
                    s.multiple_of
                )));
            }
            for u in s.uses {
                // In range: `references` checked every `DimUse.param`.
                let p = &params[u.param as usize];
                if p.kind != ParamKind::Tensor {
                    return Err(self.bad(format!(
                        "`DimUse.param` of symbol `{name}` is parameter {} (`{}`), a scalar: a \
                         tensor expected",
                        u.param, p.name
                    )));
                }
                if u.tensor != p.pool_index {
                    return Err(self.bad(format!(
                        "`DimUse.tensor` of symbol `{name}` is tensor {}, but parameter `{}` is \
                         tensor {}",
                        u.tensor, p.name, p.pool_index
                    )));
                }
                match p.shape.get(u.axis as usize) {
                    None => {
                        return Err(self.bad(format!(
                            "`DimUse.axis` of symbol `{name}` is axis {} of `{}`, whose rank is {}",
                            u.axis,
                            p.name,
                            p.shape.len()
                        )))
                    }
                    Some(&d) if d != -1 => {
                        return Err(self.bad(format!(
                            "`DimUse.axis` of symbol `{name}` is axis {} of `{}`, whose extent is \
                             the static {d}: a symbol names a dynamic extent",
                            u.axis, p.name
                        )))
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(())
    }
}
