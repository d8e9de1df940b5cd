//! Call validation (the seed's CallFrame rules): argument descriptors and
//! typed scalars checked against a family's signature. No heap allocation.

use crate::types::{Family, Param};
use crate::vocab::{
    CallRule, DType, Direction, Layout, ScalarDomain, ScalarValueKind, StorageFormat,
};

/// A borrowed tensor argument, described without touching its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorArg<'a> {
    pub dtype: DType,
    /// Logical extents (for NZ tensors too: the physical blocking is derived).
    pub shape: &'a [i64],
    /// Strides in elements, one per extent.
    pub strides: &'a [i64],
    /// Offset of the view's first element into its storage, in elements.
    pub storage_offset: i64,
    /// Capacity of the underlying storage in bytes.
    pub storage_bytes: u64,
    /// Identity of the underlying storage (its base address); views of one
    /// storage share it.
    pub storage: u64,
    pub format: StorageFormat,
    pub device_index: i32,
}

/// A typed scalar argument value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarValue {
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
}

impl ScalarValue {
    pub fn kind(self) -> ScalarValueKind {
        match self {
            ScalarValue::Bool(_) => ScalarValueKind::Bool,
            ScalarValue::Int(_) => ScalarValueKind::Int,
            ScalarValue::Uint(_) => ScalarValueKind::Uint,
            ScalarValue::Float(_) => ScalarValueKind::Float,
        }
    }
}

/// Why a call was rejected: the rule, and the signature index of the
/// parameter it concerns (`None` for the argument counts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallError {
    pub rule: CallRule,
    pub param: Option<u32>,
}

impl core::fmt::Display for CallError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.param {
            Some(p) => write!(f, "argument {p}: {}", self.rule),
            None => write!(f, "{}", self.rule),
        }
    }
}

impl std::error::Error for CallError {}

#[cold]
#[inline(never)]
fn fail(rule: CallRule, p: &Param) -> CallError {
    CallError {
        rule,
        param: Some(p.index),
    }
}

/// Element size in bits of a dtype (generated from the manifest vocabulary).
pub const fn dtype_bits(d: DType) -> u64 {
    d.bits() as u64
}

/// Byte span `[start, end)` a tensor view touches in its storage: `Ok(None)`
/// when the view is empty (it accesses nothing), `Err(SpanOverflow)` when
/// the span does not fit in 64 bits (no storage can hold it). Computed
/// exactly in 128 bits and overflow-checked: never wrapped, never saturated.
fn byte_span(t: &TensorArg<'_>) -> Result<Option<(u64, u64)>, SpanOverflow> {
    let bits = u128::from(dtype_bits(t.dtype));
    if t.shape.contains(&0) {
        return Ok(None);
    }
    let fit = |v: u128| u64::try_from(v).map_err(|_| SpanOverflow);
    if t.format == StorageFormat::FractalNz {
        // Physical blocks from offset 0; strides describe no NZ element order.
        let mut elems: u128 = 1;
        for &d in t.shape {
            let d = u128::try_from(d).map_err(|_| SpanOverflow)?;
            elems = elems.checked_mul(d).ok_or(SpanOverflow)?;
        }
        let end = elems.checked_mul(bits).ok_or(SpanOverflow)?.div_ceil(8);
        return Ok(Some((0, fit(end)?)));
    }
    // Highest element index reached, relative to the offset.
    let mut last: i128 = 0;
    for (&d, &s) in t.shape.iter().zip(t.strides) {
        let term = i128::from(d - 1)
            .checked_mul(i128::from(s))
            .ok_or(SpanOverflow)?;
        last = last.checked_add(term).ok_or(SpanOverflow)?;
    }
    let first = i128::from(t.storage_offset);
    let end_elem = first
        .checked_add(last)
        .and_then(|e| e.checked_add(1))
        .ok_or(SpanOverflow)?;
    let (first, end_elem) = match (u128::try_from(first), u128::try_from(end_elem)) {
        (Ok(f), Ok(e)) => (f, e),
        _ => return Err(SpanOverflow),
    };
    let start = first.checked_mul(bits).ok_or(SpanOverflow)? / 8;
    let end = end_elem.checked_mul(bits).ok_or(SpanOverflow)?.div_ceil(8);
    Ok(Some((fit(start)?, fit(end)?)))
}

/// A view whose byte span does not fit in 64 bits.
struct SpanOverflow;

fn check_tensor(p: &Param, t: &TensorArg<'_>) -> Result<(), CallError> {
    if t.dtype != p.dtype {
        return Err(fail(CallRule::DType, p));
    }
    if t.shape.len() != p.shape.len() || t.strides.len() != t.shape.len() {
        return Err(fail(CallRule::Rank, p));
    }
    for (&have, &want) in t.shape.iter().zip(p.shape) {
        if have < 0 || (want >= 0 && have != want) {
            return Err(fail(CallRule::Shape, p));
        }
    }
    if t.storage_offset < 0 {
        return Err(fail(CallRule::StorageBounds, p));
    }
    match (p.layout, t.format) {
        (Layout::Nz, StorageFormat::FractalNz) => {
            // The physical blocks are the complete, unpadded NZ matrix.
            if t.storage_offset != 0 {
                return Err(fail(CallRule::NzOffset, p));
            }
            return match byte_span(t) {
                Ok(None) => Ok(()),
                Ok(Some((_, end))) if end <= t.storage_bytes => Ok(()),
                _ => Err(fail(CallRule::StorageBounds, p)),
            };
        }
        (Layout::Nd | Layout::Nchw, StorageFormat::Nd | StorageFormat::Nchw) => {}
        _ => return Err(fail(CallRule::Format, p)),
    }
    // An empty view is contiguous whatever its strides (as in torch) and
    // accesses nothing (`byte_span` is `Ok(None)`).
    if t.shape.contains(&0) {
        return Ok(());
    }
    // Contiguous row-major: extents of 1 may carry any stride. The expected
    // stride is overflow-checked: past i64 no stride matches. The same pass
    // adds up the view's highest element, (d - 1) * s over the extents, in
    // checked i64 arithmetic; when that overflows, the exact 128-bit
    // `byte_span` decides (an overflow is reported only once the whole view
    // is known to be contiguous).
    let mut expected: Option<i64> = Some(1);
    let mut last: Option<i64> = Some(0);
    for (&d, &s) in t.shape.iter().zip(t.strides).rev() {
        if d != 1 {
            if Some(s) != expected {
                return Err(fail(CallRule::NotContiguous, p));
            }
            last = last.and_then(|l| l.checked_add((d - 1).checked_mul(s)?));
        }
        expected = expected.and_then(|e| e.checked_mul(d));
    }
    // Packed fp4 stores the last extent two per byte; the span covers it.
    // Past the storage, or past any storage (the span overflows u64).
    let end = match last.and_then(|l| t.storage_offset.checked_add(l)?.checked_add(1)) {
        Some(end_elem) => u64::try_from(
            (u128::from(end_elem as u64) * u128::from(dtype_bits(t.dtype))).div_ceil(8),
        )
        .ok(),
        None => byte_span(t).ok().flatten().map(|(_, end)| end),
    };
    match end {
        Some(end) if end <= t.storage_bytes => Ok(()),
        _ => Err(fail(CallRule::StorageBounds, p)),
    }
}

fn check_scalar(p: &Param, v: ScalarValue) -> Result<(), CallError> {
    let (lo, hi) = match p.dtype.scalar_domain() {
        ScalarDomain::Bool => {
            return match v {
                ScalarValue::Bool(_) => Ok(()),
                _ => Err(fail(CallRule::ScalarType, p)),
            };
        }
        ScalarDomain::Float(max) => {
            let x = match v {
                ScalarValue::Float(x) => x,
                ScalarValue::Int(i) => i as f64,
                ScalarValue::Uint(u) => u as f64,
                ScalarValue::Bool(_) => return Err(fail(CallRule::ScalarType, p)),
            };
            return if x.is_finite() && x.abs() > max {
                Err(fail(CallRule::FloatOverflow, p))
            } else {
                Ok(())
            };
        }
        ScalarDomain::Int(lo, hi) => (lo, hi),
    };
    let x: i128 = match v {
        ScalarValue::Int(i) => i.into(),
        ScalarValue::Uint(u) => u.into(),
        // Floats are never truncated into integers; bools are not integers.
        ScalarValue::Float(_) | ScalarValue::Bool(_) => return Err(fail(CallRule::ScalarType, p)),
    };
    if x < lo || x > hi {
        return Err(fail(CallRule::ScalarRange, p));
    }
    Ok(())
}

/// Validate one call of `family`. `tensors` are the tensor arguments in
/// signature order (the family's tensor pool), `scalars` the scalar ones.
pub fn validate_call(
    family: &Family,
    tensors: &[TensorArg<'_>],
    scalars: &[ScalarValue],
) -> Result<(), CallError> {
    if tensors.len() != family.tensor_count as usize
        || scalars.len() != family.scalar_count as usize
    {
        return Err(CallError {
            rule: CallRule::ArgCount,
            param: None,
        });
    }
    let tensor_params = family
        .params
        .iter()
        .filter(|p| p.kind == crate::vocab::ParamKind::Tensor);
    let device = tensors.first().map_or(0, |t| t.device_index);
    for (p, t) in tensor_params.clone().zip(tensors) {
        check_tensor(p, t)?;
        if t.device_index != device {
            return Err(fail(CallRule::Device, p));
        }
    }
    let scalar_params = family
        .params
        .iter()
        .filter(|p| p.kind == crate::vocab::ParamKind::Scalar);
    for (p, &v) in scalar_params.zip(scalars) {
        check_scalar(p, v)?;
    }
    // Views of one storage: equal byte spans alias exactly, disjoint spans
    // are independent, and read-only overlap is harmless. Anything else that
    // involves a written tensor is rejected. Spans are computed only for
    // pairs that share a storage, so distinct buffers cost a comparison.
    let shares_storage = tensors
        .iter()
        .enumerate()
        .any(|(i, t)| tensors[i + 1..].iter().any(|u| u.storage == t.storage));
    if !shares_storage {
        return Ok(());
    }
    for (i, (pi, ti)) in tensor_params.clone().zip(tensors).enumerate() {
        // Every span fits: check_tensor accepted each tensor.
        let Ok(Some(si)) = byte_span(ti) else {
            continue;
        };
        for (pj, tj) in tensor_params.clone().zip(tensors).skip(i + 1) {
            if ti.storage != tj.storage
                || (pi.direction == Direction::In && pj.direction == Direction::In)
            {
                continue;
            }
            let Ok(Some(sj)) = byte_span(tj) else {
                continue;
            };
            let disjoint = si.1 <= sj.0 || sj.1 <= si.0;
            if !disjoint && si != sj {
                return Err(fail(CallRule::Overlap, pj));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::ParamKind;

    /// `check_tensor`'s contiguity and bound rules as two separate passes
    /// over `byte_span`: what the fused pass must decide exactly alike.
    fn reference(p: &Param, t: &TensorArg<'_>) -> Result<(), CallError> {
        if !t.shape.contains(&0) {
            let mut expected: Option<i64> = Some(1);
            for (&d, &s) in t.shape.iter().zip(t.strides).rev() {
                if d != 1 && Some(s) != expected {
                    return Err(fail(CallRule::NotContiguous, p));
                }
                expected = expected.and_then(|e| e.checked_mul(d));
            }
        }
        match byte_span(t) {
            Ok(None) => Ok(()),
            Ok(Some((_, end))) if end <= t.storage_bytes => Ok(()),
            _ => Err(fail(CallRule::StorageBounds, p)),
        }
    }

    #[test]
    fn fused_contiguity_and_bounds_match_the_reference() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let dims = [0i64, 1, 2, 3, 16, 1 << 20, 1 << 31, (1 << 62) - 1, i64::MAX];
        let dtypes = [
            DType::Fp32,
            DType::Bf16,
            DType::Int8,
            DType::Fp4,
            DType::Int64,
        ];
        static DYN_SHAPE: [i64; 4] = [-1; 4];
        let dyn_shape = &DYN_SHAPE;
        let mut checked = 0;
        for _ in 0..200_000 {
            let rank = 1 + (next() % 4) as usize;
            let shape: Vec<i64> = (0..rank)
                .map(|_| dims[(next() % dims.len() as u64) as usize])
                .collect();
            // Mostly contiguous strides, sometimes perturbed.
            let mut strides = vec![0i64; rank];
            let mut acc: i64 = 1;
            for k in (0..rank).rev() {
                strides[k] = acc;
                acc = acc.saturating_mul(shape[k].max(1));
            }
            if next() % 4 == 0 {
                let k = (next() % rank as u64) as usize;
                strides[k] =
                    [0, -1, 1, i64::MAX, strides[k].wrapping_add(1)][(next() % 5) as usize];
            }
            let dtype = dtypes[(next() % dtypes.len() as u64) as usize];
            let offset = [0i64, 1, 7, 1 << 40, i64::MAX][(next() % 5) as usize];
            let numel = shape
                .iter()
                .fold(1u128, |a, &d| a.saturating_mul(d as u128));
            let exact = (numel
                .saturating_mul(u128::from(dtype_bits(dtype)))
                .div_ceil(8))
            .min(u64::MAX as u128) as u64;
            let storage_bytes =
                [0, 1, exact, exact.saturating_add(8), u64::MAX][(next() % 5) as usize];
            let t = TensorArg {
                dtype,
                shape: &shape,
                strides: &strides,
                storage_offset: offset,
                storage_bytes,
                storage: 1,
                format: StorageFormat::Nd,
                device_index: 0,
            };
            let p = Param {
                name: "x",
                index: 0,
                kind: ParamKind::Tensor,
                direction: Direction::In,
                dtype,
                shape: &dyn_shape[..rank],
                layout: Layout::Nd,
                lowered_shape: &dyn_shape[..rank],
                pool_index: 0,
                doc: None,
            };
            assert_eq!(check_tensor(&p, &t), reference(&p, &t), "{t:?}");
            checked += 1;
        }
        assert_eq!(checked, 200_000);
    }
}
