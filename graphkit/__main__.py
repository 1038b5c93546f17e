"""The ``graphkit`` command: draw a graph or trace a run without Jupyter.

    graphkit draw examples/seed.py:build_graph -o seed.svg     (or .dot, .mmd)
    graphkit trace examples/seed.py:build_graph --input '{"token_count": 1}'
    graphkit lessons ~/graphkit-course            (copy the course's lessons there)
    graphkit lessons build/course --force --run   (and run them, as CI does)

``TARGET`` is ``module.path:attribute`` or ``path/to/file.py:attribute``; the
attribute is a compiled graph, a ``StateGraph`` (compiled for you), or a function of no
arguments that returns either.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["load_graph", "main"]

FORMATS = {".svg": "svg", ".dot": "dot", ".gv": "dot", ".mmd": "mermaid", ".mermaid": "mermaid"}


def load_graph(target: str) -> Any:
    """Import ``TARGET`` (``module:attr`` or ``file.py:attr``) and return a compiled graph."""
    from graphkit.graph.state import StateGraph
    from graphkit.pregel.app import CompiledGraph

    location, _, attribute = target.rpartition(":")
    if not location or not attribute:
        raise SystemExit(
            f"graphkit: {target!r} is not MODULE:ATTR, e.g. examples/seed.py:build_graph"
        )
    module = _import(location)
    try:
        value = getattr(module, attribute)
    except AttributeError:
        raise SystemExit(f"graphkit: {location} has no attribute {attribute!r}") from None
    if callable(value) and not isinstance(value, (CompiledGraph, StateGraph)):
        value = value()
    if isinstance(value, StateGraph):
        value = value.compile()
    if not isinstance(value, CompiledGraph):
        raise SystemExit(
            f"graphkit: {target} is a {type(value).__name__}, not a graph; point at a compiled "
            "graph, a StateGraph, or a function returning one."
        )
    return value


def _import(location: str) -> Any:
    if location.endswith(".py") or "/" in location:
        path = Path(location)
        if not path.is_file():
            raise SystemExit(f"graphkit: no such file: {location}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # type hints resolve through sys.modules
        spec.loader.exec_module(module)
        return module
    sys.path.insert(0, str(Path.cwd()))
    return importlib.import_module(location)


def draw(target: str, output: str, xray: bool) -> str:
    """Write the drawing of ``target`` to ``output`` (format from its suffix)."""
    kind = FORMATS.get(Path(output).suffix.lower())
    if kind is None:
        raise SystemExit(f"graphkit: cannot tell the format of {output!r}; use {sorted(FORMATS)}")
    graph = load_graph(target).get_graph(xray=xray)
    text = {"svg": graph.draw_svg, "dot": graph.to_dot, "mermaid": graph.draw_mermaid}[kind]()
    Path(output).write_text(text, encoding="utf-8")
    return f"wrote {output} ({kind})"


def trace(target: str, input_json: str, config_json: str | None) -> str:
    """Run ``target`` on the JSON input and return its superstep timeline."""
    try:
        value = json.loads(input_json)
        config = json.loads(config_json) if config_json else None
    except json.JSONDecodeError as error:
        raise SystemExit(f"graphkit: --input/--config is not valid JSON: {error}") from None
    from graphkit.render.text import terminal_text

    app = load_graph(target)
    try:
        run = app.trace(value, config)
    except Exception as error:
        run = getattr(error, "run", None)
        if run is None:
            raise
        return f"{run.timeline()}\n{terminal_text(f'{type(error).__name__}: {error}')}"
    return run.timeline()


def lessons(folder: str, solutions: bool, force: bool, run: bool) -> str:
    """Copy the lessons into ``folder`` (and run them); return what was written where."""
    from graphkit.course.lessons import copy_lessons, export_tour, run_lessons

    try:
        copies = copy_lessons(folder, solutions=solutions, overwrite=force)
    except (FileExistsError, FileNotFoundError) as error:
        raise SystemExit(f"graphkit: {error}") from None
    lines = [f"copied {path.resolve()}" for path in copies]
    if run:
        for path, seconds in run_lessons(folder):
            lines.append(f"ran    {path.resolve()} ({seconds:.1f} s, outputs saved in it)")
        tour = export_tour(Path(folder) / "debugger-tour.html")
        lines.append(
            f"wrote  {tour.resolve()} (a debugging session; open it in any browser, offline)"
        )
    lines.append(f"open them with: jupyter lab {folder}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``graphkit`` command."""
    parser = argparse.ArgumentParser(prog="graphkit", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    draw_parser = commands.add_parser("draw", help="draw a graph to .svg, .dot or .mmd")
    draw_parser.add_argument("target", help="module:attr or file.py:attr")
    draw_parser.add_argument("-o", "--output", required=True)
    draw_parser.add_argument("--xray", action="store_true", help="expand subgraphs")
    trace_parser = commands.add_parser("trace", help="run a graph and print its supersteps")
    trace_parser.add_argument("target", help="module:attr or file.py:attr")
    trace_parser.add_argument("--input", required=True, help="the input, as JSON")
    trace_parser.add_argument("--config", help="the run config, as JSON")
    lessons_parser = commands.add_parser("lessons", help="copy the course's lessons to DIR")
    lessons_parser.add_argument("folder", help="where to put the lessons (created if missing)")
    lessons_parser.add_argument(
        "--solutions", action="store_true", help="copy the exercises' solutions too"
    )
    lessons_parser.add_argument(
        "--force", action="store_true", help="replace lessons already in the folder"
    )
    lessons_parser.add_argument(
        "--run", action="store_true", help="execute them and write a debugger HTML export"
    )
    arguments = parser.parse_args(argv)
    if arguments.command == "draw":
        print(draw(arguments.target, arguments.output, arguments.xray))
    elif arguments.command == "lessons":
        print(lessons(arguments.folder, arguments.solutions, arguments.force, arguments.run))
    else:
        print(trace(arguments.target, arguments.input, arguments.config))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
