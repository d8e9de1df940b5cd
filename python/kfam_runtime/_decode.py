"""Decoding primitives of the table rows (a catalog's ``_tables``): checked reads of JSON values.

A row is a JSON array written by the generator (fields by position). Each function here reads
one value of it with the type the row layout promises, and raises ``Corrupt`` when the value has
another: the rows are data that only the generator writes, so a mismatch means an edited or
truncated ``_tables.py``, which the catalog's lookup names (``Catalog``).
``kfam_runtime.records`` (the decoders of every record's row, printed from kfam's record
declarations) builds the records with them.
"""

from __future__ import annotations


class Corrupt(RuntimeError):
    """A row value of another type than the row layout promises: ``what`` was expected."""

    def __init__(self, what: str, value: object) -> None:
        super().__init__(f"unexpected {what} {value!r:.80}")
        self.what = what
        self.value = value


def _corrupt(what: str, value: object) -> Corrupt:
    return Corrupt(what, value)


def _row(x: object) -> list[object]:
    if isinstance(x, list):
        return x
    raise _corrupt("row", x)


def _fields(x: object, n: int) -> list[object]:
    """The ``n`` fields of a row: the generator leaves out trailing ``null``s and empty lists."""
    v = _row(x)
    if len(v) > n:
        raise _corrupt(f"row of {len(v)} fields (expected at most {n})", v)
    return v + [None] * (n - len(v))


def _int(x: object) -> int:
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    raise _corrupt("integer", x)


def _opt_int(x: object) -> int | None:
    return None if x is None else _int(x)


def _bool(x: object) -> bool:
    if isinstance(x, bool):
        return x
    raise _corrupt("bool", x)


def _float(x: object) -> float:
    if isinstance(x, float):
        return x
    raise _corrupt("float", x)


def _str(x: object) -> str:
    if isinstance(x, str):
        return x
    raise _corrupt("string", x)


def _opt_str(x: object) -> str | None:
    return None if x is None else _str(x)


def _items(x: object) -> list[object]:
    """A list field: a row leaves out an empty list at its end (``None`` here)."""
    return [] if x is None else _row(x)


def _ints(x: object) -> tuple[int, ...]:
    return tuple(map(_int, _items(x)))


def _scalar_ref(x: object) -> tuple[float | None, int | None]:
    """The fields of a ``ScalarRef`` row, ``[constant, param]``: ``ScalarRef(*_scalar_ref(x))``."""
    v = _row(x)
    if len(v) != 2:
        raise _corrupt("scalar reference", v)
    constant = v[0]
    if constant is not None and not isinstance(constant, float):
        raise _corrupt("constant", constant)
    return constant, _opt_int(v[1])
