"""The debugger in JupyterLab 4 (headless Chromium), where cells run while the widgets
are live: after Run All, a widget shown first must show its session's true state.

The Lab server comes from ``scripts/read_in_lab.py``; the page from the session's
browser (a second Playwright in the same process is refused)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess

import nbformat
import pytest

from tests.widgets.conftest import LOCAL, REPO

pytestmark = pytest.mark.browser

CELLS = [
    f"import sys\nsys.path.insert(0, {str(REPO)!r})\n"
    "from graphkit.widgets import Debugger\nfrom tests.widgets.graphs import chain_app\n"
    "debugger = Debugger(chain_app(), {'n': 1, 'log': []})\ndebugger",
    "for _ in range(4):\n    debugger.session.step()",
    "debugger.session.goto(1)  # looking back at step 0",
    "debugger.session.run()  # live again, to the end",
]

KERNEL_IDLE = """() => { const s = document.querySelector('#jp-main-statusbar');
    return !!s && /\\|\\s*Idle/.test(s.innerText) && !/No Kernel/.test(s.innerText); }"""


def run_all_in_lab(browser, notebook, tmp_path) -> dict[str, str]:
    """Run ``notebook`` in JupyterLab; the first debugger's step and phase labels."""
    from scripts.read_in_lab import start_lab, wait_until_run

    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(notebook, root / notebook.name)  # Lab autosaves what it runs
    proc, url = start_lab(root, tmp_path, dark=False)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.route(
            "**/*", lambda r: r.continue_() if r.request.url.startswith(LOCAL) else r.abort()
        )
        page.goto(f"{url}/lab/tree/{notebook.name}")
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
        page.wait_for_function(KERNEL_IDLE, timeout=90_000)
        page.click("div.lm-MenuBar-itemLabel:text('Run')")
        page.click("li.lm-Menu-item[data-command='runmenu:run-all']")
        wait_until_run(page, 300)
        page.wait_for_timeout(1500)  # room for a stale slider value to come back
        labels = {
            name: page.locator(f".gk-debugger .gk-{name}").first.inner_text()
            for name in ("step", "phase")
        }
        page.locator(".gk-debugger").first.scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / f"{notebook.stem}.png"))
        return labels
    finally:
        page.close()
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def test_after_run_all_in_lab_a_widget_shown_first_shows_the_live_step(browser, tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    path = tmp_path / "follow.ipynb"
    nbformat.write(notebook, path)
    labels = run_all_in_lab(browser, path, tmp_path)
    assert labels == {"step": "step 3", "phase": "after Update · run done"}


def test_the_debugger_notebook_ends_with_its_widget_on_the_last_step(browser, tmp_path):
    # Failed before the slider's min, max and value went to the browser as one message:
    # it clamped a stale value and sent it back, and the widget was "looking back".
    found = sorted((REPO / "notebooks").glob("*debugger*.ipynb"))
    assert found, "notebooks/ should hold the debugger's notebook (A1-debugger-tour.ipynb)"
    labels = run_all_in_lab(browser, found[0], tmp_path)
    assert labels == {"step": "step 3 (replayed)", "phase": "after Update · run done"}
