//! The record types of the generated tables. The data (and the vocabulary
//! enums) are generated from the manifest into `generated/rust/`; these
//! definitions are the stable shape both the generated file and the
//! `kfam_macros::manifest!` expansion fill in.

use crate::vocab::{
    Backend, BinaryOp, BindingKind, Contract, DType, Direction, ExecutionMode, Layout, NormKind,
    ParamKind, Platform, ReduceOp, Runtime, UnaryOp,
};

/// The native ABI the artifacts target (`manifest/abi.toml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Abi {
    /// Native runtime commit (40 lowercase hex digits).
    pub revision: &'static str,
    pub major: u16,
    pub minor: u16,
    pub max_tensor_args: u32,
    pub max_scalar_args: u32,
    pub max_rank: u32,
    /// Most callables one kernel context holds prepared (the default limit
    /// of [`Context::new`](crate::Context::new)).
    pub max_prepared: u32,
}

/// One approved kernel family revision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Family {
    pub name: &'static str,
    pub revision: u32,
    pub summary: &'static str,
    pub contract: Contract,
    /// Whether a torch dispatcher schema is offered.
    pub torch: bool,
    pub operation: Operation,
    /// The ordered logical signature (ParamInfo).
    pub params: &'static [Param],
    /// Return aliases: indices into `params`, repeats kept.
    pub returns: &'static [u32],
    pub profiles: &'static [Profile],
    pub receipts: &'static [Receipt],
    pub tensor_count: u32,
    pub scalar_count: u32,
    /// SHA-256 (lowercase hex) of the family's canonical identity.
    pub identity: &'static str,
    /// The torch dispatcher schema; `None` when a uint64 scalar makes the
    /// signature unrepresentable in torch.
    pub torch_schema: Option<&'static str>,
    /// Named symbolic dimensions: extents a call must pass equal, and their
    /// constraints. Empty when every dynamic extent is an anonymous `-1`.
    pub symbols: &'static [Symbol],
}

/// A named symbolic dimension (`shape = ["rows", 256]`) and its `[dims]`
/// constraints, checked by `validate_call`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: &'static str,
    /// Smallest accepted extent (0 when unconstrained).
    pub min: i64,
    /// Largest accepted extent (`i64::MAX` when unbounded).
    pub max: i64,
    /// Accepted extents are multiples of this (1 when unconstrained).
    pub multiple_of: i64,
    /// Every extent that is this symbol, in signature order; at least one.
    pub uses: &'static [DimUse],
}

/// One extent that is a named symbol: axis `axis` of parameter `param`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DimUse {
    /// Index into `Family::params`.
    pub param: u32,
    /// The parameter's index among the family's tensors (its argument).
    pub tensor: u32,
    pub axis: u32,
}

/// The typed operation payload; operands are indices into `Family::params`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operation {
    ElementwiseBinary {
        op: BinaryOp,
        lhs: u32,
        rhs: u32,
        out: u32,
    },
    Matmul {
        m: i64,
        k: i64,
        n: i64,
        a: u32,
        b: u32,
        c: u32,
        accumulate: bool,
    },
    /// `out = op(input)`; only `Cast` changes the dtype.
    ElementwiseUnary { op: UnaryOp, input: u32, out: u32 },
    /// `out = op(input)` over `axes` (sorted, distinct); reduced axes are
    /// dropped, or kept with extent 1 when `keepdim`.
    Reduce {
        op: ReduceOp,
        input: u32,
        out: u32,
        axes: &'static [u32],
        keepdim: bool,
    },
    /// `out = softmax(input)` along `axis`.
    Softmax { input: u32, out: u32, axis: u32 },
    /// RMSNorm or LayerNorm along `axis`; `bias` only for LayerNorm.
    Norm {
        op: NormKind,
        input: u32,
        weight: u32,
        bias: Option<u32>,
        out: u32,
        axis: u32,
        eps: ScalarRef,
    },
    /// Decode attention over a paged KV cache: query `[B, H, D]`, caches
    /// `[num_blocks, block_size, H_kv, D]`, int32 block table
    /// `[B, max_blocks]`, int32 context lengths `[B]`, out `[B, H, D]`.
    PagedAttentionDecode {
        query: u32,
        key_cache: u32,
        value_cache: u32,
        block_table: u32,
        context_lens: u32,
        out: u32,
        scale: ScalarRef,
    },
    /// A fused kernel described by its signature and this text alone; no
    /// relation between its operands was checked.
    Custom { semantics: &'static str },
}

/// A scalar operand of an operation (`eps`, `scale`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarRef {
    /// A constant fixed by the family.
    Constant(f64),
    /// The scalar parameter at this index of `Family::params`, passed at call time.
    Param(u32),
}

/// One parameter of the signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    /// Position in the complete signature.
    pub index: u32,
    pub kind: ParamKind,
    pub direction: Direction,
    pub dtype: DType,
    /// Logical shape; empty for scalars; `-1` is dynamic.
    pub shape: &'static [i64],
    pub layout: Layout,
    /// Assembly shape (NZ blocked, fp4 packed).
    pub lowered_shape: &'static [i64],
    /// Index among the family's tensors, or among its scalars.
    pub pool_index: u32,
    pub doc: Option<&'static str>,
}

/// Where and how an artifact runs, with its final-ABI bindings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    pub name: &'static str,
    pub platform: Platform,
    pub backend: Backend,
    pub runtime: Runtime,
    pub execution_mode: ExecutionMode,
    /// Sorted by slot.
    pub bindings: &'static [Binding],
}

/// A parameter placed into a launch slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    pub param: u32,
    pub slot: u32,
    pub kind: BindingKind,
}

/// One artifact that passed qualification on one profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Receipt {
    /// Index into `Family::profiles`.
    pub profile: u32,
    pub codec: &'static str,
    pub artifact: &'static str,
    pub sha256: &'static str,
    pub evidence: Evidence,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evidence {
    pub date: &'static str,
    pub hardware: &'static str,
    pub note: Option<&'static str>,
}

/// A family that was approved and then retired (`manifest/retired.toml`):
/// its name and artifacts are refused as retired, not as unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Retired {
    pub name: &'static str,
    /// The last approved revision and its identity digest.
    pub revision: u32,
    pub identity: &'static str,
    pub reason: &'static str,
    /// Every artifact digest the lock recorded for it, sorted.
    pub receipts: &'static [&'static str],
}
