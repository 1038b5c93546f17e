"""The ``graphkit`` command line: its arguments, its help, and how it exits.

Exit codes: 0 when the command did its work (a paused run included), 1 when it failed
or the run it traced failed, 2 when argparse cannot read the command line. Errors are
one line on stderr starting with ``graphkit: ``. When the reader of the output goes away
(``graphkit trace ... | head -1``) the command stops quietly with exit code 1, as the
Python documentation's recipe for SIGPIPE does.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
from collections.abc import Sequence

from graphkit.cli import commands

__all__ = ["main", "version"]

SEED = "examples/seed.py:build_graph"

DESCRIPTION = """\
Draw a graph or trace a run, without Jupyter; copy the lessons, see your progress.

TARGET is module.path:name or path/to/file.py:name, where name is a compiled
graph, a StateGraph (compiled for you), or a function of no arguments that
returns either."""

TRACE_EXIT = """

It prints each superstep's Plan, Execute and Update, then the state. It exits
with 1 if the run fails (a node raised, or the recursion limit was reached),
and with 0 if it finishes or pauses at an interrupt."""

EXAMPLES = {
    "": f"""\
  graphkit draw {SEED} -o seed.svg
  graphkit trace {SEED} --input '{{"token_count": 1}}'
  graphkit lessons ~/graphkit-course
  graphkit progress ~/graphkit-course""",
    "draw": f"""\
  graphkit draw {SEED} -o seed.svg       an SVG drawing
  graphkit draw {SEED} -o seed.dot       Graphviz DOT text
  graphkit draw {SEED} -o seed.mmd       Mermaid text
  graphkit draw mypackage.graphs:app -o app.svg --xray""",
    "trace": f"""\
  graphkit trace {SEED} --input '{{"token_count": 1}}'
  graphkit trace {SEED} --input '{{"token_count": 1}}' \\
      --config '{{"recursion_limit": 3}}'""",
    "lessons": """\
  graphkit lessons ~/graphkit-course               copy the lessons there
  graphkit lessons ~/graphkit-course --solutions   with the exercises' solutions
  graphkit lessons build/course --force --run      replace, run, export a tour""",
    "progress": """\
  graphkit progress ~/graphkit-course              which exercises you passed
  graphkit progress 01-first-graph.ipynb           one lesson
  graphkit progress class/* --csv > class.csv      a class's folders, for a spreadsheet""",
}

PROGRESS_HOW = """

It reads the verdicts the lessons' checks showed, as the notebooks were last
saved, and runs nothing: save a notebook (Ctrl+S) to count its latest verdicts.
A verdict is stale when a cell of its exercise ran after it."""


class _Parser(argparse.ArgumentParser):
    """argparse, with its usage errors on one line."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"graphkit: {message}; see '{self.prog} --help'\n")


def version() -> str:
    """The installed graphkit's version (the package's ``__version__`` if not installed)."""
    try:
        return importlib.metadata.version("graphkit")
    except importlib.metadata.PackageNotFoundError:
        import graphkit

        return getattr(graphkit, "__version__", "unknown")


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``graphkit`` and its subcommands."""
    plain = {"formatter_class": argparse.RawDescriptionHelpFormatter}
    parser = _Parser(prog="graphkit", description=DESCRIPTION, epilog=_examples(""), **plain)
    parser.add_argument("--version", action="version", version=f"graphkit {version()}")
    commands_ = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(name: str, summary: str, more: str = "") -> argparse.ArgumentParser:
        description = f"{summary[0].upper()}{summary[1:]}.{more}"
        return commands_.add_parser(
            name, help=summary, description=description, epilog=_examples(name), **plain
        )

    draw = add("draw", "draw a graph to .svg, .dot or .mmd")
    draw.add_argument("target", metavar="TARGET", help="module:name or file.py:name")
    draw.add_argument("-o", "--output", required=True, help="the file; its folder must exist")
    draw.add_argument("--xray", action="store_true", help="expand subgraphs")
    trace = add("trace", "run a graph and print its supersteps and final state", TRACE_EXIT)
    trace.add_argument("target", metavar="TARGET", help="module:name or file.py:name")
    trace.add_argument("--input", required=True, help="the input, as JSON")
    trace.add_argument("--config", help="the run config, as JSON")
    lessons = add("lessons", "copy the course's lessons to a folder")
    lessons.add_argument("folder", metavar="DIR", help="where to put them (created if missing)")
    lessons.add_argument(
        "--solutions", action="store_true", help="copy the exercises' solutions too"
    )
    lessons.add_argument(
        "--force", action="store_true", help="replace lessons already in the folder"
    )
    lessons.add_argument(
        "--run", action="store_true", help="execute them and write a debugger HTML export"
    )
    progress = add("progress", "say which exercises of the lessons were passed", PROGRESS_HOW)
    progress.add_argument(
        "paths", metavar="PATH", nargs="+", help="a folder of lessons, or one lesson notebook"
    )
    progress.add_argument("--csv", action="store_true", help="one CSV row per exercise")
    return parser


def _examples(command: str) -> str:
    return f"examples:\n{EXAMPLES[command]}"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``graphkit`` command; returns its exit code."""
    try:
        code = _run(build_parser().parse_args(argv))
        _flush()  # a closed pipe shows here, not at interpreter exit
        return code
    except BrokenPipeError:
        _silence_stdout()
        return 1


def _run(arguments: argparse.Namespace) -> int:
    if arguments.command == "draw":
        print(commands.draw(arguments.target, arguments.output, arguments.xray))
    elif arguments.command == "lessons":
        folder, run = arguments.folder, arguments.run
        print(commands.lessons(folder, arguments.solutions, arguments.force, run))
    elif arguments.command == "progress":
        text, errors, notes = commands.progress(arguments.paths, arguments.csv)
        if text:
            print(text)
        _flush()
        for line in notes + errors:
            print(f"graphkit: {line}", file=sys.stderr)
        return 1 if errors else 0
    else:
        text, error = commands.trace(arguments.target, arguments.input, arguments.config)
        print(text)
        if error is not None:
            _flush()  # the run's story first, then why it ended
            print(f"graphkit: {error}", file=sys.stderr)
            return 1
    return 0


def _flush() -> None:
    if sys.stdout is not None:  # None when started with stdout closed (`>&-`)
        sys.stdout.flush()


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that Python's final flush finds no closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # stdout is no file (a test's capture)
        pass
