"""add_messages, the reducer of a chat history, and MessagesState — as in LangGraph.

A history is a list of langchain-core messages. Each write is merged into it by
message id: a new id is appended, a known id replaces the message in place, and a
``RemoveMessage(id=...)`` deletes one (``RemoveMessage(id=REMOVE_ALL_MESSAGES)`` clears
everything before it). Messages without an id get a fresh ``uuid4`` string, written
into the message object itself, as LangGraph does.

>>> from graphkit import StateGraph, START
>>> builder = StateGraph(MessagesState)
>>> _ = builder.add_node("bot", lambda state: {"messages": [("assistant", "hello")]})
>>> _ = builder.add_edge(START, "bot")
>>> result = builder.compile().invoke({"messages": [("user", "hi")]})
>>> [(message.type, message.content) for message in result["messages"]]
[('human', 'hi'), ('ai', 'hello')]
"""

from __future__ import annotations

import uuid
from functools import partial
from typing import Annotated, Any, Literal

from langchain_core.messages import (
    AnyMessage,
    BaseMessage,
    BaseMessageChunk,
    RemoveMessage,
    convert_to_messages,
    message_chunk_to_message,
)

# (typing_extensions' TypedDict, as LangGraph's: pydantic refuses typing's before Python
# 3.12, so a tool's Annotated[MessagesState, InjectedState] could not be built)
from typing_extensions import TypedDict

from graphkit.types import as_tool_output

__all__ = [
    "REMOVE_ALL_MESSAGES",
    "MessagesState",
    "RemoveMessage",
    "add_messages",
    "push_message",
]

as_tool_output()  # (langchain-core is loaded now: a tool's Command passes as it does there)

REMOVE_ALL_MESSAGES = "__remove_all__"
"""The id of a ``RemoveMessage`` that clears the history (LangGraph's value)."""

Messages = list[Any] | Any
"""One message or a list of them: messages, strings, ``(role, text)`` pairs, dicts."""


def add_messages(
    left: Messages | None = None,
    right: Messages | None = None,
    *,
    format: Literal["langchain-openai"] | None = None,
) -> Any:
    """Merge ``right`` into the history ``left`` by message id; return the new list.

    Called with only ``format=...``, returns the reducer with that option set, for
    ``Annotated[list, add_messages(format="langchain-openai")]``.

    >>> from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
    >>> from graphkit.prebuilt import REMOVE_ALL_MESSAGES
    >>> history = add_messages(
    ...     [HumanMessage("hi", id="1")], AIMessage("hello", id="2")
    ... )
    >>> [(message.content, message.id) for message in history]
    [('hi', '1'), ('hello', '2')]
    >>> [m.content for m in add_messages(history, [AIMessage("hello again", id="2")])]
    ['hi', 'hello again']
    >>> add_messages(history, [RemoveMessage(id="1")])[0].content
    'hello'
    >>> cleared = add_messages(
    ...     history, [RemoveMessage(id=REMOVE_ALL_MESSAGES), ("user", "new")]
    ... )
    >>> cleared[0].content
    'new'
    """
    if left is not None and right is not None:
        return _merge(left, right, format=format)
    if left is None and right is None:
        return partial(_merge, format=format)
    given = "left" if left else "right"  # LangGraph names the side by truthiness too
    raise ValueError(
        # LangGraph's line first, so that a match= copied from a test written for it finds it
        "Must specify non-null arguments for both 'left' and 'right'. Only received: "
        f"{given!r}.\nadd_messages() needs both the current messages and the update: call "
        "add_messages(current, update), or add_messages(format=...) for a reducer."
    )


def _merge(left: Messages, right: Messages, *, format: str | None = None) -> list[Any]:
    left = _as_messages(left if isinstance(left, list) else [left])
    right = _as_messages(right if isinstance(right, list) else [right])
    for message in left:
        _give_id(message)
    clear_at = None
    for index, message in enumerate(right):
        _give_id(message)
        if isinstance(message, RemoveMessage) and message.id == REMOVE_ALL_MESSAGES:
            clear_at = index
    if clear_at is not None:
        # What follows the last "remove all" is the whole history; LangGraph applies no
        # format in this case, and neither do we.
        return right[clear_at + 1 :]

    merged = list(left)
    index_of = {message.id: index for index, message in enumerate(merged)}
    removed: set[str] = set()
    for message in right:
        index = index_of.get(message.id)
        if index is None:
            if isinstance(message, RemoveMessage):
                raise ValueError(
                    "Attempting to delete a message with an ID that doesn't exist "
                    f"({message.id!r})\nRemoveMessage(id={message.id!r}): no message in the "
                    "history has this id, so there is nothing to remove. Use the id of a "
                    "message already in the state."
                )
            index_of[message.id] = len(merged)
            merged.append(message)
        elif isinstance(message, RemoveMessage):
            removed.add(message.id)
        else:
            removed.discard(message.id)  # removed, then written again: it stays
            merged[index] = message
    if removed:
        merged = [message for message in merged if message.id not in removed]
    return _formatted(merged, format)


def _give_id(message: BaseMessage) -> None:
    if message.id is None:
        message.id = str(uuid.uuid4())


def _as_messages(items: list[Any]) -> list[Any]:
    """Messages as they are; strings, pairs, dicts and chunks converted."""
    kinds = set(map(type, items))
    if all(
        issubclass(kind, BaseMessage) and not issubclass(kind, BaseMessageChunk) for kind in kinds
    ):
        return items
    return [message_chunk_to_message(message) for message in convert_to_messages(items)]


def _formatted(messages: list[Any], format: str | None) -> list[Any]:
    if format == "langchain-openai":
        from langchain_core.messages import convert_to_openai_messages

        return convert_to_messages(convert_to_openai_messages(messages))
    if format:
        raise ValueError(
            f"Unrecognized format={format!r}. Expected one of 'langchain-openai', None.\n"
            f"add_messages(format={format!r}) is not a known format; use "
            "format='langchain-openai' or leave it out."
        )
    return messages


class MessagesState(TypedDict):
    """A state with one key, ``messages``, merged with ``add_messages``.

    Subclass it to add keys: ``class State(MessagesState): summary: str``.
    """

    messages: Annotated[list[AnyMessage], add_messages]


def push_message(message: Any, *, state_key: str | None = "messages") -> AnyMessage:
    """Send ``message`` to the "messages" stream now, from inside a node, and (unless
    ``state_key`` is None) write it to that state key with the node's other writes, as
    LangGraph's ``push_message``; it needs an id, and is not streamed again when the
    node returns it. Returns the message (a string or ``(role, text)`` made one).

    >>> from langchain_core.messages import AIMessage
    >>> from graphkit import StateGraph, START
    >>> def node(state):
    ...     push_message(AIMessage("working on it", id="note-1"))
    ...     return {}
    >>> app = StateGraph(MessagesState).add_node("n", node).add_edge(START, "n").compile()
    >>> [(m.content, meta["langgraph_node"]) for m, meta in app.stream(
    ...     {"messages": []}, stream_mode="messages")]
    [('working on it', 'n')]
    >>> [m.content for m in app.invoke({"messages": []})["messages"]]
    ['working on it']
    """
    from graphkit.pregel.runtime import current_scope, get_config, push_writes

    scope = current_scope()
    if scope is None or scope.writes is None:
        raise RuntimeError("push_message() works only inside a running node.")
    message = convert_to_messages([message])[0]
    if message.id is None:
        raise ValueError(
            f"Message ID is required\npush_message() needs a message with an id (got "
            f"{message!r}): the id is how the messages stream and add_messages know it, "
            "e.g. AIMessage('...', id='note-1')."
        )
    listener = scope.run.options.listener
    sink = listener.messages_sink if listener is not None else None
    if sink is not None:  # (the run, or its caller with subgraphs=True, streams messages)
        sink.emit(message, get_config()["metadata"], dedupe=False)
    if state_key:
        push_writes([(state_key, message)])
    return message
