"""Read a notebook as a learner would: open it in JupyterLab 4 in headless Chromium, run
all cells, and save a screenshot of every cell.

    .venv/bin/python scripts/read_in_lab.py notebooks/02-supersteps.ipynb /tmp/lab02
    .venv/bin/python scripts/read_in_lab.py notebooks/02-supersteps.ipynb /tmp/lab02 --dark

The notebook runs from a copy in a temporary folder (Lab autosaves what it runs), so it
also proves the lesson needs no file beside it. Prints each cell's screenshot path and
every error output; exits 1 if a cell raised. Needs JupyterLab and Playwright (the
``dev`` extra) and Debian's /usr/bin/chromium; it never downloads a browser.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "file:")
SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    # Render every cell, not only those in view, so each can be screenshotted.
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


def free_port() -> int:
    """A TCP port free on loopback now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, proc: subprocess.Popen, timeout: float = 90) -> None:
    """Wait until ``url`` answers (any status below 500), or fail if ``proc`` exits."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited early (rc={proc.returncode})")
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except urllib.error.HTTPError as error:
            if error.code < 500:
                return
        except OSError:
            pass
        time.sleep(0.3)
    raise TimeoutError(f"nothing answered at {url} in {timeout} s")


def start_lab(root: Path, tmp: Path, dark: bool) -> tuple[subprocess.Popen, str]:
    """Start JupyterLab serving ``root`` with private settings; return it and its URL."""
    settings = tmp / "settings"
    for name, value in SETTINGS.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    if dark:
        theme = settings / "@jupyterlab/apputils-extension/themes.jupyterlab-settings"
        theme.write_text(json.dumps({"theme": "JupyterLab Dark"}))
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings))
    for key in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        env[key] = str(tmp / key.lower())
    # the kernel imports the graphkit of this checkout (a second worktree sharing the
    # .venv would otherwise read its lessons with the installed checkout's graphkit)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    port = free_port()
    cmd = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--allow-root",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        f"--ServerApp.root_dir={root}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        f"--LabApp.user_settings_dir={settings}",
        f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
    ]
    log = open(tmp / "lab.log", "w")  # noqa: SIM115 - lives as long as the server
    proc = subprocess.Popen(
        cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    wait_http(f"{url}/api/status", proc)
    return proc, url


def read_notebook(
    notebook: Path,
    out: Path,
    *,
    dark: bool = False,
    width: int = 1280,
    height: int = 900,
    timeout: float = 600,
    look: Callable[[Any], None] | None = None,
) -> list[str]:
    """Run ``notebook`` in JupyterLab, screenshot each cell into ``out``; return errors.
    ``look(page)``, if given, is called on the Playwright page after the run (a test's
    assertions)."""
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="read-in-lab-"))
    root = tmp / "root"
    root.mkdir()
    shutil.copy(notebook, root / notebook.name)
    proc, url = start_lab(root, tmp, dark)
    errors: list[str] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": width, "height": height})
            page.route(
                "**/*",
                lambda r: r.continue_() if r.request.url.startswith(LOCAL) else r.abort(),
            )
            page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
            page.goto(f"{url}/lab/tree/{notebook.name}")
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
            page.wait_for_function(
                """() => { const s = document.querySelector('#jp-main-statusbar');
                return !!s && /\\|\\s*Idle/.test(s.innerText)
                    && !/No Kernel/.test(s.innerText); }""",
                timeout=90_000,
            )
            page.click("div.lm-MenuBar-itemLabel:text('Run')")
            page.click("li.lm-Menu-item[data-command='runmenu:run-all']")
            wait_until_run(page, timeout)
            # An error output is rendered as stderr text holding the traceback.
            errors += page.eval_on_selector_all(
                "[data-mime-type='application/vnd.jupyter.stderr']",
                "nodes => nodes.map(n => n.innerText)"
                ".filter(t => /Traceback|Error:/.test(t)).map(t => t.slice(-1500))",
            )
            errors += [
                f"widget not shown: {text[:200]}"
                for text in page.eval_on_selector_all(
                    ".jp-OutputArea-output", "nodes => nodes.map(n => n.innerText)"
                )
                if "Error displaying widget" in text
            ]
            if look is not None:
                look(page)
            cells = page.locator(".jp-Notebook .jp-Cell")
            for index in range(cells.count()):
                path = out / f"cell-{index:02d}.png"
                cells.nth(index).screenshot(path=str(path))
                print(path)
            browser.close()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)
    return errors


def wait_until_run(page, timeout: float) -> None:
    """Wait until no cell's prompt shows ``[*]`` (and at least one cell ran)."""
    end = time.monotonic() + timeout
    time.sleep(1)
    while time.monotonic() < end:
        prompts = page.eval_on_selector_all(
            ".jp-Notebook .jp-InputArea-prompt", "nodes => nodes.map(n => n.innerText)"
        )
        if (
            prompts
            and not any("*" in p for p in prompts)
            and any(any(ch.isdigit() for ch in p) for p in prompts)
        ):
            return
        time.sleep(0.5)
    raise TimeoutError(f"the notebook was still running after {timeout} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebook", type=Path)
    parser.add_argument("out", type=Path, help="folder for the screenshots")
    parser.add_argument("--dark", action="store_true", help="JupyterLab's dark theme")
    parser.add_argument("--width", type=int, default=1280, help="window width in pixels")
    parser.add_argument(
        "--height",
        type=int,
        default=900,
        help="window height in pixels (a cell taller than the window is cut off)",
    )
    arguments = parser.parse_args()
    errors = read_notebook(
        arguments.notebook,
        arguments.out,
        dark=arguments.dark,
        width=arguments.width,
        height=arguments.height,
    )
    for error in errors:
        print("ERROR:", error)
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
