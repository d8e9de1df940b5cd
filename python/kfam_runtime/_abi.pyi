# The type checker's view of ``kfam/_abi.py``, which ``kfam generate`` writes for each catalog
# (values differ, names and types do not). Used only to check ``python/kfam/`` in place; not
# part of the generated package. codegen/tests/sourcegen.rs keeps it in step.
from typing import Final

from ._vocab import _KfamVocab

ABI_REVISION: Final[str]
ABI_MAJOR: Final[int]
ABI_MINOR: Final[int]
MAX_TENSOR_ARGS: Final[int]
MAX_SCALAR_ARGS: Final[int]
MAX_RANK: Final[int]
MAX_PREPARED: Final[int]
IDENTITY_FORMAT: Final[int]
CATALOG_NAME: Final[str]
CATALOG_DIGEST: Final[str]
TORCH_NAMESPACE: Final[str]
__version__: Final[str]

class Status(_KfamVocab):
    OK = ...
    INTERNAL = ...
    UNSUPPORTED = ...
    PREPARED_INCOMPATIBLE = ...
    INVALID_STATE = ...
    INVALID_ARGUMENT = ...
    NOT_FOUND = ...
    RECOMPILE_REQUIRED = ...
    NOT_APPROVED = ...

# The catalog's own platforms, backends, runtimes and execution modes: their
# members differ from catalog to catalog, so the sources may use none by
# name. mypy flags an enum stub without members; here that is the point.
class Platform(_KfamVocab): ...  # type: ignore[misc]
class Backend(_KfamVocab): ...  # type: ignore[misc]
class Runtime(_KfamVocab): ...  # type: ignore[misc]
class ExecutionMode(_KfamVocab): ...  # type: ignore[misc]
