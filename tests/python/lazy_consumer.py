"""The lazy tables from a consumer's side: typed exactly as eager ones, built on demand.

Run in a fresh interpreter by ``cargo test -p kfam-codegen --test integration python::`` (and type-checked
there with ``mypy --strict --disallow-any-expr``): importing ``kfam`` builds no record, loads
no table row and imports no ``torch``; a lookup builds its family once and returns the same object after;
``kfam.FAMILIES`` builds the rest on first access and is a plain tuple. Exits 0 or fails an
assertion. The private parts (``_tables``, ``CATALOG._families``) are read only to observe what
was built.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import kfam

if TYPE_CHECKING:
    from typing_extensions import assert_type
else:

    def assert_type(value: object, _type: object) -> object:
        return value


def main() -> int:
    # Importing builds nothing and loads no torch.
    assert "torch" not in sys.modules, "import kfam imported torch"
    assert not kfam.CATALOG._families, "import kfam built family records"
    assert "FAMILIES" not in dir(kfam), "import kfam built FAMILIES"
    assert "kfam._tables" not in sys.modules, "import kfam loaded the table rows"

    # The first lookup loads the rows; the accessors keep their types.
    assert kfam.find_family("no_such_family") is None
    assert "kfam._tables" in sys.modules, "a lookup did not load the table rows"
    from kfam import _tables

    names = list(_tables.FAMILY_ROWS)
    if not names:
        return 0
    first = kfam.find_family(names[-1])
    assert_type(first, kfam.Family | None)
    assert first is not None
    built = [f.name for f in kfam.CATALOG._families.values()]
    assert built == [names[-1]], "one lookup, one family"
    assert_type(kfam.family(names[-1]), kfam.Family)
    assert kfam.family(names[-1]) is first
    assert_type(first.params, tuple[kfam.Param, ...])
    assert_type(first.operation, kfam.Operation)
    receipt = first.receipts[0] if first.receipts else None
    if receipt is not None:
        found = kfam.find_artifact(receipt.sha256)
        assert_type(found, tuple[kfam.Family, kfam.Profile, kfam.Receipt] | None)
        assert found is not None and found[0] is first and found[2] is receipt
    assert_type(kfam.find_retired("x"), kfam.Retired | None)
    assert_type(kfam.find_retired_artifact("0" * 64), kfam.Retired | None)

    # FAMILIES: every family, built on first access, then a module attribute like any other.
    families = kfam.FAMILIES
    assert_type(families, tuple[kfam.Family, ...])
    assert_type(kfam.RETIRED, tuple[kfam.Retired, ...])
    assert type(families) is tuple and [f.name for f in families] == names
    assert families[-1] is first, "FAMILIES reuses the records already built"
    assert "FAMILIES" in dir(kfam) and kfam.FAMILIES is families
    assert all(kfam.family(f.name) is f for f in families)
    assert not hasattr(kfam, "NO_SUCH_NAME")
    print(f"lazy: {len(families)} families, built on demand")
    return 0


if __name__ == "__main__":
    sys.exit(main())
