"""Errors of a run that LangGraph raises too, with the same class, where graphkit's
message (or note) says what fits: two writes to a plain key (the fix suits the graph
kind and the key's type; a node that ran twice is said to), a node reading a key
nothing gave, a reducer that returned None, and a ``recursion_limit`` of ``True``."""

from __future__ import annotations

import importlib
import warnings
from typing import Annotated, Any, Literal, TypedDict

import pytest

from graphkit.errors import GraphkitWarning

from .harness import Lib, load_graphkit, load_langgraph


class Named(TypedDict):
    name: str
    greeting: str


def _module(library: str, name: str) -> Any:
    return importlib.import_module(name.replace("langgraph", library, 1))


def _raised(run) -> tuple[BaseException, BaseException]:
    """``run(lib)``'s error on LangGraph, then on graphkit; the classes match."""
    errors = []
    for lib in (load_langgraph(), load_graphkit()):
        with pytest.raises(Exception) as raised:
            run(lib)
        errors.append(raised.value)
    assert type(errors[1]).__name__ == type(errors[0]).__name__
    return errors[0], errors[1]


def _two_writers_of_a_str_key(lib: Lib) -> Any:
    graph = lib.StateGraph(Named)
    graph.add_node("a", lambda state: {"name": "a"})
    graph.add_node("b", lambda state: {"name": "b"})
    graph.add_edge(lib.START, "a").add_edge(lib.START, "b")
    return graph.compile().invoke({"name": "x"})


def test_two_writes_to_a_str_key_suggest_a_str_reducer_in_the_state_schema():
    _, error = _raised(_two_writers_of_a_str_key)
    message = str(error)
    assert "Give it a reducer in the state schema, e.g. name: Annotated[str, operator.add]" in (
        message
    )
    assert "Pregel" not in message and "list" not in message


def _two_writers_in_a_pregel(lib: Lib) -> Any:
    pregel = _module(lib.name, "langgraph.pregel")
    channels = _module(lib.name, "langgraph.channels")
    copy = pregel.NodeBuilder().subscribe_only("a").do(lambda x: x).write_to("b")
    again = pregel.NodeBuilder().subscribe_only("a").do(lambda x: x).write_to("b")
    app = pregel.Pregel(
        nodes={"copy": copy, "again": again},
        channels={"a": channels.EphemeralValue(str), "b": channels.LastValue(str)},
        input_channels="a",
        output_channels="b",
    )
    return app.invoke("x")


def test_two_writes_in_a_low_level_pregel_suggest_channel_classes_not_a_reducer():
    _, error = _raised(_two_writers_in_a_pregel)
    message = str(error)
    assert "Make it a BinaryOperatorAggregate(str, operator.add)" in message
    assert "or a Topic(str)" in message
    assert "Annotated" not in message and "state schema" not in message
    assert "a LastValue channel keeps one value per step" in message  # (no fields there)


def _sent_and_led_to(lib: Lib) -> Any:
    def a(state):
        return lib.Command(goto=lib.Send("b", {"name": "sent"}), update={"name": "a"})

    graph = lib.StateGraph(Named)
    graph.add_node("a", a).add_node("b", lambda state: {"name": state["name"] + "!"})
    graph.add_edge(lib.START, "a").add_edge("a", "b")
    return graph.compile().invoke({"name": "x"})


def test_a_node_an_edge_and_a_send_both_ran_is_said_to_have_run_twice():
    _, error = _raised(_sent_and_led_to)
    assert str(error).startswith(
        "Step 2: 'b' wrote 'name'; 'b' ran 2 times in this step (once because an edge or "
        "a Command(goto='b') led to it, once for a Send, from a Command(goto=Send(...)) or "
        "a router): lead it there one way only. "
    )


def _reads_greeting(lib: Lib) -> Any:
    graph = lib.StateGraph(Named)
    graph.add_node("hello", lambda state: {"name": state["greeting"] + "!"})
    graph.add_edge(lib.START, "hello")
    return graph.compile().invoke({"name": "x"})


def _reads_its_own_dict(lib: Lib) -> Any:
    graph = lib.StateGraph(Named)
    graph.add_node("hello", lambda state: {"name": {"name": "ada"}["greeting"]})
    graph.add_edge(lib.START, "hello")
    return graph.compile().invoke({"name": "x", "greeting": "hi"})


def test_reading_a_key_nothing_gave_keeps_the_key_error_and_adds_a_note():
    expected, error = _raised(_reads_greeting)
    assert error.args == expected.args == ("greeting",)
    assert error.__notes__[-1] == (
        "Node 'hello' (step 1) read state['greeting'], which has no value yet: neither the "
        "input nor a node put it in the state. Give it in the input, as a key of the input "
        "schema (app.invoke({..., 'greeting': ...})), have a node that runs earlier write "
        "it, or read it with state.get('greeting')."
    )


class Asked(TypedDict):
    question: str


class Answered(Asked):
    answer: str


def _reads_a_key_the_input_schema_lacks(lib: Lib) -> Any:
    graph = lib.StateGraph(Answered, input_schema=Asked)
    graph.add_node("hello", lambda state: {"answer": state["answer"] + "!"})
    graph.add_edge(lib.START, "hello")
    return graph.compile().invoke({"question": "q", "answer": "given"})


def test_the_note_on_a_key_the_input_gave_in_vain_asks_for_it_in_the_input_schema():
    """The input gave `answer`, but the input schema lacks it, so step 0 dropped it: the
    note told the user to give it in the input, which they had done."""
    with warnings.catch_warnings():  # (graphkit warns of the key step 0 drops)
        warnings.simplefilter("ignore", GraphkitWarning)
        expected, error = _raised(_reads_a_key_the_input_schema_lacks)
    assert error.args == expected.args == ("answer",)
    note = error.__notes__[-1]
    assert "Give it in the input, as a key of the input schema (app.invoke(" in note


def _reads_an_ephemeral_key_a_step_late(lib: Lib) -> Any:
    channels = _module(lib.name, "langgraph.channels")
    flash = Annotated[str, channels.EphemeralValue]
    flashed = TypedDict("Flashed", {"name": str, "flash": flash})  # noqa: UP013
    graph = lib.StateGraph(flashed)
    graph.add_node("write", lambda state: {"flash": "hi"})
    graph.add_node("wait", lambda state: {"name": "w"})
    graph.add_node("read", lambda state: {"name": state["flash"]})
    graph.add_edge(lib.START, "write").add_edge("write", "wait").add_edge("wait", "read")
    return graph.compile().invoke({"name": "x"})


def test_the_note_on_an_ephemeral_key_read_late_says_it_was_written():
    """write put `flash` in the state in step 1; by step 3 its EphemeralValue channel had
    let it go. The note said neither the input nor a node had put it there."""
    expected, error = _raised(_reads_an_ephemeral_key_a_step_late)
    assert error.args == expected.args == ("flash",)
    assert error.__notes__[-1] == (
        "Node 'read' (step 3) read state['flash'], which has no value in this step: a write "
        "put it in the state before, but its channel, an EphemeralValue, keeps a write only "
        "for the step after it. Read it in that step, or with state.get('flash')."
    )


def test_a_key_error_of_the_nodes_own_dict_gets_no_such_note():
    _, error = _raised(_reads_its_own_dict)  # 'greeting' is a state key, with a value
    assert not any("has no value yet" in note for note in error.__notes__)


def _own_key_error(lib: Lib, node: Any) -> Any:
    graph = lib.StateGraph(Named)  # 'greeting' is a state key nothing gave
    graph.add_node("hello", node)
    graph.add_edge(lib.START, "hello")
    return graph.compile().invoke({"name": "x"})


def _raise_it(key: str) -> Any:
    raise KeyError(key)


OWN_KEY_ERRORS = {
    "another dict": lambda state: {"name": {}["greeting"]},
    "a dict in the state": lambda state: {"name": state["name"] and {}["greeting"]},
    "raised on purpose": lambda state: _raise_it("greeting"),
    "a copy of the state": lambda state: {"name": dict(state)["greeting"]},
}


@pytest.mark.parametrize("node", OWN_KEY_ERRORS.values(), ids=OWN_KEY_ERRORS.keys())
def test_a_key_error_of_the_nodes_own_naming_an_unset_key_gets_no_such_note(node):
    _, error = _raised(lambda lib: _own_key_error(lib, node))
    assert error.args == ("greeting",)
    assert not any("has no value yet" in note for note in error.__notes__)


def test_a_subgraph_node_reading_an_unset_key_is_named_once_not_its_parent_node():
    def run(lib: Lib) -> Any:
        child = lib.StateGraph(Named).add_node("inner", lambda state: {"name": state["greeting"]})
        parent = lib.StateGraph(Named).add_node(
            "outer", child.add_edge(lib.START, "inner").compile()
        )
        return parent.add_edge(lib.START, "outer").compile().invoke({"name": "x"})

    _, error = _raised(run)
    noted = [note for note in error.__notes__ if "has no value yet" in note]
    assert len(noted) == 1 and noted[0].startswith("Node 'inner' (step 1)")


def _sent_without_a_state_key(lib: Lib) -> Any:
    """A node reached by Send reads a key of the graph's state that its packet lacks
    (langgraph#1909): its input is the packet alone."""

    def fan(state: Named) -> Any:
        return [lib.Send("hello", {"name": "ada"})]

    graph = lib.StateGraph(Named).add_node("hello", lambda state: {"name": state["greeting"]})
    graph.add_conditional_edges(lib.START, fan, ["hello"])
    return graph.compile().invoke({"name": "x", "greeting": "hi"})


def test_a_send_task_reading_a_key_its_packet_lacks_is_told_its_input_is_the_packet():
    expected, error = _raised(_sent_without_a_state_key)
    assert error.args == expected.args == ("greeting",)
    assert error.__notes__[-1] == (
        "Node 'hello' (step 1) read state['greeting'], but a Send started this task, and "
        "a Send's packet is the task's whole input, not the graph's state (the packet's "
        "keys: ['name']). Put the key in the packet, e.g. Send('hello', {..., 'greeting': "
        "state['greeting']})."
    )


def _sent_the_state_without_the_key(lib: Lib) -> Any:
    """The router sends the state itself; the key the node reads was never given, so
    it is in neither the packet nor the graph's state."""

    def fan(state: Named) -> Any:
        return [lib.Send("hello", state)]

    graph = lib.StateGraph(Named).add_node("hello", lambda state: {"name": state["greeting"]})
    graph.add_conditional_edges(lib.START, fan, ["hello"])
    return graph.compile().invoke({"name": "x"})


def test_a_send_task_reading_a_key_the_state_lacks_too_is_not_told_to_copy_it_from_there():
    """Send('hello', {..., 'greeting': state['greeting']}) would raise in the router."""
    expected, error = _raised(_sent_the_state_without_the_key)
    assert error.args == expected.args == ("greeting",)
    assert error.__notes__[-1] == (
        "Node 'hello' (step 1) read state['greeting'], but a Send started this task, and "
        "a Send's packet is the task's whole input, not the graph's state (the packet's "
        "keys: ['name']). The graph's state has no value for 'greeting' either: give it "
        "one (in the input, or from a node that runs before the Send), then put it in the "
        "packet, or read it with state.get('greeting')."
    )


def _extend(left: list, right: list) -> None:
    left.extend(right)  # returns None: the next write fails on None.extend


class Log(TypedDict):
    log: Annotated[list, _extend]


def _reducer_returns_none(lib: Lib) -> Any:
    graph = lib.StateGraph(Log)
    graph.add_node("w", lambda state: {"log": [1]})
    graph.add_edge(lib.START, "w")
    return graph.compile().invoke({"log": [0]})


def test_a_reducer_that_returned_none_is_named_at_the_write_that_fails():
    _, error = _raised(_reducer_returns_none)
    assert isinstance(error, AttributeError)
    assert error.__notes__[-1].endswith(
        "The channel held None before this step, most likely what _extend returned when "
        "it last ran (a reducer that changes its first argument in place returns "
        "nothing). Make it return the new value, e.g. `return left + right`."
    )


def _invoke_with_limit(lib: Lib, limit: Any) -> Any:
    graph = lib.StateGraph(Named)
    graph.add_node("a", lambda state: {"name": "a"})
    graph.add_edge(lib.START, "a")
    return graph.compile().invoke({"name": "x"}, {"recursion_limit": limit})


def test_a_recursion_limit_of_true_is_one_step_and_false_is_below_one():
    _, error = _raised(lambda lib: _invoke_with_limit(lib, True))  # START, then 'a'
    assert type(error).__name__ == "GraphRecursionError"
    assert str(error).startswith("Recursion limit of 1 reached")
    _, error = _raised(lambda lib: _invoke_with_limit(lib, False))
    assert type(error).__name__ == "ValueError"


def _child_names_a_parent_node(lib: Lib) -> Any:
    def hop(state: Named) -> Any:
        return lib.Command(graph=lib.Command.PARENT, goto="review")

    hop.__annotations__["return"] = lib.Command[Literal["review"]]  # the parent's node

    return lib.StateGraph(Named).add_node("hop", hop).add_edge(lib.START, "hop").compile()


def test_a_childs_annotation_naming_a_parents_node_is_refused_saying_to_leave_it_out():
    _, error = _raised(_child_names_a_parent_node)
    assert type(error) is ValueError
    assert (
        "If 'review' is a node of a parent graph (the node returns "
        "Command(graph=Command.PARENT, ...)), leave it out: they name this graph's own "
        "nodes (annotate -> Command)." in str(error)
    )


def test_a_send_to_no_node_names_the_step_that_sent_it_and_the_step_that_drops_it():
    def fan(lib: Lib) -> Any:
        graph = lib.StateGraph(Named)
        graph.add_node("a", lambda state: {"name": "a"})
        graph.add_node("fan", lambda state: lib.Command(goto=lib.Send("nope", {})))
        graph.add_edge(lib.START, "a").add_edge("a", "fan")
        return graph.compile().invoke({"name": "x"})

    assert fan(load_langgraph()) == {"name": "a"}  # (it logs the drop)
    with pytest.warns(GraphkitWarning) as caught:
        assert fan(load_graphkit()) == {"name": "a"}
    assert [str(w.message) for w in caught] == [
        "Step 3: a Send targets 'nope', which is not a node of this graph (nodes: ['a', "
        "'fan']); it was sent in step 2, and step 3 drops it, as in LangGraph. Fix the node "
        "name in the Send."
    ]


class Noted(TypedDict):
    name: str
    notes: str


def _a_subgraph_reads_a_key_its_parent_lacks(lib: Lib) -> Any:
    inner = lib.StateGraph(Noted)
    inner.add_node("inner", lambda state: {"name": state["notes"]})
    inner.add_edge(lib.START, "inner")
    graph = lib.StateGraph(Named)
    graph.add_node("sub", inner.compile())
    graph.add_edge(lib.START, "sub")
    return graph.compile().invoke({"name": "x"})


def test_the_note_in_a_subgraph_names_the_subgraphs_input_not_app_invoke():
    """A subgraph's input is its parent's state: 'notes' given to app.invoke(...), as the
    note said, would be dropped, since the parent's schema has no such key."""
    expected, error = _raised(_a_subgraph_reads_a_key_its_parent_lacks)
    assert error.args == expected.args == ("notes",)
    assert error.__notes__[-2] == (  # (then the parent's task adds its own note)
        "Node 'inner' (step 1) read state['notes'], which has no value yet: neither the "
        "subgraph's input nor a node put it in the state. Give it in the subgraph's input, "
        "as a key of its input schema (its parent passes its own state, or the dict the "
        "subgraph is invoked with), have a node that runs earlier write it, or read it with "
        "state.get('notes')."
    )
