"""The debugger as a learner sees it: one true state, phases that look different, one
story of step numbers after Back, a state panel, and an export that says it is unfinished."""

from __future__ import annotations

from graphkit.render import highlight
from graphkit.widgets import Debugger, DebugSession
from tests.widgets.graphs import asking_app, chain_app

INPUT = {"n": 1, "log": []}


def test_a_widget_follows_its_session_whoever_drives_it():
    debugger = Debugger(chain_app(), INPUT)
    debugger.session.step()
    debugger.session.step()
    assert debugger.step_label.value == "step 0"
    debugger.session.plan()
    assert debugger.phase.value == "after Plan · next: Execute"
    debugger.session.select("b")
    debugger.session.set_breakpoints(["c"])
    assert (debugger.node.value, debugger.breakpoints.value) == ("b", ("c",))
    debugger.session.run()
    assert debugger.status.value.startswith("done") is False  # paused before c
    debugger.session.run()
    assert debugger.status.value.startswith("done")
    assert debugger.slider.value == debugger.slider.max


def test_pending_writes_and_applied_changes_look_different():
    session = DebugSession(chain_app(), INPUT)
    session.step()
    session.step()
    session.plan()
    session.execute()
    session.update()
    superstep = session.supersteps[-1]
    executed = highlight(session.graph_svg, superstep, "execute")
    updated = highlight(session.graph_svg, superstep, "update")
    assert executed != updated
    assert '<g id="node-a" class="node gk-node gk-node-node planned wrote pending">' in executed
    assert '<g id="node-a" class="node gk-node gk-node-node planned wrote applied">' in updated


def test_the_widget_opens_the_writes_after_execute_and_the_changes_after_update():
    debugger = Debugger(chain_app(), INPUT)
    for _ in range(2):
        debugger.click("step")
    debugger.click("plan")
    debugger.click("execute")
    tab = lambda: list(debugger.tables)[debugger.tabs.selected_index]  # noqa: E731
    assert tab() == "writes"
    assert "gk-pending" in debugger.state.value and "pending" in debugger.state.value
    debugger.click("update")
    assert tab() == "changes"
    assert "gk-changed" in debugger.state.value and "1 → 3" in debugger.state.value


def test_after_back_the_replayed_step_keeps_its_story_number():
    debugger = Debugger(chain_app(), INPUT)
    for _ in range(4):  # input, 0, 1, 2
        debugger.click("step")
    debugger.click("back")
    debugger.click("step")  # LangGraph numbers the replayed step 3
    assert debugger.session.supersteps[-1].step == 3
    assert debugger.step_label.value == "step 2 (replayed)"
    assert debugger.slider.value == 2 and debugger.slider.min == -1
    view = debugger.session.view()
    assert set(view.tables["tasks"]["step"]) == {"2"}
    assert list(view.tables["state"]["step"]) == ["-1", "0", "1", "2"]
    debugger.session.select("b")
    assert "step 3" not in debugger.session.view().why_text
    frames = debugger.session.to_html()
    assert "step 2 (replayed)" in frames and '"step 3' not in frames


def test_the_state_panel_shows_the_values():
    debugger = Debugger(chain_app(), INPUT)
    assert "gk-state" in debugger.state._dom_classes
    debugger.session.run()
    assert "51" in debugger.state.value and "[&#x27;a&#x27;, &#x27;b&#x27;, &#x27;c&#x27;]" in (
        debugger.state.value
    )


def test_an_unfinished_run_says_so_in_the_export(tmp_path):
    session = DebugSession(chain_app(), INPUT, breakpoints=["c"])
    session.run()
    exported = session.export_html(tmp_path / "run.html")
    assert "unfinished" in repr(exported) and "breakpoint" in repr(exported)
    page = (tmp_path / "run.html").read_text()
    assert 'class="gk-unfinished"' in page
    assert repr(exported) == (  # the reason on its own line: a notebook breaks a long one
        "Exported run.html: 13 frames; the run is unfinished:\n"
        "  paused at a breakpoint after the Plan of step 3; nothing of it ran."
    )
    asking = DebugSession(asking_app(), {"n": 1})
    asking.run()
    assert "unfinished" in repr(asking.export_html(tmp_path / "asking.html"))
    middle = DebugSession(chain_app(), INPUT)
    middle.step(), middle.step(), middle.plan()
    assert "in the middle of step 1" in repr(middle.export_html(tmp_path / "middle.html"))
    done = DebugSession(chain_app(), INPUT)
    done.run()
    exported = done.export_html(tmp_path / "done.html")
    assert "unfinished" not in repr(exported)
    assert 'class="gk-unfinished"' not in (tmp_path / "done.html").read_text()


def test_a1_says_which_table_keeps_langgraphs_step_numbers_after_back():
    """Appendix A1 said the replayed step is "step 3 (replayed)" in "the tables"; after
    its last cell runs the replay to the end, the checkpoints table says step 4 for it, as
    LangGraph's record does. The lesson now says the checkpoints table keeps them."""
    import json
    from pathlib import Path

    from graphkit.inspect.examples import forecast_graph

    session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    session.set_breakpoints(["summarize"])
    session.run(), session.run()
    session.back()
    session.set_breakpoints([])
    session.run()
    view = session.view()
    assert view.step_label == "step 3 (replayed)"
    newest = str(view.tables["checkpoints"]["step"].iloc[0])  # the replay's end
    assert (newest, {str(step) for step in view.tables["tasks"]["step"]}) == ("4", {"3"})
    lesson = Path(__file__).parents[2] / "notebooks" / "A1-debugger-tour.ipynb"
    cells = json.loads(lesson.read_text(encoding="utf-8"))["cells"]
    prose = " ".join(" ".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    said = " ".join(prose.split())
    assert "LangGraph's numbers in the records and the checkpoints table" in said
    assert "the other tables" in said and "will say step 4" in said
