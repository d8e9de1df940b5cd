# @generated from codegen/src/emit/python/vocab.rs: rebuild with `KFAM_BLESS=1 cargo test -p kfam-codegen --test integration sourcegen::`; do not edit
"""Closed vocabularies of the kfam manifest: one ``IntEnum`` each, valued by the stable code.

A member's name is its manifest spelling in upper case (``DType.BF16`` is ``"bf16"``).
Codes are part of the ABI: they never change meaning. ``Status`` and the target vocabularies
(``Platform``, ``Backend``, ``Runtime``, ``ExecutionMode``) are each catalog's: here they are
bases without members, which a catalog's ``_abi`` module subclasses with its own; the maps
below name ``Status`` members.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum, unique
from typing import Final, TypeVar

_VocabT = TypeVar("_VocabT", bound="Vocab")


class Vocab(IntEnum):
    """Base of every vocabulary."""

    @property
    def spelling(self) -> str:
        """The manifest spelling, e.g. ``"bf16"``."""
        return self.name.lower()

    @classmethod
    def from_spelling(cls: type[_VocabT], text: str) -> _VocabT:
        """The member spelled ``text`` in the manifest; ``ValueError`` when there is none."""
        for m in cls:
            if m.spelling == text:
                return m
        raise ValueError(f"{text!r} is not a {cls.__name__} spelling")


__all__ = [
    "Admission",
    "BinaryOp",
    "BindingKind",
    "CacheLayout",
    "CallRule",
    "Capability",
    "Contract",
    "DType",
    "Direction",
    "Layout",
    "NormKind",
    "OperationKind",
    "ParamKind",
    "ReduceOp",
    "ScalarValueKind",
    "StorageFormat",
    "UnaryOp",
    "WeightLayout",
]


@unique
class DType(Vocab):
    "Element type. Codes follow the native runtime's dtype tags."

    FP32 = 0
    FP16 = 1
    INT32 = 2
    INT16 = 3
    INT8 = 4
    UINT8 = 5
    BF16 = 6
    INT64 = 7
    UINT64 = 8
    UINT16 = 9
    UINT32 = 10
    BOOL = 11
    FP8E4M3FN = 12
    FP8E8M0 = 13
    #: Packed 4-bit float: two elements per byte along the last dimension.
    FP4 = 14

    @property
    def bits(self) -> int:
        """Storage size of one element in bits (4 for packed ``FP4``)."""
        return _KFAM_DTYPE_BITS[self]


@unique
class Direction(Vocab):
    "Data flow of a parameter. Scalars are always `in`."

    IN = 0
    OUT = 1
    INOUT = 2


@unique
class ParamKind(Vocab):
    "Whether a parameter is a tensor or a scalar."

    TENSOR = 0
    SCALAR = 1


@unique
class Layout(Vocab):
    "Storage layout of a tensor parameter."

    #: Row-major contiguous (the default).
    ND = 0
    #: Row-major contiguous, rank 4, batch/channel/height/width.
    NCHW = 1
    #: Ascend fractal blocked layout; lowered to `[prod(leading), C/c0, R/16, 16, c0]`.
    NZ = 2


@unique
class Contract(Vocab):
    "Calling rules of a family. Exactly one per family; never both."

    PROGRAM = 0
    KERNEL = 1


@unique
class BindingKind(Vocab):
    "Kind of a final-ABI binding slot."

    #: A device buffer object (XRT BO).
    BUFFER_OBJECT = 0
    #: A tensor argument slot of the launch arguments.
    TENSOR_ARG = 1
    #: A typed scalar slot of the launch arguments.
    SCALAR_ARG = 2


@unique
class OperationKind(Vocab):
    "The closed set of operation kinds. A new kind needs reviewed generator code."

    ELEMENTWISE_BINARY = 0
    MATMUL = 1
    ELEMENTWISE_UNARY = 2
    REDUCE = 3
    SOFTMAX = 4
    NORM = 5
    PAGED_ATTENTION_DECODE = 6
    #: A fused kernel described only by its signature and `semantics` text: kfam checks no shape or dtype relation between its operands.
    CUSTOM = 7
    PACKED_ATTENTION_PREFILL = 8
    ROPE = 9
    LINEAR = 10
    DENSE_ATTENTION = 11


@unique
class BinaryOp(Vocab):
    "Elementwise binary operator."

    ADD = 0
    SUB = 1
    MUL = 2
    DIV = 3
    MAX = 4
    MIN = 5


@unique
class UnaryOp(Vocab):
    "Elementwise unary operator."

    NEG = 0
    ABS = 1
    EXP = 2
    LOG = 3
    SQRT = 4
    #: `1 / sqrt(x)`.
    RSQRT = 5
    RELU = 6
    GELU = 7
    #: `x * sigmoid(x)`.
    SILU = 8
    SIGMOID = 9
    TANH = 10
    #: Conversion to the output's dtype: the only operator whose output dtype may differ from its input's.
    CAST = 11
    #: GELU by its tanh approximation, `0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))` (`F.gelu(x, approximate="tanh")`, GPT-2's activation).
    GELU_TANH = 12


@unique
class ReduceOp(Vocab):
    "Reduction operator."

    SUM = 0
    MAX = 1
    MIN = 2
    MEAN = 3


@unique
class NormKind(Vocab):
    "Normalization over one axis."

    #: `x / sqrt(mean(x^2) + eps) * weight`.
    RMS_NORM = 0
    #: `(x - mean(x)) / sqrt(var(x) + eps) * weight + bias`.
    LAYER_NORM = 1


@unique
class StorageFormat(Vocab):
    "Physical storage format of a tensor argument (the native format tags)."

    NCHW = 0
    ND = 2
    #: Ascend fractal NZ; accepted only for parameters declared `nz`.
    FRACTAL_NZ = 29


@unique
class ScalarValueKind(Vocab):
    "Type tag of a scalar argument's value."

    BOOL = 0
    INT = 1
    UINT = 2
    FLOAT = 3


@unique
class CallRule(Vocab):
    "The verdict of call validation. 0 is never a verdict, so a zeroed result that a refused call left unwritten cannot read as accepted."

    #: The call itself was refused (NULL family or descriptor array, short `struct_size`, unknown code): nothing was decided.
    INVALID_CALL = 0
    #: The call is valid.
    OK = 1
    #: Wrong number of tensor or scalar arguments.
    ARG_COUNT = 2
    DTYPE = 3
    RANK = 4
    #: A static extent differs, or an extent is negative.
    SHAPE = 5
    #: Storage format not accepted for the parameter's layout.
    FORMAT = 6
    #: Strides do not describe a contiguous row-major view.
    NOT_CONTIGUOUS = 7
    #: NZ tensors must start at storage offset 0.
    NZ_OFFSET = 8
    #: A nonempty view reaches past its storage, or the offset is negative.
    STORAGE_BOUNDS = 9
    #: Tensors are on different devices.
    DEVICE = 10
    #: Partial overlap of views where one is written.
    OVERLAP = 11
    #: A scalar value of the wrong kind (a float for an integer, ...).
    SCALAR_TYPE = 12
    #: An integer scalar outside its declared type's range.
    SCALAR_RANGE = 13
    #: A finite float scalar beyond its declared type's largest value.
    FLOAT_OVERFLOW = 14
    #: Two extents of one named symbol differ.
    DIM_MISMATCH = 15
    #: A named symbol's extent breaks its `[dims]` constraints (min, max, multiple_of).
    DIM_RANGE = 16
    #: A tensor's data address (its storage's base address plus the offset's bytes) is not a multiple of its declared `alignment`.
    ALIGNMENT = 17


@unique
class Capability(Vocab):
    "The answer of a capability query. 0 is never a decision, so a zeroed result that a refused call left unwritten cannot read as supported."

    #: The call itself was refused (NULL or unknown argument, short `struct_size`): nothing was decided.
    INVALID_CALL = 0
    SUPPORTED = 1
    UNKNOWN_FAMILY = 2
    #: The family declares the other contract.
    CONTRACT_MISMATCH = 3
    #: No profile for this platform and execution mode.
    NO_PROFILE = 4
    #: A profile exists but no artifact qualified on it.
    NO_RECEIPT = 5
    #: The family was approved and then retired (`retired.toml`).
    RETIRED = 6
    #: A profile exists, but its only receipts are placeholders (a digest of 32 leading zero hex digits, as `kfam new` writes): no qualified artifact exists.
    UNQUALIFIED = 7


@unique
class Admission(Vocab):
    "Outcome of artifact admission. 0 is never a decision, so a zeroed result that a refused call left unwritten cannot read as admitted."

    #: The call itself was refused (NULL or unknown argument, short `struct_size`): nothing was decided.
    INVALID_CALL = 0
    ADMITTED = 1
    #: Not valid JSON, wrong types, duplicate or unknown keys, too large.
    MALFORMED = 2
    #: Names a family that is not approved.
    UNKNOWN_FAMILY = 3
    #: Legacy or incomplete kernel metadata: the artifact must be rebuilt.
    RECOMPILE_REQUIRED = 4
    #: A field differs from every approved family, profile and receipt.
    NOT_APPROVED = 5
    #: Built against another native runtime revision than `abi.toml` pins.
    PREPARED_INCOMPATIBLE = 6
    #: The document names a retired family, or (schema 1 and 2) the artifact is one of a retired family's.
    RETIRED = 7


@unique
class CacheLayout(Vocab):
    "How a paged key/value cache lays out its blocks (`B` blocks of `T` tokens, `H_kv` heads of size `D`)."

    #: Key and value caches `[B, T, H_kv, D]` (vLLM v1, flash-attn, FlashInfer NHD).
    NHD = 0
    #: Key and value caches `[B, H_kv, T, D]` (FlashInfer HND).
    HND = 1
    #: Key cache `[B, H_kv, D / x, T, x]` with `x` elements in 16 bytes, value cache `[B, H_kv, D, T]` (vLLM's paged attention kernels).
    X_PACKED = 2
    #: One cache `[B, 2, T, H_kv, D]`, keys at index 0 of axis 1 and values at 1.
    COMBINED_NHD = 3
    #: One cache `[B, 2, H_kv, T, D]`, keys at index 0 of axis 1 and values at 1.
    COMBINED_HND = 4


@unique
class WeightLayout(Vocab):
    "How a `linear` weight stores its two axes."

    #: `[N, K]`: output features first, as `nn.Linear` and checkpoints store it (`out = input @ weight^T`).
    NK = 0
    #: `[K, N]`: input features first (GPT-2's `Conv1D`, `x @ w`).
    KN = 1
    #: `[E, N, K]`: a batch of `E` weights as `nk`, the activations `[E, T, K]` (grouped expert layers, `bmm` with `w^T`).
    ENK = 2
    #: `[E, K, N]`: a batch of `E` weights as `kn` (`bmm`).
    EKN = 3


class Status(Vocab):
    "Status codes of the native C ABI; their values are declared in `abi.toml`. Each catalog's ``_abi`` subclasses it with its members."


class Platform(Vocab):
    "Hardware platform an artifact targets. Each catalog's ``_abi`` subclasses it with its members."


class Backend(Vocab):
    "Compiler backend that produced an artifact. Each catalog's ``_abi`` subclasses it with its members."


class Runtime(Vocab):
    "Runtime that launches an artifact. Each catalog's ``_abi`` subclasses it with its members."


class ExecutionMode(Vocab):
    "Whether an artifact runs on a simulator or on the device. Each catalog's ``_abi`` subclasses it with its members."


@dataclass(frozen=True, slots=True)
class Targets:
    """A catalog's target vocabularies (its ``_abi`` classes): what the records' fields of those
    types hold, for the decoders of ``kfam_runtime.records``."""

    platform: type[Platform]
    backend: type[Backend]
    runtime: type[Runtime]
    execution_mode: type[ExecutionMode]


#: Storage size of one element of each dtype, in bits.
_KFAM_DTYPE_BITS: Final[dict[DType, int]] = {
    DType.FP32: 32,
    DType.FP16: 16,
    DType.INT32: 32,
    DType.INT16: 16,
    DType.INT8: 8,
    DType.UINT8: 8,
    DType.BF16: 16,
    DType.INT64: 64,
    DType.UINT64: 64,
    DType.UINT16: 16,
    DType.UINT32: 32,
    DType.BOOL: 8,
    DType.FP8E4M3FN: 8,
    DType.FP8E8M0: 8,
    DType.FP4: 4,
}
#: Largest finite value of each float dtype: a finite scalar beyond it overflows.
_FLOAT_MAX: Final[dict[DType, float]] = {
    DType.FP32: 3.4028234663852886e38,
    DType.FP16: 65504.0,
    DType.BF16: 3.3895313892515355e38,
    DType.FP8E4M3FN: 448.0,
    DType.FP8E8M0: 1.7014118346046923e38,
    DType.FP4: 6.0,
}
#: Inclusive range of each integer dtype.
_INT_RANGE: Final[dict[DType, tuple[int, int]]] = {
    DType.INT32: (-2147483648, 2147483647),
    DType.INT16: (-32768, 32767),
    DType.INT8: (-128, 127),
    DType.UINT8: (0, 255),
    DType.INT64: (-9223372036854775808, 9223372036854775807),
    DType.UINT64: (0, 18446744073709551615),
    DType.UINT16: (0, 65535),
    DType.UINT32: (0, 4294967295),
}
#: The C ABI status (a ``Status`` member's name) of each capability outcome.
_CAPABILITY_STATUS: Final[dict[Capability, str]] = {
    Capability.INVALID_CALL: "INVALID_ARGUMENT",
    Capability.SUPPORTED: "OK",
    Capability.UNKNOWN_FAMILY: "NOT_FOUND",
    Capability.CONTRACT_MISMATCH: "UNSUPPORTED",
    Capability.NO_PROFILE: "UNSUPPORTED",
    Capability.NO_RECEIPT: "NOT_APPROVED",
    Capability.RETIRED: "INVALID_STATE",
    Capability.UNQUALIFIED: "NOT_APPROVED",
}
#: The C ABI status (a ``Status`` member's name) of each admission outcome.
_ADMISSION_STATUS: Final[dict[Admission, str]] = {
    Admission.INVALID_CALL: "INVALID_ARGUMENT",
    Admission.ADMITTED: "OK",
    Admission.MALFORMED: "INVALID_ARGUMENT",
    Admission.UNKNOWN_FAMILY: "NOT_FOUND",
    Admission.RECOMPILE_REQUIRED: "RECOMPILE_REQUIRED",
    Admission.NOT_APPROVED: "NOT_APPROVED",
    Admission.PREPARED_INCOMPATIBLE: "PREPARED_INCOMPATIBLE",
    Admission.RETIRED: "INVALID_STATE",
}
#: The C ABI status (a ``Status`` member's name) of each call validation rule.
_CALL_STATUS: Final[dict[CallRule, str]] = {
    CallRule.INVALID_CALL: "INVALID_ARGUMENT",
    CallRule.OK: "OK",
    CallRule.ARG_COUNT: "INVALID_ARGUMENT",
    CallRule.DTYPE: "INVALID_ARGUMENT",
    CallRule.RANK: "INVALID_ARGUMENT",
    CallRule.SHAPE: "INVALID_ARGUMENT",
    CallRule.FORMAT: "INVALID_ARGUMENT",
    CallRule.NOT_CONTIGUOUS: "INVALID_ARGUMENT",
    CallRule.NZ_OFFSET: "INVALID_ARGUMENT",
    CallRule.STORAGE_BOUNDS: "INVALID_ARGUMENT",
    CallRule.DEVICE: "INVALID_ARGUMENT",
    CallRule.OVERLAP: "INVALID_ARGUMENT",
    CallRule.SCALAR_TYPE: "INVALID_ARGUMENT",
    CallRule.SCALAR_RANGE: "INVALID_ARGUMENT",
    CallRule.FLOAT_OVERFLOW: "INVALID_ARGUMENT",
    CallRule.DIM_MISMATCH: "INVALID_ARGUMENT",
    CallRule.DIM_RANGE: "INVALID_ARGUMENT",
    CallRule.ALIGNMENT: "INVALID_ARGUMENT",
}
#: The ``torch`` attribute holding each dtype's ``torch.dtype`` (``kfam_runtime.torch``).
_TORCH_DTYPES: Final[dict[DType, str]] = {
    DType.FP32: "float32",
    DType.FP16: "float16",
    DType.INT32: "int32",
    DType.INT16: "int16",
    DType.INT8: "int8",
    DType.UINT8: "uint8",
    DType.BF16: "bfloat16",
    DType.INT64: "int64",
    DType.UINT64: "uint64",
    DType.UINT16: "uint16",
    DType.UINT32: "uint32",
    DType.BOOL: "bool",
    DType.FP8E4M3FN: "float8_e4m3fn",
    DType.FP8E8M0: "float8_e8m0fnu",
    DType.FP4: "float4_e2m1fn_x2",
}
#: The dispatcher type of a scalar of each dtype (none: torch cannot represent it).
_SCALAR_TYPES: Final[dict[DType, str]] = {
    DType.FP32: "float",
    DType.FP16: "float",
    DType.INT32: "SymInt",
    DType.INT16: "SymInt",
    DType.INT8: "SymInt",
    DType.UINT8: "SymInt",
    DType.BF16: "float",
    DType.INT64: "SymInt",
    DType.UINT16: "SymInt",
    DType.UINT32: "SymInt",
    DType.BOOL: "bool",
    DType.FP8E4M3FN: "float",
    DType.FP8E8M0: "float",
    DType.FP4: "float",
}
