"""The graphkit command: draw and trace without Jupyter, as a user expects a CLI to."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import graphkit
from graphkit.__main__ import main

SEED = str(Path(__file__).parent.parent / "examples" / "seed.py") + ":build_graph"
INPUT = '{"messages": [["user", "hi"]], "token_count": 1}'


def run_command(
    *arguments: str, stdout: int | None = subprocess.PIPE
) -> subprocess.CompletedProcess:
    """``python -m graphkit ARGUMENTS`` in a subprocess, as a user's shell runs it."""
    return subprocess.run(
        [sys.executable, "-m", "graphkit", *arguments],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )


def write_module(folder: Path, text: str) -> str:
    path = folder / "targets.py"
    path.write_text(
        "from typing import TypedDict\nfrom graphkit import StateGraph, START\n"
        "class S(TypedDict):\n    x: int\n" + text
    )
    return str(path)


# -- draw ---------------------------------------------------------------------------------


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


def test_draw_into_a_missing_folder_names_the_folder_and_creates_nothing(tmp_path):
    output = tmp_path / "missing" / "dir" / "seed.svg"
    with pytest.raises(SystemExit, match=r"no folder .*missing/dir") as raised:
        main(["draw", SEED, "-o", str(output)])
    assert "\n" not in str(raised.value.code) and str(raised.value.code).startswith("graphkit: ")
    assert not (tmp_path / "missing").exists()


# -- trace --------------------------------------------------------------------------------


def test_trace_prints_the_superstep_timeline_then_the_final_state(capsys):
    assert main(["trace", SEED, "--input", INPUT]) == 0
    out = capsys.readouterr().out
    assert out.startswith("5 supersteps, done")
    assert "UPDATE   token_count          101 -> 201  (from news, weather)" in out
    timeline, state = out.split("\n\n")
    assert timeline.endswith("the run is done: step 4's Plan triggers no task")
    assert state.splitlines() == [
        "final state",
        "  messages     [['user', 'hi'], ('ai', 'sunny; market up')]",
        "  token_count  201",
        "  plan         'check the weather and the news'",
        "  weather      'sunny'",
        "  news         'market up'",
    ]


def test_trace_into_a_pipe_prints_one_line_per_change_for_grep(tmp_path, capsys):
    # print(run) folds a line past 100 characters for JupyterLab; `graphkit trace ... |
    # grep UPDATE` then lost the end of each long change, on a line of its own
    module = write_module(
        tmp_path,
        "def grow(state):\n    return {'x': state['x'] * 10**40}\n"
        "builder = StateGraph(S)\nbuilder.add_node('grow', grow)\n"
        "builder.add_edge(START, 'grow')\n",
    )
    assert main(["trace", f"{module}:builder", "--input", '{"x": 10000000000}']) == 0
    lines = capsys.readouterr().out.splitlines()
    change = [
        line for line in lines if line.startswith("  UPDATE   x") and "10000000000 ->" in line
    ]
    assert len(change) == 1 and change[0].endswith("(from grow)") and len(change[0]) > 100
    assert all(line == "" or not line.startswith("     ") for line in lines)


def test_trace_in_a_terminal_keeps_a_long_url_whole_for_copying(tmp_path, capsys, monkeypatch):
    # a word longer than the terminal was broken with ↩ and a newline: copied or clicked
    # there, the link was cut; the terminal wraps it whole itself. print(run) in a
    # notebook still breaks it with ↩ (JupyterLab cuts it at the edge with no sign)
    url = "https://example.com/r/" + "0123456789abcdef" * 2  # (shown whole: 56 characters)
    module = write_module(
        tmp_path,
        "class U(TypedDict):\n    url: str\n"
        f"builder = StateGraph(U)\nbuilder.add_node('link', lambda s: {{'url': {url!r}}})\n"
        "builder.add_edge(START, 'link')\n",
    )
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["trace", f"{module}:builder", "--input", '{"url": ""}']) == 0
    lines = capsys.readouterr().out.splitlines()
    assert not any("↩" in line for line in lines)
    assert [line.strip() for line in lines if url in line] == [f"'{url}'", f"url  '{url}'"]
    assert max(len(line) for line in lines if url not in line) <= 60  # (spaces still fold)
    from graphkit.cli.targets import load_graph

    run = load_graph(f"{module}:builder").trace({"url": ""})
    assert "↩" in run.timeline(width=60)  # (print(run) at a notebook's width: broken)


def test_a_run_over_the_recursion_limit_exits_1_after_showing_what_ran(capsys):
    config = '{"recursion_limit": 2}'
    assert main(["trace", SEED, "--input", INPUT, "--config", config]) == 1
    out, err = capsys.readouterr()
    assert "step 2" in out and "the recursion limit was reached" in out
    assert "state when the run stopped\n  messages" in out
    assert err.startswith("graphkit: GraphRecursionError: ") and err.count("\n") == 1


def test_a_failed_run_exits_1_and_escapes_the_error_it_prints(tmp_path, capsys):
    module = write_module(
        tmp_path,
        "def boom(state):\n    raise ValueError('\\x1b]0;owned\\x07\\nEXECUTE fake')\n"
        "builder = StateGraph(S)\nbuilder.add_node('boom', boom)\n"
        "builder.add_edge(START, 'boom')\n",
    )
    assert main(["trace", f"{module}:builder", "--input", '{"x": 1}']) == 1
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert "boom raised ValueError" in out and out.rstrip().endswith("  x  1")
    assert err == "graphkit: ValueError: \\x1b]0;owned\\x07\\nEXECUTE fake\n"


def test_a_paused_run_exits_0_and_says_it_paused(tmp_path, capsys):
    module = write_module(
        tmp_path,
        "from graphkit import InMemorySaver\n"
        "def double(state):\n    return {'x': state['x'] * 2}\n"
        "def build() -> StateGraph:\n"
        "    builder = StateGraph(S)\n    builder.add_node('double', double)\n"
        "    builder.add_edge(START, 'double')\n"
        "    return builder.compile(checkpointer=InMemorySaver(), interrupt_before=['double'])\n",
    )
    config = '{"configurable": {"thread_id": "1"}}'
    assert main(["trace", f"{module}:build", "--input", '{"x": 1}', "--config", config]) == 0
    out = capsys.readouterr().out
    assert "paused at a breakpoint" in out
    assert out.rstrip().endswith("state when the run stopped\n  x  1")


def test_errors_before_the_first_step_are_one_line(tmp_path):
    module = write_module(tmp_path, "builder = StateGraph(S)\n")  # no edge from START
    with pytest.raises(
        SystemExit, match=r"^graphkit: compiling builder raised ValueError: [^\n]*$"
    ):
        main(["trace", f"{module}:builder", "--input", '{"x": 1}'])
    with pytest.raises(SystemExit, match=r"^graphkit: EmptyInputError: [^\n]*$"):
        main(["trace", SEED, "--input", "null"])


def test_bad_json_and_unknown_formats_are_refused(tmp_path):
    with pytest.raises(SystemExit, match="not valid JSON"):
        main(["trace", SEED, "--input", "{nope"])
    with pytest.raises(SystemExit, match="cannot tell the format"):
        main(["draw", SEED, "-o", str(tmp_path / "seed.png")])


# -- targets ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("nocolon", "is not MODULE:ATTR"),
        ("missing.py:x", "no such file"),
        ("no_such_module:x", "importing no_such_module raised ModuleNotFoundError: .*'$"),
        (SEED.replace("build_graph", "nothing"), "has no attribute 'nothing'"),
        (SEED.replace("build_graph", "State"), "is a class, not a graph"),
        (SEED.replace("build_graph", "planner"), r"planner needs an argument \(state\)"),
    ],
)
def test_bad_targets_say_what_is_wrong(target, message):
    with pytest.raises(SystemExit, match=message):
        main(["trace", target, "--input", "{}"])


def test_a_function_that_says_it_returns_no_graph_is_refused_before_it_runs(tmp_path):
    marker = tmp_path / "ran"
    module = write_module(tmp_path, f"def helper() -> dict:\n    open({str(marker)!r}, 'w')\n")
    with pytest.raises(SystemExit, match="helper returns dict, not a graph"):
        main(["trace", f"{module}:helper", "--input", "{}"])
    assert not marker.exists()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("def target():\n    return 42\n", "target returned an int, not a graph"),
        ("def target():\n    raise KeyError('x')\n", "calling target raised KeyError: 'x'"),
        ("target = 1 / 0\n", "importing .*targets.py raised ZeroDivisionError"),
    ],
)
def test_targets_that_fail_when_called_or_imported_give_one_line(tmp_path, body, message):
    module = write_module(tmp_path, body)
    result = run_command("trace", f"{module}:target", "--input", "{}")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("graphkit: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
    assert __import__("re").search(message, result.stderr)


# -- the command itself -------------------------------------------------------------------


def test_version_prints_the_installed_version(capsys):
    with pytest.raises(SystemExit) as raised:
        main(["--version"])
    assert raised.value.code == 0
    assert capsys.readouterr().out == f"graphkit {importlib.metadata.version('graphkit')}\n"


def test_version_falls_back_to_the_package_attribute(monkeypatch, capsys):
    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    monkeypatch.setattr(graphkit, "__version__", "9.9.9", raising=False)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out == "graphkit 9.9.9\n"


@pytest.mark.parametrize("command", [[], ["draw"], ["trace"], ["lessons"], ["progress"]])
def test_help_shows_examples_as_plain_text(capsys, command):
    with pytest.raises(SystemExit) as raised:
        main([*command, "--help"])
    assert raised.value.code == 0
    out = capsys.readouterr().out
    assert "examples:\n  graphkit " + (command[0] if command else "") in out
    assert "``" not in out and ":func:" not in out


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ([], "the following arguments are required: COMMAND"),
        (["draw", SEED], "the following arguments are required: -o/--output"),
        (["paint"], "invalid choice: 'paint'"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(capsys, arguments, says):
    with pytest.raises(SystemExit) as raised:
        main(arguments)
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("graphkit: ") and err.count("\n") == 1 and says in err


def test_the_installed_command_runs():
    result = run_command("trace", SEED, "--input", INPUT)
    assert result.returncode == 0 and "step 3" in result.stdout


@pytest.mark.parametrize(
    ("arguments", "code"),
    [(["trace", SEED, "--input", INPUT], 1), (["--help"], 0)],  # argparse ignores it for help
)
def test_a_reader_that_went_away_is_no_error_worth_a_traceback(arguments, code):
    reading, writing = os.pipe()
    os.close(reading)  # as `| head -1` does once it has its line
    try:
        result = run_command(*arguments, stdout=writing)
    finally:
        os.close(writing)
    assert result.stderr == "" and result.returncode == code


def test_a_closed_stdout_is_no_error_worth_a_traceback():
    command = f"{sys.executable} -m graphkit trace {SEED} --input '{INPUT}' >&-"
    result = subprocess.run(command, shell=True, capture_output=True, text=True, check=False)
    assert result.stderr == "" and result.returncode == 0


def test_piped_into_head_prints_the_first_line_quietly():
    command = f"{sys.executable} -m graphkit trace {SEED} --input '{INPUT}' | head -1"
    result = subprocess.run(command, shell=True, capture_output=True, text=True, check=True)
    assert result.stdout == "5 supersteps, done\n" and result.stderr == ""


def test_a_langgraph_graph_is_traced_on_graphkit(tmp_path, capsys):
    """A module's compiled LangGraph graph is converted (graphkit.from_langgraph)."""
    module = tmp_path / "lg_app.py"
    module.write_text(
        "from typing import TypedDict\n"
        "from langgraph.graph import StateGraph, START\n"
        "class S(TypedDict):\n    n: int\n"
        "app = StateGraph(S).add_node('inc', lambda s: {'n': s['n'] + 1})"
        ".add_edge(START, 'inc').compile()\n"
    )
    assert main(["trace", f"{module}:app", "--input", '{"n": 1}']) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 supersteps, done") and "n  2" in out
