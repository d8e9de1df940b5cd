"""Hand-written methods of the record classes of ``kfam_runtime.records``.

The record dataclasses are printed from kfam's record declarations; the few that carry methods
inherit them from the mixins here (a declaration names its mixin). Each mixin declares the
fields its methods read, for type checkers, and holds no state of its own. A mixin that returns
records is generic over them (``_FamilyMethods[Param, Profile, Receipt]``), so that this module
does not import ``records``, which imports it.
"""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar

from .vocab import ParamKind


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class _OfProfile(Protocol):
    @property
    def profile(self) -> int: ...


_P = TypeVar("_P", bound=_Named)
_Pr = TypeVar("_Pr", bound=_Named)
_R = TypeVar("_R", bound=_OfProfile)


class _ParamMethods:
    __slots__ = ()

    kind: ParamKind

    @property
    def is_tensor(self) -> bool:
        """Whether the parameter is a tensor (else a scalar)."""
        return self.kind == ParamKind.TENSOR


class _FamilyMethods(Generic[_P, _Pr, _R]):
    __slots__ = ()

    name: str
    params: tuple[_P, ...]
    returns: tuple[int, ...]
    profiles: tuple[_Pr, ...]
    receipts: tuple[_R, ...]

    @property
    def return_params(self) -> tuple[_P, ...]:
        """The parameters the return aliases name, in order."""
        return tuple(self.params[i] for i in self.returns)

    def param(self, name: str) -> _P:
        """The parameter called ``name``; ``KeyError`` when there is none."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"family {self.name!r} has no parameter {name!r}")

    def profile(self, name: str) -> _Pr:
        """The profile called ``name``; ``KeyError`` when there is none."""
        for p in self.profiles:
            if p.name == name:
                return p
        raise KeyError(f"family {self.name!r} has no profile {name!r}")

    def receipts_for(self, profile: str) -> tuple[_R, ...]:
        """The receipts of the profile called ``profile`` (empty: not supported there)."""
        return tuple(r for r in self.receipts if self.profiles[r.profile].name == profile)
