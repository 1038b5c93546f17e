"""Two questions waiting at once (lesson 20's two Send tasks) in a real headless Chromium
through Voila: one answer box per question, each labelled with what it asks, and
Resume answers each by its id, as ``Command(resume={id: answer})`` does."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

LOAD = 90_000  # ms: Voila starts a kernel and runs the notebook on the first GET

# Each question's label and answer box: their left, top and bottom edges, in px.
EDGES = """() => {
  const boxes = document.querySelectorAll('.gk-answers .gk-answer-each');
  return [...document.querySelectorAll('.gk-answers .gk-question')].map((q, i) => {
    const box = boxes[i].getBoundingClientRect(), label = q.getBoundingClientRect();
    return {labelLeft: label.left, labelRight: label.right, labelBottom: label.bottom,
            left: box.left, top: box.top, right: box.right};
  });
}"""


def test_each_waiting_question_is_answered_in_its_own_box(page, voila_url, tmp_path):
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(f"{voila_url}/voila/render/approvals.ipynb")
    status = page.locator(".gk-status")
    status.wait_for(state="visible", timeout=LOAD)
    expect(status).to_contain_text("interrupted at step 1")
    questions = page.locator(".gk-answers .gk-question")
    expect(questions).to_have_count(2)
    expect(questions.nth(0)).to_contain_text("approve asks 'Approve laptop?' (id ")
    expect(questions.nth(1)).to_contain_text("approve asks 'Approve chair?' (id ")
    expect(page.locator(".gk-answer input")).to_be_hidden()  # (one box for one answer)
    page.screenshot(path=str(tmp_path / "two-questions.png"), full_page=True)
    # the boxes line up in a column right of the longest label ("laptop" is longer
    # than "chair": each box sat right after its own label, a few px apart)
    wide = page.evaluate(EDGES)
    assert len({round(e["left"]) for e in wide}) == 1, wide
    assert all(e["left"] >= max(w["labelRight"] for w in wide) for e in wide), wide
    page.set_viewport_size({"width": 390, "height": 1000})  # a phone: under its label
    expect(page.locator(".gk-answer-each").first).to_have_css("margin-bottom", "6px")
    narrow = page.evaluate(EDGES)
    page.screenshot(path=str(tmp_path / "two-questions-390.png"), full_page=True)
    for e in narrow:
        assert e["top"] >= e["labelBottom"] - 1 and abs(e["left"] - e["labelLeft"]) < 1, narrow
        assert e["right"] <= 390, narrow
    page.set_viewport_size({"width": 1280, "height": 1000})
    boxes = page.locator(".gk-answer-each input")
    boxes.nth(0).fill("yes")
    boxes.nth(1).fill("no")
    boxes.nth(1).press("Tab")  # (a Text widget syncs its value on blur or Enter)
    page.locator(".gk-resume-button").click()
    expect(page.locator(".gk-message")).to_contain_text("Resumed with {'")
    page.locator(".gk-run-button").click()
    expect(status).to_have_text("done: no node was triggered by the last Update")
    expect(page.locator(".gk-state")).to_contain_text("'laptop: yes', 'chair: no'")
    expect(page.locator(".gk-resume-button")).to_be_hidden()
    page.screenshot(path=str(tmp_path / "answered.png"), full_page=True)
