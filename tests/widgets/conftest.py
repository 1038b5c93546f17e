"""Fixtures for the browser tests: one Voila server per session, one headless Chromium per
test module.

Chromium is Debian's /usr/bin/chromium (``make system`` installs it); Playwright only
drives it (never run ``playwright install``). Every request that is not local is
blocked, so a page that needs the network fails here the way it would offline.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import nbformat
import pytest

from scripts.read_in_lab import CHROMIUM, CHROMIUM_ARGS, LOCAL, free_port, wait_http

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK_CODE = f"""\
import sys
sys.path.insert(0, {str(REPO)!r})
from graphkit.widgets import Debugger
from tests.widgets.graphs import chain_app
Debugger(chain_app(), {{"n": 1, "log": []}}, breakpoints=["c"])
"""

LEARNER_CELLS = [
    NOTEBOOK_CODE.replace("Debugger(chain_app()", "debugger = Debugger(chain_app()") + "debugger\n",
    "# a later cell drives the session the widget above shows\n"
    "for _ in range(3):\n    debugger.session.step()\n",
    "debugger.session.goto(0)\ndebugger.session.run()\ndebugger.session.back()\n"
    "for _ in range(3):\n    debugger.session.back()\n"
    "for _ in range(3):\n    debugger.session.step()\n",
]
"""learner.ipynb: a Debugger shown first, then driven from a later cell (Run All)."""

GUIDE_CODE = f"""\
import sys
sys.path.insert(0, {str(REPO)!r})
from graphkit.inspect.examples import forecast_graph
from graphkit.widgets import Debugger
Debugger(forecast_graph(), {{"topic": "today", "tokens": 0}}, breakpoints=["summarize"])
"""
"""guide.ipynb: the debugger guide's example, which test_guide_screenshots.py photographs."""

STORE_CODE = f"""\
import sys
sys.path.insert(0, {str(REPO)!r})
from graphkit.widgets import Debugger
from tests.widgets.graphs import forgetful_memory_app
debugger = Debugger(forgetful_memory_app(), {{"question": "what do I love?"}})
debugger.session.run()
debugger.tabs.selected_index = 5  # store
debugger
"""
"""store.ipynb: a search in the wrong namespace, its store tab open (the note above it)."""

ASYNC_CODE = f"""\
import sys
sys.path.insert(0, {str(REPO)!r})
from graphkit.widgets import Debugger
from tests.widgets.graphs import meeting_app
Debugger(meeting_app(), {{"log": []}})
"""
"""async.ipynb: a graph whose async nodes meet at a barrier, stepped from the kernel's
thread (whose loop is busy running the cell)."""

APPROVALS_CODE = f"""\
import sys
sys.path.insert(0, {str(REPO)!r})
import graphkit
from graphkit.widgets import Debugger
from tests.widgets.graphs import approvals
expenses = [{{"item": "laptop", "amount": 1800}}, {{"item": "chair", "amount": 240}}]
debugger = Debugger(approvals(graphkit).compile(), {{"expenses": expenses}})
debugger.click("run")
debugger
"""
"""approvals.ipynb: two Send tasks paused at once (lesson 20), one answer box each."""


@contextmanager
def _server(cmd: list[str], ready_url: str, tmp: Path):
    env = dict(os.environ)
    for key in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        env[key] = str(tmp / key.lower())  # isolated from the machine's ~/.jupyter
    with open(tmp / "server.log", "w") as log:  # read this when a test fails
        proc = subprocess.Popen(
            cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            wait_http(ready_url, proc)
            yield
        finally:
            os.killpg(proc.pid, signal.SIGTERM)  # the server and its kernels
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def notebooks(tmp_path_factory) -> Path:
    """A folder holding debugger.ipynb (a Debugger on chain_app), learner.ipynb (the same,
    driven by a later cell), guide.ipynb (the guide's example), store.ipynb (a store tab
    with a note), async.ipynb (a graph of async nodes) and approvals.ipynb (two
    questions waiting at once)."""
    folder = tmp_path_factory.mktemp("notebooks")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(NOTEBOOK_CODE)])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(notebook, folder / "debugger.ipynb")
    learner = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in LEARNER_CELLS])
    learner.metadata["kernelspec"] = notebook.metadata["kernelspec"]
    nbformat.write(learner, folder / "learner.ipynb")
    guide = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(GUIDE_CODE)])
    guide.metadata["kernelspec"] = notebook.metadata["kernelspec"]
    nbformat.write(guide, folder / "guide.ipynb")
    store = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(STORE_CODE)])
    store.metadata["kernelspec"] = notebook.metadata["kernelspec"]
    nbformat.write(store, folder / "store.ipynb")
    meeting = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(ASYNC_CODE)])
    meeting.metadata["kernelspec"] = notebook.metadata["kernelspec"]
    nbformat.write(meeting, folder / "async.ipynb")
    approving = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(APPROVALS_CODE)])
    approving.metadata["kernelspec"] = notebook.metadata["kernelspec"]
    nbformat.write(approving, folder / "approvals.ipynb")
    return folder


@pytest.fixture(scope="session")
def voila_url(notebooks, tmp_path_factory):
    """A Voila server for ``notebooks``, in JupyterLab's light theme."""
    yield from voila_server(notebooks, tmp_path_factory, "light")


def voila_server(folder: Path, tmp_path_factory, theme: str):
    """Serve ``folder`` with Voila in JupyterLab's ``theme`` ("light" or "dark"); yield
    its URL."""
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "voila",
        str(folder),
        f"--theme={theme}",
        "--no-browser",
        "--Voila.ip=127.0.0.1",
        f"--port={port}",
        "--show_tracebacks=True",
    ]
    ready = f"http://127.0.0.1:{port}/voila/static/"
    with _server(cmd, ready, tmp_path_factory.mktemp(f"voila-{theme}")):
        yield f"http://127.0.0.1:{port}"


# Per module, not per session: Playwright's sync API runs its asyncio loop in the main
# thread from start to stop, so while it is open every other test of the session sees a
# running loop, and ``asyncio.run`` refuses to start ("cannot be called from a running
# event loop"). A session-wide browser broke the async tests of any module run after the
# first browser test (tests/inspect/ after tests/widgets/); closed at the end of its
# module, it is gone before the next module's first test.
@pytest.fixture(scope="module")
def browser():
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        pytest.fail(
            f"{CHROMIUM} is missing: the browser tests need Debian's chromium. Install it "
            "with `make system` (apt-get install chromium fonts-dejavu-core); never run "
            "`playwright install`."
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, request, tmp_path):
    context = browser.new_context(viewport={"width": 1200, "height": 1000})
    page = context.new_page()
    page.route(
        "**/*",
        lambda route: route.continue_() if route.request.url.startswith(LOCAL) else route.abort(),
    )
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.dialogs = dialogs  # an alert() from an escaped <script> would land here
    yield page
    page.screenshot(path=str(tmp_path / f"{request.node.name}.png"), full_page=True)
    context.close()
