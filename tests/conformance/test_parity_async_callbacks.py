"""LangChain callbacks in async runs, on both libraries: LangGraph reports an async run
(``ainvoke``, ``astream``, ``astream_events``) through ``AsyncCallbackManager``s, so an
async handler is awaited on the run's event loop and its ``raise_error`` raises, a sync
handler with ``run_inline`` is called on the loop's thread, and one without it in the
loop's executor. The matrix: sync and async handlers, ``raise_error`` and ``run_inline``
on and off, raising in ``on_chain_start`` / ``on_chain_end`` / ``on_chain_error`` of the
graph's run, a task's or a router's, in each way to run a graph; then where each event
is heard (thread and loop) across a Send fan-out, a chat model awaited in a node, a
subgraph and ``create_react_agent``'s steps, and what a node is given as its callbacks."""

from __future__ import annotations

import asyncio
import importlib
import itertools
import logging
import operator
import threading
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool

from graphkit.prebuilt.fake import ScriptedChatModel

from .harness import Lib, load_graphkit, load_langgraph

LIBS = [load_langgraph, load_graphkit]
METHODS = ["invoke", "ainvoke", "astream", "astream_events"]


class Count(TypedDict):
    n: int


class Log(TypedDict):
    log: Annotated[list, operator.add]


# -- a handler that raises, and what a run then does ------------------------------------


def _raising(kind: str, raise_error: bool, inline: bool, event: str, target: str) -> Any:
    """A handler raising ``ValueError("boom-<event>")`` in ``event`` of the ``target``
    run only: the graph's ("graph"), the task ``a``'s ("task") or the router's ("router")."""

    def aimed(kwargs: dict[str, Any]) -> bool:
        tags = kwargs.get("tags") or []
        if target == "graph":
            return kwargs.get("parent_run_id") is None
        if target == "task":
            return "graph:step:1" in tags
        return any(tag.startswith("seq:step:") for tag in tags)

    def hook(self: Any, *args: Any, **kwargs: Any) -> None:
        if self.aimed_at(kwargs):
            raise ValueError(f"boom-{event}")

    async def ahook(self: Any, *args: Any, **kwargs: Any) -> None:
        hook(self, *args, **kwargs)

    base = AsyncCallbackHandler if kind == "async" else BaseCallbackHandler
    members = {
        "raise_error": raise_error,
        "run_inline": inline,
        "aimed_at": staticmethod(aimed),
        event: ahook if kind == "async" else hook,
    }
    return type("Raising", (base,), members)()


def _routed(lib: Lib, fail: bool) -> Any:
    def a(state: Count) -> Count:
        if fail:
            raise KeyError("node")
        return {"n": state["n"] + 1}

    def route(state: Count) -> str:
        return lib.END

    graph = lib.StateGraph(Count)
    graph.add_node("a", a)
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route)
    return graph.compile()


def _outcome(loader: Any, method: str, handler: Any, fail: bool) -> str:
    """How the run ended: "ok", or the error it raised (class and message)."""
    app = _routed(loader(), fail)
    config = {"callbacks": [handler]}

    async def run_async() -> Any:
        if method == "ainvoke":
            return await app.ainvoke({"n": 0}, config)
        if method == "astream":
            return [chunk async for chunk in app.astream({"n": 0}, config)]
        return [event async for event in app.astream_events({"n": 0}, config, version="v2")]

    try:
        if method == "invoke":
            app.invoke({"n": 0}, config)
        else:
            asyncio.run(run_async())
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return "ok"


RAISING = [
    pytest.param(*case, id="-".join(str(part) for part in case))
    for case in itertools.product(
        ["sync", "async"],
        [True, False],
        [True, False],
        ["on_chain_start", "on_chain_end", "on_chain_error"],
        ["graph", "task", "router"],
        METHODS,
    )
    if not (case[3] == "on_chain_error" and case[4] == "router")  # (no router runs then)
]


@pytest.mark.parametrize(("kind", "raise_error", "inline", "event", "target", "method"), RAISING)
def test_a_raising_handler_raises_or_is_logged_as_in_langgraph(
    kind, raise_error, inline, event, target, method
):
    logging.disable(logging.CRITICAL)  # ("Error in ..." for each handler that only logs)
    try:
        fail = event == "on_chain_error"
        outcomes = [
            _outcome(load, method, _raising(kind, raise_error, inline, event, target), fail)
            for load in LIBS
        ]
    finally:
        logging.disable(logging.NOTSET)
    assert outcomes[1] == outcomes[0]


# -- where each event is heard ----------------------------------------------------------


class _Where:
    """The run's event loop, to tell it from another (a loop of the handler's own)."""

    loop: asyncio.AbstractEventLoop | None = None


def _where() -> str:
    """Where a handler is called: the main thread or another; the run's loop, another
    loop, or none."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    thread = "main" if threading.current_thread() is threading.main_thread() else "worker"
    if loop is None:
        return f"{thread}/no loop"
    return f"{thread}/{'run loop' if loop is _Where.loop else 'other loop'}"


_HEARD = (
    "on_chain_start",
    "on_chain_end",
    "on_chain_error",
    "on_chat_model_start",
    "on_llm_new_token",
    "on_llm_end",
)


def _recorder(kind: str, inline: bool) -> Any:
    """A handler recording each event: its kind, the run's name, its parent's name and
    where it was called."""
    seen: list[tuple[str, ...]] = []
    names: dict[Any, str] = {}

    def note(event: str, kwargs: dict[str, Any]) -> None:
        if name := kwargs.get("name"):
            names[kwargs["run_id"]] = name
        run, parent = names.get(kwargs["run_id"], "model"), kwargs.get("parent_run_id")
        seen.append((event, run, names.get(parent, "-"), _where()))

    def recording(event: str) -> Any:
        if kind == "async":

            async def ahook(self: Any, *args: Any, **kwargs: Any) -> None:
                note(event, kwargs)

            return ahook

        def hook(self: Any, *args: Any, **kwargs: Any) -> None:
            note(event, kwargs)

        return hook

    base = AsyncCallbackHandler if kind == "async" else BaseCallbackHandler
    members = {event: recording(event) for event in _HEARD}
    handler = type("Recorder", (base,), {"run_inline": inline, **members})()
    handler.seen = seen
    return handler


def _heard(loader: Any, build: Any, kind: str, inline: bool, method: str, input: Any) -> Any:
    """The events a recorder hears of ``build``'s run, in order."""
    app = build(loader())
    handler = _recorder(kind, inline)
    config = {"callbacks": [handler]}

    async def run_async() -> None:
        _Where.loop = asyncio.get_running_loop()
        if method == "ainvoke":
            await app.ainvoke(input, config)
        elif method == "astream":
            [chunk async for chunk in app.astream(input, config)]
        else:
            [event async for event in app.astream_events(input, config, version="v2")]

    if method == "invoke":
        _Where.loop = None
        app.invoke(input, config)
    else:
        asyncio.run(run_async())
    return handler.seen


def _nodes(lib: Lib) -> Any:
    """A sync node, an async one, and a sync and an async router."""

    async def a(state: Log) -> Log:
        return {"log": ["a"]}

    def pick(state: Log) -> str:
        return "b"

    async def apick(state: Log) -> str:
        return lib.END

    graph = lib.StateGraph(Log)
    graph.add_node("a", a)
    graph.add_node("b", lambda state: {"log": ["b"]})
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", pick)
    graph.add_conditional_edges("b", apick, [lib.END])
    return graph.compile()


def _fan_out(lib: Lib) -> Any:
    """Three Sends to an async node, finishing in the reverse of their order."""

    async def work(state: dict[str, Any]) -> Log:
        await asyncio.sleep(0.01 * (3 - state["i"]))
        return {"log": [state["i"]]}

    def spread(state: Log) -> list[Any]:
        return [lib.Send("work", {"i": i}) for i in range(3)]

    graph = lib.StateGraph(Log)
    graph.add_node("work", work)
    graph.add_conditional_edges(lib.START, spread)
    return graph.compile()


def _chatting(lib: Lib) -> Any:
    """A node awaiting a chat model, and one streaming it (its tokens)."""
    model = GenericFakeChatModel(messages=iter([AIMessage("hello there"), AIMessage("bye")]))

    async def ask(state: Log, config: RunnableConfig) -> Log:
        return {"log": [(await model.ainvoke("hi", config)).content]}

    async def listen(state: Log) -> Log:
        return {"log": [len([chunk async for chunk in model.astream("hi")])]}

    graph = lib.StateGraph(Log)
    graph.add_node("ask", ask)
    graph.add_node("listen", listen)
    graph.add_edge(lib.START, "ask")
    graph.add_edge("ask", "listen")
    return graph.compile()


def _subgraphs(lib: Lib) -> Any:
    """A subgraph node, then a node awaiting another graph."""
    inner = lib.StateGraph(Log)
    inner.add_node("inner", lambda state: {"log": ["i"]})
    inner.add_edge(lib.START, "inner")
    compiled = inner.compile()

    async def call(state: Log) -> Log:
        return await compiled.ainvoke({"log": []})

    graph = lib.StateGraph(Log)
    graph.add_node("sub", compiled)
    graph.add_node("call", call)
    graph.add_edge(lib.START, "sub")
    graph.add_edge("sub", "call")
    return graph.compile()


WHERE = [
    pytest.param(build, kind, inline, method, id=f"{build.__name__[1:]}-{kind}-{inline}-{method}")
    for build, kind, inline, method in itertools.product(
        [_nodes, _fan_out, _chatting, _subgraphs],
        ["sync", "async"],
        [True, False],
        ["ainvoke", "astream", "astream_events"],
    )
]


@pytest.mark.parametrize(("build", "kind", "inline", "method"), WHERE)
def test_each_event_is_heard_where_langgraph_calls_it(build, kind, inline, method):
    heard = [_heard(load, build, kind, inline, method, {"log": []}) for load in LIBS]
    assert heard[1] == heard[0]


def test_a_fan_outs_starts_are_all_heard_before_any_of_its_nodes_runs(monkeypatch):
    """LangGraph starts a step's tasks together on its loop: each one's ``on_chain_start``
    is heard before any of the step's nodes runs, so before any ends. graphkit reports a
    task's start from the task's thread; the last Send's thread is made late here (as a
    loaded machine makes one, which once failed the fan-out case above: 1 run of 200
    under load, the rest agreeing), and the nodes that did not wait for its report
    ended first."""
    from graphkit.pregel.tracing import RunTrace

    start_task = RunTrace.start_task

    def late(self: Any, task: Any, *args: Any, **kwargs: Any) -> Any:
        if task.input == {"i": 2}:
            threading.Event().wait(0.1)  # (longer than the other Sends' nodes take)
        return start_task(self, task, *args, **kwargs)

    langgraph = _heard(load_langgraph, _fan_out, "sync", True, "ainvoke", {"log": []})
    monkeypatch.setattr(RunTrace, "start_task", late)
    graphkit = _heard(load_graphkit, _fan_out, "sync", True, "ainvoke", {"log": []})
    assert graphkit == langgraph


def _sync_nodes(lib: Lib) -> Any:
    """A router, a subgraph node and a node invoking another graph, all sync."""
    inner = lib.StateGraph(Log)
    inner.add_node("inner", lambda state: {"log": ["i"]})
    inner.add_edge(lib.START, "inner")
    compiled = inner.compile()

    def route(state: Log) -> str:  # (a lambda's run LangGraph names RunnableCallable)
        return "call"

    graph = lib.StateGraph(Log)
    graph.add_node("sub", compiled)
    graph.add_node("call", lambda state: compiled.invoke({"log": []}))
    graph.add_edge(lib.START, "sub")
    graph.add_conditional_edges("sub", route)
    return graph.compile()


@pytest.mark.parametrize(
    ("kind", "inline"), list(itertools.product(["sync", "async"], [True, False]))
)
def test_a_sync_run_calls_its_handlers_in_its_own_thread(kind, inline):
    heard = [_heard(load, _sync_nodes, kind, inline, "invoke", {"log": []}) for load in LIBS]
    assert heard[1] == heard[0]


# -- create_react_agent's steps ---------------------------------------------------------


@tool
def get_weather(city: str) -> str:
    """Use this to get weather information."""
    return "It's always sunny in sf"


def _agent(lib: Lib) -> Any:
    call = {"name": "get_weather", "args": {"city": "sf"}, "id": "call_1"}
    answers = [AIMessage("", tool_calls=[call]), AIMessage("sunny")]
    create = importlib.import_module(f"{lib.name}.prebuilt").create_react_agent
    return create(ScriptedChatModel(responses=answers), [get_weather])


@pytest.mark.parametrize(
    ("kind", "inline"), list(itertools.product(["sync", "async"], [True, False]))
)
def test_the_agents_steps_are_heard_where_langgraph_calls_them(kind, inline):
    inputs = {"messages": [("user", "what is the weather in sf")]}
    heard = [_heard(load, _agent, kind, inline, "ainvoke", inputs) for load in LIBS]
    # (LangGraph runs the agent's sync Prompt in a worker thread: not compared)
    heard = [[event for event in events if event[1] != "Prompt"] for events in heard]
    assert heard[1] == heard[0]


# -- what a node and a router are given as callbacks ------------------------------------


def _given(loader: Any, method: str) -> dict[str, str]:
    lib, given = loader(), {}

    def a(state: Count, config: RunnableConfig) -> Count:
        given["sync node"] = type(config["callbacks"]).__name__
        return {"n": 1}

    async def b(state: Count, config: RunnableConfig) -> Count:
        given["async node"] = type(config["callbacks"]).__name__
        return {"n": 1}

    def route(state: Count, config: RunnableConfig) -> str:
        given["router"] = type(config["callbacks"]).__name__
        return lib.END

    graph = lib.StateGraph(Count)
    graph.add_node("a", a)
    graph.add_node("b", b)
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route)
    graph.add_edge("a", "b")
    config = {"callbacks": [BaseCallbackHandler()]}
    if method == "invoke":
        graph.compile().invoke({"n": 0}, config)
    else:
        asyncio.run(graph.compile().ainvoke({"n": 0}, config))
    return given


@pytest.mark.parametrize("method", ["ainvoke"])
def test_nodes_and_routers_are_given_the_runs_kind_of_callback_manager(method):
    assert _given(load_graphkit, method) == _given(load_langgraph, method)


# -- many runs waiting for their handlers at once ----------------------------------------


def _fanned_subgraphs(lib: Lib) -> Any:
    """Twelve Sends to a node awaiting a graph: twelve async runs at once."""
    inner = lib.StateGraph(Log)
    inner.add_node("x", lambda state: {"log": [1]})
    inner.add_edge(lib.START, "x")
    compiled = inner.compile()

    async def work(state: Any) -> Log:
        return await compiled.ainvoke({"log": []})

    graph = lib.StateGraph(Log)
    graph.add_node("work", work)
    graph.add_conditional_edges(lib.START, lambda state: [lib.Send("work", {})] * 12)
    return graph.compile()


class _Counting(BaseCallbackHandler):
    """A sync handler LangGraph calls in the loop's executor (not ``run_inline``)."""

    def __init__(self) -> None:
        self.started = 0

    def on_chain_start(self, *args: Any, **kwargs: Any) -> None:
        self.started += 1


def test_a_sync_handler_hears_twelve_async_runs_at_once():
    """Each graphkit async run waits in its own thread for the handlers of its events,
    which a sync handler's job in the loop's executor must never have to wait behind.
    Run in a thread, so that a hang fails the test instead of the suite."""
    results: dict[str, Any] = {}

    def run(loader: Any) -> None:
        handler = _Counting()
        config = {"callbacks": [handler]}
        values = asyncio.run(_fanned_subgraphs(loader()).ainvoke({"log": []}, config))
        results[loader.__name__] = (len(values["log"]), handler.started)

    for loader in LIBS:
        worker = threading.Thread(target=run, args=(loader,), daemon=True)
        worker.start()
        worker.join(60)
        assert not worker.is_alive(), f"{loader.__name__}: the run hung"
    assert results["load_graphkit"] == results["load_langgraph"] == (12, 39)
