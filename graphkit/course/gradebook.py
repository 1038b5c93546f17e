"""Which exercises a learner has passed, read from the lessons as they were saved.

``progress(path)`` reads a folder of lesson copies (as ``graphkit lessons`` writes
them) or one lesson notebook, and runs nothing: each verdict a check showed is saved in
its cell's output with a marker (``Verdict``'s output metadata), which says the
exercise, how it went, what it said and when. The exercises come from the lesson's module of
checks, so an exercise never checked shows as "not tried".

``graphkit.course.progress_report`` shows what it read; ``graphkit progress`` prints
that.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphkit.course.lessons import LESSON_NAME
from graphkit.course.verdicts import MARKER

__all__ = ["NO_OUTPUTS", "STATUSES", "ExerciseProgress", "Progress", "lesson_exercises"]
__all__ += ["progress"]

STATUSES = ("passed", "not yet", "check failed", "stale", "not tried")
"""A row's statuses, in the order the totals name them."""

# the cell that imports a lesson's checks: ``from graphkit.course import lesson03``
_IMPORTS_CHECKS = re.compile(
    r"^\s*(?:from\s+graphkit\.course\s+import\s+(?:[\w\s,(]*?\b)?lesson(\d\d)\b"
    r"|import\s+graphkit\.course\.lesson(\d\d)\b)",
    re.MULTILINE,
)
_CALLS_A_CHECK = re.compile(r"\b(lesson\d\d\.check_\w+)\s*\(")
_HEADING = re.compile(r"\s*#{1,6}\s")  # (a markdown cell that starts with one)
_LONG_AGO = datetime.min.replace(tzinfo=UTC)
NO_OUTPUTS = "saved without outputs"
"""The note of an exercise whose notebook was saved with no output at all."""


@dataclass(frozen=True)
class ExerciseProgress:
    """One exercise of one lesson notebook: its status (see ``STATUSES``), the first
    line of the verdict shown for it, and a note (why it is stale, say)."""

    notebook: Path
    lesson: str
    exercise: str
    status: str
    message: str = ""
    note: str = ""

    def __repr__(self) -> str:
        return f"ExerciseProgress({self.notebook.name!r}, {self.exercise!r}, {self.status!r})"


@dataclass(frozen=True)
class Progress:
    """What ``progress`` read in one path: a row per exercise, and notes on the
    notebooks it could not read or the folder with no lessons in it."""

    path: Path
    exercises: tuple[ExerciseProgress, ...]
    notes: tuple[str, ...] = ()

    @property
    def passed(self) -> int:
        return sum(row.status == "passed" for row in self.exercises)

    def __repr__(self) -> str:
        return f"Progress(passed={self.passed}, exercises={len(self.exercises)})"


def lesson_exercises(lesson: str) -> list[str]:
    """The titles of lesson ``lesson``'s exercises (``"03"``), in the order of its
    module of checks: every function there made with ``exercise``.

    >>> lesson_exercises("01")
    ['1.1 · A three-node chain', '1.2 · Route by temperature', '1.3 · Read a run']
    """
    return [check.exercise for check in _checks(lesson)]


def _checks(lesson: str) -> list[Callable[..., Any]]:
    module = importlib.import_module(f"graphkit.course.lesson{lesson}")
    checks = [
        check
        for check in vars(module).values()
        if callable(check)
        and hasattr(check, "exercise")
        and getattr(check, "__module__", None) == module.__name__
    ]
    checks.sort(key=lambda check: check.__wrapped__.__code__.co_firstlineno)
    return checks


def progress(path: str | Path) -> Progress:
    """Read the verdicts saved in ``path``: a folder of lesson copies or one lesson
    notebook. Its code is not run; save a notebook to count its latest verdicts.

    A row's status is one of:

    - ``passed``, ``not yet`` (the answer failed), ``check failed`` (the check's own code
      raised): what the last verdict shown for the exercise said;
    - ``not tried``: no verdict saved for it (nor any output, when the notebook was saved
      without outputs);
    - ``stale``: a code cell of the exercise (under its heading, above its check) ran
      after the verdict was shown, by the saved execution counts: the verdict may be
      about code that is no longer there. A cell edited and not run again leaves no trace
      in the file, so a verdict can be out of date and not said to be.

    The verdict that counts is the one checked last (by the time saved with it, then
    the execution count). A saved notebook is a file its learner can edit: this reads
    what it says, and proves nothing.

    >>> import tempfile
    >>> from graphkit.course.lessons import copy_lessons
    >>> folder = tempfile.mkdtemp()
    >>> _ = copy_lessons(folder)  # fresh copies: saved without outputs
    >>> report = progress(folder)
    >>> report
    Progress(passed=0, exercises=81)
    >>> report.exercises[0]
    ExerciseProgress('01-first-graph.ipynb', '1.1 · A three-node chain', 'not tried')
    >>> report.exercises[0].note
    'saved without outputs'

    Raises ``FileNotFoundError`` for a path that does not exist and ``ValueError`` for
    a file that is not a lesson notebook of graphkit's course. In a folder, a notebook
    that is not a lesson is passed over, one that cannot be read is noted."""
    path = Path(path).expanduser()  # (a "~/graphkit-course" typed in Python)
    if not path.exists() and not path.is_symlink():  # (a link to nowhere: said by _read)
        raise FileNotFoundError(f"no such file or folder: {path}")
    if not path.is_dir():
        notebook = _read(path)
        lesson = _lesson_of(notebook)
        if lesson is None:
            raise ValueError(
                f"{path} is not a lesson of graphkit's course: no cell imports its checks "
                "(from graphkit.course import lessonNN)"
            )
        return Progress(path, tuple(_rows(path, lesson, notebook)))
    rows: list[ExerciseProgress] = []
    notes = []
    for file in sorted(path.glob("*.ipynb")):
        try:
            notebook = _read(file)
        except ValueError as error:
            notes.append(str(error))
            continue
        lesson = _lesson_of(notebook)
        if lesson is not None:
            rows += _rows(file, lesson, notebook)
    if not rows and not notes:
        notes.append(_no_lessons(path))
    return Progress(path, tuple(rows), tuple(notes))


def _no_lessons(folder: Path) -> str:
    """The note for a folder holding no lesson: where the lessons may be instead."""
    holding = sorted(
        sub.name
        for sub in folder.iterdir()
        if sub.is_dir() and any(LESSON_NAME.match(file.name) for file in sub.glob("*.ipynb"))
    )
    if holding:
        names = ", ".join(holding[:3]) + (", …" if len(holding) > 3 else "")
        return (
            f"no lessons in {folder} itself; its folders {names} hold some: give them, "
            f"e.g. graphkit progress {folder}/*"
        )
    return (
        f"no lessons of graphkit's course in {folder} (a lesson is a notebook whose cells "
        "import its checks, as the copies graphkit lessons makes do)"
    )


def _read(path: Path) -> dict[str, Any]:
    """The notebook at ``path`` as JSON, or ``ValueError`` saying why it is none."""
    if not path.is_file():  # (a named pipe would keep read_text waiting for a writer)
        what = "a folder" if path.is_dir() else "no file"
        what = "a link to nowhere" if path.is_symlink() and not path.exists() else what
        raise ValueError(f"{path} is not a notebook: it is {what}")
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} is not a notebook: {error}") from None
    if isinstance(notebook, dict) and notebook.get("nbformat") == 3:
        raise ValueError(
            f"{path} is a notebook of format 3: open it in Jupyter and save it to bring it "
            "to format 4"
        )
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list) or not all(isinstance(cell, dict) for cell in cells):
        raise ValueError(f"{path} is not a notebook: it has no list of cells")
    return notebook


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _code_cells(notebook: dict[str, Any]) -> list[dict[str, Any]]:
    return [cell for cell in notebook["cells"] if cell.get("cell_type") == "code"]


def _lesson_of(notebook: dict[str, Any]) -> str | None:
    """The lesson (``"03"``) whose checks the notebook imports, if it is one of this
    installation's lessons with exercises."""
    for cell in _code_cells(notebook):
        match = _IMPORTS_CHECKS.search(_source(cell))
        if match:
            lesson = match.group(1) or match.group(2)
            try:
                return lesson if lesson_exercises(lesson) else None
            except ImportError:
                return None  # (a lesson of a later graphkit than this one)
    return None


@dataclass(frozen=True)
class _Shown:
    """A verdict saved in a cell's output: the cell's place (in all the cells) and
    execution count, the output's place in the cell, and when the check ran."""

    cell: int
    count: int | None
    output: int
    checked: datetime | None
    outcome: str
    message: str

    def order(self) -> tuple:
        """The later verdict sorts higher: a time beats none (older graphkit), then
        the time, then the count (which a restart begins again), then the place."""
        checked = self.checked or _LONG_AGO
        return (self.checked is not None, checked, self.count or 0, self.cell, self.output)


def _rows(path: Path, lesson: str, notebook: dict[str, Any]) -> list[ExerciseProgress]:
    """A row per exercise of ``lesson``, from the verdicts saved in ``notebook``."""
    if not any(cell.get("outputs") for cell in _code_cells(notebook)):
        return [
            ExerciseProgress(path, lesson, title, "not tried", note=NO_OUTPUTS)
            for title in lesson_exercises(lesson)
        ]
    cells = notebook["cells"]
    names = {f"lesson{lesson}.{check.__name__}": check.exercise for check in _checks(lesson)}
    checks = [_checked_in(cell, names) for cell in cells]
    shown = _verdicts(cells)
    rows = []
    for title in lesson_exercises(lesson):
        if title not in shown:
            note = _raised(cells, [title in checked for checked in checks])
            rows.append(ExerciseProgress(path, lesson, title, "not tried", note=note))
            continue
        last = max(shown[title], key=_Shown.order)
        message = last.message.strip().partition("\n")[0]
        status, note = last.outcome, _ran_since(cells, checks, last, title)
        if note:
            status, note = "stale", f"showed {last.outcome}, but {note}"
        rows.append(ExerciseProgress(path, lesson, title, status, message, note))
    return rows


def _verdicts(cells: list[dict[str, Any]]) -> dict[str, list[_Shown]]:
    """Each exercise's verdicts saved in ``cells``, by the markers in their outputs."""
    shown: dict[str, list[_Shown]] = {}
    for number, cell in enumerate(cells):
        count = cell.get("execution_count")
        for place, verdict in enumerate(_markers(cell)):
            if verdict.get("outcome") not in STATUSES:
                continue
            seen = _Shown(
                number,
                count if isinstance(count, int) else None,
                place,
                _time(verdict.get("checked")),
                verdict["outcome"],
                str(verdict.get("message", "")),
            )
            shown.setdefault(str(verdict.get("exercise")), []).append(seen)
    return shown


def _markers(cell: dict[str, Any]) -> list[dict[str, Any]]:
    """The verdict markers in ``cell``'s outputs, in their order."""
    found = []
    for output in cell.get("outputs") or []:
        metadata = output.get("metadata") if isinstance(output, dict) else None
        marker = metadata.get(MARKER) if isinstance(metadata, dict) else None
        verdict = marker.get("verdict") if isinstance(marker, dict) else None
        if isinstance(verdict, dict):
            found.append(verdict)
    return found


def _time(text: Any) -> datetime | None:
    try:
        when = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return when if when.tzinfo is not None else None  # (comparable with the others)


def _checked_in(cell: dict[str, Any], names: dict[str, str]) -> set[str]:
    """The exercises a code cell checks: by the checks it calls (``names`` gives each
    check's exercise; another's call is its own name), and by the verdicts it shows."""
    if cell.get("cell_type") != "code":
        return set()
    called = {names.get(call, call) for call in _CALLS_A_CHECK.findall(_source(cell))}
    return called | {str(verdict.get("exercise")) for verdict in _markers(cell)}


def _raised(cells: list[dict[str, Any]], checks_it: list[bool]) -> str:
    """For an exercise with no verdict: the error its check cell shows, if one does
    (a check run after a restart, before the cells above it)."""
    for cell in (cell for cell, checks in zip(cells, checks_it, strict=True) if checks):
        for output in cell.get("outputs") or []:
            if isinstance(output, dict) and output.get("output_type") == "error":
                return f"its check cell shows {output.get('ename') or 'an error'}"
    return ""


def _ran_since(
    cells: list[dict[str, Any]], checks: list[set[str]], shown: _Shown, title: str
) -> str:
    """Why the verdict ``shown`` of ``title`` is stale: a code cell of the exercise
    with a higher execution count, which ran after the verdict (or before a restart);
    "" when none did. The exercise's cells are those above its check, up to its
    heading, the cell importing the checks or a check of another exercise; a check
    cell (a copy of this one, say) is no answer."""
    if shown.count is None:
        return ""
    first = shown.cell
    while first > 0 and not _begins_below(cells[first - 1], checks[first - 1], title):
        first -= 1
    later = [
        cell["execution_count"]
        for cell, checked in zip(cells[first : shown.cell], checks[first : shown.cell], strict=True)
        if not checked
        and cell.get("cell_type") == "code"
        and isinstance(cell.get("execution_count"), int)
        and cell["execution_count"] > shown.count
    ]
    if not later:
        return ""
    return (
        f"In [{max(later)}] above it ran after the check's In [{shown.count}] (or before a restart)"
    )


def _begins_below(cell: dict[str, Any], checked: set[str], title: str) -> bool:
    """Whether an exercise's cells begin below ``cell``: a heading, the cell importing
    the lesson's checks, or a check of another exercise."""
    if cell.get("cell_type") == "markdown":
        return bool(_HEADING.match(_source(cell)))
    return bool(checked - {title}) or bool(_IMPORTS_CHECKS.search(_source(cell)))
