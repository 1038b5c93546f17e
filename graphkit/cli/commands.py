"""The subcommands: each does its work and returns the text to print; errors go
through ``fail`` (one line on stderr, exit code 1)."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphkit.cli import fail
from graphkit.cli.targets import load_graph
from graphkit.inspect.text import terminal_run_text
from graphkit.inspect.values import show, show_error
from graphkit.render.text import terminal_text

__all__ = ["FORMATS", "draw", "lessons", "progress", "state_text", "trace"]

FORMATS = {".svg": "svg", ".dot": "dot", ".gv": "dot", ".mmd": "mermaid", ".mermaid": "mermaid"}

_STATE_WIDTH = 1000  # the final state is what a trace is for: cut only the unreadable


def draw(target: str, output: str, xray: bool) -> str:
    """Write the drawing of ``target`` to ``output`` (format from its suffix).

    The output's folder must exist, as for ``cp`` or ``dot -o``: a typo in a path
    should not quietly create folders.
    """
    path = Path(output)
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        fail(f"cannot tell the format of {output!r}; use {sorted(FORMATS)}")
    if not path.parent.is_dir():
        fail(f"no folder {path.parent} to write {path.name} in; create it first")
    graph = load_graph(target).get_graph(xray=xray)
    text = {"svg": graph.draw_svg, "dot": graph.to_dot, "mermaid": graph.draw_mermaid}[kind]()
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        fail(f"cannot write {output}: {error.strerror or error}")
    return f"wrote {output} ({kind})"


def trace(target: str, input_json: str, config_json: str | None) -> tuple[str, str | None]:
    """Run ``target`` on the JSON input; return its timeline and state, and the run's
    error as one escaped line (None if it finished or paused)."""
    try:
        value = json.loads(input_json)
        config = json.loads(config_json) if config_json else None
    except json.JSONDecodeError as error:
        fail(f"--input/--config is not valid JSON: {error}")
    app = load_graph(target)
    try:
        run = app.trace(value, config)
    except Exception as error:
        run = getattr(error, "run", None)
        if run is None:  # refused before its first step (bad input or config)
            fail(show_error(error))
        return _trace_text(run), terminal_text(show_error(error))
    return _trace_text(run), None


def _trace_text(run: Any) -> str:
    heading = "final state" if run.status == "done" else "state when the run stopped"
    # (a word longer than the terminal is not broken: the terminal wraps it whole, so a
    # URL or a hash copied or clicked there is one; a ↩ and a newline would cut it)
    timeline = terminal_run_text(run, _width())
    return f"{timeline}\n\n{state_text(run.values, heading)}"


def _width() -> int | None:
    """Where the timeline folds its lines: a terminal's width, so that it breaks at a
    space rather than anywhere (a word longer than it is left whole, for the terminal
    to wrap); none into a pipe or a file, so that ``grep`` reads one line per task,
    write set and change."""
    try:
        terminal = sys.stdout is not None and sys.stdout.isatty()
    except ValueError:  # (closed: what is printed goes nowhere)
        terminal = False
    return max(shutil.get_terminal_size().columns, 60) if terminal else None


def state_text(values: Mapping[str, Any], heading: str = "final state") -> str:
    r"""A run's values, one key per line, as a terminal can show them.

    >>> print(state_text({"token_count": 201, "news": "up\x1b[2J"}))
    final state
      token_count  201
      news         'up\x1b[2J'
    """
    names = {key: terminal_text(str(key)) for key in values}
    width = max(map(len, names.values()), default=0)
    lines = [heading] + [
        f"  {names[key]:<{width}}  {terminal_text(show(value, _STATE_WIDTH))}"
        for key, value in values.items()
    ]
    return "\n".join(lines if values else [heading, "  (nothing written)"])


def lessons(folder: str, solutions: bool, force: bool, run: bool) -> str:
    """Copy the lessons into ``folder`` (and run them); return what was written where."""
    from graphkit.course.lessons import copy_lessons, export_tour, run_lessons

    try:
        copies = copy_lessons(folder, solutions=solutions, overwrite=force)
    except (FileExistsError, FileNotFoundError) as error:
        fail(str(error))
    lines = [f"copied {path.resolve()}" for path in copies]
    if not run:
        lines.append(f"open them with: {_sibling('jupyter')} lab {folder}")
        return "\n".join(lines)
    for path, seconds in run_lessons(folder):
        lines.append(f"ran    {path.resolve()} ({seconds:.1f} s, outputs saved in it)")
    tour = export_tour(Path(folder) / "debugger-tour.html")
    lines.append(f"wrote  {tour.resolve()} (a debugging session; open it in any browser, offline)")
    # a run copy shows what each guess was asked to predict: a learner who works in it
    # reads the answer before guessing, so the way in is a fresh copy
    fresh = "~/graphkit-course"
    lines.append(f"the copies in {folder} show every output, the answers included:")
    lines.append("keep them to look things up. To work through the lessons, copy fresh ones:")
    lines.append(f"  {_sibling('graphkit')} lessons {fresh} && {_sibling('jupyter')} lab {fresh}")
    return "\n".join(lines)


def progress(paths: list[str], as_csv: bool) -> tuple[str, list[str], list[str]]:
    """Which exercises each path's lessons passed, as text blocks (or CSV); a line for
    each path that could not be read (no such path, not a lesson notebook); and, with
    CSV, the notes the blocks would show (a folder with no lessons), for stderr."""
    from graphkit.course import gradebook, progress_report

    reports, errors = [], []
    for path in paths:
        try:
            reports.append(gradebook.progress(path))
        except (FileNotFoundError, ValueError) as error:
            errors.append(terminal_text(str(error)))
    if as_csv:
        notes = [terminal_text(note) for report in reports for note in report.notes]
        return progress_report.progress_csv(reports).rstrip("\n"), errors, notes
    # (a verdict's message may quote the learner's text: each line escaped on its own)
    texts = [progress_report.progress_text(report, _width()) for report in reports]
    blocks = ["\n".join(map(terminal_text, text.split("\n"))) for text in texts]
    return "\n\n".join(blocks), errors, []


def _sibling(program: str) -> str:
    """``program`` as the learner can type it: the one beside the ``graphkit`` that is
    running, by its path where PATH finds another or none (``.venv/bin/jupyter`` after
    ``make course``, whose venv is not on PATH), else by its name. (A console script's
    ``sys.argv[0]`` is its full path, however it was typed.)"""
    beside = Path(sys.argv[0]).parent / program
    if Path(sys.argv[0]).name != "graphkit" or not beside.is_file():
        return program  # (none there: graphkit installed alone, as with pipx)
    found = shutil.which(program)
    return program if found and Path(found).resolve() == beside.resolve() else str(beside)
