"""Hand-written methods of the record classes of ``kfam_runtime.records``.

The record dataclasses are printed from kfam's record declarations; the few that carry methods
inherit them from the mixins here (a declaration names its mixin). Each mixin declares the
fields its methods read, for type checkers, and holds no state of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .vocab import ParamKind

if TYPE_CHECKING:
    from .records import Param, Profile, Receipt


class _ParamMethods:
    __slots__ = ()

    kind: ParamKind

    @property
    def is_tensor(self) -> bool:
        """Whether the parameter is a tensor (else a scalar)."""
        return self.kind == ParamKind.TENSOR


class _FamilyMethods:
    __slots__ = ()

    name: str
    params: tuple[Param, ...]
    returns: tuple[int, ...]
    profiles: tuple[Profile, ...]
    receipts: tuple[Receipt, ...]

    @property
    def return_params(self) -> tuple[Param, ...]:
        """The parameters the return aliases name, in order."""
        return tuple(self.params[i] for i in self.returns)

    def param(self, name: str) -> Param:
        """The parameter called ``name``; ``KeyError`` when there is none."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"family {self.name!r} has no parameter {name!r}")

    def profile(self, name: str) -> Profile:
        """The profile called ``name``; ``KeyError`` when there is none."""
        for p in self.profiles:
            if p.name == name:
                return p
        raise KeyError(f"family {self.name!r} has no profile {name!r}")

    def receipts_for(self, profile: str) -> tuple[Receipt, ...]:
        """The receipts of the profile called ``profile`` (empty: not supported there)."""
        return tuple(r for r in self.receipts if self.profiles[r.profile].name == profile)
