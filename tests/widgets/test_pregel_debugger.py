"""A low-level ``Pregel`` vertex program in the debugger (issue 15, item 5): stepped
phase by phase in ``DebugSession``, its tables say which vertex ran, what it wrote and
how each channel changed, and "why" names the channel that woke a vertex."""

from __future__ import annotations

from graphkit import InMemorySaver
from graphkit.widgets import DebugSession
from tests.conformance.test_parity_pregel_api import components, graphkit_side, shortest_paths

THREAD = {"configurable": {"thread_id": "sssp"}}


def session_of(program=shortest_paths, **options) -> DebugSession:
    app, given = program(graphkit_side(), **options)
    return DebugSession(app, given, THREAD)


def test_the_source_vertex_runs_first_and_sends_offers():
    session = session_of(checkpointer=InMemorySaver())
    assert session.step().step == -1  # the input step writes the source's offer
    assert repr(session.plan()) == "Plan(step=0, tasks=['s'])"
    tables = session.view().tables
    assert tables["tasks"][["node", "kind", "triggers"]].values.tolist() == [
        ["s", "pull", "offers:s"]
    ]
    session.execute()
    writes = session.view().tables["writes"]
    assert writes[["node", "channel", "value"]].values.tolist() == [
        ["s", "distance:s", "0"],
        ["s", "offers:a", "4"],
        ["s", "offers:b", "1"],
    ]
    update = session.update()
    assert (
        repr(update) == "Update(step=0, changed=['distance:s', 'offers:a', 'offers:b', 'offers:s'])"
    )
    changes = session.view().tables["changes"].set_index("channel")
    assert changes.loc["offers:a", "reducer"] == "Topic"
    assert changes.loc["distance:s", "reducer"] == "LastValue"
    assert changes.loc["distance:s", "writers"] == "s"
    assert changes.loc["offers:s", "after"] == "<empty>"  # an inbox is read once


def test_the_run_ends_when_no_distance_improves():
    session = session_of()
    run = session.run()
    assert run.status == "done"
    assert session.values == {
        "distance:s": 0,
        "distance:a": 3,
        "distance:b": 1,
        "distance:c": 4,
        "distance:d": 7,
    }
    tasks = run.to_frame("tasks")
    assert tasks.groupby("step")["node"].apply(list).to_dict() == {
        -1: ["__input__"],
        0: ["s"],
        1: ["a", "b"],
        2: ["a", "c"],  # b's offer made a shorter
        3: ["c", "d"],
        4: ["d"],  # c's better offer; d improves and has no one to tell
    }
    last = run.to_frame("writes").query("step == 4")
    assert last[["node", "channel", "value"]].values.tolist() == [["d", "distance:d", 7]]


def test_why_names_the_channel_and_the_vertex_that_wrote_it():
    session = session_of()
    run = session.run()
    app = session.app
    assert run.why("a", step=1).summary == "a ran at step 1 because s wrote offers:a in step 0."
    assert run.why("a", step=2).summary == "a ran at step 2 because b wrote offers:a in step 1."
    assert run.why("s", step=0).summary == (
        "s ran at step 0 because the input was written to offers:s in step -1."
    )
    not_ran = run.why("b", step=2, graph=app).summary
    assert not_ran == "b did not run at step 2: nothing wrote offers:b in step 1."
    session.select("b")
    assert "nothing wrote offers:b" in session.view().why_html


def test_back_travels_through_the_saver_and_the_vertex_runs_again():
    session = session_of(checkpointer=InMemorySaver())
    session.run()
    session.back()
    assert session.values["distance:d"] == 8  # before d heard of c's better offer
    session.run()
    assert session.values["distance:d"] == 7


def test_a_breakpoint_on_a_vertex_pauses_before_its_step():
    session = session_of(components)
    session.set_breakpoints(["e"])
    session.run()
    assert session.at_breakpoint
    assert session.supersteps[-1].plan.nodes == ["a", "b", "c", "d", "e", "f"]
    session.set_breakpoints([])
    session.run()
    assert session.values["label:e"] == "d"


def test_the_graph_draws_who_can_wake_whom():
    session = session_of()
    view = session.view()
    assert 'id="node-s"' in view.svg or "node-s" in view.svg
    edges = {(e.source, e.target) for e in session.app.get_graph().edges}
    assert {("__start__", "s"), ("s", "a"), ("b", "a"), ("c", "d")} <= edges
    assert ("a", "b") not in edges
