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

from graphkit.diagnostics.threads import SHORTEST_ID, ids_begun_by, unclear_id
from graphkit.inspect.values import show

__all__ = [
    "answers_by_id",
    "asked_inside",
    "asked_once",
    "question_labels",
    "short_ids",
    "waiting_questions",
]


def asked_once(results: Sequence[Any]) -> tuple[tuple[str, Any], ...]:
    """Each question the task ``results`` of a paused step wait on, once, with the node
    of the first task that asked it: a functional API's called task's question is its
    caller's too (one id, one answer), and a second called task's question, which
    LangGraph's ``__interrupt__`` leaves out, still needs its own answer.

    >>> from graphkit.pregel.records import Task, TaskResult
    >>> from graphkit.types import Interrupt
    >>> first, second = Interrupt("a?", id="65233a7f"), Interrupt("b?", id="5ea9e835")
    >>> def paused(node, kind, asked):
    ...     return TaskResult(Task(node, 0, node, kind, (), (), None), (), interrupts=(asked,))
    >>> results = [paused("wf", "pull", first), paused("ask", "call", first),
    ...            paused("ask", "call", second)]
    >>> [(node, i.value) for node, i in asked_once(results)]
    [('wf', 'a?'), ('ask', 'b?')]
    """
    found: dict[Any, tuple[str, Any]] = {}
    for result in results:
        for asked in result.interrupts:
            found.setdefault(getattr(asked, "id", None) or id(asked), (result.task.node, asked))
    return tuple(found.values())


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


def asked_inside(results: Sequence[Any], asked: Any) -> tuple[str, ...]:
    """The nodes below the paused task that asked ``asked``, outermost first: ``('ask',)``
    for lesson 20's subgraph node ``editor`` whose node ``ask`` called ``interrupt()``
    (or a node that invokes the subgraph inside), () for a question the task's own code
    asked. The status named only the parent's node, and the learner looked for an
    ``interrupt()`` in a node that has none."""
    wanted = getattr(asked, "id", None)
    for result in results:
        if not any(getattr(i, "id", None) == wanted for i in result.interrupts):
            continue
        for subrun in result.subruns:
            last = subrun.steps[-1] if subrun.steps else None
            inner = last.execution.results if last is not None and last.execution else ()
            for found in inner:
                if any(getattr(i, "id", None) == wanted for i in found.interrupts):
                    return (found.task.node, *asked_inside(inner, asked))
    return ()


def question_labels(asked: Sequence[tuple[str, Any]], results: Sequence[Any] = ()) -> list[str]:
    """One line per ``(node, interrupt)`` waiting: who asks what, the subgraph's node
    that asked it when it was asked inside one (``results``: the paused step's), and,
    when several wait, the id to answer it by.

    >>> from graphkit.types import Interrupt
    >>> question_labels([("check", Interrupt("Buy laptop?", id="65233a7fd395")),
    ...                  ("check", Interrupt("Buy desk?", id="5ea9e835e654"))])
    ["check asks 'Buy laptop?' (id 65233a7f)", "check asks 'Buy desk?' (id 5ea9e835)"]
    """
    labels = []
    for node, question in asked:
        inside = asked_inside(results, question)
        by = f"node {inside[0]}" if len(inside) == 1 else " → ".join(inside)
        where = f" (asked in its subgraph, by {by})" if inside else ""
        value = show(getattr(question, "value", question), width=400)
        labels.append(f"{node} asks {value}{where}")
    if len(asked) < 2:
        return labels
    ids = short_ids([i for _, i in asked])
    return [f"{text} (id {short})" for text, short in zip(labels, ids, strict=True)]


def waiting_questions(asked: Sequence[tuple[str, Any]], results: Sequence[Any] = ()) -> str:
    """``approve asks {...} (id 65233a7f); approve asks {...} (id 5ea9e835)``: each
    ``(node, interrupt)`` with the id to answer it by, when there are several."""
    return "; ".join(question_labels(asked, results))


def answers_by_id(interrupts: Sequence[Any], answer: Any) -> dict[str, Any] | str:
    """The resume map for ``answer`` given to the ``interrupts`` waiting: its keys, the
    whole ids or their first characters (4 at least, one id each), made whole. A text
    saying what to give instead when ``answer`` is not such a map (one answer for
    several questions, which LangGraph refuses too, a text that meant a dict but does
    not read as one, a key no question has or several have, two keys for one question).

    >>> from graphkit.types import Interrupt
    >>> waiting = [Interrupt("a?", id="65233a7fd395"), Interrupt("b?", id="65239e835e65")]
    >>> answers_by_id(waiting, {"65233a7f": "yes", "65239e835e65": "no"})
    {'65233a7fd395': 'yes', '65239e835e65': 'no'}
    >>> print(answers_by_id(waiting, "yes"))
    2 questions are waiting, so Resume needs an answer for each, keyed by its id: type {'65233a7f': ..., '65239e83': ...} (a question left out asks again).
    >>> print(answers_by_id(waiting, "{65233a7f: yes}"))
    {65233a7f: yes} does not read as a dict (as Python or JSON): quote each id and each text answer, as in {'65233a7f': ..., '65239e83': ...}.
    >>> print(answers_by_id(waiting, {"6523": "yes"}))
    '6523' begins the ids of 2 questions (those asking 'a?' and 'b?'), so it does not say which it answers: key each answer by its own id, as in {'65233a7f': ..., '65239e83': ...}.
    """  # noqa: E501
    ids = [str(getattr(asked, "id", "")) for asked in interrupts]
    shown = short_ids(interrupts)
    example = "{" + ", ".join(f"{short!r}: ..." for short in shown) + "}"
    if isinstance(answer, str) and answer.strip().startswith("{"):
        return (
            f"{answer.strip()} does not read as a dict (as Python or JSON): quote each id "
            f"and each text answer, as in {example}."
        )
    if not isinstance(answer, Mapping):
        return (
            f"{len(ids)} questions are waiting, so Resume needs an answer for each, keyed "
            f"by its id: type {example} (a question left out asks again)."
        )
    answers: dict[str, Any] = {}
    keys: dict[str, Any] = {}
    for key, value in answer.items():
        # (an id of decimal digits only, typed without quotes, reads as a number)
        text = str(key) if isinstance(key, int) and not isinstance(key, bool) else key
        found = ids_begun_by(text, ids)
        if len(found) != 1 or len(text) < SHORTEST_ID:
            named = [s for i, s in zip(ids, shown, strict=True) if i in found]
            # (the example names each id: the sentence names the questions by what they ask)
            asks = {s: getattr(i, "value", i) for s, i in zip(shown, interrupts, strict=True)}
            return f"{unclear_id(key, named, shown, asks=asks)}, as in {example}."
        if found[0] in answers:
            return f"{keys[found[0]]!r} and {key!r} answer the same question: type {example}."
        answers[found[0]], keys[found[0]] = value, key
    return answers
