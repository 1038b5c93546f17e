"""The View: labels, the restyled SVG (one layout), tables."""

from __future__ import annotations

import html
import operator
from typing import Annotated, TypedDict

import pytest

from graphkit import START, StateGraph
from graphkit.widgets import TABLES, DebugSession
from graphkit.widgets.view import as_of, phases_of
from tests.widgets.graphs import (
    HOSTILE,
    State,
    chain_app,
    edited_sends_app,
    failing_app,
    hostile_app,
    wide_app,
)

INPUT = {"n": 1, "log": []}


def test_labels_follow_the_phases():
    session = DebugSession(chain_app(), INPUT)
    labels = [(session.view().step_label, session.view().phase_label)]
    for _ in range(3):
        getattr(session, session.next_phase)()
        view = session.view()
        labels.append((view.step_label, view.phase_label))
    assert labels == [
        ("not started", "next: Plan"),  # (shown together: "not started · next: Plan")
        ("input step", "after Plan · next: Execute"),
        ("input step", "after Execute · next: Update"),
        ("input step", "after Update · next: Plan"),
    ]


def test_the_status_line_agrees_with_the_step_label_before_the_input_step():
    """The header says "not started": the line under it does not say "running"."""
    session = DebugSession(chain_app(), INPUT)
    assert session.view().status_text == "not started: step -1 (the input step) waits for its plan"
    session.plan()
    assert session.view().status_text == "running: step -1 (the input step) waits for its execute"
    session.execute(), session.update()
    assert session.view().status_text == "running: step 0 waits for its plan"


def test_svg_is_restyled_not_laid_out_again(monkeypatch):
    session = DebugSession(chain_app(), INPUT)
    from graphkit.render import model

    def no_layout(*args, **kwargs):
        raise AssertionError("the debugger must not lay the graph out again")

    monkeypatch.setattr(model.DrawableGraph, "draw_svg", no_layout)
    session.step()
    session.step()
    session.plan()
    assert '<g id="node-a" class="node gk-node gk-node-node planned">' in session.view().svg
    session.execute()
    assert "planned wrote" in session.view().svg


def test_tables_show_the_shown_step_as_of_its_phase():
    session = DebugSession(chain_app(), INPUT)
    session.step()
    session.step()
    session.plan()
    view = session.view()
    assert set(view.tables) == set(TABLES)
    assert view.tables["tasks"]["node"].tolist() == ["a"]
    assert view.tables["writes"].empty and view.tables["changes"].empty
    session.execute()
    writes = session.view().tables["writes"]
    assert writes[["channel", "value"]].values.tolist()[:2] == [["n", "3"], ["log", "['a']"]]
    session.update()
    view = session.view()
    assert view.tables["state"]["log"].tolist()[-1] == "['a']"
    assert view.tables["checkpoints"]["source"].tolist() == ["loop", "loop", "input"]
    assert "<table" in view.table_html("changes")


def test_an_empty_tab_says_what_it_means_at_the_phase_shown():
    # widgetpass: a finished step's empty subgraphs tab read "no rows yet", as if some
    # were still to come.
    session = DebugSession(chain_app(), INPUT)
    texts = {kind: session.view().table_html(kind) for kind in ("tasks", "state", "checkpoints")}
    assert texts == {
        "tasks": '<p class="gk-empty">none yet: the run has not started</p>',
        "state": '<p class="gk-empty">none yet: the run has not started</p>',
        "checkpoints": '<p class="gk-empty">no checkpoint saved yet</p>',
    }
    session.step(), session.step(), session.plan()
    view = session.view()
    assert [
        html.unescape(view.table_html(kind)) for kind in ("writes", "changes", "subgraphs")
    ] == [
        '<p class="gk-empty">none yet: this step\'s Execute has not run</p>',
        '<p class="gk-empty">none yet: this step\'s Update has not run</p>',
        '<p class="gk-empty">none yet: this step\'s Execute has not run</p>',
    ]
    session.execute(), session.update()
    view = session.view()
    assert [html.unescape(view.table_html(kind)) for kind in ("subgraphs", "store")] == [
        '<p class="gk-empty">no subgraph runs in this step</p>',
        '<p class="gk-empty">no store operations in this step</p>',
    ]
    failed = DebugSession(failing_app(), INPUT)
    failed.run()
    assert html.unescape(failed.view().table_html("changes")) == (
        '<p class="gk-empty">none: this step\'s Update never ran</p>'
    )


def test_a_failed_steps_plan_says_its_execute_had_not_run_yet():
    # The exported page's (and the slider's) "after Plan" of the step that failed read
    # "none: this step's Execute never ran", though Execute ran: it raised.
    from graphkit.widgets.view import view_at

    session = DebugSession(failing_app(), INPUT)
    session.run()
    last = len(session.supersteps) - 1
    assert html.unescape(view_at(session, last, "plan").table_html("writes")) == (
        '<p class="gk-empty">none yet: this step\'s Execute has not run</p>'
    )
    assert html.unescape(view_at(session, last, "execute").table_html("changes")) == (
        '<p class="gk-empty">none: this step\'s Update never ran</p>'
    )


def test_the_checkpoints_table_cuts_a_long_string_short_as_the_state_tab_does():
    # (the whole string went in once per checkpoint: 4 MB of export for a 1 MB value)
    long = "x" * 100_000
    session = DebugSession(hostile_app(), {"text": long})
    session.run()
    view = session.view()
    cells = view.tables["checkpoints"]["text"].tolist()
    assert cells[0] == view.tables["state"]["text"].tolist()[-1]
    assert all(len(cell) <= 60 for cell in cells) and cells[1].startswith("'xxx")
    assert long not in session.to_html()


def test_as_of_and_phases_of():
    session = DebugSession(chain_app(), INPUT)
    session.run()
    superstep = session.supersteps[2]
    assert phases_of(superstep) == ("plan", "execute", "update")
    assert as_of(superstep, "plan").execution is None
    assert as_of(superstep, "execute").update is None


def test_hostile_text_is_escaped_in_the_tables():
    session = DebugSession(hostile_app(), {"text": "x"})
    session.run()
    session.goto(2)  # the hostile node's step
    html = session.view().table_html("writes")
    assert "<script>" not in html and "&lt;script&gt;" in html
    session.select(HOSTILE)
    assert "<script>" not in session.view().why_html


def test_step_view_on_a_50_node_graph():
    session = DebugSession(wide_app(50), {"n": 0, "log": []})
    assert len(session.app.spec.nodes) == 51  # 50 nodes and START
    views = [session.step_view() for _ in range(4)]
    assert [v.step for v in views] == [-1, 0, 1, 2]
    assert views[2].tables["tasks"].shape[0] == 49
    assert views[-1].tables["writes"]["node"].tolist() == ["sink"]


def test_a_view_shown_in_a_cell_keeps_a_wide_graph_in_its_own_scrolling_box():
    view = DebugSession(chain_app(), INPUT).view()
    html = view._repr_html_()
    assert '<div class="gk-graph" style="max-width:100%;overflow-x:auto"><svg' in html
    assert html.endswith("</svg></div>")


def test_a_table_writes_a_bidirectional_override_in_a_name_as_its_escape():
    # (pandas escapes <, > and & only: a node named with U+202E showed the rest of its row
    # reversed in the tasks, writes, changes and checkpoints tables)
    builder = StateGraph(State).add_node("ok\u202etxt", lambda state: {"log": ["\u2067"]})
    session = DebugSession(builder.add_edge(START, "ok\u202etxt").compile(), INPUT)
    session.run()
    view = session.view()
    tasks = view.table_html("tasks")
    assert "ok\\u202etxt" in tasks
    assert not any(c in view.table_html(kind) for kind in TABLES for c in "\u202e\u2067")


def test_the_why_text_is_one_line_per_reason_for_a_box_that_wraps_its_own():
    """The exported page shows ``why_text`` in a box that wraps (pre-wrap): ``str()``
    of an answer breaks at 88 columns, which a narrower box broke again mid-line."""
    from graphkit.inspect.examples import forecast_graph

    session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    session.run()
    session.select("weather")
    assert session.view().why_text.splitlines() == [
        "weather did not run at step 3: nothing wrote branch:to:weather in step 2.",
        "  - Step 3's Plan wakes the nodes whose trigger channels step 2's Update changed: "
        "join:weather+news:summarize (written by news and weather). branch:to:weather was "
        "not among them. weather last ran at step 2.",
    ]


def test_why_names_the_packet_a_state_edit_sent_not_the_one_it_replaced():
    # widgetpass: a ReAct agent's tool call edited at its pause (update_state, same
    # message id) read "agent sent Send('tools', tool call search({'query': 'best
    # bakeries …})) in step 1" in the why panel, while the tasks tab showed the edited
    # packet that ran.
    app = edited_sends_app()
    session = DebugSession(app, {"topics": ["cats"]})
    session.run()
    app.update_state(session.thread_config, {"topics": ["owls"]}, as_node="plan")
    session.resume()
    session.step()
    session.select("work")
    assert session.values["done"] == ["owls"]
    assert session.view().why_text.splitlines() == [
        "work ran at step 2 because a state edit (update_state) sent it a packet (Send).",
        "  - A state edit (update_state) queued Send('work', 'owls'), in place of the packets "
        "plan sent in step 1: step 2 ran from the edited state (checkpoint source 'update'), "
        "so its Plan made a push task for the edited packet, with the packet's value as its "
        "whole input.",
        "  - The run went on from a changed state: step 2 ran from a state edit (update_state, "
        "checkpoint source 'update'), made after step 1, and the steps after it ran from "
        "there. If that checkpoint was not the thread's latest, they ran again on a new "
        "branch (checkpoints_frame's fork_of names it).",
    ]
    # Back over the step restores the edited state as a fork: Step read "Send('work',
    # 'owls') was already queued in the checkpoint step 2 planned from, by a node the
    # records do not show", though plan's packet of step 1 is in the records.
    session.back()
    session.step()
    session.select("work")
    assert session.values["done"] == ["owls"]
    assert session.view().why_text.splitlines()[1] == (
        "  - A state edit (update_state) queued Send('work', 'owls'), in place of the packets "
        "plan sent in step 1: step 2 ran from the edited state (restored by a fork, checkpoint "
        "source 'fork'), so its Plan made a push task for the edited packet, with the packet's "
        "value as its whole input."
    )


def test_the_state_panel_keeps_a_channel_name_whole():
    # Lesson 05's research step: the values' break-anywhere made the channel column the
    # one the table gave up, and 'question' read as 'questi' / 'on'.
    from graphkit.widgets.panels import STATE_CSS

    assert (
        ".gk-state-table th:first-child, .gk-state-table td:first-child { white-space: nowrap;\n"
        "  overflow-wrap: normal; }"
    ) in STATE_CSS
    # and a short value: beside a failed Update's note, 'fruit' read "'fruit" / "'"
    assert ".gk-state-table td:nth-child(2) { min-width: 12ch; }" in STATE_CSS


class Tokens(TypedDict):
    topic: str
    tokens: Annotated[int, operator.add]


def test_the_state_panel_shows_a_reducer_key_nothing_wrote_at_its_start():
    """Lesson 03's tokens, Annotated[int, operator.add]: no checkpoint holds it before a
    write (LangGraph's neither), but it holds 0, as the run's state table says."""
    builder = StateGraph(Tokens).add_node("a", lambda state: {"tokens": 10})
    app = builder.add_edge(START, "a").compile()
    assert app.trace({"topic": "fruit"}).to_frame("state").set_index("step").loc[0, "tokens"] == 0
    session = DebugSession(app, {"topic": "fruit"})
    session.step(), session.step(), session.plan()
    panel = html.unescape(session.view().state_html)
    assert "<td>tokens</td><td>0</td>" in panel
    assert panel.index("<td>topic</td>") < panel.index("<td>tokens</td>")


def test_a_failed_update_marks_its_writers_and_names_the_channel_and_why():
    # lesson 03's conflict: the debugger drew a and b as "wrote, pending" and nothing
    # said which channel's Update failed
    class Conflict(TypedDict):
        results: list
        topic: str

    builder = StateGraph(Conflict)
    builder.add_node("a", lambda state: {"results": ["a"]})
    builder.add_node("b", lambda state: {"results": ["b"]})
    builder.add_node("c", lambda state: {"topic": "c"})
    for node in ("a", "b", "c"):
        builder.add_edge(START, node)
    session = DebugSession(builder.compile(), {"topic": "t"})
    while session.next_phase is not None:
        getattr(session, session.next_phase)()
    view = session.view()
    assert view.status_text.startswith("error in step 1's Update: InvalidUpdateError: ")
    assert '<g id="node-a" class="node gk-node gk-node-node planned error">' in view.svg
    assert '<g id="node-b" class="node gk-node gk-node-node planned error">' in view.svg
    assert 'id="node-c" class="node gk-node gk-node-node planned wrote pending"' in view.svg
    panel = html.unescape(view.state_html)
    assert (
        "step 1's Update failed (InvalidUpdateError): none of these pending writes was "
        "applied (the values are unchanged)" in panel
    )
    assert (
        "<tr class=\"gk-failed\"><td>results</td><td><empty></td><td>['a'] from a; ['b'] "
        "from b: 2 writes in one step, and a plain key keeps one value per step</td></tr>"
    ) in panel
    assert '<tr class="gk-pending"><td>topic</td>' in panel


def merge(left: list, right: list) -> list:
    raise ValueError("cannot merge 'topic' here")  # (quotes a key it does not merge)


class Merged(TypedDict):
    topic: str
    results: Annotated[list, merge]
    tokens: Annotated[int, operator.add]


def test_a_reducer_that_raised_is_found_by_the_runtime_s_note_not_a_quoted_name():
    # a reducer's own error names no channel (int + list, check 3.1's slip), or quotes
    # another key: the debugger marked no channel, or 'topic', which b wrote fine
    for key, value, reducer, error in (
        ("results", ["a"], "merge", "ValueError"),
        ("tokens", ["a"], "add", "TypeError"),
    ):
        builder = StateGraph(Merged)
        builder.add_node("a", lambda state, key=key, value=value: {key: value})
        builder.add_node("b", lambda state: {"topic": "b"})
        builder.add_edge(START, "a").add_edge(START, "b")
        session = DebugSession(builder.compile(), {"topic": "t"})
        session.run()
        view = session.view()
        panel = html.unescape(view.state_html)
        assert f'<tr class="gk-failed"><td>{key}</td>' in panel
        assert f"['a'] from a: its reducer {reducer} raised {error}</td></tr>" in panel
        assert '<tr class="gk-pending"><td>topic</td>' in panel
        assert '<g id="node-a" class="node gk-node gk-node-node planned error">' in view.svg
        assert 'id="node-b" class="node gk-node gk-node-node planned wrote pending"' in view.svg


def test_a_pending_write_of_removals_names_the_messages_it_removes():
    # the "this step" column read pending: [2 messages: …, remove id 'ai-3'] from trim
    messages = pytest.importorskip("langchain_core.messages")
    from graphkit import MessagesState

    def trim(state):
        return {"messages": [messages.RemoveMessage(id=m.id) for m in state["messages"][-2:]]}

    builder = StateGraph(MessagesState).add_node("trim", trim).add_edge(START, "trim")
    history = [messages.HumanMessage("hi", id="h-1"), messages.AIMessage("yo", id="ai-3")]
    session = DebugSession(builder.compile(), {"messages": history})
    session.step(), session.step(), session.plan(), session.execute()
    panel = html.unescape(session.view().state_html)
    assert 'pending: [remove human: "hi", ai: "yo"] from trim' in panel


def test_the_legend_swatches_are_hidden_from_a_screen_reader_and_tables_scroll_by_key():
    # (each swatch was an unnamed graphic read out between the keys' names; a wide table's
    # box scrolled with the mouse alone: axe's scrollable-region-focusable)
    from graphkit.widgets.view import legend_html

    legend = legend_html(True)
    assert legend.count("<svg") == legend.count('<svg width="26" height="16" style="vertical')
    assert legend.count("<svg") == legend.count('aria-hidden="true"') == 9
    session = DebugSession(chain_app(), {"n": 1, "log": []})
    session.run()
    table = session.view().table_html("writes")
    assert '<div class="gk-table-box" tabindex="0" role="region" aria-label="writes table"' in table
