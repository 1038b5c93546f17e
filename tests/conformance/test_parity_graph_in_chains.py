"""A compiled graph inside LangChain's compositions, on both libraries: LangChain counts
it as a ``Runnable``, so it takes it wherever it takes a step (after another step, in a
``RunnableParallel`` or ``RunnableBranch``, under ``RunnablePassthrough.assign`` or
``RunnableWithMessageHistory``), also when langchain-core is imported after the graph
is compiled; the chain's runs and events; and what LangChain reads of the graph (its
drawable graph, joined with the other steps' when the chain is drawn)."""

from __future__ import annotations

import asyncio
import operator
import pprint
import re
import textwrap
import warnings
import zipfile
from pathlib import Path
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from .harness import Lib, load_graphkit, load_langgraph, run_fresh

pytest.importorskip("langchain_core")

from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import (
    RunnableBranch,
    RunnableLambda,
    RunnableParallel,
    RunnablePassthrough,
)


class State(TypedDict):
    value: int
    log: Annotated[list, operator.add]


def _graph(lib: Lib) -> Any:
    def route(state: State) -> str:
        return "check" if state["value"] else lib.END

    graph = lib.StateGraph(State)
    graph.add_node("step", lambda state: {"log": ["step"]}, metadata={"kind": "first"})
    graph.add_node("check", lambda state: {"log": ["check"]})
    graph.add_node("join", lambda state: {"log": ["join"]})
    graph.add_edge(lib.START, "step")
    graph.add_conditional_edges("step", route, {"check": "check", lib.END: lib.END})
    graph.add_edge(["step", "check"], "join")
    graph.add_edge("join", lib.END)
    return graph.compile()


def _drawn_chain(lib: Lib) -> tuple[Any, ...]:
    """The chain ``graph | lambda`` as LangChain draws it; the lambda's nodes are named
    by random ids, replaced here."""
    drawn = (_graph(lib) | RunnableLambda(lambda output: output["log"])).get_graph()
    ids = {node.id: node.name for node in drawn.nodes.values()}
    edges = sorted((ids[e.source], ids[e.target], e.data, e.conditional) for e in drawn.edges)
    mermaid = re.sub(r"[0-9a-f]{32}", "?", drawn.draw_mermaid())
    return sorted(ids.values()), edges, mermaid


def test_a_chain_a_graph_starts_draws_the_graphs_nodes_and_edges():
    expected = _drawn_chain(load_langgraph())
    assert ("join", "__end__", None, False) in expected[1]
    assert _drawn_chain(load_graphkit()) == expected


class Count(TypedDict):
    value: int


def _adder(lib: Lib, amount: int = 1) -> Any:
    return (
        lib.StateGraph(Count)
        .add_node("add", lambda state: {"value": state["value"] + amount})
        .add_edge(lib.START, "add")
        .compile()
    )


def _chains(lib: Lib) -> dict[str, Any]:
    """Chains that take a graph as a step of their own."""
    prepare = RunnableLambda(lambda number: {"value": number}, name="prepare")
    return {
        "runnable | graph": prepare | _adder(lib),
        "dict | graph": {"value": RunnableLambda(lambda number: number)} | _adder(lib),
        "function | graph": (lambda number: {"value": number}) | _adder(lib),
        "parallel": prepare | RunnableParallel(one=_adder(lib), ten=_adder(lib, 10)),
        "branch": prepare
        | RunnableBranch((lambda state: state["value"] > 0, _adder(lib)), _adder(lib, -1)),
        "assign": prepare | RunnablePassthrough.assign(added=_adder(lib)),
    }


def _chain_outputs(lib: Lib) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for name, chain in _chains(lib).items():
        streamed = sorted(map(repr, chain.stream(4)))  # (a parallel's graphs race)
        seen[name] = (chain.invoke(1), chain.batch([2, -3]), streamed)
        seen[name] += (asyncio.run(chain.ainvoke(5)),)
    return seen


def test_a_graph_is_a_step_of_langchains_chains():
    expected = _chain_outputs(load_langgraph())
    assert expected["parallel"][0] == {"one": {"value": 2}, "ten": {"value": 11}}
    assert _chain_outputs(load_graphkit()) == expected


def _chain_events(lib: Lib) -> list[tuple[Any, ...]]:
    """The v2 events of a chain holding two graphs side by side, with each event's
    parents named, in an order (and with the parallel's output keys in an order) that
    does not depend on which graph ran first."""
    chain = _chains(lib)["parallel"]

    async def collect() -> list[dict[str, Any]]:
        return [event async for event in chain.astream_events(1, version="v2")]

    events = asyncio.run(collect())
    names = {event["run_id"]: event["name"] for event in events}
    hidden = ("langgraph_checkpoint_ns", "checkpoint_ns")
    return sorted(
        (
            event["event"],
            event["name"],
            tuple(event["tags"]),
            repr(sorted((k, v) for k, v in event["metadata"].items() if k not in hidden)),
            tuple(names[parent] for parent in event["parent_ids"]),
            pprint.pformat(event["data"], width=1000),  # (keys sorted: the graphs race)
        )
        for event in events
    )


def test_a_chain_holding_graphs_streams_their_events_inside_its_own():
    expected = _chain_events(load_langgraph())
    assert ("on_chain_start", "add", ("graph:step:1",)) in [e[:3] for e in expected]
    assert _chain_events(load_graphkit()) == expected


def _remembered(lib: Lib) -> tuple[list[str], list[str]]:
    """A chat graph wrapped in ``RunnableWithMessageHistory`` (deprecated by LangChain,
    still used): what the second call answers, and the history it keeps."""
    from langchain_core.chat_history import InMemoryChatMessageHistory
    from langchain_core.runnables.history import RunnableWithMessageHistory

    message = __import__(f"{lib.name}.graph.message", fromlist=["add_messages"])
    # (the functional form: a class body's annotations would name a local, unresolvable
    # under ``from __future__ import annotations``)
    Chat = TypedDict("Chat", {"messages": Annotated[list, message.add_messages]})  # noqa: UP013

    def reply(state: Any) -> dict[str, Any]:
        count = len(state["messages"])
        return {"messages": [AIMessage(f"heard {count}", id=f"reply-{count}")]}

    graph = lib.StateGraph(Chat).add_node("reply", reply).add_edge(lib.START, "reply").compile()
    histories: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        chat = RunnableWithMessageHistory(
            graph,
            lambda session: histories.setdefault(session, InMemoryChatMessageHistory()),
            input_messages_key="messages",
            output_messages_key="messages",
        )
        config = {"configurable": {"session_id": "one"}}
        chat.invoke({"messages": [HumanMessage("hi", id="first")]}, config)
        answer = chat.invoke({"messages": [HumanMessage("again", id="second")]}, config)
    return [m.content for m in answer["messages"]], [m.content for m in histories["one"].messages]


def test_runnable_with_message_history_wraps_a_graph():
    expected = _remembered(load_langgraph())
    assert expected[0] == ["hi", "heard 1", "again", "heard 3"]
    assert _remembered(load_graphkit()) == expected


_COMPILED_FIRST = textwrap.dedent(
    """
    import json, sys
    from typing_extensions import TypedDict
    graph = __import__(sys.argv[1] + ".graph", fromlist=["StateGraph"])

    class Count(TypedDict):
        value: int

    app = (
        graph.StateGraph(Count)
        .add_node("add", lambda state: {"value": state["value"] + 1})
        .add_edge(graph.START, "add")
        .compile()
    )
    loaded = "langchain_core.runnables.base" in sys.modules
    from langchain_core.runnables import RunnableParallel
    from langchain_core.prompts import ChatPromptTemplate  # (imported after registering)
    print(json.dumps([loaded, RunnableParallel(a=app).invoke({"value": 1})]))
    """
)


def test_a_graph_compiled_before_langchain_is_imported_is_a_step_too():
    expected = run_fresh(["-c", _COMPILED_FIRST, "langgraph"])
    assert expected[1] == {"a": {"value": 2}}
    assert run_fresh(["-c", _COMPILED_FIRST, "graphkit"]) == [False, expected[1]]


def test_a_graph_compiled_before_langchain_is_imported_from_a_zip_is_a_step_too(tmp_path):
    """langchain-core imported from a zip (as in a zipapp or a frozen app, whose one
    loader loads every module of the archive): graphkit's hook wrapped that shared
    loader, so every module imported after the runnables ran the registration, and
    importing langchain-core failed."""
    import langchain_core

    package = Path(langchain_core.__file__).parent
    archive = tmp_path / "langchain_core.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        for path in package.rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                zipped.write(path, path.relative_to(package.parent))
    program = _COMPILED_FIRST + "print(json.dumps(ChatPromptTemplate.__module__ + ' ' + "
    program += "sys.modules['langchain_core'].__file__))\n"
    expected = run_fresh(["-c", program, "langgraph"], first=(str(archive),))
    assert expected.endswith(f"{archive}/langchain_core/__init__.py")
    assert run_fresh(["-c", program, "graphkit"], first=(str(archive),)) == expected
