"""Answers to several ``interrupt()`` calls waiting at once, for the debugger's Resume.

Parallel tasks that each ask (a ``Send`` fan-out of approvals) leave the run waiting on
several questions; LangGraph then takes only ``Command(resume={interrupt_id: answer})``.
An interrupt id is 32 hex digits, so the debugger names each question by its first
eight (longer where two would read alike, as git shortens a commit id) and takes those
as keys, or the whole ids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphkit.inspect.values import show

__all__ = ["answers_by_id", "short_ids", "waiting_questions"]


def short_ids(interrupts: Sequence[Any]) -> list[str]:
    """Each interrupt's id cut to 8 characters, longer where two would read alike.

    >>> from graphkit.types import Interrupt
    >>> short_ids([Interrupt("a?", id="65233a7fd395"), Interrupt("b?", id="5ea9e835e654")])
    ['65233a7f', '5ea9e835']
    >>> short_ids([Interrupt("a?", id="65233a7f0000"), Interrupt("b?", id="65233a7f1111")])
    ['65233a7f0000', '65233a7f1111']
    """
    ids = [str(getattr(asked, "id", "")) for asked in interrupts]
    length = 8
    while length < max(map(len, ids), default=0) and len({i[:length] for i in ids}) < len(ids):
        length += 4
    return [i[:length] for i in ids]


def waiting_questions(asked: Sequence[tuple[str, Any]]) -> str:
    """``approve asks {...} (id 65233a7f); approve asks {...} (id 5ea9e835)``: each
    ``(node, interrupt)`` with the id to answer it by, when there are several."""
    shown = [f"{node} asks {show(getattr(i, 'value', i), width=400)}" for node, i in asked]
    if len(asked) < 2:
        return "; ".join(shown)
    ids = short_ids([i for _, i in asked])
    return "; ".join(f"{text} (id {short})" for text, short in zip(shown, ids, strict=True))


def answers_by_id(interrupts: Sequence[Any], answer: Any) -> dict[str, Any] | str:
    """The resume map for ``answer`` given to the ``interrupts`` waiting: its keys, the
    whole ids or their first characters (4 at least, one id each), made whole. A text
    saying what to give instead when ``answer`` is not such a map (one answer for
    several questions, which LangGraph refuses too, or a key no question has).

    >>> from graphkit.types import Interrupt
    >>> waiting = [Interrupt("a?", id="65233a7fd395"), Interrupt("b?", id="5ea9e835e654")]
    >>> answers_by_id(waiting, {"65233a7f": "yes", "5ea9e835e654": "no"})
    {'65233a7fd395': 'yes', '5ea9e835e654': 'no'}
    >>> print(answers_by_id(waiting, "yes"))
    2 questions are waiting, so Resume needs an answer for each, keyed by its id: type {'65233a7f': ..., '5ea9e835': ...} (a question left out asks again).
    """  # noqa: E501
    ids = [str(getattr(asked, "id", "")) for asked in interrupts]
    shown = short_ids(interrupts)
    example = "{" + ", ".join(f"{short!r}: ..." for short in shown) + "}"
    if not isinstance(answer, Mapping):
        return (
            f"{len(ids)} questions are waiting, so Resume needs an answer for each, keyed "
            f"by its id: type {example} (a question left out asks again)."
        )
    answers: dict[str, Any] = {}
    for key, value in answer.items():
        found = [i for i in ids if isinstance(key, str) and len(key) >= 4 and i.startswith(key)]
        if len(found) != 1:
            return (
                f"{key!r} is not the id of one of the questions waiting "
                f"({', '.join(map(repr, shown))}): type {example}."
            )
        answers[found[0]] = value
    return answers
