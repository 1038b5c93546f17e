"""The debugger in a real headless Chromium: the widgets through Voila, and the export
opened from a file. Screenshots land in each test's tmp_path."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from graphkit.widgets import DebugSession
from tests.widgets.graphs import HOSTILE, chain_app, hostile_app

pytestmark = pytest.mark.browser

INPUT = {"n": 1, "log": []}
LOAD = 90_000  # ms: Voila starts a kernel and runs the notebook on the first GET


class Log(TypedDict):
    log: Annotated[list, operator.add]


def node(name: str, cls: str) -> str:
    return f'.gk-graph svg g[id="node-{name}"].{cls}'


def test_debugger_in_voila(page, voila_url):
    from playwright.sync_api import expect

    page.goto(f"{voila_url}/voila/render/debugger.ipynb")
    button = lambda name: page.locator(f".gk-{name}-button")  # noqa: E731
    button("step").wait_for(state="visible", timeout=LOAD)
    step, phase = page.locator(".gk-step"), page.locator(".gk-phase")
    expect(phase).to_have_text("next: Plan")
    button("step").click()
    expect(step).to_have_text("input step")
    button("step").click()
    expect(step).to_have_text("step 0")
    button("plan").click()
    expect(phase).to_have_text("after Plan · next: Execute")
    expect(page.locator(node("a", "planned"))).to_have_count(1)
    expect(button("plan")).to_be_disabled()
    button("execute").click()
    expect(phase).to_have_text("after Execute · next: Update")
    expect(page.locator(node("a", "wrote"))).to_have_count(1)
    button("update").click()
    expect(phase).to_have_text("after Update · next: Plan")
    # only the open tab is rendered: open "state" as a user would
    page.locator(".gk-tables .lm-TabBar-tab").filter(has_text="state").click()
    expect(page.locator(".gk-table-state td").filter(has_text="['a']")).not_to_have_count(0)
    expect(page.locator(".gk-table-tasks td")).to_have_count(0)
    button("back").click()  # restores the checkpoint before step 1
    expect(step).to_have_text("step 0")
    expect(page.locator(node("a", "wrote"))).to_have_count(0)
    button("run").click()  # stops at the breakpoint on c
    # Back forked the thread: LangGraph numbers this step 4, the learner is told 3
    expect(page.locator(".gk-message")).to_have_text("Breakpoint: step 3 would run c.")
    expect(page.locator(node("c", "planned"))).to_have_count(1)
    page.locator(".gk-node-select select").select_option("c")
    expect(page.locator(".gk-why")).to_contain_text("c is planned to run at step 3")
    page.locator(".gk-debugger").scroll_into_view_if_needed()


# The graph panel's grounds (its own and every box down to the SVG), and where the
# drawing's card lies in the panel: its edges' distances from the panel's, in px.
PANEL = """(panel) => {
  const card = panel.querySelector('svg rect.gk-card');
  const boxes = [panel, ...panel.querySelectorAll('*')].filter(el => !el.closest('svg'));
  const outer = panel.getBoundingClientRect(), inner = card.getBoundingClientRect();
  return {grounds: [...new Set(boxes.map(el => getComputedStyle(el).backgroundColor))],
          card: getComputedStyle(card).fill,
          top: Math.round(inner.top - outer.top), left: Math.round(inner.left - outer.left),
          below: Math.round(outer.bottom - inner.bottom)};
}"""


def test_the_graph_panel_lets_the_drawings_card_show(page, voila_url, tmp_path):
    # in JupyterLab's dark theme the panel was a full-width white block round the card:
    # the card's rounded corners white on white, its nodes 4 px + 12 pt in
    page.goto(f"{voila_url}/voila/render/debugger.ipynb")
    panel = page.locator(".gk-debugger .gk-graph")
    panel.locator("svg rect.gk-card").wait_for(state="attached", timeout=LOAD)
    page.add_style_tag(content=".gk-debugger { background: #111111 }")  # a dark ground
    found = panel.evaluate(PANEL)
    panel.screenshot(path=str(tmp_path / "graph-panel-dark.png"))
    assert found["grounds"] == ["rgba(0, 0, 0, 0)"], found  # the page's ground shows
    assert found["card"] == "rgb(255, 255, 255)", found  # the drawing keeps its light ground
    assert (found["top"], found["left"], found["below"]) == (0, 0, 0), found  # one margin


def test_export_in_the_browser(page, tmp_path):
    from playwright.sync_api import expect

    session = DebugSession(chain_app(), {"n": 1, "log": []})
    session.run()
    path = tmp_path / "run.html"
    session.export_html(path)
    page.goto(path.as_uri())
    step, phase = page.locator(".gk-step"), page.locator(".gk-phase")
    expect(step).to_have_text("input step")
    expect(phase).to_have_text("after Plan")
    expect(page.locator(".gk-prev")).to_be_disabled()
    for _ in range(6):
        page.locator(".gk-next").click()
    expect(step).to_have_text("step 1")
    expect(phase).to_have_text("after Plan")
    expect(page.locator(node("a", "planned"))).to_have_count(1)
    page.locator(".gk-next").click()
    expect(page.locator(node("a", "wrote"))).to_have_count(1)
    page.locator('.gk-tab[data-kind="writes"]').click()
    expect(page.locator(".gk-table-view td").first).to_have_text("1")
    page.locator(".gk-slider").fill("14")
    expect(step).to_have_text("step 3")
    expect(page.locator(".gk-status")).to_contain_text("done")
    expect(page.locator(".gk-next")).to_be_disabled()
    page.keyboard.press("ArrowLeft")
    expect(phase).to_have_text("after Execute")
    page.locator('.gk-tab[data-kind="state"]').click()


def test_hostile_export_shows_text_and_runs_nothing(page, tmp_path):
    from playwright.sync_api import expect

    session = DebugSession(hostile_app(), {"text": "x"})
    session.run()
    path = tmp_path / "hostile.html"
    session.export_html(path)
    page.goto(path.as_uri())
    page.locator(".gk-slider").fill("7")  # the hostile node's Execute
    page.locator('.gk-tab[data-kind="writes"]').click()
    expect(page.locator(".gk-table-view")).to_contain_text("<script>alert(1)</script>")
    expect(page.locator(".gk-graph svg title").filter(has_text="中文")).not_to_have_count(0)
    assert page.locator(".gk-table-view script").count() == 0
    assert page.dialogs == []
    assert HOSTILE.split("\n")[0] in page.locator(".gk-graph svg").text_content()


def test_a_long_unbroken_text_wraps_instead_of_widening_the_page(page, tmp_path):
    # (a 600-character thread id, hint or guess made the page 6,000 px wide)
    from graphkit.course.checking import Verdict

    long = "W" * 600
    session = DebugSession(chain_app(), INPUT, {"configurable": {"thread_id": long}})
    session.step(), session.step(), session.step(), session.plan()
    reveal = session.predict(channel="log", value=[long])._repr_html_()
    verdict = Verdict(long, False, long, long)._repr_html_()
    session.run()
    path = tmp_path / "long.html"
    session.export_html(path)
    cards = tmp_path / "cards.html"
    cards.write_text(f"<!DOCTYPE html><meta charset=utf-8><body>{reveal}{verdict}</body>")
    for shown in (path, cards):
        page.goto(shown.as_uri())
        assert page.evaluate("document.documentElement.scrollWidth") <= 1200, shown.name
        assert long in page.locator("body").inner_text().replace("\n", ""), shown.name


SHAPE_STYLE = """(shape) => {
  shape.getAnimations().forEach((transition) => transition.finish());  // (colours fade in)
  const style = getComputedStyle(shape);
  return [style.fill, style.stroke, style.strokeWidth, style.strokeDasharray];
}"""


def test_a_node_that_ran_and_wrote_nothing_is_drawn_so_and_keyed_in_the_legend(page, tmp_path):
    # (a report node returning {} stayed "planned" blue after Update: it looked unrun)
    from playwright.sync_api import expect

    from graphkit import END, START, StateGraph
    from tests.widgets.graphs import State

    builder = StateGraph(State).add_node("approve", lambda state: {"log": ["approved"]})
    builder.add_node("report", lambda state: {})
    builder.add_edge(START, "approve").add_edge("approve", "report").add_edge("report", END)
    session = DebugSession(builder.compile(), INPUT)
    session.run()
    path = tmp_path / "report.html"
    session.export_html(path)
    page.goto(path.as_uri())
    slider = page.locator(".gk-slider")
    slider.fill(slider.get_attribute("max"))  # the last frame: report's step, after Update
    expect(page.locator(".gk-phase")).to_have_text("after Update")
    report = page.locator('.gk-graph svg g[id="node-report"]')
    expect(report).to_have_class("node gk-node gk-node-node planned wrote-nothing")
    drawn = report.locator("rect, path, polygon, ellipse").first.evaluate(SHAPE_STYLE)
    assert drawn[:2] == ["rgb(255, 255, 255)", "rgb(0, 158, 115)"]  # hollow, the writers' green
    key = page.locator(".gk-legend .gk-key").filter(has_text="ran, wrote nothing")
    assert key.locator("rect").evaluate(SHAPE_STYLE) == drawn
    planned = page.locator(".gk-legend g.planned:not(.wrote-nothing) rect").first
    assert planned.evaluate(SHAPE_STYLE)[:2] != drawn[:2]


def test_the_store_tabs_note_is_read_whole_above_the_table(page, voila_url, tmp_path):
    # (in the returned cell it ran past the table box's edge: "(the same labels, in
    # another orde" and the rest out of view)
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 700, "height": 1400})  # narrower than the note
    page.goto(f"{voila_url}/voila/render/store.ipynb")
    note = page.locator(".gk-table-store .gk-table-note")
    note.wait_for(state="visible", timeout=LOAD)
    expect(note).to_have_text(
        "step 1, recall: search ada-lovelace/memories returned [], but the store has "
        "memories/ada-lovelace (the same labels, in another order)"
    )
    tab = page.locator(".gk-table-store").bounding_box()
    shown = note.bounding_box()
    assert tab is not None and shown is not None
    assert shown["x"] + shown["width"] <= tab["x"] + tab["width"]  # inside the tab's box
    assert note.evaluate("(p) => p.scrollWidth <= p.clientWidth")  # nothing cut
    assert shown["height"] > 1.5 * note.evaluate(
        "(p) => parseFloat(getComputedStyle(p).lineHeight)"
    )
    cell = page.locator(".gk-table-store td").filter(has_text="[] (see the note above)")
    expect(cell).to_have_count(1)
    page.locator(".gk-table-store").screenshot(path=str(tmp_path / "store-tab.png"))


def test_a_tabs_column_names_break_at_their_underscores_to_keep_the_table_in_its_box(
    page, tmp_path
):
    # the changes tab's version_before and version_after kept two columns of one-digit
    # versions 14 and 13 characters wide, and the reducer column out of the box's view
    from graphkit.inspect.examples import forecast_graph

    session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    session.run()
    path = tmp_path / "run.html"
    session.export_html(path)
    page.set_viewport_size({"width": 800, "height": 900})  # (833 px of table in 768 before)
    page.goto(path.as_uri())
    page.locator(".gk-slider").fill("14")  # the last step, after its Update
    page.locator('.gk-tab[data-kind="changes"]').click()
    table = page.locator(".gk-table-view .gk-table")
    sizes = table.evaluate(
        "t => [t.getBoundingClientRect().width, t.parentElement.clientWidth,"
        " t.querySelector('th:nth-child(5)').getBoundingClientRect().height,"
        " t.querySelector('td').getBoundingClientRect().height]"
    )
    width, room, name_height, cell_height = sizes
    assert width <= room, sizes  # nothing to scroll to
    assert name_height > 1.5 * cell_height, sizes  # version_before took two lines


@pytest.mark.parametrize("durability", ["exit", "sync"])
def test_an_imported_threads_unsaved_steps_are_drawn_as_the_legend_keys_them(
    page, tmp_path, durability
):
    # under durability="exit" a and b were drawn as nodes that never ran while the
    # legend keyed "writes not saved", a style no node had; "sync" saved every step
    import warnings

    pytest.importorskip("langgraph")
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from playwright.sync_api import expect

    from graphkit import open_langgraph_thread

    builder = StateGraph(Log).add_node("a", lambda state: {"log": ["a"]})
    builder.add_node("b", lambda state: {"log": ["b"]})
    app = builder.add_edge(START, "a").add_edge("a", "b").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": durability}}
    app.invoke({"log": []}, config, durability=durability)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (exit: the import warns its beginning is missing)
        run = open_langgraph_thread(app, config)
    path = tmp_path / f"{durability}.html"
    DebugSession.from_run(app, run, config).export_html(path)
    page.goto(path.as_uri())
    slider = page.locator(".gk-slider")
    slider.fill(slider.get_attribute("max"))  # the last frame: step 2, after Update
    expect(page.locator(".gk-phase")).to_have_text("after Update")
    key = page.locator(".gk-legend .gk-key").filter(has_text="writes not saved")
    unsaved = page.locator(".gk-graph svg g.gk-node.not-saved")
    if durability == "sync":
        expect(key).to_have_count(0)
        expect(unsaved).to_have_count(0)
        return
    for name in ("__start__", "a", "b"):
        expect(page.locator(node(name, "not-saved"))).to_have_count(1)
    expect(page.locator(node("__end__", "not-saved"))).to_have_count(0)
    drawn = page.locator(node("a", "not-saved")).locator("rect, path, polygon").first
    assert key.locator("rect").evaluate(SHAPE_STYLE) == drawn.evaluate(SHAPE_STYLE)
