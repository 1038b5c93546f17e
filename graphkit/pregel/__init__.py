"""The runtime: Plan, Execute and Update, the stepper that drives them, and the
compiled graph built on it."""

from graphkit.pregel.app import CompiledGraph
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
    "CompiledGraph",
    "Execution",
    "Plan",
    "Run",
    "Stepper",
    "Superstep",
    "Task",
    "TaskResult",
    "Update",
]
