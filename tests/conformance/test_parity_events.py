"""LangChain callbacks and ``astream_events`` on both libraries: the graph's run, one
chain run per task (``graph:step:N``), one per router inside it (``seq:step:K``, its
place in LangGraph's node sequence), the calls a node makes inside its task, the task
outputs streamed in an async run, and what an interrupt, an error, a subgraph node and a
graph invoked in a node report. Events are compared with their run ids replaced by the
name of the run's parent, and ids inside values masked."""

import asyncio
import operator
import re
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import _interrupt, _memory_saver

LIBS = [load_langgraph, load_graphkit]
_HIDDEN_KEYS = ("langgraph_checkpoint_ns", "lc_versions")


class Log(TypedDict):
    n: Annotated[list, operator.add]


def _tidy(value: Any) -> str:
    """``value``'s repr without the ids that differ from run to run."""
    text = repr(value)
    text = re.sub(r"id='[^']*'", "id=?", text)
    return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "?", text)


def _normalised(events: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    names: dict[str, str] = {}
    seen = []
    for event in events:
        names.setdefault(event["run_id"], event["name"])
        parents = tuple(names.get(run, "?") for run in event["parent_ids"])
        metadata = {k: v for k, v in event["metadata"].items() if k not in _HIDDEN_KEYS}
        data = tuple((key, _tidy(value)) for key, value in sorted(event["data"].items()))
        tags = tuple(event["tags"])
        seen.append((event["event"], event["name"], tags, _tidy(metadata), data, parents))
    return seen


def _events(loader: Any, build: Any, input: Any, config: Any = None, **kwargs: Any) -> Any:
    lib = loader()
    app = build(lib)

    async def collect() -> list[Any]:
        events = []
        try:
            async for event in app.astream_events(input, config, version="v2", **kwargs):
                events.append(event)
        except Exception as error:  # what came before the error, then the error's class
            return [*_normalised(events), ("raised", type(error).__name__)]
        return _normalised(events)

    return asyncio.run(collect())


def _both(build: Any, input: Any, config: Any = None, **kwargs: Any) -> list[Any]:
    return [_events(loader, build, input, config, **kwargs) for loader in LIBS]


def _loop(lib: Lib) -> Any:
    def route(state: Log) -> str:
        return "b" if len(state["n"]) < 3 else lib.END

    graph = lib.StateGraph(Log)
    graph.add_node("a", lambda state: {"n": ["a"]})
    graph.add_node("b", lambda state: {"n": ["b"]})
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route)
    graph.add_edge("b", "a")
    return graph.compile()


def test_a_loop_with_a_router_reports_each_task_and_router_with_config_tags():
    langgraph, graphkit = _both(_loop, {"n": []}, {"tags": ["T"], "metadata": {"m": 1}})
    assert graphkit == langgraph
    names = [(event, name) for event, name, *_ in graphkit]
    assert ("on_chain_start", "route") in names and ("on_chain_stream", "b") in names
    assert graphkit[0][2] == ("T",) and graphkit[1][2] == ("graph:step:1", "T")


def _edges_and_routers(lib: Lib) -> Any:
    def first(state: Log) -> str:
        return lib.END

    def second(state: Log) -> str:
        return lib.END

    graph = lib.StateGraph(Log)
    for name in ("a", "b", "c", "d"):
        graph.add_node(name, lambda state, name=name: {"n": [name]})
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "b")
    graph.add_edge("a", "c")
    graph.add_conditional_edges("a", first)
    graph.add_conditional_edges("a", second)
    graph.add_edge(["b", "c"], "d")
    graph.add_conditional_edges("b", first)
    return graph.compile()


def test_a_routers_tag_counts_the_node_its_state_write_and_each_edge_before_it():
    langgraph, graphkit = _both(_edges_and_routers, {"n": []})
    assert sorted(graphkit) == sorted(langgraph)
    tags = {(name, tags) for event, name, tags, *_ in graphkit if event == "on_chain_start"}
    assert {("first", ("seq:step:5",)), ("second", ("seq:step:6",))} <= tags
    assert ("first", ("seq:step:4",)) in tags  # b's: b, its write, its join write


def _fan_out(lib: Lib) -> Any:
    def fan(state: Log) -> list[Any]:
        return [lib.Send("w", {"n": [index]}) for index in range(2)]

    graph = lib.StateGraph(Log)
    graph.add_node("w", lambda state: {"n": ["w"]})
    graph.add_conditional_edges(lib.START, fan)
    graph.add_edge("w", lib.END)
    return graph.compile()


def test_a_start_router_runs_in_a_hidden_start_task_and_sends_show_their_path():
    langgraph, graphkit = _both(_fan_out, {"n": []})
    assert sorted(graphkit) == sorted(langgraph)  # (the two Send tasks run side by side)
    assert [e for e in graphkit if e[1] == "LangGraph"] == [
        e for e in langgraph if e[1] == "LangGraph"
    ]
    start = next(e for e in graphkit if e[1] == "__start__")
    assert start[2] == ("graph:step:0", "langsmith:hidden")
    paths = {e[3].split("'langgraph_path': ")[1] for e in graphkit if e[1] == "w"}
    assert paths == {"('__pregel_push', 0, False)}", "('__pregel_push', 1, False)}"}


def _asking(lib: Lib) -> Any:
    def ask(state: Log) -> dict[str, Any]:
        return {"n": [_interrupt(lib.name)("q")]}

    graph = lib.StateGraph(Log)
    graph.add_node("ask", ask)
    graph.add_edge(lib.START, "ask")
    with _memory_saver(lib.name) as saver:
        return graph.compile(checkpointer=saver)


def test_an_interrupted_run_ends_with_its_values_and_a_resumed_one_runs_the_node_again():
    seen = []
    for loader in LIBS:
        lib = loader()
        app = _asking(lib)
        config = {"configurable": {"thread_id": "1"}}
        paused = _events(loader, lambda lib, app=app: app, {"n": []}, config)
        resume = lib.Command(resume="x")
        resumed = _events(loader, lambda lib, app=app: app, resume, config)
        seen.append((paused, resumed))
    assert seen[1] == seen[0]
    paused, resumed = seen[1]
    started, streamed, ended = "on_chain_start", "on_chain_stream", "on_chain_end"
    assert [e[0] for e in paused] == [started, started, streamed, ended]
    assert ("on_chain_end", "ask") in [(e[0], e[1]) for e in resumed]


def _paused_beside_a_finished_task(lib: Lib) -> Any:
    def ask(state: Log) -> dict[str, Any]:
        return {"n": [_interrupt(lib.name)("q")]}

    graph = lib.StateGraph(Log)
    graph.add_node("ask", ask).add_node("done", lambda state: {"n": ["done"]})
    graph.add_edge(lib.START, "ask").add_edge(lib.START, "done")
    with _memory_saver(lib.name) as saver:
        return graph.compile(checkpointer=saver)


def test_a_paused_runs_trace_ends_with_the_finished_tasks_writes():
    """A run paused beside a task that finished ends its chain run with what ``invoke``
    returns: the values with that task's writes (LangGraph's ``test_large_cases.py``
    ``test_partial_pending_checkpoint`` checks the same with its tracer)."""
    heard = []
    for loader in LIBS:
        recorder, config = _Recorder(), {"configurable": {"thread_id": "1"}}
        app = _paused_beside_a_finished_task(loader())
        result = app.invoke({"n": []}, {**config, "callbacks": [recorder]})
        other_thread = {"configurable": {"thread_id": "2"}}
        events = _events(loader, lambda lib, app=app: app, {"n": []}, other_thread)
        heard.append((recorder.seen[-1], events[-1], result["n"]))
    assert heard[1] == heard[0]
    assert heard[1][0] == ("end", "LangGraph", "{'n': ['done']}")


class _ErrorRecorder(BaseCallbackHandler):
    """The chain runs that failed: the error's class and whether it has a traceback (a
    tracer such as LangSmith shows it)."""

    def __init__(self) -> None:
        self.failed: list[tuple[str, bool]] = []

    def on_chain_error(self, error, *, run_id, **kwargs):
        self.failed.append((type(error).__name__, error.__traceback__ is not None))


def test_an_interrupted_tasks_run_fails_with_the_raised_interrupt_and_its_traceback():
    """The task's chain run (and a subgraph's, inside it) fails with the ``GraphInterrupt``
    the node raised, traceback and all, not with a new one."""
    heard = []
    for loader in LIBS:
        lib = loader()
        recorder, config = _ErrorRecorder(), {"configurable": {"thread_id": "1"}}
        outer = lib.StateGraph(Log)
        outer.add_node("sub", _asking(lib)).add_edge(lib.START, "sub")
        with _memory_saver(lib.name) as saver:
            app = outer.compile(checkpointer=saver)
        app.invoke({"n": []}, {**config, "callbacks": [recorder]})
        heard.append(recorder.failed)
    assert heard[1] == heard[0]
    assert heard[1] == [("GraphInterrupt", True)] * 3  # ask's task, its graph, sub's task


def _failing(lib: Lib) -> Any:
    def boom(state: Log) -> dict[str, Any]:
        raise ValueError("bad")

    graph = lib.StateGraph(Log)
    graph.add_node("boom", boom)
    graph.add_edge(lib.START, "boom")
    return graph.compile()


def test_a_failing_node_reports_its_start_and_the_run_raises():
    langgraph, graphkit = _both(_failing, {"n": []})
    assert graphkit == langgraph
    assert graphkit[-1] == ("raised", "ValueError")


def _inner(lib: Lib) -> Any:
    inner = lib.StateGraph(Log)
    inner.add_node("inner", lambda state: {"n": ["i"]})
    inner.add_edge(lib.START, "inner")
    return inner.compile()


def _subgraph_node(lib: Lib) -> Any:
    graph = lib.StateGraph(Log)
    graph.add_node("sub", _inner(lib))
    graph.add_edge(lib.START, "sub")
    return graph.compile()


def _subgraph_called(lib: Lib) -> Any:
    sub = _inner(lib)

    def caller(state: Log) -> dict[str, Any]:
        return {"n": sub.invoke(state)["n"]}

    graph = lib.StateGraph(Log)
    graph.add_node("caller", caller)
    graph.add_edge(lib.START, "caller")
    return graph.compile()


@pytest.mark.parametrize("build", [_subgraph_node, _subgraph_called])
def test_a_subgraph_reports_its_run_inside_the_task_that_runs_it(build):
    langgraph, graphkit = _both(build, {"n": []})
    assert graphkit == langgraph
    inner = next(e for e in graphkit if e[0] == "on_chain_start" and e[1] == "inner")
    assert inner[5][:2] == ("LangGraph", "sub" if build is _subgraph_node else "caller")
    streamed = ("on_chain_stream", "inner") in [(e[0], e[1]) for e in graphkit]
    assert streamed is (build is _subgraph_node)  # (a graph invoked in a node: not streamed)


def _named(lib: Lib) -> Any:
    graph = lib.StateGraph(Log)
    graph.add_node("a", lambda state: {"n": [1]})
    graph.add_edge(lib.START, "a")
    return graph.compile(name="Mine")


def test_the_run_is_named_by_run_name_or_the_graph_and_streams_the_mode_asked():
    assert _both(_named, {"n": []}, stream_mode="values")[1][0][1] == "Mine"
    langgraph, graphkit = _both(_named, {"n": []}, {"run_name": "RN"}, stream_mode="values")
    assert graphkit == langgraph
    assert [e[4] for e in graphkit if e[:2] == ("on_chain_stream", "RN")] == [
        (("chunk", "{'n': []}"),),
        (("chunk", "{'n': [1]}"),),
    ]


def _chatting(lib: Lib) -> Any:
    model = GenericFakeChatModel(messages=iter([AIMessage("hi there")]))

    async def chat(state: Log) -> dict[str, Any]:
        return {"n": [(await model.ainvoke("q")).content]}

    def command(state: Log) -> Any:
        return lib.Command(update={"n": [2]}, goto="none")

    graph = lib.StateGraph(Log)
    graph.add_node("chat", chat)
    graph.add_node("command", command, destinations=("none",))
    graph.add_node("none", lambda state: None)
    graph.add_edge(lib.START, "chat")
    graph.add_edge("chat", "command")
    return graph.compile()


def test_a_chat_model_reports_inside_its_node_and_commands_and_none_are_outputs():
    langgraph, graphkit = _both(_chatting, {"n": []})
    assert graphkit == langgraph
    tokens = [e for e in graphkit if e[0] == "on_chat_model_stream"]
    assert len(tokens) == 3 and tokens[0][2] == ("seq:step:1",)
    assert tokens[0][5] == ("LangGraph", "chat")
    assert '"langgraph_node": "chat"' in tokens[0][3].replace("'", '"')


def test_event_filters_apply_as_in_langchain():
    langgraph, graphkit = _both(_loop, {"n": []}, include_names=["b"])
    assert graphkit == langgraph
    assert {name for _, name, *_ in graphkit} == {"b"}


class _Recorder(BaseCallbackHandler):
    """What a tracer hears: chain runs started, ended and failed, by name and parent."""

    def __init__(self) -> None:
        self.names: dict[Any, str] = {}
        self.seen: list[tuple[Any, ...]] = []

    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kwargs):
        self.names[run_id] = kwargs.get("name")
        parent = self.names.get(parent_run_id)
        self.seen.append(("start", kwargs.get("name"), parent, tuple(kwargs.get("tags") or ())))

    def on_chain_end(self, outputs, *, run_id, **kwargs):
        self.seen.append(("end", self.names[run_id], _tidy(outputs)))

    def on_chain_error(self, error, *, run_id, **kwargs):
        self.seen.append(("error", self.names[run_id], type(error).__name__))


def _tracing(lib: Lib) -> Any:
    def route(state: Log) -> str:
        return "fails" if len(state["n"]) > 1 else "a"

    def fails(state: Log) -> dict[str, Any]:
        raise KeyError("no")

    graph = lib.StateGraph(Log)
    graph.add_node("a", lambda state: {"n": ["a"]})
    graph.add_node("fails", fails)
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route)
    return graph.compile()


def test_a_tracer_given_as_callbacks_hears_the_same_runs_in_a_sync_run():
    heard = []
    for loader in LIBS:
        recorder = _Recorder()
        with pytest.raises(KeyError):
            _tracing(loader()).invoke({"n": []}, {"callbacks": [recorder]})
        heard.append(recorder.seen)
    assert heard[1] == heard[0]
    assert ("error", "fails", "KeyError") in heard[1]
    assert heard[1][-1] == ("error", "LangGraph", "KeyError")
    assert ("start", "route", "a", ("seq:step:3",)) in heard[1]


def test_version_v1_and_astream_log_come_from_the_same_runs():
    seen = []
    for loader in LIBS:
        app = _loop(loader())

        async def collect(app: Any = app) -> Any:
            with pytest.warns(DeprecationWarning):  # (LangChain deprecates both)
                v1 = [
                    (e["event"], e["name"])
                    async for e in app.astream_events({"n": []}, version="v1")
                ]
            with pytest.warns(DeprecationWarning):
                log = [patch async for patch in app.astream_log({"n": []})]
            final = log[0]
            for patch in log[1:]:
                final = final + patch
            return v1, final.state["final_output"], sorted(final.state["logs"])

        seen.append(asyncio.run(collect()))
    assert seen[1] == seen[0]
    assert seen[1][1] == {"a": {"n": ["a"]}} and "route" in seen[1][2]  # (the last chunk)


def _entrypoint(lib: Lib) -> Any:
    if lib.name == "langgraph":
        from langgraph.func import entrypoint, task
    else:
        from graphkit.func import entrypoint, task

    @task
    def double(x: int) -> int:
        return x * 2

    @entrypoint()
    def main(x: int) -> int:
        return double(x).result() + 1

    return main


def _routing_up(lib: Lib) -> Any:
    def up(state: Log) -> Any:
        return lib.Command(graph=lib.Command.PARENT, goto="z", update={"n": ["up"]})

    inner = lib.StateGraph(Log).add_node("up", up).add_edge(lib.START, "up").compile()
    graph = lib.StateGraph(Log).add_node("sub", inner, destinations=("z",))
    graph.add_node("z", lambda state: {"n": ["z"]})
    return graph.add_edge(lib.START, "sub").compile()


@pytest.mark.parametrize("build, given", [(_entrypoint, 3), (_routing_up, {"n": []})])
def test_a_tracer_hears_called_tasks_inside_their_caller_and_a_parent_command_as_an_error(
    build, given
):
    heard = []
    for loader in LIBS:
        recorder = _Recorder()
        build(loader()).invoke(given, {"callbacks": [recorder]})
        heard.append(recorder.seen)
    assert heard[1] == heard[0]
    if build is _entrypoint:
        assert ("start", "double", "main", ("seq:step:1",)) in heard[1]
        assert heard[1][-1] == ("end", "LangGraph", "7")
    else:
        assert ("error", "sub", "ParentCommand") in heard[1]


def _threaded_subgraph(lib: Lib) -> Any:
    inner = lib.StateGraph(Log)
    inner.add_node("inner", lambda state: {"n": ["inner"]})
    inner.add_edge(lib.START, "inner")
    graph = lib.StateGraph(Log)
    graph.add_node("sub", inner.compile())
    graph.add_edge(lib.START, "sub")
    with _memory_saver(lib.name) as saver:
        return graph.compile(checkpointer=saver)


def test_each_graphs_run_names_its_thread_in_its_metadata():
    config = {"configurable": {"thread_id": "t", "user": "ada"}}
    langgraph, graphkit = _both(_threaded_subgraph, {"n": []}, config)
    assert graphkit == langgraph
    runs = [e[3] for e in graphkit if e[:2] == ("on_chain_start", "LangGraph")]
    assert "'thread_id': 't'" in runs[0] and "checkpoint_ns" not in runs[0]
    assert "'checkpoint_ns': 'sub:?'" in runs[1]  # (the subgraph's run)


class _Router:
    def __call__(self, state: Log) -> str:
        return "b"


def _routed_by(router: Any) -> Any:
    def build(lib: Lib) -> Any:
        def route(state: Log) -> str:
            return "b"

        graph = lib.StateGraph(Log)
        graph.add_node("a", lambda state: {"n": ["a"]})
        graph.add_node("b", lambda state: {"n": ["b"]})
        graph.add_edge(lib.START, "a")
        graph.add_conditional_edges("a", route if router is None else router)
        return graph.compile()

    return build


def _runnable_router() -> Any:
    from langchain_core.runnables import RunnableLambda

    def triage(state: Log) -> str:
        return "b"

    return RunnableLambda(triage)


@pytest.mark.parametrize(
    ("router", "name"),
    [(None, "route"), (lambda state: "b", "Unnamed"), (_Router(), "Unnamed"),
     (_runnable_router(), "triage")],
    ids=["function", "lambda", "callable object", "runnable"],
)  # fmt: skip
def test_a_routers_run_is_named_by_its_function_or_left_unnamed(router, name):
    """A Runnable router's own run is the router's: no run named after its ``invoke``."""
    langgraph, graphkit = _both(_routed_by(router), {"n": []})
    assert graphkit == langgraph
    assert ("on_chain_start", name, ("seq:step:3",)) in [e[:3] for e in graphkit]
