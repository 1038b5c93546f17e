"""The course: checked exercises for the lessons in ``notebooks/``.

Each lesson ``NN`` has a module ``graphkit.course.lessonNN`` whose functions check
one exercise each against the real runtime and return a ``Verdict``; its solutions
live apart, in ``graphkit.course.solutions.lessonNN``, so the lesson notebooks carry
no answers. ``graphkit lessons DIR`` copies the lessons into a folder you own;
``progress(DIR)`` (``graphkit progress DIR``) says which exercises were passed there.

>>> from graphkit.course import Verdict
>>> Verdict("1.1 · Build a chain", True, "Your graph ran a → b.")
✓ 1.1 · Build a chain: Your graph ran a → b.
"""

from __future__ import annotations

from graphkit.course.checking import (
    Verdict,
    Wrong,
    compiled,
    counted,
    exercise,
    failed_run,
    ran_again,
    ran_at,
    trace,
    whole_number,
)
from graphkit.course.gradebook import ExerciseProgress, Progress, progress
from graphkit.course.testing import assert_fails, assert_passes

__all__ = [
    "ExerciseProgress",
    "Progress",
    "Verdict",
    "Wrong",
    "assert_fails",
    "assert_passes",
    "compiled",
    "counted",
    "exercise",
    "failed_run",
    "progress",
    "ran_again",
    "ran_at",
    "trace",
    "whole_number",
]
