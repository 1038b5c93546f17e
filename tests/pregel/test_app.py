"""CompiledGraph: invoke / stream / trace on top of the stepper."""

from __future__ import annotations

import operator
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, TypedDict

import pytest

from graphkit import END, START, StateGraph


class State(TypedDict):
    log: Annotated[list, operator.add]
    x: int


class Output(TypedDict):
    x: int


def appender(name):
    def node(state):
        return {"log": [name], "x": len(state["log"])} if name == "last" else {"log": [name]}

    return node


def diamond(**graph_options):
    builder = StateGraph(State, **graph_options)
    for name in ("left", "right", "last"):
        builder.add_node(name, appender(name))
    builder.add_edge(START, "left").add_edge(START, "right")
    builder.add_edge(["left", "right"], "last").add_edge("last", END)
    return builder.compile()


def test_stream_defaults_to_updates_like_langgraph():
    chunks = list(diamond().stream({"log": []}))
    assert chunks[-1] == {"last": {"log": ["last"], "x": 2}}
    assert sorted(map(str, chunks[:2])) == [
        "{'left': {'log': ['left']}}",
        "{'right': {'log': ['right']}}",
    ]


def test_values_stream_shows_the_state_after_each_step_that_wrote_it():
    chunks = list(diamond().stream({"log": ["in"]}, stream_mode="values"))
    assert chunks == [
        {"log": ["in"]},
        {"log": ["in", "left", "right"]},
        {"log": ["in", "left", "right", "last"], "x": 3},
    ]


def test_a_list_of_modes_yields_mode_chunk_pairs():
    chunks = list(diamond().stream({"log": []}, stream_mode=["values", "updates"]))
    assert [mode for mode, _ in chunks] == [
        "values",
        "updates",
        "updates",
        "values",
        "updates",
        "values",
    ]


def test_invoke_returns_the_last_values_chunk_filtered_by_output_schema():
    assert diamond(output_schema=Output).invoke({"log": []}) == {"x": 2}
    assert diamond().invoke({"log": []}) == {"log": ["left", "right", "last"], "x": 2}


def test_invoke_with_another_mode_returns_the_list_of_chunks():
    chunks = diamond().invoke({"log": []}, stream_mode="updates")
    assert len(chunks) == 3 and chunks[-1] == {"last": {"log": ["last"], "x": 2}}


def test_node_returning_none_streams_a_none_update_and_no_values():
    builder = StateGraph(State).add_node("quiet", lambda s: None).add_edge(START, "quiet")
    chunks = list(builder.compile().stream({"x": 1}, stream_mode=["updates", "values"]))
    assert chunks == [("values", {"log": [], "x": 1}), ("updates", {"quiet": None})]


def test_parallel_tasks_all_run_on_worker_threads_as_in_langgraph():
    seen = []

    def record(name):
        def node(state):
            seen.append(threading.current_thread().name)
            return {"log": [name]}

        return node

    builder = StateGraph(State)
    for name in "abc":
        builder.add_node(name, record(name)).add_edge(START, name)
    run = builder.compile().trace({"log": []})
    workers = [r.worker for r in run.step(1).execution.results]
    assert threading.current_thread().name not in workers
    assert all(w.startswith("graphkit") for w in workers)


def test_a_custom_executor_runs_the_tasks():
    builder = StateGraph(State)
    for name in "ab":
        builder.add_node(name, appender(name)).add_edge(START, name)
    with ThreadPoolExecutor(2, thread_name_prefix="mine") as pool:
        run = builder.compile().stepper({"log": []}, executor=pool).run()
    assert run.values["log"] == ["a", "b"]
    assert run.step(1).execution.results[1].worker.startswith("mine")


def test_config_reaches_nodes_that_ask_for_it_with_langgraph_metadata():
    def node(state, config):
        meta = config["metadata"]
        return {
            "x": config["configurable"]["factor"],
            "log": [meta["langgraph_node"], meta["langgraph_step"], meta["tag"]],
        }

    builder = StateGraph(State).add_node("node", node, metadata={"tag": "t"})
    builder.add_edge(START, "node")
    result = builder.compile().invoke({"log": []}, {"configurable": {"factor": 7}})
    assert result == {"x": 7, "log": ["node", 1, "t"]}


def test_objects_with_invoke_are_nodes():
    class Doubler:
        def invoke(self, state, config=None):
            return {"x": state["x"] * 2 + (config is not None)}

    builder = StateGraph(State).add_node("double", Doubler()).add_edge(START, "double")
    assert builder.compile().invoke({"x": 5})["x"] == 11


def test_unknown_stream_mode_lists_the_supported_ones():
    with pytest.raises(ValueError, match=r"Unknown stream_mode 'valuez'.*'updates', 'debug'"):
        list(diamond().stream({"log": []}, stream_mode="valuez"))


def test_checkpoint_during_is_langgraphs_old_name_for_durability():
    from graphkit.checkpoint import InMemorySaver
    from graphkit.errors import LangGraphDeprecatedSinceV10

    def saved(**options):
        saver = InMemorySaver()
        app = diamond().builder.compile(checkpointer=saver)
        with pytest.warns(LangGraphDeprecatedSinceV10, match="durability"):
            app.invoke({"log": []}, {"configurable": {"thread_id": "t"}}, **options)
        return len(list(saver.list(None)))

    assert saved(checkpoint_during=False) == 1  # durability="exit": the last one only
    assert saved(checkpoint_during=True) > 1
    with pytest.raises(ValueError, match="not both"), pytest.warns(LangGraphDeprecatedSinceV10):
        diamond().invoke({"log": []}, checkpoint_during=True, durability="sync")


def test_async_node_under_invoke_says_to_use_ainvoke():
    async def slow(state):
        return {}

    builder = StateGraph(State).add_node("slow", slow).add_edge(START, "slow")
    with pytest.raises(TypeError, match=r"Node 'slow' is an async function.*app.ainvoke"):
        builder.compile().invoke({"x": 1})


def test_trace_attaches_the_partial_run_to_an_error():
    def boom(state):
        raise ValueError("bad input")

    builder = StateGraph(State).add_node("boom", boom).add_edge(START, "boom")
    with pytest.raises(ValueError, match="bad input") as error:
        builder.compile().trace({"x": 1})
    run = error.value.run
    assert run.status == "error" and run.steps[-1].plan.nodes == ["boom"]


def test_trace_raises_a_failed_save_once_the_run_is_over():
    """A save the run went on past (a task's writes here) is raised at the end, as
    ``invoke`` raises it, with the whole run attached; it was returned silently."""
    from graphkit import InMemorySaver

    class FailingWrites(InMemorySaver):
        def put_writes(self, config, writes, task_id, task_path=""):
            if ("log", ["left"]) in writes:
                raise OSError("disk full")
            return super().put_writes(config, writes, task_id, task_path)

    builder = StateGraph(State)
    for name in ("left", "last"):
        builder.add_node(name, appender(name))
    builder.add_edge(START, "left").add_edge("left", "last")
    app = builder.compile(checkpointer=FailingWrites())
    with pytest.raises(OSError, match="disk full") as error:
        app.trace({"log": []}, {"configurable": {"thread_id": "t"}})
    run = error.value.run
    assert run.status == "done" and run.values["log"] == ["left", "last"]


def test_repr_names_the_graph_its_nodes_and_its_saver():
    # Python's default repr (LangGraph's compiled graph keeps it) says only the address.
    from graphkit import InMemorySaver

    builder = StateGraph(State)
    builder.add_node("left", appender("left")).add_edge(START, "left")
    assert repr(builder.compile()) == "CompiledGraph(name='LangGraph', nodes=['left'], saver=None)"
    saved = builder.compile(checkpointer=InMemorySaver(), name="agent")
    assert repr(saved) == "CompiledGraph(name='agent', nodes=['left'], saver=InMemorySaver)"
    assert repr(builder.compile(checkpointer=True)).endswith("saver=True)")
