"""``Send(node, arg, timeout=...)`` (LangGraph 1.2): a timeout for one pushed task, in
place of its node's. What a program sees: the Send itself (repr, equality, what it
refuses), which tasks time out and which finish, in async and sync runs, for async and
sync nodes, and a Send with a timeout saved across an interrupt on both savers."""

import asyncio
import operator
import time
from datetime import timedelta
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, Raised, canonical, load_graphkit, load_langgraph
from .scenarios import SAVERS


def _types(lib: Lib) -> Any:
    if lib.name == "langgraph":
        import langgraph.types as types
    else:
        import graphkit.types as types
    return types


def _made(lib: Lib) -> list[str]:
    Send, TimeoutPolicy = lib.Send, _types(lib).TimeoutPolicy
    seen = [
        repr(Send("n", 1)),
        repr(Send("n", 1, timeout=2)),
        repr(Send("n", 1, timeout=timedelta(seconds=3))),
        repr(Send("n", 1, timeout=TimeoutPolicy(idle_timeout=1))),
        canonical(
            [
                Send("n", 1) == Send("n", 1, timeout=2),
                Send("n", 1, timeout=2) == Send("n", 1, timeout=2.0),
            ]
        ),
        canonical(len({Send("n", 1, timeout=2), Send("n", 1, timeout=2.0), Send("n", 1)})),
    ]
    for timeout in (-1, 0, "x"):
        try:
            Send("n", 1, timeout=timeout)
            seen.append("made")
        except Exception as error:
            seen.append(canonical(Raised(type(error).__name__)))
    return seen


def test_a_send_with_a_timeout_is_made_as_in_langgraph():
    assert _made(load_graphkit()) == _made(load_langgraph())


class State(TypedDict):
    items: Annotated[list, operator.add]


async def _slow(state: dict) -> dict:
    await asyncio.sleep(state["d"])
    return {"items": [state["d"]]}


def _sync_slow(state: dict) -> dict:
    time.sleep(state["d"])
    return {"items": [state["d"]]}


def _sends(lib: Lib, case: str) -> tuple[Any, list, Any]:
    """(the node, the Sends from START, the node's own timeout) of one case."""
    Send = lib.Send
    return {
        "send-times-out": (_slow, [Send("n", {"d": 0.5}, timeout=0.05)], None),
        "send-in-time": (_slow, [Send("n", {"d": 0.01}, timeout=5)], None),
        "send-overrides-node": (_slow, [Send("n", {"d": 0.15}, timeout=5)], 0.03),
        "node-still-applies": (
            _slow,
            [Send("n", {"d": 0.15}, timeout=5), Send("n", {"d": 0.15})],
            0.03,
        ),
        "idle-policy": (
            _slow,
            [Send("n", {"d": 0.5}, timeout=_types(lib).TimeoutPolicy(idle_timeout=0.05))],
            None,
        ),
        "sync-node": (_sync_slow, [Send("n", {"d": 0.3}, timeout=0.03)], None),
        "sync-node-in-time": (_sync_slow, [Send("n", {"d": 0.01}, timeout=5)], None),
    }[case]


def _outcome(lib: Lib, case: str, run_async: bool) -> str:
    node, sends, node_timeout = _sends(lib, case)
    graph = lib.StateGraph(State)
    graph.add_node("n", node, **({"timeout": node_timeout} if node_timeout else {}))
    graph.add_conditional_edges(lib.START, lambda state: sends)
    app = graph.compile()
    try:
        result = asyncio.run(app.ainvoke({"items": []})) if run_async else app.invoke({"items": []})
        return canonical(result)
    except Exception as error:
        return canonical(Raised(type(error).__name__))


CASES = [
    "send-times-out",
    "send-in-time",
    "send-overrides-node",
    "node-still-applies",
    "idle-policy",
    "sync-node",
    "sync-node-in-time",
]


@pytest.mark.parametrize("run_async", [True, False], ids=["async", "sync"])
@pytest.mark.parametrize("case", CASES)
def test_a_send_s_timeout_applies_to_its_task_as_in_langgraph(case, run_async):
    expected = _outcome(load_langgraph(), case, run_async)
    assert _outcome(load_graphkit(), case, run_async) == expected


def test_the_oracle_times_out_a_send_and_lets_its_own_timeout_win():
    """What the cases above pin down, stated once against LangGraph."""
    lib = load_langgraph()
    assert _outcome(lib, "send-times-out", True) == canonical(Raised("NodeTimeoutError"))
    assert _outcome(lib, "send-overrides-node", True) == canonical({"items": [0.15]})
    assert _outcome(lib, "sync-node", True) == canonical(Raised("NodeTimeoutError"))
    assert _outcome(lib, "send-in-time", False) == canonical(Raised("ValueError"))


def _saved(lib: Lib, saver: Any) -> list[str]:
    """A Send with a timeout, pending while a breakpoint holds the run, then resumed."""
    Send = lib.Send
    graph = lib.StateGraph(State)
    graph.add_node("n", _slow)
    graph.add_conditional_edges(
        lib.START,
        lambda state: [Send("n", {"d": 0.01}, timeout=5), Send("n", {"d": 0.5}, timeout=0.05)],
    )
    app = graph.compile(checkpointer=saver, interrupt_before=["n"])
    config = {"configurable": {"thread_id": "t"}}

    async def go() -> list[str]:
        seen = [canonical(await app.ainvoke({"items": []}, config))]
        state = await app.aget_state(config) if hasattr(app, "aget_state") else None
        seen.append(canonical([task.name for task in state.tasks]))
        try:
            seen.append(canonical(await app.ainvoke(None, config)))
        except Exception as error:
            seen.append(canonical(Raised(type(error).__name__)))
        return seen

    return asyncio.run(go())


@pytest.mark.parametrize("saver", ["memory"])
def test_a_saved_send_keeps_its_timeout_as_in_langgraph(saver):
    with SAVERS[saver]("langgraph") as theirs, SAVERS[saver]("graphkit") as ours:
        assert _saved(load_graphkit(), ours) == _saved(load_langgraph(), theirs)


def test_a_send_s_timeout_survives_the_sqlite_saver():
    """LangGraph's SqliteSaver has no async methods, so this one is graphkit's alone: the
    pending Send comes back from the file with its timeout."""
    lib = load_graphkit()
    with SAVERS["sqlite"](lib.name) as saver:
        graph = lib.StateGraph(State)
        graph.add_node("n", _slow)
        graph.add_conditional_edges(
            lib.START, lambda state: [lib.Send("n", {"d": 0.5}, timeout=0.05)]
        )
        app = graph.compile(checkpointer=saver, interrupt_before=["n"])
        config = {"configurable": {"thread_id": "t"}}
        app.invoke({"items": []}, config)
        [packet] = saver.get_tuple(config).checkpoint["channel_values"]["__pregel_tasks"]
        assert packet == lib.Send("n", {"d": 0.5}, timeout=0.05)
        with pytest.raises(lib.errors.NodeTimeoutError):
            asyncio.run(app.ainvoke(None, config))


def test_a_sync_run_s_error_names_the_send_s_timeout_not_the_node_s():
    lib = load_graphkit()
    node, sends, _ = _sends(lib, "sync-node-in-time")
    graph = lib.StateGraph(State)
    graph.add_node("n", node)
    graph.add_conditional_edges(lib.START, lambda state: sends)
    with pytest.raises(ValueError, match=r"a Send to it carries.*drop the Send's `timeout=`"):
        graph.compile().invoke({"items": []})


def _chunks_refresh_a_sends_idle_timeout(lib: Lib) -> Any:
    """A node without a timeout of its own, sent with an idle timeout of 0.3 s, streams
    six chunks through its ``writer`` parameter, 0.1 s apart (0.6 s in all)."""
    types = _types(lib)

    async def ticking(state: dict, writer: types.StreamWriter) -> dict:
        for tick in range(6):
            await asyncio.sleep(0.1)
            writer(tick)
        return {"items": ["done"]}

    timeout = types.TimeoutPolicy(idle_timeout=0.3)
    builder = lib.StateGraph(State).add_node("ticking", ticking)
    sent = [lib.Send("ticking", {}, timeout=timeout)]
    builder.add_conditional_edges(lib.START, lambda state: sent)
    app = builder.compile()

    async def stream() -> Any:
        try:
            return [chunk async for chunk in app.astream({"items": []}, stream_mode="custom")]
        except Exception as error:
            return type(error).__name__

    return asyncio.run(stream())


def test_a_sent_nodes_writer_chunks_refresh_the_sends_idle_timeout():
    langgraph = _chunks_refresh_a_sends_idle_timeout(load_langgraph())
    assert _chunks_refresh_a_sends_idle_timeout(load_graphkit()) == langgraph == [0, 1, 2, 3, 4, 5]
