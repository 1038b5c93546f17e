"""graphkit: a LangGraph-compatible graph runtime whose every superstep is an object.

>>> from typing import TypedDict
>>> from graphkit import StateGraph, START, END
>>> class State(TypedDict):
...     n: int
>>> builder = StateGraph(State)
>>> _ = builder.add_node("inc", lambda state: {"n": state["n"] + 1})
>>> _ = builder.add_edge(START, "inc")
>>> _ = builder.add_edge("inc", END)
>>> run = builder.compile().trace({"n": 1})
>>> run.values, [step.plan.nodes for step in run.steps]
({'n': 2}, [['__input__'], ['__start__'], ['inc']])
"""

from graphkit.channels import (
    AnyValue,
    BinaryOperatorAggregate,
    EphemeralValue,
    LastValue,
    NamedBarrierValue,
    Topic,
    UntrackedValue,
)
from graphkit.checkpoint import InMemorySaver, MemorySaver, SqliteSaver
from graphkit.constants import END, START
from graphkit.errors import (
    EmptyInputError,
    GraphInterrupt,
    GraphkitWarning,
    GraphRecursionError,
    InvalidUpdateError,
    NodeInterrupt,
    ParentCommand,
)
from graphkit.graph import StateGraph
from graphkit.pregel import (
    ChannelChange,
    CompiledGraph,
    Execution,
    Plan,
    Run,
    Stepper,
    Superstep,
    Task,
    TaskResult,
    Update,
)
from graphkit.pregel.runtime import Runtime, get_runtime, get_store, get_stream_writer, interrupt
from graphkit.types import Command, Interrupt, Overwrite, RetryPolicy, Send

# isort: split
# The layers that read records give them their methods (run.to_frame(), run.why(),
# print(run), the notebook cards, app.get_graph()); the runtime imports neither layer.
from graphkit.inspect import methods as _inspect_methods
from graphkit.render import methods as _render_methods

_inspect_methods.attach()
_render_methods.attach()

__version__ = "0.1.0"  # the one place the version is written: pyproject.toml reads it

__all__ = [
    "END",
    "START",
    "AnyValue",
    "BinaryOperatorAggregate",
    "ChannelChange",
    "Command",
    "CompiledGraph",
    "EmptyInputError",
    "EphemeralValue",
    "Execution",
    "GraphInterrupt",
    "GraphRecursionError",
    "GraphkitWarning",
    "InMemorySaver",
    "Interrupt",
    "InvalidUpdateError",
    "LastValue",
    "MemorySaver",
    "MessageGraph",
    "MessagesState",
    "NamedBarrierValue",
    "NodeInterrupt",
    "Overwrite",
    "ParentCommand",
    "Plan",
    "RetryPolicy",
    "Run",
    "Runtime",
    "Send",
    "SqliteSaver",
    "StateGraph",
    "Stepper",
    "Superstep",
    "Task",
    "TaskResult",
    "ToolNode",
    "Topic",
    "UntrackedValue",
    "Update",
    "add_messages",
    "create_react_agent",
    "from_langgraph",
    "get_runtime",
    "get_store",
    "get_stream_writer",
    "interrupt",
    "open_langgraph_thread",
    "tools_condition",
]

_PREBUILT = ("MessagesState", "ToolNode", "add_messages", "create_react_agent", "tools_condition")
_BRIDGE = ("from_langgraph", "open_langgraph_thread")


def __getattr__(name: str) -> object:
    """Import the langchain-core integration only when one of its names is asked for,
    so that ``import graphkit`` stays free of langchain-core."""
    if name in _BRIDGE:  # the LangGraph bridge: imported when first asked for
        import graphkit.bridge

        return getattr(graphkit.bridge, name)
    if name in _PREBUILT:
        import graphkit.prebuilt

        return getattr(graphkit.prebuilt, name)
    if name == "MessageGraph":  # deprecated, and needs langchain-core too
        from graphkit.graph.message import MessageGraph

        return MessageGraph
    raise AttributeError(f"module 'graphkit' has no attribute {name!r}")
