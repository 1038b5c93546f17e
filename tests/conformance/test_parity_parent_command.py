"""``Command(graph=Command.PARENT, ...)`` on both libraries, as the thread and the stream
show it: the task that sends it up saved with no error (in a graph with no parent, where
the run raises ``ParentCommand``, and in a ``checkpointer=True`` subgraph's own thread;
so is any ``GraphBubbleUp`` a node raises),
and its siblings in the same step run to their end and stream their chunks, as a task
that pauses leaves them."""

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph, normalise_stream, tidy
from .scenarios import _memory_saver

LIBS = [load_langgraph, load_graphkit]
MODES = ["updates", "values", "tasks"]


class Log(TypedDict):
    x: Annotated[list, operator.add]


def _config(namespace: str | None = None) -> dict[str, Any]:
    configurable = {"thread_id": "t"}
    if namespace is not None:
        configurable["checkpoint_ns"] = namespace
    return {"configurable": configurable}


def _tasks(snapshots: Any) -> list[Any]:
    """Each snapshot's tasks by name, result and error (ids aside)."""
    return [[(t.name, t.result, t.error) for t in snapshot.tasks] for snapshot in snapshots]


def _root_sends_up(lib: Lib, use_async: bool) -> Any:
    async def hop_async(state: Log) -> Any:
        return lib.Command(graph=lib.Command.PARENT, goto="elsewhere")

    def hop(state: Log) -> Any:
        return lib.Command(graph=lib.Command.PARENT, goto="elsewhere")

    graph = lib.StateGraph(Log)
    graph.add_node("a", lambda state: {"x": ["a"]})
    graph.add_node("hop", hop_async if use_async else hop)
    graph.add_edge(lib.START, "a").add_edge(lib.START, "hop")
    with _memory_saver(lib.name) as saver:
        return graph.compile(checkpointer=saver)


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_a_parent_command_without_a_parent_is_not_saved_as_the_tasks_error(use_async):
    seen = []
    for loader in LIBS:
        lib = loader()
        app = _root_sends_up(lib, use_async)
        run = app.ainvoke if use_async else app.invoke
        for given in ({"x": []}, None):  # (run again: it raises again)
            with pytest.raises(lib.errors.ParentCommand):
                result = run(given, _config())
                if use_async:
                    asyncio.run(result)
        seen.append(_tasks(app.get_state_history(_config())))
    assert seen[1] == seen[0]
    assert ("hop", None, None) in seen[1][0]


def _bubbles_up(lib: Lib) -> Any:
    def up(state: Log) -> Any:
        raise lib.errors.GraphBubbleUp("up")

    graph = lib.StateGraph(Log)
    graph.add_node("a", lambda state: {"x": ["a"]})
    graph.add_node("up", up)
    graph.add_edge(lib.START, "a").add_edge(lib.START, "up")
    with _memory_saver(lib.name) as saver:
        return graph.compile(checkpointer=saver)


def test_a_graph_bubble_up_a_node_raises_is_not_saved_as_its_error_either():
    seen = []
    for loader in LIBS:
        lib = loader()
        app = _bubbles_up(lib)
        with pytest.raises(lib.errors.GraphBubbleUp):
            app.invoke({"x": []}, _config())
        seen.append(_tasks([app.get_state(_config())]))
    assert seen[1] == seen[0] == [[("a", {"x": ["a"]}, None), ("up", None, None)]]


def _child_sends_up(lib: Lib, own_thread: bool) -> Any:
    child = lib.StateGraph(Log)
    child.add_node("w", lambda state: {"x": ["w"]})
    child.add_node(
        "hop",
        lambda state: lib.Command(graph=lib.Command.PARENT, goto="after", update={"x": ["hop"]}),
    )
    child.add_node("sibling", lambda state: {"x": ["sibling"]})
    child.add_edge(lib.START, "w").add_edge("w", "hop").add_edge("w", "sibling")
    graph = lib.StateGraph(Log)
    own = child.compile(checkpointer=True if own_thread else None)
    graph.add_node("sub", own, destinations=("after",))
    graph.add_node("after", lambda state: {"x": ["after"]})
    graph.add_edge(lib.START, "sub")
    with _memory_saver(lib.name) as saver:
        return graph.compile(checkpointer=saver)


def _streamed(app: Any, use_async: bool) -> list[Any]:
    kwargs = {"stream_mode": MODES, "subgraphs": True}
    if not use_async:
        return list(app.stream({"x": []}, _config(), **kwargs))

    async def collect() -> list[Any]:
        return [chunk async for chunk in app.astream({"x": []}, _config(), **kwargs)]

    return asyncio.run(collect())


@pytest.mark.parametrize("own_thread", [False, True], ids=["default", "checkpointer=True"])
@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_the_siblings_of_a_task_sending_a_command_up_finish_and_stream(use_async, own_thread):
    seen = []
    for loader in LIBS:
        app = _child_sends_up(loader(), own_thread)
        chunks = _streamed(app, use_async)
        saved = _tasks(app.get_state_history(_config("sub"))) if own_thread else []
        seen.append((normalise_stream(tidy(chunks)), saved))
    assert seen[1] == seen[0]
    assert any("{'sibling': {'x': ['sibling']}}" in line for line in seen[1][0])


def _parent_command_caught(lib: Lib) -> tuple[Any, ...]:
    def hop(state: Log) -> Any:
        return lib.Command(graph=lib.Command.PARENT, goto="elsewhere", update={"x": ["hop"]})

    app = lib.StateGraph(Log).add_node("hop", hop).add_edge(lib.START, "hop").compile()
    with pytest.raises(lib.errors.ParentCommand) as caught:
        app.invoke({"x": []})
    command = caught.value.args[0]
    return len(caught.value.args), command.goto, command.update, command.graph


def test_a_parent_commands_argument_is_the_command():
    """``ParentCommand.args[0]`` is the ``Command`` (code catching it at the root reads
    ``error.args[0].goto``), its ``graph`` the parent's namespace, ``""``."""
    langgraph, graphkit = (_parent_command_caught(loader()) for loader in LIBS)
    assert graphkit == langgraph == (1, "elsewhere", {"x": ["hop"]}, "")


def _raised_by_the_node(lib: Lib) -> Any:
    def raiser(state: Log) -> Any:
        command = lib.Command(graph=lib.Command.PARENT, goto="after", update={"x": ["raised"]})
        raise lib.errors.ParentCommand(command)

    inner = lib.StateGraph(Log).add_node("raiser", raiser).add_edge(lib.START, "raiser")
    builder = lib.StateGraph(Log).add_node("inner", inner.compile(), destinations=("after",))
    builder.add_node("after", lambda state: {"x": ["after"]}).add_edge(lib.START, "inner")
    return builder.compile().invoke({"x": []})


def test_a_parent_command_a_node_raises_itself_routes_its_graphs_parent():
    """``raise ParentCommand(Command(graph=Command.PARENT, goto=...))`` in a subgraph's
    node routes the parent graph, as the returned ``Command`` does."""
    langgraph, graphkit = (_raised_by_the_node(loader()) for loader in LIBS)
    assert graphkit == langgraph == {"x": ["raised", "after"]}
