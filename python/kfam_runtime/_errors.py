"""The refusals of the runtime's decisions: capability, admission and call validation.

Each carries the decision's vocabulary member and maps it to a C ABI ``Status`` member by name;
``str()`` is the Rust runtime's text, word for word. They are bases: a catalog's package derives
the classes it raises (``Error``).
"""

from __future__ import annotations

from typing import ClassVar, Final

from .vocab import (
    _ADMISSION_STATUS,
    _CALL_STATUS,
    _CAPABILITY_STATUS,
    Admission,
    CallRule,
    Capability,
    Contract,
    ExecutionMode,
    Platform,
    Status,
)


class Error(Exception):
    """Base of every refusal: ``status`` is the C ABI status code the decision maps to, a
    member of the catalog's ``Status``.

    A catalog's package derives its own classes and raises only those: its base names its
    ``Status`` (``class NpuopsError(kfam_runtime.Error, status=Status)``), and each refusal
    derives from both (``class CallError(NpuopsError, kfam_runtime.CallError)``). So
    ``except npuops.CallError`` catches that catalog's refusals, ``except
    kfam_runtime.CallError`` every catalog's.
    """

    #: The catalog's ``Status``: set by the ``status=`` of a catalog's base class.
    _status_type: ClassVar[type[Status] | None] = None

    def __init_subclass__(cls, /, status: type[Status] | None = None) -> None:
        super().__init_subclass__()
        if status is not None:
            cls._status_type = status

    @property
    def status(self) -> Status:
        statuses = type(self)._status_type
        if statuses is None:
            raise TypeError(
                f"{type(self).__name__} has no status: raise the class a catalog's package "
                "derives from it (its `Status` values are the catalog's)"
            )
        return statuses[self._status_name()]

    def _status_name(self) -> str:
        """The name of the ``Status`` member the refusal maps to."""
        raise NotImplementedError


class CapabilityError(Error):
    """A refused capability query; ``outcome`` says why (never ``SUPPORTED``), and the
    message names the query: ``family``, ``platform``, ``execution_mode`` and ``contract``
    (in the Rust runtime's words)."""

    def __init__(
        self,
        outcome: Capability,
        family: str | None = None,
        platform: Platform | None = None,
        execution_mode: ExecutionMode | None = None,
        contract: Contract | None = None,
    ) -> None:
        super().__init__(_capability_text(outcome, family, platform, execution_mode, contract))
        self.outcome: Final[Capability] = outcome
        self.family: Final[str | None] = family
        self.platform: Final[Platform | None] = platform
        self.execution_mode: Final[ExecutionMode | None] = execution_mode
        self.contract: Final[Contract | None] = contract

    def _status_name(self) -> str:
        return _CAPABILITY_STATUS[self.outcome]

    def __reduce__(
        self,
    ) -> tuple[
        type[CapabilityError],
        tuple[Capability, str | None, Platform | None, ExecutionMode | None, Contract | None],
    ]:
        return (
            type(self),
            (self.outcome, self.family, self.platform, self.execution_mode, self.contract),
        )


def _capability_text(
    outcome: Capability,
    family: str | None,
    platform: Platform | None,
    mode: ExecutionMode | None,
    contract: Contract | None,
) -> str:
    if family is None or platform is None or mode is None or contract is None:
        return outcome.spelling
    where = f"platform `{platform.spelling}` in `{mode.spelling}` mode"
    if outcome is Capability.UNKNOWN_FAMILY:
        why = f"no approved family `{family}`"
    elif outcome is Capability.RETIRED:
        why = f"family `{family}` is retired"
    elif outcome is Capability.CONTRACT_MISMATCH:
        why = f"family `{family}` is not a `{contract.spelling}` family"
    elif outcome is Capability.NO_PROFILE:
        why = f"family `{family}` has no profile for {where}"
    elif outcome is Capability.UNQUALIFIED:
        why = (
            f"family `{family}` has no qualified artifact on {where}: its receipts there are "
            "placeholders (digests of 32 leading zeros), which approve no artifact: qualify one "
            "and record its receipt"
        )
    else:
        why = f"family `{family}` has no receipt on {where}"
    return f"{outcome.spelling}: {why}"


class AdmissionError(Error):
    """A refused artifact: ``outcome`` (never ``ADMITTED``); for ``NOT_APPROVED``, the
    first ``field`` of ``compiled_meta.json`` that differs (``"params"``, ``"artifact.sha256"``);
    for ``MALFORMED``, the ``reason``, which names the key at fault (``"`dtype` of `params` is
    not a known value"``), as the Rust runtime and the C ABI's ``admit_message`` word it. A
    placeholder digest is ``NOT_APPROVED`` with both: the field and why
    (``is_placeholder_digest``).
    """

    def __init__(
        self, outcome: Admission, field: str | None = None, reason: str | None = None
    ) -> None:
        if reason is not None:
            text = f"{outcome.spelling}: {reason}"
        elif field is not None:
            text = f"{outcome.spelling} (`{field}` differs)"
        else:
            text = outcome.spelling
        super().__init__(text)
        self.outcome: Final[Admission] = outcome
        self.field: Final[str | None] = field
        self.reason: Final[str | None] = reason

    def _status_name(self) -> str:
        return _ADMISSION_STATUS[self.outcome]

    def __reduce__(
        self,
    ) -> tuple[type[AdmissionError], tuple[Admission, str | None, str | None]]:
        return (type(self), (self.outcome, self.field, self.reason))


class CallError(Error, ValueError):
    """A rejected call: the ``rule`` (never ``OK``) and the signature index of the parameter it
    concerns (``param``, an index into ``Family.params``; ``None`` for the argument counts).

    ``validate_call`` gives it a ``message`` saying what was expected and what was passed
    (``"argument 1 (`rhs`): dtype: dtype fp16, expected bf16"``), in the words of the Rust
    runtime's ``CallError::explain`` and ``kfam_validate_call_message``; ``str()`` is that
    message, or ``"argument 1: dtype"`` (Rust's ``Display``) for an error built without one.
    """

    def __init__(
        self,
        rule: CallRule,
        param: int | None = None,
        symbol: int | None = None,
        other: int | None = None,
        message: str | None = None,
    ) -> None:
        text = rule.spelling if param is None else f"argument {param}: {rule.spelling}"
        super().__init__(text if message is None else message)
        self.rule: Final[CallRule] = rule
        self.param: Final[int | None] = param
        #: ``dim_mismatch`` and ``dim_range``: the named symbol, an index into ``Family.symbols``.
        self.symbol: Final[int | None] = symbol
        #: ``dim_mismatch``: the parameter whose extent the symbol took first.
        self.other: Final[int | None] = other
        self.message: Final[str | None] = message

    def _status_name(self) -> str:
        return _CALL_STATUS[self.rule]

    def __reduce__(
        self,
    ) -> tuple[type[CallError], tuple[CallRule, int | None, int | None, int | None, str | None]]:
        return (type(self), (self.rule, self.param, self.symbol, self.other, self.message))
