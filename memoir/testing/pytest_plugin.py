"""The ``memoir`` pytest plugin (entry point ``pytest11``, extra ``memoir[testing]``):
``pytest --memoir-journal PATH`` adds one test that reads the journal at PATH (a home, a
``journal.jsonl`` or a ``postgresql://`` URL), verifies it, replays it into a scratch
home run by run and checks memoir's guarantees (:func:`memoir.testing.recorded.
check_history`), failing with the first seq where one breaks.  Run it on a copy of a
production journal.  A PATH that is not a journal stops pytest with one line.

Installed with memoir, it is loaded by every pytest session of the environment: until
``--memoir-journal`` is given it imports nothing of memoir (a test holds it to that).
"""

from __future__ import annotations

from typing import Any

import pytest

__all__ = ["HistoryItem"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("memoir").addoption(
        "--memoir-journal", metavar="PATH", default=None,
        help="check memoir's guarantees over the recorded journal at PATH (a home, a "
             "journal.jsonl or a postgresql:// URL)")


def pytest_configure(config: pytest.Config) -> None:
    where = config.getoption("--memoir-journal", None)
    if where is None:
        return
    from memoir.testing.recorded import RecordedHistoryError, recorded

    try:
        runs = recorded(where, progress=lambda done, total: _say(
            config, f"memoir-journal: read {done:,} of {total:,} records"))
    except RecordedHistoryError as exc:
        raise pytest.UsageError(f"--memoir-journal: {exc}") from None
    config.stash[_RUNS] = (str(where), runs)


_RUNS = pytest.StashKey[tuple[str, list[Any]]]()


def _say(config: pytest.Config, line: str) -> None:
    """A progress line on the terminal, past pytest's capture of the test's output."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    capture = config.pluginmanager.get_plugin("capturemanager")
    if capture is None:
        reporter.write_line(line)
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line(line)


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    found = config.stash.get(_RUNS, None)
    if found is not None:
        where, runs = found
        items.append(HistoryItem.from_parent(session, name=f"memoir-journal[{where}]",
                                             runs=runs))


class HistoryError(AssertionError):
    pass


class HistoryItem(pytest.Item):
    """The recorded history, replayed and checked."""

    def __init__(self, *, runs: list[Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.runs = runs

    def runtest(self) -> None:
        from memoir.testing.recorded import check_history

        breach = check_history(self.runs, progress=lambda done, total: _say(
            self.config, f"memoir-journal: replayed {done:,} of {total:,} runs"))
        if breach is not None:
            raise HistoryError(str(breach))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> str:
        if isinstance(excinfo.value, HistoryError):
            return f"the recorded history breaks a guarantee at {excinfo.value}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[str, int | None, str]:
        return self.name, None, self.name
