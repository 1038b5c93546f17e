"""Names with a fixed meaning in every graph."""

from __future__ import annotations

from typing import Final

__all__ = ["END", "START"]

START: Final = "__start__"
"""The virtual node a run starts from: edges from START pick the first nodes."""

END: Final = "__end__"
"""The virtual node a run ends at: routing to END writes nothing."""

TASKS: Final = "__pregel_tasks"
"""The channel that carries ``Send`` packets to the next step's PUSH tasks."""

RESERVED_CHARACTERS: Final = ("|", ":")
"""Characters LangGraph reserves for namespaces; node names may not contain them."""

BRANCH_CHANNEL_PREFIX: Final = "branch:to:"
"""Prefix of the channel that wakes a node: ``branch:to:<node>`` (as in LangGraph)."""

PULL: Final = "__pregel_pull"
PUSH: Final = "__pregel_push"

ROOT: Final = "__root__"
"""The one channel of a single-value state, ``StateGraph(int)`` (LangGraph's name for it)."""

INTERRUPT: Final = "__interrupt__"
"""Where a paused run's interrupts are reported (and the key breakpoints are tracked under)."""
