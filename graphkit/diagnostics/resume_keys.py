"""What graphkit says when ``Command(resume=...)`` does not answer the questions waiting:
a map whose keys name no one question (cut too short, ids of the tasks, not of the
interrupts), an empty map, answers to interrupts not waiting. Raised by
``graphkit.pregel.threads``; the debugger's answer box shares ``unclear_id``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from graphkit.diagnostics import some_names

__all__ = [
    "SHORTEST_ID",
    "answers_nothing",
    "ids_begun_by",
    "not_waiting",
    "several_interrupts",
    "unclear_id",
]


def several_interrupts(answer: Any, waiting: Mapping[Any, tuple[str, Any]]) -> str:
    """Why ``answer`` cannot resume the interrupts ``waiting`` (by id: the task that
    asked, and the interrupt), each with its question, and the map that can: filled in
    when ``answer`` is keyed by the tasks' ids (``get_state(config).tasks[i].id``, a
    common slip) or by the interrupts' ids cut short, as a table shows them.

    >>> from graphkit.types import Interrupt
    >>> waiting = {"i-1": ("task-1", Interrupt("laptop?", "i-1")),
    ...            "i-2": ("task-2", Interrupt("chair?", "i-2"))}
    >>> print(several_interrupts({"task-1": "yes", "task-2": "no"}, waiting))
    Command(resume=...) is keyed by ['task-1', 'task-2']:
    those are the ids of the tasks that asked (get_state(config).tasks[i].id),
    not of the pending interrupts, so the dict reads as one answer for 2 questions.
    The pending interrupts, by their own ids:
      'i-1' asks 'laptop?' (task 'task-1')
      'i-2' asks 'chair?' (task 'task-2')
    Resume with Command(resume={'i-1': 'yes', 'i-2': 'no'})
    (the ids are in the paused result's '__interrupt__' and in get_state(config).interrupts).
    """
    asked = [(str(id_), task, i) for id_, (task, i) in waiting.items()]
    keyed = answer if isinstance(answer, dict) else {}
    tasks = {key: _meant(key, [task for _, task, _ in asked]) for key in keyed}
    pending = [id_ for id_, _, _ in asked]
    ids = {key: _meant(key, pending) for key in keyed}
    given: dict[str, Any] = {}
    unclear: list[str] = []  # keys that name no one question, or one another key names
    if keyed and all(tasks.values()):
        given = {id_: keyed[k] for k, t in tasks.items() for id_, task, _ in asked if task == t}
        what = "the ids of the tasks that asked (get_state(config).tasks[i].id),\nnot of "
        what += "the pending interrupts"
    elif keyed and any(ids[k] or len(ids_begun_by(k, pending)) > 1 for k in keyed):
        cut = all(ids_begun_by(key, pending) and key not in pending for key in keyed)
        what = "the pending interrupts' ids cut short (a resume map needs them whole)"
        what = what if cut else "not all whole ids of the pending interrupts"
        # (the questions are listed below by their ids: named here by what they ask)
        asks = {id_: getattr(question, "value", question) for id_, _, question in asked}
        unclear = [
            f"\n{unclear_id(key, ids_begun_by(key, pending), pending, asks=asks)}."
            for key in keyed
            if not ids[key]
        ]
        by_question: dict[str, list[Any]] = {}
        for key in keyed:
            if ids[key]:
                by_question.setdefault(ids[key], []).append(key)
        for id_, keys in by_question.items():
            if len(keys) > 1:  # (which answer is meant is not said: left to fill in)
                said = " and ".join(map(repr, keys))
                unclear.append(
                    f"\n{said} answer the same question ({_clipped(asks[id_], 30)}): "
                    "give it one answer."
                )
            else:
                given[id_] = keyed[keys[0]]
    else:
        what = "not the ids of the pending interrupts"
    wrong = (
        f"Command(resume=...) is keyed by {some_names(map(str, keyed))}:\nthose are {what}, "
        f"so the dict reads as one answer for {len(asked)} questions.{''.join(unclear)}"
        if keyed
        else f"Command(resume={_clipped(answer)}) gives one answer, and {len(asked)} "
        "interrupts are pending:\nsay which answer is whose, by interrupt id."
    )
    fill = ", ".join(f"{i!r}: {repr(given[i]) if i in given else '...'}" for i, _, _ in asked)
    questions = (
        f"  {i!r} asks {_clipped(getattr(q, 'value', q))} (task {t!r})" for i, t, q in asked
    )
    return "\n".join(
        [
            wrong,
            "The pending interrupts, by their own ids:",
            *questions,
            f"Resume with Command(resume={{{fill}}})",
            "(the ids are in the paused result's '__interrupt__' and in "
            "get_state(config).interrupts).",
        ]
    )


def _meant(key: Any, ids: Sequence[str]) -> str | None:
    """The one id of ``ids`` that ``key`` is, or begins (as a table's short id does)."""
    begun = ids_begun_by(key, ids)
    return begun[0] if len(begun) == 1 and len(key) >= SHORTEST_ID else None


SHORTEST_ID = 4
"""The fewest first characters of an interrupt's id that name it (the debugger shows 8)."""


def ids_begun_by(key: Any, ids: Sequence[str]) -> list[str]:
    """The ids of ``ids`` that ``key`` is or begins (none for a key that is no text).

    >>> ids_begun_by("6523", ["65233a7f", "6523b111", "5ea9e835"])
    ['65233a7f', '6523b111']
    """
    if not isinstance(key, str) or not key:
        return []
    return [id_ for id_ in ids if id_.startswith(key)]


def unclear_id(
    key: Any,
    begun: Sequence[str],
    waiting: Sequence[str],
    *,
    asks: Mapping[str, Any] | None = None,
) -> str:
    """Why the resume key ``key`` names no one question: it begins the ids of several
    (``begun``, as the caller shows ids), is too short, or begins none of ``waiting``.
    The one sentence the debugger's answer box and the runtime give; each adds the map
    to pass (the debugger's of short ids, the runtime's of whole ones), or the list of
    questions by id. ``asks``: what each question asks, by id, for a message that shows
    the ids elsewhere: the questions are then named by what they ask, not by id again.

    >>> ids = ["65233a7f", "6523b111"]
    >>> print(unclear_id("6523", ids, ids))
    '6523' begins the ids of 2 questions ('65233a7f', '6523b111'), so it does not say which it answers: key each answer by its own id
    >>> print(unclear_id("6523", ids, ids, asks={ids[0]: "laptop?", ids[1]: "chair?"}))
    '6523' begins the ids of 2 questions (those asking 'laptop?' and 'chair?'), so it does not say which it answers: key each answer by its own id
    >>> print(unclear_id("zz", [], ids))
    'zz' begins none of the ids of the 2 questions waiting ('65233a7f', '6523b111'): key each answer by its own id
    """  # noqa: E501
    if asks is not None:
        named = f"those asking {' and '.join(_clipped(asks[id_], 30) for id_ in begun)}"
        listed = ""
    else:
        named = ", ".join(map(repr, begun))
        listed = f" ({', '.join(map(repr, waiting))})"
    if len(begun) > 1:
        said = (
            f"begins the ids of {len(begun)} questions ({named}), so it does not say which "
            "it answers"
        )
    elif begun:
        one = f"asking {_clipped(asks[begun[0]], 30)}" if asks is not None else repr(begun[0])
        said = f"begins the id of the question {one}, but too little of it to name it"
    else:
        said = f"begins none of the ids of the {len(waiting)} questions waiting{listed}"
    return f"{key!r} {said}: key each answer by its own id"


def _clipped(value: Any, width: int = 60) -> str:
    text = repr(value).replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def answers_nothing(pending: Sequence[str]) -> str:
    return (
        "Command(resume={}) names no interrupt, and this run checks answers strictly "
        f"(configurable['__pregel_strict_resume']); the interrupts waiting are {list(pending)}: "
        "answer them as Command(resume={interrupt_id: answer, ...})."
    )


def not_waiting(unknown: Sequence[str], pending: Sequence[str]) -> str:
    return (
        f"Command(resume=...) answers interrupts that are not waiting: {list(unknown)} "
        "(unknown, or answered already), and this run checks answers strictly "
        f"(configurable['__pregel_strict_resume']). The interrupts waiting are {list(pending)}: "
        "answer only those (read them from the paused result's '__interrupt__' or "
        "get_state(config).interrupts)."
    )
