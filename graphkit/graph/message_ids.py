"""The ids LangGraph gives messages written to a ``DeltaChannel`` field.

LangGraph rebuilds such a field by replaying its saved writes, so a message saved
without an id would come back with none, or a new one on each read, and nothing could
target it (a ``RemoveMessage``). It therefore gives every message written there an id
before the write is saved, and graphkit does the same, so that a program sees the same
values: a message object gets an id (in place), a message dict in a list becomes a
message with an id, a message dict alone gets an ``"id"`` key. Other values are left
as they are. langchain-core is imported only for a message dict in a list.

>>> with_message_ids({"role": "user", "content": "hi"})["id"] != ""
True
>>> with_message_ids([{"x": 1}, "text"])
[{'x': 1}, 'text']
"""

from __future__ import annotations

import sys
import uuid
from typing import Any

from graphkit.types import overwritten_value

__all__ = ["with_message_ids"]

_ROLES = frozenset({"user", "human", "assistant", "ai", "tool", "system", "function"})
_TYPES = frozenset({"human", "ai", "tool", "system", "function", "remove"})


def with_message_ids(value: Any) -> Any:
    """``value`` as it is saved to a ``DeltaChannel``: its messages with ids. A list
    that changes is a new list; the caller's lists and dicts are never changed."""
    is_overwrite, replacing = overwritten_value(value)
    if is_overwrite:  # (its messages get ids; its dicts stay dicts)
        for item in replacing if isinstance(replacing, (list, tuple)) else ():
            _stamp(item)
        return value
    if isinstance(value, list):
        items = [_list_item(item) for item in value]
        return value if all(new is old for new, old in zip(items, value, strict=True)) else items
    if _is_message_dict(value) and not value.get("id"):
        return {**value, "id": str(uuid.uuid4())}
    _stamp(value)
    return value


def _is_message_dict(value: Any) -> bool:
    return isinstance(value, dict) and (value.get("role") in _ROLES or value.get("type") in _TYPES)


def _list_item(item: Any) -> Any:
    if not _is_message_dict(item):
        _stamp(item)
        return item
    from langchain_core.messages import convert_to_messages

    message = convert_to_messages([item])[0]  # (a dict that is no message raises here)
    if not message.id:
        message.id = str(uuid.uuid4())
    return message


def _stamp(item: Any) -> None:
    """Give a message object without an id one (only langchain-core makes them)."""
    messages = sys.modules.get("langchain_core.messages")
    if messages is not None and isinstance(item, messages.BaseMessage) and item.id is None:
        item.id = str(uuid.uuid4())
