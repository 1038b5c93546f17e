"""run.why(node, step): why a node ran, or did not, on every graph shape."""

from __future__ import annotations

import operator
import warnings
from typing import Annotated, TypedDict

import pytest

from graphkit import END, START, Command, GraphkitWarning, Send, StateGraph
from graphkit.errors import GraphRecursionError
from graphkit.inspect import Explanation
from tests.widgets.graphs import edited_sends_app


class Log(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def log(name):
    return lambda state: {"log": [name]}


def trace(app, x=1):
    return app.trace({"x": x, "log": []})


# -- the seed example (the two required answers) --------------------------------


def test_seed_summarize_ran_because_both_weather_and_news_wrote_in_step_2(seed_run):
    answer = seed_run.why("summarize", step=3)
    assert answer.ran
    assert answer.summary == (
        "summarize ran at step 3 because both news and weather wrote branch:to:summarize in step 2."
    )
    (reason,) = answer.answers[0].reasons
    assert (reason.kind, reason.step, reason.writers) == ("edge", 2, ("news", "weather"))


def test_seed_weather_did_not_run_at_planners_step_the_write_is_visible_next_step(seed_run):
    answer = seed_run.why("weather", step=1)
    assert not answer.ran
    assert answer.summary == (
        "weather did not run at step 1: planner wrote branch:to:weather in step 1, and a "
        "write becomes visible only in the next step, so weather runs at step 2."
    )
    assert answer.kinds == ["not_updated", "next_step"]


def test_seed_with_the_graph_names_the_router_and_the_edges(seed_run, seed_app):
    assert seed_run.why("weather", step=1, graph=seed_app).answers[0].reasons[-1].text == (
        "planner wrote branch:to:weather during step 1's Execute (through planner's "
        "router 'route'). Writes are applied in step 1's Update, after every task of step 1 "
        "finished, so the write becomes visible only in the next step: weather runs at step 2."
    )
    text = " ".join(str(seed_run.why("summarize", step=3, graph=seed_app)).split())
    assert "the edge news → summarize and the edge weather → summarize" in text


def test_seed_full_text_of_a_not_run_answer(seed_run):
    """Printed, the answer wraps at words (88 columns, each reason indented under its
    dash): JupyterLab breaks a longer line mid-word wherever it meets the edge."""
    assert str(seed_run.why("weather", step=1)) == (
        "weather did not run at step 1: planner wrote branch:to:weather in step 1, and a write\n"
        "becomes visible only in the next step, so weather runs at step 2.\n"
        "  - Step 1's Plan wakes the nodes whose trigger channels step 0's Update changed:\n"
        "    branch:to:planner (written by __start__). branch:to:weather was not among them.\n"
        "  - planner wrote branch:to:weather during step 1's Execute (through an edge or\n"
        "    conditional edge of planner). Writes are applied in step 1's Update, after every\n"
        "    task of step 1 finished, so the write becomes visible only in the next step: weather\n"
        "    runs at step 2."
    )


def test_a_long_name_is_not_broken_to_wrap_the_printed_answer(make):
    long = "fetch_the_latest_weather_report_for_every_city_in_the_list_of_cities_we_track"
    app = make(["first", long], [(START, "first"), ("first", long)])
    text = str(trace(app).why(long, graph=app))
    assert long in text.split() and "first-" not in text
    assert all(len(line) <= 88 or long in line for line in text.splitlines())


def test_step_none_explains_every_step_where_it_ran(seed_run):
    explanation = seed_run.why("weather")
    assert [(a.step, a.ran) for a in explanation.answers] == [(2, True)]
    assert explanation.summary == (
        "weather ran at step 2 because planner wrote branch:to:weather in step 1."
    )


# -- linear ----------------------------------------------------------------------------------


def test_linear_each_node_ran_because_the_one_before_wrote_its_branch(linear):
    run = trace(linear)
    assert run.why("b", 2).summary == "b ran at step 2 because a wrote branch:to:b in step 1."
    assert run.why("a", 1, graph=linear).answers[0].reasons[0].text == (
        "branch:to:a was written in step 0 by the edge START → a; step 0's Update applied "
        "it (version 2), so step 1's Plan woke a."
    )


def test_linear_not_run_says_what_the_previous_update_woke_and_when_it_last_ran(linear):
    run = trace(linear)
    answer = run.why("a", 3)
    assert answer.summary == "a did not run at step 3: nothing wrote branch:to:a in step 2."
    assert answer.answers[0].reasons[0].text == (
        "Step 3's Plan wakes the nodes whose trigger channels step 2's Update changed: "
        "branch:to:c (written by b). branch:to:a was not among them. a last ran at step 1."
    )


def test_input_step_and_the_step_after_the_end(linear):
    run = trace(linear)
    assert run.why("a", -1).kinds == ["input_step"]
    assert run.why("__start__", 0).kinds == ["input"]
    assert run.why("__input__", -1).ran
    finished = run.why("c", 4)
    assert finished.kinds == ["finished"]
    assert (
        finished.summary
        == "c did not run at step 4: the run finished at step 4 (no node was triggered); "
        "c last ran at step 3."
    )
    assert run.why("c", 99).kinds == ["finished"]


def test_a_step_after_the_end_says_why_a_node_never_ran(make):
    """Lesson 09's help desk: asked at step 2, where billing should have run, why said
    only that the run had finished there, not that the router's 'Billing' is no node."""
    app = make(
        ["triage", "billing", "support"],
        [(START, "triage")],
        [("triage", lambda state: "Billing", None)],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        answer = trace(app).why("billing", 2, graph=app)
    assert answer.summary == (
        "billing did not run at step 2: the run finished at step 2 (no node was triggered), "
        "and billing never ran: triage chose 'Billing', which is not a node; did you mean "
        "billing?"
    )
    assert answer.kinds[0] == "finished" and "chose_otherwise" in answer.kinds


# -- branch ----------------------------------------------------------------------------------


def test_branch_the_router_chose_the_other_node(branch):
    run = trace(branch, x=1)  # small
    answer = run.why("big", 2, graph=branch)
    assert answer.summary == "big did not run at step 2: check chose small in step 1, not big."
    assert answer.kinds == ["not_updated", "chose_otherwise"]
    assert answer.answers[0].reasons[1].text == (
        "check ran in step 1 and its router (a lambda, to big or small) chose small, not big."
    )
    assert run.why("small", 2, graph=branch).summary == (
        "small ran at step 2 because check wrote branch:to:small in step 1."
    )


def test_branch_never_chosen_over_the_whole_run(branch):
    run = trace(branch, x=1)
    answer = run.why("big", graph=branch)
    assert answer.answers[0].step is None
    assert answer.summary == "big never ran: check chose small, never big."
    assert answer.kinds == ["never_written", "chose_otherwise"]


def test_without_the_graph_a_node_the_run_never_touched_is_refused(branch):
    run = trace(branch, x=1)
    with pytest.raises(ValueError, match=r"Node 'big' is not in this run.*graph=app"):
        run.why("big")
    with pytest.raises(ValueError, match="no step -2"):
        run.why("small", -2)


def test_without_the_graph_a_name_a_router_chose_is_not_listed_as_a_node():
    # lesson 09: the router returned 'Billing'; asking about 'billing' must not read as if
    # 'Billing' were the graph's spelling of it
    builder = StateGraph(Log).add_node("triage", log("triage")).add_node("billing", log("b"))
    builder.add_edge(START, "triage").add_conditional_edges("triage", lambda s: "Billing")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        run = trace(builder.compile())
    with pytest.raises(ValueError) as refused:
        run.why("billing")
    assert "its nodes are ['triage'] (" in str(refused.value)
    assert "chose ['Billing'], no node's name)" in str(refused.value)


def test_the_name_a_router_chose_that_no_node_has_is_refused_not_explained():
    # asked about 'Billing' itself, why answered "no edge or router chose Billing" though
    # triage's router had chosen it (the runtime dropped the write: no node has the name)
    builder = StateGraph(Log).add_node("triage", log("triage")).add_node("billing", log("b"))
    builder.add_edge(START, "triage").add_conditional_edges("triage", lambda s: "Billing")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        app = builder.compile()
        run = trace(app)
    with pytest.raises(ValueError, match=r"Node 'Billing' is not in this run; .*graph=app"):
        run.why("Billing")
    with pytest.raises(ValueError) as refused:
        run.why("Billing", graph=app)
    assert str(refused.value) == (
        "Node 'Billing' is not in this graph; its nodes are ['billing', 'triage'] (a router "
        "or Command chose ['Billing'], no node's name). Did you mean 'billing'?"
    )


def test_an_unknown_node_lists_the_learners_nodes_and_suggests_a_case_slip(branch):
    # it listed '__input__' and '__start__' among the nodes, names no learner wrote
    run = trace(branch, x=1)
    with pytest.raises(ValueError) as refused:
        run.why("Small")
    assert str(refused.value) == (
        "Node 'Small' is not in this run; its nodes are ['check', 'small']. Did you mean 'small'?"
    )
    assert run.why("__start__", 0).summary.startswith("__start__ ran at step 0")


def test_without_the_graph_a_router_is_recognised_once_it_chose_the_node(branch):
    run = trace(branch, x=7)  # big at step 2
    assert run.why("small", 2, graph=branch).kinds == ["not_updated", "chose_otherwise"]


# -- fan-out / fan-in ------------------------------------------------------------------------


def test_fan_out_siblings_run_together_and_fan_in_waits_one_step(fan):
    run = trace(fan)
    assert run.why("left", 2).summary == (
        "left ran at step 2 because split wrote branch:to:left in step 1."
    )
    assert run.why("join", 3).summary == (
        "join ran at step 3 because both left and right wrote branch:to:join in step 2."
    )
    assert run.why("join", 2).summary == (
        "join did not run at step 2: both left and right wrote branch:to:join in step 2, and "
        "a write becomes visible only in the next step, so join runs at step 3."
    )


# -- waiting edge ----------------------------------------------------------------------------


def test_waiting_edge_still_waiting_for_b(waiting):
    run = trace(waiting)
    answer = run.why("c", 2)
    assert answer.summary == (
        "c did not run at step 2: the waiting edge [a, b] → c is still waiting for b."
    )
    (reason,) = answer.answers[0].reasons
    assert (reason.kind, reason.channel, reason.writers) == ("still_waiting", "join:a+b:c", ("a",))
    assert reason.text == (
        "The waiting edge [a, b] → c (join:a+b:c) runs c only once all of its sources have "
        "written; by step 1's Update, a wrote in step 1, so it is still waiting for b."
    )


def test_waiting_edge_completed_in_this_step_runs_in_the_next(waiting):
    answer = trace(waiting).why("c", 3)
    assert answer.kinds == ["still_waiting", "next_step"]
    assert answer.summary == (
        "c did not run at step 3: b wrote join:a+b:c in step 3, and a write becomes visible "
        "only in the next step, so c runs at step 4."
    )


def test_waiting_edge_ran_names_every_source_and_its_step(waiting):
    answer = trace(waiting).why("c", 4, graph=waiting)
    assert answer.summary == (
        "c ran at step 4 because the waiting edge [a, b] → c was complete: a wrote in step 1, "
        "b wrote in step 3."
    )
    assert answer.answers[0].reasons[0].writers == ("a", "b")


def test_waiting_edge_that_never_completes(make):
    app = make(["a", "b1", "b", "c"], [(START, "a"), (START, "b1")], waiting=[(("a", "b"), "c")])
    answer = trace(app).why("c")
    assert answer.summary == "c never ran: the waiting edge [a, b] → c is still waiting for b."


def test_a_waiting_edge_part_written_in_a_failed_step_is_said_written_not_missing():
    """b raised beside a, whose write to the barrier was never applied: why("c") said
    "none has written yet" and that the edge waited for a and b."""

    def boom(state: Log) -> dict:
        raise ValueError("boom")

    builder = StateGraph(Log).add_node("a", lambda s: {"log": ["a"]}).add_node("b", boom)
    builder.add_node("c", lambda s: {}).add_edge(START, "a").add_edge(START, "b")
    app = builder.add_edge(["a", "b"], "c").compile()
    with pytest.raises(ValueError) as caught:
        app.trace({"log": []})
    answer = caught.value.run.why("c")
    assert answer.summary == (
        "c never ran: the waiting edge [a, b] → c is still waiting for b (a's part is "
        "written, not applied: the step failed)."
    )
    assert answer.answers[0].reasons[0].text == (
        "The waiting edge [a, b] → c (join:a+b:c) runs c only once all of its sources have "
        "written; by the run's end, a wrote its part in step 1, but the step failed before "
        "its Update applied it, so it is still waiting for b."
    )


# -- recursion limit ---------------------------------------------------------------------------


def test_recursion_limit_stopped_the_run_where_the_node_was_due(loop_run):
    assert loop_run.status == "out_of_steps"
    answer = loop_run.why("spin", 4)
    assert answer.kinds == ["recursion_limit"]
    assert answer.summary == (
        "spin did not run at step 4: the recursion limit stopped the run before step 4, where "
        "spin was due to run."
    )
    assert "Raise config['recursion_limit']" in str(answer)


def test_recursion_limit_names_the_router_that_kept_the_loop_going(loop_run, loop):
    """A loop the author thought ends (langgraph#148, langmanus#61): the reason names
    the router that chose the node again every time, never END, and where to look."""
    reason = loop_run.why("spin", 4, graph=loop).answers[0].reasons[0]
    assert reason.text == (
        "The run reached its recursion limit before step 4 (GraphRecursionError), where "
        "spin was due to run. spin ran at steps 1, 2 and 3, and each time its router (a "
        "lambda, to spin or done) chose spin again, never END: the loop had no way out. "
        "If it should have ended, look at what that router read: run.to_frame('state') "
        "shows the state after each of those steps. Raise config['recursion_limit'] if "
        "the graph needs more steps, or check that a router eventually routes to END."
    )


def test_recursion_limit_follows_an_edge_back_to_the_loops_router():
    """agent → tools by a router, tools → agent by an edge: with agent due, the reason
    names agent's router, which chose tools every time."""
    builder = StateGraph(Log).add_node("agent", lambda s: {"log": ["agent"]})
    builder.add_node("tools", lambda s: {"log": ["tools"]}).add_edge(START, "agent")
    builder.add_conditional_edges("agent", lambda s: "tools", ["tools", END])
    app = builder.add_edge("tools", "agent").compile()
    with pytest.raises(GraphRecursionError) as caught:
        app.trace({"log": []}, {"recursion_limit": 4})
    text = caught.value.run.why("agent", 5, graph=app).answers[0].reasons[0].text
    assert (
        "agent ran at steps 1 and 3, and each time its router (a lambda, to tools or END) "
        "chose tools again, never END: the loop had no way out." in text
    )


def test_recursion_limit_a_node_the_loop_never_reached(loop_run, loop):
    answer = loop_run.why("done", graph=loop)
    assert answer.summary == "done never ran: spin chose spin, never done."
    assert answer.kinds == ["never_written", "chose_otherwise", "recursion_limit"]
    assert answer.answers[0].reasons[1].text == (
        "spin ran at steps 1, 2 and 3, and its router (a lambda, to spin or done) chose spin, "
        "never done."
    )


def test_a_loop_ran_because_it_woke_itself(loop_run):
    assert loop_run.why("spin", 2).summary == (
        "spin ran at step 2 because spin wrote branch:to:spin in step 1."
    )
    assert [a.step for a in loop_run.why("spin").answers] == [1, 2, 3]


# -- a node that raised ------------------------------------------------------------------------


def test_the_node_that_raised_ran_and_its_step_never_updated(failing_run):
    answer = failing_run.why("bad", 1)
    assert answer.ran
    assert answer.kinds == ["edge", "raised"]
    assert "bad raised ValueError: bad <script>alert(1)</script>." in str(answer)


def test_an_error_of_several_lines_reads_on_one_line():
    """LangGraph's errors end with a "For troubleshooting" line; a reason's text is
    printed with control characters escaped, so why("writer") read "...made it.\\nFor
    troubleshooting" (lesson 16's handoff with a tool call left unanswered)."""
    from graphkit import START, StateGraph

    def writer(state):
        raise ValueError("no ToolMessage answers the call.\nFor troubleshooting, visit: x")

    builder = StateGraph(dict).add_node("writer", writer).add_edge(START, "writer")
    with pytest.raises(ValueError) as raised:
        builder.compile().trace({"n": 1})
    said = raised.value.run.why("writer").text(width=None)
    assert "answers the call. For troubleshooting, visit: x." in said
    assert "\\n" not in said


def test_a_sibling_of_the_failing_node_lost_its_writes(failing_run):
    answer = failing_run.why("ok", 1)
    assert answer.kinds == ["edge", "step_failed"]
    assert answer.answers[0].reasons[1].writers == ("bad",)


def test_after_a_failure_later_nodes_never_run(failing_run):
    assert failing_run.why("after", 2).summary == (
        "after did not run at step 2: the run failed at step 1."
    )
    answer = failing_run.why("after")
    assert answer.summary == (
        "after never ran: ok wrote branch:to:after in step 1, but that step failed."
    )
    assert answer.kinds == ["unapplied", "failed"]


# -- Send and Command (now in the runtime) -----------------------------------------------------


def test_send_push_tasks_name_their_sender(make):
    def fan_out(state):
        return [Send("work", {"x": value, "log": []}) for value in (1, 2)]

    app = make(["plan", "work"], [(START, "plan")], [("plan", fan_out, ["work"])])
    run = trace(app)
    answer = run.why("work", 2)
    assert (
        answer.summary
        == "work ran at step 2 (2 tasks) because plan sent it a packet (Send) in step 1."
    )
    assert answer.kinds == ["push", "push"]
    assert run.why("work", 1).summary == (
        "work did not run at step 1: plan sent it a packet in step 1, and a write becomes "
        "visible only in the next step, so work runs at step 2."
    )


def test_command_goto_is_named_as_such(make):
    def decide(state):
        return Command(update={"log": ["decide"]}, goto="yes")

    app = make([("decide", decide), "yes", "no"], [(START, "decide")])
    run = trace(app)
    for step in (2, 1):
        assert "decide's Command(goto='yes')" in " ".join(str(run.why("yes", step)).split())


# -- the answer object ---------------------------------------------------------------------------


def test_explanation_is_an_explanation_with_a_short_repr(seed_run):
    explanation = seed_run.why("weather", step=1)
    assert isinstance(explanation, Explanation)
    assert repr(explanation) == "Explanation(node='weather', step=1, ran=False)"
    assert "becomes visible only in the next step" in explanation._repr_html_()


# -- a deferred node ----------------------------------------------------------------------------


def deferred_graph():
    """START -> a -> b1 -> b2 -> b3, and a -> report, where report is added with
    defer=True: it runs once nothing else is left (step 5)."""
    builder = StateGraph(Log)
    for name in ("a", "b1", "b2", "b3"):
        builder.add_node(name, log(name))
    builder.add_node("report", log("report"), defer=True)
    builder.add_edge(START, "a").add_edge("a", "b1").add_edge("b1", "b2").add_edge("b2", "b3")
    builder.add_edge("a", "report")
    return builder.compile()


def test_a_deferred_node_ran_because_a_wrote_and_the_run_had_nothing_else_to_run():
    app = deferred_graph()
    run = trace(app)
    answer = run.why("report", graph=app)
    assert answer.summary == (
        "report ran at step 5 because a wrote branch:to:report in step 1, and report is "
        "deferred: it waits until the run has nothing else to run."
    )
    assert answer.kinds == ["edge", "deferred"]
    edge, deferred = answer.answers[0].reasons
    assert (edge.step, edge.writers, deferred.step) == (1, ("a",), 4)
    assert edge.text == (
        "branch:to:report was written in step 1 by the edge a → report; report was added "
        "with defer=True, so the write was held back instead of waking report in the next step."
    )
    assert deferred.text == (
        "A deferred node waits until the run has nothing else to run: step 4's Update woke "
        "no other node, so it released branch:to:report (version 6) and step 5's Plan woke "
        "report."
    )


def test_a_deferred_node_did_not_run_while_its_write_was_held_back():
    app = deferred_graph()
    run = trace(app)
    answer = run.why("report", step=2)
    assert answer.summary == (
        "report did not run at step 2: a wrote branch:to:report in step 1, but report is "
        "deferred: it waits until the run has nothing else to run, so it runs at step 5."
    )
    (reason,) = answer.answers[0].reasons
    assert (reason.kind, reason.step, reason.channel, reason.writers) == (
        "deferred",
        1,
        "branch:to:report",
        ("a",),
    )
    assert reason.text == (
        "a wrote branch:to:report in step 1 (through an edge or conditional edge of a), and "
        "report was added with defer=True: a deferred node waits until the run has nothing "
        "else to run, so step 1's Update held the write back. Step 2's Plan woke b1 instead; "
        "report runs at step 5."
    )
    # in the step a wrote, the write is not "visible next step": it is held back
    assert run.why("report", step=1).summary == (
        "report did not run at step 1: a wrote branch:to:report in step 1, but report is "
        "deferred: it waits until the run has nothing else to run, so it runs at step 5."
    )


def test_a_deferred_node_of_a_run_paused_inside_a_step_names_that_step_as_next():
    """b paused in interrupt() at step 2: why("c") said "the run's next step is 3", but
    resuming goes on with step 2."""
    from graphkit import InMemorySaver, interrupt

    def b(state: Log) -> dict:
        interrupt("ok?")
        return {"log": ["b"]}

    builder = StateGraph(Log).add_node("a", log("a")).add_node("b", b)
    builder.add_node("c", log("c"), defer=True).add_edge(START, "a")
    app = builder.add_edge("a", "b").add_edge("a", "c").compile(checkpointer=InMemorySaver())
    run = app.trace({"log": []}, {"configurable": {"thread_id": "t"}})
    assert run.status == "interrupted"
    text = run.why("c", step=2).answers[0].reasons[0].text
    assert text.endswith(
        "c has not run yet: the run stopped inside step 2 and goes on with it, and it runs c "
        "at the first step with nothing else to run."
    )


def test_a_deferred_node_mid_run_is_not_said_to_have_missed_the_end_of_the_run():
    # in the debugger after step 2, report (deferred, due at step 5) read "The run ended
    # before report ran" while the run could go on; a run that ended still says so
    app = deferred_graph()
    stepper = app.stepper({"x": 0, "log": []})
    for _ in range(4):  # the input step and steps 0, 1 and 2
        stepper.step()
    text = stepper.run_so_far.why("report", step=2, graph=app).answers[0].reasons[0].text
    assert text.endswith(
        "Step 2's Plan woke b1 instead; report has not run yet: the run's next step is 3, "
        "and it runs report at the first step with nothing else to run."
    )
    assert "ended" not in text

    def broken(state):
        raise ValueError("b2 broke")

    builder = StateGraph(Log)
    for name in ("a", "b1", "b3"):
        builder.add_node(name, log(name))
    builder.add_node("b2", broken).add_node("report", log("report"), defer=True)
    builder.add_edge(START, "a").add_edge("a", "b1").add_edge("b1", "b2").add_edge("b2", "b3")
    app = builder.add_edge("a", "report").compile()
    with pytest.raises(ValueError) as failed:
        app.trace({"x": 0, "log": []})
    text = failed.value.run.why("report", step=2, graph=app).answers[0].reasons[0].text
    assert text.endswith("Step 2's Plan woke b1 instead; the run ended before report ran.")


# -- after a Send ---------------------------------------------------------------------------------


def test_not_run_after_sends_lists_what_the_update_changed_and_the_push_tasks(make):
    def topics(state):
        return {"x": 2}

    def fan_out(state):
        return [Send("generate", {"x": value, "log": []}) for value in (1, 2)]

    app = make(
        [("generate_topics", topics), "generate"],
        [(START, "generate_topics")],
        [("generate_topics", fan_out, ["generate"])],
    )
    answer = trace(app).why("generate_topics", step=2, graph=app)
    assert answer.answers[0].reasons[0].text == (
        "Step 2's Plan wakes the nodes whose trigger channels step 1's Update changed: none; "
        "that Update changed only x (written by generate_topics) and __pregel_tasks (the "
        "Sends of generate_topics). branch:to:generate_topics was not among them. Step 2's "
        "push tasks came from those Sends: 2 for generate. generate_topics last ran at step 1."
    )


# -- a router's name that is not a node ----------------------------------------------------------


def test_a_router_returning_a_name_that_is_not_a_node_is_named_with_its_spelling():
    builder = StateGraph(Log)
    for name in ("triage", "billing", "support"):
        builder.add_node(name, log(name))
    builder.add_edge(START, "triage")
    builder.add_conditional_edges("triage", lambda state: "Billing")
    app = builder.compile()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        run = trace(app)
    answer = run.why("billing", graph=app)
    assert answer.summary == (
        "billing never ran: triage chose 'Billing', which is not a node; did you mean billing?"
    )
    assert answer.answers[0].reasons[-1].text == (
        "triage ran at step 1, and its router (a lambda) returned 'Billing', which is not a "
        "node, so nothing ran for it (the runtime drops such a choice, with a warning). Node "
        "names are case-sensitive: did you mean billing?"
    )


def test_a_waiting_edge_target_is_still_waiting_even_when_a_router_has_no_path_map(make):
    app = make(
        ["start", "search", "cite", "report"],
        [(START, "start")],
        [("start", lambda state: ["search"], None)],
        waiting=[(("search", "cite"), "report")],
    )
    answer = trace(app).why("report", graph=app)
    assert answer.summary == (
        "report never ran: the waiting edge [search, cite] → report is still waiting for cite."
    )
    assert "never_written" not in answer.kinds
    # The router could choose any node, report too, but what keeps report asleep is
    # cite: the reason names the router's choice against cite, not against report.
    texts = [reason.text for reason in answer.answers[0].reasons]
    assert texts[-1] == "start ran at step 1, and its router (a lambda) chose search, never cite."
    assert not any("report" in text for text in texts[1:])


def test_a_misspelt_source_of_a_waiting_edge_is_named_as_that_source(make):
    """Exercise 9.1: the router returned 'citations'; did it mean cite (the source the
    waiting edge waits for), not "it never chose report"."""
    app = make(
        ["plan", "search", "cite", "report"],
        [(START, "plan")],
        [("plan", lambda state: ["search", "citations"], None)],
        waiting=[(("search", "cite"), "report")],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        answer = trace(app).why("report", graph=app)
    assert answer.kinds == ["still_waiting", "chose_otherwise"]
    assert (
        answer.answers[0]
        .reasons[-1]
        .text.endswith(
            "so nothing ran for 'citations' (the runtime drops such a choice, with a warning). "
            "Check the spelling: did you mean cite?"
        )
    )
    assert "never chose report" not in str(answer)


@pytest.mark.parametrize(
    ("returned", "advice"),
    [
        (["Search", "Cite"], "Node names are case-sensitive: did you mean search and cite?"),
        ("search, cite", "Check the spelling: did you mean search? It never chose cite."),
    ],
)
def test_a_router_that_missed_both_sources_of_a_waiting_edge_is_named_once(make, returned, advice):
    """Exercise 9.1: one router passed over both sources the edge waits for; its
    sentence is said once, for both, not once per source."""
    app = make(
        ["plan", "search", "cite", "report"],
        [(START, "plan")],
        [("plan", lambda state: returned, None)],
        waiting=[(("search", "cite"), "report")],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        answer = trace(app).why("report", graph=app)
    assert answer.kinds == ["still_waiting", "chose_otherwise"]
    assert (
        answer.answers[0]
        .reasons[-1]
        .text.endswith("(the runtime drops such a choice, with a warning). " + advice)
    )


def test_a_node_planned_at_a_breakpoint_is_planned_to_run_not_ran():
    """A run stopped after its Plan (a breakpoint) has not run the planned task yet."""
    from graphkit.inspect.examples import forecast_graph
    from graphkit.widgets import DebugSession

    session = DebugSession(forecast_graph(), {"topic": "t", "tokens": 0}, breakpoints=["summarize"])
    session.run()
    step = session.supersteps[-1].step
    explanation = session.stepper.run_so_far.why("summarize", step, graph=session.app)
    assert explanation.answers[0].summary.startswith(f"summarize is planned to run at step {step}")
    session.run()  # past the breakpoint: now it ran
    ran = session.stepper.run_so_far.why("summarize", step, graph=session.app)
    assert ran.answers[0].summary.startswith("summarize ran at")


def test_a_low_level_pregels_not_run_names_the_channels_that_woke_others():
    """A Pregel's nodes subscribe to any channel: those are its triggers, not only
    StateGraph's edge channels (lesson 10's shortest paths said "none" woke anything)."""
    from graphkit.channels import EphemeralValue, LastValue
    from graphkit.pregel import NodeBuilder, Pregel

    hop = NodeBuilder().subscribe_only("inbox:a").do(lambda x: x + 1).write_to("inbox:b")
    last = NodeBuilder().subscribe_only("inbox:b").do(lambda x: x).write_to("out")
    channels = {name: EphemeralValue(int) for name in ("inbox:a", "inbox:b", "inbox:c")}
    app = Pregel(
        nodes={"a": hop, "b": last, "c": NodeBuilder().subscribe_only("inbox:c").do(abs)},
        channels={**channels, "out": LastValue(int)},
        input_channels="inbox:a",
        output_channels="out",
    )
    (reason,) = app.trace(1).why("c", 1, graph=app).answers[0].reasons
    assert "step 0's Update changed: inbox:b (written by a). inbox:c was not among" in reason.text


def test_a_low_level_pregels_not_run_without_the_program_names_the_trigger_the_run_recorded():
    """Lesson 10: without ``graph=``, a vertex's triggers are the channels that woke it
    in the run (inbox:b), not a StateGraph's branch:to:b, which nothing ever writes."""
    from graphkit.channels import EphemeralValue, LastValue
    from graphkit.pregel import NodeBuilder, Pregel

    hop = NodeBuilder().subscribe_only("inbox:a").do(lambda x: x + 1).write_to("inbox:b")
    last = NodeBuilder().subscribe_only("inbox:b").do(lambda x: x).write_to("out")
    app = Pregel(
        nodes={"a": hop, "b": last},
        channels={
            "inbox:a": EphemeralValue(int),
            "inbox:b": EphemeralValue(int),
            "out": LastValue(int),
        },
        input_channels="inbox:a",
        output_channels="out",
    )
    run = app.trace(1)
    assert run.why("b", 0).summary == (
        "b did not run at step 0: a wrote inbox:b in step 0, and a write becomes visible only "
        "in the next step, so b runs at step 1."
    )
    assert str(run.why("b", 0)) == str(run.why("b", 0, graph=app))
    # the write is the way: no "(through a)" after "a wrote inbox:b" (lesson 10's E)
    (_, reason) = run.why("b", 0, graph=app).answers[0].reasons
    assert reason.text.startswith("a wrote inbox:b during step 0's Execute. Writes are")


def test_a_loops_router_that_ended_the_run_says_it_chose_end(make):
    """A router that chose its own node twice, then END: the answer names END too (it
    read "chose loop, never s or c", as if the loop never stopped)."""

    def route(state):
        return "loop" if len(state["log"]) < 3 else END

    app = make(
        ["loop", "s", "c", "report"],
        [(START, "loop")],
        [("loop", route, ["loop", "s", "c", END])],
        waiting=[(("s", "c"), "report")],
    )
    answer = trace(app).why("report", graph=app)
    assert answer.answers[0].reasons[-1].text == (
        "loop ran at steps 1, 2 and 3, and its router 'route' chose loop and END, never s or c."
    )


def test_a_router_step_that_only_sent_is_no_choice_of_end(make):
    """A step whose router returned only a ``Send`` chose that Send, not END: the loop's
    router sent to c at its last step (it read "chose loop and END, never s", and for the
    step "chose END (no node), not s")."""

    def route(state):
        return "loop" if len(state["log"]) < 2 else [Send("c", state)]

    app = make(
        ["loop", "s", "c", "report"],
        [(START, "loop")],
        [("loop", route, ["loop", "s", "c", END])],
        waiting=[(("s", "c"), "report")],
    )
    run = trace(app)
    assert run.why("report", graph=app).answers[0].reasons[-1].text == (
        "loop ran at steps 1 and 2, and its router 'route' chose loop and a Send to c, never s."
    )
    assert run.why("s", 3, graph=app).answers[0].reasons[-1].text == (
        "loop ran in step 2 and its router 'route' chose a Send to c, not s."
    )


def test_a_send_to_no_node_is_named_as_dropped(make):
    """A Send to a misspelt node is dropped by the runtime (with a warning); why said the
    router "chose a Send to S", as if that had run (here and when it ended the run)."""

    def route(state):
        return [Send("S", state), *[Send("c", state)] * (len(state["log"]) < 2)]

    app = make(["loop", "s", "c"], [(START, "loop"), ("c", "loop")], [("loop", route, ["s", "c"])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)  # (the runtime's, for the Send)
        run = trace(app)
    assert run.why("s", 2, graph=app).answers[0].reasons[-1].text == (
        "loop ran in step 1 and its router 'route' chose a Send to 'S' (not a node) and a "
        "Send to c, not s."
    )
    assert run.why("s", graph=app).answers[0].reasons[-1].text == (
        "loop ran at steps 1 and 3, and its router 'route' chose a Send to 'S' (not a node) "
        "and a Send to c, never s."
    )


def test_without_the_graph_a_send_to_no_node_is_named(make):
    """Without the graph, a map-reduce whose router sent to a misspelt node left `why`
    only "Node 'search' is not in this run"; the records hold the Send and the Plan
    that made no task for it, so the refusal names it (as it names a router's name)."""

    def fan_out(state):
        return [Send("serch", {"x": value, "log": []}) for value in (1, 2)]

    app = make(["plan", "search"], [(START, "plan")], [("plan", fan_out, ["search"])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)  # (the runtime's, for the Send)
        run = trace(app)
    for asked in ("search", "serch"):
        with pytest.raises(ValueError) as refused:
            run.why(asked)
        assert str(refused.value) == (
            f"Node {asked!r} is not in this run; its nodes are ['plan'] (a Send from plan "
            "named ['serch'], no node's name). To ask about a node the run never came near, "
            "pass the graph: run.why(node, graph=app)."
        )
    with pytest.raises(ValueError, match=r"\(a Send from plan named \['serch'\], no node's"):
        run.why("serch", graph=app)


def test_a_node_only_sent_to_never_ran_because_nothing_sent_it_a_packet(make):
    """A map-reduce router sent its packets to a misspelt node: why said first "Nothing
    wrote branch:to:work ...: no edge or router chose work", a name's words, though a
    Send is how work would have come. The first reason now says nothing sent it one (and
    keeps what is still true: nothing chose it by name)."""

    def fan_out(state):
        return [Send("wrk", {"x": value, "log": []}) for value in (1, 2)]

    app = make(["plan", "work"], [(START, "plan")], [("plan", fan_out, ["work"])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)  # (the runtime's, for the Send)
        run = trace(app)
    answer = run.why("work", graph=app)
    assert answer.kinds == ["never_written", "chose_otherwise"]
    texts = [reason.text for reason in answer.answers[0].reasons]
    assert texts[0] == (
        "Nothing sent work a packet (Send) in this run, and no edge or router chose it by "
        "name (branch:to:work was never written)."
    )
    assert texts[1] == (
        "plan ran at step 1, and its router 'fan_out' chose a Send to 'wrk' (not a node), "
        "never work."
    )
    # a router that chose names keeps the words of a name
    branch = make(
        ["check", "small", "big"], [(START, "check")], [("check", lambda s: "small", None)]
    )
    assert trace(branch).why("big", graph=branch).answers[0].reasons[0].text == (
        "Nothing wrote branch:to:big in this run: no edge or router chose big."
    )


def test_why_given_a_langgraph_app_names_its_router():
    """``run.why(node, graph=app)`` with the LangGraph app a run was converted from
    failed with ``AttributeError: 'BranchSpec' object has no attribute 'targets'``."""
    graph = pytest.importorskip("langgraph.graph")
    from graphkit import from_langgraph

    def route(state):
        return "b"

    builder = graph.StateGraph(Log)
    builder.add_node("a", log("a")).add_node("b", log("b"))
    builder.add_edge(graph.START, "a").add_conditional_edges("a", route, ["b", graph.END])
    app = builder.compile()
    run = trace(from_langgraph(app))
    assert run.why("b", graph=app).answers[0].reasons[0].text == (
        "branch:to:b was written in step 1 by a's router 'route'; step 1's Update applied it "
        "(version 3), so step 2's Plan woke b."
    )


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_a_partial_router_is_named_by_its_function(library):
    """A ``functools.partial`` router read as ``'condition'`` (graphkit's branch name for
    it) or, given the LangGraph app, ``'call'`` (the converted wrapper's): names nobody wrote."""
    import functools

    from graphkit import from_langgraph

    def route(state, to):
        return to

    if library == "langgraph":
        graph = pytest.importorskip("langgraph.graph")
        builder, start = graph.StateGraph(Log), graph.START
    else:
        builder, start = StateGraph(Log), START
    builder.add_node("a", log("a")).add_node("b", log("b")).add_node("c", log("c"))
    builder.add_edge(start, "a")
    builder.add_conditional_edges("a", functools.partial(route, to="b"), ["b", "c"])
    app = builder.compile()
    run = trace(from_langgraph(app) if library == "langgraph" else app)
    assert run.why("c", graph=app).answers[0].reasons[-1].text == (
        "a ran at step 1, and its router 'route' chose b, never c."
    )


def _resumed_run():
    """a then b, paused before b and resumed: the resumed run's records begin at the
    checkpoint step 1 saved."""
    from graphkit import InMemorySaver

    class S(TypedDict):
        n: int

    builder = StateGraph(S)
    builder.add_node("a", lambda s: {"n": s["n"] + 1})
    builder.add_node("b", lambda s: {"n": s["n"] * 2})
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("b", END)
    app = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["b"])
    config = {"configurable": {"thread_id": "1"}}
    app.trace({"n": 1}, config)
    return app.trace(None, config)


def test_a_resumed_runs_why_says_what_happened_before_its_records():
    """A resumed run's records begin at the checkpoint it loaded: why said "branch:to:b
    had a version b had not seen" and, for a, which ran before, "a never ran"."""
    resumed = _resumed_run()
    assert resumed.why("b").answers[0].summary == (
        "b ran at step 2 because an edge or router chose b in step 1, and this run started "
        "from that step's checkpoint."
    )
    assert resumed.why("a").answers[0].summary == (
        "a did not run in this run's records: it ran before the checkpoint this run started "
        "from (saved after step 1)."
    )


def test_a_resumed_runs_why_never_says_a_step_is_before_itself():
    """The checkpoint a resumed run loads is the one step 1 saved: why read "the records
    do not show step 1, which is before the checkpoint this run started from (step 1)",
    a step before itself (lesson 08's resumed run, asked about its first node)."""
    answer = _resumed_run().why("a", step=1).answers[0]
    assert answer.summary == (
        "a at step 1: the records do not show step 1, which is before the checkpoint this "
        "run started from (saved after step 1)."
    )
    assert answer.reasons[0].text.startswith(
        "Step 1 is before the checkpoint this run started from (saved after step 1), where "
        "the records of this run begin."
    )


def test_a_step_after_a_state_edit_says_it_ran_from_the_edit():
    # agentdebug3's fork: the agent charged the card again after update_state on an
    # older checkpoint, and why("tools") read as on any run.
    from graphkit import InMemorySaver

    class N(TypedDict):
        n: int

    builder = StateGraph(N).add_node("a", lambda s: {"n": s["n"] + 1})
    builder.add_node("tools", lambda s: {"n": s["n"] * 10})
    app = builder.add_edge(START, "a").add_edge("a", "tools").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"n": 1}, config)
    before_a = [s for s in app.get_state_history(config) if s.next == ("a",)][-1]
    run = app.trace(None, app.update_state(before_a.config, {"n": 5}))
    answer = run.why("tools").answers[0]
    assert answer.summary == (
        "tools ran at step 3 because a wrote branch:to:tools in step 2, after update_state "
        "edited the state in step 1."
    )
    assert answer.reasons[-1].kind == "edited"
    assert answer.reasons[-1].text == (
        "The run went on from a changed state: step 1 is a state edit (update_state, "
        "checkpoint source 'update'), made on step 0's checkpoint, and the steps after it "
        "ran from there. If that checkpoint was not the thread's latest, they ran again on "
        "a new branch (checkpoints_frame's fork_of names it)."
    )
    plain = app.trace({"n": 1}, {"configurable": {"thread_id": "u"}})
    assert [r.kind for r in plain.why("tools").answers[0].reasons] == ["edge"]


def test_a_send_from_a_state_edit_names_the_edited_packet():
    # widgetpass: a ReAct agent's tool call edited at its pause read "agent sent
    # Send('tools', tool call search({'query': 'best bakeries …})) in step 1", the packet
    # from before the edit, while the edited one ran.
    app = edited_sends_app()
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"topics": ["cats"]}, config)
    app.update_state(config, {"topics": ["owls"]}, as_node="plan")
    run = app.trace(None, config)
    assert run.step(3).execution.results[0].writes == (("done", ["owls"]),)
    answer = run.why("work", 3).answers[0]
    assert answer.summary == (
        "work ran at step 3 because a state edit (update_state) sent it a packet (Send)."
    )
    assert [(r.kind, r.step) for r in answer.reasons] == [("push", None), ("edited", 2)]
    assert answer.reasons[0].text == (
        "A state edit (update_state) queued Send('work', 'owls'): step 3 ran from the "
        "edited state (checkpoint source 'update'), so its Plan made a push task for the "
        "edited packet, with the packet's value as its whole input."
    )


def test_a_send_from_a_state_edit_in_a_langgraph_thread_is_the_edits():
    # A converted thread records update_state as a step whose task is '__update__': the
    # edited packet read "__update__ sent Send('work', 'owls') in step 2 (through a
    # router)", as if a node of the graph had sent it.
    graph = pytest.importorskip("langgraph.graph")
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Send as LangGraphSend

    from graphkit.bridge.threads import open_langgraph_thread

    class Topics(TypedDict):
        topics: list[str]
        done: Annotated[list, operator.add]

    builder = graph.StateGraph(Topics).add_node("plan", lambda state: {})
    builder.add_node("work", lambda topic: {"done": [topic]})
    builder.add_edge(graph.START, "plan")
    builder.add_conditional_edges("plan", lambda s: [LangGraphSend("work", t) for t in s["topics"]])
    app = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["work"])
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"topics": ["cats"]}, config)
    app.update_state(config, {"topics": ["owls"]}, as_node="plan")
    app.invoke(None, config)
    run = open_langgraph_thread(app, config)
    answer = run.why("work", 3).answers[0]
    assert answer.summary == (
        "work ran at step 3 because a state edit (update_state) sent it a packet (Send)."
    )
    assert [(r.kind, r.step) for r in answer.reasons] == [("push", 2), ("edited", 2)]
    assert answer.reasons[0].text.startswith(
        "A state edit (update_state) queued Send('work', 'owls'), in place of the packets "
        "plan sent in step 1: step 3 ran from the edited state (checkpoint source 'update')"
    )


def test_an_error_whose_lines_are_not_sentences_keeps_its_breaks_visible():
    """Joining every line with a space ran a traceback's lines or a list's items into
    one ("... in f g() ValueError: boom"): a break after no sentence end reads " | "."""
    from graphkit import START, StateGraph

    def writer(state):
        raise ValueError("Expected one of\n  - researcher\n  - writer\nFix the name.")

    builder = StateGraph(dict).add_node("writer", writer).add_edge(START, "writer")
    with pytest.raises(ValueError) as raised:
        builder.compile().trace({"n": 1})
    said = raised.value.run.why("writer").text(width=None)
    assert "raised ValueError: Expected one of | - researcher | - writer | Fix the name." in said
