"""durability="exit" reaches subgraphs as LangGraph has it (issue 14, item 2): a subgraph
saves nothing of a run that finishes, and saves where it stopped when it is interrupted
or fails, so that the run can be resumed."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS, _interrupt


class State(TypedDict):
    n: Annotated[int, operator.add]


def _subgraph(lib: Lib, middle):
    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"n": 1})
    graph.add_node("b", middle)
    graph.add_node("c", lambda state: {"n": 1})
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "b")
    graph.add_edge("b", "c")
    return graph.compile()


def _parent(lib: Lib, middle, saver):
    sub = _subgraph(lib, middle)
    graph = lib.StateGraph(State)
    graph.add_node("s1", sub)
    graph.add_node("s2", sub)
    graph.add_edge(lib.START, "s1")
    graph.add_edge("s1", "s2")
    return graph.compile(checkpointer=saver)


def _saved(saver) -> list[tuple[str, str, int]]:
    """(namespace without task id, source, step) of every checkpoint, oldest first."""
    rows = [
        (
            saved.config["configurable"]["checkpoint_ns"].split(":")[0],
            saved.metadata["source"],
            saved.metadata["step"],
        )
        for saved in saver.list(None)
    ]
    return sorted(rows, key=lambda row: (row[0], row[2]))


def _one(state):
    return {"n": 1}


def _boom(state):
    raise ValueError("boom")


def _ask(library: str):
    def ask(state):
        return {"n": _interrupt(library)("more?")}

    return ask


def _shown(result):
    """A result with interrupts known by their values (their ids and reprs differ)."""
    if isinstance(result, dict) and "__interrupt__" in result:
        return {**result, "__interrupt__": [item.value for item in result["__interrupt__"]]}
    return result


def _observe(lib: Lib, saver_kind: str, durability: str, middle: str, run=None) -> dict:
    library, run = lib.name, run or (lambda app, *args, **kwargs: app.invoke(*args, **kwargs))
    node = {"plain": _one, "fails": _boom, "asks": _ask(library)}[middle]
    config = {"configurable": {"thread_id": "t"}}
    with SAVERS[saver_kind](library) as saver:
        app = _parent(lib, node, saver)
        try:
            result = run(app, {"n": 0}, config, durability=durability)
        except ValueError as error:
            result = type(error).__name__
        seen = {"result": _shown(result), "saved": _saved(saver)}
        if middle == "asks":  # the interrupted subgraph resumes from what it saved
            resumed = run(app, lib.Command(resume=5), config, durability=durability)
            seen["resumed"], seen["after"] = _shown(resumed), _saved(saver)
        return seen


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
@pytest.mark.parametrize("middle", ["plain", "fails", "asks"])
@pytest.mark.parametrize("durability", ["exit", "async"])
def test_subgraphs_save_what_langgraph_saves(durability, middle, saver):
    expected = _observe(load_langgraph(), saver, durability, middle)
    assert _observe(load_graphkit(), saver, durability, middle) == expected


def _ainvoke(app, *args, **kwargs):
    return asyncio.run(app.ainvoke(*args, **kwargs))


@pytest.mark.parametrize("middle", ["plain", "fails", "asks"])
def test_async_subgraphs_save_what_langgraph_saves(middle):
    """ainvoke, with in-memory savers (LangGraph's sync SqliteSaver has no async methods)."""
    expected = _observe(load_langgraph(), "memory", "exit", middle, _ainvoke)
    assert _observe(load_graphkit(), "memory", "exit", middle, _ainvoke) == expected


def test_exit_saves_one_checkpoint_for_a_finished_run():
    """The case itself: LangGraph keeps only the parent's last checkpoint."""
    seen = _observe(load_langgraph(), "memory", "exit", "plain")
    assert seen["saved"] == [("", "loop", 2)]


class Notes(TypedDict):
    found: list
    notes: Annotated[list, operator.add]


def _resumed_under_exit(lib: Lib) -> list[dict]:
    """Run, then resume under durability="exit" through two steps, the first of which
    edits a channel it does not write (``found``) in place; return the history."""
    with SAVERS["memory"](lib.name) as saver:
        interrupt = _interrupt(lib.name)

        def ask(state):
            answer = interrupt("which one?")
            state["found"].append("edited in place")  # (no write: not saved)
            return {"notes": [answer]}

        graph = lib.StateGraph(Notes)
        graph.add_node("ask", ask)
        graph.add_node("note", lambda state: {"notes": ["noted"]})
        graph.add_edge(lib.START, "ask")
        graph.add_edge("ask", "note")
        app = graph.compile(checkpointer=saver)
        thread = {"configurable": {"thread_id": "t"}}
        app.invoke({"found": ["sf"], "notes": []}, thread, durability="exit")
        app.invoke(lib.Command(resume="sf"), thread, durability="exit")
        return [snapshot.values for snapshot in app.get_state_history(thread)]


def test_a_run_resumed_under_exit_saves_what_it_wrote():
    """The one checkpoint a resumed run puts under durability="exit" keeps the saved
    values of the channels its steps did not write, as LangGraph's in-memory saver
    (which stores only the channels whose versions changed) does; graphkit's saver kept
    the run's own copies of them, in-place edits included, and a whole copy per run."""
    expected = _resumed_under_exit(load_langgraph())
    assert _resumed_under_exit(load_graphkit()) == expected
    assert expected[0] == {"found": ["sf"], "notes": ["sf", "noted"]}


LANGGRAPHS_WORDS = "`durability` has no effect when no checkpointer is present."


def _warned_of_durability(lib: Lib) -> list[tuple[str, list[str]]]:
    """The ``UserWarning`` a run given ``durability=`` (or the deprecated
    ``checkpoint_during=``) gives when it saves nothing: the graph has no checkpointer, or
    a subgraph has none to borrow; none when one saves. (``durability="sync"`` without a
    checkpointer crashes LangGraph 1.2 with an ``AttributeError``; graphkit warns and
    runs, see docs/compatibility.md.)"""
    import warnings

    from .scenarios import SAVERS

    def warned(call) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        return [
            type(w.message).__name__ for w in caught if str(w.message).startswith(LANGGRAPHS_WORDS)
        ]

    bare = _subgraph(lib, lambda state: {"n": 1})

    def runs_a_subgraph(state: State) -> dict:
        return bare.invoke(state, durability="exit")

    outer = lib.StateGraph(State).add_node("s", runs_a_subgraph).add_edge(lib.START, "s")
    seen = [
        ("invoke", warned(lambda: bare.invoke({"n": 0}, durability="exit"))),
        ("stream", warned(lambda: list(bare.stream({"n": 0}, durability="async")))),
        ("ainvoke", warned(lambda: asyncio.run(bare.ainvoke({"n": 0}, durability="async")))),
        ("checkpoint_during", warned(lambda: bare.invoke({"n": 0}, checkpoint_during=False))),
        ("no durability", warned(lambda: bare.invoke({"n": 0}))),
        ("a subgraph, no saver", warned(lambda: outer.compile().invoke({"n": 0}))),
    ]
    with SAVERS["memory"](lib.name) as saver:
        config = {"configurable": {"thread_id": "t"}}
        saved = outer.compile(checkpointer=saver)
        seen.append(("a saver", warned(lambda: saved.invoke({"n": 0}, config, durability="exit"))))
        seen.append(("its subgraph", warned(lambda: saved.invoke({"n": 0}, config))))
    return seen


def test_durability_without_a_checkpointer_warns_as_in_langgraph():
    expected = _warned_of_durability(load_langgraph())
    assert expected[0] == ("invoke", ["UserWarning"]) and expected[-2] == ("a saver", [])
    assert _warned_of_durability(load_graphkit()) == expected
