"""The graphkit command: draw and trace without Jupyter."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from graphkit.__main__ import main

SEED = str(Path(__file__).parent.parent / "examples" / "seed.py") + ":build_graph"
INPUT = '{"messages": [["user", "hi"]], "token_count": 1}'


@pytest.mark.parametrize(
    ("suffix", "starts"), [(".svg", "<svg"), (".dot", "digraph"), (".mmd", "flowchart")]
)
def test_draw_writes_the_format_the_suffix_names(tmp_path, capsys, suffix, starts):
    output = tmp_path / f"seed{suffix}"
    assert main(["draw", SEED, "-o", str(output)]) == 0
    text = output.read_text()
    assert starts in text[:200]
    if suffix == ".svg":
        assert ET.fromstring(text).tag.endswith("svg")
    assert capsys.readouterr().out.startswith(f"wrote {output}")


def test_trace_prints_the_superstep_timeline(capsys):
    assert main(["trace", SEED, "--input", INPUT]) == 0
    out = capsys.readouterr().out
    assert out.startswith("5 supersteps, done")
    assert "UPDATE   token_count          101 -> 201  (from news, weather)" in out


def test_trace_shows_the_partial_run_and_the_error(capsys):
    main(["trace", SEED, "--input", INPUT, "--config", '{"recursion_limit": 2}'])
    out = capsys.readouterr().out
    assert "step 2" in out and out.rstrip().splitlines()[-1].startswith("GraphRecursionError: ")


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("nocolon", "is not MODULE:ATTR"),
        ("missing.py:x", "no such file"),
        (SEED.replace("build_graph", "nothing"), "has no attribute 'nothing'"),
        (SEED.replace("build_graph", "State"), "not a graph"),
    ],
)
def test_bad_targets_say_what_is_wrong(target, message):
    with pytest.raises(SystemExit, match=message):
        main(["trace", target, "--input", "{}"])


def test_bad_json_and_unknown_formats_are_refused(tmp_path):
    with pytest.raises(SystemExit, match="not valid JSON"):
        main(["trace", SEED, "--input", "{nope"])
    with pytest.raises(SystemExit, match="cannot tell the format"):
        main(["draw", SEED, "-o", str(tmp_path / "seed.png")])


def test_the_installed_command_runs():
    result = subprocess.run(
        [sys.executable, "-m", "graphkit", "trace", SEED, "--input", INPUT],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "step 3" in result.stdout


def test_trace_escapes_control_characters_in_the_error_it_prints(tmp_path, capsys):
    graph = tmp_path / "hostile.py"
    graph.write_text(
        "from typing import TypedDict\n"
        "from graphkit import StateGraph, START\n"
        "class S(TypedDict):\n    x: int\n"
        "def boom(state):\n    raise ValueError('\\x1b]0;owned\\x07\\nEXECUTE fake')\n"
        "builder = StateGraph(S)\nbuilder.add_node('boom', boom)\n"
        "builder.add_edge(START, 'boom')\n"
    )
    assert main(["trace", f"{graph}:builder", "--input", '{"x": 1}']) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert out.rstrip().splitlines()[-1] == "ValueError: \\x1b]0;owned\\x07\\nEXECUTE fake"
