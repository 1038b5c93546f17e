"""Whole "checkpoints" payloads against LangGraph, ids aside (each library's ids are
replaced by their order of appearance). A plain graph's agree, and so does a task that
runs a subgraph (its ``state`` is the config of the subgraph's thread, LangGraph's signal
that the subgraph has checkpoints), and a run with ``durability="exit"`` (nothing is saved
until it ends, so every payload's ``parent_config`` is that of the checkpoint the run
started from), and, streaming subgraphs, a subgraph's payloads (whose configs carry
LangGraph's ``checkpoint_map``: the checkpoint id of each namespace above and its own).
"""

from __future__ import annotations

import operator
import re
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, canonical, load_graphkit, load_langgraph
from .scenarios import SAVERS

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class State(TypedDict):
    out: Annotated[list, operator.add]


def _graph(lib: Lib, saver: Any, with_subgraph: bool) -> Any:
    child = lib.StateGraph(State)
    child.add_node("inner", lambda state: {"out": ["inner"]})
    child.add_edge(lib.START, "inner")
    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"out": ["a"]})
    graph.add_node("b", child.compile() if with_subgraph else (lambda state: {"out": ["b"]}))
    graph.add_edge(lib.START, "a").add_edge("a", "b")
    return graph.compile(checkpointer=saver)


def _observe(
    lib: Lib, with_subgraph: bool, subgraphs: bool, durability: str, again: bool = False
) -> list[str]:
    with SAVERS["memory"](lib.name) as saver:
        app = _graph(lib, saver, with_subgraph)
        config = {"configurable": {"thread_id": "t"}}
        if again:  # the thread has checkpoints before the observed run
            app.invoke({"out": []}, config)
        chunks = app.stream(
            {"out": []}, config, stream_mode="checkpoints", subgraphs=subgraphs,
            durability=durability,
        )  # fmt: skip
        seen: dict[str, str] = {}
        return [
            UUID.sub(lambda m: seen.setdefault(m.group(0), f"id{len(seen)}"), canonical(chunk))
            for chunk in chunks
        ]


def _compare(with_subgraph: bool, subgraphs: bool, durability: str, again: bool = False) -> None:
    expected = _observe(load_langgraph(), with_subgraph, subgraphs, durability, again)
    assert _observe(load_graphkit(), with_subgraph, subgraphs, durability, again) == expected


@pytest.mark.parametrize("durability", ["sync", "async"])
def test_a_plain_graphs_checkpoint_payloads_match(durability):
    _compare(with_subgraph=False, subgraphs=False, durability=durability)


def test_a_subgraph_tasks_state_is_its_threads_config():
    _compare(with_subgraph=True, subgraphs=False, durability="sync")


def test_subgraph_payloads_carry_the_checkpoint_map():
    _compare(with_subgraph=True, subgraphs=True, durability="sync")


@pytest.mark.parametrize("again", [False, True])
def test_exit_durability_names_the_parent_the_run_started_from(again):
    _compare(with_subgraph=False, subgraphs=False, durability="exit", again=again)


def _over_the_limit(lib: Lib, modes: list[str], durability: str, use_async: bool) -> list[str]:
    """A loop stopped by its recursion limit: LangGraph streams the last saved
    checkpoint (with the step it would run next) before raising."""
    import asyncio

    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"out": ["a"]})
    graph.add_edge(lib.START, "a").add_edge("a", "a")
    seen: dict[str, str] = {}
    lines: list[str] = []
    with SAVERS["memory"](lib.name) as saver:
        app = graph.compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "t"}, "recursion_limit": 3}
        stream = app.astream if use_async else app.stream
        chunks = stream({"out": []}, config, stream_mode=modes, durability=durability)

        async def drain() -> None:
            async for chunk in chunks:  # type: ignore[union-attr]
                lines.append(canonical(chunk))

        try:
            if use_async:
                asyncio.run(drain())
            else:
                lines.extend(canonical(chunk) for chunk in chunks)
        except lib.errors.GraphRecursionError:
            lines.append("raised GraphRecursionError")
    text = "\n".join(lines)
    text = re.sub(r"'timestamp': '[^']*'", "'timestamp': ...", text)
    return UUID.sub(lambda m: seen.setdefault(m.group(0), f"id{len(seen)}"), text).splitlines()


@pytest.mark.parametrize(
    ("modes", "durability", "use_async"),
    [
        (["checkpoints", "values"], "sync", False),
        (["checkpoints", "values"], "async", True),
        (["debug"], "sync", False),
        (["checkpoints", "updates"], "exit", False),
    ],
)
def test_the_last_checkpoint_is_streamed_before_the_recursion_error(modes, durability, use_async):
    expected = _over_the_limit(load_langgraph(), modes, durability, use_async)
    assert expected[-1] == "raised GraphRecursionError"
    assert _over_the_limit(load_graphkit(), modes, durability, use_async) == expected


def _interrupt(lib: Lib) -> Any:
    module = "graphkit.types" if lib.name == "graphkit" else "langgraph.types"
    return __import__(module, fromlist=["interrupt"]).interrupt


def _run_configs(lib: Lib, with_subgraph: bool) -> list[str]:
    """The configs of every "checkpoints" payload, as printed (key order too), of a run
    given its own ``configurable`` keys, then of its resume and of a run after an edit."""
    interrupt = _interrupt(lib)

    def ask(state: State) -> dict[str, list]:
        return {"out": [interrupt("go on?")]}

    child = lib.StateGraph(State).add_node("inner", ask).add_edge(lib.START, "inner")
    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"out": ["a"]})
    graph.add_node("b", child.compile() if with_subgraph else ask)
    graph.add_edge(lib.START, "a").add_edge("a", "b")
    seen: dict[str, str] = {}
    lines: list[str] = []
    with SAVERS["memory"](lib.name) as saver:
        app = graph.compile(checkpointer=saver)
        runs = [
            ({"out": []}, {"thread_id": "t", "user_id": "ada", "limits": {"n": 3}}),
            (lib.Command(resume="yes"), {"thread_id": "t", "session": 7}),
            (None, {"thread_id": "t", "user_id": "bob"}),
            ({"out": []}, {"thread_id": "t", "user_id": "eve"}),  # under durability="exit"
        ]
        for number, (given, configurable) in enumerate(runs):
            if number == 2:  # a run after an edit starts from the edit's checkpoint
                app.update_state({"configurable": {"thread_id": "t"}}, {"out": ["edit"]}, "a")
            config = {"configurable": configurable}
            durability = "exit" if number == 3 else None
            chunks = app.stream(
                given, config, stream_mode="checkpoints", subgraphs=True, durability=durability
            )
            for chunk in chunks:
                namespace, payload = chunk
                lines.append(f"{namespace} {payload['config']} {payload['parent_config']}")
    text = UUID.sub(lambda m: seen.setdefault(m.group(0), f"id{len(seen)}"), "\n".join(lines))
    return re.sub(r"\('b:id\d+',\)", "('b:…',)", text).splitlines()


@pytest.mark.parametrize("with_subgraph", [False, True])
def test_payload_configs_keep_the_runs_configurable_keys(with_subgraph):
    """LangGraph streams a checkpoint's config as the run's config naming it: the run's
    own ``configurable`` keys (a ``user_id``) stay, ``checkpoint_ns`` first. The
    checkpoint a resume starts from names its parent as it was saved, and so does every
    checkpoint of a run under ``durability="exit"`` (its parent is the one it loaded)."""
    expected = _run_configs(load_langgraph(), with_subgraph)
    assert any("'user_id': 'ada'" in line for line in expected)
    assert _run_configs(load_graphkit(), with_subgraph) == expected
