"""A resumed run shows which tasks it reused and which ran again: a task that finished
before the pause is marked as not run (tables, text, no bar on the timeline), and the
task that paused says what its interrupt() asked, so its answer can be compared with
what it did when it ran again from its start (agentdebug2: an approved e-mail draft
was drafted anew on resume, and nothing showed which call had run twice)."""

from __future__ import annotations

import itertools

from graphkit import Command, interrupt
from graphkit.checkpoint.memory import InMemorySaver
from graphkit.func import entrypoint, task
from graphkit.inspect.timeline import timeline_rows


def mailer():
    drafts = itertools.count(1)

    @task
    def plan(topic: str) -> str:
        return f"mail about {topic}"

    @task
    def send(goal: str) -> str:
        draft = f"draft {next(drafts)}: {goal}"  # done again when the task is resumed
        answer = interrupt({"send": draft})
        return f"sent {draft}" if answer == "yes" else "cancelled"

    @entrypoint(checkpointer=InMemorySaver())
    def agent(topic: str) -> str:
        return send(plan(topic).result()).result()

    return agent


def words(run) -> list[str]:
    """The run's text, one line each, with runs of spaces (the name column) as one."""
    return [" ".join(line.split()) for line in str(run).splitlines()]


def test_a_resumed_run_marks_the_reused_task_and_the_paused_one_asks():
    agent = mailer()
    config = {"configurable": {"thread_id": "t"}}
    first = agent.trace("Q3", config)
    second = agent.trace(Command(resume="yes"), config)
    assert second.values["__end__"] == "sent draft 2: mail about Q3"  # as on LangGraph
    tasks = second.to_frame("tasks")
    assert tasks[["node", "reused"]].values.tolist() == [
        ["agent", False],
        ["plan", True],
        ["send", False],
    ]
    assert "EXECUTE send paused in interrupt({'send': 'draft 1: mail about Q3'})" in words(first)
    lines = words(second.timeline(width=None))
    assert "EXECUTE plan saved before the run stopped, not run again; wrote __return__" in lines
    assert (
        "EXECUTE send resumed with 'yes' (it ran again from its start: what it did before "
        "interrupt() was done again); wrote __return__"
    ) in lines
    writes = second.step(0).to_frame()
    assert "saved before the run stopped (not run again)" in writes["detail"].tolist()


def test_the_timeline_leaves_out_a_reused_task():
    agent = mailer()
    config = {"configurable": {"thread_id": "t"}}
    agent.trace("Q3", config)
    rows = timeline_rows(agent.trace(Command(resume="yes"), config))
    assert [row["node"] for row in rows] == ["agent", "send"]
    # (the reused task's start of 0.0 made the axis span the machine's uptime)
    assert max(row["end"] for row in rows) < 60


def test_a_step_paused_again_shows_its_new_question_on_its_card():
    # A task resumed past its first interrupt() that stopped at a second one: its card
    # read "resumed with 'yes' · wrote nothing", though print(run) named the question.
    import html
    import re

    from graphkit import START, StateGraph

    def review(state: dict) -> dict:
        first = interrupt("Send the email?")
        return {"ok": first == interrupt({"question": "Really send?", "to": "bob"})}

    app = StateGraph(dict).add_node("review", review).add_edge(START, "review")
    app = app.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"ok": False}, config)
    run = app.trace(Command(resume="yes"), config)
    card = html.unescape(re.sub(r"<[^>]+>", "", run.step(1)._repr_html_()))
    assert "resumed with 'yes'" in card
    assert "paused in interrupt({'question': 'Really send?', 'to': 'bob'})" in card
    assert "wrote nothing" not in card


def test_a_task_waiting_on_two_interrupts_shows_two_calls():
    # A subgraph's two parallel questions read "paused in interrupt('first?', 'second?')",
    # one call with two arguments, on the card and in print(run).
    import html
    import re
    from typing import TypedDict

    from graphkit import START, StateGraph

    class Two(TypedDict, total=False):
        a: str
        b: str

    sub = StateGraph(Two).add_node("x", lambda s: {"a": interrupt("first?")})
    sub = sub.add_node("y", lambda s: {"b": interrupt("second?")})
    sub = sub.add_edge(START, "x").add_edge(START, "y").compile()
    app = StateGraph(Two).add_node("sub", sub).add_edge(START, "sub")
    run = app.compile(checkpointer=InMemorySaver()).trace({}, {"configurable": {"thread_id": "t"}})
    card = html.unescape(re.sub(r"<[^>]+>", "", run.step(1)._repr_html_()))
    assert "paused in interrupt('first?'), interrupt('second?')" in card
    assert "sub  paused in interrupt('first?'), interrupt('second?')" in str(run)


def _refund_graph(library):
    """A node that writes an audit line, then asks: resumed, it writes it again."""
    from typing import TypedDict

    class Refund(TypedDict):
        amount: int
        done: str

    audit: list[str] = []

    def refund(state: Refund) -> dict:
        audit.append(f"refund {state['amount']} requested")
        answer = library.interrupt(f"Refund {state['amount']}?")
        return {"done": "refunded" if answer == "yes" else "declined"}

    builder = library.StateGraph(Refund).add_node("refund", refund)
    builder.add_edge(library.START, "refund")
    return builder.compile(checkpointer=library.InMemorySaver()), audit


def test_a_resumed_task_says_it_ran_again_from_its_start_as_langgraph_ran_it():
    # A refund tool logged its request, then asked; approved, the audit log had the
    # request twice, and the views said only "resumed with 'yes'".
    import types

    import pytest

    import graphkit
    from graphkit import open_langgraph_thread

    langgraph_graph = pytest.importorskip("langgraph.graph")
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.types import Command as LangGraphCommand
    from langgraph.types import interrupt as langgraph_interrupt

    langgraph = types.SimpleNamespace(
        StateGraph=langgraph_graph.StateGraph,
        START=langgraph_graph.START,
        InMemorySaver=LangGraphSaver,
        interrupt=langgraph_interrupt,
    )
    config = {"configurable": {"thread_id": "t"}}
    theirs, their_audit = _refund_graph(langgraph)
    theirs.invoke({"amount": 40}, config)
    theirs.invoke(LangGraphCommand(resume="yes"), config)
    ours, our_audit = _refund_graph(graphkit)
    ours.invoke({"amount": 40}, config)
    run = ours.trace(Command(resume="yes"), config)
    assert their_audit == our_audit == ["refund 40 requested"] * 2
    for resumed in (run, open_langgraph_thread(theirs, config)):
        step = resumed.steps[-1].step
        assert (
            "EXECUTE refund resumed with 'yes' (it ran again from its start: what it did "
            "before interrupt() was done again); wrote done"
        ) in words(resumed.timeline(width=None))
        assert "it ran again from its start" in resumed.step(step)._repr_html_()
        reasons = resumed.why("refund", step=step).answers[0].reasons
        said = [reason.text for reason in reasons if reason.kind == "resumed"]
        assert said == [
            f"refund was resumed with 'yes' in step {step}: a resumed task runs its node "
            "again from its start, and each interrupt() it reaches returns its answer, in "
            "order. Whatever it did before its interrupt() (a row written, a message sent, a "
            "model called) was done when it asked and again when it was answered. Do such "
            "things after the interrupt(), in a node that runs after it, or in a task it "
            "calls (@task), whose finished result a resume reuses."
        ]


def test_a_resumed_entrypoint_does_not_say_its_finished_tasks_ran_again():
    # a flow called draft() (a @task), then asked: resumed, the flow ran again but draft
    # returned its saved result (it ran once, in LangGraph too), while the views said
    # "what it did before interrupt() was done again"
    import html
    import re

    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.func import entrypoint as langgraph_entrypoint
    from langgraph.func import task as langgraph_task
    from langgraph.types import Command as LangGraphCommand
    from langgraph.types import interrupt as langgraph_interrupt

    from graphkit.func import entrypoint, task

    def flow(make_entrypoint, make_task, saver, ask):
        drafted: list[str] = []

        @make_task
        def draft(topic: str) -> str:
            drafted.append(topic)
            return f"draft on {topic}"

        @make_entrypoint(checkpointer=saver())
        def mail(topic: str) -> dict:
            text = draft(topic).result()
            return {"sent": ask(text)}

        return mail, drafted

    config = {"configurable": {"thread_id": "t"}}
    theirs, their_drafts = flow(
        langgraph_entrypoint, langgraph_task, LangGraphSaver, langgraph_interrupt
    )
    theirs.invoke("Q3", config)
    theirs.invoke(LangGraphCommand(resume="yes"), config)
    ours, our_drafts = flow(entrypoint, task, InMemorySaver, interrupt)
    ours.invoke("Q3", config)
    run = ours.trace(Command(resume="yes"), config)
    assert their_drafts == our_drafts == ["Q3"]
    again = (
        "(it ran again from its start: what it did before interrupt() was done again, but "
        "for the tasks it called that had finished (draft): they returned their saved "
        "results, not run again)"
    )
    lines = words(run.timeline(width=None))
    assert any(line.startswith(f"EXECUTE mail resumed with 'yes' {again}; ") for line in lines)
    assert again in html.unescape(re.sub(r"<[^>]+>", "", run.step(0)._repr_html_()))
    said = [r.text for r in run.why("mail", step=0).answers[0].reasons if r.kind == "resumed"]
    assert said == [
        "mail was resumed with 'yes' in step 0: a resumed task runs its node again from its "
        "start, and each interrupt() it reaches returns its answer, in order. Whatever it "
        "did before its interrupt() (a row written, a message sent, a model called) was done "
        "when it asked and again when it was answered, but for the tasks it called that had "
        "finished (draft): they returned their saved results, not run again. Do such things "
        "after the interrupt() in the entrypoint's body, or in a task it calls (@task), "
        "whose finished result a resume reuses."
    ]


def test_why_a_reused_call_says_its_code_did_not_run_again_as_langgraph_ran_it():
    # lesson 13 asked why(fetch) after a resume: it said "fetch ran at step 0 ... it ran
    # in the same step", twice, for two calls whose saved results a resume returned
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.func import entrypoint as langgraph_entrypoint
    from langgraph.func import task as langgraph_task
    from langgraph.types import Command as LangGraphCommand
    from langgraph.types import interrupt as langgraph_interrupt

    from graphkit.func import entrypoint, task

    def weather(make_entrypoint, make_task, saver, ask):
        fetched: list[str] = []

        @make_task
        def fetch(city: str) -> str:
            fetched.append(city)
            return f"sunny in {city}"

        @make_task
        def summarise(reports: list[str]) -> str:
            return "; ".join(reports)

        @make_entrypoint(checkpointer=saver())
        def report(cities: list[str]) -> str:
            reports = [future.result() for future in [fetch(city) for city in cities]]
            ask(reports)
            return summarise(reports).result()

        return report, fetched

    config = {"configurable": {"thread_id": "t"}}
    theirs, their_fetches = weather(
        langgraph_entrypoint, langgraph_task, LangGraphSaver, langgraph_interrupt
    )
    theirs.invoke(["Oslo", "Lima"], config)
    theirs.invoke(LangGraphCommand(resume="ok"), config)
    ours, our_fetches = weather(entrypoint, task, InMemorySaver, interrupt)
    ours.invoke(["Oslo", "Lima"], config)
    run = ours.trace(Command(resume="ok"), config)
    # each fetch's code ran once (the two calls run at once: either may start first)
    assert sorted(their_fetches) == sorted(our_fetches) == ["Lima", "Oslo"]
    answer = run.why("fetch", step=0).answers[0]
    assert answer.summary == (
        "fetch was called at step 0 (2 tasks) because report called it; the run was resumed "
        "and its saved results went back to the caller, so its code did not run again."
    )
    called = [r.text for r in answer.reasons if r.kind == "call"]
    assert called == ["report called it in step 0 (a functional-API task)."]
    reused = [r.text for r in answer.reasons if r.kind == "reused"]
    assert len(reused) == 1 and "2 calls of fetch" in reused[0]
    assert "returned their saved results to the caller" in reused[0]
    ran = run.why("summarise", step=0).answers[0]  # called after the pause: it did run
    assert ran.summary == "summarise ran at step 0 because report called it."
    assert "ran in the same step, beside report" in ran.reasons[0].text
