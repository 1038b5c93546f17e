"""What a learner sees in headless Chromium: predict then reveal, and tables that stay
inside a 700 px wide page. Screenshots land in each test's tmp_path."""

from __future__ import annotations

import pytest

from graphkit.widgets import DebugSession
from tests.widgets.graphs import chain_app

pytestmark = pytest.mark.browser

LOAD = 90_000  # ms: Voila starts a kernel and runs the notebook on the first GET

OVERFLOW = """(selector) => {
  const table = document.querySelector(selector);
  const box = table.closest(".gk-table-box") || table.parentElement;
  const page = document.documentElement;
  return {right: box.getBoundingClientRect().right, scroll: box.scrollWidth,
          client: box.clientWidth, page: page.scrollWidth, width: page.clientWidth};
}"""


def _fits(page, selector: str) -> None:
    sizes = page.evaluate(OVERFLOW, selector)
    assert sizes["page"] <= sizes["width"] + 1, f"the page scrolls sideways: {sizes}"
    assert sizes["right"] <= sizes["width"] + 1, f"the table box overflows the page: {sizes}"
    assert sizes["scroll"] > sizes["client"], f"the table is not wider than its box: {sizes}"


def test_wide_tables_scroll_inside_their_box_at_700px(page, voila_url, tmp_path):
    page.set_viewport_size({"width": 700, "height": 900})
    page.goto(f"{voila_url}/voila/render/debugger.ipynb")
    page.locator(".gk-step-button").wait_for(state="visible", timeout=LOAD)
    for _ in range(3):
        page.locator(".gk-step-button").click()
    page.locator(".gk-tables .lm-TabBar-tab").filter(has_text="checkpoints").click()
    page.locator(".gk-table-checkpoints table").wait_for(state="visible")
    _fits(page, ".gk-table-checkpoints table")
    page.locator(".gk-table-checkpoints").screenshot(path=str(tmp_path / "table-700.png"))


def test_wide_export_tables_scroll_at_700px(page, tmp_path):
    session = DebugSession(chain_app(), {"n": 1, "log": []})
    session.run()
    path = tmp_path / "run.html"
    session.export_html(path)
    page.set_viewport_size({"width": 700, "height": 900})
    page.goto(path.as_uri())
    page.locator('.gk-tab[data-kind="checkpoints"]').click()
    _fits(page, ".gk-table-view table")


def test_a_widget_shown_earlier_follows_a_later_cell(page, voila_url, tmp_path):
    from playwright.sync_api import expect

    page.goto(f"{voila_url}/voila/render/learner.ipynb")
    page.locator(".gk-step-button").wait_for(state="visible", timeout=LOAD)
    # later cells stepped, ran, went back four times and stepped again
    expect(page.locator(".gk-step")).to_have_text("step 2 (replayed)")  # not "not started"
    # the slider must not send back a stale value (the widget would be "looking back")
    page.wait_for_timeout(1000)
    expect(page.locator(".gk-phase")).to_have_text("after Update · next: Plan")
    expect(page.locator(".gk-slider .widget-readout")).to_have_text("2")
    expect(page.locator(".gk-state")).to_contain_text("['a', 'b']")
    page.locator(".gk-step-button").click()  # one step on (to the breakpoint), not several
    expect(page.locator(".gk-step")).to_have_text("step 3 (after the fork)")
    expect(page.locator(".gk-message")).to_have_text("Breakpoint: step 3 would run c.")
    expect(page.locator(".gk-table-tasks td").first).to_have_text("3")  # Plan opens tasks


def test_predict_then_reveal_in_voila(page, voila_url, tmp_path):
    from playwright.sync_api import expect

    page.goto(f"{voila_url}/voila/render/debugger.ipynb")
    page.locator(".gk-step-button").wait_for(state="visible", timeout=LOAD)
    for _ in range(2):
        page.locator(".gk-step-button").click()
    expect(page.locator(".gk-step")).to_have_text("step 0")
    page.locator(".gk-predict").click()  # predict mode
    expect(page.locator(".gk-plan-button")).to_be_disabled()
    page.locator(".gk-predict-nodes select").select_option(["a"])
    page.locator(".gk-predict-button").click()
    expect(page.locator(".gk-reveal-right")).to_contain_text("step 1 runs a")
    expect(page.locator(".gk-score")).to_have_text("1 of 1 predictions right")
    expect(page.locator(".gk-phase")).to_have_text("after Plan · next: Execute")
    page.locator(".gk-predict-channel select").select_option("n")
    page.locator(".gk-predict-value input").fill("4")  # n = 1 * 2 + 1 = 3
    page.locator(".gk-predict-button").click()
    expect(page.locator(".gk-reveal-wrong")).to_contain_text("n holds 3")
    expect(page.locator(".gk-score")).to_have_text("1 of 2 predictions right")
    expect(page.locator(".gk-state tr.gk-changed")).not_to_have_count(0)
    page.locator(".gk-debugger").screenshot(path=str(tmp_path / "predict.png"))
    # Back moves the run: the verdict ("n holds 3") no longer describes where it stands,
    # and the message's clauses wrap at words, the checkpoint id last
    page.locator(".gk-back-button").click()
    expect(page.locator(".widget-html.gk-reveal")).to_be_hidden()
    expect(page.locator(".gk-message")).to_contain_text("is next. Checkpoint id: ")
    page.locator(".gk-debugger").screenshot(path=str(tmp_path / "predict-back.png"))
    page.locator(".gk-predict-nodes select").select_option(["a"])
    page.locator(".gk-predict-button").click()
    expect(page.locator(".gk-reveal-right")).to_contain_text("step 1 runs a")
    page.locator(".gk-reset-button").click()
    expect(page.locator(".widget-html.gk-reveal")).to_be_hidden()
    expect(page.locator(".gk-predict-prompt")).to_contain_text("the input step")
    page.locator(".gk-debugger").screenshot(path=str(tmp_path / "predict-reset.png"))


def test_pending_then_applied_in_voila(page, voila_url, tmp_path):
    from playwright.sync_api import expect

    page.goto(f"{voila_url}/voila/render/debugger.ipynb")
    page.locator(".gk-step-button").wait_for(state="visible", timeout=LOAD)
    for _ in range(2):
        page.locator(".gk-step-button").click()
    page.locator(".gk-plan-button").click()
    page.locator(".gk-execute-button").click()
    a = page.locator('.gk-graph svg g[id="node-a"] rect, .gk-graph svg g[id="node-a"] path')
    expect(page.locator('.gk-graph svg g[id="node-a"].pending')).to_have_count(1)
    dashes = a.first.evaluate("e => getComputedStyle(e).strokeDasharray")
    expect(page.locator(".gk-table-writes table")).to_be_visible()
    expect(page.locator(".gk-state tr.gk-pending")).not_to_have_count(0)
    page.locator(".gk-debugger").screenshot(path=str(tmp_path / "after-execute.png"))
    page.locator(".gk-update-button").click()
    expect(page.locator('.gk-graph svg g[id="node-a"].applied')).to_have_count(1)
    assert a.first.evaluate("e => getComputedStyle(e).strokeDasharray") != dashes
    expect(page.locator(".gk-table-changes table")).to_be_visible()
    expect(page.locator(".gk-state tr.gk-changed")).to_contain_text(["1 → 3"])
    page.locator(".gk-debugger").screenshot(path=str(tmp_path / "after-update.png"))


def test_an_unfinished_export_says_so_in_the_browser(page, tmp_path):
    from playwright.sync_api import expect

    session = DebugSession(chain_app(), {"n": 1, "log": []}, breakpoints=["c"])
    session.run()
    path = tmp_path / "paused.html"
    session.export_html(path)
    page.goto(path.as_uri())
    expect(page.locator(".gk-unfinished")).to_contain_text("Unfinished run: paused at a breakpoint")
