"""Declaring graphs: the StateGraph builder and its compilation. LangGraph's message
helpers (``add_messages``, ``MessagesState``, ``MessageGraph``) are importable from here
too, as from ``langgraph.graph``; they need langchain-core, imported on first use."""

from typing import Any

from graphkit.constants import END, START
from graphkit.graph.state import StateGraph

__all__ = ["END", "START", "StateGraph"]  # (the message helpers are not in it: a
# star import must work without langchain-core)


def __getattr__(name: str) -> Any:
    if name in ("MessageGraph", "MessagesState", "add_messages"):
        from graphkit.graph import message

        return getattr(message, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
