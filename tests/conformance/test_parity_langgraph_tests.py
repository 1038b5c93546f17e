"""Behaviours LangGraph's own unit tests assert, run on both libraries: a differential hunt
through its test suite (``test_pregel.py``, ``test_state.py``...) found each of these
different on graphkit. Each program is written for this file; none is LangGraph's code."""

import dataclasses
import operator
import threading
import time
import warnings
from typing import Annotated, Any, Literal, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS, _interrupt

LIBS = [load_langgraph, load_graphkit]


class Text(TypedDict):
    text: Annotated[str, operator.add]


def _drawn_edges(lib: Lib) -> list[tuple[str, str, bool, Any]]:
    def command_node(state: Text) -> lib.Command[Literal["b"]]:
        return lib.Command(goto="b", update={"text": "a"})

    def route(state: Text) -> Literal["yes", "no"]:
        return "yes"

    builder = lib.StateGraph(Text)
    builder.add_node("a", command_node).add_node("b", lambda state: {"text": "b"})
    builder.add_node("c", lambda state: {"text": "c"})
    builder.add_edge(lib.START, "a")
    builder.add_conditional_edges("b", route, {"yes": "c", "no": lib.END})
    edges = builder.compile().get_graph().edges
    return sorted((e.source, e.target, e.conditional, e.data) for e in edges)


def _labelled_destinations(lib: Lib) -> list[tuple[str, str, bool, Any]]:
    def hop(state: Text) -> Any:
        return lib.Command(goto="b", update={"text": "a"})

    builder = lib.StateGraph(Text).add_edge(lib.START, "a")
    builder.add_node("a", hop, destinations={"b": "onward", "c": "aside"})
    builder.add_node("b", lambda state: {"text": "b"}).add_node("c", lambda state: {})
    edges = builder.compile().get_graph().edges
    return sorted((e.source, e.target, e.conditional, e.data) for e in edges)


def test_a_labelled_destinations_edge_has_its_label_as_data():
    """``add_node(..., destinations={"b": "onward"})``: the drawn edge's ``data`` is the
    label, as in LangGraph (a tuple of destinations gives None)."""
    langgraph, graphkit = (_labelled_destinations(loader()) for loader in LIBS)
    assert graphkit == langgraph
    assert ("a", "b", True, "onward") in graphkit


def test_a_drawn_edge_has_langgraphs_data_field():
    """``get_graph().edges`` items have ``data``: the path_map key that takes a
    conditional edge, None for a plain edge and a ``Command`` destination."""
    langgraph, graphkit = (_drawn_edges(loader()) for loader in LIBS)
    assert graphkit == langgraph
    assert ("b", "c", True, "yes") in graphkit and ("a", "b", True, None) in graphkit


def _labelled_command_edges(lib: Lib) -> list[tuple[str, str, bool, Any]]:
    builder = lib.StateGraph(Text)
    labels = {"b": "go on", lib.END: "stop"}
    builder.add_node("a", lambda state: lib.Command(goto="b"), destinations=labels)
    builder.add_node("b", lambda state: {"text": "b"}).add_edge(lib.START, "a")
    edges = builder.compile().get_graph().edges
    return sorted((e.source, e.target, e.conditional, e.data) for e in edges)


def test_a_command_destinations_label_is_its_drawn_edges_data():
    """``destinations={"b": "go on"}`` labels the edge, and LangGraph's data is that label."""
    langgraph, graphkit = (_labelled_command_edges(loader()) for loader in LIBS)
    assert graphkit == langgraph
    assert ("a", "b", True, "go on") in graphkit


def _runs_a_graph_per_item(lib: Lib) -> Any:
    if lib.name == "langgraph":
        from langgraph.channels import LastValue, Topic
        from langgraph.pregel import NodeBuilder, Pregel
    else:
        from graphkit.channels import LastValue, Topic
        from graphkit.pregel import NodeBuilder, Pregel

    inner = Pregel(
        nodes={"one": NodeBuilder().subscribe_only("input").do(lambda x: x + 1).write_to("output")},
        channels={"input": LastValue(int), "output": LastValue(int)},
        input_channels="input",
        output_channels="output",
    )
    spread = NodeBuilder().subscribe_only("input").do(lambda xs: [x + 10 for x in xs])
    nodes = {
        "spread": spread.write_to("inbox"),
        "each": NodeBuilder().subscribe_only("inbox").do(inner.map()).write_to("outbox"),
        "total": NodeBuilder().subscribe_only("outbox").do(sum).write_to("output"),
    }
    channels = {"inbox": Topic(int), "outbox": LastValue(list), "input": LastValue(list)}
    outer = Pregel(
        nodes=nodes,
        channels={**channels, "output": LastValue(int)},
        input_channels="input",
        output_channels="output",
    )
    return outer.invoke([2, 3])


def test_a_graphs_map_runs_as_a_low_level_nodes_step():
    """``graph.map()`` (LangChain's ``RunnableEach``) given to ``NodeBuilder().do(...)``
    runs the graph once per item of a list, as in LangGraph."""
    assert [_runs_a_graph_per_item(loader()) for loader in LIBS] == [27, 27]


def _subgraph_chunks_beside_a_waiting_sibling(lib: Lib) -> tuple[list[bool], list[Any]]:
    """The sibling task waits until the subgraph's first chunk has reached the caller: it
    only can if that chunk is streamed while the sibling still runs (no clock read)."""

    class Inner(TypedDict):
        text: Annotated[str, operator.add]

    early_seen, waited = threading.Event(), []

    def slow_inner(state: Inner) -> dict[str, str]:
        time.sleep(0.6)  # (ends after the sibling: the chunks' order is fixed)
        return {"text": " late"}

    def waiting_sibling(state: Text) -> dict[str, str]:
        waited.append(early_seen.wait(timeout=10))
        return {"text": " sibling"}

    child = lib.StateGraph(Inner).add_node("first", lambda state: {"text": "early"})
    child.add_node("second", slow_inner).add_edge(lib.START, "first").add_edge("first", "second")
    builder = lib.StateGraph(Text).add_node("child", child.compile())
    builder.add_node("sibling", waiting_sibling)
    builder.add_edge(lib.START, "child").add_edge(lib.START, "sibling")
    seen = []
    for namespace, chunk in builder.compile().stream({"text": ""}, subgraphs=True):
        if chunk == {"first": {"text": "early"}}:
            early_seen.set()
        seen.append((tuple(part.split(":")[0] for part in namespace), chunk))
    return waited, seen


def test_a_subgraphs_chunks_stream_while_a_sibling_task_still_runs():
    """With ``subgraphs=True`` a subgraph's chunk is streamed as its step ends, not
    when another task of the parent's step finishes."""
    langgraph, graphkit = (_subgraph_chunks_beside_a_waiting_sibling(load()) for load in LIBS)
    assert graphkit[0] == langgraph[0] == [True]
    assert graphkit[1][0] == (("child",), {"first": {"text": "early"}})
    assert graphkit[1] == langgraph[1]


@pytest.mark.parametrize("state", ["single value", "dict"])
def test_two_commands_of_one_node_stream_as_langgraphs_updates(state):
    """A node returning two ``Command``s streams a list of its updates; in a single-value
    state (``StateGraph(Annotated[str, operator.add])``) each is the value itself."""

    def run(lib: Lib) -> list[Any]:
        wrap = (lambda value: value) if state == "single value" else (lambda v: {"text": v})
        schema = Annotated[str, operator.add] if state == "single value" else Text

        def twice(value: Any) -> list[Any]:
            return [lib.Command(update=wrap("a1")), lib.Command(update=wrap("a2"))]

        builder = lib.StateGraph(schema).add_node("twice", twice).add_edge(lib.START, "twice")
        return list(builder.compile().stream(wrap(""), stream_mode="updates"))

    langgraph, graphkit = (run(loader()) for loader in LIBS)
    assert graphkit == langgraph


def _dataclass_schemas(lib: Lib) -> list[dict[str, Any]]:
    if lib.name == "langgraph":
        from langgraph.managed import RemainingSteps
    else:
        from graphkit.managed import RemainingSteps

    @dataclasses.dataclass
    class Form:
        name: str
        age: int | None
        note: Annotated[float | None, "a label"]
        tags: Annotated[list[str], operator.add]
        anything: Any
        steps_left: RemainingSteps = 0
        size: int = 3
        seen: list[int] = dataclasses.field(default_factory=lambda: [1])

    builder = lib.StateGraph(Form).add_node("n", lambda state: {}).add_edge(lib.START, "n")
    app = builder.compile(name="Survey")
    return [app.get_input_jsonschema(), app.get_output_jsonschema()]


def test_a_dataclass_states_json_schema_is_langgraphs():
    """A dataclass state's JSON schema is titled by the graph (``SurveyInput``), its
    optional fields default to None and a factory's value is shown as the default."""
    langgraph, graphkit = (_dataclass_schemas(loader()) for loader in LIBS)
    assert graphkit == langgraph
    assert graphkit[0]["required"] == ["name", "tags", "anything"]


def _injected_arguments_given_by_the_caller(lib: Lib) -> list[Any]:
    if lib.name == "langgraph":
        from langgraph.func import entrypoint, task
        from langgraph.store.base import BaseStore
        from langgraph.store.memory import InMemoryStore
        from langgraph.types import StreamWriter
    else:
        from graphkit.func import entrypoint, task
        from graphkit.store.base import BaseStore
        from graphkit.store.memory import InMemoryStore
        from graphkit.types import StreamWriter

    @task
    def echo(store: BaseStore, writer: StreamWriter, value: Any) -> list[Any]:
        return [store, writer, value]

    @entrypoint(store=InMemoryStore())
    def main(inputs: Any) -> list[Any]:
        return [echo(store=None, writer=None, value=1).result(), echo(writer="w", value=2).result()]

    first, second = main.invoke({})
    return [first, second[1:], type(second[0]).__name__]


def test_a_tasks_injected_parameter_given_by_its_caller_takes_the_callers_value():
    """``task(store=None, writer=...)``: an argument the caller passes for a parameter the
    runtime would fill (``store``, ``writer``, ``config``...) is the caller's, not the run's."""
    langgraph, graphkit = (_injected_arguments_given_by_the_caller(loader()) for loader in LIBS)
    assert graphkit == langgraph == [[None, None, 1], ["w", 2], "InMemoryStore"]


class Visit(TypedDict):
    text: str
    rounds: int


def _reentered_subgraph(lib: Lib, saver: Any) -> list[Any]:
    class Inner(TypedDict):
        text: str
        answer: str

    seen: list[Any] = []
    interrupt = _interrupt(lib.name)

    def greet(state: Inner) -> dict[str, str]:
        seen.append(("greet", state.get("answer")))
        return {"text": "greeted"}

    def ask(state: Inner) -> dict[str, str]:
        return {"text": "asked", "answer": interrupt("value?")}

    inner = lib.StateGraph(Inner).add_node("greet", greet).add_node("ask", ask)
    inner = inner.add_edge(lib.START, "greet").add_edge("greet", "ask").compile(checkpointer=True)

    def call_inner(state: Visit) -> dict[str, Any]:
        return {"text": inner.invoke({"text": state["text"]})["text"]}

    def again(state: Visit) -> Any:
        if state["rounds"] < 1:
            return lib.Command(goto="call_inner", update={"rounds": state["rounds"] + 1})
        return {"text": state["text"] + "|done"}

    builder = lib.StateGraph(Visit).add_node("call_inner", call_inner).add_node("again", again)
    app = builder.add_edge(lib.START, "call_inner").add_edge("call_inner", "again")
    app = app.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "1"}}
    outputs = [app.invoke({"text": "", "rounds": 0}, config)]
    outputs += [app.invoke(lib.Command(resume=answer), config) for answer in ("a", "b")]
    return [[{k: v for k, v in out.items() if k != "__interrupt__"} for out in outputs], seen]


def _reentered_with(lib: Lib, saver: str) -> list[Any]:
    with SAVERS[saver](lib.name) as checkpointer:
        return _reentered_subgraph(lib, checkpointer)


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_a_subgraph_started_after_the_resumed_step_runs_its_input(saver):
    """A ``checkpointer=True`` subgraph a later step of a resumed run calls again starts a
    new run on its thread (its first node runs, it pauses again); only the subgraph the
    resumed step runs resumes where it paused."""
    langgraph, graphkit = (_reentered_with(loader(), saver) for loader in LIBS)
    assert graphkit == langgraph
    assert graphkit[1] == [("greet", None), ("greet", "a")]


def _paused_beside_a_writer(lib: Lib) -> list[Any]:
    interrupt = _interrupt(lib.name)

    def ask(state: list) -> list:
        return [interrupt("value?")]

    def write(state: list) -> list:
        time.sleep(0.05)  # done after "ask" paused the step: its writes come in a last chunk
        return ["written"]

    builder = lib.StateGraph(Annotated[list, operator.add]).add_node("ask", ask)
    builder.add_node("write", write).add_edge(lib.START, "ask").add_edge(lib.START, "write")
    with SAVERS["memory"](lib.name) as saver:
        app = builder.compile(checkpointer=saver)
        out = app.invoke(["start"], {"configurable": {"thread_id": "1"}})
    return [sorted(out), [i.value for i in out["__interrupt__"]]]


def test_a_paused_non_dict_states_invoke_returns_only_its_interrupts():
    """A run of a non-dict state (a list) that pauses returns ``{"__interrupt__": [...]}``,
    even when a task of the paused step wrote after the pause and a last values chunk
    showed the state with its writes: the values cannot carry the interrupts."""
    langgraph, graphkit = (_paused_beside_a_writer(loader()) for loader in LIBS)
    assert graphkit == langgraph == [["__interrupt__"], ["value?"]]


def _unreached_nodes_edges(lib: Lib) -> list[tuple[str, str, bool, Any]]:
    def fan_out(state: Text) -> Any:  # no Command[Literal[...]] annotation: no drawn way out
        return lib.Command(goto=[lib.Send("each", {"text": "x"})])

    builder = lib.StateGraph(Text).add_node("fan_out", fan_out).add_edge(lib.START, "fan_out")
    builder.add_node("each", lambda state: {"text": "each"})  # reached by a Send alone
    builder.add_node("lone", lambda state: {}).add_edge("lone", "each")  # reached by nothing
    with warnings.catch_warnings():  # (graphkit warns that nothing leads to them)
        warnings.simplefilter("ignore")
        edges = builder.compile().get_graph().edges
    return sorted((e.source, e.target, e.conditional, e.data) for e in edges)


def test_a_node_no_drawn_edge_reaches_has_no_drawn_edges():
    """A node that no drawn edge leads to from START (one a ``Send`` or an unannotated
    ``Command`` reaches, one nothing reaches) is drawn without edges, as in LangGraph,
    whose drawing follows the graph from START: no edge to END, none to its targets."""
    langgraph, graphkit = (_unreached_nodes_edges(loader()) for loader in LIBS)
    assert graphkit == langgraph
