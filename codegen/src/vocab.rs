//! Every closed vocabulary of the manifest, one enum each.
//!
//! Each member has a stable numeric code (emitted into C, Rust and Python) and
//! a stable spelling (the TOML value). Codes are part of the ABI: never reuse
//! or renumber one; add new members at the end.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One vocabulary as emitters see it: its name, doc and members in code order.
#[derive(Clone, Copy, Debug)]
pub struct Vocabulary {
    /// CamelCase type name, e.g. `DType`.
    pub name: &'static str,
    pub doc: &'static str,
    /// kfam's members; empty for a vocabulary the catalog declares, whose
    /// members are the IR's ([`crate::ir::Ir::members`]).
    pub members: &'static [Member<'static>],
    /// Declared by the catalog (`[[platforms]]`, ... of `abi.toml`).
    pub declared: bool,
}

impl Vocabulary {
    /// The member a record field of this vocabulary holds when a record
    /// written before the field was appended ends before it: code 0.
    pub fn absent(&self) -> &Member<'static> {
        self.members
            .iter()
            .find(|m| m.code == 0)
            .expect("an appended vocabulary field needs a member of code 0")
    }
}

/// One member of a vocabulary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member<'a> {
    /// CamelCase variant name, e.g. `Bf16`.
    pub variant: &'a str,
    /// Manifest spelling, e.g. `bf16`.
    pub spelling: &'a str,
    pub code: i32,
    pub doc: &'a str,
}

/// A vocabulary whose members the catalog declares in `abi.toml`: kfam
/// knows its name and meaning, not its members.
const fn declared(name: &'static str, doc: &'static str) -> Vocabulary {
    Vocabulary {
        name,
        doc,
        members: &[],
        declared: true,
    }
}

/// Hardware platforms (`[[platforms]]`): with each, the backends, runtimes,
/// layouts and dtypes it allows.
pub const PLATFORM: Vocabulary = declared("Platform", "Hardware platform an artifact targets.");
/// Compiler backends (`[[backends]]`).
pub const BACKEND: Vocabulary = declared("Backend", "Compiler backend that produced an artifact.");
/// Launch runtimes (`[[runtimes]]`).
pub const RUNTIME: Vocabulary = declared("Runtime", "Runtime that launches an artifact.");
/// Execution modes (`[[execution_modes]]`).
pub const EXECUTION_MODE: Vocabulary = declared(
    "ExecutionMode",
    "Whether an artifact runs on a simulator or on the device.",
);

macro_rules! vocab {
    (
        $(#[doc = $doc:literal])*
        $name:ident {
            $( $(#[doc = $vdoc:literal])* $variant:ident = $code:literal => $text:literal, )+
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, Serialize, JsonSchema)]
        pub enum $name {
            $( $(#[doc = $vdoc])* #[serde(rename = $text)] $variant, )+
        }

        impl $name {
            /// Every member, in code order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The vocabulary's name as the generators spell it (CamelCase).
            pub const NAME: &'static str = stringify!($name);
            /// Emitters' view of this vocabulary.
            pub const VOCABULARY: Vocabulary = Vocabulary {
                name: stringify!($name),
                doc: concat!("" $(, $doc)*),
                members: &[$( Member {
                    variant: stringify!($variant),
                    spelling: $text,
                    code: $code,
                    doc: concat!("" $(, $vdoc)*),
                } ),+],
                declared: false,
            };

            /// The stable numeric code.
            pub const fn code(self) -> i32 {
                match self { $($name::$variant => $code),+ }
            }

            /// The manifest spelling.
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// This member as the emitters see it.
            pub fn member(self) -> &'static Member<'static> {
                Self::VOCABULARY
                    .members
                    .iter()
                    .find(|m| m.code == self.code())
                    .expect("every variant is a member")
            }

            /// The Rust variant name (CamelCase), for emitters.
            pub const fn variant_name(self) -> &'static str {
                match self { $($name::$variant => stringify!($variant)),+ }
            }

            pub fn from_str_opt(s: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == s)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
pub(crate) use vocab;

vocab! {
    /// Element type. Codes follow the native runtime's dtype tags.
    DType {
        Fp32 = 0 => "fp32",
        Fp16 = 1 => "fp16",
        Int32 = 2 => "int32",
        Int16 = 3 => "int16",
        Int8 = 4 => "int8",
        Uint8 = 5 => "uint8",
        Bf16 = 6 => "bf16",
        Int64 = 7 => "int64",
        Uint64 = 8 => "uint64",
        Uint16 = 9 => "uint16",
        Uint32 = 10 => "uint32",
        Bool = 11 => "bool",
        Fp8e4m3fn = 12 => "fp8e4m3fn",
        Fp8e8m0 = 13 => "fp8e8m0",
        /// Packed 4-bit float: two elements per byte along the last dimension.
        Fp4 = 14 => "fp4",
    }
}

vocab! {
    /// Data flow of a parameter. Scalars are always `in`.
    Direction {
        In = 0 => "in",
        Out = 1 => "out",
        InOut = 2 => "inout",
    }
}

vocab! {
    /// Whether a parameter is a tensor or a scalar.
    ParamKind {
        Tensor = 0 => "tensor",
        Scalar = 1 => "scalar",
    }
}

vocab! {
    /// Storage layout of a tensor parameter.
    Layout {
        /// Row-major contiguous (the default).
        Nd = 0 => "nd",
        /// Row-major contiguous, rank 4, batch/channel/height/width.
        Nchw = 1 => "nchw",
        /// Ascend fractal blocked layout; lowered to `[prod(leading), C/c0, R/16, 16, c0]`.
        Nz = 2 => "nz",
    }
}

vocab! {
    /// Calling rules of a family. Exactly one per family; never both.
    Contract {
        Program = 0 => "program",
        Kernel = 1 => "kernel",
    }
}

vocab! {
    /// Kind of a final-ABI binding slot.
    BindingKind {
        /// A device buffer object (XRT BO).
        BufferObject = 0 => "buffer_object",
        /// A tensor argument slot of the launch arguments.
        TensorArg = 1 => "tensor_arg",
        /// A typed scalar slot of the launch arguments.
        ScalarArg = 2 => "scalar_arg",
    }
}

vocab! {
    /// Elementwise binary operator.
    BinaryOp {
        Add = 0 => "add",
        Sub = 1 => "sub",
        Mul = 2 => "mul",
        Div = 3 => "div",
        Max = 4 => "max",
        Min = 5 => "min",
    }
}

vocab! {
    /// Elementwise unary operator.
    UnaryOp {
        Neg = 0 => "neg",
        Abs = 1 => "abs",
        Exp = 2 => "exp",
        Log = 3 => "log",
        Sqrt = 4 => "sqrt",
        /// `1 / sqrt(x)`.
        Rsqrt = 5 => "rsqrt",
        Relu = 6 => "relu",
        Gelu = 7 => "gelu",
        /// `x * sigmoid(x)`.
        Silu = 8 => "silu",
        Sigmoid = 9 => "sigmoid",
        Tanh = 10 => "tanh",
        /// Conversion to the output's dtype: the only operator whose output
        /// dtype may differ from its input's.
        Cast = 11 => "cast",
        /// GELU by its tanh approximation,
        /// `0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))`
        /// (`F.gelu(x, approximate="tanh")`, GPT-2's activation).
        GeluTanh = 12 => "gelu_tanh",
    }
}

vocab! {
    /// Reduction operator.
    ReduceOp {
        Sum = 0 => "sum",
        Max = 1 => "max",
        Min = 2 => "min",
        Mean = 3 => "mean",
    }
}

vocab! {
    /// Normalization over one axis.
    NormKind {
        /// `x / sqrt(mean(x^2) + eps) * weight`.
        RmsNorm = 0 => "rms_norm",
        /// `(x - mean(x)) / sqrt(var(x) + eps) * weight + bias`.
        LayerNorm = 1 => "layer_norm",
    }
}

vocab! {
    /// How a paged key/value cache lays out its blocks (`B` blocks of `T`
    /// tokens, `H_kv` heads of size `D`).
    CacheLayout {
        /// Key and value caches `[B, T, H_kv, D]` (vLLM v1, flash-attn, FlashInfer NHD).
        Nhd = 0 => "nhd",
        /// Key and value caches `[B, H_kv, T, D]` (FlashInfer HND).
        Hnd = 1 => "hnd",
        /// Key cache `[B, H_kv, D / x, T, x]` with `x` elements in 16 bytes, value
        /// cache `[B, H_kv, D, T]` (vLLM's paged attention kernels).
        XPacked = 2 => "x_packed",
        /// One cache `[B, 2, T, H_kv, D]`, keys at index 0 of axis 1 and values at 1.
        CombinedNhd = 3 => "combined_nhd",
        /// One cache `[B, 2, H_kv, T, D]`, keys at index 0 of axis 1 and values at 1.
        CombinedHnd = 4 => "combined_hnd",
    }
}

vocab! {
    /// How a `linear` weight stores its two axes.
    WeightLayout {
        /// `[N, K]`: output features first, as `nn.Linear` and checkpoints
        /// store it (`out = input @ weight^T`).
        Nk = 0 => "nk",
        /// `[K, N]`: input features first (GPT-2's `Conv1D`, `x @ w`).
        Kn = 1 => "kn",
        /// `[E, N, K]`: a batch of `E` weights as `nk`, the activations
        /// `[E, T, K]` (grouped expert layers, `bmm` with `w^T`).
        Enk = 2 => "enk",
        /// `[E, K, N]`: a batch of `E` weights as `kn` (`bmm`).
        Ekn = 3 => "ekn",
    }
}

/// Where a cache layout keeps each extent of one cache tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheAxes {
    pub rank: usize,
    pub blocks: usize,
    pub block_size: usize,
    pub kv_heads: usize,
    /// The head size `D`; for `x_packed`'s key cache, the axis of `D / x`.
    pub head_size: usize,
    /// `x_packed`'s key cache: the axis of `x`.
    pub x: Option<usize>,
    /// Combined layouts: the axis of extent 2 that selects keys or values.
    pub pair: Option<usize>,
}

impl CacheLayout {
    /// The layout of a manifest that names none, and of a description
    /// written before layouts were declared.
    pub const DEFAULT: CacheLayout = CacheLayout::Nhd;

    /// Whether keys and values are one tensor (`key_cache` and
    /// `value_cache` name the same parameter).
    pub const fn combined(self) -> bool {
        matches!(self, CacheLayout::CombinedNhd | CacheLayout::CombinedHnd)
    }

    /// The axes of the key cache (`key`) or of the value cache.
    pub const fn axes(self, key: bool) -> CacheAxes {
        const fn four(
            blocks: usize,
            block_size: usize,
            kv_heads: usize,
            head_size: usize,
        ) -> CacheAxes {
            CacheAxes {
                rank: 4,
                blocks,
                block_size,
                kv_heads,
                head_size,
                x: None,
                pair: None,
            }
        }
        match self {
            CacheLayout::Nhd => four(0, 1, 2, 3),
            CacheLayout::Hnd => four(0, 2, 1, 3),
            CacheLayout::XPacked if key => CacheAxes {
                rank: 5,
                x: Some(4),
                ..four(0, 3, 1, 2)
            },
            CacheLayout::XPacked => four(0, 3, 1, 2),
            CacheLayout::CombinedNhd => CacheAxes {
                rank: 5,
                pair: Some(1),
                ..four(0, 2, 3, 4)
            },
            CacheLayout::CombinedHnd => CacheAxes {
                rank: 5,
                pair: Some(1),
                ..four(0, 3, 2, 4)
            },
        }
    }

    /// The cache's shape in the layout's own letters, for messages.
    pub const fn shape_text(self, key: bool) -> &'static str {
        match (self, key) {
            (CacheLayout::Nhd, _) => "[num_blocks, block_size, H_kv, D]",
            (CacheLayout::Hnd, _) => "[num_blocks, H_kv, block_size, D]",
            (CacheLayout::XPacked, true) => "[num_blocks, H_kv, D / x, block_size, x]",
            (CacheLayout::XPacked, false) => "[num_blocks, H_kv, D, block_size]",
            (CacheLayout::CombinedNhd, _) => "[num_blocks, 2, block_size, H_kv, D]",
            (CacheLayout::CombinedHnd, _) => "[num_blocks, 2, H_kv, block_size, D]",
        }
    }
}

vocab! {
    /// Status codes of the native C ABI; their values are declared in `abi.toml`.
    Status {
        Ok = 0 => "ok",
        Internal = 1 => "internal",
        Unsupported = 2 => "unsupported",
        PreparedIncompatible = 3 => "prepared_incompatible",
        InvalidState = 4 => "invalid_state",
        InvalidArgument = 5 => "invalid_argument",
        NotFound = 6 => "not_found",
        RecompileRequired = 7 => "recompile_required",
        NotApproved = 8 => "not_approved",
    }
}

vocab! {
    /// Physical storage format of a tensor argument (the native format tags).
    StorageFormat {
        Nchw = 0 => "nchw",
        Nd = 2 => "nd",
        /// Ascend fractal NZ; accepted only for parameters declared `nz`.
        FractalNz = 29 => "fractal_nz",
    }
}

vocab! {
    /// Type tag of a scalar argument's value.
    ScalarValueKind {
        Bool = 0 => "bool",
        Int = 1 => "int",
        Uint = 2 => "uint",
        Float = 3 => "float",
    }
}

vocab! {
    /// The verdict of call validation. 0 is never a verdict, so a zeroed
    /// result that a refused call left unwritten cannot read as accepted.
    CallRule {
        /// The call itself was refused (NULL family or descriptor array,
        /// short `struct_size`, unknown code): nothing was decided.
        InvalidCall = 0 => "invalid_call",
        /// The call is valid.
        Ok = 1 => "ok",
        /// Wrong number of tensor or scalar arguments.
        ArgCount = 2 => "arg_count",
        DType = 3 => "dtype",
        Rank = 4 => "rank",
        /// A static extent differs, or an extent is negative.
        Shape = 5 => "shape",
        /// Storage format not accepted for the parameter's layout.
        Format = 6 => "format",
        /// Strides do not describe a contiguous row-major view.
        NotContiguous = 7 => "not_contiguous",
        /// NZ tensors must start at storage offset 0.
        NzOffset = 8 => "nz_offset",
        /// A nonempty view reaches past its storage, or the offset is negative.
        StorageBounds = 9 => "storage_bounds",
        /// Tensors are on different devices.
        Device = 10 => "device",
        /// Partial overlap of views where one is written.
        Overlap = 11 => "overlap",
        /// A scalar value of the wrong kind (a float for an integer, ...).
        ScalarType = 12 => "scalar_type",
        /// An integer scalar outside its declared type's range.
        ScalarRange = 13 => "scalar_range",
        /// A finite float scalar beyond its declared type's largest value.
        FloatOverflow = 14 => "float_overflow",
        /// Two extents of one named symbol differ.
        DimMismatch = 15 => "dim_mismatch",
        /// A named symbol's extent breaks its `[dims]` constraints (min, max, multiple_of).
        DimRange = 16 => "dim_range",
        /// A tensor's data address (its storage's base address plus the
        /// offset's bytes) is not a multiple of its declared `alignment`.
        Alignment = 17 => "alignment",
    }
}

vocab! {
    /// The answer of a capability query. 0 is never a decision, so a zeroed
    /// result that a refused call left unwritten cannot read as supported.
    Capability {
        /// The call itself was refused (NULL or unknown argument, short
        /// `struct_size`): nothing was decided.
        InvalidCall = 0 => "invalid_call",
        Supported = 1 => "supported",
        UnknownFamily = 2 => "unknown_family",
        /// The family declares the other contract.
        ContractMismatch = 3 => "contract_mismatch",
        /// No profile for this platform and execution mode.
        NoProfile = 4 => "no_profile",
        /// A profile exists but no artifact qualified on it.
        NoReceipt = 5 => "no_receipt",
        /// The family was approved and then retired (`retired.toml`).
        Retired = 6 => "retired",
        /// A profile exists, but its only receipts are placeholders (a
        /// digest of 32 leading zero hex digits, as `kfam new` writes): no
        /// qualified artifact exists.
        Unqualified = 7 => "unqualified",
    }
}

vocab! {
    /// Outcome of artifact admission. 0 is never a decision, so a zeroed
    /// result that a refused call left unwritten cannot read as admitted.
    Admission {
        /// The call itself was refused (NULL or unknown argument, short
        /// `struct_size`): nothing was decided.
        InvalidCall = 0 => "invalid_call",
        Admitted = 1 => "admitted",
        /// Not valid JSON, wrong types, duplicate or unknown keys, too large.
        Malformed = 2 => "malformed",
        /// Names a family that is not approved.
        UnknownFamily = 3 => "unknown_family",
        /// Legacy or incomplete kernel metadata: the artifact must be rebuilt.
        RecompileRequired = 4 => "recompile_required",
        /// A field differs from every approved family, profile and receipt.
        NotApproved = 5 => "not_approved",
        /// Built against another native runtime revision than `abi.toml` pins.
        PreparedIncompatible = 6 => "prepared_incompatible",
        /// The document names a retired family, or (schema 1 and 2) the
        /// artifact is one of a retired family's.
        Retired = 7 => "retired",
    }
}

/// What a scalar parameter of some dtype accepts ([`DType::scalar_domain`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarDomain {
    /// Only a bool.
    Bool,
    /// An integer in `[lo, hi]`; no float (never truncated), no bool.
    Int(i128, i128),
    /// Any number (int or float, not bool) whose magnitude, when finite, is
    /// at most this largest finite value; inf and nan pass.
    Float(f64),
}

impl DType {
    /// Storage size of one element in bits.
    pub const fn bits(self) -> u32 {
        match self {
            DType::Fp4 => 4,
            DType::Bool | DType::Int8 | DType::Uint8 | DType::Fp8e4m3fn | DType::Fp8e8m0 => 8,
            DType::Fp16 | DType::Bf16 | DType::Int16 | DType::Uint16 => 16,
            DType::Fp32 | DType::Int32 | DType::Uint32 => 32,
            DType::Int64 | DType::Uint64 => 64,
        }
    }

    /// What a scalar argument of this dtype accepts (call validation in
    /// every language). Exhaustive: a new dtype needs a domain to compile.
    pub const fn scalar_domain(self) -> ScalarDomain {
        match self {
            DType::Bool => ScalarDomain::Bool,
            DType::Int8 => ScalarDomain::Int(i8::MIN as i128, i8::MAX as i128),
            DType::Int16 => ScalarDomain::Int(i16::MIN as i128, i16::MAX as i128),
            DType::Int32 => ScalarDomain::Int(i32::MIN as i128, i32::MAX as i128),
            DType::Int64 => ScalarDomain::Int(i64::MIN as i128, i64::MAX as i128),
            DType::Uint8 => ScalarDomain::Int(0, u8::MAX as i128),
            DType::Uint16 => ScalarDomain::Int(0, u16::MAX as i128),
            DType::Uint32 => ScalarDomain::Int(0, u32::MAX as i128),
            DType::Uint64 => ScalarDomain::Int(0, u64::MAX as i128),
            DType::Fp32 => ScalarDomain::Float(f32::MAX as f64),
            DType::Fp16 => ScalarDomain::Float(65504.0),
            DType::Bf16 => ScalarDomain::Float(3.389_531_389_251_535_5e38),
            DType::Fp8e4m3fn => ScalarDomain::Float(448.0),
            DType::Fp8e8m0 => ScalarDomain::Float(1.701_411_834_604_692_3e38),
            DType::Fp4 => ScalarDomain::Float(6.0),
        }
    }

    pub const fn is_float(self) -> bool {
        matches!(
            self,
            DType::Fp32
                | DType::Fp16
                | DType::Bf16
                | DType::Fp8e4m3fn
                | DType::Fp8e8m0
                | DType::Fp4
        )
    }

    /// Whether a scalar parameter may have this dtype (sub-byte and 8-bit
    /// float formats have no scalar representation on the host).
    pub const fn scalar_allowed(self) -> bool {
        !matches!(self, DType::Fp8e4m3fn | DType::Fp8e8m0 | DType::Fp4)
    }

    /// The `torch` dtype (attribute of the `torch` module) a tensor of this
    /// dtype has. Packed fp4 uses PyTorch's two-per-byte carrier, whose last
    /// extent is half the logical one. Exhaustive: a new dtype needs a
    /// spelling (or a `kfam check` refusal for torch families) to compile.
    pub const fn torch_dtype(self) -> &'static str {
        match self {
            DType::Fp32 => "float32",
            DType::Fp16 => "float16",
            DType::Bf16 => "bfloat16",
            DType::Int8 => "int8",
            DType::Int16 => "int16",
            DType::Int32 => "int32",
            DType::Int64 => "int64",
            DType::Uint8 => "uint8",
            DType::Uint16 => "uint16",
            DType::Uint32 => "uint32",
            DType::Uint64 => "uint64",
            DType::Bool => "bool",
            DType::Fp8e4m3fn => "float8_e4m3fn",
            DType::Fp8e8m0 => "float8_e8m0fnu",
            DType::Fp4 => "float4_e2m1fn_x2",
        }
    }

    /// The dispatcher schema type of a scalar parameter of this dtype:
    /// `bool`, `float`, or `SymInt` for integers (symbolic integers pass
    /// through dispatch). `None` for uint64, beyond the signed `SymInt`.
    pub const fn torch_scalar(self) -> Option<&'static str> {
        match self {
            DType::Uint64 => None,
            DType::Bool => Some("bool"),
            d if d.is_float() => Some("float"),
            _ => Some("SymInt"),
        }
    }

    /// Whether NZ (fractal) layout is defined for this dtype.
    pub const fn nz_allowed(self) -> bool {
        matches!(self, DType::Fp16 | DType::Bf16 | DType::Int8)
    }
}

/// The dtype classes an operator's domain is stated over
/// ([`DType::class`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DTypeClass {
    Float,
    Signed,
    Unsigned,
    Bool,
}

impl DType {
    pub const fn class(self) -> DTypeClass {
        match self {
            DType::Bool => DTypeClass::Bool,
            DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => DTypeClass::Signed,
            DType::Uint8 | DType::Uint16 | DType::Uint32 | DType::Uint64 => DTypeClass::Unsigned,
            _ => DTypeClass::Float,
        }
    }
}

// What each operator means on each dtype class (docs/manifest.md,
// "Operators and dtypes"). Integer arithmetic wraps in the operand dtype,
// as two's complement (signed) or modulo 2^bits (unsigned), which is what
// PyTorch does; a pair with no single result in its dtype (the mean of
// integers, integer division, the negation of an unsigned value,
// arithmetic on bool) is refused, with the reason these return.

impl BinaryOp {
    /// `None` when the operator is defined on operands of class `class`; the
    /// reason otherwise.
    pub const fn refusal(self, class: DTypeClass) -> Option<&'static str> {
        match (self, class) {
            (_, DTypeClass::Float) | (BinaryOp::Max | BinaryOp::Min, _) => None,
            (BinaryOp::Div, DTypeClass::Signed | DTypeClass::Unsigned) => Some(
                "integer division has no single result in an integer dtype (truncated, floored or true division)",
            ),
            (_, DTypeClass::Bool) => Some("arithmetic is not defined on bool"),
            _ => None,
        }
    }
}

impl UnaryOp {
    /// `None` when the operator is defined on an input of class `class`;
    /// the reason otherwise.
    pub const fn refusal(self, class: DTypeClass) -> Option<&'static str> {
        match (self, class) {
            (_, DTypeClass::Float) | (UnaryOp::Cast, _) => None,
            (UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Relu, DTypeClass::Bool) => {
                Some("arithmetic is not defined on bool")
            }
            (UnaryOp::Neg, DTypeClass::Unsigned) => {
                Some("the negation of an unsigned value is not representable in its dtype")
            }
            (UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Relu, _) => None,
            _ => Some("a float-only operator (its result is not an integer)"),
        }
    }
}

impl ReduceOp {
    /// `None` when the reduction is defined on an input of class `class`;
    /// the reason otherwise.
    pub const fn refusal(self, class: DTypeClass) -> Option<&'static str> {
        match (self, class) {
            (_, DTypeClass::Float) | (ReduceOp::Max | ReduceOp::Min, _) => None,
            (ReduceOp::Mean, _) => Some(
                "the mean of integers has no single result in an integer dtype (it needs a rounding rule)",
            ),
            (ReduceOp::Sum, DTypeClass::Bool) => Some("arithmetic is not defined on bool"),
            (ReduceOp::Sum, _) => None,
        }
    }
}

// The C ABI status each decision outcome is reported with (docs/conformance.md);
// emitted into every language from here.
impl Capability {
    pub const fn status(self) -> Status {
        match self {
            Capability::InvalidCall => Status::InvalidArgument,
            Capability::Supported => Status::Ok,
            Capability::UnknownFamily => Status::NotFound,
            Capability::ContractMismatch | Capability::NoProfile => Status::Unsupported,
            Capability::NoReceipt | Capability::Unqualified => Status::NotApproved,
            // Known, but in a state that allows nothing: evict, do not retry.
            Capability::Retired => Status::InvalidState,
        }
    }
}

impl Admission {
    pub const fn status(self) -> Status {
        match self {
            Admission::InvalidCall => Status::InvalidArgument,
            Admission::Admitted => Status::Ok,
            Admission::Malformed => Status::InvalidArgument,
            Admission::UnknownFamily => Status::NotFound,
            Admission::RecompileRequired => Status::RecompileRequired,
            Admission::NotApproved => Status::NotApproved,
            Admission::PreparedIncompatible => Status::PreparedIncompatible,
            Admission::Retired => Status::InvalidState,
        }
    }
}

impl CallRule {
    pub const fn status(self) -> Status {
        match self {
            CallRule::Ok => Status::Ok,
            _ => Status::InvalidArgument,
        }
    }
}
