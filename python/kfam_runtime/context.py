"""The kernel context (``docs/runtime.md``): the kernel-mode entry layer over a catalog's
approved tables, with the decisions of the Rust runtime's ``kfam_runtime::Context``.

A catalog's ``context`` module binds it to the catalog: ``npuops.context.Context()`` is a
``Context`` over ``npuops``'s tables, raising ``npuops.context.ContextError``.
``Context().init(platform, execution_mode, contract, launcher)`` latches the identity once;
``supported(family)``, ``prepare(compiled_meta, sha256) -> callable id``,
``launch(callable, tensors, scalars, stream)`` (validated, then handed to ``launcher``, whose
return value is returned unchanged) and ``close()`` (idempotent) follow. Refusals raise the
catalog's ``ContextError`` with the ``Status`` of the C ABI; a refused entry leaves the context
as it was. The generation counter is one per process, whatever the catalog.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Union

from ._call import ScalarArg, TensorArg
from ._catalog import Catalog
from ._errors import AdmissionError, CallError, CapabilityError, Error
from .records import Family, Profile
from .vocab import Contract, ExecutionMode, Platform, Status

_GENERATIONS: Final = itertools.count(1)
_GENERATION_LOCK: Final = threading.Lock()
_DIGEST: Final = re.compile(r"[0-9a-f]{64}")


def next_generation() -> int:
    """The next number of the process-wide generation counter (the first is 1)."""
    with _GENERATION_LOCK:
        return next(_GENERATIONS)


class ContextError(Error):
    """A refused context entry: the C ABI ``Status`` and why. A catalog's ``context`` module
    derives its own class, which is the one raised."""

    def __init__(self, status: Status, message: str) -> None:
        super().__init__(f"{status.spelling}: {message}")
        self._status: Final[Status] = status

    @property
    def status(self) -> Status:
        return self._status


@dataclass(frozen=True, slots=True)
class Launch:
    """One validated call handed to the launcher."""

    callable: int
    generation: int
    family: Family
    profile: Profile
    tensors: Sequence[TensorArg]
    scalars: Sequence[ScalarArg]
    stream: int


#: The embedding runtime's launch entry: its return value is returned unchanged.
Launcher = Callable[[Launch], int]


@dataclass(frozen=True, slots=True)
class _Identity:
    platform: Platform
    execution_mode: ExecutionMode
    contract: Contract
    generation: int
    launcher: Launcher


class _Slot:
    """One preparation of one artifact: concurrent callers share its outcome."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Union[int, ContextError, None] = None


class Context:
    """A kernel context over a catalog's approved tables, refusing with ``error`` (the
    catalog's ``ContextError``); at most ``max_prepared`` prepared callables (the catalog's
    ``MAX_PREPARED`` when ``None``)."""

    def __init__(
        self, catalog: Catalog, error: type[ContextError], max_prepared: int | None = None
    ) -> None:
        self._catalog: Final = catalog
        self._error: Final = error
        self._lock = threading.Lock()
        self._state = "fresh"
        self._identity: _Identity | None = None
        self._by_artifact: dict[str, _Slot] = {}
        self._callables: list[tuple[Family, Profile]] = []
        self._max_prepared = catalog.max_prepared if max_prepared is None else max_prepared

    def _refuse(self, status: str, message: str) -> ContextError:
        """The refusal with the catalog's ``Status`` member called ``status``."""
        return self._error(self._catalog.status[status], message)

    def _from(self, e: Error) -> ContextError:
        return self._error(e.status, str(e))

    def _ready(self) -> _Identity:
        with self._lock:
            if self._state == "closed":
                raise self._refuse("INVALID_STATE", "the context is closed")
            if self._identity is None:
                raise self._refuse("INVALID_STATE", "the context is not initialised")
            return self._identity

    @property
    def generation(self) -> int:
        return self._ready().generation

    def init(
        self,
        platform: Platform,
        execution_mode: ExecutionMode,
        contract: Contract,
        launcher: Launcher,
        generation: int | None = None,
    ) -> int:
        """Latch the identity once; returns the generation."""
        if (
            not isinstance(platform, self._catalog.targets.platform)
            or not isinstance(execution_mode, self._catalog.targets.execution_mode)
            or not isinstance(contract, Contract)
            or not callable(launcher)
            or (generation is not None and (not isinstance(generation, int) or generation < 1))
        ):
            raise self._refuse("INVALID_ARGUMENT", "invalid init arguments")
        with self._lock:
            if self._state == "closed":
                raise self._refuse("INVALID_STATE", "the context is closed")
            if self._identity is not None:
                raise self._refuse("INVALID_STATE", "the context is already initialised")
            if contract is not Contract.KERNEL:
                raise self._refuse(
                    "INVALID_STATE", "a kernel context cannot be latched in program mode"
                )
            if not any(
                f.contract is contract
                and any(
                    p.platform is platform and p.execution_mode is execution_mode
                    for p in f.profiles
                )
                for f in self._catalog.each_family()
            ):
                raise self._refuse(
                    "UNSUPPORTED",
                    f"no approved {contract.spelling} profile runs on `{platform.spelling}`"
                    f" in `{execution_mode.spelling}` mode",
                )
            gen = next_generation() if generation is None else generation
            self._identity = _Identity(platform, execution_mode, contract, gen, launcher)
            self._state = "ready"
            return gen

    def supported(self, family: str) -> None:
        """Capability of ``family`` for the latched identity; raises ``ContextError``."""
        if not isinstance(family, str) or not family:
            raise self._refuse("INVALID_ARGUMENT", "empty family name")
        ident = self._ready()
        try:
            self._catalog.capability(family, ident.platform, ident.execution_mode, ident.contract)
        except CapabilityError as e:
            raise self._from(e) from None

    def prepare(self, compiled_meta: bytes, sha256: str) -> int:
        """Admit and check one artifact; the same artifact twice returns the same id."""
        if not isinstance(sha256, str) or _DIGEST.fullmatch(sha256) is None:
            raise self._refuse(
                "INVALID_ARGUMENT", "the artifact digest is not 64 lowercase hex digits"
            )
        if not isinstance(compiled_meta, (bytes, bytearray, memoryview)) or len(compiled_meta) == 0:
            raise self._refuse("INVALID_ARGUMENT", "empty compiled_meta")
        ident = self._ready()
        with self._lock:
            slot = self._by_artifact.get(sha256)
            owner = slot is None
            if slot is None:
                if len(self._by_artifact) >= self._max_prepared:
                    raise self._refuse(
                        "INVALID_STATE",
                        "the context already holds its limit of"
                        f" {self._max_prepared} prepared callables",
                    )
                slot = _Slot()
                self._by_artifact[sha256] = slot
        if owner:
            try:
                slot.result = self._decide(ident, bytes(compiled_meta), sha256)
            except ContextError as e:
                slot.result = e
            finally:
                if isinstance(slot.result, ContextError) or slot.result is None:
                    with self._lock:
                        if self._by_artifact.get(sha256) is slot:
                            del self._by_artifact[sha256]
                slot.done.set()
        slot.done.wait()
        result = slot.result
        if isinstance(result, int):
            return result
        raise result if result is not None else self._refuse("INTERNAL", "no outcome")

    def _decide(self, ident: _Identity, document: bytes, sha256: str) -> int:
        try:
            admitted = self._catalog.admit(document, sha256)
        except AdmissionError as e:
            raise self._from(e) from None
        if admitted.contract is not ident.contract:
            raise self._refuse(
                "INVALID_STATE",
                f"a {admitted.contract.spelling} artifact cannot be prepared on a"
                f" {ident.contract.spelling} context",
            )
        name = admitted.family.name
        try:
            s = self._catalog.capability(name, ident.platform, ident.execution_mode, ident.contract)
        except CapabilityError as e:
            raise self._from(e) from None
        if s.profile is not admitted.profile:
            raise self._refuse(
                "UNSUPPORTED",
                f"the artifact's profile of `{name}` is not the one for this context",
            )
        with self._lock:
            # A preparation in flight when the context closed adds nothing.
            if self._state != "ready":
                raise self._refuse("INVALID_STATE", "the context was closed during the preparation")
            self._callables.append((admitted.family, admitted.profile))
            return len(self._callables)

    def family_of(self, callable_id: int) -> Family | None:
        """The family ``callable_id`` was prepared for."""
        with self._lock:
            if isinstance(callable_id, int) and 1 <= callable_id <= len(self._callables):
                return self._callables[callable_id - 1][0]
            return None

    def launch(
        self,
        callable_id: int,
        tensors: Sequence[TensorArg],
        scalars: Sequence[ScalarArg],
        stream: int,
    ) -> int:
        """Validate a call and hand it to the launcher; returns the launcher's status."""
        if (
            not isinstance(callable_id, int)
            or callable_id < 1
            or not isinstance(stream, int)
            or not 0 <= stream < 1 << 64
        ):
            raise self._refuse("INVALID_ARGUMENT", "invalid callable id or stream")
        ident = self._ready()
        with self._lock:
            if callable_id > len(self._callables):
                raise self._refuse(
                    "INVALID_ARGUMENT",
                    f"callable {callable_id} was not prepared on this context",
                )
            family, profile = self._callables[callable_id - 1]
        try:
            self._catalog.validate_call(family, tensors, scalars)
        except CallError as e:
            raise self._refuse("INVALID_ARGUMENT", str(e)) from None
        return ident.launcher(
            Launch(callable_id, ident.generation, family, profile, tensors, scalars, stream)
        )

    def close(self) -> None:
        """Release everything the context holds; idempotent."""
        with self._lock:
            self._state = "closed"
            self._identity = None
            self._by_artifact.clear()
            self._callables.clear()
