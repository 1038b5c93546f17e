"""The Runnable methods a compiled LangGraph graph has besides invoke and stream:
``batch`` / ``abatch``, ``get_subgraphs`` and the input/output JSON schemas, compared on
the same graphs; what graphkit does not have yet is refused by name."""

from __future__ import annotations

import asyncio
import dataclasses
import operator
import threading
from typing import Annotated, Any

import pytest
from langchain_core.runnables import RunnableConfig
from typing_extensions import TypedDict

SIDES = ("langgraph", "graphkit")


class State(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


class Output(TypedDict):
    n: int


def lib(side: str) -> Any:
    if side == "langgraph":
        from langgraph.graph import START, StateGraph
    else:
        from graphkit import START, StateGraph
    return StateGraph, START


def doubling(side: str, seen_threads: set[str] | None = None) -> Any:
    StateGraph, START = lib(side)

    def double(state: State) -> dict:
        if seen_threads is not None:
            seen_threads.add(threading.current_thread().name)
        if state["n"] < 0:
            raise ValueError(f"negative: {state['n']}")
        return {"n": state["n"] * 2, "log": ["doubled"]}

    builder = StateGraph(State, output_schema=Output).add_node("double", double)
    return builder.add_edge(START, "double").compile()


def outcome(values: list[Any]) -> list[Any]:
    return [f"{type(v).__name__}: {v}" if isinstance(v, Exception) else v for v in values]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["batch", "abatch"])
def test_batch_runs_each_input_and_keeps_their_order(asynchronous):
    inputs = [{"n": 1, "log": []}, {"n": -1, "log": []}, {"n": 3, "log": []}]

    def run(side: str, **kwargs: Any) -> Any:
        app = doubling(side)
        try:
            if asynchronous:
                return outcome(asyncio.run(app.abatch(inputs, **kwargs)))
            return outcome(app.batch(inputs, **kwargs))
        except Exception as error:
            return f"raised {type(error).__name__}: {error}"

    for kwargs in ({"return_exceptions": True}, {}, {"config": {"max_concurrency": 1}}):
        assert run("graphkit", **kwargs) == run("langgraph", **kwargs), kwargs
    assert run("graphkit", return_exceptions=True) == [
        {"n": 2},
        "ValueError: negative: -1",
        {"n": 6},
    ]


def test_batch_takes_one_config_per_input():
    def run(side: str) -> Any:
        from_config = []
        StateGraph, START = lib(side)

        def read(state: State, config: RunnableConfig) -> dict:
            from_config.append(config["configurable"]["who"])
            return {"n": state["n"]}

        app = StateGraph(State).add_node("read", read).add_edge(START, "read").compile()
        configs = [{"configurable": {"who": "first"}}, {"configurable": {"who": "second"}}]
        app.batch([{"n": 1, "log": []}, {"n": 2, "log": []}], configs)
        with pytest.raises(ValueError):
            app.batch([{"n": 1, "log": []}], configs)  # two configs, one input
        return sorted(from_config)

    assert run("graphkit") == run("langgraph") == ["first", "second"]


def _roots_named_by_the_run_id(side: str, asynchronous: bool) -> tuple[list[bool], list[str]]:
    """Which root runs of a ``batch`` given a ``run_id`` carry it, and the warnings."""
    import uuid
    import warnings

    from langchain_core.callbacks import BaseCallbackHandler

    given_id, given = uuid.UUID(int=7), []

    class Roots(BaseCallbackHandler):
        def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kwargs):
            if parent_run_id is None:
                given.append(run_id == given_id)

    app = doubling(side)
    config = {"run_id": given_id, "callbacks": [Roots()]}
    inputs = [{"n": k, "log": []} for k in range(3)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if asynchronous:
            asyncio.run(app.abatch(inputs, config))
        else:
            app.batch(inputs, config)
    said = [str(warning.message) for warning in caught if warning.category is RuntimeWarning]
    return sorted(given), said


@pytest.mark.parametrize("asynchronous", [False, True], ids=["batch", "abatch"])
def test_a_run_id_given_to_batch_names_its_first_run_only(asynchronous):
    """One run id names one run (run-id-langsmith.mdx: "Works with all standard Runnable
    methods like invoke, batch"): LangChain's batch gives it to the first input only."""
    expected = _roots_named_by_the_run_id("langgraph", asynchronous)
    assert expected == (
        [False, False, True],
        ["Provided run_id be used only for the first element of the batch."],
    )
    assert _roots_named_by_the_run_id("graphkit", asynchronous) == expected


def test_batch_runs_at_most_max_concurrency_at_once():
    threads: set[str] = set()
    app = doubling("graphkit", threads)
    app.batch([{"n": k, "log": []} for k in range(6)], {"max_concurrency": 1})
    assert len(threads) == 1  # one worker ran them all


def nested(side: str) -> Any:
    """outer: "inner" is a compiled graph; "calls" invokes one from its function."""
    StateGraph, START = lib(side)
    leaf = StateGraph(State).add_node("leaf", lambda s: {"log": ["leaf"]})
    leaf = leaf.add_edge(START, "leaf").compile()
    middle = StateGraph(State).add_node("deep", leaf).add_edge(START, "deep").compile()

    def calls(state: State) -> dict:
        return leaf.invoke(state)

    outer = StateGraph(State).add_node("inner", middle).add_node("calls", calls)
    outer.add_node("plain", lambda s: {"log": ["plain"]})
    return outer.add_edge(START, "inner").add_edge("inner", "calls").add_edge("calls", "plain")


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"recurse": True}, {"namespace": "inner"}, {"namespace": "inner|deep"},
     {"namespace": "inner|deep", "recurse": True}, {"namespace": "plain"}],
    ids=str,
)  # fmt: skip
def test_get_subgraphs_finds_graph_nodes_and_graphs_a_node_calls(kwargs):
    def names(side: str) -> list[tuple[str, list[str]]]:
        app = nested(side).compile()
        found = app.get_subgraphs(**kwargs)
        return [(name, sorted(graph.builder.nodes)) for name, graph in found]

    ours = names("graphkit")
    assert ours == names("langgraph")
    if kwargs == {"recurse": True}:
        assert [name for name, _ in ours] == ["inner", "inner|deep", "calls"]


@pytest.mark.parametrize("kwargs", [{}, {"recurse": True}, {"namespace": "inner|deep"}], ids=str)
def test_aget_subgraphs_finds_what_get_subgraphs_does(kwargs):
    async def names(side: str) -> list[str]:
        app = nested(side).compile()
        return [name async for name, _ in app.aget_subgraphs(**kwargs)]

    assert asyncio.run(names("graphkit")) == asyncio.run(names("langgraph"))


def _drawn(graph: Any) -> tuple[list[str], list[tuple[str, str]]]:
    """Node ids and edges (LangGraph's ``nodes`` is a dict by id, graphkit's a tuple of
    ``Node``: a known difference)."""
    ids = sorted(getattr(node, "id", node) for node in graph.nodes)
    return ids, sorted((edge.source, edge.target) for edge in graph.edges)


@pytest.mark.parametrize(
    "call",
    ["config", "none-and-xray", "config-and-xray", "async", "async-xray", "async-config"],
)
def test_get_graph_takes_a_config_first_and_has_an_async_twin(call):
    """LangGraph's ``get_graph(config=None, *, xray=False)`` and ``aget_graph``: a config
    given first is no xray."""

    def drawn(side: str) -> Any:
        app = nested(side).compile()
        config = {"configurable": {"thread_id": "t"}}
        graph = {
            "config": lambda: app.get_graph(config),
            "none-and-xray": lambda: app.get_graph(None, xray=1),
            "config-and-xray": lambda: app.get_graph(config, xray=True),
            "async": lambda: asyncio.run(app.aget_graph()),
            "async-xray": lambda: asyncio.run(app.aget_graph(xray=True)),
            "async-config": lambda: asyncio.run(app.aget_graph(config, xray=1)),
        }[call]()
        return _drawn(graph)

    assert drawn("graphkit") == drawn("langgraph")


@pytest.mark.parametrize("saves", [None, True, False], ids=lambda saves: f"checkpointer={saves}")
def test_xray_expands_the_subgraphs_get_subgraphs_finds(saves):
    """A subgraph node compiled with ``checkpointer=False`` keeps no state: LangGraph finds
    no subgraph there, so xray draws the node as one."""

    def drawn(side: str) -> Any:
        StateGraph, START = lib(side)
        leaf = StateGraph(State).add_node("leaf", lambda s: {"log": ["leaf"]})
        leaf = leaf.add_edge(START, "leaf").compile(checkpointer=saves)
        app = StateGraph(State).add_node("sub", leaf).add_edge(START, "sub").compile()
        return _drawn(app.get_graph(xray=True))

    assert drawn("graphkit") == drawn("langgraph")


_own_graph: Any = None  # (set to the graph the node below belongs to)


def _reads_its_own_graph(state: State) -> dict:
    return {"log": [str(_own_graph is not None)]}


def test_a_node_that_reads_its_own_graph_s_name_is_no_subgraph():
    """LangGraph looks for subgraphs when it compiles, before the name is bound; graphkit
    looks later, so it must skip the graph itself (xray=True would recurse for ever)."""
    global _own_graph

    def found(side: str) -> list[Any]:
        global _own_graph
        StateGraph, START = lib(side)
        builder = StateGraph(State).add_node("a", _reads_its_own_graph).add_edge(START, "a")
        _own_graph = app = builder.compile()
        drawn = [_drawn(app.get_graph(xray=xray)) for xray in (1, 3, True)]
        return [list(app.get_subgraphs(recurse=True)), drawn, app.invoke({"n": 0})]

    assert found("graphkit") == found("langgraph")


def test_the_input_and_output_json_schemas_are_langgraph_s():
    ours, theirs = doubling("graphkit"), doubling("langgraph")
    assert ours.get_input_jsonschema() == theirs.get_input_jsonschema()
    assert ours.get_output_jsonschema() == theirs.get_output_jsonschema()
    assert list(ours.get_output_jsonschema()["properties"]) == ["n"]


@dataclasses.dataclass
class Settings:
    user: str
    retries: int = 3


def test_the_context_json_schema_is_langgraph_s():
    def schemas(side: str) -> tuple[Any, Any]:
        StateGraph, START = lib(side)
        plain = StateGraph(State).add_node("a", lambda state: {}).add_edge(START, "a")
        given = StateGraph(State, context_schema=Settings).add_node("a", lambda state: {})
        given = given.add_edge(START, "a")
        return plain.compile().get_context_jsonschema(), given.compile().get_context_jsonschema()

    ours = schemas("graphkit")
    assert ours == schemas("langgraph")
    assert ours[0] is None and ours[1]["required"] == ["user"]


def test_a_subgraph_that_keeps_no_state_is_not_listed():
    """A graph compiled with checkpointer=False keeps no state: LangGraph does not list
    it among the subgraphs, added as a node or called from one."""

    def names(side: str) -> list[str]:
        StateGraph, START = lib(side)
        inner = StateGraph(State).add_node("leaf", lambda s: {"log": ["leaf"]})
        stateless = inner.add_edge(START, "leaf").compile(checkpointer=False)
        kept = inner.compile()

        def calls_stateless(state: State) -> dict:
            return stateless.invoke(state)

        outer = StateGraph(State).add_node("node", stateless).add_node("calls", calls_stateless)
        outer.add_node("kept", kept)
        outer = outer.add_edge(START, "node").add_edge("node", "calls").add_edge("calls", "kept")
        return [name for name, _ in outer.compile().get_subgraphs()]

    assert names("graphkit") == names("langgraph") == ["kept"]


# -- a Runnable as a node: its async side in an async run ---------------------------------


class Count(TypedDict):
    n: int


def _runnable_nodes(side: str) -> dict[str, Any]:
    """Graphs whose one node is a Runnable: async only, or sync and async sides that
    differ (as a chain whose model has both), made with RunnableLambda or written."""
    from langchain_core.runnables import Runnable, RunnableLambda

    StateGraph, START = lib(side)

    async def later(state: Count) -> dict:
        await asyncio.sleep(0)
        return {"n": state["n"] + 100}

    def now(state: Count) -> dict:
        return {"n": state["n"] + 1}

    class Both(Runnable):
        def invoke(self, state: Count, config: Any = None, **kwargs: Any) -> dict:
            return {"n": state["n"] + 2}

        async def ainvoke(self, state: Count, config: Any = None, **kwargs: Any) -> dict:
            return {"n": state["n"] + 200}

    made = {
        "async only": RunnableLambda(later),
        "both sides": RunnableLambda(now, afunc=later),
        "a Runnable with both methods": Both(),
    }
    return {
        name: StateGraph(Count).add_node("x", node).add_edge(START, "x").compile()
        for name, node in made.items()
    }


def _runs(graph: Any) -> list[Any]:
    async def streamed() -> list[Any]:
        return [chunk async for chunk in graph.astream({"n": 0}, stream_mode="updates")]

    outcomes = []
    for run in (
        lambda: graph.invoke({"n": 0}),
        lambda: asyncio.run(graph.ainvoke({"n": 0})),
        lambda: asyncio.run(streamed()),
    ):
        try:
            outcomes.append(run())
        except Exception as error:
            outcomes.append(f"raised {type(error).__name__}")
    return outcomes


@pytest.mark.parametrize("name", ["async only", "both sides", "a Runnable with both methods"])
def test_a_runnable_node_runs_its_async_side_in_an_async_run(name):
    theirs = _runs(_runnable_nodes("langgraph")[name])
    ours = _runs(_runnable_nodes("graphkit")[name])
    assert ours == theirs
    assert ours[1] != ours[0] or name == "async only"  # (the two sides differ)


# -- the attributes LangGraph's compiled graph reads back ------------------------------------

READ_BACK = (
    "input_channels",
    "output_channels",
    "stream_channels",
    "interrupt_before_nodes",
    "interrupt_after_nodes",
    "retry_policy",
    "name",
)


def compiled_for_read_back(side: str, shape: str) -> Any:
    StateGraph, START = lib(side)
    if shape == "single value":
        builder = StateGraph(int).add_node("a", lambda value: value + 1)
        return builder.add_edge(START, "a").compile()
    builder = StateGraph(State, output_schema=Output).add_node("a", lambda state: {})
    builder = builder.add_node("b", lambda state: {}).add_edge(START, "a").add_edge("a", "b")
    if shape == "breakpoints":
        return builder.compile(interrupt_before=["b"], interrupt_after="*", name="mine")
    return builder.compile()


@pytest.mark.parametrize("shape", ["plain", "breakpoints", "single value"])
def test_a_compiled_graph_reads_back_langgraphs_attributes(shape):
    def read(side: str) -> dict[str, Any]:
        app = compiled_for_read_back(side, shape)
        names = {
            "plain": app.get_name(),
            "suffixed": app.get_name("input"),
            "given": app.get_name(name="other"),
            "lower": app.get_name("x", name="lower"),
        }
        return {**{key: getattr(app, key) for key in READ_BACK}, **names}

    assert read("graphkit") == read("langgraph")


@pytest.mark.parametrize("asynchronous", [False, True], ids=["batch", "abatch"])
def test_batch_as_completed_yields_each_index_and_output(asynchronous: bool) -> None:
    inputs = [{"n": 1, "log": []}, {"n": None, "log": []}, {"n": 3, "log": []}]
    seen = []
    for side in SIDES:
        app = doubling(side)
        if asynchronous:

            async def collect(app: Any = app) -> list[Any]:
                pairs = app.abatch_as_completed(inputs, return_exceptions=True)
                return [pair async for pair in pairs]

            pairs = asyncio.run(collect())
        else:
            pairs = list(app.batch_as_completed(inputs, return_exceptions=True))
        seen.append(sorted((index, repr(output)) for index, output in pairs))
    assert seen[0] == seen[1]
    assert [index for index, _ in seen[1]] == [0, 1, 2] and "TypeError" in seen[1][1][1]


def test_get_graph_refuses_a_config_that_is_no_dict_and_says_xray():
    """``get_graph(True)`` (graphkit's old spelling of xray) fails, as in LangGraph, and
    the error says what to write instead."""
    StateGraph, START = lib("graphkit")
    app = StateGraph(State).add_node("a", lambda s: {}).add_edge(START, "a").compile()
    with pytest.raises(TypeError, match="pass xray=True"):
        app.get_graph(True)
    theirs_lib = lib("langgraph")
    theirs = theirs_lib[0](State).add_node("a", lambda s: {}).add_edge(theirs_lib[1], "a")
    with pytest.raises(AttributeError):
        theirs.compile().get_graph(True)
