# The type checker's view of ``kfam/_tables.py``, which ``kfam generate`` writes for each
# catalog: the rows, data only. Used only to check ``python/kfam/`` in place; not part of the
# generated package. codegen/tests/sourcegen.rs keeps it in step.
from typing import Final

FAMILY_ROWS: Final[dict[str, str]]
ARTIFACTS: Final[dict[str, str]]
RETIRED_ROWS: Final[dict[str, str]]
RETIRED_ARTIFACTS: Final[dict[str, str]]
