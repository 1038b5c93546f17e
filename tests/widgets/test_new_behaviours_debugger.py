"""The debugger (``DebugSession``, no browser) steps through a graph that writes an
``Overwrite`` (issue 14, item 11) and shows it truthfully: the step's tables, the state
panel, ``why`` for a selected node, Back and re-running the step, the exported page."""

from __future__ import annotations

import html
import operator
import warnings
from typing import Annotated, TypedDict

from graphkit import START, Command, InMemorySaver, StateGraph
from graphkit.types import Overwrite
from graphkit.widgets import DebugSession
from tests.inspect.test_new_behaviours_shown import overwrite_app

INPUT = {"x": 0, "log": ["start"]}


class CommandState(TypedDict, total=False):
    x: int
    items: Annotated[list, operator.add]


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


def test_a_command_input_step_is_shown_and_explains_what_it_woke():
    """A ``Command(goto=..., update=...)`` given to a saved thread: the debugger opens on
    its input step (numbered as the checkpoint it applies to), with its writes; ``why``
    names it as what woke the goto node."""
    builder = StateGraph(CommandState).add_node("a", lambda s: {"items": ["a"]})
    builder = builder.add_node("b", lambda s: {"items": ["b"]}).add_edge(START, "a")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # b is reached by the Command alone
        app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"x": 0, "items": ["i"]}, config)
    session = DebugSession(app, Command(goto="b", update={"x": 5, "items": ["v"]}), config)
    view = session.view()
    assert (view.step, view.count) == (1, 1)
    writes = view.tables["writes"]
    assert set(writes["node"]) == {"__input__"}
    assert dict(zip(writes["channel"], writes["value"], strict=True)) == {
        "branch:to:b": "'__start__'",
        "x": "5",
        "items": "['v']",
    }
    session.step_view()  # step 2: b runs
    session.select("b")
    assert session.view().why_text.startswith("b ran at step 2 because __input__ wrote branch:to:b")
    assert session.run().values == {"x": 5, "items": ["i", "a", "v", "b"]}
    assert "branch:to:b" in html.unescape(session.to_html())
