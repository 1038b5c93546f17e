"""The debugger guide's pictures (docs/images/debugger/*.png), taken here.

One test drives the guide's example (the forecast graph, a breakpoint on summarize) in
Voila through the states docs/debugger.md describes, photographs the widget in each, and
checks that every picture is a real, non-blank image of a sensible size. A picture whose
pixels changed is written again, so the guide shows the widget as it is now, and the test
warns which ones and where they changed: commit them. One that did not change is left as
it is: each run wrote all of them again, and the tree was dirty after every run, their
bytes changed by the random ids a run shows (a task's, a forked checkpoint's), whose
cells the comparison skips.
"""

from __future__ import annotations

import base64
import shutil
import struct
import warnings
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


RANDOM_IDS = """(part) => {
  const id = /^([0-9a-f]{8}|[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12})$/;
  const box = part.getBoundingClientRect(), scale = window.devicePixelRatio;
  const text = document.createTreeWalker(part, NodeFilter.SHOW_TEXT), rects = [];
  while (text.nextNode()) {
    if (!id.test(text.currentNode.data.trim())) continue;
    const range = document.createRange();
    range.selectNodeContents(text.currentNode);
    for (const r of range.getClientRects()) {
      rects.push({x: (r.left - box.left - 2) * scale, y: (r.top - box.top - 2) * scale,
                  width: (r.width + 4) * scale, height: (r.height + 4) * scale});
    }
  }
  return rects;
}"""
"""Where a picture of ``part`` shows a random id (a task id, 8 hex digits, or a checkpoint
id), in the picture's pixels: a new run shows new ones, which is no change to the guide."""

DIFF = """async ([before, after, skipped, tolerance]) => {
  const pixels = async (source) => {
    const image = new Image();
    image.src = source;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const context = canvas.getContext("2d");
    context.drawImage(image, 0, 0);
    return context.getImageData(0, 0, canvas.width, canvas.height);
  };
  const [a, b] = [await pixels(before), await pixels(after)];
  const sizes = [[a.width, a.height], [b.width, b.height]];
  if (a.width !== b.width || a.height !== b.height) return {sizes, changed: null, box: null};
  const skip = (x, y) => skipped.some(
    (r) => x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height);
  let changed = 0, box = null;
  for (let i = 0; i < a.data.length; i += 4) {
    const most = Math.max(...[0, 1, 2, 3].map((c) => Math.abs(a.data[i + c] - b.data[i + c])));
    const x = (i / 4) % a.width, y = Math.floor(i / 4 / a.width);
    if (most <= tolerance || skip(x, y)) continue;
    changed += 1;
    box = box ? [Math.min(box[0], x), Math.min(box[1], y), Math.max(box[2], x), Math.max(box[3], y)]
              : [x, y, x, y];
  }
  return {sizes, changed, box};
}"""
"""Compare two PNGs pixel by pixel, decoded in the browser: their sizes and, of the same
size, how many pixels differ by more than ``tolerance`` in a channel (outside the
``skipped`` rectangles), and the box that holds them."""

TOLERANCE = 32
"""How far a pixel's channel may move and the pixel count as unchanged (antialiasing)."""
CHANGED_PIXELS = 10
"""How many changed pixels a picture may have and still be kept: one character is more."""


def png_size(path: Path) -> tuple[int, int]:
    """The width and height a PNG file's header declares."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", f"{path.name}: not a PNG"
    return struct.unpack(">II", head[16:24])


def data_url(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


def change(page, committed: Path, taken: Path, skipped: list[dict]) -> str | None:
    """How the picture ``taken`` differs from the ``committed`` one, in words, or None when
    it does not beyond the tolerance (the random ids' rectangles ``skipped``)."""
    if not committed.is_file():
        return "new"
    found = page.evaluate(DIFF, [data_url(committed), data_url(taken), skipped, TOLERANCE])
    (width, height), (new_width, new_height) = found["sizes"]
    if (width, height) != (new_width, new_height):
        return f"{width}×{height} px → {new_width}×{new_height} px"
    if found["changed"] <= CHANGED_PIXELS:
        return None
    left, top, right, bottom = found["box"]
    return f"{found['changed']} pixels changed, within x {left}–{right}, y {top}–{bottom}"


def test_the_debugger_guide_pictures(page, voila_url, tmp_path):
    from playwright.sync_api import expect

    IMAGES.mkdir(parents=True, exist_ok=True)
    ids: dict[str, list[dict]] = {}  # each picture's random ids, skipped when compared
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
        part.screenshot(path=str(tmp_path / f"{name}.png"), animations="disabled")
        ids[name] = part.evaluate(RANDOM_IDS)

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

    rewritten = []
    for name in SHOTS:
        path = tmp_path / f"{name}.png"
        assert path.is_file(), f"{name}.png was not written"
        width, height = png_size(path)
        pixels = page.evaluate(PIXELS, data_url(path))
        assert (pixels["width"], pixels["height"]) == (width, height), name
        assert 300 <= width <= 1000 and 80 <= height <= 1800, (name, width, height)
        assert pixels["colours"] >= 16, f"{name}.png is nearly blank: {pixels}"
        assert 0.01 <= pixels["ink"] <= 0.8, f"{name}.png is blank or solid: {pixels}"
        if said := change(page, IMAGES / f"{name}.png", path, ids[name]):
            shutil.copyfile(path, IMAGES / f"{name}.png")
            rewritten.append(f"{name}.png ({said})")
    if rewritten:
        warnings.warn(
            f"rewrote {', '.join(rewritten)} in {IMAGES}: the debugger's look changed; commit "
            "them with the change that made it",
            stacklevel=1,
        )
