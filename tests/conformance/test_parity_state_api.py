"""The thread API in full (issue 14, item 10): ``bulk_update_state`` with LangGraph's
``StateUpdate`` semantics (a list of supersteps, each a list of updates applied together
as one step), and the async twins ``aget_state``, ``aget_state_history`` (an async
iterator), ``aupdate_state`` and ``abulk_update_state``."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import operator
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS

THREAD = {"configurable": {"thread_id": "t"}}


class State(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def _build(lib: Lib, saver):
    graph = lib.StateGraph(State)
    for name in "abc":
        graph.add_node(name, lambda state, name=name: {"log": [name]})
    graph.add_edge(lib.START, "a")
    graph.add_edge(lib.START, "b")
    graph.add_edge("a", "c")
    graph.add_edge("b", "c")
    return graph.compile(checkpointer=saver, interrupt_before=["c"])


def _update(values, as_node, task_id=None):
    return (values, as_node, task_id)


BULKS = {
    "two_nodes_one_step": [[_update({"log": ["u1"]}, "a"), _update({"log": ["u2"]}, "b")]],
    "two_steps": [[_update({"log": ["u3"]}, "a")], [_update({"x": 4, "log": ["u4"]}, "b")]],
    "inferred_node": [[_update({"log": ["u5"]}, None)]],
    "end_clears_tasks": [[(None, "__end__")]],
    "input": [[({"x": 5, "log": ["i"]}, "__input__")]],
    "copy": [[(None, "__copy__")]],
    "copy_then_update": [[([({"log": ["c1"]}, "a")], "__copy__")]],
    "then_resume": [[_update({"log": ["u6"]}, "b")]],
    # refused
    "no_supersteps": [],
    "empty_superstep": [[]],
    "as_node_missing_in_a_pair": [[_update({"log": ["u7"]}, None), _update({}, "b")]],
    "unknown_node": [[_update({"log": ["u8"]}, "zz")]],
    "end_with_others": [[(None, "__end__"), _update({}, "a")]],
    "input_of_nothing": [[(None, "__input__")]],
    "a_dict_not_an_update": [[{"values": {"log": ["u9"]}, "as_node": "a"}]],  # TypeError
    "a_number_not_an_update": [[5]],  # TypeError
    "a_pair_not_a_triple": [[({"log": ["u10"]}, "a")]],  # ValueError
}


def _snapshot(snapshot, steps: dict) -> tuple:
    metadata = snapshot.metadata or {}
    parent = (snapshot.parent_config or {}).get("configurable", {}).get("checkpoint_id")
    tasks = sorted(task.name for task in snapshot.tasks)
    shown = (metadata.get("source"), metadata.get("step"), steps.get(parent))
    return snapshot.values, tuple(snapshot.next), shown, tasks


class Sync:
    def __init__(self, app):
        self.app = app

    def state(self):
        return self.app.get_state(THREAD)

    def history(self):
        return list(self.app.get_state_history(THREAD))

    def bulk(self, supersteps):
        return self.app.bulk_update_state(THREAD, supersteps)

    def update(self, values, as_node):
        return self.app.update_state(THREAD, values, as_node)


class Async(Sync):
    def state(self):
        return asyncio.run(self.app.aget_state(THREAD))

    def history(self):
        async def collect():
            return [snapshot async for snapshot in self.app.aget_state_history(THREAD)]

        return asyncio.run(collect())

    def bulk(self, supersteps):
        return asyncio.run(self.app.abulk_update_state(THREAD, supersteps))

    def update(self, values, as_node):
        return asyncio.run(self.app.aupdate_state(THREAD, values, as_node))


def _observe(lib: Lib, saver_kind: str, api: type[Sync], names: list[str]) -> list:
    seen: list = []
    with SAVERS[saver_kind](lib.name) as saver:
        calls = api(_build(lib, saver))
        calls.app.invoke({"x": 0, "log": []}, THREAD)
        for name in names:
            try:
                returned = calls.bulk(BULKS[name])
                outcome = sorted(returned["configurable"])
            except Exception as error:  # known by class: the messages are graphkit's own
                outcome = type(error).__name__
            if name == "then_resume":
                outcome = (outcome, calls.app.invoke(None, THREAD))
            history = calls.history()
            steps = {s.config["configurable"]["checkpoint_id"]: s.metadata["step"] for s in history}
            seen.append((name, outcome, _snapshot(calls.state(), steps)))
        seen.append([_snapshot(snapshot, steps) for snapshot in history])
        return seen


SEQUENCES = {
    "updates": ["two_nodes_one_step", "two_steps", "inferred_node", "then_resume"],
    "specials": ["input", "end_clears_tasks", "copy", "copy_then_update", "then_resume"],
    "refused": [
        name for name in BULKS if list(BULKS).index(name) > list(BULKS).index("then_resume")
    ],
}


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
@pytest.mark.parametrize("sequence", list(SEQUENCES))
def test_bulk_update_state_matches_langgraph(sequence, saver):
    names = SEQUENCES[sequence]
    expected = _observe(load_langgraph(), saver, Sync, names)
    assert _observe(load_graphkit(), saver, Sync, names) == expected


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
@pytest.mark.parametrize("sequence", list(SEQUENCES))
def test_async_state_api_matches_langgraph(sequence, saver):
    """LangGraph's sync SqliteSaver has no async methods: its answer comes from memory."""
    names = SEQUENCES[sequence]
    expected = _observe(load_langgraph(), "memory", Async, names)
    assert _observe(load_graphkit(), saver, Async, names) == expected


@pytest.mark.parametrize("lib", [load_langgraph, load_graphkit], ids=["langgraph", "graphkit"])
def test_aupdate_state_and_update_state_agree(lib):
    """update_state is a one-update bulk_update_state, sync or async."""
    outcomes = []
    for api in (Sync, Async):
        with SAVERS["memory"](lib().name) as saver:
            calls = api(_build(lib(), saver))
            calls.app.invoke({"x": 0, "log": []}, THREAD)
            calls.update({"log": ["u"]}, "a")
            calls.update(None, "__end__")
            outcomes.append((calls.state().values, calls.state().next, len(calls.history())))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0]["log"][-1] == "u"


def test_aget_state_history_is_an_async_iterator():
    with SAVERS["memory"]("graphkit") as saver:
        app = _build(load_graphkit(), saver)
        app.invoke({"x": 0, "log": []}, THREAD)
        history = app.aget_state_history(THREAD, limit=1)
        assert hasattr(history, "__anext__")
        first = asyncio.run(history.__anext__())
        assert first.values == app.get_state(THREAD).values


@pytest.mark.parametrize("saver", sorted(SAVERS))
@pytest.mark.parametrize("stop", ["breakpoint", "failure"])
def test_a_snapshot_lists_sends_first_then_nodes_in_the_order_they_were_added(saver, stop):
    """LangGraph lists a paused or failed step's tasks Send tasks first, then the nodes
    in the order they were added (not by name)."""

    def listed(lib: Lib) -> tuple:
        def zeta(state: State) -> dict:
            if stop == "failure":
                raise ValueError("zeta fails")
            return {"log": ["zeta"]}

        graph = lib.StateGraph(State)
        graph.add_node("fan", lambda state: {"log": ["fan"]})
        graph.add_node("zeta", zeta).add_node("alpha", lambda state: {"log": ["alpha"]})
        graph.add_node("mid", lambda state: {"log": ["mid"]})
        graph.add_edge(lib.START, "fan")
        graph.add_conditional_edges(
            "fan", lambda state: [lib.Send("mid", {"x": 1, "log": []}), "zeta", "alpha"]
        )
        breakpoints = {"interrupt_before": ["zeta"]} if stop == "breakpoint" else {}
        with SAVERS[saver](lib.name) as checkpointer:
            app = graph.compile(checkpointer=checkpointer, **breakpoints)
            with contextlib.suppress(ValueError):
                app.invoke({"x": 0, "log": []}, THREAD)
            state = app.get_state(THREAD)
            return state.next, [task.name for task in state.tasks]

    ours, theirs = listed(load_graphkit()), listed(load_langgraph())
    if stop == "failure":
        # which siblings finished, and so left `next` with their writes saved, before
        # zeta's error stopped the step is a race in both libraries (K5: a CI run under
        # load saw graphkit save alpha's and LangGraph not): `next` holds zeta in both
        assert "zeta" in ours[0] and "zeta" in theirs[0]
        ours, theirs = ours[1], theirs[1]
    assert ours == theirs
    assert (ours if stop == "failure" else ours[1])[:3] == ["mid", "zeta", "alpha"]


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_snapshots_tasks_and_saved_tuples_are_named_tuples(saver):
    """As LangGraph's: unpacked, indexed, ``_asdict()`` / ``_replace()``; a saver's
    ``CheckpointTuple`` too."""

    def observe(lib: Lib) -> list:
        with SAVERS[saver](lib.name) as checkpointer:
            app = _build(lib, checkpointer)
            app.invoke({"x": 0, "log": []}, THREAD)
            snapshot = app.get_state(THREAD)
            values, next_nodes, *_ = snapshot
            task = snapshot.tasks[0]
            saved = checkpointer.get_tuple(THREAD)
            return [
                isinstance(snapshot, tuple), len(snapshot), list(snapshot._asdict()),
                values, next_nodes, snapshot[1], snapshot._replace(next=()).next,
                isinstance(task, tuple), list(task._asdict()), task[1],
                task._replace(name="z").name,
                isinstance(saved, tuple), list(saved._asdict()), saved[0] == saved.config,
            ]  # fmt: skip

    assert observe(load_graphkit()) == observe(load_langgraph())


def _interrupt(lib: Lib) -> Any:
    if lib.name == "langgraph":
        from langgraph.types import interrupt
    else:
        from graphkit import interrupt
    return interrupt


def test_a_subgraphs_snapshot_and_update_configs_carry_the_checkpoint_map():
    """LangGraph's ``checkpoint_map`` (the checkpoint each namespace above and at a
    subgraph's checkpoint is at) in its snapshot's config and parent config, its
    history's, and the config ``update_state`` returns."""

    def observe(lib: Lib) -> list:
        interrupt = _interrupt(lib)
        sub = lib.StateGraph(State).add_node("ask", lambda state: {"x": interrupt("q")})
        sub = sub.add_edge(lib.START, "ask").compile()
        with SAVERS["memory"](lib.name) as saver:
            app = lib.StateGraph(State).add_node("sub", sub).add_edge(lib.START, "sub")
            app = app.compile(checkpointer=saver)
            app.invoke({"x": 0, "log": []}, THREAD)
            root_id = app.get_state(THREAD).config["configurable"]["checkpoint_id"]

            def shape(config: dict | None) -> Any:
                if config is None:
                    return None
                own = config["configurable"]
                mapped = own.get("checkpoint_map") or {}
                at = {ns.split(":")[0]: (i == own["checkpoint_id"], i == root_id)
                      for ns, i in mapped.items()}  # fmt: skip
                return sorted(key for key in own if not key.startswith("__")), at

            snapshot = app.get_state(THREAD, subgraphs=True).tasks[0].state
            history = [shape(s.config) for s in app.get_state_history(snapshot.config)]
            updated = app.update_state(snapshot.config, {"x": 5})
            return [shape(snapshot.config), shape(snapshot.parent_config), history,
                    shape(updated), app.get_state(updated).values]  # fmt: skip

    assert observe(load_graphkit()) == observe(load_langgraph())


@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_an_update_answering_a_task_saves_its_sends_on_the_checkpoint_it_builds_on(saver):
    """`update_state` as the node of an interrupted `Send` task, whose router sends again:
    LangGraph saves the update's `Send` as that task's write on the checkpoint the update
    builds on (its snapshot then shows the task's result, `{}`), as well as on the new
    checkpoint (graphkit saved it on the new one only; found by fuzz property 8)."""

    def seen(lib: Lib) -> tuple:
        interrupt = importlib.import_module(f"{lib.name}.types").interrupt

        def asks(state: State) -> dict:
            return {"log": [f"asks={interrupt('asks?')}"]}

        def route(state: State) -> Any:
            return [lib.Send("asks", {"x": 1, "log": []})] if len(state["log"]) < 3 else lib.END

        graph = lib.StateGraph(State)
        graph.add_node("asks", asks)
        graph.add_edge(lib.START, "asks")
        graph.add_conditional_edges("asks", route, ["asks", lib.END])
        with SAVERS[saver](lib.name) as checkpointer:
            app = graph.compile(checkpointer=checkpointer)
            app.invoke({"x": 0, "log": []}, THREAD)
            app.invoke(lib.Command(resume="r"), THREAD)  # the Send task now asks
            paused = app.get_state(THREAD).config
            app.update_state(THREAD, {}, as_node="asks")
            saved = checkpointer.get_tuple(paused)
            pending = sorted(channel for _, channel, _ in saved.pending_writes)
            history = [
                (s.metadata["step"], s.next, [(t.name, t.result) for t in s.tasks])
                for s in app.get_state_history(THREAD)
            ]
            return pending, history

    ours = seen(load_graphkit())
    assert ours == seen(load_langgraph())
    assert ours[0] == ["__interrupt__", "__pregel_tasks"]
