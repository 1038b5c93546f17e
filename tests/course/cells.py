"""A lesson's code cells run as a kernel runs them, in one namespace and one event loop
(top-level ``await``), then some of them run again in a given order, as a learner re-runs
cells: each must show what it showed the first time."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import io
import json
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

Shown = tuple[str, str | None]
"""What a cell printed, and the repr of its last expression (``None`` for a drawing)."""


def code_cells(lesson: Path) -> list[tuple[str, str]]:
    cells = json.loads(lesson.read_text(encoding="utf-8"))["cells"]
    return [(cell["id"], "".join(cell["source"])) for cell in cells if cell["cell_type"] == "code"]


def _shown(source: str) -> ast.Module:
    """``source`` with its last expression kept in ``_shown``, as a notebook shows it."""
    tree = ast.parse(source)
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        value = tree.body[-1].value
        tree.body[-1] = ast.Assign([ast.Name("_shown", ast.Store())], value)
        ast.fix_missing_locations(tree)
    return tree


async def _run_cells(
    lesson: Path,
    until: str | None,
    again: tuple[str, ...],
    names: dict,
    source_of: Callable[[str, str], str | None],
    ignoring: re.Pattern | None,
) -> dict[str, Shown]:
    seen: dict[str, Shown] = {}
    first: dict[str, Shown] = {}
    cells = code_cells(lesson)
    if until is not None:
        cells = cells[: next(i for i, (_, source) in enumerate(cells) if source.startswith(until))]
    for cell, source in cells + [(cell, dict(cells)[cell]) for cell in again]:
        source = source_of(cell, source)
        if source is None:
            continue
        code = compile(
            _shown(source), cell, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True
        )
        names.pop("_shown", None)
        out = io.StringIO()
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            awaited = eval(code, names)
            if awaited is not None:
                await awaited
        shown = names.get("_shown")
        shown = (out.getvalue(), None if hasattr(shown, "get_graph") else repr(shown))
        seen.setdefault(cell, shown)
        if ignoring is not None:
            shown = tuple(None if text is None else ignoring.sub("", text) for text in shown)
        first.setdefault(cell, shown)
        assert first[cell] == shown, f"cell {cell} run again showed {shown}, not {first[cell]}"
    return seen


def run_cells(
    lesson: Path,
    until: str | None = None,
    again: tuple[str, ...] = (),
    names: dict | None = None,
    source_of: Callable[[str, str], str | None] = lambda cell, source: source,
    ignoring: re.Pattern | None = None,
) -> dict[str, Shown]:
    """``lesson``'s code cells before the first that starts with ``until`` (all of them
    when ``None``): what each printed and showed; then the cells ``again``, in that order,
    run once more, which must show the same. ``names``: the cells' globals;
    ``source_of(cell, source)``: the code to run for a cell (``None``: skip it);
    ``ignoring``: what may differ when a cell runs again (an id, a count of runs), left
    out of the comparison."""
    names = {} if names is None else names
    return asyncio.run(_run_cells(lesson, until, again, names, source_of, ignoring))


def run_again_in_reverse(
    lesson: Path, until: str, runs_a_graph: Callable[[str], bool]
) -> dict[str, Shown]:
    """``lesson``'s code cells before the first that starts with ``until``, then those whose
    source ``runs_a_graph`` once more, last first: what each showed (``run_cells`` checks
    that a cell run again shows the same, so no cell leans on what an earlier one left)."""
    cells = code_cells(lesson)
    cells = cells[: next(i for i, (_, source) in enumerate(cells) if source.startswith(until))]
    runs = tuple(reversed([cell for cell, source in cells if runs_a_graph(source)]))
    return run_cells(lesson, until=until, again=runs, names={"display": print})


def stub_names(lesson: Path, module: ModuleType, stubs: tuple[str, ...]) -> dict:
    """The names a learner has after running ``lesson``'s cells up to the one importing
    ``module`` (the lesson's checks), then each exercise's stub as given: the code cells
    starting with each of ``stubs``."""
    names: dict = {"display": print}  # (a kernel's built-in)
    short = module.__name__.rsplit(".", 1)[-1]
    run_cells(lesson, until=f"from graphkit.course import {short}", names=names)
    names[short] = module
    cells = code_cells(lesson)
    for start in stubs:
        source = next(source for _, source in cells if source.startswith(start))
        # (compiled as the notebook does: without this module's __future__ annotations,
        # which would leave a stub class's annotations as strings)
        exec(compile(source, start, "exec", dont_inherit=True), names)
    return names


AN_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}")
"""A uuid, or 32 hex digits: a checkpoint's, task's, message's or interrupt's id."""


def cells_showing_an_id(lesson: Path, until: str) -> dict[str, Shown]:
    """What ``lesson``'s cells before ``until`` show, for those showing an id: an id changes
    from run to run, so such a cell shows each learner something else than its text says."""
    shown = run_cells(lesson, until=until, names={"display": print})
    return {cell: seen for cell, seen in shown.items() if AN_ID.search(str(seen))}


READING_WIDTH = 105
"""The characters of a code line JupyterLab shows at the course's reading width; a longer
line scrolls sideways, hiding its end."""


def lines_too_long(lesson: Path, width: int = READING_WIDTH) -> list[tuple[str, str]]:
    """Each code line of ``lesson`` longer than ``width``, with its cell."""
    return [
        (cell, line)
        for cell, source in code_cells(lesson)
        for line in source.splitlines()
        if len(line) > width
    ]


def printing_verdicts(cell: str, source: str) -> str:
    """A ``source_of`` for ``run_cells`` that prints what a predict cell reveals (a cell
    whose last line is a ``name.predict(...)`` call): the ``Prediction``'s repr
    ("step=2, correct=False") can be the same for two questions, its explanation names
    the question's channel, values and nodes."""
    *lines, last = source.rstrip().splitlines()
    if re.fullmatch(r"\w+\.predict\(.*\)", last):
        return "\n".join([*lines, f"print({last})"])
    return source
