"""The lessons that show the debugger, read as a learner reads them: in JupyterLab 4, in
headless Chromium, Run All, every widget shown and no cell raising."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scripts.read_in_lab import CHROMIUM, read_notebook

FOLDER = Path(__file__).parent.parent / "notebooks"
WITH_WIDGETS = sorted(
    path
    for path in FOLDER.glob("[0-9][0-9]-*.ipynb")
    if "Debugger(" in path.read_text(encoding="utf-8")
)

pytestmark = pytest.mark.browser


def test_some_lessons_show_the_debugger():
    assert len(WITH_WIDGETS) >= 2, "lessons 2, 4 and 5 step through the debugger"


@pytest.mark.parametrize("path", WITH_WIDGETS, ids=lambda path: path.name)
def test_lesson_runs_in_jupyterlab_with_its_widgets(path, tmp_path):
    if not (Path(CHROMIUM).exists() or shutil.which("chromium")):
        pytest.fail("Debian's chromium is missing: run `make system`")
    shown: dict[str, int] = {}

    def look(page):
        shown["debuggers"] = page.locator(".gk-debugger").count()
        shown["verdicts"] = page.locator(".gk-verdict").count()

    errors = read_notebook(path, tmp_path / "shots", look=look)
    assert errors == []
    assert shown["debuggers"] >= 1 and shown["verdicts"] >= 2
    assert len(list((tmp_path / "shots").glob("cell-*.png"))) > 10


def test_lesson_25_shows_each_row_of_drawings_in_one_row(tmp_path):
    """Lesson 25 compares drawings side by side; at JupyterLab's width each comparison
    stays on one row. (The four drawings of section 3 wrapped, the fourth under the first.)"""
    if not (Path(CHROMIUM).exists() or shutil.which("chromium")):
        pytest.fail("Debian's chromium is missing: run `make system`")
    shown: dict[str, list] = {}

    def look(page):
        shown["rows"] = page.evaluate(
            """() => [...document.querySelectorAll('.jp-OutputArea-output div')]
                .filter(row => row.style.display === 'flex')
                .map(row => [...row.children].map(figure => figure.offsetTop))"""
        )

    lesson = FOLDER / "25-what-the-drawing-shows.ipynb"
    errors = read_notebook(lesson, tmp_path / "shots", look=look)
    assert errors == []
    assert len(shown["rows"]) == 4, shown
    assert [len(set(tops)) for tops in shown["rows"]] == [1, 1, 1, 1], shown
