"""The web view served in process (Starlette's test client), on a copy of the seeded
home: what test_web_api.py and test_web_edits.py drive."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

import memoir
from memoir.web.app import WebApp

TOKEN = "a-test-token-of-some-length"
BASE = "http://127.0.0.1:8770"


class Web:
    def __init__(self, path: Path, ids: dict[str, str], *, readonly: bool = False) -> None:
        self.path = path
        self.ids = ids
        self.home = memoir.open(path, readonly=readonly)
        self.app = WebApp(self.home, token=TOKEN, host="127.0.0.1", port=8770)
        self.client = TestClient(self.app.app, base_url=BASE)
        self.client.headers["Authorization"] = f"Bearer {TOKEN}"

    def get(self, path: str, status: int = 200) -> Any:
        response = self.client.get(path)
        assert response.status_code == status, response.text
        return response.json()

    def act(self, action: str, body: dict[str, Any], status: int = 200) -> Any:
        response = self.client.post(f"/api/act/{action}", json=body,
                                    headers={"X-Memoir-Token": TOKEN})
        assert response.status_code == status, response.text
        return response.json()


def journal_lines(path: Path) -> int:
    return len((path / "journal.jsonl").read_bytes().splitlines())


