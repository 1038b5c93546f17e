"""The browser fixture leaves nothing behind for the tests that run after its module."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]


def test_a_module_after_the_browser_tests_can_start_an_event_loop(tmp_path):
    """Playwright's sync API runs an asyncio loop in the main thread while it is open: a
    session-wide browser made ``asyncio.run`` raise in every later module
    (``pytest tests/widgets/test_browser.py tests/inspect/test_new_behaviours_shown.py``)."""
    (tmp_path / "conftest.py").write_text("from tests.widgets.conftest import browser\n")
    (tmp_path / "test_a_browser.py").write_text(
        "def test_opens(browser):\n    assert browser.is_connected()\n"
    )
    (tmp_path / "test_b_async.py").write_text(
        "import asyncio\n\n\ndef test_runs():\n"
        "    async def main():\n        return 1\n\n"
        "    assert asyncio.run(main()) == 1\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", "."],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "2 passed" in result.stdout
