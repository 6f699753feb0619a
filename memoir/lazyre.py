"""Regular expressions compiled on first use.

memoir holds a few hundred patterns (threats, credentials, names, the reviewers' rules);
compiled at import they cost every command tens of milliseconds, even ``memoir log``,
which uses none of them.  :func:`compile` returns a stand-in for ``re.compile(pattern,
flags)`` that compiles the first time one of its methods or attributes is used, then
hands everything to the compiled pattern.  It is typed as the pattern it stands for.
Pass the compiled pattern (``.compiled``), not the stand-in, to ``re``'s module-level
functions.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast

__all__ = ["AnyOf", "compile"]


class _Lazy:
    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[Any] | None = None

    @property
    def compiled(self) -> re.Pattern[Any]:
        if self._compiled is None:
            self._compiled = re.compile(self._pattern, self._flags)
        return self._compiled

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.compiled, name)
        # Kept on the stand-in: the next look-up of ``search`` is an attribute read, as
        # fast as on the compiled pattern.
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return f"lazyre.compile({self._pattern!r}, {self._flags})"


def compile(pattern: AnyStr, flags: int | re.RegexFlag = 0) -> re.Pattern[AnyStr]:
    """``re.compile(pattern, flags)``, done when the pattern is first used."""
    return cast("re.Pattern[AnyStr]", _Lazy(pattern, int(flags)))


class AnyOf:
    """Patterns searched as one, each tried alone: a long alternation is tried whole at
    every position, and one anchored branch (``\\A…``) or one that starts at a common
    word makes all of it slow.  A ``(pattern, cue)`` pair is tried only where ``cue`` is
    found (the rare word such a branch needs).  ``search`` returns the first match."""

    def __init__(self, *tries: re.Pattern[str] | AnyOf | tuple[re.Pattern[str],
                                                               re.Pattern[str]]) -> None:
        self._tries = [t if isinstance(t, tuple) else (t, None) for t in tries]

    def search(self, text: str) -> re.Match[str] | None:
        for pattern, cue in self._tries:
            if cue is None or cue.search(text) is not None:
                found = pattern.search(text)
                if found is not None:
                    return found
        return None
