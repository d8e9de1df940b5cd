"""This runtime's version: kfam's, which generated code of the same series needs at least
(``_compat.py``). A module of its own so that every module can read it without importing the
package's ``__init__``."""

from __future__ import annotations

from typing import Final

__version__: Final[str] = "0.1.0"
