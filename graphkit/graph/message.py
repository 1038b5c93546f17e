"""MessageGraph, LangGraph's deprecated graph whose whole state is one list of messages.

Kept so that old LangGraph code runs; new code writes ``StateGraph(MessagesState)``.
The message helpers LangGraph keeps in ``langgraph.graph.message`` (``add_messages``,
``MessagesState``...) can be imported from here too; they live in graphkit.prebuilt and
need langchain-core, which is imported only when one of them is used.
"""

from __future__ import annotations

import warnings
from typing import Annotated, Any

from graphkit.errors import LangGraphDeprecatedSinceV10
from graphkit.graph.state import StateGraph

__all__ = ["MessageGraph"]  # and, imported on first use, the names of _FROM_PREBUILT

_FROM_PREBUILT = (
    "REMOVE_ALL_MESSAGES", "Messages", "MessagesState", "RemoveMessage", "add_messages",
    "push_message",
)  # fmt: skip


class MessageGraph(StateGraph):
    """Deprecated (LangGraph 1.0): a graph whose state is a single list of messages.

    Each node gets the list and returns a message or a list of them, which
    ``add_messages`` appends (or, by id, replaces). Creating one warns
    ``LangGraphDeprecatedSinceV10``, as LangGraph does; write ``StateGraph`` with a
    ``messages`` key (``MessagesState``) instead.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     builder = MessageGraph()
    >>> caught[0].category.__name__
    'LangGraphDeprecatedSinceV10'
    """

    def __init__(self) -> None:
        from langchain_core.messages import AnyMessage

        from graphkit.prebuilt.messages import add_messages

        warnings.warn(
            "MessageGraph is deprecated in LangGraph v1.0.0, to be removed in v2.0.0. Please "
            "use StateGraph with a `messages` key instead: e.g. StateGraph(MessagesState), "
            "with nodes returning {'messages': [...]}.",
            LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        super().__init__(Annotated[list[AnyMessage], add_messages])


_FROM_LANGCHAIN = (
    "AnyMessage", "BaseMessage", "BaseMessageChunk", "MessageLikeRepresentation",
    "convert_to_messages", "message_chunk_to_message",
)  # fmt: skip


def __getattr__(name: str) -> Any:
    """Import the langchain-core helpers only when one of them is asked for (LangGraph's
    tutorials import ``AnyMessage`` with ``add_messages`` from here)."""
    if name in _FROM_PREBUILT:
        from graphkit.prebuilt import messages

        return getattr(messages, name)
    if name in _FROM_LANGCHAIN:
        import langchain_core.messages

        return getattr(langchain_core.messages, name)
    raise AttributeError(f"module 'graphkit.graph.message' has no attribute {name!r}")
