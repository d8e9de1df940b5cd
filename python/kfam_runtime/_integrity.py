"""A catalog's package serves only the data ``kfam generate`` wrote (docs/python.md, "Integrity").

The runtime checks each data file of a catalog's package before Python reads it: ``_abi.py``
ends with a line holding the SHA-256 of every byte before it (``# kfam-sha256: ...``), which
the package's ``__init__.py`` has checked (``check_data``) before it imports the file; and
``_abi.py`` records the SHA-256 of ``_tables.py``, which ``Catalog`` checks before its first
lookup imports it. An edited, truncated or emptied file, or a missing one, raises
``CorruptError`` naming the file, rather than serving other data (a shape 1024 read as 2048) or
failing later as a ``SyntaxError``, ``AttributeError`` or ``NameError``. The digests detect
damage (a bad merge, a ``sed``, a truncated copy), not intent: someone who edits a file and
its digest is editing the package.

Line endings are normalized before hashing (a checkout that writes CRLF serves the same data),
as Python's import does. A compiled ``__pycache__`` entry is Python's own cache of the file it
was compiled from, which Python checks against the file's size and modification time.
"""

from __future__ import annotations

import hashlib
import os
import sys
import zipimport
from typing import Final


class CorruptError(RuntimeError):
    """A data file of a catalog's package that is not the one ``kfam generate`` wrote: ``file``
    (``npuops/_tables.py``), its ``path`` on disk when known, and why (in the message)."""

    def __init__(self, package: str, file: str, path: str | None, message: str) -> None:
        super().__init__(message)
        self.package: Final = package
        self.file: Final = file
        self.path: Final = path


def file_name(package: str, name: str) -> str:
    """The data file ``name`` of ``package`` as messages name it: ``kfam/_tables.py``."""
    return f"{package.replace('.', '/')}/{name}"


def _read(package: str, name: str) -> tuple[bytes | None, str | None]:
    """The bytes of the data file ``name`` beside ``package``'s ``__init__.py`` (through the
    zip importer for a package imported from a zip file) and its path; ``None`` when missing."""
    module = sys.modules.get(package)
    spec = None if module is None else module.__spec__
    locations = None if spec is None else spec.submodule_search_locations
    if not locations:
        return None, None
    path = os.path.join(locations[0], name)
    try:
        if spec is not None and isinstance(spec.loader, zipimport.zipimporter):
            return spec.loader.get_data(path), path
        with open(path, "rb") as f:
            return f.read(), path
    except OSError:
        return None, path


#: The last line of a self-checked data file: the SHA-256 of every byte before it.
CHECKSUM: Final = b"# kfam-sha256: "


def check_data(package: str, name: str, sha256: str | None = None) -> None:
    """Refuse the data file ``name`` of ``package`` unless it is the file kfam generate wrote:
    its SHA-256 is ``sha256`` or, without one, the checksum its last line records of the rest.
    ``CorruptError`` names the file, its path and both digests."""
    file = file_name(package, name)
    content, path = _read(package, name)
    where = f" ({path})" if path else ""
    fix = f"reinstall or regenerate {package.split('.')[0]} (kfam generate)"
    if content is None:
        raise CorruptError(package, file, path, f"{file} is missing{where}: {fix}")
    content = content.replace(b"\r\n", b"\n")
    hashed, whose = content, package
    if sha256 is None:
        body, _, last = content[:-1].rpartition(b"\n")
        recorded = last[len(CHECKSUM) :] if last.startswith(CHECKSUM) else b""
        if not content.endswith(b"\n") or len(recorded) != 64 or not recorded.isalnum():
            raise CorruptError(
                package,
                file,
                path,
                f"{file} is corrupt{where}: it does not end with its checksum line "
                f"({CHECKSUM.decode()}...; {len(content)} bytes): the file was edited, "
                f"truncated or damaged after kfam generate wrote it; {fix}",
            )
        hashed, sha256, whose = body + b"\n", recorded.decode("ascii"), "its checksum line"
    actual = hashlib.sha256(hashed).hexdigest()
    if actual != sha256:
        raise CorruptError(
            package,
            file,
            path,
            f"{file} is corrupt{where}: its SHA-256 is {actual} ({len(content)} bytes), "
            f"{whose} records {sha256}: the file was edited, truncated or damaged after kfam "
            f"generate wrote it; {fix}",
        )
