"""The built documentation site, shared by the tests of its pages (tests/test_docs.py,
tests/test_docs_layout.py): built once per session, as it takes about 1.5 minutes."""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def site_env() -> dict[str, str]:
    """The environment the site is built in, the lessons executed (no cache). Its import
    path starts with this checkout's absolute root: each lesson's kernel starts in the
    notebook's folder, where a relative ``PYTHONPATH=.`` names docs/lessons, so the kernel
    imported the venv's editable graphkit (another checkout) and a worktree's site tests
    tested that checkout's code. Relative entries the caller gave are kept, made absolute."""
    given = [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    path = [str(ROOT), *(str(Path(entry).resolve()) for entry in given)]
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(dict.fromkeys(path)),
        "GRAPHKIT_DOCS_CACHE": "false",
        "GRAPHKIT_DOCS_EXECUTE": "true",
    }


@pytest.fixture(scope="session")
def site(tmp_path_factory, site_env) -> Path:
    """The site, built once by ``mkdocs build --strict``, the lessons executed (no cache:
    a change to graphkit that breaks a lesson breaks it)."""
    out = tmp_path_factory.mktemp("site")
    for _attempt in range(2):
        result = subprocess.run(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
            cwd=ROOT,
            env=site_env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        # jupyter_client picks a lesson kernel's free ports, then binds them; another
        # process can take one in between and the kernel dies at start (seen once in CI).
        # That race says nothing about the lessons, so the build runs once more.
        if result.returncode == 0 or _KERNEL_PORT_RACE not in result.stdout + result.stderr:
            break
    assert result.returncode == 0, result.stdout + result.stderr
    return out


_KERNEL_PORT_RACE = "zmq.error.ZMQError: Address already in use"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # the test's output, not a line per file served
        pass


@pytest.fixture(scope="session")
def site_url(site):
    """The built site, served over HTTP on the loopback address while the tests run."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{server.server_port}"
        server.shutdown()
        thread.join(10)
