"""Reading many transcript bodies (``TranscriptStore.reading``): each pack opened once for
the lot, every body still checked, a body blanked meanwhile read as forgotten, and no
descriptor left open."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memoir.errors import JournalCorrupted
from memoir.journal.transcripts import TranscriptStore


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def store(tmp_path: Path) -> TranscriptStore:
    home = tmp_path / "home"
    (home / ".memoir").mkdir(parents=True)
    return TranscriptStore.in_home(home, fsync=False)


def test_each_pack_is_opened_once_within_reading(store: TranscriptStore,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    refs = store.put([{"role": "user", "content": f"message {i}"} for i in range(50)])
    opened: list[str] = []
    real = type(store.place).open

    def spy(self: object, name: str, flags: int, *args: object) -> int:
        opened.append(name)
        return real(self, name, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(type(store.place), "open", spy)
    assert [b["content"] for b in store.get_many(refs)] == [f"message {i}" for i in range(50)]
    assert opened == ["pack-000001.jsonl"]
    with store.reading():
        for ref in refs:
            store.get(ref)
        with store.reading():  # nested: the outer one keeps them
            store.get(refs[0])
    assert len(opened) == 2
    store.get(refs[0])
    store.get(refs[1])  # outside reading(): opened for each, as before
    assert len(opened) == 4


def test_reading_checks_every_body_and_sees_a_blank(store: TranscriptStore) -> None:
    refs = store.put([{"role": "user", "content": "my PIN is 4711"},
                      {"role": "assistant", "content": "Noted."}])
    before = _open_fds()
    with store.reading():
        assert store.get(refs[0])["content"] == "my PIN is 4711"
        store.blank(refs[0])  # in place: the descriptor kept open sees it
        assert "4711" not in str(store.get(refs[0]))
        pack = store.folder / "pack-000001.jsonl"
        data = pack.read_bytes()
        at = int(refs[1].split(":")[1])
        pack.write_bytes(data[:at + 2] + b"X" + data[at + 3:])  # a hand edit
        with pytest.raises(JournalCorrupted, match="does not match its hash"):
            store.get(refs[1])
    assert _open_fds() == before  # closed at the end, even after an error inside
