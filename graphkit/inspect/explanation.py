"""The answers ``run.why(...)`` gives, as data: an Explanation holds one Answer per
step asked about, each a one-line summary and the Reasons behind it.

Reasons carry a ``kind`` so that code (a widget, a test) can act on them without
parsing text:

| kind | the node ran / did not run because |
|---|---|
| ``input`` | (ran) it is the input step's task, or ``__start__`` woken by the input |
| ``edge`` | (ran) an edge or a router wrote its ``branch:to:<node>`` channel |
| ``separate_edges`` | (ran) once per edge into it (plain, waiting, a router): each wakes it |
| ``waiting_edge`` | (ran) every source of its waiting edge had written |
| ``channel`` | (ran) another trigger channel changed |
| ``raised`` / ``step_failed`` | (ran) it, or a sibling, raised: the step's Update never ran |
| ``edited`` | (ran) after a state edit (``update_state``) or a fork in the run's lineage |
| ``retried`` | (ran) more than once in the step: its retry policy ran it again after an error |
| ``not_saved`` | a thread read from LangGraph saved none of its writes, or not the step |
| ``not_updated`` | no trigger channel of it changed in the previous step's Update |
| ``next_step`` | its trigger was written *in* this step: visible only in the next one |
| ``deferred`` | (``defer=True``) its trigger was written, but held back until the end |
| ``unapplied`` | its trigger was written in a step that failed, so never applied |
| ``still_waiting`` | its waiting edge is still missing some sources |
| ``chose_otherwise`` | a router that can choose it chose other nodes |
| ``never_written`` | nothing wrote its trigger channel in the whole run |
| ``input_step`` | step -1, or a later input step given a Command, runs only the input task |
| ``new_input`` | a later invoke's input step runs only the input task, dropping pending runs |
| ``finished`` / ``recursion_limit`` / ``failed`` / ``not_reached`` | the run had stopped |
"""

from __future__ import annotations

from dataclasses import dataclass

from graphkit.inspect.folding import fold
from graphkit.inspect.markup import ERROR, FONT_STYLE, MUTED, PLAN, TEXT, UPDATE, escape
from graphkit.render.text import terminal_text

__all__ = ["Answer", "Explanation", "Reason"]


@dataclass(frozen=True, slots=True)
class Reason:
    """One fact behind an answer: what happened, in which step, on which channel,
    written by whom."""

    kind: str
    text: str
    step: int | None = None
    channel: str | None = None
    writers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Answer:
    """Whether ``node`` ran at ``step`` (None: in the whole run), and why.

    >>> Answer("a", 1, True, "a ran.", (Reason("edge", "b wrote branch:to:a."),)).kinds
    ['edge']
    """

    node: str
    step: int | None
    ran: bool
    summary: str
    reasons: tuple[Reason, ...]

    @property
    def kinds(self) -> list[str]:
        """The kind of each reason, in order."""
        return [reason.kind for reason in self.reasons]


@dataclass(frozen=True, slots=True, repr=False)
class Explanation:
    """Why a node ran, or did not run: plain text with ``str()``, a card in a notebook.

    >>> from graphkit.inspect.examples import forecast_run
    >>> explanation = forecast_run().why("summarize", step=3)
    >>> explanation
    Explanation(node='summarize', step=3, ran=True)
    >>> explanation.kinds
    ['waiting_edge']
    """

    node: str
    step: int | None
    answers: tuple[Answer, ...]

    @property
    def ran(self) -> bool:
        """True if the node ran at the step asked about (at any step, for step=None)."""
        return any(answer.ran for answer in self.answers)

    @property
    def summary(self) -> str:
        """The one-line summary of each answer, one per line."""
        return "\n".join(answer.summary for answer in self.answers)

    @property
    def kinds(self) -> list[str]:
        """The kind of every reason of every answer, in order."""
        return [kind for answer in self.answers for kind in answer.kinds]

    def __str__(self) -> str:
        return self.text()

    def text(self, width: int | None = 88) -> str:
        """The summary, then each reason as an item, wrapped at words to ``width``
        columns (a notebook breaks a longer printed line mid-word, wherever it meets the
        edge); ``width=None``: one line each, for a box that wraps its own lines."""
        lines = []
        for answer in self.answers:
            lines.append(_fill(answer.summary, width, ""))
            lines.extend(_fill(r.text, width, "  - ", "    ") for r in answer.reasons)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"Explanation(node={self.node!r}, step={self.step!r}, ran={self.ran})"

    def _repr_html_(self) -> str:
        return explanation_html(self)


def explanation_html(explanation: Explanation) -> str:
    """The explanation as an HTML card: per answer, the summary, then its reasons.

    >>> html = explanation_html(Explanation("<b>", 1, (Answer("<b>", 1, False, "x<y", ()),)))
    >>> "&lt;b&gt;" in html and "x&lt;y" in html and "<b>" not in html.replace("<b>why", "")
    True
    """
    parts = []
    for answer in explanation.answers:
        background, accent = UPDATE if answer.ran else PLAN
        if any(r.kind in ("raised", "step_failed", "failed") for r in answer.reasons):
            background, accent = ERROR
        # (the kind is for code reading the page, not for the learner: an attribute)
        reasons = "".join(
            f'<li style="margin:2px 0" data-kind="{escape(reason.kind)}">{escape(reason.text)}</li>'
            for reason in answer.reasons
        )
        parts.append(
            f'<div style="background:{background};border-left:3px solid {accent};'
            f'padding:6px 10px;margin:4px 0;border-radius:4px">'
            f'<div style="font-weight:600">{escape(answer.summary)}</div>'
            f'<ul style="margin:4px 0 0 0;padding-left:18px">{reasons}</ul></div>'
        )
    where = "the whole run" if explanation.step is None else f"step {explanation.step}"
    return (
        f'<div style="{FONT_STYLE};color:{TEXT};max-width:1000px">'
        f'<div style="color:{MUTED}"><b>why</b> {escape(explanation.node)} · {where}</div>'
        f"{''.join(parts)}</div>"
    )


def _fill(text: str, width: int | None, first: str, rest: str = "") -> str:
    """``text`` as printable lines (control characters a name may hold are escaped) of
    at most ``width`` characters, broken between words (a word longer than a line, a
    URL or a hash, broken with ``↩``: ``graphkit.inspect.folding``)."""
    return "\n".join(fold(terminal_text(text), width, len(rest), first))
