"""The ids LangGraph gives messages written to a ``DeltaChannel`` field.

LangGraph rebuilds such a field by replaying its saved writes, so a message saved
without an id would come back with none, or a new one on each read, and nothing could
target it (a ``RemoveMessage``). It therefore gives the messages written there ids
before the writes are saved (a node's, the input's, ``update_state``'s), and graphkit
does the same, so that a program sees the same values. For any reducer: a message
object gets an id (in place), a message dict in a list becomes a message with an id, a
message dict alone gets an ``"id"`` key, and nothing else changes. For LangGraph's own
``_messages_delta_reducer``, every message-like (a string, a ``(role, text)`` tuple, a
dict) becomes a message with an id. langchain-core is imported only to make messages.

>>> with_message_ids({"role": "user", "content": "hi"})["id"] != ""
True
>>> with_message_ids([{"x": 1}, "text"])
[{'x': 1}, 'text']
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable
from typing import Any

from graphkit.types import Overwrite, overwritten_value

__all__ = ["is_messages_reducer", "with_message_ids"]

_ROLES = frozenset({"user", "human", "assistant", "ai", "tool", "system", "function"})
_TYPES = frozenset({"human", "ai", "tool", "system", "function", "remove"})


def is_messages_reducer(reducer: Any) -> bool:
    """Whether ``reducer`` is LangGraph's batch reducer of messages (a graph converted
    from LangGraph, or one that imports it), whose writes all become messages."""
    module = getattr(reducer, "__module__", None) or ""
    name = getattr(reducer, "__name__", None)
    return name == "_messages_delta_reducer" and module.startswith("langgraph.")


def with_message_ids(value: Any, every_message_like: bool = False) -> Any:
    """``value`` as it is saved to a ``DeltaChannel``: its messages with ids. A list
    that changes is a new list; the caller's lists and dicts are never changed."""
    is_overwrite, replacing = overwritten_value(value)
    if is_overwrite:
        if not isinstance(replacing, (list, tuple)):
            return value
        if every_message_like:
            items = _mapped(replacing, _as_message)
            return value if items is replacing else Overwrite(items)
        for item in replacing:  # (its messages get ids; its dicts stay dicts)
            _stamp(item)
        return value
    if isinstance(value, list):
        return _mapped(value, _list_item_as_message if every_message_like else _list_item)
    if every_message_like:
        return _as_message(value)
    if _is_message_dict(value) and not value.get("id"):
        return {**value, "id": str(uuid.uuid4())}
    _stamp(value)
    return value


def _mapped(items: Any, change: Callable[[Any], Any]) -> Any:
    changed = [change(item) for item in items]
    if all(new is old for new, old in zip(changed, items, strict=True)):
        return items
    return changed if isinstance(items, list) else tuple(changed)


def _is_message_dict(value: Any) -> bool:
    return isinstance(value, dict) and (value.get("role") in _ROLES or value.get("type") in _TYPES)


def _list_item(item: Any) -> Any:
    if not _is_message_dict(item):
        _stamp(item)
        return item
    return _as_message(item, strict=True)


def _list_item_as_message(item: Any) -> Any:
    return _as_message(item, strict=_is_message_dict(item))


def _as_message(item: Any, strict: bool = False) -> Any:
    """``item`` as a message with an id: a message stamped in place, a message-like
    converted (one that cannot be is left as it is, or raises when ``strict``)."""
    if _stamp(item):
        return item
    from langchain_core.messages import convert_to_messages

    try:
        message = convert_to_messages([item])[0]
    except Exception:
        if strict:
            raise
        return item
    if not message.id:
        message.id = str(uuid.uuid4())
    return message


def _stamp(item: Any) -> bool:
    """Give a message object without an id one; whether ``item`` is a message (only
    langchain-core makes them, so without it loaded there are none)."""
    messages = sys.modules.get("langchain_core.messages")
    if messages is None or not isinstance(item, messages.BaseMessage):
        return False
    if item.id is None:
        item.id = str(uuid.uuid4())
    return True
