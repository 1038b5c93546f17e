"""The debugger guide's pictures (docs/images/debugger/*.png), taken here.

One test drives the guide's example (the forecast graph, a breakpoint on summarize) in
Voila through the states docs/debugger.md describes, photographs the widget in each, and
checks that every picture is a real, non-blank image of a sensible size. Each run writes
the pictures again, so the guide shows the widget as it is now; commit them when they
change.
"""

from __future__ import annotations

import base64
import struct
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

LOAD = 90_000  # ms: Voila starts a kernel and runs the notebook on the first GET
IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images" / "debugger"
SHOTS = (
    "start",
    "breakpoint",
    "after-plan",
    "after-execute",
    "after-update",
    "predict",
    "reveal",
    "checkpoints",
)
"""The pictures, in the order the guide shows them."""

SCROLL_TO_STEP = """(table) => {
  const box = table.closest(".gk-table-box");
  const step = [...table.querySelectorAll("th")].find((th) => th.textContent === "step");
  box.scrollLeft = step.offsetLeft - 4;
}"""
"""Scroll the checkpoints table sideways past the thread and checkpoint ids, to the
columns that tell the story (step, source, fork_of, next, the values)."""

PIXELS = """async (source) => {
  const image = new Image();
  image.src = source;
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = image.naturalWidth;
  canvas.height = image.naturalHeight;
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
  const colours = new Set();
  let ink = 0;
  for (let i = 0; i < data.length; i += 4) {
    colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    if (765 - data[i] - data[i + 1] - data[i + 2] > 60) ink += 1;
  }
  return {width: image.naturalWidth, height: image.naturalHeight,
          colours: colours.size, ink: ink / (data.length / 4)};
}"""
"""Decode a PNG in the browser: its size, how many colours it has, and the share of its
pixels that are not (near) white."""


def png_size(path: Path) -> tuple[int, int]:
    """The width and height a PNG file's header declares."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", f"{path.name}: not a PNG"
    return struct.unpack(">II", head[16:24])


def test_the_debugger_guide_pictures(page, voila_url):
    from playwright.sync_api import expect

    IMAGES.mkdir(parents=True, exist_ok=True)
    for name in SHOTS:
        (IMAGES / f"{name}.png").unlink(missing_ok=True)
    # as wide as the guide's text column, and tall enough for the whole widget
    page.set_viewport_size({"width": 800, "height": 1800})
    button = lambda name: page.locator(f".gk-{name}-button")  # noqa: E731

    def open_guide() -> None:
        page.goto(f"{voila_url}/voila/render/guide.ipynb")  # Voila starts a new kernel
        button("step").wait_for(state="visible", timeout=LOAD)

    debugger = page.locator(".gk-debugger")
    step, phase = page.locator(".gk-step"), page.locator(".gk-phase")

    def shoot(name: str, part=debugger) -> None:
        page.mouse.move(0, 0)  # no hover highlight
        page.evaluate("document.activeElement && document.activeElement.blur()")  # no focus ring
        part.screenshot(path=str(IMAGES / f"{name}.png"), animations="disabled")

    open_guide()
    expect(phase).to_have_text("next: Plan")
    shoot("start")

    for _ in range(3):  # the input step, step 0 (__start__), step 1 (planner)
        button("step").click()
    expect(step).to_have_text("step 1")
    button("plan").click()
    expect(phase).to_have_text("after Plan · next: Execute")
    expect(page.locator('.gk-graph svg g[id="node-weather"].planned')).to_have_count(1)
    expect(page.locator(".gk-table-tasks table")).to_be_visible()
    shoot("after-plan")

    button("execute").click()
    expect(phase).to_have_text("after Execute · next: Update")
    expect(page.locator(".gk-state tr.gk-pending")).not_to_have_count(0)
    expect(page.locator(".gk-table-writes table")).to_be_visible()
    shoot("after-execute")

    button("update").click()
    expect(phase).to_have_text("after Update · next: Plan")
    expect(page.locator(".gk-state tr.gk-changed")).to_contain_text(["sunny"])
    expect(page.locator(".gk-table-changes table")).to_be_visible()
    shoot("after-update")

    page.locator(".gk-predict").click()  # predict mode: the guess runs the phase
    page.locator(".gk-predict-nodes select").select_option(["summarize"])
    button("predict").click()
    expect(page.locator(".gk-reveal-right")).to_contain_text("summarize")
    page.locator(".gk-predict-channel select").select_option("summary")
    page.locator(".gk-predict-value input").fill("sunny")
    shoot("predict", page.locator(".gk-predict-panel"))
    button("predict").click()
    expect(page.locator(".gk-reveal-wrong")).to_contain_text("'sunny; market up'")
    page.locator(".gk-predict").click()  # predict mode off: the verdict and score stay
    expect(page.locator(".gk-predict-box")).to_be_hidden()
    expect(page.locator(".gk-score")).to_have_text("1 of 2 predictions right")
    shoot("reveal", page.locator(".gk-predict-panel"))

    button("run").click()
    expect(page.locator(".gk-status")).to_contain_text("done")
    button("back").click()  # time travel: the thread forks
    button("run").click()  # to the breakpoint on summarize
    button("run").click()
    expect(step).to_have_text("step 3 (replayed)")
    expect(page.locator(".gk-status")).to_contain_text("done")
    page.locator(".gk-tables .lm-TabBar-tab").filter(has_text="checkpoints").click()
    table = page.locator(".gk-table-checkpoints table")
    expect(table).to_be_visible()
    table.evaluate(SCROLL_TO_STEP)
    shoot("checkpoints", page.locator(".gk-tables"))

    open_guide()  # a fresh kernel, so the predictions above are not on the screen
    button("run").click()  # stops at the breakpoint on summarize
    expect(page.locator(".gk-message")).to_have_text("Breakpoint: step 3 would run summarize.")
    page.locator(".gk-node-select select").select_option("summarize")
    expect(page.locator(".gk-why")).to_contain_text("summarize is planned to run at step 3")
    shoot("breakpoint")

    for name in SHOTS:
        path = IMAGES / f"{name}.png"
        assert path.is_file(), f"{name}.png was not written"
        width, height = png_size(path)
        source = "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()
        pixels = page.evaluate(PIXELS, source)
        assert (pixels["width"], pixels["height"]) == (width, height), name
        assert 300 <= width <= 1000 and 80 <= height <= 1800, (name, width, height)
        assert pixels["colours"] >= 16, f"{name}.png is nearly blank: {pixels}"
        assert 0.01 <= pixels["ink"] <= 0.8, f"{name}.png is blank or solid: {pixels}"
