"""A lesson page of the site keeps each predict question's answer folded until the reader
opens it. The site runs the lessons with their stub guesses, so the saved output of a
predict cell is the truth ("forecast holds 'sunny (saw 120 tokens)'"); docs/hooks.py folds
it, and the outputs of the cells after it up to the prose that explains the answer (which
the lesson folds itself). The notebooks are not changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
LESSONS = sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))


def answering_cells(notebook: Path) -> list[str]:
    """The ids of the code cells whose outputs answer a question: each cell calling
    ``.predict(`` and the code cells after it, and the code cells after a guess's stub
    (``# your guess``: lessons 12 and 13 run the graph and print the truth beside it), each
    up to the next Markdown cell."""
    ids, answering = [], False
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            answering = False
        elif ".predict(" in source:
            answering = True
        if answering:
            ids.append(cell["id"])
        if cell["cell_type"] == "code" and "# your guess" in source:
            answering = True
    return ids


# For each code cell with outputs: its id, and whether each of its outputs is shown and
# inside a closed fold ("Reveal (run your guess first)").
OUTPUTS = """() => [...document.querySelectorAll('.jp-CodeCell[id^="cell-id="]')].map(cell => ({
  id: cell.id.slice('cell-id='.length),
  outputs: [...cell.querySelectorAll('.jp-OutputArea-output')].map(output => {
    const fold = output.closest('.gk-folded-output details');
    return {
      folded: fold !== null && !fold.open,
      summary: fold ? fold.querySelector('summary').textContent : null,
      seen: output.checkVisibility(),
    };
  }),
})).filter(cell => cell.outputs.length)"""


@pytest.mark.docs
@pytest.mark.browser
def test_a_predict_questions_saved_answer_is_folded(site, site_url, tmp_path):
    """Every output of a question's cells is in a closed fold, not shown; no other output
    is folded; opened, the fold shows the judged guess (a PNG lands in ``tmp_path``)."""
    from playwright.sync_api import sync_playwright

    from scripts.read_in_lab import CHROMIUM, CHROMIUM_ARGS, LOCAL

    shown, folded_elsewhere, answering_cells_seen = {}, {}, 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.route(
                "**/*", lambda r: r.continue_() if r.request.url.startswith(LOCAL) else r.abort()
            )
            for notebook in LESSONS:
                page.goto(f"{site_url}/lessons/{notebook.stem}/")
                answering = set(answering_cells(notebook))
                answering_cells_seen += len(answering)
                for cell in page.evaluate(OUTPUTS):
                    hidden = [
                        out["folded"]
                        and not out["seen"]
                        and out["summary"] == "Reveal (run your guess first)"
                        for out in cell["outputs"]
                    ]
                    where = f"{notebook.stem} {cell['id']}"
                    if cell["id"] in answering and not all(hidden):
                        shown[where] = cell["outputs"]
                    elif cell["id"] not in answering and any(o["folded"] for o in cell["outputs"]):
                        folded_elsewhere[where] = cell["outputs"]
            page.goto(f"{site_url}/lessons/02-supersteps/")
            cell = page.locator('[id="cell-id=l02-c38"]')  # Q1: what will forecast hold?
            answer = cell.get_by_text("forecast holds 'sunny (saw 120 tokens)'")
            assert answer.count() == 1 and not answer.is_visible()
            cell.get_by_text("Reveal (run your guess first)").click()
            assert answer.is_visible()
            cell.screenshot(path=str(tmp_path / "02-q1-revealed.png"))
            # A question with no .predict( call: its cell prints the truth beside the guess.
            page.goto(f"{site_url}/lessons/13-functional-api/")
            cell = page.locator('[id="cell-id=l13-c05"]')  # Q1: how many supersteps?
            answer = cell.get_by_text("The run took 2 supersteps", exact=False)
            assert answer.count() == 1 and not answer.is_visible()
            cell.get_by_text("Reveal (run your guess first)").click()
            assert answer.is_visible()
        finally:
            browser.close()
    assert answering_cells_seen >= 29, "the lessons' predict cells were not found"
    assert shown == {}, f"a question's saved output shows its answer: {shown}"
    assert folded_elsewhere == {}, (
        f"an output that answers no question is folded: {folded_elsewhere}"
    )
