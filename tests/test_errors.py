"""Every error memoir raises is a :class:`~memoir.errors.MemoirError`, so a host catches
memoir's failures with one ``except``; the two exceptions are the CLI's message to the
person at the terminal (a click exception) and the pytest plugin's failed check."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import memoir
from memoir.errors import MemoirError

#: Exceptions that are not memoir's failures but a framework's way of saying one.
FRAMEWORK = {"memoir.commands.base.UserError", "memoir.testing.pytest_plugin.HistoryError"}


def test_every_error_memoir_defines_is_a_memoir_error() -> None:
    outside = []
    for info in pkgutil.walk_packages(memoir.__path__, "memoir."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and \
                    value.__module__ == module.__name__ and \
                    not issubclass(value, MemoirError):
                outside.append(f"{module.__name__}.{name}")
    assert sorted(set(outside) - FRAMEWORK) == []
