"""The import graph of Python packages, for codegen/tests/module_graph.rs: one line per edge,
``IMPORTER IMPORTED LINE``, between modules of the packages given (directories holding an
``__init__.py``; a package is named by its directory). Every import statement counts, wherever
it stands: at the top, inside a function, under ``if TYPE_CHECKING:``. ``from . import x``
imports the module ``x`` when there is one, else a name of the package's ``__init__``.

    python3 tests/python/import_graph.py python/kfam_runtime generated/python/kfam
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def modules(package: Path) -> dict[str, Path]:
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = [package.name, *path.relative_to(package).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def main(packages: list[str]) -> None:
    known: dict[str, tuple[Path, bool]] = {}
    for package in packages:
        for name, path in modules(Path(package)).items():
            known[name] = (path, path.name == "__init__.py")
    if not known:
        sys.exit("no modules found")
    for name, (path, is_package) in known.items():
        base = name if is_package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    anchor = base.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    parent = ".".join(anchor + ([node.module] if node.module else []))
                else:
                    parent = node.module or ""
                targets = [f"{parent}.{a.name}" for a in node.names]
                targets = [t for t in targets if t in known]
                if len(targets) < len(node.names):
                    targets.append(parent)  # names of the module itself
            for target in targets:
                if target in known and target != name:
                    print(name, target, node.lineno)
    print("modules", len(known), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
