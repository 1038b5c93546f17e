"""What ``graphkit.course.progress`` read, shown: a compact text table per folder
(``graphkit progress PATH``) or CSV rows for a teacher's spreadsheet (``--csv``)."""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from graphkit.course.gradebook import NO_OUTPUTS, STATUSES, ExerciseProgress, Progress
from graphkit.inspect.folding import fold

__all__ = ["progress_csv", "progress_text"]

_MESSAGE_WIDTH = 72  # (a verdict's first line, cut there in the text table)


def progress_text(report: Progress, width: int | None = None) -> str:
    """A compact table of ``report``: a line per exercise of each lesson tried, a line
    for the lessons not tried at all, then the total. ``width`` (a terminal's): an
    exercise's line folds at spaces, going on under its status."""
    lines = [str(report.path)]
    for note in report.notes:
        lines += fold(note, width, 4, "  ", break_words=False)
    notebooks: dict[Path, list[ExerciseProgress]] = {}
    for row in report.exercises:
        notebooks.setdefault(row.notebook, []).append(row)
    untried: dict[str, list[str]] = {NO_OUTPUTS: [], "no verdict saved": []}
    for notebook, rows in notebooks.items():
        if all(row.status == "not tried" and row.note in untried | {"": 0} for row in rows):
            untried[rows[0].note or "no verdict saved"].append(rows[0].lesson)
            continue
        lines.append(f"  {notebook.name}")
        names = max(len(row.exercise) for row in rows)
        for row in rows:
            first = f"    {row.exercise:<{names}}  "
            folded = fold(_status_text(row), width, len(first), first, break_words=False)
            lines += [line.rstrip() for line in folded]
    for why, lessons in untried.items():
        if lessons:
            named = "lesson" if len(lessons) == 1 else "lessons"
            lines.append(f"  {named} {_ranges(lessons)}: not tried ({why})")
    if report.exercises:
        lines.append(f"  {_total(report.exercises)}")
    return "\n".join(lines)


def _ranges(lessons: list[str]) -> str:
    """``["02", "03", "04", "07"]`` as ``"02–04, 07"``."""
    spans: list[list[str]] = []
    for lesson in sorted(lessons):
        if spans and int(lesson) == int(spans[-1][-1]) + 1:
            spans[-1].append(lesson)
        else:
            spans.append([lesson])
    return ", ".join(span[0] if len(span) == 1 else f"{span[0]}–{span[-1]}" for span in spans)


def _status_text(row: ExerciseProgress) -> str:
    message = row.message
    if len(message) > _MESSAGE_WIDTH:
        message = message[: _MESSAGE_WIDTH - 1].rstrip() + "…"
    if row.status == "stale":
        return f"stale: {row.note}"
    if row.status in ("not yet", "check failed") and message:
        return f"{row.status}: {message}"
    return f"{row.status}: {row.note}" if row.note else row.status


def _total(rows: Iterable[ExerciseProgress]) -> str:
    counts = Counter(row.status for row in rows)
    others = ", ".join(f"{counts[status]} {status}" for status in STATUSES[1:] if counts[status])
    total = sum(counts.values())
    return f"{counts['passed']} of {total} exercises passed" + (f" ({others})" if others else "")


def progress_csv(reports: Iterable[Progress]) -> str:
    """The rows of ``reports`` as CSV, one per exercise, for a spreadsheet."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["path", "notebook", "lesson", "exercise", "status", "message", "note"])
    for report in reports:
        for row in report.exercises:
            fields = [report.path, row.notebook.name, row.lesson, row.exercise]
            writer.writerow(map(_as_text, [*fields, row.status, row.message, row.note]))
    return out.getvalue()


def _as_text(value: object) -> str:
    """``value`` as a spreadsheet keeps it: text that starts like a formula (a
    message or a notebook's name is the learner's to write) gets a leading '."""
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
