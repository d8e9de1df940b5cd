//! Call validation (the seed's CallFrame rules): argument descriptors and
//! typed scalars checked against a family's signature. No heap allocation.

use crate::types::{Family, Param};
use crate::vocab::{CallRule, DType, Direction, Layout, ScalarValueKind, StorageFormat};

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

/// Element size in bits of a dtype.
pub const fn dtype_bits(d: DType) -> u64 {
    match d {
        DType::Fp4 => 4,
        DType::Bool | DType::Int8 | DType::Uint8 | DType::Fp8e4m3fn | DType::Fp8e8m0 => 8,
        DType::Fp16 | DType::Bf16 | DType::Int16 | DType::Uint16 => 16,
        DType::Fp32 | DType::Int32 | DType::Uint32 => 32,
        DType::Int64 | DType::Uint64 => 64,
    }
}

/// Byte span `[start, end)` a tensor view touches in its storage; `None`
/// when the view is empty (it accesses nothing).
#[inline]
fn byte_span(t: &TensorArg<'_>) -> Option<(u64, u64)> {
    let bits = dtype_bits(t.dtype);
    if t.format != StorageFormat::FractalNz {
        // Highest element index reached, relative to the offset; one pass
        // that also notices an empty view.
        let mut last: u64 = 0;
        for (&d, &s) in t.shape.iter().zip(t.strides) {
            if d == 0 {
                return None;
            }
            last = last.saturating_add((d as u64 - 1).saturating_mul(s as u64));
        }
        if t.shape.len() > t.strides.len() && t.shape[t.strides.len()..].contains(&0) {
            return None;
        }
        let first = t.storage_offset as u64;
        let end_elem = first.saturating_add(last).saturating_add(1);
        return Some((
            first.saturating_mul(bits) / 8,
            end_elem.saturating_mul(bits).div_ceil(8),
        ));
    }
    if t.shape.contains(&0) {
        return None;
    }
    // Physical blocks from offset 0; strides describe no NZ element order.
    let elems = t
        .shape
        .iter()
        .fold(1u64, |a, &d| a.saturating_mul(d as u64));
    Some((0, elems.saturating_mul(bits).div_ceil(8)))
}

#[inline]
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
            let elems = t
                .shape
                .iter()
                .try_fold(1u64, |a, &d| a.checked_mul(d as u64));
            let bytes = elems
                .and_then(|e| e.checked_mul(dtype_bits(t.dtype)))
                .map(|b| b.div_ceil(8));
            match bytes {
                Some(b) if b <= t.storage_bytes => {}
                _ => return Err(fail(CallRule::StorageBounds, p)),
            }
            return Ok(());
        }
        (Layout::Nd | Layout::Nchw, StorageFormat::Nd | StorageFormat::Nchw) => {}
        _ => return Err(fail(CallRule::Format, p)),
    }
    // Contiguous row-major: extents of 1 may carry any stride (as in torch).
    // The same pass computes the view's highest element, as `byte_span`
    // does (saturating sums do not depend on the order of their terms).
    let mut expected: i64 = 1;
    let mut last: u64 = 0;
    let mut empty = false;
    for (&d, &s) in t.shape.iter().zip(t.strides).rev() {
        if d != 1 && s != expected {
            return Err(fail(CallRule::NotContiguous, p));
        }
        expected = expected.saturating_mul(d.max(1));
        if d == 0 {
            empty = true;
        } else {
            last = last.saturating_add((d as u64 - 1).saturating_mul(s as u64));
        }
    }
    // An empty view accesses nothing. Packed fp4 stores the last extent two
    // per byte; the span covers it.
    if !empty {
        let bits = dtype_bits(t.dtype);
        let end_elem = (t.storage_offset as u64).saturating_add(last).saturating_add(1);
        if end_elem.saturating_mul(bits).div_ceil(8) > t.storage_bytes {
            return Err(fail(CallRule::StorageBounds, p));
        }
    }
    Ok(())
}

fn check_scalar(p: &Param, v: ScalarValue) -> Result<(), CallError> {
    let (lo, hi): (i128, i128) = match p.dtype {
        DType::Bool => {
            return match v {
                ScalarValue::Bool(_) => Ok(()),
                _ => Err(fail(CallRule::ScalarType, p)),
            };
        }
        DType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        DType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        DType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        DType::Int64 => (i64::MIN.into(), i64::MAX.into()),
        DType::Uint8 => (0, u8::MAX.into()),
        DType::Uint16 => (0, u16::MAX.into()),
        DType::Uint32 => (0, u32::MAX.into()),
        DType::Uint64 => (0, u64::MAX.into()),
        DType::Fp32
        | DType::Fp16
        | DType::Bf16
        | DType::Fp8e4m3fn
        | DType::Fp8e8m0
        | DType::Fp4 => {
            let max = float_max(p.dtype);
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

/// Largest finite value of a float dtype.
pub fn float_max(d: DType) -> f64 {
    match d {
        DType::Fp16 => 65504.0,
        DType::Bf16 => 3.3895313892515355e38,
        DType::Fp8e4m3fn => 448.0,
        DType::Fp8e8m0 => 1.7014118346046923e38,
        DType::Fp4 => 6.0,
        _ => f32::MAX as f64,
    }
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
        let mut si: Option<Option<(u64, u64)>> = None;
        for (pj, tj) in tensor_params.clone().zip(tensors).skip(i + 1) {
            if ti.storage != tj.storage
                || (pi.direction == Direction::In && pj.direction == Direction::In)
            {
                continue;
            }
            let Some(si) = *si.get_or_insert_with(|| byte_span(ti)) else {
                break; // an empty view accesses nothing
            };
            let Some(sj) = byte_span(tj) else { continue };
            let disjoint = si.1 <= sj.0 || sj.1 <= si.0;
            if !disjoint && si != sj {
                return Err(fail(CallRule::Overlap, pj));
            }
        }
    }
    Ok(())
}
