"""Finding things by what a person types: unique id prefixes and did-you-mean.

``resolve("cli-d1", runs, "run")`` returns the one run id that starts with ``cli-d1``;
no match is a :class:`NotFoundError` that suggests near names, several matches an
:class:`AmbiguousError` that lists them.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from memoir.errors import AmbiguousError, NotFoundError

__all__ = ["did_you_mean", "resolve"]

_SHOWN = 10


def did_you_mean(word: str, choices: Iterable[str], *, limit: int = 3) -> str:
    """`` (did you mean 'x' or 'y'?)`` for the choices close to ``word``, else ``""``."""
    pool = sorted(set(choices))
    close = difflib.get_close_matches(word, pool, n=limit, cutoff=0.6)
    if len(word) >= 3:  # a part of the name (`nudge` for `nudge_interval`) counts too
        close += [c for c in pool if word in c and c not in close]
    close = close[:limit]
    if not close:
        return ""
    quoted = [f"'{c}'" for c in close]
    return f" (did you mean {' or '.join(quoted)}?)"


def resolve(prefix: str, ids: Iterable[str], what: str, *, hint: str = "") -> str:
    """The one id in ``ids`` equal to ``prefix`` or starting with it.

    ``what`` names the kind of thing in messages ("run", "session"); ``hint`` says
    where to list them ("`memoir runs` lists them").
    """
    pool = list(ids)
    if prefix in pool:
        return prefix
    found = sorted(i for i in pool if prefix and i.startswith(prefix))
    if len(found) == 1:
        return found[0]
    if found:
        shown = ", ".join(found[:_SHOWN]) + (f" and {len(found) - _SHOWN} more"
                                             if len(found) > _SHOWN else "")
        raise AmbiguousError(f"{what} '{prefix}' is ambiguous: it starts {len(found)} "
                             f"{what} ids ({shown}); give more of it", candidates=found)
    tail = f"; {hint}" if hint else ""
    raise NotFoundError(f"no {what} '{prefix}'{did_you_mean(prefix, pool)}{tail}")
