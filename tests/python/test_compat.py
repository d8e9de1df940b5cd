"""Which generated catalogs a runtime serves (docs/compatibility.md), in real imports.

Run by ``cargo test -p kfam-codegen --test integration python::`` against the generated ``kfam`` package
and the runtime (``python/``) on ``PYTHONPATH``. A generated package and a runtime are copied
and their versions edited: the runtime serves older generated code of its series, and refuses
newer code and code of another series at import, naming both versions.
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
from kfam_runtime._compat import refusal, requirement
from kfam_runtime._pep440 import parse
from packaging.version import Version as Reference  # pip's order (pytest depends on it)

GENERATED = Path(kfam.__file__).parent
RUNTIME = Path(kfam_runtime.__file__).parent
#: The line of the generated ``__init__.py`` that names its generator.
REQUIRE = f'_rt.require(__name__, "{kfam_runtime.__version__}")'


@pytest.mark.parametrize(
    ("generated_by", "runtime", "refused"),
    [
        ("0.1.0", "0.1.0", None),
        ("0.1.0", "0.1.9", None),
        ("0.1.0rc1", "0.1.0", None),
        ("0.1.0", "0.1.0.post1", None),
        ("0.1.3", "0.1.2", "newer than"),
        ("0.1.0", "0.1.0rc1", "newer than"),
        ("0.1.0", "0.2.0", "another series"),
        ("0.2.0", "0.1.5", "another series"),
        ("1.2.0", "1.9.0", None),
        ("1.2.0", "2.0.0", "another series"),
        ("1.2.1", "1.2.0", "newer than"),
        ("one", "0.1.0", "cannot compare"),
        # Compared as PEP 440 orders them, not as text.
        ("0.1.1rc10", "0.1.1rc2", "newer than"),
        ("0.1.1rc2", "0.1.1rc10", None),
        ("0.1.0.post10", "0.1.0.post9", "newer than"),
        ("0.1.0.post9", "0.1.0.post10", None),
        ("0.1.0", "0.1.0+local", None),
        ("0.1.0+local", "0.1.0", "newer than"),
        ("0.1.0.dev3", "0.1.0a1", None),
        ("0.1.0a1", "0.1.0.dev3", "newer than"),
        ("0.1.0", "0.1", None),
        ("1!0.1.0", "0.9.0", "another series"),
        ("0.1.0", "0.1.0-RC.1", "newer than"),
    ],
)
def test_the_series_rule(generated_by: str, runtime: str, refused: str | None) -> None:
    why = refusal("npuops", generated_by, runtime)
    if refused is None:
        assert why is None
    else:
        assert why is not None and refused in why, why
        assert f"kfam {generated_by}" in why and f"kfam-runtime {runtime}" in why, why
        assert f"pip install '{requirement(generated_by)}'" in why, why


def test_the_requirement_is_the_series() -> None:
    # As `kfam_codegen::emit::python::runtime_requirement` writes it into pyproject.toml.
    assert requirement("0.1.0") == "kfam-runtime>=0.1.0,<0.2"
    assert requirement("0.12.3") == "kfam-runtime>=0.12.3,<0.13"
    assert requirement("1.4.2") == "kfam-runtime>=1.4.2,<2"
    # Normalized, and without a local label (PEP 440 allows none in a bound).
    assert requirement("0.1.0-RC1") == "kfam-runtime>=0.1.0rc1,<0.2"
    assert requirement("0.1.0+local") == "kfam-runtime>=0.1.0,<0.2"


#: Pairs of versions and their order under PEP 440 (pip's): pre-, post- and development
#: releases, local labels, epochs, and the spellings PEP 440 normalizes.
ORDERED = [
    ("0.1.1rc2", "<", "0.1.1rc10"),
    ("0.1.0.post9", "<", "0.1.0.post10"),
    ("0.1.0", "<", "0.1.0+local"),
    ("0.1.0+local", "<", "0.1.0+local.1"),
    ("0.1.0+abc", "<", "0.1.0+1"),
    ("0.1.0+1", "<", "0.1.0+2"),
    ("0.1.0+local.7", "==", "0.1.0+LOCAL-7"),
    ("1.0.dev1", "<", "1.0a1"),
    ("1.0a1", "<", "1.0a2"),
    ("1.0a2", "<", "1.0b1"),
    ("1.0b1", "<", "1.0rc1"),
    ("1.0rc1", "<", "1.0"),
    ("1.0", "<", "1.0.post1"),
    ("1.0.post1", "<", "1.0.1"),
    ("1.0a1.dev1", "<", "1.0a1"),
    ("1.0a1", "<", "1.0a1.post1"),
    ("1.0.post1.dev1", "<", "1.0.post1"),
    ("1.0", "==", "1.0.0"),
    ("1.0", "==", "1.0.0.0"),
    ("1.0rc1", "==", "1.0c1"),
    ("1.0rc1", "==", "1.0-pre1"),
    ("1.0rc1", "==", "1.0preview1"),
    ("1.0a0", "==", "1.0alpha"),
    ("1.0b2", "==", "1.0-beta.2"),
    ("1.0.post1", "==", "1.0-1"),
    ("1.0.post0", "==", "1.0.rev"),
    ("1.0.post2", "==", "1.0-r2"),
    ("1.0.dev0", "==", "1.0-dev"),
    ("1.0", "==", "v1.0"),
    ("1.0", "==", " 1.0 "),
    ("1.0", "<", "1!0.1"),
    ("1!1.0", "<", "2!0.0"),
    ("0!1.0", "==", "1.0"),
    ("1.9", "<", "1.10"),
    ("1.10.0", ">", "1.9.9"),
    ("2.0.0a1", ">", "1.99"),
    ("1.0.dev1", "<", "1.0.dev2"),
    ("1.0.0", "<", "1.0.0.1"),
]


@pytest.mark.parametrize(("a", "order", "b"), ORDERED)
def test_versions_are_ordered_as_pep_440_orders_them(a: str, order: str, b: str) -> None:
    va, vb = parse(a), parse(b)
    assert va is not None and vb is not None, (a, b)
    ours = "<" if va.key < vb.key else ">" if va.key > vb.key else "=="
    assert ours == order, (a, b)
    # pip's own order agrees, and so does the normalized spelling.
    ra, rb = Reference(a), Reference(b)
    assert ("<" if ra < rb else ">" if ra > rb else "==") == order, (a, b)
    assert str(va) == str(ra) and str(vb) == str(rb)


def test_the_order_is_pips_on_every_pair_of_the_table() -> None:
    versions = sorted({v for a, _, b in ORDERED for v in (a, b)})
    assert len(ORDERED) >= 30
    for a in versions:
        for b in versions:
            va, vb = parse(a), parse(b)
            assert va is not None and vb is not None
            assert (va.key < vb.key) == (Reference(a) < Reference(b)), (a, b)
            assert (va.key == vb.key) == (Reference(a) == Reference(b)), (a, b)


@pytest.mark.parametrize("text", ["", "one", "1.0.", "1..0", "1.0+", "1.0+a..b", "1.0-", "x1.0"])
def test_what_is_not_a_version_is_none(text: str) -> None:
    assert parse(text) is None


def _copy(
    src: Path, dest: Path, old: str | None = None, new: str = "", file: str = "__init__.py"
) -> None:
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__"))
    if old is not None:
        init = dest / file
        text = init.read_text(encoding="utf-8")
        assert text.count(old) == 1, old
        init.write_text(text.replace(old, new), encoding="utf-8")


def _import(path: list[Path], code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path))}
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )


def test_a_runtime_serves_older_generated_code_of_its_series(tmp_path: Path) -> None:
    version = kfam_runtime.__version__
    major, minor, patch = (int(n) for n in version.split(".")[:3])
    later = f"{major}.{minor}.{patch + 7}"
    runtime = tmp_path / "runtime"
    _copy(RUNTIME, runtime / "kfam_runtime", f'"{version}"', f'"{later}"', "_version.py")
    r = _import(
        [GENERATED.parent, runtime],
        "import kfam, kfam_runtime; print(kfam_runtime.__version__, len(kfam.FAMILIES))",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == later, r.stdout


@pytest.mark.parametrize("newer", ["patch", "series"])
def test_generated_code_newer_than_the_runtime_is_refused_at_import(
    tmp_path: Path, newer: str
) -> None:
    major, minor, patch = (int(n) for n in kfam_runtime.__version__.split(".")[:3])
    by = f"{major}.{minor}.{patch + 1}" if newer == "patch" else f"{major}.{minor + 1}.0"
    _copy(GENERATED, tmp_path / "kfam", REQUIRE, f'_rt.require(__name__, "{by}")')
    r = _import(
        [tmp_path, RUNTIME.parent],
        "import kfam_runtime\n"
        "try:\n"
        "    import kfam\n"
        "except kfam_runtime.VersionError as e:\n"
        "    print(e.generated_by, e.runtime, e)\n"
        "else:\n"
        "    raise SystemExit('imported')\n",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"{by} {kfam_runtime.__version__} kfam was generated by kfam {by}")
    assert f"kfam-runtime {kfam_runtime.__version__}" in r.stdout, r.stdout


def test_a_missing_runtime_names_the_range_to_install(tmp_path: Path) -> None:
    _copy(GENERATED, tmp_path / "kfam")
    r = _import([tmp_path], "import kfam")
    assert r.returncode == 1
    want = requirement(kfam_runtime.__version__)
    assert f"ImportError: kfam needs kfam's Python runtime, {want}" in r.stderr, r.stderr
    assert f"pip install '{want}'" in r.stderr, r.stderr
