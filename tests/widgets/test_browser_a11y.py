"""The exported debugger page for a learner on a keyboard or a screen reader: axe-core
(scripts/axe_js.py, fetched once from the npm registry) finds nothing serious or critical,
light or dark, at any frame and tab, and the keyboard reaches and works every control."""

from __future__ import annotations

import pytest

from graphkit.inspect.examples import forecast_graph
from graphkit.widgets import DebugSession
from scripts.axe_js import audit
from tests.widgets.graphs import failing_app

pytestmark = pytest.mark.browser

FOCUSED = "() => document.activeElement.className"


@pytest.mark.parametrize(
    ("app", "inputs"),
    [(forecast_graph, {"topic": "today", "tokens": 0}), (failing_app, {"n": 1, "log": []})],
)
def test_the_exported_page_passes_axe_and_works_from_the_keyboard(browser, tmp_path, app, inputs):
    from playwright.sync_api import expect

    session = DebugSession(app(), inputs)
    session.run()
    path = tmp_path / "run.html"
    session.export_html(path)
    serious = []
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 1200, "height": 900}, color_scheme=scheme)
        page = context.new_page()
        page.goto(path.as_uri())
        slider, tabs = page.locator(".gk-slider"), page.locator(".gk-tab")
        last = int(slider.get_attribute("max") or 0)
        for frame in sorted({0, last // 2, last}):  # (the last: an error's status line)
            slider.fill(str(frame))
            for index in range(tabs.count()):
                tabs.nth(index).click()
                serious += [
                    (scheme, frame, tabs.nth(index).text_content(), violation)
                    for violation in audit(page)
                    if violation["impact"] in ("critical", "serious")
                ]
        page.screenshot(path=str(tmp_path / f"a11y-{scheme}.png"), full_page=True)
        context.close()
    assert serious == [], serious

    page = browser.new_page()
    page.goto(path.as_uri())
    slider = page.locator(".gk-slider")
    page.keyboard.press("Tab")  # Prev is disabled at the first frame: the slider first
    assert page.evaluate(FOCUSED) == "gk-slider"
    page.keyboard.press("ArrowRight")  # the slider's own key
    expect(page.locator(".gk-position")).to_have_text(f"2 / {int(slider.get_attribute('max')) + 1}")
    assert "after Execute" in (slider.get_attribute("aria-valuetext") or "")
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED) == "gk-next"
    for _ in range(40):  # on past the last frame: Next disables itself
        page.keyboard.press("Enter")
    assert page.evaluate(FOCUSED) == "gk-slider"  # the focus stays in the controls
    # a screen reader hears what the drawing shows: the last frame's node, by its key
    expect(page.locator(".gk-graph")).to_have_attribute("aria-label", _NAMES[app.__name__])
    tab = page.locator('.gk-tab[aria-selected="true"]')
    tab.focus()
    page.keyboard.press("ArrowRight")  # the next tab opens; the frame stays
    expect(page.locator('.gk-tab[aria-selected="true"]')).to_have_text("writes")
    assert page.evaluate(FOCUSED) == "gk-tab active"
    page.keyboard.press("End")
    expect(page.locator('.gk-tab[aria-selected="true"]')).to_have_text("checkpoints")
    panel = page.locator("#gk-table-view")
    expect(panel).to_have_attribute("aria-labelledby", "gk-tab-checkpoints")
    page.keyboard.press("Tab")  # into the table's box, which scrolls with the arrow keys
    assert "gk-table-box" in page.evaluate(FOCUSED)
    page.close()


_NAMES = {
    "forecast_graph": (
        "The graph, step 3 after Update. applied (after Update): summarize. "
        "Its nodes: __start__, planner, weather, news, summarize, __end__."
    ),
    "failing_app": (
        "The graph, step 2 after Execute. error: broken. Its nodes: __start__, a, broken, __end__."
    ),
}
