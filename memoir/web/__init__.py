"""The web view (``memoir ui``, extra ``memoir[ui]``): what the agent learned, at a
glance — the timeline of runs with their diffs, memory with blame at any point, skills
and curator passes, sessions, insights and pending writes — and the few changes a
person makes with care (revert, pin, accept, approve), each a journaled run.

:mod:`memoir.web.timeline` and :mod:`memoir.web.pages` read, :mod:`memoir.web.actions`
writes, :mod:`memoir.web.app` is the HTTP side (token, cross-site checks, the live
stream), :mod:`memoir.web.serve` runs it; ``assets/`` holds the page itself.
"""

__all__ = ["LOOPBACK"]

#: The addresses served without a token of the person's choosing (the printed URL's
#: own token is still required).
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
