"""The lazy tables: lookups over ``_tables`` that build a family's records on first use.

``_tables`` holds each family as one row (a JSON array, fields by position; the layout is
written by ``codegen/src/emit/python/tables.rs``; the operation payloads are decoded by
``kfam._records._OPERATIONS``, single values by ``kfam._decode``). Importing the package does
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

from ._decode import _arity, _bool, _corrupt, _int, _ints, _opt_int, _opt_str, _row, _str
from ._records import (
    _OPERATIONS,
    Binding,
    DimUse,
    Evidence,
    Family,
    Operation,
    Param,
    Profile,
    Receipt,
    Retired,
    Symbol,
)
from ._vocab import (
    Backend,
    BindingKind,
    Contract,
    DType,
    Direction,
    ExecutionMode,
    Layout,
    OperationKind,
    ParamKind,
    Platform,
    Runtime,
)

#: The families decoded so far, by name (a family is decoded once: ``setdefault`` keeps the
#: first record when two threads race, so lookups always return the same object).
_families: Final[dict[str, Family]] = {}
_retired: Final[dict[str, Retired]] = {}


def family(name: str) -> Family:
    """The approved family called ``name``; ``KeyError`` when there is none."""
    found = find_family(name)
    if found is None:
        raise KeyError(f"no approved kfam family is called {name!r}")
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
        decoded = _family(name, row)
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
        decoded = _retired_family(name, row)
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


# ---------------------------------------------------------------- decoding


def _param(index: int, x: object) -> Param:
    # `[name, kind, direction, dtype, shape, layout, pool_index, doc?, lowered_shape?]`: a
    # missing doc is None, a missing lowered shape is the logical one.
    v = _row(x)
    if not 7 <= len(v) <= 9:
        _arity(v, 9)
    shape = _ints(v[4])
    return Param(
        _str(v[0]),
        index,
        ParamKind(_int(v[1])),
        Direction(_int(v[2])),
        DType(_int(v[3])),
        shape,
        Layout(_int(v[5])),
        _ints(v[8]) if len(v) > 8 else shape,
        _int(v[6]),
        _opt_str(v[7]) if len(v) > 7 else None,
    )


def _profile(x: object) -> Profile:
    v = _row(x)
    _arity(v, 6)
    bindings = []
    for b in map(_row, _row(v[5])):
        _arity(b, 3)
        bindings.append(Binding(_int(b[0]), _int(b[1]), BindingKind(_int(b[2]))))
    return Profile(
        _str(v[0]),
        Platform(_int(v[1])),
        Backend(_int(v[2])),
        Runtime(_int(v[3])),
        ExecutionMode(_int(v[4])),
        tuple(bindings),
    )


def _receipt(x: object) -> Receipt:
    v = _row(x)
    _arity(v, 7)
    evidence = Evidence(_str(v[4]), _str(v[5]), _opt_str(v[6]))
    return Receipt(_int(v[0]), _str(v[1]), _str(v[2]), _str(v[3]), evidence)


def _symbol(x: object) -> Symbol:
    v = _row(x)
    _arity(v, 5)
    uses = []
    for u in map(_row, _row(v[4])):
        _arity(u, 3)
        uses.append(DimUse(_int(u[0]), _int(u[1]), _int(u[2])))
    return Symbol(_str(v[0]), _int(v[1]), _opt_int(v[2]), _int(v[3]), tuple(uses))


def _operation(x: object) -> Operation:
    """An operation row: the kind's code, then the kind's fields in order."""
    v = _row(x)
    if not v:
        raise _corrupt("operation", x)
    found = _OPERATIONS.get(OperationKind(_int(v[0])))
    if found is None:
        raise _corrupt("operation", x)
    arity, decode = found
    _arity(v, arity)
    return decode(v)


def _family(name: str, row: str) -> Family:
    decoded: object = json.loads(row)
    v = _row(decoded)
    _arity(v, 14)
    return Family(
        name,
        _int(v[0]),
        _str(v[1]),
        Contract(_int(v[2])),
        _bool(v[3]),
        _operation(v[4]),
        tuple(_param(i, p) for i, p in enumerate(_row(v[5]))),
        _ints(v[6]),
        tuple(map(_profile, _row(v[7]))),
        tuple(map(_receipt, _row(v[8]))),
        _int(v[9]),
        _int(v[10]),
        _str(v[11]),
        _opt_str(v[12]),
        tuple(map(_symbol, _row(v[13]))),
    )


def _retired_family(name: str, row: str) -> Retired:
    decoded: object = json.loads(row)
    v = _row(decoded)
    _arity(v, 4)
    return Retired(name, _int(v[0]), _str(v[1]), _str(v[2]), tuple(map(_str, _row(v[3]))))
