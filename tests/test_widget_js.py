"""Getting the docs site's widget manager (scripts/widget_js.py, the docs hook) and the
Makefile targets around it, where it goes wrong: offline, without npm, without root."""

from __future__ import annotations

import importlib.util
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from scripts.widget_js import widget_js

ROOT = Path(__file__).resolve().parents[1]


def _hooks():
    spec = importlib.util.spec_from_file_location("graphkit_docs_hooks", ROOT / "docs/hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_unreachable_registry_is_named_in_the_error(tmp_path, monkeypatch):
    """`npm pack --silent` wrote nothing, so the error read "failed (exit 1): " and
    no reason; npm's reason is kept, its stack trace left out."""
    if shutil.which("npm") is None:
        pytest.fail("npm is missing: run `make system`")
    with socket.socket() as probe:  # a port nothing listens on once the probe closes
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("npm_config_registry", f"http://127.0.0.1:{port}/")
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))  # (none to fall back on)
    monkeypatch.setenv("npm_config_fetch_retries", "0")
    with pytest.raises(RuntimeError) as raised:
        widget_js(tmp_path / "widget-js")
    message = str(raised.value)
    assert "ECONNREFUSED" in message, message
    assert "check that the npm registry is reachable" in message
    assert " at " not in message.replace("reachable", "")  # (no stack frame)
    assert not (tmp_path / "widget-js").exists()


def test_a_failed_fetch_stops_the_docs_build_with_its_fix(tmp_path, monkeypatch):
    """The hook let the script's RuntimeError out: mkdocs printed a traceback of its own
    code with the fix on its last line; a PluginError is said as the build's error."""
    monkeypatch.setenv("PATH", str(tmp_path))  # no npm
    with pytest.raises(PluginError, match=r"npm is missing.*`make system`"):
        _hooks().widget_js_folder(tmp_path / "widget-js")


def _make(*args: str, path: Path) -> subprocess.CompletedProcess[str]:
    make = shutil.which("make")
    if make is None:
        pytest.fail("make is missing")
    return subprocess.run(
        [make, "-s", "-C", str(ROOT), *args],
        env={"PATH": str(path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _shims(folder: Path, **scripts: str) -> Path:
    folder.mkdir()
    for name, body in scripts.items():
        (folder / name.replace("_", "-")).write_text(f"#!/bin/sh\n{body}\n")
        (folder / name.replace("_", "-")).chmod(0o755)
    return folder


def test_make_system_without_root_names_the_command_to_run(tmp_path):
    """Without npm and without root, `make system` said "installing npm", then apt-get's
    own "Could not open lock file ... Permission denied"."""
    log = tmp_path / "apt.log"
    shims = _shims(
        tmp_path / "bin",
        dot="exit 0",
        chromium="exit 0",
        dpkg="exit 0",
        id='[ "$1" = -u ] && echo 1000',
        apt_get=f'echo "$@" >> {log}; echo "E: Could not open lock file" >&2; exit 100',
    )
    result = _make("system", path=shims)
    assert result.returncode != 0
    assert "sudo apt-get install -y --no-install-recommends npm" in result.stderr, result.stderr
    assert not log.exists()  # apt-get is not tried


def test_make_docs_needs_npm_not_the_browser_tests_packages(tmp_path):
    """`make docs` ran `make system` through widget-js, so a machine without root and
    without Chromium (which the site does not use) could no longer build the docs."""
    shims = _shims(tmp_path / "bin")
    result = _make("-n", "docs", path=shims)
    assert "scripts/widget_js.py" in result.stdout, result.stdout + result.stderr
    assert "apt-get" not in result.stdout
