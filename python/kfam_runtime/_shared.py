# @generated from kfam-runtime (src/wording.rs, src/admission/): rebuild with `KFAM_BLESS=1 cargo test -p kfam-runtime --test integration shared::`; do not edit
"""What the Python runtime shares with the Rust runtime, declared once there.

``_call`` fills the templates of a refused call as ``CallError::describe`` and
``CallError::explain`` do, so a refusal reads the same in Rust, C and Python; ``_admission``
refuses documents at the sizes ``kfam_runtime::admission`` does.
"""

from __future__ import annotations

from typing import Final

#: Largest ``compiled_meta.json`` admitted, in bytes (``kfam_runtime::admission``).
MAX_DOCUMENT_BYTES: Final[int] = 1048576
#: The most characters of a document's ``$comment``.
MAX_COMMENT_CHARS: Final[int] = 1024

#: The words of a refused call, by key (``kfam_runtime::wording::Words``).
WORDING: Final[dict[str, str]] = {
    "argument": "argument {index} (`{name}`): {rule}",
    "symbol": ": symbol `{symbol}`",
    "symbol_elsewhere": " differs from its extent in `{other}`",
    "at_least": " must be at least {min}",
    "at_least_multiple": " must be at least {min} and a multiple of {multiple_of}",
    "within": " must lie in {min}..={max}",
    "within_multiple": " must lie in {min}..={max} and be a multiple of {multiple_of}",
    "extents_both": " ({here} here, {there} there)",
    "extent_passed": " (passed {here})",
    "arg_count": "arg_count: `{family}` takes {tensor_count} tensors and {scalar_count} scalars, {tensors} and {scalars} were passed",
    "dtype": "dtype {dtype}, expected {expected}",
    "rank": "rank {rank} (shape {shape}), expected rank {expected_rank} (shape {expected})",
    "shape": "shape {shape}{negative}, expected {expected}{anonymous}",
    "shape_negative": " has a negative extent",
    "shape_anonymous": " (-1: any extent)",
    "format": "storage format {format}, not accepted for layout {layout}",
    "not_contiguous": "strides {strides} of shape {shape} are not a contiguous row-major view",
    "nz_offset": "storage offset {offset}, expected 0 for an NZ tensor",
    "negative_offset": "storage offset {offset} is negative",
    "storage_bounds": "the view (shape {shape}, strides {strides}, offset {offset} elements of {dtype}) does not fit in {bytes} bytes of storage",
    "alignment": "data address {address} (storage {storage} + {offset} elements of {dtype}) is not a multiple of {alignment} bytes",
    "device": "device {device}, expected device {expected} (the first tensor's)",
    "overlap": "partially overlaps another argument of the same storage, and one of them is written",
    "scalar_type": "a {kind} value, expected {dtype}",
    "scalar_range": "{value} is outside the range of {dtype}",
    "float_overflow": "{value} is beyond the largest finite {dtype}",
}


def words(key: str, **values: object) -> str:
    """The template of ``key`` with each ``{name}`` filled from ``values``."""
    return WORDING[key].format_map(values)
