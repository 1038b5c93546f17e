"""Writes survive a resume (issue 14, item 1): a subgraph that is interrupted while a sibling
branch runs in parallel keeps its own writes and its sibling's once it is resumed with
`Command(resume=...)`, as on LangGraph.

The parent's START fans out to the subgraph (first node writes "got here", second asks with
`interrupt()` and then writes " and back again") and to a sibling writing " and parallel",
all into the same reducer keys (a concatenated str and a list). The subgraph is either a node
of the parent or invoked inside a node function; each shape runs on both savers, and on the
async path with the in-memory saver. What the first call returns (its interrupts known by
value), the state after each call and the resumed result must equal LangGraph's.
"""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS, _interrupt


class State(TypedDict):
    text: Annotated[str, operator.add]
    log: Annotated[list, operator.add]


def _graph(lib: Lib, shape: str, saver):
    """The parent graph: START -> [sub, sib], with `sub` a subgraph node ("node") or a node
    calling it ("call"); or ("inside") START -> sub, the sibling running inside the subgraph
    in parallel with the node that asks (the graph whose answer the issue quotes)."""
    interrupt = _interrupt(lib.name)

    def first(state):
        return {"text": "got here", "log": ["first"]}

    def ask(state):
        answer = interrupt("continue?")
        return {"text": " and back again", "log": [f"resumed with {answer}"]}

    def sibling(state):
        return {"text": " and parallel", "log": ["sibling"]}

    inner = lib.StateGraph(State)
    inner.add_node("first", first)
    inner.add_node("ask", ask)
    inner.add_edge(lib.START, "first")
    inner.add_edge("first", "ask")
    if shape == "inside":
        inner.add_node("sib", sibling)
        inner.add_edge("first", "sib")
    sub = inner.compile()

    def call_sub(state):
        return sub.invoke({"text": "", "log": []})

    graph = lib.StateGraph(State)
    graph.add_node("sub", sub if shape == "node" else call_sub)
    graph.add_edge(lib.START, "sub")
    if shape != "inside":
        graph.add_node("sib", sibling)
        graph.add_edge(lib.START, "sib")
    return graph.compile(checkpointer=saver)


def _shown(result: Any) -> Any:
    """A result with its interrupts known by their values and container type (ids differ)."""
    if isinstance(result, dict) and "__interrupt__" in result:
        found = result["__interrupt__"]
        shown = [item.value for item in found]
        return {**result, "__interrupt__": (type(found).__name__, shown)}
    return result


def _snapshot(app, config) -> dict:
    state = app.get_state(config)
    return {"values": state.values, "next": tuple(state.next)}


def _observe(lib: Lib, shape: str, saver_kind: str, mode: str) -> dict:
    config = {"configurable": {"thread_id": "t"}}
    resume = lib.Command(resume="yes")
    seen: dict = {}
    with SAVERS[saver_kind](lib.name) as saver:
        app = _graph(lib, shape, saver)
        for label, payload in (("first", {"text": "", "log": []}), ("resumed", resume)):
            if mode == "async":
                result = asyncio.run(app.ainvoke(payload, config))
            else:
                result = app.invoke(payload, config)
            seen[label] = _shown(result)
            seen[f"state after {label}"] = _snapshot(app, config)
    return seen


VARIANTS = [
    pytest.param(shape, saver, mode, id=f"{shape}-{saver}-{mode}")
    for shape in ("node", "call", "inside")
    for saver, mode in (("memory", "sync"), ("sqlite", "sync"), ("memory", "async"))
]


@pytest.mark.parametrize(("shape", "saver", "mode"), VARIANTS)
def test_resume_keeps_subgraph_and_sibling_writes(shape: str, saver: str, mode: str) -> None:
    expected = _observe(load_langgraph(), shape, saver, mode)
    got = _observe(load_graphkit(), shape, saver, mode)
    assert got == expected
    # what the issue is about: after the resume all three writes and the answer are there
    final = got["resumed"]
    for part in ("got here", " and parallel", " and back again"):
        assert part in final["text"]
    assert "resumed with yes" in final["log"]


@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_the_resumed_checkpoint_lists_what_each_task_saved(saver):
    """On resume, the checkpoint the run starts from is streamed again; LangGraph lists
    its tasks with what they saved: the paused one's interrupt, the finished one's
    result (and a failed one's error)."""

    def payload_tasks(lib: Lib) -> list:
        interrupt = _interrupt(lib.name)
        graph = lib.StateGraph(State)
        graph.add_node("ask", lambda state: {"log": [interrupt("continue?")]})
        graph.add_node("done", lambda state: {"log": ["done"], "text": "t"})
        graph.add_edge(lib.START, "ask").add_edge(lib.START, "done")
        seen = []
        with SAVERS[saver](lib.name) as checkpointer:
            app = graph.compile(checkpointer=checkpointer)
            config = {"configurable": {"thread_id": "p"}}
            app.invoke({"text": "", "log": []}, config)
            for chunk in app.stream(lib.Command(resume="yes"), config, stream_mode="checkpoints"):
                tasks = [
                    {key: ([i["value"] for i in v] if key == "interrupts" else v)
                     for key, v in task.items() if key != "id"}
                    for task in chunk["tasks"]
                ]  # fmt: skip
                seen.append((chunk["metadata"]["step"], tasks))
        return seen

    ours = payload_tasks(load_graphkit())
    assert ours == payload_tasks(load_langgraph())
    assert ours[0][1] == [
        {"name": "ask", "interrupts": ["continue?"], "state": None},
        {"name": "done", "result": {"log": ["done"], "text": "t"}, "interrupts": [], "state": None},
    ]
