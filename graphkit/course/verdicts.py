"""The outcome of a checked exercise: ``Verdict``, and ``Wrong``, which a check raises to
fail an answer (see ``graphkit.course.checking``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from graphkit.inspect.markup import escape

__all__ = ["MARKER", "Verdict", "Wrong"]

MARKER = "graphkit"
"""The key of a shown verdict's marker in its saved output's metadata:
``{"graphkit": {"verdict": {"exercise": ..., "outcome": ..., "message": ...,
"checked": ...}}}``."""


class Wrong(Exception):
    """Raised inside a check: the answer is wrong, for the reason ``message``; ``hint``
    points the learner at the fix without giving the answer away."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class Verdict:
    """The outcome of one exercise check: passed or not, what the check found, and a
    hint when it did not pass."""

    exercise: str
    passed: bool
    message: str
    hint: str = ""
    check_error: BaseException | None = field(default=None, repr=False, compare=False)
    """The exception the check's own code raised, when the check itself failed (see
    ``exercise``); None for any verdict on the answer. Its traceback says where."""
    checked: str = field(default_factory=_now, repr=False, compare=False)
    """When the check ran (ISO 8601, UTC): which of two saved verdicts came last, when
    a kernel restart has begun the execution counts again at 1."""

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        mark = "✓" if self.passed else "✗"
        text = f"{mark} {self.exercise}: {self.message}"
        return f"{text}\n  hint: {self.hint}" if self.hint else text

    @property
    def outcome(self) -> str:
        """``"passed"``, ``"not yet"`` (the answer failed) or ``"check failed"`` (the
        check's own code raised: no verdict on the answer)."""
        if self.check_error is not None:
            return "check failed"
        return "passed" if self.passed else "not yet"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict, dict]:
        # No data (IPython fills text/plain and text/html from the two reprs), only a
        # marker in the output's metadata: a notebook saved with its outputs says which
        # exercise each box is about and how it went, for ``graphkit progress`` to read
        # without parsing the box's prose. A learner sees nothing of it.
        marker = {
            "exercise": self.exercise,
            "outcome": self.outcome,
            "message": self.message,
            "checked": self.checked,
        }
        return {}, {MARKER: {"verdict": marker}}

    def _repr_html_(self) -> str:
        outcome = "pass" if self.passed else "fail"
        mark = "✓ Correct" if self.passed else "✗ Not yet"
        color = "#0072b2" if self.passed else "#d55e00"
        if self.check_error is not None:  # (not the learner's: no "Not yet" in vermillion)
            mark, color = "⚠ The check failed", "#999999"
        hint = (
            f'<div class="gk-verdict-hint" style="white-space:pre-wrap"><b>Hint:</b> '
            f"{_markup(self.hint)}</div>"
            if self.hint
            else ""
        )
        return (
            f'<div class="gk-verdict gk-verdict-{outcome}" style="border-left:4px solid '
            f"{color};padding:6px 10px;margin:4px 0;"
            "overflow-wrap:anywhere;"
            f'background:rgba(127,127,127,0.08)">'
            f"<b>{mark}</b> · {_markup(self.exercise)}"
            f'<div class="gk-verdict-message" style="white-space:pre-wrap">'
            f"{_markup(self.message)}</div>{hint}</div>"
        )


def _markup(text: str) -> str:
    """Escaped text with `code` spans shown as code, as in the lessons' prose."""
    return re.sub(r"`([^`\n]+)`", r"<code>\1</code>", escape(text))
