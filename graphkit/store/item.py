"""The records a store hands back: ``Item`` (a stored document) and ``SearchItem``
(an item found by ``search``, with its similarity ``score``).

>>> from datetime import datetime, timezone
>>> when = datetime(2026, 1, 1, tzinfo=timezone.utc)
>>> SearchItem(("docs",), "a", {"text": "cats"}, when, when, score=0.9).score
0.9
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

__all__ = ["Item", "SearchItem"]


class Item:
    """A stored document: its ``value`` (a dict), ``key``, ``namespace`` and timestamps.

    >>> from datetime import datetime, timezone
    >>> when = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> item = Item(value={"a": 1}, key="k", namespace=("n",), created_at=when,
    ...             updated_at=when)
    >>> item.dict()["namespace"], item.key
    (['n'], 'k')
    """

    __slots__ = ("created_at", "key", "namespace", "updated_at", "value")

    def __init__(
        self,
        *,
        value: dict[str, Any],
        key: str,
        namespace: tuple[str, ...],
        created_at: datetime | str,
        updated_at: datetime | str,
    ) -> None:
        self.value = value
        self.key = key
        self.namespace = tuple(namespace)
        self.created_at = _as_datetime(created_at)
        self.updated_at = _as_datetime(updated_at)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Item):
            return False
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash((self.namespace, self.key))

    def _fields(self) -> tuple[Any, ...]:
        return (self.value, self.key, self.namespace, self.created_at, self.updated_at)

    def dict(self) -> dict[str, Any]:
        """The item as plain JSON-ready data (timestamps as ISO strings)."""
        return {
            "namespace": list(self.namespace),
            "key": self.key,
            "value": self.value,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
        }

    def __repr__(self) -> str:
        # A SearchItem prints as "Item(..., score=...)" too, as LangGraph's search results do.
        fields = ", ".join(f"{name}={value!r}" for name, value in self.dict().items())
        return f"Item({fields})"


class SearchItem(Item):
    """An ``Item`` found by ``search``, with its relevance ``score`` (None: unranked).

    >>> from datetime import datetime, timezone
    >>> when = datetime(2026, 1, 1, tzinfo=timezone.utc)
    >>> SearchItem(("n",), "k", {"a": 1}, when, when).score is None
    True
    """

    __slots__ = ("score",)

    def __init__(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        created_at: datetime | str,
        updated_at: datetime | str,
        score: float | None = None,
    ) -> None:
        super().__init__(
            value=value,
            key=key,
            namespace=namespace,
            created_at=created_at,
            updated_at=updated_at,
        )
        self.score = score

    def dict(self) -> dict[str, Any]:
        """The item as plain data, with its ``score``."""
        return {**super().dict(), "score": self.score}


def _as_datetime(value: datetime | str) -> datetime:
    return datetime.fromisoformat(value) if isinstance(value, str) else value
