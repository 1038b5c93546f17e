"""Run one agent scenario on LangGraph's prebuilt agent and on graphkit's; record what a
user sees, in a form that compares exactly.

A `Side` holds the few names a scenario needs from one library. `observe` runs a scenario
with an in-memory checkpointer and records an `Observation`: the per-step task results of
the "debug" stream (a sorted list per step, so parallel tasks compare as a multiset), the
final history, the other state keys, what the model was sent on each call, how many
supersteps the thread saved, and the error, if any (by class name).

Random message ids (uuid4 from add_messages, ``lc_run--...`` from langchain-core) are
replaced by their position in the final history ("#1", "#2", ...); ids not in it become
"#?". The text of an error ToolMessage is graphkit's own (it never copies LangGraph's), so
it is compared by the facts it must mention (tool names, error reprs) given per scenario.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from langchain_core.messages import BaseMessage, ToolMessage

from graphkit.prebuilt.fake import ScriptedChatModel

__all__ = [
    "Observation",
    "Scenario",
    "Side",
    "build",
    "canonical",
    "graphkit_side",
    "langgraph_side",
    "observe",
    "run_config",
]


@dataclass(frozen=True)
class Side:
    """What a scenario needs from one library."""

    name: str
    create_react_agent: Callable[..., Any]
    ToolNode: Any
    InMemorySaver: Any
    Command: Any
    InjectedState: Any
    RemainingSteps: Any
    serializing_saver: Callable[[], Any]
    """A saver that serializes every value it keeps (graphkit's InMemorySaver does not)."""
    StateGraph: Any

    def inside_a_node(self, action: Callable[[Any], Any]) -> Any:
        """``action(config)``'s result, called from inside a running node (LangGraph's
        ToolNode needs the runtime a graph gives its nodes)."""
        results = []

        def node(state, config):
            results.append(action(config))
            return {}

        builder = self.StateGraph(_Empty)
        builder.add_node("node", node)
        builder.set_entry_point("node")
        builder.compile().invoke({"unused": 0})
        return results[0]

    def __repr__(self) -> str:
        return f"Side({self.name!r})"


class _Empty(TypedDict):
    unused: int


@functools.cache
def langgraph_side() -> Side:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import StateGraph
    from langgraph.managed import RemainingSteps
    from langgraph.prebuilt import InjectedState, ToolNode
    from langgraph.prebuilt import create_react_agent as create
    from langgraph.types import Command

    def create_react_agent(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings():  # deprecated in favour of langchain's create_agent
            warnings.simplefilter("ignore")
            return create(*args, **kwargs)

    return Side(
        "langgraph",
        create_react_agent,
        ToolNode,
        InMemorySaver,
        Command,
        InjectedState,
        RemainingSteps,
        InMemorySaver,
        StateGraph,
    )


@functools.cache
def graphkit_side() -> Side:
    import sqlite3

    from graphkit import Command, InMemorySaver, StateGraph, ToolNode, create_react_agent
    from graphkit.checkpoint import SqliteSaver
    from graphkit.managed import RemainingSteps
    from graphkit.prebuilt import InjectedState

    def serializing_saver() -> SqliteSaver:
        return SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))

    return Side(
        "graphkit",
        create_react_agent,
        ToolNode,
        InMemorySaver,
        Command,
        InjectedState,
        RemainingSteps,
        serializing_saver,
        StateGraph,
    )


@dataclass(frozen=True)
class Scenario:
    """One agent, one input. ``responses`` and ``tools`` are factories, so every run
    starts from a fresh script; ``options`` are create_react_agent's keyword arguments."""

    name: str
    responses: Callable[[], list[Any]]
    tools: Callable[[Side], Any] = lambda side: []
    options: Callable[[Side], dict[str, Any]] = lambda side: {}
    input: Callable[[], Any] = lambda: {"messages": [("user", "hi")]}
    recursion_limit: int | None = None
    error_facts: tuple[str, ...] = ()
    """What an error ToolMessage must mention (its exact text is graphkit's own)."""
    raises: str | None = None
    """The error LangGraph raises on this scenario, by class name (pinned by a test)."""
    serializing: bool = False
    """Run with a saver that serializes values (SqliteSaver on graphkit's side)."""
    model: Callable[[Any], Any] = lambda scripted: scripted
    """What is passed as create_react_agent's model, made from the scripted model."""
    compared: tuple[str, ...] = ("steps", "history", "values", "model_calls", "supersteps", "error")
    """The parts of the Observation that must be equal."""

    def __repr__(self) -> str:
        return self.name


@dataclass
class Observation:
    steps: dict[int, list[str]]
    history: list[str]
    values: dict[str, str]
    model_calls: list[list[str]]
    supersteps: int
    error: str | None
    nodes: dict[int, list[str]] = field(default_factory=dict)


def build(side: Side, scenario: Scenario, model: Any, *, checkpointer: bool = True) -> Any:
    """The scenario's agent on ``side``."""
    saver = side.serializing_saver if scenario.serializing else side.InMemorySaver
    return side.create_react_agent(
        scenario.model(model),
        scenario.tools(side),
        checkpointer=saver() if checkpointer else None,
        **scenario.options(side),
    )


def run_config(scenario: Scenario, thread: str = "t") -> dict[str, Any]:
    config: dict[str, Any] = {"configurable": {"thread_id": thread}}
    if scenario.recursion_limit is not None:
        config["recursion_limit"] = scenario.recursion_limit
    return config


def observe(side: Side, scenario: Scenario) -> Observation:
    """Run ``scenario`` on ``side`` and record what a user sees."""
    model = ScriptedChatModel(responses=scenario.responses())
    app = build(side, scenario, model)
    config = run_config(scenario)
    events, error = [], None
    try:
        events.extend(app.stream(scenario.input(), config, stream_mode="debug"))
    except Exception as exc:
        error = type(exc).__name__
    state = app.get_state(config).values
    history = list(state.get("messages", []))
    ids = {message.id: f"#{index}" for index, message in enumerate(history, 1)}
    show = functools.partial(canonical, ids=ids, facts=scenario.error_facts)
    steps: dict[int, list[str]] = {}
    nodes: dict[int, list[str]] = {}
    for event in events:
        if event["type"] != "task_result":
            continue
        payload = event["payload"]
        failed = type(payload["error"]).__name__ if payload.get("error") else None
        entry = f"{payload['name']}: {show(payload['result'])} error={failed}"
        steps.setdefault(event["step"], []).append(entry)
        nodes.setdefault(event["step"], []).append(payload["name"])
    return Observation(
        steps={step: sorted(entries) for step, entries in steps.items()},
        history=[show(message) for message in history],
        values={key: show(value) for key, value in state.items() if key != "messages"},
        model_calls=[[show(m) for m in call] for call in model.calls],
        supersteps=len(list(app.get_state_history(config))),
        error=error,
        nodes={step: sorted(names) for step, names in nodes.items()},
    )


def canonical(
    value: Any, *, ids: Mapping[Any, str] | None = None, facts: Iterable[str] = ()
) -> str:
    """A deterministic string for a value; messages with normalised ids, and error
    ToolMessages by the facts they mention."""
    ids = ids or {}
    again = functools.partial(canonical, ids=ids, facts=facts)
    if isinstance(value, BaseMessage):
        fields = value.model_dump()
        fields["id"] = ids.get(value.id, "#?") if value.id is not None else None
        if isinstance(value, ToolMessage) and value.status == "error":
            fields["content"] = "error mentioning " + ", ".join(
                fact for fact in facts if fact in str(value.content)
            )
        return type(value).__name__ + again(fields)
    if isinstance(value, Mapping):
        return "{" + ", ".join(sorted(f"{again(k)}: {again(v)}" for k, v in value.items())) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(again(item) for item in value) + "]"
    if type(value).__name__ in ("Command", "Send"):
        names = (
            ("update", "goto", "graph", "resume")
            if type(value).__name__ == "Command"
            else ("node", "arg")
        )
        return type(value).__name__ + again({name: getattr(value, name) for name in names})
    if hasattr(type(value), "model_fields"):
        return type(value).__name__ + again(value.model_dump())
    return repr(value)
