"""kfam_runtime: the Python runtime of every catalog kfam generates.

A catalog's generated package (``kfam generate``: ``npuops``, and ``kfam`` for kfam's own
catalog) holds the catalog's data and its own names; this package holds the code they run,
once for every catalog in the process:

- ``Catalog``: a catalog's lazy tables and the runtime's decisions over them, capability,
  admission of ``compiled_meta.json`` and call validation, as the Rust runtime
  (``kfam-runtime``) decides them. A catalog's package builds one and exports its methods.
- ``Error``, ``CapabilityError``, ``AdmissionError``, ``CallError``: the bases of the refusals;
  each catalog raises its own classes derived from them (``except kfam_runtime.CallError``
  catches every catalog's).
- ``Status``, ``Platform``, ``Backend``, ``Runtime``, ``ExecutionMode``: bases without members
  of the vocabularies each catalog values or declares itself; the other vocabularies
  (``kfam_runtime.vocab``) and the record types (``kfam_runtime.records``) are the same for
  every catalog and exported here too.
- ``require(package, generated_by)``: the compatibility check a catalog's package runs first
  (``VersionError``; docs/compatibility.md), with versions ordered as PEP 440 orders them.
- ``check_data(package, file, data)``: the check of a catalog's data file against the digest
  its package records, before the file is read (``CorruptError``, naming the file;
  docs/python.md, "Integrity").
- ``kfam_runtime.context`` (the kernel context) and ``kfam_runtime.torch`` (PyTorch, the one
  module that imports it), which a catalog's ``context`` and ``torch`` modules bind to it.

Standard library only; ``kfam-runtime[torch]`` adds PyTorch.
"""

from __future__ import annotations

from . import records, vocab
from ._admission import Admitted, is_placeholder_digest
from ._call import ScalarArg, TensorArg
from ._catalog import Catalog, Errors, Supported
from ._compat import VersionError, require
from ._errors import AdmissionError, CallError, CapabilityError, Error
from ._integrity import CorruptError, check_data
from ._shared import MAX_DOCUMENT_BYTES
from ._version import __version__ as __version__
from .records import *  # noqa: F403  (the record classes: ``records.__all__``)
from .vocab import *  # noqa: F403  (the shared vocabularies: ``vocab.__all__``)
from .vocab import (
    Backend,
    ExecutionMode,
    Platform,
    Runtime,
    Status,
    Targets,
    Vocab,
)

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "AdmissionError",
    "Admitted",
    "Backend",
    "CallError",
    "CapabilityError",
    "Catalog",
    "CorruptError",
    "Error",
    "Errors",
    "ExecutionMode",
    "Platform",
    "Runtime",
    "ScalarArg",
    "Status",
    "Supported",
    "Targets",
    "TensorArg",
    "VersionError",
    "Vocab",
    "check_data",
    "is_placeholder_digest",
    "require",
]
__all__ += records.__all__
__all__ += vocab.__all__
