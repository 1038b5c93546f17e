"""A subgraph's persistence mode, as LangGraph 1.2 has it (issue 14, item 9):
``compile(checkpointer=True)`` keeps the subgraph's own state across calls within the
parent's thread, ``False`` saves nothing, and ``None`` (the default) saves each call
under its task's namespace, so every call starts afresh. A nested graph always uses
the saver its parent lends it (or none), never its own; two calls of one subgraph from
the same task get their own namespaces (``node``, ``node|1``)."""

from __future__ import annotations

import asyncio
import importlib
import operator
import re
import warnings
from collections import Counter
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS, _interrupt

LIBS = {"langgraph": load_langgraph, "graphkit": load_graphkit}
MODES = {"true": True, "false": False, "none": None, "default": "leave out"}


class State(TypedDict):
    items: Annotated[list, operator.add]


def _subgraph(lib: Lib, mode: str, asks: int = 0, saver: Any = None):
    interrupt = _interrupt(lib.name)

    def inner(state):
        answers = [interrupt(f"q{i}") for i in range(asks)]
        return {"items": [len(state["items"]), *answers]}

    graph = lib.StateGraph(State).add_node("inner", inner).add_edge(lib.START, "inner")
    if saver is not None:
        return graph.compile(checkpointer=saver)
    return graph.compile() if mode == "default" else graph.compile(checkpointer=MODES[mode])


def _parent(lib: Lib, sub, usage: str, saver):
    """The subgraph as a node, or called (twice) from inside a node."""
    graph = lib.StateGraph(State)
    if usage == "node":
        graph.add_node("sub", sub).add_edge(lib.START, "sub")
    else:

        def node(state):
            calls = 2 if usage == "twice" else 1
            outputs = [sub.invoke({"items": [f"call{i}"]}) for i in range(calls)]
            return {"items": [output["items"] for output in outputs]}

        graph.add_node("node", node).add_edge(lib.START, "node")
    return graph.compile(checkpointer=saver)


def _namespaces(saver) -> dict[str, int]:
    """How many checkpoints each namespace holds, task ids left out."""
    found = Counter(
        re.sub(r":[^|]*", ":*", saved.config["configurable"]["checkpoint_ns"])
        for saved in saver.list(None)
    )
    return dict(sorted(found.items()))


def _shown(result: Any) -> Any:
    if isinstance(result, dict) and "__interrupt__" in result:
        return {**result, "__interrupt__": [item.value for item in result["__interrupt__"]]}
    return result


def _invoke(app, *args, **kwargs):
    return app.invoke(*args, **kwargs)


def _ainvoke(app, *args, **kwargs):
    return asyncio.run(app.ainvoke(*args, **kwargs))


def _quietly(lib: Lib, call) -> Any:
    """``call()``, without graphkit's own warnings where LangGraph is silent (e.g. an
    answer given to a finished thread); they have their own tests."""
    with warnings.catch_warnings():
        if lib.warning is not None:
            warnings.simplefilter("ignore", lib.warning)
        return call()


def _snapshot(snapshot) -> Any:
    if snapshot is None:
        return None
    return {"values": snapshot.values, "next": snapshot.next}


def _observe(name: str, mode: str, usage: str, saver_kind: str, run=_invoke) -> dict:
    lib = LIBS[name]()
    config = {"configurable": {"thread_id": "t"}}
    with SAVERS[saver_kind](name) as saver:
        app = _parent(lib, _subgraph(lib, mode), usage, saver)
        first = run(app, {"items": ["p1"]}, config)
        second = run(app, {"items": ["p2"]}, config)
        own_config = {"configurable": {"thread_id": "t", "checkpoint_ns": "sub"}}
        history = [_snapshot(state) for state in app.get_state_history(config)]
        own_history = [_snapshot(state) for state in app.get_state_history(own_config)]
        return {
            "runs": [first, second],
            "saved": _namespaces(saver),
            "history": history,
            "own thread": _snapshot(app.get_state(own_config)) if usage == "node" else None,
            "own history": own_history if usage == "node" else None,
        }


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
@pytest.mark.parametrize("usage", ["node", "called", "twice"])
@pytest.mark.parametrize("mode", list(MODES))
def test_what_a_subgraph_keeps_across_calls(mode, usage, saver):
    expected = _observe("langgraph", mode, usage, saver)
    assert _observe("graphkit", mode, usage, saver) == expected


@pytest.mark.parametrize("usage", ["node", "twice"])
@pytest.mark.parametrize("mode", ["true", "false", "none"])
def test_async_runs_keep_the_same(mode, usage):
    expected = _observe("langgraph", mode, usage, "memory", _ainvoke)
    assert _observe("graphkit", mode, usage, "memory", _ainvoke) == expected


def test_the_case_itself():
    """LangGraph's answer, pinned: only checkpointer=True keeps the first run's items."""
    kept = _observe("langgraph", "true", "node", "memory")["runs"][1]["items"]
    fresh = _observe("langgraph", "none", "node", "memory")["runs"][1]["items"]
    assert kept == ["p1", "p1", 1, "p2", "p1", 1, "p1", "p1", 1, "p2", 6]
    assert fresh == ["p1", "p1", 1, "p2", "p1", "p1", 1, "p2", 4]


def _observe_interrupt(name: str, mode: str, usage: str, asks: int, saver_kind: str, run) -> dict:
    lib = LIBS[name]()
    config = {"configurable": {"thread_id": "t"}}
    with SAVERS[saver_kind](name) as saver:
        app = _parent(lib, _subgraph(lib, mode, asks), usage, saver)
        seen: dict[str, Any] = {"first": _shown(run(app, {"items": ["p1"]}, config))}
        state = app.get_state(config, subgraphs=True)
        seen["inside"] = [_snapshot(task.state) for task in state.tasks]
        seen["answers"] = [
            _shown(
                _quietly(lib, lambda answer=answer: run(app, lib.Command(resume=answer), config))
            )
            for answer in ("A", "B")
        ]
        seen["saved"] = _namespaces(saver)
        return seen


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
@pytest.mark.parametrize("asks", [1, 2])
@pytest.mark.parametrize("usage", ["node", "called"])
@pytest.mark.parametrize("mode", list(MODES))
def test_an_interrupted_subgraph_resumes(mode, usage, asks, saver):
    """With checkpointer=False a subgraph starts over on resume: one question is answered,
    a second one is asked again and again (LangGraph's behaviour, kept)."""
    expected = _observe_interrupt("langgraph", mode, usage, asks, saver, _invoke)
    assert _observe_interrupt("graphkit", mode, usage, asks, saver, _invoke) == expected


@pytest.mark.parametrize("mode", ["true", "false", "none"])
def test_an_interrupted_subgraph_resumes_async(mode):
    expected = _observe_interrupt("langgraph", mode, "node", 2, "memory", _ainvoke)
    assert _observe_interrupt("graphkit", mode, "node", 2, "memory", _ainvoke) == expected


def _outcome(call) -> Any:
    try:
        return _shown(call())
    except Exception as error:  # the type, and LangGraph's sentence, must agree
        return type(error).__name__, str(error).split("\n")[0].split(";")[0]


@pytest.mark.parametrize("name", list(LIBS))
def test_checkpointer_true_at_the_root_is_refused(name):
    lib = LIBS[name]()
    app = _subgraph(lib, "true")
    config = {"configurable": {"thread_id": "t"}}
    for call in (lambda: app.invoke({"items": []}, config), lambda: app.get_state(config)):
        outcome = _outcome(call)
        assert outcome[0] == "RuntimeError"
        assert outcome[1].startswith("checkpointer=True cannot be used for root graphs")


@pytest.mark.parametrize("mode", list(MODES))
def test_a_parent_without_a_saver_lends_none(mode):
    """Nothing saves, so the interrupt cannot be resumed (graphkit also warns so)."""

    def observe(name):
        lib = LIBS[name]()
        app = _parent(lib, _subgraph(lib, mode, asks=1), "node", None)
        config = {"configurable": {"thread_id": "t"}}
        return [_outcome(lambda: app.invoke({"items": ["p"]}, config)) for _ in range(2)]

    with pytest.warns(load_graphkit().warning, match="cannot be resumed"):
        seen = observe("graphkit")
    assert seen == observe("langgraph")


@pytest.mark.parametrize("parent_saver", [False, True])
def test_a_nested_graph_uses_the_parents_saver_not_its_own(parent_saver):
    def observe(name):
        lib = LIBS[name]()
        with SAVERS["memory"](name) as own, SAVERS["memory"](name) as lent:
            app = _parent(
                lib, _subgraph(lib, "none", saver=own), "node", lent if parent_saver else None
            )
            config = {"configurable": {"thread_id": "t"}}
            runs = [app.invoke({"items": ["p"]}, config) for _ in range(2)]
            return runs, _namespaces(own), _namespaces(lent)

    assert observe("graphkit") == observe("langgraph")


@pytest.mark.parametrize("value", ["yes", 1.5, object()])
def test_a_checkpointer_that_is_not_one_is_refused(value):
    for name in LIBS:
        lib = LIBS[name]()
        graph = lib.StateGraph(State).add_node("a", lambda state: {}).add_edge(lib.START, "a")
        with pytest.raises(TypeError):
            graph.compile(checkpointer=value)


@pytest.mark.parametrize("durability", ["exit", "async"])
def test_durability_exit_keeps_a_subgraphs_own_thread(durability):
    """A subgraph's own thread is not a run inside the parent's checkpoint: with
    durability="exit" it still saves where it finished, as LangGraph does."""

    def observe(name):
        lib = LIBS[name]()
        with SAVERS["memory"](name) as saver:
            app = _parent(lib, _subgraph(lib, "true"), "node", saver)
            config = {"configurable": {"thread_id": "t"}}
            runs = [app.invoke({"items": ["p"]}, config, durability=durability) for _ in range(2)]
            return runs, _namespaces(saver)

    assert observe("graphkit") == observe("langgraph")


def test_two_calls_stream_under_their_own_namespaces():
    """The second call of a subgraph from one task streams under ``(node:<id>, "1")``."""

    def observe(name):
        lib = LIBS[name]()

        def inner(state):
            lib.get_stream_writer()({"seen": len(state["items"])})
            return {"items": [1]}

        graph = lib.StateGraph(State).add_node("inner", inner).add_edge(lib.START, "inner")
        sub = graph.compile()

        def node(state):
            sub.invoke({"items": ["a"]})
            sub.invoke({"items": ["b", "c"]})
            return {"items": ["n"]}

        app = lib.StateGraph(State).add_node("node", node).add_edge(lib.START, "node").compile()
        chunks = app.stream({"items": []}, subgraphs=True, stream_mode=["custom", "updates"])
        return [(re.sub(r":[^|]*", ":*", "|".join(ns)), mode, chunk) for ns, mode, chunk in chunks]

    assert observe("graphkit") == observe("langgraph")


# -- nested levels ------------------------------------------------------------------------
# A subgraph inside a subgraph: each level's own checkpointer= setting says what that
# level keeps, whatever the levels around it keep. A checkpointer=False level saves
# nothing, yet, as in LangGraph, it passes the root's saver on to the graphs it runs, so
# a checkpointer=True (or None) graph inside still saves, under "mid|inner" (or
# "mid:<id>|inner:<id>"), and a True one keeps its state across the parent's runs.


LEVELS = {"t": "true", "f": "false", "n": "none"}


def _chain(lib: Lib, modes: str, usage: str, asks: int, saver):
    """Subgraphs nested ``len(modes)`` deep, the outermost first ("t" True, "f" False,
    "n" None); each one a node of the level above, or called from inside its node."""
    sub = _subgraph(lib, LEVELS[modes[-1]], asks)
    for mode in reversed(modes[:-1]):
        sub = _parent(lib, sub, usage, MODES[LEVELS[mode]])
    return _parent(lib, sub, usage, saver)


CHECKPOINT_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _parents(saver) -> list[tuple[str, tuple[tuple[str, bool], ...]]]:
    """Each namespace's checkpoints' ``parents`` metadata: the enclosing runs they name,
    and whether each is named by a checkpoint id (a ``False`` level's too, never saved)."""
    return sorted(
        {
            (
                re.sub(r":[^|]*", ":*", saved.config["configurable"]["checkpoint_ns"]),
                tuple(
                    sorted(
                        (re.sub(r":[^|]*", ":*", ns), bool(CHECKPOINT_ID.fullmatch(id_)))
                        for ns, id_ in saved.metadata["parents"].items()
                    )
                ),
            )
            for saved in saver.list(None)
        }
    )


def _tree(snapshot) -> Any:
    """A snapshot with its subgraph tasks' snapshots, as ``get_state(subgraphs=True)``."""
    if snapshot is None or isinstance(snapshot, dict):
        return snapshot if snapshot is None else "config"
    inside = [
        (task.name, [i.value for i in task.interrupts], _tree(task.state))
        for task in snapshot.tasks
    ]
    return {**_snapshot(snapshot), "tasks": inside}


def _observe_nested(name: str, modes: str, usage: str, saver_kind: str, asks: int, run) -> dict:
    lib = LIBS[name]()
    config = {"configurable": {"thread_id": "t"}}
    with SAVERS[saver_kind](name) as saver:
        app = _chain(lib, modes, usage, asks, saver)
        seen: dict[str, Any] = {"first": _shown(run(app, {"items": ["p1"]}, config))}
        seen["inside"] = _tree(app.get_state(config, subgraphs=True))
        seen["answers"] = [
            _shown(
                _quietly(lib, lambda answer=answer: run(app, lib.Command(resume=answer), config))
            )
            for answer in ("A", "B")[:asks]
        ]
        seen["second"] = _shown(run(app, {"items": ["p2"]}, config))
        seen["saved"], seen["parents"] = _namespaces(saver), _parents(saver)
        own = "|".join(("sub" if usage == "node" else "node",) * len(modes))
        own_config = {"configurable": {"thread_id": "t", "checkpoint_ns": own}}
        seen["own history"] = [_snapshot(state) for state in app.get_state_history(own_config)]
        return seen


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
@pytest.mark.parametrize("asks", [0, 1])
@pytest.mark.parametrize("usage", ["node", "called"])
@pytest.mark.parametrize(
    "modes", ["ft", "fn", "ff", "tf", "tn", "nt", "nf", "tt", "ffn", "fft", "nft"]
)
def test_a_subgraph_inside_a_subgraph_keeps_what_its_own_mode_says(modes, usage, asks, saver):
    expected = _observe_nested("langgraph", modes, usage, saver, asks, _invoke)
    assert _observe_nested("graphkit", modes, usage, saver, asks, _invoke) == expected


@pytest.mark.parametrize("modes", ["ft", "fn", "fft"])
def test_a_subgraph_inside_a_subgraph_async(modes):
    expected = _observe_nested("langgraph", modes, "node", "memory", 1, _ainvoke)
    assert _observe_nested("graphkit", modes, "node", "memory", 1, _ainvoke) == expected


def test_the_nested_case_itself():
    """LangGraph's answer, pinned: a True graph inside a False one sees the first run's
    items as well (7 of them, where a fresh one would see 5), saved in the root's thread
    under "sub|sub", its metadata naming the False level's (unsaved) checkpoint."""
    kept = _observe_nested("langgraph", "ft", "node", "memory", 0, _invoke)
    fresh = _observe_nested("langgraph", "ff", "node", "memory", 0, _invoke)
    assert (kept["second"]["items"][-1], fresh["second"]["items"][-1]) == (7, 5)
    assert kept["saved"] == {"": 6, "sub|sub": 6}
    assert kept["parents"] == [("", ()), ("sub|sub", (("", True), ("sub:*", True)))]


@pytest.mark.parametrize("modes", ["ft", "fn", "ff", "nf"])
def test_a_task_in_a_subgraph_that_saves_nothing_names_its_checkpoint(modes):
    """``runtime.execution_info.checkpoint_id`` in a checkpointer=False level of a run that
    saves: the id of the level's unsaved checkpoint, which the graphs inside it name in
    their ``parents`` metadata, as in LangGraph."""

    def observe(name):
        lib, seen = LIBS[name](), []
        runtime_type = importlib.import_module(f"{name}.runtime").Runtime

        def leaf(state, runtime: runtime_type):
            seen.append(runtime.execution_info)
            return {"items": [1]}

        inner = lib.StateGraph(State).add_node("leaf", leaf).add_edge(lib.START, "leaf")
        inner = inner.compile(checkpointer=MODES[LEVELS[modes[1]]])
        mid = lib.StateGraph(State).add_node("inner", inner).add_node("own", leaf)
        mid = mid.add_edge(lib.START, "inner").add_edge("inner", "own")
        mid = mid.compile(checkpointer=MODES[LEVELS[modes[0]]])
        with SAVERS["memory"](name) as saver:
            app = _parent(lib, mid, "node", saver)
            app.invoke({"items": []}, {"configurable": {"thread_id": "t"}})
            named = {
                id_ for saved in saver.list(None) for id_ in saved.metadata["parents"].values()
            }
        return [
            (
                re.sub(r":[^|]*", ":*", info.checkpoint_ns),
                bool(CHECKPOINT_ID.fullmatch(info.checkpoint_id)),
                info.checkpoint_id in named,
            )
            for info in seen
        ]

    assert observe("graphkit") == observe("langgraph")
