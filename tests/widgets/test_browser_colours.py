"""The debugger's colours in a real headless Chromium: its text reads at WCAG's 4.5:1 in
JupyterLab's light theme (Voila) and its slider knob follows JupyterLab's dark theme.
PNGs land in each test's tmp_path."""

from __future__ import annotations

import pytest

from graphkit.widgets.tabs import TABLES
from tests.widgets.colours import CONTRASTS, KNOB
from tests.widgets.conftest import voila_server

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
