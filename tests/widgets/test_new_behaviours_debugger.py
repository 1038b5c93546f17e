"""The debugger (``DebugSession``, no browser) steps through a graph that writes an
``Overwrite`` (issue 14, item 11) and shows it truthfully: the step's tables, the state
panel, ``why`` for a selected node, Back and re-running the step, the exported page."""

from __future__ import annotations

import html

from graphkit.types import Overwrite
from graphkit.widgets import DebugSession
from tests.inspect.test_new_behaviours_shown import overwrite_app

INPUT = {"x": 0, "log": ["start"]}


def _at_the_overwrite_step() -> tuple[DebugSession, object]:
    session = DebugSession(overwrite_app(), INPUT)
    for _ in range(3):  # the input step, step 0, step 1 (a appends, b overwrites)
        view = session.step_view()
    return session, view


def test_the_step_view_shows_the_overwrite_in_every_table():
    session, view = _at_the_overwrite_step()
    assert view.step == 1 and view.message == ""
    assert session.values["log"] == ["b"]
    writes = view.tables["writes"]
    logged = writes[writes["channel"] == "log"].set_index("node")["value"].to_dict()
    assert logged == {"a": "['a']", "b": "Overwrite(['b'])"}
    changes = view.tables["changes"]
    change = changes[changes["channel"] == "log"].iloc[0]
    assert (change["before"], change["after"]) == ("['start']", "['b']")
    assert change["writers"] == "a, b"
    assert view.tables["state"]["log"].tolist()[-2:] == ["['start']", "['b']"]
    checkpoints = view.tables["checkpoints"]
    assert checkpoints.iloc[0]["log"] == "['b']"  # the newest checkpoint holds the overwrite


def test_the_state_panel_shows_the_replaced_value():
    _, view = _at_the_overwrite_step()
    state = html.unescape(view.state_html)
    assert "['start']" in state and "['b']" in state
    assert "['start', 'a'" not in state  # a's append was replaced, not folded in


def test_why_for_a_selected_node_and_the_exported_page():
    session, _ = _at_the_overwrite_step()
    session.select("b")
    assert session.view().why_text.startswith("b ran at step 1 because")
    page = html.unescape(session.to_html())
    assert "Overwrite(['b'])" in page


def test_back_and_step_again_overwrites_again():
    session, _ = _at_the_overwrite_step()
    session.back()
    assert session.values["log"] == ["start"]
    view = session.step_view()
    assert view.step == 1 and session.values["log"] == ["b"]
    run = session.run()
    assert run.status == "done" and run.values["log"] == ["b", "c"]
    writes = run.to_frame("writes")
    assert Overwrite(["b"]) in writes[writes["channel"] == "log"]["value"].tolist()
