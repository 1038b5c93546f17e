"""A node's ``config`` parameter, typed: LangGraph passes the run's config only to one
typed ``RunnableConfig`` (or ``Optional`` of it) or not typed, and a ``config: dict`` node
fails there with TypeError. graphkit passes it, and warns at ``add_node`` that the node
would fail on LangGraph (found writing lesson 15, whose first draft typed it ``dict``).

(No ``from __future__ import annotations`` here: the annotations are the types themselves,
as in most users' code; string annotations are the second case.)"""

import functools
import inspect
import warnings
from typing import Any, Optional, TypedDict

import pytest
from langchain_core.runnables import RunnableConfig

from graphkit import START, StateGraph
from graphkit.errors import GraphkitWarning


class State(TypedDict, total=False):
    thread: str


def as_dict(state: State, config: dict) -> dict:
    return {"thread": config["configurable"]["thread_id"]}


def as_runnable_config(state: State, config: RunnableConfig) -> dict:
    return {"thread": config["configurable"]["thread_id"]}


def as_optional(state: State, config: Optional[RunnableConfig]) -> dict:  # noqa: UP045
    return {"thread": config["configurable"]["thread_id"]}


def as_union(state: State, config: RunnableConfig | None) -> dict:
    return {"thread": config["configurable"]["thread_id"]}


def as_string(state: State, config: "RunnableConfig") -> dict:
    return {"thread": config["configurable"]["thread_id"]}


def untyped(state, config):
    return {"thread": config["configurable"]["thread_id"]}


def annotated(annotation: Any, *, default: Any = inspect.Parameter.empty):
    """A node whose ``config`` carries ``annotation`` as written, as a module under
    ``from __future__ import annotations`` leaves every annotation a string."""

    def node(state: State, config=default) -> dict:
        return {"thread": config["configurable"]["thread_id"] if config else "none"}

    node.__annotations__["config"] = annotation
    node.__defaults__ = None if default is inspect.Parameter.empty else (default,)
    return node


class Called:
    """A callable object: LangGraph reads its ``__call__``'s signature."""

    def __init__(self, node):
        self.node = node

    def __call__(self, state: State, config: dict) -> dict:
        return self.node(state, config)


class RunnableConfigOfMyOwn(TypedDict, total=False):
    configurable: dict


RunnableConfigOfMyOwn.__name__ = RunnableConfigOfMyOwn.__qualname__ = "RunnableConfig"


def own_type(state: State, config: RunnableConfigOfMyOwn) -> dict:
    return {"thread": config["configurable"]["thread_id"]}


def with_extra(state: State, config: dict, extra: int) -> dict:
    return {"thread": config["configurable"]["thread_id"]}


def with_extra_typed(state: State, config: RunnableConfig, extra: int) -> dict:
    return {"thread": config["configurable"]["thread_id"]}


def run(graph_class, start, node):
    """Build START → node with ``graph_class`` and invoke it: what it returned (or the
    error's class) and the warnings ``add_node`` gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        builder = graph_class(State)
        builder.add_node("respond", node)
    builder.add_edge(start, "respond")
    try:
        got = builder.compile().invoke({}, {"configurable": {"thread_id": "ada"}})
    except TypeError:
        got = TypeError
    return got, [str(w.message) for w in caught]


TYPED_AS_LANGGRAPH_TAKES = {
    "RunnableConfig": as_runnable_config,
    "Optional": as_optional,
    "union": as_union,
    "string": as_string,
    "string Optional": annotated("Optional[RunnableConfig]"),
    "untyped": untyped,
    "partial": functools.partial(with_extra_typed, extra=1),
}


@pytest.mark.parametrize(
    "node", TYPED_AS_LANGGRAPH_TAKES.values(), ids=list(TYPED_AS_LANGGRAPH_TAKES)
)
def test_a_config_typed_as_langgraph_takes_it_is_passed_on_both(node):
    langgraph = pytest.importorskip("langgraph.graph")
    theirs, their_warnings = run(langgraph.StateGraph, langgraph.START, node)
    ours, our_warnings = run(StateGraph, START, node)
    assert ours == theirs == {"thread": "ada"}
    assert our_warnings == their_warnings == []


def test_a_config_typed_dict_fails_on_langgraph_and_graphkit_warns_so():
    langgraph = pytest.importorskip("langgraph.graph")
    theirs, their_warnings = run(langgraph.StateGraph, langgraph.START, as_dict)
    assert theirs is TypeError  # LangGraph passed nothing: a missing argument
    assert any("should be typed as 'RunnableConfig'" in said for said in their_warnings)
    ours, our_warnings = run(StateGraph, START, as_dict)
    assert ours == {"thread": "ada"}  # graphkit passes it (docs/compatibility.md)
    [said] = our_warnings
    assert "Node 'respond': its `config` parameter is typed dict" in said
    assert "would be called without it and fail with TypeError" in said
    assert "config: RunnableConfig" in said


NOT_TAKEN = {  # what LangGraph does not take, and what graphkit's warning says of it
    "a future-annotations union": (annotated("RunnableConfig | None"), "string 'RunnableConfig"),
    "a dotted string": (annotated("langchain_core.runnables.RunnableConfig"), "the string"),
    "a type of that name": (own_type, "typed test_config_parameter.RunnableConfig;"),
    "Any": (annotated(Any), "is typed Any;"),
    "a partial": (functools.partial(with_extra, extra=1), "is typed dict;"),
    "a callable object": (Called(as_dict.__call__), "is typed dict;"),
    "a bound method": (Called(as_dict).__call__, "is typed dict;"),
}


@pytest.mark.parametrize(("node", "said"), NOT_TAKEN.values(), ids=list(NOT_TAKEN))
def test_what_langgraph_does_not_take_fails_there_and_graphkit_warns(node, said):
    langgraph = pytest.importorskip("langgraph.graph")
    theirs, their_warnings = run(langgraph.StateGraph, langgraph.START, node)
    assert theirs is TypeError and len(their_warnings) == 1
    ours, [our_warning] = run(StateGraph, START, node)
    assert ours == {"thread": "ada"}
    assert said in our_warning and "fail with TypeError" in our_warning


def test_a_config_with_a_default_gets_it_on_langgraph_and_the_warning_says_so():
    langgraph = pytest.importorskip("langgraph.graph")
    node = annotated("RunnableConfig | None", default=None)
    theirs, their_warnings = run(langgraph.StateGraph, langgraph.START, node)
    assert theirs == {"thread": "none"} and len(their_warnings) == 1
    ours, [said] = run(StateGraph, START, node)
    assert ours == {"thread": "ada"}
    assert "would be called without it and get its default, None." in said


def positional_only(state: State, config: RunnableConfig, /) -> dict:
    return {"thread": config["configurable"]["thread_id"]}


def positional_only_default(state: State, config: RunnableConfig | None = None, /) -> dict:
    return {"thread": "none" if config is None else config["configurable"]["thread_id"]}


def writer_positional_only(state: State, writer: Any = None, /) -> dict:
    return {"thread": "none" if writer is None else "writer"}


def test_a_positional_only_config_is_not_passed_as_on_langgraph():
    """LangGraph passes an injected parameter by keyword, so it skips a positional-only
    one: the node is called with the state alone. graphkit passed it by keyword too,
    and the call failed with Python's "positional-only arguments passed as keyword"."""
    langgraph = pytest.importorskip("langgraph.graph")
    for library in (langgraph, __import__("graphkit")):
        builder = library.StateGraph(State).add_node("respond", positional_only)
        app = builder.add_edge(library.START, "respond").compile()
        with pytest.raises(TypeError, match="missing 1 required positional argument: 'config'"):
            app.invoke({}, {"configurable": {"thread_id": "ada"}})
        for node in (positional_only_default, writer_positional_only):
            assert run(library.StateGraph, library.START, node) == ({"thread": "none"}, [])


def route_with(state: State, config: dict) -> str:
    return "respond"


def route_typed(state: State, config: RunnableConfig) -> str:
    return "respond"


@pytest.mark.parametrize("router", [route_with, route_typed], ids=lambda f: f.__name__)
def test_a_router_follows_the_same_rule(router):
    """LangGraph reads a router's signature as a node's: ``config: dict`` gets nothing."""
    langgraph = pytest.importorskip("langgraph.graph")

    def routed(graph_class, start):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            builder = graph_class(State)
            builder.add_node("first", lambda state: {})
            builder.add_node("respond", as_runnable_config)
            builder.add_edge(start, "first")
            builder.add_conditional_edges("first", router, ["respond"])
        try:
            got = builder.compile().invoke({}, {"configurable": {"thread_id": "ada"}})
        except TypeError:
            got = TypeError
        return got, [str(w.message) for w in caught]

    theirs, their_warnings = routed(langgraph.StateGraph, langgraph.START)
    ours, our_warnings = routed(StateGraph, START)
    assert ours == {"thread": "ada"}
    if router is route_typed:
        assert theirs == ours and their_warnings == our_warnings == []
        return
    assert theirs is TypeError and len(their_warnings) == 1
    [said] = our_warnings
    assert said.startswith("The router of the conditional edge from 'first': its `config`")


def test_an_entrypoint_follows_the_same_rule():
    from langgraph.func import entrypoint as their_entrypoint

    from graphkit.func import entrypoint

    def main(number: int, config: dict) -> str:
        return config["configurable"]["thread_id"]

    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        their_main = their_entrypoint()(main)
    with pytest.raises(TypeError):
        their_main.invoke(1, {"configurable": {"thread_id": "ada"}})
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        our_main = entrypoint()(main)
    assert our_main.invoke(1, {"configurable": {"thread_id": "ada"}}) == "ada"
    assert len(theirs) == 1
    assert [w.filename for w in ours] == [__file__]  # the user's decorator line
    [said] = [str(w.message) for w in ours]
    assert said.startswith("The entrypoint 'main': its `config` parameter is typed dict")


def test_a_task_follows_the_same_rule():
    """LangGraph warns when the task runs; graphkit where it is decorated."""
    from langgraph.func import entrypoint as their_entrypoint
    from langgraph.func import task as their_task

    from graphkit.func import entrypoint, task

    def thread(number: int, config: dict) -> str:
        return config["configurable"]["thread_id"]

    def main_of(task_of):
        made = task_of(thread)

        def main(number: int) -> str:
            return made(number).result()

        return main

    with pytest.raises(TypeError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        their_entrypoint()(main_of(their_task)).invoke(1, {"configurable": {"thread_id": "a"}})
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        main = entrypoint()(main_of(task))
    assert main.invoke(1, {"configurable": {"thread_id": "ada"}}) == "ada"
    [said] = [str(w.message) for w in ours]
    assert said.startswith("The task 'thread': its `config` parameter is typed dict")


def test_graphkits_own_nodes_do_not_warn():
    """The prebuilt agent's nodes type their config ``Any``: graphkit's own, not the
    user's."""
    from graphkit.prebuilt import ScriptedChatModel, create_react_agent

    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphkitWarning)
        create_react_agent(ScriptedChatModel(responses=["hi"]), [])
