"""Subgraphs in a v3 run, compared with LangGraph's: how ``run.lifecycle`` and the
``run.subgraphs`` handles name an agent (a graph run with ``lc_agent_name`` in its
metadata, as langchain's ``create_agent(name=...)`` does) and the tool call that asked
for it, and what a handle's own transformers see."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from .stream_v3_programs import THREAD, Ids, drain, outcome, plain, run_v3
from .test_parity_stream_v3 import assert_same

pytestmark = pytest.mark.filterwarnings("ignore:The v3 streaming protocol")

Count = TypedDict("Count", {"x": int})  # noqa: UP013

TOOL_CALL = {"name": "weather", "args": {}, "id": "call_w", "type": "tool_call"}


def agent_call(lib: Any, task_input: Any, agent_name: Any = "weather_agent") -> Any:
    """START sends ``task_input`` to "tools", which runs a small graph as an agent named
    ``agent_name`` (its ``lc_agent_name``; "unset": not in its metadata)."""
    inner = lib.StateGraph(Count).add_node("model", lambda s: {"x": s["x"] + 1})
    inner = inner.add_edge(lib.START, "model").compile()
    metadata = {} if agent_name == "unset" else {"lc_agent_name": agent_name}

    def tools(given: Any) -> dict:
        return inner.invoke({"x": 1}, {"metadata": metadata})

    builder = lib.StateGraph(Count).add_node("tools", tools)
    builder.add_conditional_edges(lib.START, lambda s: [lib.Send("tools", task_input)], ["tools"])
    return builder.compile()


def lifecycle_and_handles(app: Any, input: Any = None, config: Any = None) -> Any:
    """``run.lifecycle`` of one run, and the handles of another: path, graph_name,
    trigger_call_id, status."""
    input = {"x": 0} if input is None else input
    lifecycle = run_v3(app, input, "sync", lambda run: list(run.lifecycle), config=config)

    def handles(run: Any) -> list[Any]:
        ids = Ids()
        return [
            (ids.namespace(h.path), h.graph_name, ids.id(h.trigger_call_id), h.status)
            for h in run.subgraphs
        ]

    return plain(lifecycle, Ids()), run_v3(app, input, "sync", handles, config=config)


@pytest.mark.parametrize(
    "task_input",
    [
        {"__type": "tool_call_with_context", "tool_call": TOOL_CALL, "state": {}},
        {"tool_call": TOOL_CALL},
        [{"name": "w"}, "not a call", TOOL_CALL, {"id": "call_2"}],
        TOOL_CALL,  # (a call alone is no tool node's task input)
        {"tool_call": {**TOOL_CALL, "id": 7}},
        [],
    ],
    ids=["with-context", "tool-call-key", "a-list", "a-call-alone", "an-int-id", "empty"],
)
def test_an_agent_is_named_with_the_tool_call_that_asked_for_it(task_input):
    seen = assert_same(lambda lib: lifecycle_and_handles(agent_call(lib, task_input)))
    assert seen[0][0]["graph_name"] == "weather_agent"


@pytest.mark.parametrize("agent_name", [None, "unset", ""], ids=str)
def test_a_graph_without_an_agent_name(agent_name):
    task_input = {"tool_call": TOOL_CALL}
    assert_same(lambda lib: lifecycle_and_handles(agent_call(lib, task_input, agent_name)))


@pytest.mark.parametrize("caller", ["supervisor", "weather_agent"])
def test_an_agent_called_by_an_agent(caller):
    def program(lib):
        app = agent_call(lib, {"tool_call": TOOL_CALL})
        return lifecycle_and_handles(app, config={"metadata": {"lc_agent_name": caller}})

    assert assert_same(program)[0][0]["cause"] == {"type": "toolCall", "tool_call_id": "call_w"}


def test_a_subgraph_node_named_in_its_config():
    def program(lib):
        inner = lib.StateGraph(Count).add_node("model", lambda s: {"x": 5})
        inner = inner.add_edge(lib.START, "model").compile()
        named = inner.with_config(metadata={"lc_agent_name": "helper"})
        app = lib.StateGraph(Count).add_node("agent", named).add_edge(lib.START, "agent")
        return lifecycle_and_handles(app.compile())

    assert assert_same(program)[1][0][1] == "helper"


def test_agents_two_levels_deep():
    def program(lib):
        deepest = {"tool_call": {**TOOL_CALL, "id": "call_deep"}}
        middle = agent_call(lib, deepest, "deepest")

        def tools(given: Any) -> dict:
            return middle.invoke({"x": 0}, {"metadata": {"lc_agent_name": "middle"}})

        builder = lib.StateGraph(Count).add_node("tools", tools)
        send = lambda s: [lib.Send("tools", {"tool_call": TOOL_CALL})]  # noqa: E731
        builder.add_conditional_edges(lib.START, send, ["tools"])
        return lifecycle_and_handles(builder.compile())

    assert len(assert_same(program)[0]) == 4


@pytest.mark.parametrize("how", ["sync", "async"])
def test_a_handle_sees_its_first_task(how):
    """A subgraph's first task start announces the subgraph: the transformers of its
    handle's scope see that event too."""

    def program(lib):
        seen = []

        class Recorder(lib.stream.StreamTransformer):
            required_stream_modes = ("tasks",)
            supports_sync = True

            def init(self):
                return {}

            def process(self, event):
                if self.scope and event["method"] == "tasks":
                    task = event["params"]["data"]
                    seen.append((task["name"], "result" in task))
                return True

            async def aprocess(self, event):
                return self.process(event)

        inner = lib.StateGraph(Count).add_node("one", lambda s: {"x": 1})
        inner = inner.add_node("two", lambda s: {"x": 2}).add_edge(lib.START, "one")
        inner = inner.add_edge("one", "two").compile()
        app = lib.StateGraph(Count).add_node("sub", inner).add_edge(lib.START, "sub").compile()
        run_v3(app, {"x": 0}, how, drain(how), config=None, transformers=[Recorder])
        return seen

    assert assert_same(program)[0] == ("one", False)


# -- a handle's own output, and abort ------------------------------------------------------

Items = TypedDict("Items", {"items": Annotated[list, operator.add]})  # noqa: UP013


def siblings(lib: Any, *, fail: bool = False, ask: bool = False) -> Any:
    """Subgraph "one" then subgraph "two", each adding its name to "items" ("one"
    raises with ``fail``; asks a human with ``ask``)."""

    def add(name: str) -> Any:
        def node(state: Any) -> dict:
            if fail and name == "one":
                raise ValueError("one broke")
            return {"items": [lib.interrupt("ok?") if ask and name == "one" else name]}

        graph = lib.StateGraph(Items).add_node(f"add_{name}", node)
        return graph.add_edge(lib.START, f"add_{name}").compile()

    builder = lib.StateGraph(Items).add_node("one", add("one")).add_node("two", add("two"))
    builder.add_edge(lib.START, "one").add_edge("one", "two")
    return builder.compile(checkpointer=lib.InMemorySaver())


def outcome_of(read: Any) -> Any:
    try:
        return read()
    except Exception as error:
        return outcome(error)


@pytest.mark.parametrize("kind", ["completed", "failed", "interrupted"])
def test_a_handle_output_is_its_subgraph_state(kind):
    """``handle.output`` reads the run up to the subgraph's end (the next handle's
    events are still to come) and gives its last state, or raises its error."""

    def program(lib):
        app = siblings(lib, fail=kind == "failed", ask=kind == "interrupted")
        run = app.stream_events({"items": []}, THREAD, version="v3")
        seen = []

        def read(handle: Any) -> None:
            if handle.graph_name == "one":
                seen.append((outcome_of(lambda: handle.output), handle.status))
                seen.append(outcome_of(lambda: plain(handle.interrupts, Ids())))
            else:
                seen.append((handle.graph_name, list(handle.values), handle.status))

        seen.append(outcome_of(lambda: [read(handle) for handle in run.subgraphs]))
        return seen, outcome_of(lambda: run.output)

    assert_same(program)


def test_async_handle_output():
    def program(lib):
        async def read(run):
            seen = []
            async for handle in run.subgraphs:
                seen.append((handle.graph_name, await handle.output(), handle.status))
            return seen, await run.output()

        return run_v3(siblings(lib), {"items": []}, "async", read)

    assert assert_same(program)[0][0] == ("one", {"items": ["one"]}, "completed")


@pytest.mark.parametrize("how", ["sync", "async"])
def test_aborting_a_handle_leaves_the_run_going(how):
    def program(lib):
        def sync(run):
            seen = []
            for handle in run.subgraphs:
                if handle.graph_name == "one":
                    handle.abort()
                    seen.append((handle.status, list(handle.values), handle.output))
                else:
                    seen.append(list(handle.values))
            return seen, run.output

        async def asynchronous(run):
            seen = []
            async for handle in run.subgraphs:
                if handle.graph_name == "one":
                    await handle.abort()
                    seen.append((handle.status, [v async for v in handle.values]))
                else:
                    seen.append([v async for v in handle.values])
            return seen, await run.output()

        read = sync if how == "sync" else asynchronous
        return run_v3(siblings(lib), {"items": []}, how, read)

    assert assert_same(program)[1] == {"items": ["one", "one", "two"]}
