"""The lazy tables: lookups over ``_tables`` that build a family's records on first use.

``_tables`` holds each family as one row (a JSON array, fields by position, in the order of
kfam's record declarations), which ``kfam._records.decode_family`` reads. Importing the package does
not even load those strings: ``_tables`` is imported by the first lookup that needs a row
(each function below imports it where it reads it; at 10,000 families the rows are most of
what an import would cost). ``find_family`` decodes a family's row the first time it is asked
for and keeps the records, so every later lookup returns the very same objects without reading
the tables. Lookups by name and by artifact digest are dict lookups. ``families()`` builds
every family (``kfam.FAMILIES``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Final

from ._abi import CATALOG_NAME
from ._decode import _corrupt
from ._records import Family, Profile, Receipt, Retired, decode_family, decode_retired

#: The families decoded so far, by name (a family is decoded once: ``setdefault`` keeps the
#: first record when two threads race, so lookups always return the same object).
_families: Final[dict[str, Family]] = {}
_retired: Final[dict[str, Retired]] = {}


def family(name: str) -> Family:
    """The approved family called ``name``; ``KeyError`` when there is none."""
    found = find_family(name)
    if found is None:
        raise KeyError(f"no approved family of the {CATALOG_NAME} catalog is called {name!r}")
    return found


def find_family(name: str) -> Family | None:
    """The approved family called ``name``, or ``None``."""
    found = _families.get(name)
    if found is not None:
        return found
    from . import _tables

    row = _tables.FAMILY_ROWS.get(name)
    if row is None:
        return None
    try:
        parsed: object = json.loads(row)
        decoded = decode_family(name, parsed)
    except (ValueError, IndexError) as e:  # not JSON, an unknown code, a short row
        raise _corrupt(f"row of {name!r}", row) from e
    return _families.setdefault(name, decoded)


def find_artifact(sha256: str) -> tuple[Family, Profile, Receipt] | None:
    """The family, profile and receipt that approve the artifact whose SHA-256 is ``sha256``.

    ``sha256`` is matched exactly: 64 lowercase hex digits, as ``sha256sum`` prints them.
    ``None`` means no receipt approves the artifact, so it must not be loaded.
    """
    from . import _tables

    name = _tables.ARTIFACTS.get(sha256)
    if name is None:
        return None
    fam = family(name)
    for r in fam.receipts:
        if r.sha256 == sha256:
            return fam, fam.profiles[r.profile], r
    raise _corrupt("artifact index", sha256)


def find_retired(name: str) -> Retired | None:
    """The tombstone of the retired family called ``name``, or ``None``."""
    found = _retired.get(name)
    if found is not None:
        return found
    from . import _tables

    row = _tables.RETIRED_ROWS.get(name)
    if row is None:
        return None
    try:
        parsed: object = json.loads(row)
        decoded = decode_retired(name, parsed)
    except (ValueError, IndexError) as e:
        raise _corrupt(f"row of {name!r}", row) from e
    return _retired.setdefault(name, decoded)


def find_retired_artifact(sha256: str) -> Retired | None:
    """The tombstone of the retired family an artifact digest was approved for, or ``None``."""
    from . import _tables

    name = _tables.RETIRED_ARTIFACTS.get(sha256)
    return None if name is None else find_retired(name)


def is_retired(name: str) -> bool:
    """Whether ``name`` is a retired family (without decoding its tombstone)."""
    from . import _tables

    return name in _tables.RETIRED_ROWS


def each_family() -> Iterator[Family]:
    """Every approved family, sorted by name, each decoded when the iteration reaches it."""
    from . import _tables

    for name in _tables.FAMILY_ROWS:
        found = find_family(name)
        if found is not None:
            yield found


def families() -> tuple[Family, ...]:
    """Every approved family, sorted by name (all of them decoded)."""
    return tuple(each_family())


def retired() -> tuple[Retired, ...]:
    """Every retired family, sorted by name."""
    from . import _tables

    return tuple(r for r in map(find_retired, _tables.RETIRED_ROWS) if r is not None)
