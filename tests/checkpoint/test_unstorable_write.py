"""A write the saver cannot store names the node and step that made it, and a coroutine
(an async function called without ``await``) is told as the missing await, not as a
class to make a dataclass (agentdebug2: an async fact-check node forgot ``await`` and
the error named only a task id and said to make ``coroutine`` a dataclass)."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest

from graphkit import END, START, InMemorySaver, SqliteSaver, StateGraph, interrupt
from graphkit.checkpoint.serde import JsonPlusSerializer


class State(TypedDict):
    text: str
    verified: Any


async def check(text: str) -> bool:
    return "owl" in text


def forgetful_graph(saver, run):
    async def fact_check(state: State):
        return {"verified": check(state["text"])}  # forgot: await

    def plain_fact_check(state: State):  # (a sync run needs a sync node)
        return {"verified": check(state["text"])}

    builder = StateGraph(State)
    builder.add_node("fact_check", fact_check if run == "ainvoke" else plain_fact_check)
    builder.add_edge(START, "fact_check")
    builder.add_edge("fact_check", END)
    return builder.compile(checkpointer=saver)


@pytest.fixture(params=["memory", "sqlite"])
def saver(request):
    if request.param == "memory":
        yield InMemorySaver()
    else:
        with SqliteSaver.from_conn_string(":memory:") as saver:
            yield saver


@pytest.mark.filterwarnings("ignore:coroutine 'check' was never awaited")
@pytest.mark.parametrize("run", ["invoke", "ainvoke"])
def test_a_coroutine_written_by_a_node_names_the_node_and_the_missing_await(saver, run):
    app = forgetful_graph(saver, run)
    config = {"configurable": {"thread_id": "t"}}
    with pytest.raises(TypeError) as caught:
        if run == "invoke":
            app.invoke({"text": "owls"}, config)
        else:
            asyncio.run(app.ainvoke({"text": "owls"}, config))
    message = str(caught.value)
    assert message.startswith("Node 'fact_check' at step 1: saving its writes failed.")
    assert "channel 'verified'" in message
    assert "add the missing await" in message


@pytest.mark.filterwarnings("ignore:coroutine 'check' was never awaited")
def test_the_serializer_says_a_coroutine_wants_an_await():
    with pytest.raises(TypeError, match=r"'coroutine': a node or task wrote an awaitable"):
        JsonPlusSerializer().dumps_typed(check("owls"))


class Opaque:
    """A value the default serializer refuses."""


def _opaque_graph(saver, **compile_options):
    def fact_check(state: State):
        return {"verified": Opaque()}

    def ask(state: State):
        return {"text": interrupt("which text?")}

    builder = StateGraph(State).add_node("fact_check", fact_check).add_node("ask", ask)
    builder.add_edge(START, "fact_check").add_edge(START, "ask")
    return builder.compile(checkpointer=saver, **compile_options)


def test_under_durability_sync_the_refused_write_is_raised_not_the_checkpoint_after_it():
    # The step's checkpoint holds the same value and is refused too: raised at once, it
    # hid the write's refusal (saved first), and with it the node's name.
    app = _opaque_graph(InMemorySaver())
    with pytest.raises(TypeError, match=r"^Node 'fact_check' at step 1: saving its writes"):
        app.invoke({"text": "owls"}, {"configurable": {"thread_id": "t"}}, durability="sync")


def test_a_write_durability_exit_held_names_its_node_when_saved_at_the_end():
    # 'ask' pauses: the step's writes, held by "exit", are saved as the run stops
    app = _opaque_graph(InMemorySaver())
    with pytest.raises(TypeError, match=r"^Node 'fact_check' at step 1: saving its writes"):
        app.invoke({"text": "owls"}, {"configurable": {"thread_id": "t"}}, durability="exit")


@pytest.mark.filterwarnings("ignore:coroutine 'check' was never awaited")
def test_a_saver_failing_with_another_type_error_is_not_said_to_refuse_a_value():
    class Broken(InMemorySaver):
        def put_writes(self, config, writes, task_id, task_path=""):
            raise TypeError("unsupported operand type(s) for +: 'int' and 'str'")

    app = forgetful_graph(Broken(), "invoke")
    with pytest.raises(TypeError) as caught:
        app.invoke({"text": "owls", "verified": None}, {"configurable": {"thread_id": "t"}})
    assert str(caught.value) == (
        "Node '__start__' at step 0: saving its writes failed. "
        "unsupported operand type(s) for +: 'int' and 'str'"
    )


def test_a_task_future_returned_unread_by_a_sync_entrypoint_is_told_to_call_result(saver):
    # a sync entrypoint cannot await: the fix is .result(), which "add the missing await"
    # did not say
    from graphkit.func import entrypoint, task

    @task
    def add_one(x):
        return x + 1

    @entrypoint(checkpointer=saver)
    def main(x):
        return add_one(x)  # meant: add_one(x).result()

    with pytest.raises(TypeError) as caught:
        main.invoke(1, {"configurable": {"thread_id": "t"}})
    assert "'graphkit.pregel.calls.TaskFuture'" in str(caught.value)
    assert "call .result() on it" in str(caught.value)
    assert "or await it in async code" in str(caught.value)
