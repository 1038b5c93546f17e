"""The debugger's resume box: what a paused run asks, and the answers Resume passes.

One question waiting: one answer box, and Resume passes ``Command(resume=answer)``.
Several at once (lesson 20's two ``Send`` tasks that each asked): LangGraph takes only
``Command(resume={interrupt_id: answer})``, so the box shows one answer box per question,
labelled with the node, what it asks and its id, and Resume passes the answers typed,
keyed by their ids. A box left blank is left out of the map, and its question asks
again, as in LangGraph. (A single box took a dict typed by hand, ids and quotes
included, and one plain answer was refused.)
"""

from __future__ import annotations

import ast
import html
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from graphkit.errors import GraphkitWarning
from graphkit.extras import require
from graphkit.widgets.answers import question_labels, short_ids

if TYPE_CHECKING:
    from graphkit.widgets.session import DebugSession

W = require("ipywidgets", extra="notebook", feature="the Debugger")

__all__ = ["ResumeBox"]

RESUME_CSS = """
.gk-debugger .gk-resume-area { container: gk-resume / inline-size; }
.gk-debugger .gk-answers { align-items: center; }
.gk-debugger .gk-question { min-width: 0; max-width: 100%; }
.gk-debugger .gk-answers > .gk-answer-each { width: auto; min-width: 0; }
.gk-debugger .gk-question .widget-html-content { white-space: normal;
  overflow-wrap: anywhere; line-height: 1.4; color: var(--jp-ui-font-color1, #1f1f29); }
@container gk-resume (max-width: 40em) {
  .gk-debugger .gk-answers { grid-template-columns: minmax(0, 1fr) !important; }
  .gk-debugger .gk-answers .gk-answer-each { margin-bottom: 6px; }
}
"""
"""The questions wrap (a dict asked is long). In a narrow cell (a phone, or JupyterLab
beside its sidebars: the resume area's own width, not the window's) each box goes under
its question; the ``!important`` outweighs the grid's columns, which the widget's
layout sets on the element itself."""

ANSWER_GRID = {
    "grid_template_columns": "minmax(0, max-content) minmax(12em, 300px)",
    "grid_gap": "2px 8px",
}
"""The questions in one column and their boxes in the next, so boxes line up whatever
the lengths of the labels before them (beside its own label, each box started where
that label ended). A box fills its column, the width of a Text widget when there is
room; short of room both columns give some, a question wrapping and its box shrinking
(a box of fixed width ran past the cell's edge)."""


class ResumeBox:
    """The answer box(es) and the Resume button of ``session``'s pause; ``handler``
    wraps Resume's click as the debugger wraps every button (an error goes to the
    message line). ``refresh()`` follows the session."""

    def __init__(
        self,
        session: DebugSession,
        handler: Callable[[Callable[[], Any]], Callable[[Any], None]],
        refresh: Callable[[], Any],
    ) -> None:
        self.session = session
        self._refresh_all = refresh
        self.answer = W.Text(placeholder="answer", description="answer").add_class("gk-answer")
        self.resume = W.Button(description="Resume", icon="play").add_class("gk-resume-button")
        self.resume.on_click(handler(self.press))
        self.each: list[Any] = []  # one Text per question, when several wait
        self._for: tuple[str, ...] = ()  # the ids of the questions the boxes answer
        self.questions = W.GridBox([], layout=W.Layout(**ANSWER_GRID)).add_class("gk-answers")
        self.widget = W.VBox(
            [self.questions, W.HBox([self.answer, self.resume]).add_class("gk-resume")]
        ).add_class("gk-resume-area")

    def refresh(self) -> None:
        """Show the boxes the pause needs: none while the run is not paused, one for one
        question (or none for a compiled breakpoint, which asks nothing), one per
        question when several wait. Text typed stays while the questions do."""
        paused = self.session.status == "interrupted"
        asked = self.session.questions if paused else ()
        several = len(asked) > 1
        ids = tuple(str(getattr(q, "id", "")) for _, q in asked)
        if ids != self._for:
            # (a new question: the one box kept the last answer, and Resume gave it to a
            # question nobody had read)
            self._for, self.answer.value = ids, ""
            self.each = [_answer_box() for _ in ids] if several else []
            labels = question_labels(asked, _paused_results(self.session)) if several else []
            self.questions.children = [
                widget
                for label, box in zip(labels, self.each, strict=True)
                for widget in (W.HTML(html.escape(label)).add_class("gk-question"), box)
            ]
        self.widget.layout.display = self.resume.layout.display = None if paused else "none"
        self.answer.layout.display = None if paused and not several else "none"
        self.questions.layout.display = None if several else "none"

    def press(self) -> None:
        """Resume with the answers typed. One question: the box's text, refused when
        empty (a click before typing resumed with ``''`` and the box went away). A Python
        string literal typed is the string it spells: ``""`` is the empty string, for an
        interrupt that means it, and ``"yes"`` is ``'yes'`` (it resumed with ``'"yes"'``,
        which ``answer == "yes"`` refused without a word). Several questions: each
        box's answer keyed by its question's id; a blank box's question asks again."""
        session = self.session
        if len(self._for) > 1:
            shown = short_ids([q for _, q in session.questions])
            answers = {
                short: _unquoted(box.value)
                for short, box in zip(shown, self.each, strict=True)
                if box.value.strip()
            }
            if not answers:
                return self._refuse(
                    "Type an answer in a question's box first: Resume passes each answer "
                    "to the interrupt() that asked it, by its id (Command(resume={id: "
                    'answer})); a box left blank asks again. For an empty answer, type "".'
                )
            return _resume(session, answers)
        text = self.answer.value
        if session.status == "interrupted" and session.interrupts and not text.strip():
            return self._refuse(
                "Type an answer first: Resume passes it to the interrupt() that asked "
                '(Command(resume=answer)). For an empty answer, type "".'
            )
        return _resume(session, _unquoted(text))

    def _refuse(self, message: str) -> None:
        self.session.message = message
        self._refresh_all()


def _answer_box() -> Any:
    return W.Text(placeholder="answer (blank: it asks again)").add_class("gk-answer-each")


def _paused_results(session: DebugSession) -> tuple[Any, ...]:
    steps = session.supersteps
    last = steps[-1] if steps else None
    return last.execution.results if last is not None and last.execution else ()


def _unquoted(text: str) -> str:
    r"""The answer box's text or, if it is a Python string literal, the string Python
    reads from it: not the text inside its first and last quote, which read ``"a" "b"``
    as ``'a" "b'`` and kept the backslash of ``"\u00e9"``.

    >>> _unquoted("yes"), _unquoted('"yes"'), _unquoted(" '' "), _unquoted("it's"), _unquoted('"a')
    ('yes', 'yes', '', "it's", '"a')
    >>> _unquoted('"a" "b"'), _unquoted('"\\u00e9"'), _unquoted('"'), _unquoted("b'x'")
    ('ab', 'é', '"', "b'x'")
    >>> _unquoted('"C:\\data"')
    'C:\\data'
    """
    try:
        with warnings.catch_warnings():  # (Python warns of the \d of "C:\data", as of code)
            warnings.simplefilter("ignore")
            value = ast.literal_eval(text.strip())
    except (SyntaxError, ValueError, MemoryError, RecursionError):  # (no literal)
        return text
    return value if isinstance(value, str) else text


def _resume(session: DebugSession, answer: Any) -> None:
    """``session.resume(answer)``, whose "resumed nothing" warning (for a notebook cell)
    is left out: the box shows the session's message, and a warning would go to the
    kernel's log beside the widget."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", r"session\.resume\(\) resumed nothing", category=GraphkitWarning
        )
        session.resume(answer)
