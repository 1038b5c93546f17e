"""Solutions to lesson 24 · Messages in depth: ids, replacing, removing, and a history the
model refuses.

>>> from graphkit.course import lesson24
>>> bool(lesson24.check_sign(sign)), bool(lesson24.check_keep_recent(keep_recent))
(True, True)
>>> bool(lesson24.check_repair(repair))
True
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import RemoveMessage, ToolMessage

from graphkit.course.lesson24 import SIGNATURE
from graphkit.prebuilt import MessagesState

__all__ = ["keep_recent", "repair", "sign"]


def sign(state: MessagesState) -> dict:
    """24.1: a copy of the answer with the same id, so add_messages puts it in the
    answer's place; the message the node was given stays as it is."""
    answer = state["messages"][-1]
    return {"messages": [answer.model_copy(update={"content": answer.content + SIGNATURE})]}


def keep_recent(messages: list[Any], n: int) -> list[Any]:
    """24.2: a RemoveMessage for each message that is neither a system message nor among
    the last n others. (Writing the kept messages would delete nothing: each would replace
    itself.)"""
    others = [message for message in messages if message.type != "system"]
    dropped = others[:-n] if n else others
    return [RemoveMessage(id=message.id) for message in dropped]


def repair(messages: list[Any]) -> list[Any]:
    """24.3: a ToolMessage for each call that no ToolMessage answers yet, in any
    AIMessage of the history; every message stays. The answers are appended, which the
    agent accepts; for OpenAI's API, which wants each answer right after its call, write
    ``RemoveMessage(id=REMOVE_ALL_MESSAGES)`` and then the history again with each answer
    after its AIMessage (the check takes both)."""
    answered = {message.tool_call_id for message in messages if message.type == "tool"}
    return [
        ToolMessage("Cancelled: the user moved on.", tool_call_id=call["id"])
        for message in messages
        if message.type == "ai"
        for call in message.tool_calls
        if call["id"] not in answered
    ]
