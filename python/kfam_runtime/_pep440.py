"""Versions as PEP 440 orders them (pip's order): every version comparison the runtime makes.

The standard library only, as the rest of the runtime (docs/compatibility.md, "Versions"): this
is the order of ``packaging.version.Version``, written out rather than depended on, so that a
catalog's package installs with no dependency but ``kfam-runtime``. A version is read in any
spelling PEP 440 normalizes (``1.0-RC.1``, ``v1.0``, ``1.0-1``, ``1.0.post-1``, ``1!2.0``) and
compared by its key: epoch, release (trailing zeros dropped), pre-release (``a`` < ``b`` <
``rc``), post-release, development release, local label. A development release comes before
its pre-releases and its release (``1.0.dev1`` < ``1.0a1`` < ``1.0``), a post-release after its
release, and a local label after the same public version (``1.0`` < ``1.0+local``; numeric
segments after alphanumeric ones).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

_PATTERN: Final = re.compile(
    r"""
    v?
    (?:(?P<epoch>[0-9]+)!)?
    (?P<release>[0-9]+(?:\.[0-9]+)*)
    (?P<pre>
        [-_.]?
        (?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)
        [-_.]?
        (?P<pre_n>[0-9]+)?
    )?
    (?P<post>
        (?:-(?P<post_n1>[0-9]+))
        |
        (?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?)
    )?
    (?P<dev>
        [-_.]?
        (?P<dev_l>dev)
        [-_.]?
        (?P<dev_n>[0-9]+)?
    )?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    """,
    re.VERBOSE | re.IGNORECASE,
)

#: A pre-release's letter, normalized, and its rank.
_PRE: Final = {
    "a": ("a", 0),
    "alpha": ("a", 0),
    "b": ("b", 1),
    "beta": ("b", 1),
    "c": ("rc", 2),
    "rc": ("rc", 2),
    "pre": ("rc", 2),
    "preview": ("rc", 2),
}

#: The order of a version (see ``Version.key``).
Key = tuple[
    int,
    tuple[int, ...],
    tuple[int, ...],
    tuple[int, ...],
    tuple[int, ...],
    tuple[tuple[int, int, str], ...],
]


@dataclass(frozen=True, slots=True)
class Version:
    """A PEP 440 version, normalized: compare versions by ``key``."""

    epoch: int
    release: tuple[int, ...]
    #: ``("a" | "b" | "rc", n)``.
    pre: tuple[str, int] | None
    post: int | None
    dev: int | None
    #: The local label, normalized (lowercase, segments separated by ``.``).
    local: str | None

    @property
    def public(self) -> str:
        """The version without its local label, normalized: ``1.0rc1.post2.dev3``."""
        text = f"{self.epoch}!" if self.epoch else ""
        text += ".".join(map(str, self.release))
        if self.pre is not None:
            text += f"{self.pre[0]}{self.pre[1]}"
        if self.post is not None:
            text += f".post{self.post}"
        if self.dev is not None:
            text += f".dev{self.dev}"
        return text

    def __str__(self) -> str:
        return self.public + (f"+{self.local}" if self.local is not None else "")

    @property
    def key(self) -> Key:
        """What orders versions: equal keys are equal versions (``1.0`` and ``1.0.0``)."""
        release = self.release
        while len(release) > 1 and release[-1] == 0:
            release = release[:-1]
        # A development release of a release sorts before its pre-releases.
        if self.pre is None and self.post is None and self.dev is not None:
            pre: tuple[int, ...] = (-1,)
        elif self.pre is None:
            pre = (1,)
        else:
            pre = (0, _PRE[self.pre[0]][1], self.pre[1])
        post = (-1,) if self.post is None else (0, self.post)
        dev = (1,) if self.dev is None else (0, self.dev)
        local: tuple[tuple[int, int, str], ...] = ()
        if self.local is not None:
            local = tuple(
                (1, int(s), "") if s.isdigit() else (0, 0, s) for s in self.local.split(".")
            )
        return self.epoch, release, pre, post, dev, local


def parse(text: str) -> Version | None:
    """``text`` as a PEP 440 version, or ``None`` when it is not one."""
    m = _PATTERN.fullmatch(text.strip())
    if m is None:
        return None
    pre = None
    if m.group("pre_l") is not None:
        pre = (_PRE[str(m.group("pre_l")).lower()][0], int(m.group("pre_n") or 0))
    post = None
    if m.group("post_n1") is not None:
        post = int(m.group("post_n1"))
    elif m.group("post_l") is not None:
        post = int(m.group("post_n2") or 0)
    dev = None if m.group("dev_l") is None else int(m.group("dev_n") or 0)
    local = None if m.group("local") is None else str(m.group("local"))
    return Version(
        epoch=int(m.group("epoch") or 0),
        release=tuple(int(n) for n in str(m.group("release")).split(".")),
        pre=pre,
        post=post,
        dev=dev,
        local=None if local is None else re.sub(r"[-_.]", ".", local.lower()),
    )
