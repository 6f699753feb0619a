"""Sessions: a pinned session (its frozen prompt, its calls, its conversation) and the
recording of conversation turns."""

from memoir.sessions.session import Session

__all__ = ["Session"]
