"""The debugger's colours in a real headless Chromium: its text reads at WCAG's 4.5:1 in
JupyterLab's light and dark themes (Voila), its slider knob shows at 3:1 in both, and its
exported page follows the reader's system scheme. PNGs land in each test's tmp_path."""

from __future__ import annotations

import re

import pytest

from graphkit.widgets import DebugSession
from graphkit.widgets.tabs import TABLES
from tests.widgets.colours import CONTRASTS, KNOB
from tests.widgets.conftest import voila_server
from tests.widgets.graphs import asking_app, chain_app, failing_app

pytestmark = pytest.mark.browser

LOAD = 90_000  # ms: Voila starts a kernel and runs the notebook on the first GET


@pytest.fixture(scope="module")
def dark_voila_url(notebooks, tmp_path_factory):
    """A second Voila on the same notebooks, in JupyterLab's dark theme."""
    yield from voila_server(notebooks, tmp_path_factory, "dark")


def test_every_text_reads_in_the_light_theme(page, voila_url, tmp_path):
    """The unselected tabs' labels were the widgets' grey, black at 54% on the bar's
    #eeeeee: 4.43:1, under WCAG's 4.5:1. The open tab keeps its black on white."""
    page.goto(f"{voila_url}/voila/render/debugger.ipynb")
    page.locator(".gk-step-button").wait_for(state="visible", timeout=LOAD)
    texts = page.evaluate(CONTRASTS, ".gk-debugger")
    page.locator(".gk-debugger .gk-tables").screenshot(path=str(tmp_path / "tabs-light.png"))
    tabs = [t for t in texts if "lm-TabBar-tabLabel" in t["cls"]]
    assert [t["text"] for t in tabs] == list(TABLES), tabs
    low = [t for t in texts if t["ratio"] < 4.5]
    assert low == [], f"texts under 4.5:1 in JupyterLab's light theme: {low}"
    current = page.locator(".gk-tables .lm-TabBar-tab.lm-mod-current")
    assert current.evaluate("(el) => getComputedStyle(el).color") == "rgb(0, 0, 0)"


def test_the_slider_knob_follows_the_dark_theme(page, dark_voila_url, tmp_path):
    """In JupyterLab's dark theme the step slider's knob was white (the widgets' CSS
    paints it #fff): a glaring dot on the dark page. It is the theme's grey, 3:1 at least
    on its track and on the page (WCAG 1.4.11, a control)."""
    page.goto(f"{dark_voila_url}/voila/render/debugger.ipynb")
    page.locator(".gk-step-button").wait_for(state="visible", timeout=LOAD)
    theme = page.evaluate("() => document.body.dataset.jpThemeLight")
    page.mouse.move(0, 0)  # (hovered, the knob takes the theme's brand colour)
    knob = page.evaluate(KNOB, ".gk-debugger")
    page.locator(".gk-debugger .gk-slider").screenshot(path=str(tmp_path / "slider-dark.png"))
    assert theme == "false"
    assert knob["knob"] != "rgb(255, 255, 255)", knob
    assert knob["knobLuminance"] < 0.8, knob
    assert knob["onTrack"] >= 3 and knob["onPage"] >= 3, knob


def test_every_text_reads_in_the_dark_theme(page, dark_voila_url, tmp_path):
    """In JupyterLab's dark theme the unselected tabs' labels were the widgets' grey, white
    at 54% on the bar's #424242: 4.23:1, under WCAG's 4.5:1. The open tab keeps its white
    on #212121."""
    page.goto(f"{dark_voila_url}/voila/render/debugger.ipynb")
    page.locator(".gk-step-button").wait_for(state="visible", timeout=LOAD)
    page.mouse.move(0, 0)  # (a hovered tab has its own colours)
    texts = page.evaluate(CONTRASTS, ".gk-debugger")
    page.locator(".gk-debugger .gk-tables").screenshot(path=str(tmp_path / "tabs-dark.png"))
    tabs = [t for t in texts if "lm-TabBar-tabLabel" in t["cls"]]
    assert [t["text"] for t in tabs] == list(TABLES), tabs
    low = [t for t in texts if t["ratio"] < 4.5]
    assert low == [], f"texts under 4.5:1 in JupyterLab's dark theme: {low}"
    current = page.locator(".gk-tables .lm-TabBar-tab.lm-mod-current")
    assert current.evaluate("(el) => getComputedStyle(el).color") == "rgb(255, 255, 255)"


def test_the_slider_knob_shows_in_the_light_theme(page, voila_url, tmp_path):
    """In JupyterLab's light theme the step slider's knob was the widgets' white with a
    #d9d9d9 rim: 1.0:1 on the white page, its rim 1.41:1, under the 3:1 WCAG 1.4.11 asks
    of a control. Its rim now sets it off the page and the track by 3:1 at least."""
    page.goto(f"{voila_url}/voila/render/debugger.ipynb")
    page.locator(".gk-step-button").wait_for(state="visible", timeout=LOAD)
    theme = page.evaluate("() => document.body.dataset.jpThemeLight")
    page.mouse.move(0, 0)  # (hovered, the knob takes the theme's brand colour)
    knob = page.evaluate(KNOB, ".gk-debugger")
    page.locator(".gk-debugger .gk-slider").screenshot(path=str(tmp_path / "slider-light.png"))
    assert theme == "true"
    assert knob["rimWidth"] >= 1, knob
    assert max(knob["onPage"], knob["rimOnPage"]) >= 3, knob
    assert max(knob["onTrack"], knob["rimOnTrack"]) >= 3, knob


def _exported(tmp_path, app, inputs, name: str):
    session = DebugSession(app, inputs)
    session.run()
    path = tmp_path / f"{name}.html"
    session.export_html(path)
    return path


# The colours the exported page's parts are drawn in: the page's, the status line's, the
# tabs', a table cell's, the buttons' and the slider's.
PAINTED = """() => Object.fromEntries(
  ['body', '.gk-title', '.gk-status', '.gk-legend', '.gk-why', '.gk-tab', '.gk-tab.active',
   '.gk-table-view td', '.gk-table-view th', '.gk-prev', '.gk-next', '.gk-slider',
   '.gk-state-table td', '.gk-position'].map(s => {
    const el = document.querySelector(s);
    if (!el) return [s, null];
    const c = getComputedStyle(el);
    return [s, [c.color, c.backgroundColor, c.borderTopColor, c.accentColor, c.colorScheme]];
  }))"""


@pytest.mark.parametrize(
    ("app", "inputs", "status"),
    [
        (chain_app, {"n": 1, "log": []}, "done"),
        (failing_app, {"n": 1, "log": []}, "error"),
        (asking_app, {"n": 1}, "interrupted"),
    ],
)
def test_the_exported_page_reads_in_the_dark_scheme(browser, tmp_path, app, inputs, status):
    """The exported page (export_html, `graphkit lessons --run`'s debugger-tour.html) was
    light whatever the reader's system asked. Dark, it takes the debugger's colours in
    JupyterLab's dark theme: every text reads at 4.5:1 at least, the status line, the tabs,
    the tables and the buttons; the drawing keeps its white card."""
    path = _exported(tmp_path, app(), inputs, status)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        page.locator(".gk-slider").fill(page.locator(".gk-slider").get_attribute("max") or "0")
        page.locator('.gk-tab[data-kind="writes"]').click()
        page.mouse.move(0, 0)
        texts = page.evaluate(CONTRASTS, "body")  # the last step: its status line
        page.locator(".gk-prev").focus()  # (on a tab the arrow keys open the next tab)
        page.keyboard.press("ArrowLeft")  # Next enabled too (a disabled one is exempt)
        texts += page.evaluate(CONTRASTS, "body")
        ground = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
        card = page.evaluate(
            "() => getComputedStyle(document.querySelector('.gk-graph rect.gk-card')).fill"
        )
        page.keyboard.press("ArrowRight")
        status_class = page.locator(".gk-status").get_attribute("class")
        page.screenshot(path=str(tmp_path / f"export-{status}-dark.png"), full_page=True)
    finally:
        context.close()
    assert ground == "rgb(17, 17, 17)"  # JupyterLab dark's --jp-layout-color0
    assert card == "rgb(255, 255, 255)"
    assert status in (status_class or ""), status_class
    said = {t["cls"].split(" ")[0] for t in texts}
    for part in ["gk-status", "gk-tab", "gk-prev", "gk-next", "gk-position", "gk-step"]:
        assert part in said, f"no {part} measured: {sorted(said)}"
    assert any(t["tag"] == "TD" for t in texts), "no table cell measured"
    low = [t for t in texts if t["ratio"] < 4.5]
    assert low == [], f"the exported page in the dark scheme: texts under 4.5:1: {low}"


def test_the_exported_page_is_unchanged_in_the_light_scheme(browser, tmp_path):
    """The dark scheme is all inside one media query: a light reader gets the colours the
    page had before it (the same page with that query cut out, compared part by part)."""
    path = _exported(tmp_path, chain_app(), {"n": 1, "log": []}, "run")
    html = path.read_text(encoding="utf-8")
    dark = re.search(r"\n@media \(prefers-color-scheme: dark\) \{\n.*?\n\}\n", html, re.S)
    assert dark, "no dark scheme in the exported page"
    before = tmp_path / "before.html"
    before.write_text(html.replace(dark.group(0), "\n"), encoding="utf-8")
    painted = {}
    for name, page_path in (("before", before), ("after", path)):
        context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
        try:
            page = context.new_page()
            page.goto(page_path.as_uri())
            page.locator(".gk-slider").fill("7")
            page.locator('.gk-tab[data-kind="writes"]').click()
            page.mouse.move(0, 0)
            painted[name] = page.evaluate(PAINTED)
            page.screenshot(path=str(tmp_path / f"export-light-{name}.png"), full_page=True)
        finally:
            context.close()
    assert painted["after"]["body"][1] == "rgba(0, 0, 0, 0)"  # the browser's white
    assert painted["after"] == painted["before"]
