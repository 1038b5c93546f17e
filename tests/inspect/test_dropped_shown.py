"""A key a node returned that the state does not have is said where the task shows:
a subgraph's output the parent's state lacks is dropped silently (as in LangGraph),
and the step card and print(run) said only that the node wrote branch:to:write."""

from __future__ import annotations

import operator
import warnings
from typing import Annotated, TypedDict

import pytest

from graphkit import END, START, Send, StateGraph
from graphkit.inspect.dropped import dropped_keys


class Overall(TypedDict):
    topics: list[str]
    summaries: Annotated[list[str], operator.add]


class Sub(TypedDict):
    topic: str
    summary: str  # the parent's key is "summaries"


def _map_reduce():
    sub = StateGraph(Sub)
    sub.add_node("research", lambda state: {"summary": f"{state['topic']}: ok"})
    sub.add_edge(START, "research")
    builder = StateGraph(Overall)
    builder.add_node("plan", lambda state: {})
    builder.add_node("summarize", sub.compile())
    builder.add_node("write", lambda state: {})
    builder.add_edge(START, "plan")
    fan_out = lambda state: [Send("summarize", {"topic": t}) for t in state["topics"]]  # noqa: E731
    builder.add_conditional_edges("plan", fan_out, ["summarize"])
    builder.add_edge("summarize", "write")
    builder.add_edge("write", END)
    return builder.compile().trace({"topics": ["cats", "dogs"]})


def test_a_subgraphs_output_the_parent_lacks_is_said_in_print_run_and_the_card():
    run = _map_reduce()
    assert run.values["summaries"] == []  # (the behaviour stays: LangGraph's)
    line = (
        "  EXECUTE  summarize        wrote branch:to:write; dropped topic and summary "
        "(its subgraph's output): not keys of the parent's state"
    )
    assert run.timeline(width=None).splitlines().count(line) == 2
    html = run.step(2)._repr_html_()
    assert "dropped topic and summary (its subgraph&#x27;s output): not keys of the parent" in html


def test_why_says_the_subgraphs_keys_were_dropped_and_where_their_values_are():
    reasons = _map_reduce().why("summarize", step=2).answers[0].reasons
    dropped = [reason for reason in reasons if reason.kind == "dropped"]
    assert len(reasons) == 3 and len(dropped) == 1
    assert dropped[0].text == (
        "summarize (2 tasks) ran a subgraph whose output has 'topic' and 'summary', not keys "
        "of the parent's state: the parent keeps only its own keys, so they were dropped, "
        "without a warning (as in LangGraph). Their values are in the subgraph's own run: "
        "run.step(2).execution.results[0].subruns[0].values. Add them to the parent's "
        "state, or map the subgraph's output in a node that calls it."
    )


def test_a_plain_nodes_unknown_key_is_said_too():
    class State(TypedDict):
        a: int

    builder = StateGraph(State).add_node("n", lambda state: {"a": 1, "b": 2})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = builder.add_edge(START, "n").compile().trace({"a": 0})
    assert "  EXECUTE  n            wrote a; dropped b: not a key of the graph's state" in (
        run.timeline().splitlines()
    )
    reason = run.why("n").answers[0].reasons[-1]
    assert (reason.kind, reason.text) == (
        "dropped",
        "n returned 'b', not a key of the graph's state, so it was dropped (with a warning). "
        "Add it to the state schema, or check the spelling.",
    )


def test_a_node_whose_keys_were_all_taken_drops_nothing(seed_run):
    results = [r for s in seed_run.steps if s.execution for r in s.execution.results]
    assert [dropped_keys(result) for result in results] == [None] * len(results)


class Page(TypedDict):
    topic: str
    summary: str


def test_a_node_that_calls_a_subgraph_and_returns_less_dropped_nothing():
    # (its output {} or {"summary": ...} matched the subgraph's values, so its keys,
    # the parent's own, read as "not keys of the parent's state")
    sub = StateGraph(Sub)
    sub.add_node("research", lambda state: {"summary": f"{state['topic']}: ok"})
    sub = sub.add_edge(START, "research").compile()

    def calls_then_nothing(state):
        sub.invoke({"topic": state["topic"]})
        return {}

    def calls_then_summary(state):
        return {"summary": sub.invoke({"topic": state["topic"]})["summary"]}

    for node in (calls_then_nothing, calls_then_summary):
        builder = StateGraph(Page).add_node("page", node).add_edge(START, "page")
        run = builder.compile().trace({"topic": "cats", "summary": ""})
        assert "dropped" not in run.timeline()
        assert "dropped" not in run.step(1)._repr_html_()
        assert [r.kind for r in run.why("page", step=1).answers[0].reasons].count("dropped") == 0


def test_why_ties_a_tools_key_error_to_the_input_key_the_state_dropped():
    # A support agent's tool read InjectedState("user_id"), given in the input; the
    # agent's state has no user_id, so __start__ dropped it and the tool raised KeyError:
    # the timeline said both, steps apart, and why("tools") only the KeyError.
    import pytest

    pytest.importorskip("langgraph")
    from langchain_core.messages import AIMessage
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.prebuilt import InjectedState, create_react_agent

    from graphkit import from_langgraph, open_langgraph_thread
    from graphkit.prebuilt import ScriptedChatModel

    def list_orders(user_id: str) -> str:
        """List the current user's orders."""
        return f"orders of {user_id}"

    # (set here: this module's annotations are strings, read in its globals)
    list_orders.__annotations__["user_id"] = Annotated[str, InjectedState("user_id")]

    def agent():
        call = AIMessage("", tool_calls=[{"name": "list_orders", "args": {}, "id": "c1"}])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (create_react_agent moved, in LangGraph 1)
            return create_react_agent(
                ScriptedChatModel(responses=[call]), [list_orders], checkpointer=InMemorySaver()
            )

    given = {"messages": [("user", "where are my orders?")], "user_id": "u-42"}
    config = {"configurable": {"thread_id": "1"}}
    theirs = agent()
    with pytest.raises(KeyError, match="user_id"):
        theirs.invoke(given, config)
    with warnings.catch_warnings(), pytest.raises(KeyError) as raised:
        warnings.simplefilter("ignore")
        from_langgraph(agent()).trace(given, config)
    for run in (open_langgraph_thread(theirs, config), raised.value.run):
        reason = run.why("tools", step=2).answers[0].reasons[-1]
        assert (reason.kind, reason.step, reason.channel) == ("dropped", 0, "user_id")
        assert reason.text == (
            "'user_id' is not a key of the graph's state: the input gave it, and step 0 "
            "dropped it (__start__ wrote only the state's keys), so tools, which read it "
            "(state['user_id'], or a tool's InjectedState('user_id')), found no such key. "
            "Add it to the state schema (for create_react_agent, a state_schema that "
            "subclasses AgentState)."
        )


def test_why_ties_a_key_error_to_a_dropped_key_only_when_the_state_was_read():
    # user_id was given in the input (and dropped: the state has none) and in the config;
    # a node raising KeyError('user_id') from the config was said to have read it from
    # the state, and told to add it to the state schema
    class Question(TypedDict):
        question: str
        answer: str

    def from_config(state: Question, config) -> dict:
        return {"answer": config["configurable"]["user_id"]}

    def from_state(state: Question) -> dict:
        return {"answer": state["user_id"]}

    given = {"question": "where is my order?", "user_id": "u-42"}
    kinds = {}
    for node in (from_config, from_state):
        builder = StateGraph(Question).add_node("answer", node).add_edge(START, "answer")
        with warnings.catch_warnings(), pytest.raises(KeyError) as raised:
            warnings.simplefilter("ignore")  # (graphkit warns of the key it drops)
            builder.compile().trace(given)
        reasons = raised.value.run.why("answer", step=1).answers[0].reasons
        kinds[node.__name__] = [(r.kind, r.step) for r in reasons if r.kind == "dropped"]
    assert kinds == {"from_config": [], "from_state": [("dropped", 0)]}
