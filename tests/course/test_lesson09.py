"""Tests of lesson 09's checks: each passes on its solution and fails, saying what the
runtime saw, on the notebook's stub and on typical wrong answers."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from graphkit import END, START, StateGraph
from graphkit.course import lesson09
from graphkit.course.solutions import lesson09 as solutions
from graphkit.course.solutions.lesson09 import Agent, Research, Tally
from tests.course.cells import AN_ID, run_cells

LESSON = Path(__file__).parents[2] / "notebooks" / "09-debugging-recipes.ipynb"


def research(route, *, waiting: bool = True) -> StateGraph:
    def plan(state: Research) -> dict:
        return {"notes": [f"plan: {state['question']}"]}

    def search(state: Research) -> dict:
        return {"notes": ["found 3 sources"]}

    def cite(state: Research) -> dict:
        return {"notes": ["cited 2 papers"]}

    def report(state: Research) -> dict:
        return {"answer": " / ".join(state["notes"])}

    builder = StateGraph(Research)
    for node in (plan, search, cite, report):
        builder.add_node(node.__name__, node)
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", route)
    if waiting:
        builder.add_edge(["search", "cite"], "report")
    else:
        builder.add_edge("search", "report")
        builder.add_edge("cite", "report")
    builder.add_edge("report", END)
    return builder


def test_report_runs_passes_on_the_solution():
    verdict = lesson09.check_report_runs(solutions.build_research)
    assert verdict, verdict


def test_report_runs_fails_on_the_stub_naming_the_router_and_the_wait():
    verdict = lesson09.check_report_runs(lambda: research(lambda s: ["search", "citations"]))
    assert not verdict
    assert "report never ran" in verdict.message
    assert "still waiting for cite" in verdict.message
    assert "'citations', which is not a node" in verdict.message
    # the router's two names, quoted alike (it read "returned search and 'citations'")
    assert "returned 'search' and 'citations' (not a node)" in verdict.message
    # the router's misspelt name is cite's, not report's: say so, and nothing about report
    assert "did you mean cite?" in verdict.message
    assert "never chose report" not in verdict.message
    assert "never runs: report never ran" not in verdict.message  # said once


def test_report_runs_with_cite_renamed_lists_only_the_learner_s_nodes():
    # renaming the node to fit the router's "citations": the list must not show
    # __start__, a node the learner never added
    def renamed() -> StateGraph:
        builder = StateGraph(Research)
        for name in ("plan", "search", "citations", "report"):
            builder.add_node(name, lambda state: {})
        builder.add_edge(START, "plan")
        builder.add_conditional_edges("plan", lambda s: ["search", "citations"])
        builder.add_edge(["search", "citations"], "report")
        return builder

    verdict = lesson09.check_report_runs(renamed)
    assert not verdict
    assert "no node `cite`" in verdict.message
    assert "['citations', 'plan', 'report', 'search']" in verdict.message
    assert "__start__" not in verdict.message


def test_report_runs_fails_when_the_router_forgets_cite_naming_cite_only():
    verdict = lesson09.check_report_runs(lambda: research(lambda s: ["search"]))
    assert not verdict
    assert "still waiting for cite" in verdict.message
    assert "chose search, never cite" in verdict.message
    assert "never chose report" not in verdict.message


def test_report_runs_fails_when_cite_is_dropped():
    def only_search() -> StateGraph:
        builder = research(lambda s: ["search"], waiting=False)
        return builder

    verdict = lesson09.check_report_runs(only_search)
    assert not verdict
    assert "`cite` never did" in verdict.message


def test_report_runs_fails_when_report_runs_twice():
    # search and cite run in different steps when cite is routed through an extra hop:
    # two plain edges then run report twice.
    def staggered() -> StateGraph:
        builder = research(lambda s: ["search", "cite"], waiting=False)
        return builder

    # plain edges from two nodes of the same step still run report once: that passes.
    assert lesson09.check_report_runs(staggered)

    def late(state: Research) -> str:
        return ["search", "cite"]

    builder = StateGraph(Research)
    builder.add_node("plan", lambda s: {"notes": [f"plan: {s['question']}"]})
    builder.add_node("search", lambda s: {"notes": ["found 3 sources"]})
    builder.add_node("cite", lambda s: {"notes": ["cited 2 papers"]})
    builder.add_node("report", lambda s: {"answer": " / ".join(s["notes"])})
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "search")
    builder.add_edge("search", "cite")
    builder.add_edge("search", "report")
    builder.add_edge("cite", "report")
    verdict = lesson09.check_report_runs(builder)
    assert not verdict
    assert "`report` ran 2 times" in verdict.message


def tally(count) -> StateGraph:
    builder = StateGraph(Tally)
    builder.add_node("collect", lambda s: {"items": ["apple", "pear"]})
    builder.add_node("count", count)
    builder.add_edge(START, "collect")
    builder.add_edge("collect", "count")
    builder.add_edge("count", END)
    return builder


def test_no_overwrite_passes_on_the_solution():
    verdict = lesson09.check_no_overwrite(solutions.build_tally)
    assert verdict, verdict


def test_no_overwrite_fails_on_the_stub_naming_the_writers():
    def whole_state(state: Tally) -> dict:
        state["total"] = len(state["items"])
        return state

    verdict = lesson09.check_no_overwrite(lambda: tally(whole_state))
    assert not verdict
    assert "'fig', 'apple', 'pear', 'fig', 'apple', 'pear'" in verdict.message
    assert "step 2: count wrote" in verdict.message


def test_no_overwrite_fails_when_the_reducer_is_removed():
    from typing import TypedDict

    class Plain(TypedDict):
        items: list
        total: int

    builder = StateGraph(Plain)
    builder.add_node("collect", lambda s: {"items": ["apple", "pear"]})
    builder.add_node("count", lambda s: {"total": len(s["items"])})
    builder.add_edge(START, "collect")
    builder.add_edge("collect", "count")
    verdict = lesson09.check_no_overwrite(builder)
    assert not verdict
    assert "instead of ['fig', 'apple', 'pear']" in verdict.message


def test_no_overwrite_fails_when_count_rewrites_items_and_total_is_wrong():
    verdict = lesson09.check_no_overwrite(lambda: tally(lambda s: {"items": [], "total": 2}))
    assert not verdict
    assert "count wrote total = 2" in verdict.message
    assert "len(state['items'])" not in verdict.hint


def test_no_overwrite_names_a_total_set_in_place_and_keeps_the_answer_back():
    def in_place(state: Tally) -> dict:
        state["total"] = len(state["items"])  # not a write: only the returned dict is
        return {}

    verdict = lesson09.check_no_overwrite(lambda: tally(in_place))
    assert not verdict
    assert "count wrote no `total`" in verdict.message
    assert "in place is not a write" in verdict.hint
    assert "len(state['items'])" not in verdict.hint  # the hint points, not answers


def agent_graph(should_continue, ends=END) -> StateGraph:
    def agent(state: Agent) -> dict:
        return {"answer": "42"} if state["tool_calls"] >= 2 else {}

    builder = StateGraph(Agent)
    builder.add_node("agent", agent)
    builder.add_node("tools", lambda s: {"tool_calls": 1})
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", should_continue, ["tools", ends])
    builder.add_edge("tools", "agent")
    return builder


def test_agent_stops_passes_on_the_solution():
    verdict = lesson09.check_agent_stops(solutions.build_agent)
    assert verdict, verdict


def test_agent_stops_fails_on_the_stub_saying_it_loops():
    verdict = lesson09.check_agent_stops(
        lambda: agent_graph(lambda s: END if s.get("final") else "tools")
    )
    assert not verdict
    assert "still loops" in verdict.message
    assert "recursion limit (25)" in verdict.message
    # the step the error names (26: about to run agent) follows the last step that ran
    assert "stopped it after step 25" in verdict.message
    assert "agent → tools" in verdict.message
    assert "answer` was '42'" in verdict.message


def test_agent_stops_fails_when_the_router_always_ends():
    verdict = lesson09.check_agent_stops(lambda: agent_graph(lambda s: END))
    assert not verdict
    assert "answer=None" in verdict.message
    assert "`tools` ran at steps []" in verdict.message


def test_agent_stops_fails_when_the_router_counts_instead_of_reading_the_answer():
    verdict = lesson09.check_agent_stops(
        lambda: agent_graph(lambda s: END if s["tool_calls"] >= 1 else "tools")
    )
    assert not verdict
    assert "should answer '42'" in verdict.message


def test_agent_stops_fails_when_the_router_stops_a_round_late_saying_so():
    verdict = lesson09.check_agent_stops(
        lambda: agent_graph(lambda s: END if s["tool_calls"] > 2 else "tools")
    )
    assert not verdict
    assert "tool_calls=3" in verdict.message
    assert "not a round later" in verdict.hint and "not before" not in verdict.hint


def test_report_runs_with_plain_edges_passes_but_says_the_waiting_edge_makes_it_a_rule():
    verdict = lesson09.check_report_runs(
        lambda: research(lambda s: ["search", "cite"], waiting=False)
    )
    assert verdict
    assert "met at the waiting edge" not in verdict.message
    assert "finish in the same step" in verdict.message


def test_agent_stops_names_the_router_that_raised():
    # a KeyError in the router runs in agent's task: the verdict names the function too
    def should_continue(state: Agent) -> str:
        return END if state["answer"] else "tools"

    verdict = lesson09.check_agent_stops(lambda: agent_graph(should_continue))
    assert not verdict
    assert "KeyError in step 1 (node agent): 'answer'" in verdict.message
    assert "Raised by the router should_continue of node 'agent'" in verdict.message
    assert "should_continue read state['answer']" in verdict.message
    # the router runs after agent returned, in agent's step: no node "before agent" is
    # missing; answer comes in a later round, so the hint is to read it with .get
    assert "nor agent itself in this step wrote answer" in verdict.message
    assert "state.get('answer')" in verdict.hint
    assert "what agent just returned" in verdict.hint


def test_agent_stops_comparing_the_answer_with_a_number_hints_at_the_value():
    verdict = lesson09.check_agent_stops(
        lambda: agent_graph(lambda s: END if s.get("answer") == 42 else "tools")
    )
    assert not verdict
    assert "the router never chose END" in verdict.message
    assert "with what value" in verdict.hint


def test_agent_stops_hint_gives_a_trace_that_runs_as_written(capsys):
    # The hint's code must run in the learner's notebook: the `error` it prints exists
    # only inside an except clause, so the hint has to bring its own try/except.
    from graphkit import GraphRecursionError

    def stub():
        return agent_graph(lambda s: END if s.get("final") else "tools")

    verdict = lesson09.check_agent_stops(stub)
    assert not verdict
    code = "\n".join(verdict.hint.splitlines()[1:]).replace("`", "")
    assert "except GraphRecursionError as error:" in code
    exec(code, {"build_agent": stub, "GraphRecursionError": GraphRecursionError})
    assert "the recursion limit was reached" in capsys.readouterr().out
    # and the notebook shows it on its lines, indented
    assert 'gk-verdict-hint" style="white-space:pre-wrap"' in verdict._repr_html_()


def test_agent_stops_fails_when_the_router_ends_on_an_exact_count():
    # tool_calls == 2 stops the lesson's run, but an agent that already made three calls
    # answers at once and loops on: the check starts from more than 0 and 1
    verdict = lesson09.check_agent_stops(
        lambda: agent_graph(lambda s: END if s["tool_calls"] == 2 else "tools")
    )
    assert not verdict
    assert "Starting with tool_calls=3, your agent still loops" in verdict.message


def test_agent_stops_with_end_as_a_string_has_a_hint_like_the_other_verdicts():
    returned = lesson09.check_agent_stops(
        lambda: agent_graph(lambda s: "END" if s.get("answer") else "tools")
    )
    listed = lesson09.check_agent_stops(
        lambda: agent_graph(lambda s: END if s.get("answer") else "tools", ends="END")
    )
    assert "returned 'END'" in returned.message and "lists unknown node 'END'" in listed.message
    for verdict in (returned, listed):
        assert not verdict
        assert "not the string 'END'" in verdict.message
        assert "written without quotes" in verdict.hint and "add_conditional_edges" in verdict.hint


def test_agent_stops_when_agent_writes_a_key_the_state_lacks_the_loop_verdict_says_so():
    # A plausible fix: agent writes "final" for the stub's router to read. "final" is not
    # in AgentState, so the write is dropped (graphkit warns, LangGraph drops it silently)
    # and the loop goes on. The check swallows warnings while it traces, so the loop
    # verdict must carry the warning: otherwise the learner sees "the router never chose
    # END" and a router that reads exactly what agent writes.
    def agent(state: Agent) -> dict:
        return {"answer": "42", "final": True} if state["tool_calls"] >= 2 else {}

    def should_continue(state: Agent) -> str:  # annotated, as in the notebook's stub
        return END if state.get("final") else "tools"

    def build():
        builder = StateGraph(Agent)
        builder.add_node("agent", agent)
        builder.add_node("tools", lambda s: {"tool_calls": 1})
        builder.add_edge(START, "agent")
        builder.add_conditional_edges("agent", should_continue, ["tools", END])
        builder.add_edge("tools", "agent")
        return builder

    verdict = lesson09.check_agent_stops(build)
    assert not verdict
    assert "still loops" in verdict.message
    assert "graphkit warned: Node 'agent' returned key 'final'" in verdict.message
    assert "not in the state schema" in verdict.message
    assert verdict.message.count("graphkit warned") == 1  # said once, not once a step


def test_the_wrong_and_right_resumes_show_the_same_when_run_again_at_once():
    """A learner runs section 5's two wrong resumes again, then the right one twice: each
    shows what the text says. (Run again, the resume "on a new thread" answered the pause
    its first run had left on ticket-8, and the right resume found ticket-7 finished: a
    warning, and no update.) Interrupt ids differ from run to run."""
    shown = run_cells(
        LESSON,
        until="class Essay(TypedDict)",
        again=("l09-c49", "l09-c53", "l09-c53"),
        names={"display": print},
        ignoring=AN_ID,
    )
    assert shown["l09-c49"][0].startswith(
        "Command(resume=...) on a new thread:\n{'write': {'text': 'Dear customer, ...'}}"
    )
    assert shown["l09-c53"][0] == "{'review': {'approved': True}}\n"


def test_no_overwrite_without_the_reducer_is_not_praised_for_the_reducer():
    # collect appending by hand to a plain list runs right: the praise said "the add
    # reducer appends each item once", of a graph that has none
    class Plain(TypedDict):
        items: list
        total: int

    builder = StateGraph(Plain)
    builder.add_node("collect", lambda s: {"items": s["items"] + ["apple", "pear"]})
    builder.add_node("count", lambda s: {"total": len(s["items"])})
    builder.add_edge(START, "collect")
    builder.add_edge("collect", "count")
    builder.add_edge("count", END)
    verdict = lesson09.check_no_overwrite(builder)
    assert verdict
    assert "the add reducer appends each item once" not in verdict.message
    assert "collect appends to the list itself" in verdict.message


def test_no_overwrite_names_a_graph_without_items_not_the_check():
    # a graph of another state (the lesson's research graph, another exercise's) was
    # answered "The check itself raised KeyError: Update.change('items')"
    class Counter(TypedDict):
        n: int

    builder = StateGraph(Counter)
    builder.add_node("a", lambda state: {"n": 1})
    builder.add_edge(START, "a")
    verdict = lesson09.check_no_overwrite(builder)
    assert not verdict and verdict.check_error is None
    assert verdict.message == (
        "build_tally()'s graph has no state keys 'items' and 'total': its keys are ['n']. The "
        "exercise's graph keeps items and total (the lesson's Tally)."
    )
    assert verdict.hint == "Build it on StateGraph(Tally), as the lesson's cell does."
