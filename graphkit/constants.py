"""Names with a fixed meaning in every graph."""

from __future__ import annotations

from typing import Any, Final

__all__ = [
    "CONF",
    "CONFIG_KEYS",
    "CONFIG_KEY_CHECKPOINTER",
    "END",
    "START",
    "TAG_HIDDEN",
    "TAG_NOSTREAM",
    "TASKS",
]

START: Final = "__start__"
"""The virtual node a run starts from: edges from START pick the first nodes."""

END: Final = "__end__"
"""The virtual node a run ends at: routing to END writes nothing."""

TAG_NOSTREAM: Final = "nostream"
"""A chat model call tagged with it is not streamed token by token (``stream_mode="messages"``)."""
TAG_HIDDEN: Final = "langsmith:hidden"
"""LangGraph's tag for a task it hides from streams and traces (its own ``__start__``).
graphkit's nodes carry no tags yet, so here it is only the name, for code that imports it."""
CONF: Final = "configurable"
"""The config key under which a run's thread, checkpoint and runtime objects sit."""
CONFIG_KEYS: Final = frozenset(
    {"recursion_limit", "configurable", "tags", "metadata", "callbacks", "run_name",
     "max_concurrency", "run_id"}
)  # fmt: skip
"""The keys of a run's config (LangChain's ``RunnableConfig``); a run moves any other
top-level key under ``configurable``, as LangGraph's do."""
CONFIG_KEY_CHECKPOINTER: Final = "__pregel_checkpointer"
"""LangGraph's ``configurable`` key for the saver a run uses (a parent lends its own to a
subgraph there). graphkit's runs never read it, so here it is only the name: a saver put
there saves nothing; compile the graph with ``checkpointer=...`` instead."""
PROTOCOL_MESSAGES_KEY: Final = "__graphkit_content_events"
"""The ``configurable`` key a v3 run (``graphkit.stream``) sets: chat models called in it
send content-block protocol events instead of tokens, in its subgraphs too."""
TASKS: Final = "__pregel_tasks"
"""The channel that carries ``Send`` packets to the next step's PUSH tasks."""

RESERVED_NAMES: Final = frozenset(
    {"__input__", "__interrupt__", "__resume__", "__error__", "__error_source_node__"}
    | {"__no_writes__", "__snapshot_bumps__", "__pregel_push", "__pregel_pull"}
    | {"configurable", "checkpoint_id", "checkpoint_map", "checkpoint_ns", "langsmith:hidden"}
    | {f"__pregel_{key}" for key in ("send", "read", "checkpointer", "stream", "resuming")}
    | {f"__pregel_{key}" for key in ("replay_state", "task_id", "timed_attempt_observer")}
    | {f"__pregel_{key}" for key in ("resume_map", "strict_resume", "stream_messages_v2")}
)
"""Names LangGraph keeps for its runtime (write keys, config keys): no node, state key or
channel may take one; ``compile()`` refuses them, as LangGraph's does."""
RESERVED_CHARACTERS: Final = ("|", ":")
"""Characters LangGraph reserves for namespaces; node names may not contain them."""

BRANCH_CHANNEL_PREFIX: Final = "branch:to:"
"""Prefix of the channel that wakes a node: ``branch:to:<node>`` (as in LangGraph)."""

PULL: Final = "__pregel_pull"
PUSH: Final = "__pregel_push"

RETURN: Final = "__return__"
"""Where a task a functional-API entrypoint called writes its return value (recorded and
saved, never applied to a channel), as in LangGraph."""

PREVIOUS: Final = "__previous__"
"""Where a functional-API program saves what its next run on the thread gets as
``previous``."""
ROOT: Final = "__root__"
"""The one channel of a single-value state, ``StateGraph(int)`` (LangGraph's name for it)."""

INTERRUPT: Final = "__interrupt__"
"""Where a paused run's interrupts are reported (and the key breakpoints are tracked under)."""
INPUT: Final = "__input__"
"""The input's pseudo-task: its writes are a run's input (or a ``Command``'s); a saved
checkpoint's ``versions_seen`` has an empty entry under it once an input was applied."""

_MOVED_TO_TYPES: Final = ("Send", "Interrupt")
"""Names LangGraph once exported from its constants module and now keeps in its types."""


def __getattr__(name: str) -> Any:
    """``from graphkit.constants import Send`` (or ``Interrupt``): the old home of these
    names, as in LangGraph; it still works, with a ``LangGraphDeprecatedSinceV10``.

    >>> import warnings
    >>> import graphkit.constants, graphkit.types
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     moved = graphkit.constants.Send
    >>> moved is graphkit.types.Send, caught[0].category.__name__
    (True, 'LangGraphDeprecatedSinceV10')
    """
    if name not in _MOVED_TO_TYPES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import warnings

    from graphkit import types
    from graphkit.errors import LangGraphDeprecatedSinceV10

    warnings.warn(
        f"Importing {name} from graphkit.constants is deprecated. Please use "
        f"'from graphkit.types import {name}' instead.",
        LangGraphDeprecatedSinceV10,
        stacklevel=2,
    )
    return getattr(types, name)
