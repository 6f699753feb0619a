"""memoir's logs: structured events handed to the standard library's ``logging``.

A library is a guest in its host's process: memoir never writes to stdout and never
configures logging, structlog's included.  Its events go to
``logging.getLogger("memoir.<area>")`` as ``event=… key=value`` lines.  With nothing
configured, Python prints warnings and errors to stderr (its last-resort handler); a
host routes them wherever it routes its own logs (``logging.getLogger("memoir")``).
The ``memoir`` command prints them to stderr.

structlog is imported when a logger first logs, not before: most commands never log,
and structlog's standard-library layer loads asyncio (tens of milliseconds).
"""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["get_logger"]

_RENDER: Any = None


def _to_stdlib(logger: Any, method: str, event: Any) -> tuple[tuple[str], dict[str, Any]]:
    # The message is the whole event as key=value text (any handler shows it all); the
    # fields stay available to handlers as the record's ``memoir`` attribute.
    fields = dict(event)
    return (_RENDER(logger, method, event),), {"extra": {"memoir": fields}}


class _Logger:
    """A structlog logger made on first use (see the module docstring).  A test may set
    one of its methods (``log.warning = …``): that attribute then wins."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._real: Any = None

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("_"):
            raise AttributeError(attribute)
        if self._real is None:
            self._real = _structlog_logger(self._name)
        return getattr(self._real, attribute)


def get_logger(name: str) -> Any:
    """A structured logger writing to the stdlib logger ``name`` (a ``memoir.*`` name),
    whatever structlog's global configuration says.  Each record carries the event's
    fields as ``record.memoir`` (a dict)."""
    return _Logger(name)


def _structlog_logger(name: str) -> Any:
    global _RENDER
    import structlog

    if _RENDER is None:
        _RENDER = structlog.processors.KeyValueRenderer(key_order=["event"])
    return structlog.wrap_logger(
        logging.getLogger(name),
        processors=[_to_stdlib],
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
