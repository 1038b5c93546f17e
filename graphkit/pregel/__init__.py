"""The runtime: Plan, Execute and Update, the stepper that drives them, the compiled
graph built on it, and LangGraph's low-level API on top (``Pregel``, ``NodeBuilder``)."""

from graphkit.pregel.app import CompiledGraph
from graphkit.pregel.lowlevel import Pregel
from graphkit.pregel.node_builder import (
    ChannelWriteEntry,
    ChannelWriteTupleEntry,
    NodeBuilder,
    PregelNode,
)
from graphkit.pregel.records import (
    ChannelChange,
    Execution,
    Plan,
    Run,
    Superstep,
    Task,
    TaskResult,
    Update,
)
from graphkit.pregel.stepper import Stepper

__all__ = [
    "ChannelChange",
    "ChannelWriteEntry",
    "ChannelWriteTupleEntry",
    "CompiledGraph",
    "Execution",
    "NodeBuilder",
    "Plan",
    "Pregel",
    "PregelNode",
    "Run",
    "Stepper",
    "Superstep",
    "Task",
    "TaskResult",
    "Update",
]
