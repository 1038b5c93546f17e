"""StateGraph declaration: what it accepts, what it refuses, and what it warns about."""

from __future__ import annotations

import asyncio
import operator
from dataclasses import dataclass
from typing import Annotated, TypedDict

import pytest

from graphkit import END, START, GraphkitWarning, StateGraph
from graphkit.types import RetryPolicy


class State(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def noop(state: State) -> dict:
    return {}


def graph_with(*names: str) -> StateGraph:
    builder = StateGraph(State)
    for name in names:
        builder.add_node(name, noop)
    return builder


def test_name_is_inferred_from_the_function_or_the_object_class():
    class Doubler:
        def invoke(self, state):
            return {"x": state["x"] * 2}

    builder = StateGraph(State)
    builder.add_node(noop).add_node(Doubler())
    assert list(builder.nodes) == ["noop", "Doubler"]


def test_a_lambda_needs_a_name():
    with pytest.raises(ValueError, match="lambda has no usable name"):
        StateGraph(State).add_node(lambda state: {})


@pytest.mark.parametrize("name", [START, END])
def test_reserved_names_are_refused(name):
    with pytest.raises(ValueError, match="reserved"):
        graph_with(name)


@pytest.mark.parametrize("name", ["a:b", "a|b"])
def test_namespace_characters_are_refused(name):
    with pytest.raises(ValueError, match="reserved for subgraph namespaces"):
        graph_with(name)


def test_duplicate_node_says_how_to_fix():
    with pytest.raises(ValueError, match=r"already present.*add_node\('a_2'"):
        graph_with("a", "a")


def test_non_callable_action_is_refused():
    with pytest.raises(TypeError, match=r"expected a function or an object with \.invoke"):
        StateGraph(State).add_node("a", 42)


def test_unknown_end_of_an_edge_names_the_edge_and_the_nodes():
    builder = graph_with("a").add_edge(START, "a").add_edge("a", "zzz")
    with pytest.raises(ValueError, match=r"Edge 'a' -> 'zzz' ends at unknown node 'zzz'.*\['a'\]"):
        builder.compile()


def test_unknown_end_of_an_edge_in_a_big_graph_lists_a_few_nodes():
    # (5,000 nodes made a 59 KB message; the near miss is the useful part)
    names = [f"node{index}" for index in range(5000)]
    builder = graph_with(*names).add_edge(START, "node0").add_edge("node0", "nodee1")
    with pytest.raises(ValueError) as raised:
        builder.compile()
    message = str(raised.value)
    assert "did you mean 'node1'?" in message and len(message) < 400, message
    assert message.endswith("'node1005', ... 4990 more].")


def test_a_run_s_warnings_in_a_big_graph_list_a_few_nodes():
    # (a router's or a Send's unknown target in a 100-node graph warned with every name)
    from graphkit import Send

    names = [f"node{index}" for index in range(100)]
    builder = graph_with(*names).add_edge(START, "node0")
    builder.add_conditional_edges("node0", lambda state: ["nodee1", Send("nodee2", state)])
    with pytest.warns(GraphkitWarning) as caught:
        builder.compile().invoke({"x": 1})
    texts = sorted(str(warning.message) for warning in caught)
    assert len(texts) == 2 and all("'node17', ... 90 more])" in text for text in texts), texts


def test_a_low_level_pregel_naming_no_node_in_a_big_graph_lists_a_few():
    from graphkit.channels import EphemeralValue, LastValue
    from graphkit.pregel import NodeBuilder, Pregel

    nodes = {f"n{i}": NodeBuilder().subscribe_only("x").write_to("y") for i in range(30)}
    wiring = {"channels": {"x": EphemeralValue(int), "y": LastValue(int)}}
    wiring |= {"input_channels": "x", "output_channels": "y"}
    for options in ({"interrupt_before_nodes": ["nope"]}, {"node_error_handler_map": {"n1": "x"}}):
        with pytest.raises(ValueError, match=r"'n17', \.\.\. 20 more\]\.$"):
            Pregel(nodes=nodes, **wiring, **options)


def test_unknown_start_of_an_edge():
    builder = graph_with("a").add_edge(START, "a").add_edge("qqq", "a")
    with pytest.raises(ValueError, match="starts at unknown node 'qqq'"):
        builder.compile()


def test_unknown_path_map_target_names_its_key():
    # As for a value of None: "maps to unknown node 'nope'" left the learner to find
    # which entry says it. (LangGraph raises ValueError at compile too: "unknown target")
    builder = graph_with("a").add_edge(START, "a")
    builder.add_conditional_edges("a", lambda state: "b", {"b": "nope"})
    with pytest.raises(ValueError) as caught:
        builder.compile()
    assert str(caught.value) == (
        "Conditional edge 'condition' of 'a': its path_map maps 'b' to unknown node 'nope'; "
        "fix its path_map or add_node('nope', ...)."
    )
    listed = graph_with("a").add_edge(START, "a")
    listed.add_conditional_edges("a", lambda state: "nope", ["a", "nope"])
    with pytest.raises(ValueError, match="its path_map lists unknown node 'nope'; fix its"):
        listed.compile()


def test_a_path_map_value_that_is_no_name_names_its_key_and_points_at_end():
    # LangGraph raises ValueError too: "At 'a' node, 'condition' branch found unknown
    # target 'None'"; add_node(None, ...) was graphkit's fix, which cannot work.
    builder = graph_with("a", "b").add_edge(START, "a")
    builder.add_conditional_edges("a", lambda state: "empty", {"go": "b", "empty": None})
    with pytest.raises(ValueError) as caught:
        builder.compile()
    assert str(caught.value) == (
        "Conditional edge 'condition' of 'a': its path_map maps 'empty' to None, which is "
        "no node; map 'empty' to END (from graphkit import END) to end the run there, or "
        "to the name of a node."
    )
    listed = graph_with("a", "b").add_edge(START, "a")
    listed.add_conditional_edges("a", lambda state: "b", ["b", None])
    with pytest.raises(ValueError, match="its path_map lists None, which is no node; list END"):
        listed.compile()


def test_waiting_edge_needs_its_nodes_first():
    with pytest.raises(ValueError, match=r"add_node\('zz', \.\.\.\) first"):
        graph_with("a").add_edge(["a", "zz"], "a")


def test_waiting_edge_from_a_misspelt_node_suggests_the_node():
    with pytest.raises(ValueError, match=r"did you mean 'news_2'\? Otherwise add_node\('news2'"):
        graph_with("weather", "news_2", "summarize").add_edge(["weather", "news2"], "summarize")


def test_an_edge_to_the_string_end_points_at_the_constant():
    # A learner's "END" is not END: the constant's value is "__end__".
    builder = graph_with("a").add_edge(START, "a").add_edge("a", "END")
    with pytest.raises(ValueError, match=r"node 'END'; to end the run, use the constant END"):
        builder.compile()
    builder = graph_with("a").add_edge("START", "a")
    with pytest.raises(ValueError, match=r"use the constant START .* whose value is '__start__'"):
        builder.compile()


def test_an_edge_to_end_with_a_node_named_end_suggests_the_closer_first():
    """ "end" with a node "End" is most likely that node, its case slipped: that comes
    first, then the constant; "END" is the constant's own name, so the constant does."""
    builder = graph_with("a", "End").add_edge(START, "a").add_edge("a", "end")
    with pytest.raises(ValueError, match=r"node 'end'; did you mean 'End'\? Or, to end the run"):
        builder.compile()
    builder = graph_with("a", "End").add_edge(START, "a").add_edge("a", "END")
    with pytest.raises(ValueError, match=r"not the string 'END' \(or did you mean 'End'\?\)\. "):
        builder.compile()
    builder = graph_with("a", "End").add_edge(START, "a")
    builder.add_conditional_edges("a", lambda state: "end", {"End": "End", "__end__": END})
    with pytest.raises(KeyError, match=r"returned 'end'.*; did you mean 'End'\? Or, to end"):
        builder.compile().invoke({"x": 1})


def test_an_edge_to_end_with_a_node_spelt_near_it_suggests_the_constant_first():
    """ "end" with a node "send" is most likely END: only a case slip of a node's name
    comes before the constant."""
    builder = graph_with("a", "send").add_edge(START, "a").add_edge("a", "end")
    with pytest.raises(ValueError, match=r"node 'end'; to end the run, use the constant END") as e:
        builder.compile()
    assert "not the string 'end' (or did you mean 'send'?). Nodes:" in str(e.value)
    builder = graph_with("a", "send").add_edge(START, "a")
    builder.add_conditional_edges("a", lambda state: "end", {"send": "send", "__end__": END})
    with pytest.raises(KeyError, match=r"returned 'end'.*; to end the run, return the constant"):
        builder.compile().invoke({"x": 1})


def test_a_path_map_to_the_string_end_points_at_the_constant():
    builder = graph_with("a").add_edge(START, "a")
    builder.add_conditional_edges("a", lambda state: "done", {"done": "END"})
    with pytest.raises(ValueError, match=r"'END'; to end the run, use the constant END"):
        builder.compile()


def test_a_misspelt_path_map_target_suggests_the_node():
    builder = graph_with("a", "billing").add_edge(START, "a")
    builder.add_conditional_edges("a", lambda state: "pay", {"pay": "Billing"})
    with pytest.raises(ValueError, match=r"fix its path_map \(did you mean 'billing'\?\)"):
        builder.compile()


def test_a_router_returning_the_string_end_points_at_the_constant():
    builder = graph_with("a", "b").add_edge(START, "a")
    builder.add_conditional_edges("a", lambda state: "END", ["b", END])
    with pytest.raises(KeyError, match=r"returned 'END'.*return the constant END"):
        builder.compile().invoke({"x": 1})


def test_a_router_returning_a_misspelt_key_suggests_the_key():
    builder = graph_with("a", "b").add_edge(START, "a")
    builder.add_conditional_edges("a", lambda state: "Go", {"go": "b", "stop": END})
    with pytest.raises(KeyError, match=r"returned 'Go'.*did you mean 'go'\? Otherwise add it"):
        builder.compile().invoke({"x": 1})


def test_a_router_returning_where_its_path_map_leads_is_told_the_key():
    """A router that returns the node (or END) its path_map leads to, not the key, fails
    with KeyError in both libraries; graphkit names the key to return (lesson 04's
    triage returned END where its map said "empty": END)."""
    import langgraph.graph

    import graphkit

    for library in (graphkit, langgraph.graph):
        for choice in ("b", library.END):
            builder = library.StateGraph(State)
            builder.add_node("a", noop).add_node("b", noop)
            builder.add_edge(library.START, "a")
            path_map = {"go": "b", "empty": library.END}
            builder.add_conditional_edges("a", lambda state, c=choice: c, path_map)
            with pytest.raises(KeyError) as raised:
                builder.compile().invoke({"x": 1})
            if library is graphkit:
                key, told = ("'go'", "'b'") if choice == "b" else ("'empty'", "'__end__' (END)")
                assert (
                    f"returned {told}, where its path_map's key {key} leads; a router with a "
                    f"path_map returns one of its keys ['empty', 'go']: return {key}."
                ) in str(raised.value)


def test_a_router_returning_a_state_update_says_a_router_only_chooses():
    # LangGraph raises TypeError too, with only "unhashable type: 'dict'"
    builder = graph_with("a", "b").add_edge(START, "a")
    builder.add_conditional_edges("a", lambda state: {"x": 2}, ["b", END])
    with pytest.raises(TypeError, match=r"returned \{'x': 2\}, a dict.*a state update"):
        builder.compile().invoke({"x": 1})


def test_no_entry_point_says_which_edge_to_add():
    with pytest.raises(ValueError, match=r"entrypoint.*add_edge\(START, 'a'\)"):
        graph_with("a").compile()


def test_edges_into_start_or_out_of_end_are_refused():
    with pytest.raises(ValueError, match="START cannot be the end"):
        graph_with("a").add_edge("a", START)
    with pytest.raises(ValueError, match="END cannot be the start"):
        graph_with("a").add_edge(END, "a")


def test_unreachable_node_warns_and_still_compiles():
    builder = graph_with("a", "orphan").add_edge(START, "a")
    with pytest.warns(GraphkitWarning, match="'orphan': nothing leads to it from START"):
        app = builder.compile()
    assert app.invoke({"x": 1}) == {"x": 1, "log": []}


class Research(TypedDict):
    query: str
    findings: Annotated[list, operator.add]


def test_a_subgraph_sharing_no_key_with_its_parent_compiles_quietly():
    # a stateful child keeping keys of its own is a LangGraph pattern (its time-travel tests)
    child = StateGraph(Research).add_node("look_up", lambda state: {}).add_edge(START, "look_up")
    builder = StateGraph(State).add_node("research", child.compile())
    builder.add_edge(START, "research").compile()  # (a GraphkitWarning is an error here)


@pytest.mark.parametrize("run_async", [False, True], ids=["invoke", "ainvoke"])
def test_a_key_error_in_a_subgraph_given_nothing_says_why(run_async):
    # LangGraph raises the bare KeyError: the child started empty, sharing no key
    child = StateGraph(Research).add_node("look_up", lambda state: {"query": state["query"]})
    builder = StateGraph(State).add_node("research", child.add_edge(START, "look_up").compile())
    app = builder.add_edge(START, "research").compile()
    with pytest.raises(KeyError) as raised:
        asyncio.run(app.ainvoke({"x": 1})) if run_async else app.invoke({"x": 1})
    assert raised.value.__notes__[1].startswith("Node 'look_up' (step 1) read state['query']")
    assert raised.value.__notes__[2] == (  # (why the child's input did not give it)
        "This subgraph, added as a node, was given none of its parent's state: its keys "
        "(['findings', 'query']) and the parent's (['log', 'x']) share none, so it started "
        "empty (and what it returns is dropped; only a Command(graph=Command.PARENT) it sends "
        "reaches the parent). Give the two states a shared key, or call it inside a node "
        "function and translate the keys both ways: def my_node(state): result = "
        "subgraph.invoke({...}); return {...}."
    )


def test_a_key_error_in_a_subgraph_given_nothing_naming_none_of_its_keys_has_no_such_note():
    def look_up(state):
        raise KeyError("api_key")  # (the child's own, not a read of its state)

    child = StateGraph(Research).add_node("look_up", look_up).add_edge(START, "look_up")
    app = StateGraph(State).add_node("research", child.compile()).add_edge(START, "research")
    with pytest.raises(KeyError) as raised:
        app.compile().invoke({"x": 1})
    assert not any("given none of its parent's state" in n for n in raised.value.__notes__)


def test_a_key_error_in_a_subgraph_sharing_a_key_has_no_such_note():
    child = StateGraph(State).add_node("inner", lambda state: {"x": state["missing"]})
    builder = StateGraph(State).add_node("sub", child.add_edge(START, "inner").compile())
    app = builder.add_edge(START, "sub").compile()
    with pytest.raises(KeyError) as raised:
        app.invoke({"x": 1})
    assert not any("given none" in note for note in raised.value.__notes__)


def test_a_subgraph_sharing_a_key_compiles_quietly():
    child = graph_with("inner").add_edge(START, "inner")
    builder = StateGraph(State).add_node("sub", child.compile()).add_edge(START, "sub")
    builder.compile()  # (a GraphkitWarning is an error in the tests)


def test_a_router_without_path_map_can_reach_any_node_so_no_warning():
    builder = graph_with("a", "b").add_edge(START, "a")
    builder.add_conditional_edges("a", lambda state: "b")
    builder.compile()  # GraphkitWarning is an error in this suite: none is raised


def test_node_named_like_a_state_key_warns():
    builder = graph_with("x").add_edge(START, "x")
    with pytest.warns(GraphkitWarning, match="same name as a state key"):
        builder.compile()


def test_add_sequence_chains_nodes_in_order():
    def first(state):
        return {"log": ["first"]}

    builder = StateGraph(State).add_sequence([first, ("second", lambda s: {"log": ["second"]})])
    builder.add_edge(START, "first")
    assert builder.compile().invoke({"x": 0})["log"] == ["first", "second"]


def test_entry_and_finish_points_are_edges():
    builder = graph_with("a").set_entry_point("a").set_finish_point("a")
    assert builder.edges == {(START, "a"), ("a", END)}


def test_a_cache_policy_must_be_one():
    with pytest.raises(TypeError, match=r"cache_policy must be a CachePolicy"):
        StateGraph(State).add_node("a", noop, cache_policy=object())


@pytest.mark.parametrize(
    "retry_on", [ValueError(), "ValueError", int, [ValueError, "x"], None, [ValueError, len]]
)
def test_a_retry_policy_must_name_exceptions_or_a_predicate(retry_on):
    with pytest.raises(TypeError, match=r"Node 'a': RetryPolicy\(retry_on="):
        StateGraph(State).add_node("a", noop, retry_policy=RetryPolicy(retry_on=retry_on))


def test_retry_policy_must_be_a_retry_policy():
    with pytest.raises(TypeError, match="retry_policy must be a RetryPolicy"):
        StateGraph(State).add_node("a", noop, retry_policy={"max_attempts": 3})


def test_breakpoints_must_name_nodes():
    with pytest.raises(
        ValueError, match=r"compile\(interrupt_before=\['nope'\]\): there is no node"
    ):
        graph_with("a").add_edge(START, "a").compile(interrupt_before=["nope"])


@pytest.mark.parametrize("typed", ["A", "b_a"])
def test_a_breakpoint_with_a_slip_names_the_node_meant(typed):
    """A case slip, or two letters swapped (which difflib rates too low), is named."""
    meant = {"A": "a", "b_a": "ba_"}[typed]
    graph = graph_with("a").add_node("ba_", noop).add_edge(START, "a").add_edge("a", "ba_")
    with pytest.raises(ValueError, match=f"did you mean '{meant}'"):
        graph.compile(interrupt_after=[typed])


def test_an_edge_to_a_name_with_two_letters_swapped_names_the_node():
    builder = graph_with("bug").add_edge(START, "bug")
    builder.add_conditional_edges("bug", lambda state: "x", {"x": "bgu"})
    with pytest.raises(ValueError, match="did you mean 'bug'"):
        builder.compile()


def test_breakpoints_given_as_one_string_ask_for_a_list():
    # a learner's compile(interrupt_before="a") read as the letters of "a", or of "send"
    with pytest.raises(TypeError, match=r"compile\(interrupt_after='a'\): give a list"):
        graph_with("a").add_edge(START, "a").compile(interrupt_after="a")
    graph_with("a").add_edge(START, "a").compile(interrupt_before="*")


class Private(TypedDict):
    secret: str


def test_node_input_schema_is_inferred_from_the_first_parameter_annotation():
    def reader(state: Private) -> dict:
        return {"x": len(state["secret"])}

    builder = StateGraph(State).add_node(reader).add_edge(START, "reader")
    assert builder.nodes["reader"].input_schema is Private
    assert "secret" in builder.channels  # private keys become channels too


def test_dataclass_state_is_accepted():
    @dataclass
    class Counter:
        count: int = 0

    builder = StateGraph(Counter)
    builder.add_node("inc", lambda state: {"count": state.count + 1}).add_edge(START, "inc")
    assert builder.compile().invoke({"count": 2}) == {"count": 3}


def test_adding_a_node_after_compile_warns():
    builder = graph_with("a").add_edge(START, "a")
    builder.compile()
    with pytest.warns(GraphkitWarning, match="after compile"):
        builder.add_node("b", noop)


# -- LangGraph's old argument names (input=, output=, config_schema=) ----------------------


class Question(TypedDict):
    question: str


class Answer(TypedDict):
    answer: str


class Overall(TypedDict):
    question: str
    answer: str
    notes: str


def _answer_graph(library, **schemas):
    """LangChain Academy module 2's shape: a private overall state, a narrower input
    and output, given with the old argument names."""
    builder = library.StateGraph(Overall, **schemas)
    builder.add_node("think", lambda state: {"notes": "n", "answer": state["question"] + "!"})
    builder.add_edge(library.START, "think")
    builder.add_edge("think", library.END)
    return builder


@pytest.mark.parametrize(
    ("old", "new", "schema"),
    [("input", "input_schema", Question), ("output", "output_schema", Answer)],
)
def test_old_schema_argument_names_are_accepted_with_a_deprecation_warning(old, new, schema):
    import langgraph.graph

    import graphkit

    warned = {}
    for library in (graphkit, langgraph.graph):
        with pytest.warns(DeprecationWarning) as caught:
            builder = _answer_graph(library, **{old: schema})
        (warning,) = [w for w in caught if issubclass(w.category, DeprecationWarning)]
        assert f"`{old}`" in str(warning.message) and f"`{new}`" in str(warning.message)
        assert warning.filename == __file__  # it points at the caller's line
        assert getattr(builder, new) is schema
        warned[library.__name__] = builder.compile().invoke({"question": "why"})
    assert warned["graphkit"] == warned["langgraph.graph"]


def test_the_new_name_wins_over_the_old_one_as_in_langgraph():
    with pytest.warns(DeprecationWarning, match="`input`"):
        builder = StateGraph(Overall, input=Answer, input_schema=Question)
    assert builder.input_schema is Question


def test_config_schema_is_the_old_name_of_context_schema():
    with pytest.warns(DeprecationWarning, match="`context_schema`"):
        builder = StateGraph(Overall, config_schema=Answer)
    assert builder.context_schema is Answer


# -- the input's unknown keys ------------------------------------------------------------


def test_an_input_key_missing_from_the_input_schema_names_the_input_schema():
    builder = StateGraph(Overall, input_schema=Question)
    builder.add_node("think", lambda state: {"answer": "a"})
    builder.add_edge(START, "think")
    app = builder.compile()
    with pytest.warns(GraphkitWarning) as caught:
        app.invoke({"question": "why", "answer": "early"})
    (message,) = [str(w.message) for w in caught]
    assert message == (
        "The input has key 'answer', which is not in the input schema Question (keys: "
        "['question']); the write is dropped, as in LangGraph. Add the key to Question or "
        "fix its name."
    )


def test_an_input_key_missing_from_the_state_schema_says_state_schema():
    app = graph_with("a").add_edge(START, "a").compile()
    with pytest.warns(GraphkitWarning, match=r"'y', which is not in the state schema \(keys"):
        app.invoke({"x": 1, "log": [], "y": 2})


# -- a router's name that is not a node ----------------------------------------------------


def test_a_router_name_that_is_not_a_node_is_recorded_then_dropped_with_one_warning():
    builder = graph_with("triage", "billing").add_edge(START, "triage")
    builder.add_conditional_edges("triage", lambda state: "Billing")
    with pytest.warns(GraphkitWarning) as caught:
        run = builder.compile().trace({"x": 0, "log": []})
    assert [str(w.message) for w in caught] == [
        "Step 1: the router or Command(goto=...) of 'triage' returned 'Billing', which is not "
        "a node (nodes: ['billing', 'triage']); nothing runs for it, as in LangGraph. Return "
        "a node name or END, or give add_conditional_edges a path_map."
    ]
    # the task's record keeps what the router returned (LangGraph's task writes do too) ...
    assert run.step(1).execution.results[0].writes == (("branch:to:Billing", None),)
    # ... and the Update dropped it
    assert run.step(1).update.changed == ["branch:to:triage"]
    assert [s.step for s in run.steps] == [-1, 0, 1]


def test_a_node_name_that_is_not_a_string_is_refused_by_name():
    from typing import TypedDict

    from graphkit import StateGraph

    class Counter(TypedDict):
        n: int

    with pytest.raises(TypeError, match=r"add_node\(123, \.\.\.\): a node's name must be a string"):
        StateGraph(Counter).add_node(123, lambda state: {})


@pytest.mark.parametrize("update", [5, "text", object()])
def test_a_commands_update_that_is_not_a_mapping_is_refused_in_a_dict_state(update):
    """LangGraph writes it to a ``__root__`` key the state does not have and drops it
    without a word; graphkit refuses it (docs/compatibility.md, "Differs on purpose")."""
    from langgraph.graph import StateGraph as LangGraphStateGraph
    from langgraph.types import Command as LangGraphCommand

    from graphkit import Command, InvalidUpdateError

    class Pair(TypedDict, total=False):
        x: int
        y: int

    def build(graph_class, command_class):
        builder = graph_class(Pair).add_node("a", lambda state: command_class(update=update))
        return builder.add_edge(START, "a").compile()

    assert build(LangGraphStateGraph, LangGraphCommand).invoke({"x": 1}) == {"x": 1}
    with pytest.raises(InvalidUpdateError, match="Command whose update is"):
        build(StateGraph, Command).invoke({"x": 1})


@pytest.mark.parametrize("update", [[(1, 2)], [("x", 2, 3)], [["x", 2]], ("x", 2)])
def test_a_commands_update_that_is_almost_pairs_says_what_pairs_are(update):
    """The same refusal (LangGraph drops these too), naming the update and what pairs are."""
    from graphkit import Command, InvalidUpdateError

    class Pair(TypedDict, total=False):
        x: int

    builder = StateGraph(Pair).add_node("a", lambda state: Command(update=update))
    with pytest.raises(InvalidUpdateError) as excinfo:
        builder.add_edge(START, "a").compile().invoke({"x": 1})
    assert str(excinfo.value) == (
        f"Node 'a' returned a Command whose update is {type(update).__name__} {update!r}, "
        "which is not a list of (key, value) tuples with string keys; use a dict of state "
        "keys, e.g. Command(update={'key': value})."
    )


def test_an_unknown_keyword_of_stategraph_is_refused_by_name():
    # LangGraph ignores it, so a misspelt `contex_schema=` would leave the graph without one
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['contex_schema'\]"):
        StateGraph(State, contex_schema=State)


def test_an_unknown_keyword_of_add_node_is_refused_by_name():
    # LangGraph ignores it (a misspelt `retry_polcy=` leaves the node without retries);
    # graphkit said "not supported by graphkit yet", as if LangGraph had such an option
    with pytest.raises(TypeError) as excinfo:
        graph_with().add_node("a", noop, retry_polcy=RetryPolicy())
    assert str(excinfo.value) == (
        "add_node() got an unexpected keyword argument 'retry_polcy'. Did you mean "
        "retry_policy=...? It takes defer, metadata, input_schema, retry_policy, "
        "cache_policy, destinations, error_handler and timeout."
    )


@pytest.mark.parametrize(("metadata", "error"), [(["owner"], ValueError), (5, TypeError)])
def test_metadata_that_is_not_a_dict_says_what_metadata_is(metadata, error):
    # (dict()'s own error, which LangGraph raises when the graph runs)
    with pytest.raises(error, match=r"add_node\('a', \.\.\., metadata=.*\): metadata is a dict"):
        graph_with().add_node("a", noop, metadata=metadata)


@pytest.mark.parametrize(
    ("build", "call"),
    [
        (lambda: StateGraph(State, output_schema=5), "StateGraph(..., output_schema=5)"),
        (lambda: StateGraph(State, input_schema="x"), "StateGraph(..., input_schema='x')"),
        (
            lambda: graph_with().add_node("a", noop, input_schema=5),
            "add_node('a', ..., input_schema=5)",
        ),
    ],
)  # fmt: skip
def test_a_schema_that_is_no_class_is_named_by_the_argument_that_gave_it(build, call):
    # (it was "State schema 5 has no fields", though the state schema was fine)
    with pytest.raises(TypeError) as excinfo:
        build()
    assert str(excinfo.value).startswith(f"{call}: a schema is a class (a TypedDict")


def test_a_function_given_before_its_name_shows_the_call_the_right_way_round():
    with pytest.raises(TypeError) as excinfo:
        graph_with().add_node(noop, "a")
    assert str(excinfo.value) == (
        "add_node(noop, 'a'): the node's name comes first, then its function. "
        "Write add_node('a', noop)."
    )


def test_a_langgraph_saver_is_refused_where_it_is_given():
    """LangGraph's saver (or one built on its base class) writes LangGraph's checkpoints:
    it failed at the first save with "'Checkpoint' object has no attribute 'copy'"."""
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver

    from graphkit.func import entrypoint
    from graphkit.pregel import Pregel

    class OwnSaver(LangGraphSaver):
        pass

    builder = graph_with("a").add_edge(START, "a")
    with pytest.raises(TypeError, match=r"got LangGraph's InMemorySaver .*open_langgraph_thread"):
        builder.compile(checkpointer=LangGraphSaver())
    with pytest.raises(TypeError, match="through OwnSaver"):
        builder.compile(checkpointer=OwnSaver())
    with pytest.raises(TypeError, match=r"entrypoint\(checkpointer=\.\.\.\) got LangGraph's"):
        entrypoint(checkpointer=LangGraphSaver())
    with pytest.raises(TypeError, match=r"Pregel\(checkpointer=\.\.\.\) got LangGraph's"):
        Pregel(nodes={}, channels={}, input_channels=[], output_channels=[],
               checkpointer=LangGraphSaver())  # fmt: skip


@pytest.mark.parametrize(
    "method",
    ["invoke", "stream", "trace", "stepper", "get_graph", "astream_events", "aget_state"],
)
def test_a_compiled_graph_s_method_on_the_builder_says_to_compile_first(method):
    builder = graph_with("a").add_edge(START, "a")
    with pytest.raises(AttributeError, match=r"Compile it first, app = builder\.compile\(\)"):
        getattr(builder, method)
    assert not hasattr(builder, method)  # (still an AttributeError: hasattr tells them apart)
    with pytest.raises(AttributeError) as missing:
        builder.nodez  # noqa: B018
    assert "compile" not in str(missing.value)


def test_what_the_builder_is_told_to_compile_for_is_on_the_compiled_graph_alone():
    from graphkit.diagnostics.building import COMPILED_ONLY

    builder = graph_with("a").add_edge(START, "a")
    app = builder.compile()
    assert {"aget_state", "aupdate_state", "astream_events", "aget_subgraphs"} <= COMPILED_ONLY
    assert {"with_config", "batch_as_completed", "get_input_schema"} <= COMPILED_ONLY
    assert [name for name in sorted(COMPILED_ONLY) if not hasattr(app, name)] == []
    assert [name for name in sorted(COMPILED_ONLY) if hasattr(builder, name)] == []


def test_the_builder_is_told_to_compile_for_every_method_of_the_compiled_graph():
    # (ed649f6 listed get_input_jsonschema, not get_output_jsonschema; nor with_retry,
    # pipe, bind...: those gave the bare "no attribute" error)
    from graphkit.diagnostics.building import COMPILED_ONLY

    builder = graph_with("a").add_edge(START, "a")
    app = builder.compile()
    own = {"copy", "get_name", "run_options"}  # (a builder's copy is not the graph's)
    methods = {name for name in dir(app) if callable(getattr(type(app), name, None))}
    public = {name for name in methods if not name.startswith("_") and not hasattr(builder, name)}
    assert sorted(public - own - COMPILED_ONLY) == []
    with pytest.raises(AttributeError, match=r"then call app\.get_output_jsonschema\(\.\.\.\)"):
        builder.get_output_jsonschema  # noqa: B018
