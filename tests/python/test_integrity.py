"""A generated package serves only the data kfam generate wrote (docs/python.md, "Integrity").

Run by ``cargo test -p kfam-codegen --test integration python::`` against the generated
``kfam`` package and the runtime (``python/``) on ``PYTHONPATH``. A copy of the package has its
data files edited (random one-to-three-byte edits), truncated, emptied and deleted: every case
raises ``kfam_runtime.CorruptError`` naming the file, at import (``_abi.py``) or at the first
lookup (``_tables.py``), and never serves the damaged data.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import kfam
import kfam_runtime

GENERATED = Path(kfam.__file__).parent
RUNTIME = Path(kfam_runtime.__file__).parent

#: Random edits per data file.
EDITS = 300


def _copy(tmp_path: Path) -> Path:
    """A copy of the package (without its bytecode) in ``tmp_path``: its ``kfam/``."""
    shutil.copytree(GENERATED, tmp_path / "kfam", ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "kfam"


def _run(path: Path, code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), str(RUNTIME.parent)])}
    return subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, check=False
    )


#: Edits each data file of the imported package copy at random and checks every edit the way
#: the package does: `_abi.py` as `__init__.py` checks it before importing it (against its own
#: checksum line), `_tables.py` by a first lookup of a fresh catalog over the same data (against
#: the digest `_abi.py` records). Prints the count of refusals.
EDITING = """
import random, sys
from pathlib import Path

import kfam, kfam_runtime

package = Path(kfam.__file__).parent
rng = random.Random(int(sys.argv[1]))
c = kfam.CATALOG
refused = 0
for name in ("_tables.py", "_abi.py"):
    original = (package / name).read_bytes()
    for _ in range(int(sys.argv[2])):
        data = bytearray(original)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(data))
            data[at] = rng.choice([b for b in range(256) if b != data[at]])
        (package / name).write_bytes(bytes(data))
        fresh = kfam_runtime.Catalog(
            package=c.package, name=c.name, version=c.version, digest=c.digest,
            torch_namespace=c.torch_namespace, abi_revision=c.abi_revision,
            max_prepared=c.max_prepared, status=c.status, platform=c.targets.platform,
            backend=c.targets.backend, runtime=c.targets.runtime,
            execution_mode=c.targets.execution_mode, errors=c.errors,
            tables_sha256=kfam._abi.TABLES_SHA256,
        )
        try:
            if name == "_abi.py":
                kfam_runtime.check_data("kfam", name)
            else:
                fresh.family("add_bf16_1024")
        except kfam_runtime.CorruptError as e:
            assert e.file == f"kfam/{name}", e.file
            assert str(e).startswith(f"kfam/{name} is corrupt ("), e
            assert "its SHA-256 is " in str(e) or "checksum line" in str(e), e
            refused += 1
        else:
            raise SystemExit(f"an edit of {name} was served: {bytes(data)!r:.200}")
    (package / name).write_bytes(original)
print(refused)
"""


def test_every_random_edit_of_the_data_is_refused_naming_the_file(tmp_path: Path) -> None:
    _copy(tmp_path)
    r = _run(tmp_path, EDITING, "54", str(EDITS))
    assert r.returncode == 0, r.stderr + r.stdout
    assert r.stdout.split() == [str(2 * EDITS)], r.stdout


#: Imports the package and looks a family up; prints the refusal, its class and its file.
LOOKUP = """
import kfam_runtime
try:
    import kfam
    kfam.family("add_bf16_1024")
except kfam_runtime.CorruptError as e:
    print(type(e).__name__, e.file, e.path is not None, e)
else:
    raise SystemExit("served")
"""


@pytest.mark.parametrize("name", ["_abi.py", "_tables.py"])
@pytest.mark.parametrize("damage", ["truncated", "half", "empty", "deleted", "edited"])
def test_damaged_truncated_or_missing_data_raises_the_documented_error(
    tmp_path: Path, name: str, damage: str
) -> None:
    package = _copy(tmp_path)
    path = package / name
    data = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(data[:-1])
    elif damage == "half":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "deleted":
        path.unlink()
    else:
        # The example: a shape read as another (`[1024]` -> `[2048]`), or a status
        # code renumbered.
        old, new = (b"[1024]", b"[2048]") if name == "_tables.py" else (b"-1004", b"-1005")
        assert old in data
        path.write_bytes(data.replace(old, new, 1))
    r = _run(tmp_path, LOOKUP)
    assert r.returncode == 0, r.stderr + r.stdout
    words = r.stdout.split()
    assert words[:3] == ["CorruptError", f"kfam/{name}", "True"], r.stdout
    said = "is missing" if damage == "deleted" else "is corrupt"
    assert f"kfam/{name} {said} ({path})" in r.stdout, r.stdout
    assert "reinstall or regenerate kfam" in r.stdout, r.stdout


def test_the_intact_package_is_served_and_crlf_reads_alike(tmp_path: Path) -> None:
    package = _copy(tmp_path)
    # A checkout that writes CRLF line endings serves the same data.
    for name in ("_abi.py", "_tables.py"):
        path = package / name
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    r = _run(tmp_path, "import kfam; print(kfam.family('add_bf16_1024').params[0].shape)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "(1024,)", r.stdout
