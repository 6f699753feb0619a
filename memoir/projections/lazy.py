"""A dict whose older contents are decoded only when first needed.

A home with a long history has hundreds of thousands of sessions and runs in its
state.  Opening it to render one prompt needs none of them, so checkpoints keep
them as raw bytes and the state holds a :class:`LazyDict`: new entries can be added
without decoding anything; any read decodes the stored part first and lays the new
entries over it (new wins, insertion order kept).
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterator, KeysView, ValuesView
from typing import Any, TypeVar

__all__ = ["LazyDict", "loaded"]

K = TypeVar("K")
V = TypeVar("V")
_MISSING: Any = object()


class LazyDict(dict[K, V]):
    """A ``dict`` filled from ``loader()`` on first read."""

    __slots__ = ("_loader", "_one")

    def __init__(self, loader: Callable[[], dict[K, V]],
                 one: Callable[[K], V | None] | None = None) -> None:
        super().__init__()
        self._loader: Callable[[], dict[K, V]] | None = loader
        #: Decodes one stored entry without the rest (None: not stored).
        self._one = one

    def _ensure(self) -> None:
        loader = self._loader
        if loader is None:
            return
        self._loader = None
        overlay = dict.copy(self)
        dict.clear(self)
        dict.update(self, loader())
        dict.update(self, overlay)

    def peek(self, key: K) -> V | None:
        """The value for ``key`` if it was added since the stored part, without decoding
        the stored part; otherwise a normal lookup."""
        found = dict.get(self, key)
        return found if found is not None else self.get(key)

    def _single(self, key: K) -> V | None:
        """The value for ``key``, decoding only that entry of the stored part when the
        store can (it joins the new entries, so changes to it are kept)."""
        found = dict.get(self, key)
        if found is not None or self._loader is None or self._one is None:
            return found
        value = self._one(key)
        if value is not None:
            dict.__setitem__(self, key, value)
        return value

    @property
    def is_loaded(self) -> bool:
        return self._loader is None

    def __getitem__(self, key: K) -> V:
        if self._loader is not None and self._one is not None:
            found = self._single(key)
            if found is None:
                raise KeyError(key)
            return found
        self._ensure()
        return dict.__getitem__(self, key)

    def get(self, key: K, default: Any = None) -> Any:
        if self._loader is not None and self._one is not None:
            found = self._single(key)
            return default if found is None else found
        self._ensure()
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        if self._loader is not None and self._one is not None:
            return self._single(key) is not None  # type: ignore[arg-type]
        self._ensure()
        return dict.__contains__(self, key)

    def __iter__(self) -> Iterator[K]:
        self._ensure()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._ensure()
        return dict.__len__(self)

    def __delitem__(self, key: K) -> None:
        self._ensure()
        dict.__delitem__(self, key)

    def __eq__(self, other: object) -> bool:
        self._ensure()
        return dict.__eq__(self, other)

    __hash__ = None

    def __repr__(self) -> str:
        self._ensure()
        return dict.__repr__(self)

    def keys(self) -> KeysView[K]:  # type: ignore[override]
        self._ensure()
        return dict.keys(self)

    def values(self) -> ValuesView[V]:  # type: ignore[override]
        self._ensure()
        return dict.values(self)

    def items(self) -> ItemsView[K, V]:  # type: ignore[override]
        self._ensure()
        return dict.items(self)

    def pop(self, key: K, default: Any = _MISSING) -> Any:
        self._ensure()
        return dict.pop(self, key) if default is _MISSING else dict.pop(self, key, default)

    def setdefault(self, key: K, default: Any = None) -> Any:
        self._ensure()
        return dict.setdefault(self, key, default)

    def copy(self) -> dict[K, V]:
        self._ensure()
        return dict.copy(self)


def loaded(value: dict[K, V]) -> dict[K, V]:
    """``value`` with any lazy part decoded (call before handing it to an encoder)."""
    if isinstance(value, LazyDict):
        value._ensure()
    return value
