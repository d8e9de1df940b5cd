"""kfam: the approved accelerator kernel families, as typed Python records.

kfam's runtime, written out by the kfam generator together with the tables of a reviewed
manifest (``manifest/``), which are the modules ``_abi`` and ``_tables``.

- ``FAMILIES``: every approved family, sorted by name (built on first access).
- ``family(name)`` / ``find_family(name)``: lookup by family name.
- ``find_artifact(sha256)``: the ``(Family, Profile, Receipt)`` that approves an artifact digest.
- ``Family.identity``: the identity digest recorded in ``manifest/approved.lock``.
- ``ABI_REVISION``, ``ABI_MAJOR``, ``ABI_MINOR``, ``MAX_*`` and ``Status``: the native ABI.
- ``CATALOG_NAME``, ``CATALOG_DIGEST``, ``TORCH_NAMESPACE`` and ``__version__``: the catalog's
  identity (``[catalog]`` of ``abi.toml``) and the digest of what it approves.
- ``capability(...)``, ``admit(document, sha256)`` and ``validate_call(family, tensors, scalars)``:
  the decisions of the Rust runtime (``kfam-runtime``), refusals raised as ``KfamError``.
- ``qualify(family, kernel)``: a kernel against its family's reference, the result a receipt's
  structured evidence (needs PyTorch; ``kfam.torch``, docs/qualify.md).

A family's records are built the first time it is looked up (``kfam._lookup``): importing the
package builds none, and loads no table row.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Final

from . import _records, _vocab
from ._abi import (
    ABI_MAJOR,
    ABI_MINOR,
    ABI_REVISION,
    CATALOG_DIGEST,
    CATALOG_NAME,
    IDENTITY_FORMAT,
    MAX_PREPARED,
    MAX_RANK,
    MAX_SCALAR_ARGS,
    MAX_TENSOR_ARGS,
    TORCH_NAMESPACE,
    Backend,
    ExecutionMode,
    Platform,
    Runtime,
    Status,
    __version__ as __version__,
)
from ._lookup import (
    families as _kfam_families,
    family,
    find_artifact,
    find_family,
    find_retired,
    find_retired_artifact,
    retired as _kfam_retired,
)
from ._records import *  # noqa: F403  (the record classes: ``_records.__all__``)
from ._records import Family, Retired
from ._runtime import (
    MAX_DOCUMENT_BYTES,
    AdmissionError,
    Admitted,
    CallError,
    CapabilityError,
    KfamError,
    ScalarArg,
    Supported,
    TensorArg,
    admit,
    capability,
    validate_call,
)
from ._vocab import *  # noqa: F403  (the vocabularies: ``_vocab.__all__``)

if TYPE_CHECKING:
    from ._qualify import qualify as qualify

    #: Every approved family, sorted by name.
    FAMILIES: Final[tuple[Family, ...]] = _kfam_families()
    #: Every retired family, sorted by name.
    RETIRED: Final[tuple[Retired, ...]] = _kfam_retired()


def _kfam_getattr(name: str) -> object:
    """``FAMILIES`` and ``RETIRED``, built on first access and then kept (PEP 562)."""
    value: object
    if name == "FAMILIES":
        value = _kfam_families()
    elif name == "RETIRED":
        value = _kfam_retired()
    elif name == "qualify":
        # Needs PyTorch (the optional extra): imported on first use, not with the package.
        from .torch import qualify as value
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    setattr(sys.modules[__name__], name, value)
    return value


# Hidden from type checkers, which would otherwise type every unknown `kfam.name` as `object`.
if not TYPE_CHECKING:
    __getattr__ = _kfam_getattr

__all__ = [
    "ABI_MAJOR",
    "ABI_MINOR",
    "ABI_REVISION",
    "AdmissionError",
    "Admitted",
    "Backend",
    "CATALOG_DIGEST",
    "CATALOG_NAME",
    "CallError",
    "CapabilityError",
    "ExecutionMode",
    "FAMILIES",
    "IDENTITY_FORMAT",
    "KfamError",
    "MAX_DOCUMENT_BYTES",
    "MAX_PREPARED",
    "MAX_RANK",
    "MAX_SCALAR_ARGS",
    "MAX_TENSOR_ARGS",
    "Platform",
    "RETIRED",
    "Runtime",
    "ScalarArg",
    "Status",
    "Supported",
    "TORCH_NAMESPACE",
    "TensorArg",
    "admit",
    "capability",
    "family",
    "find_artifact",
    "find_family",
    "find_retired",
    "find_retired_artifact",
    "validate_call",
]
# The record classes and the vocabularies follow kfam's declarations of them.
__all__ += _records.__all__
__all__ += _vocab.__all__
