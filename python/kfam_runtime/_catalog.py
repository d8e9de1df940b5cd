"""A generated catalog at run time: its identity, its lazy tables and the decisions over them.

A catalog's package (``kfam generate``'s output) holds data only: ``_abi`` (its identity, ABI,
``Status`` and target vocabularies) and ``_tables`` (each family as one row, a JSON array of
fields by position, in the order of kfam's record declarations). It builds one ``Catalog`` of
them and binds its methods as its functions (``npuops.family``, ``npuops.capability``, ...).

Importing the package does not even load the rows: ``_tables`` is imported by the first lookup
that needs a row (at 10,000 families the rows are most of what an import would cost).
``find_family`` decodes a family's row the first time it is asked for and keeps the records, so
every later lookup returns the very same objects without reading the tables. Lookups by name
and by artifact digest are dict lookups. Refusals are raised as the catalog's own classes
(``Errors``).
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final, Protocol, cast

from ._admission import Admitted, admit as _admit, is_placeholder_digest
from ._call import ScalarArg, TensorArg, _require, validate_call as _validate_call
from ._decode import Corrupt
from ._errors import AdmissionError, CallError, CapabilityError, Error
from ._integrity import CorruptError, check_data, file_name
from .records import Family, Profile, Receipt, Retired, decode_family, decode_retired
from .vocab import (
    Backend,
    Capability,
    Contract,
    ExecutionMode,
    Platform,
    Runtime,
    Status,
    Targets,
)


class Tables(Protocol):
    """What the runtime reads of a catalog's ``_tables`` module, which ``kfam generate`` writes
    (codegen/tests/sourcegen.rs keeps the two in step)."""

    FAMILY_ROWS: dict[str, str]
    ARTIFACTS: dict[str, str]
    RETIRED_ROWS: dict[str, str]
    RETIRED_ARTIFACTS: dict[str, str]


class _TorchModule(Protocol):
    """The attribute of a catalog's ``torch`` module its package reads on first use."""

    qualify: object


@dataclass(frozen=True, slots=True, kw_only=True)
class Errors:
    """The classes a catalog raises its refusals as: its own, each derived from its ``base``
    and from the runtime's class of that refusal (keywords only, so that a later runtime of
    the series can add one with a default)."""

    base: type[Error]
    capability: type[CapabilityError]
    admission: type[AdmissionError]
    call: type[CallError]


@dataclass(frozen=True, slots=True)
class Supported:
    """A supported capability: the family, the matching profile and its receipt."""

    family: Family
    profile: Profile
    receipt: Receipt
    #: The C ABI status of the decision: the catalog's ``Status.OK``.
    status: Status

    @property
    def outcome(self) -> Capability:
        return Capability.SUPPORTED

    def __str__(self) -> str:
        """The decision in words, as Rust's ``Supported`` and the C ABI's
        ``capability_message`` write it."""
        return (
            f"{Capability.SUPPORTED.spelling}: family `{self.family.name}` runs on platform "
            f"`{self.profile.platform.spelling}` in `{self.profile.execution_mode.spelling}` "
            f"mode with profile `{self.profile.name}`"
        )


def _type_name(value: object) -> str:
    t = type(value)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


class Catalog:
    """One generated catalog: its identity, its tables and the runtime's decisions over them.

    Built once by the catalog's package from its data (keyword arguments, so that a later
    runtime of the same series can add optional ones). Lookups and decisions are thread safe:
    two threads that decode the same family at once keep one of the two records
    (``dict.setdefault``), so ``catalog.family(n) is catalog.family(n)`` holds.
    """

    def __init__(
        self,
        *,
        package: str,
        name: str,
        version: str,
        digest: str,
        torch_namespace: str,
        abi_revision: str,
        max_prepared: int,
        status: type[Status],
        platform: type[Platform],
        backend: type[Backend],
        runtime: type[Runtime],
        execution_mode: type[ExecutionMode],
        errors: Errors,
        tables_sha256: str | None = None,
    ) -> None:
        #: The import package (its ``__name__``), whose ``_tables`` module holds the rows.
        self.package: Final = package
        #: The catalog's name (``[catalog]`` of its ``abi.toml``).
        self.name: Final = name
        #: The package's version: the catalog's declared release.
        self.version: Final = version
        #: SHA-256 of what the catalog approves.
        self.digest: Final = digest
        #: The torch namespace its families are defined in.
        self.torch_namespace: Final = torch_namespace
        #: Native runtime commit the approved artifacts are built against.
        self.abi_revision: Final = abi_revision
        #: Most callables one kernel context holds prepared, by default.
        self.max_prepared: Final = max_prepared
        #: The catalog's C ABI status codes.
        self.status: Final = status
        #: The catalog's platforms, backends, runtimes and execution modes.
        self.targets: Final = Targets(platform, backend, runtime, execution_mode)
        #: The classes its refusals are raised as.
        self.errors: Final = errors
        #: The status of every acceptance.
        self.ok: Final = status["OK"]
        # The families decoded so far, by name (a family is decoded once: `setdefault` keeps
        # the first record when two threads race, so lookups always return the same object).
        self._families: Final[dict[str, Family]] = {}
        self._retired: Final[dict[str, Retired]] = {}
        self._loaded: Tables | None = None
        #: The SHA-256 of ``_tables.py`` the package records (``_integrity.py``); a package
        #: generated before it recorded one passes none.
        self._tables_sha256: Final = tables_sha256

    def __repr__(self) -> str:
        return f"<kfam_runtime.Catalog {self.name!r} {self.version} of package {self.package!r}>"

    # ------------------------------------------------------------ tables

    def _tables(self) -> Tables:
        """The rows, imported on first use, once ``_tables.py`` is checked against the digest
        the package records for it (``CorruptError`` naming the file otherwise)."""
        tables = self._loaded
        if tables is None:
            if self._tables_sha256 is not None:
                check_data(self.package, "_tables.py", self._tables_sha256)
            try:
                module = importlib.import_module(f"{self.package}._tables")
            except (SyntaxError, ImportError, ValueError, EOFError) as e:
                # The file is checked: its compiled cache, or the file since, is not.
                raise self._corrupt("module that does not load", str(e)) from e
            missing = [n for n in Tables.__annotations__ if not hasattr(module, n)]
            if missing:
                raise self._corrupt("module without", ", ".join(missing))
            tables = cast(Tables, module)
            self._loaded = tables
        return tables

    def _corrupt(self, what: str, value: object) -> CorruptError:
        # Rows are written by the generator: a mismatch means an edited or truncated _tables.py.
        file = file_name(self.package, "_tables.py")
        return CorruptError(
            self.package, file, None, f"{file} is corrupt: unexpected {what} {value!r:.80}"
        )

    def family(self, name: str) -> Family:
        """The approved family called ``name``; ``KeyError`` when there is none."""
        found = self.find_family(name)
        if found is None:
            raise KeyError(f"no approved family of the {self.name} catalog is called {name!r}")
        return found

    def find_family(self, name: str) -> Family | None:
        """The approved family called ``name``, or ``None``."""
        found = self._families.get(name)
        if found is not None:
            return found
        row = self._tables().FAMILY_ROWS.get(name)
        if row is None:
            return None
        try:
            parsed: object = json.loads(row)
            decoded = decode_family(name, parsed, self.targets)
        except Corrupt as e:
            raise self._corrupt(e.what, e.value) from None
        except (ValueError, IndexError) as e:  # not JSON, an unknown code, a short row
            raise self._corrupt(f"row of {name!r}", row) from e
        return self._families.setdefault(name, decoded)

    def find_artifact(self, sha256: str) -> tuple[Family, Profile, Receipt] | None:
        """The family, profile and receipt that approve the artifact whose SHA-256 is ``sha256``.

        ``sha256`` is matched exactly: 64 lowercase hex digits, as ``sha256sum`` prints them.
        ``None`` means no receipt approves the artifact, so it must not be loaded.
        """
        name = self._tables().ARTIFACTS.get(sha256)
        if name is None:
            return None
        fam = self.family(name)
        for r in fam.receipts:
            if r.sha256 == sha256:
                return fam, fam.profiles[r.profile], r
        raise self._corrupt("artifact index", sha256)

    def find_retired(self, name: str) -> Retired | None:
        """The tombstone of the retired family called ``name``, or ``None``."""
        found = self._retired.get(name)
        if found is not None:
            return found
        row = self._tables().RETIRED_ROWS.get(name)
        if row is None:
            return None
        try:
            parsed: object = json.loads(row)
            decoded = decode_retired(name, parsed)
        except Corrupt as e:
            raise self._corrupt(e.what, e.value) from None
        except (ValueError, IndexError) as e:
            raise self._corrupt(f"row of {name!r}", row) from e
        return self._retired.setdefault(name, decoded)

    def find_retired_artifact(self, sha256: str) -> Retired | None:
        """The tombstone of the retired family an artifact digest was approved for, or ``None``."""
        name = self._tables().RETIRED_ARTIFACTS.get(sha256)
        return None if name is None else self.find_retired(name)

    def is_retired(self, name: str) -> bool:
        """Whether ``name`` is a retired family (without decoding its tombstone)."""
        return name in self._tables().RETIRED_ROWS

    def each_family(self) -> Iterator[Family]:
        """Every approved family, sorted by name, each decoded when the iteration reaches it."""
        for name in self._tables().FAMILY_ROWS:
            found = self.find_family(name)
            if found is not None:
                yield found

    def families(self) -> tuple[Family, ...]:
        """Every approved family, sorted by name (all of them decoded)."""
        return tuple(self.each_family())

    def retired(self) -> tuple[Retired, ...]:
        """Every retired family, sorted by name."""
        names = self._tables().RETIRED_ROWS
        return tuple(r for r in map(self.find_retired, names) if r is not None)

    def module_getattr(self, name: str) -> object:
        """The package's ``__getattr__`` (PEP 562): ``FAMILIES`` and ``RETIRED``, built on first
        access, and ``qualify``, imported from the package's ``torch`` module on first use (it
        needs PyTorch); each then kept as a plain module attribute."""
        value: object
        if name == "FAMILIES":
            value = self.families()
        elif name == "RETIRED":
            value = self.retired()
        elif name == "qualify":
            torch = cast(_TorchModule, importlib.import_module(f"{self.package}.torch"))
            value = torch.qualify
        else:
            raise AttributeError(f"module {self.package!r} has no attribute {name!r}")
        setattr(sys.modules[self.package], name, value)
        return value

    # ------------------------------------------------------------ decisions

    def _require_target(self, value: object, cls: type[object], what: str) -> None:
        # Another catalog's member has the same class name: say whose class is expected.
        if not isinstance(value, cls):
            want = f"{self.package}.{cls.__name__}"
            raise TypeError(f"{what} must be a {want}, not {_type_name(value)}")

    def capability(
        self, family: str, platform: Platform, execution_mode: ExecutionMode, contract: Contract
    ) -> Supported:
        """May ``family`` run on ``platform`` in ``execution_mode`` with ``contract``?

        Returns the first profile of the family for that platform and mode that has a receipt;
        raises the catalog's ``CapabilityError`` with ``UNKNOWN_FAMILY`` (``RETIRED`` for a
        retired name), ``CONTRACT_MISMATCH``, ``NO_PROFILE`` (no profile for the platform and
        mode), ``NO_RECEIPT`` (profiles, but no receipt) or ``UNQUALIFIED`` (its only receipts
        there are placeholders, ``is_placeholder_digest``), checked in that order. A placeholder
        receipt never supports a query: a real receipt beside one answers.
        """
        _require(family, str, "family")
        self._require_target(platform, self.targets.platform, "platform")
        self._require_target(execution_mode, self.targets.execution_mode, "execution_mode")
        _require(contract, Contract, "contract")
        refused = self.errors.capability
        query = (family, platform, execution_mode, contract)
        fam = self.find_family(family)
        if fam is None:
            why = Capability.RETIRED if self.is_retired(family) else Capability.UNKNOWN_FAMILY
            raise refused(why, *query)
        if fam.contract is not contract:
            raise refused(Capability.CONTRACT_MISMATCH, *query)
        any_profile = placeholder = False
        for i, profile in enumerate(fam.profiles):
            if profile.platform is not platform or profile.execution_mode is not execution_mode:
                continue
            any_profile = True
            for receipt in fam.receipts:
                if receipt.profile != i:
                    continue
                # A placeholder approves no artifact: it never supports a query.
                if is_placeholder_digest(receipt.sha256):
                    placeholder = True
                    continue
                return Supported(fam, profile, receipt, self.ok)
        if placeholder:
            raise refused(Capability.UNQUALIFIED, *query)
        raise refused(Capability.NO_RECEIPT if any_profile else Capability.NO_PROFILE, *query)

    def admit(self, document: bytes | bytearray | memoryview, sha256: str) -> Admitted:
        """Admit an artifact: ``document`` is its ``compiled_meta.json`` (the exact bytes),
        ``sha256`` the artifact's SHA-256 (lowercase hex). Raises the catalog's
        ``AdmissionError``.

        Strict JSON (UTF-8, no duplicate or unknown keys, a bool is not an integer, no NaN, no
        trailing data) of at most ``MAX_DOCUMENT_BYTES``. Schema 1 and 2 documents are program
        metadata matched through the artifact digest; schema 3 documents must exact-match an
        approved family, profile and receipt.
        """
        try:
            return _admit(self, document, sha256)
        except AdmissionError as e:
            raise self.errors.admission(e.outcome, e.field, e.reason) from None

    def validate_call(
        self, family: Family, tensors: Sequence[TensorArg], scalars: Sequence[ScalarArg]
    ) -> None:
        """Validate one call of ``family``; raises the catalog's ``CallError(rule, param)``.

        ``tensors`` are the tensor arguments in signature order (the family's tensor pool),
        ``scalars`` the scalar ones. Checked in order: the argument counts; each tensor (dtype,
        rank, extents, storage offset, format and layout, NZ offset and capacity, contiguity,
        storage bounds) and its device; each named symbol (equal extents, then its constraints);
        each scalar (kind, integer range, float overflow); then every pair of views of one
        storage (partial overlap with a written tensor is refused, reported on the later
        parameter). The error's ``message`` says what was expected and what was passed.
        """
        try:
            _validate_call(family, tensors, scalars)
        except CallError as e:
            raise self.errors.call(e.rule, e.param, e.symbol, e.other, e.message) from None
