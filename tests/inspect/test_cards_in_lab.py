"""The step cards, the ``why`` card, the state diff and the run's timeline follow the
notebook's theme: in JupyterLab's dark theme they sat on their own white ground (the
whole card glared in a dark notebook); without theme variables (a pasted page, classic
Jupyter) they keep their light colours. Read in headless Chromium, as colours a person
sees (each computed colour painted on a canvas and read back)."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from scripts.read_in_lab import CHROMIUM, CHROMIUM_ARGS, read_notebook

pytestmark = pytest.mark.browser

SETUP = """\
from IPython.display import HTML
from graphkit.inspect.examples import forecast_run
run = forecast_run()
"""
CELLS = [
    "run.step(2)",
    'run.why("summarize")',
    "run.diff(0, 3)",
    # the run's card with its timeline unfolded (an inline SVG)
    "HTML(run._repr_html_().replace('<details', '<details open', 1))",
]

# (what, its ground, its text): each read as an [r, g, b] a person sees
LOOK = """() => {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const pen = canvas.getContext('2d', {willReadFrequently: true});
  const seen = colour => {
    pen.clearRect(0, 0, 1, 1); pen.fillStyle = '#000'; pen.fillStyle = colour;
    pen.fillRect(0, 0, 1, 1); return [...pen.getImageData(0, 0, 1, 1).data.slice(0, 3)];
  };
  const style = node => getComputedStyle(node);
  const all = selector => [...document.querySelectorAll(selector)];
  const out = [];
  for (const card of all('div[style*="border-radius:8px"][style*="max-width:1000px"]'))
    out.push(['card', seen(style(card).backgroundColor), seen(style(card).color)]);
  for (const column of all('div[style*="border-top:3px solid"]'))
    out.push(['phase', seen(style(column).backgroundColor), seen(style(column).color)]);
  for (const box of all('div[style*="border-left:3px solid"]'))
    out.push(['box', seen(style(box).backgroundColor), seen(style(box).color)]);
  for (const rect of all('svg.gk-timeline rect.gk-card'))
    out.push(['timeline', seen(style(rect).fill), seen(style(rect.ownerSVGElement.querySelector(
      '.gk-step text')).fill)]);
  return out;
}"""


def luminance(rgb: list[int]) -> float:
    """WCAG's relative luminance of an sRGB colour (0 black, 1 white)."""
    linear = [c / 255 / 12.92 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: list[int], b: list[int]) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _chromium() -> None:
    if not (Path(CHROMIUM).exists() or shutil.which("chromium")):
        pytest.fail("Debian's chromium is missing: run `make system`")


def _kinds(seen: list) -> set[str]:
    return {kind for kind, _, _ in seen}


def test_the_cards_follow_jupyterlabs_dark_theme(tmp_path):
    _chromium()
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(SETUP), *map(nbformat.v4.new_code_cell, CELLS)]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    path = tmp_path / "cards.ipynb"
    nbformat.write(notebook, path)
    seen: list = []
    errors = read_notebook(
        path, tmp_path / "shots", dark=True, look=lambda page: seen.extend(page.evaluate(LOOK))
    )
    assert errors == []
    assert _kinds(seen) == {"card", "phase", "box", "timeline"}
    for kind, ground, text in seen:
        assert luminance(ground) < 0.05, f"a {kind} glares in the dark theme: {ground}"
        assert contrast(ground, text) > 7, f"a {kind}'s text is hard to read: {text} on {ground}"


def test_the_cards_keep_their_light_colours_without_a_theme():
    from playwright.sync_api import sync_playwright

    from graphkit.inspect.examples import forecast_run

    _chromium()
    run = forecast_run()
    page_html = "".join(
        [
            run.step(2)._repr_html_(),
            run.why("summarize")._repr_html_(),
            run.diff(0, 3)._repr_html_(),
            run._repr_html_().replace("<details", "<details open", 1),
        ]
    )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.set_content(f"<html><body>{page_html}</body></html>")
        seen = page.evaluate(LOOK)
        browser.close()
    assert _kinds(seen) == {"card", "phase", "box", "timeline"}
    for kind, ground, text in seen:
        assert luminance(ground) > 0.6, f"a {kind} lost its light ground: {ground}"
        assert contrast(ground, text) > 7, f"a {kind}'s text is hard to read: {text} on {ground}"
    # the phases' tints stay the graph's (``render.theme.TINTS``), within a shade
    from graphkit.render.theme import TINTS

    tints = {tuple(ground) for kind, ground, _ in seen if kind == "phase"}
    for name in ("blue", "orange", "green"):
        want = [int(TINTS[name][i : i + 2], 16) for i in (1, 3, 5)]
        assert any(max(abs(a - b) for a, b in zip(t, want, strict=True)) <= 12 for t in tints)
