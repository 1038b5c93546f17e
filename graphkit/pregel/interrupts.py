"""``interrupt()`` and the answers it gets: ``Resume``, what a resumed run was
given (one answer, or a map by interrupt id), handed out to the ``interrupt()`` calls of
the run's tasks, and the answer checked against the interrupt's ``response_schema``."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from graphkit.diagnostics import runtime as diagnose
from graphkit.errors import GraphInterrupt, mark_invalid_resume, warn
from graphkit.extras import require
from graphkit.pregel.task_scope import _scope
from graphkit.types import Interrupt, interrupt_id

if TYPE_CHECKING:
    from graphkit.pregel.task_scope import TaskScope

__all__ = ["NO_ANSWER", "Resume", "answer_adapter", "interrupt", "is_answer_map"]

NO_ANSWER: Any = object()
"""No resume value was given (distinct from ``None``, a valid answer)."""


_HEX = frozenset("0123456789abcdef")


def is_answer_map(value: Any) -> bool:
    """True for ``{interrupt_id: answer}``: a dict whose keys all look like interrupt
    ids (32 hex digits), as LangGraph tells them apart; any other dict is one answer.
    An empty dict is a map that answers nothing (the interrupts ask again), as in LangGraph.

    >>> is_answer_map({"0f" * 16: "yes"}), is_answer_map({"ok": True}), is_answer_map({})
    (True, False, True)
    """
    return isinstance(value, dict) and all(
        isinstance(k, str) and len(k) == 32 and set(k) <= _HEX for k in value
    )


class Resume:
    """The answers a run was resumed with: ``Command(resume=value)`` (one answer,
    taken by the first ``interrupt()`` that needs one) or ``{interrupt_id: value}``."""

    __slots__ = ("_lock", "_mapped", "_value", "by_id")

    def __init__(self, value: Any = NO_ANSWER) -> None:
        self._lock = threading.Lock()
        is_map = is_answer_map(value)
        self.by_id: dict[str, Any] = dict(value) if is_map else {}
        self._value = NO_ANSWER if is_map else value
        self._mapped: set[tuple[str, ...]] = set()  # the tasks a map answered, by namespace

    def take(self, namespace: tuple[str, ...], index: int) -> Any:
        """The answer for the task's interrupt that would be its answer ``index`` (it has
        ``index`` answers already), or the single answer if still unused. As in
        LangGraph, a map answers one interrupt per task and run: its own id's answer, else
        the task's first interrupt id's (LangGraph reads that id so for the ids its older
        versions gave all of a task's interrupts)."""
        if self.by_id and namespace not in self._mapped:
            for key in (interrupt_id(namespace, index), interrupt_id(namespace, 0)):
                if key in self.by_id:
                    self._mapped.add(namespace)
                    return self.by_id[key]
        with self._lock:
            value, self._value = self._value, NO_ANSWER
        return value

    def expire(self) -> None:
        """The step this run resumed is over: as in LangGraph, the single answer (a saved
        "null" resume write) answers no later ``interrupt()``; a map stays."""
        self._value = NO_ANSWER


def interrupt(value: Any, *, response_schema: Any = None) -> Any:
    """Pause the run and show ``value`` to a human; return their answer on resume.

    The first time, this raises ``GraphInterrupt``: the run stops (the step's other writes
    are saved) until ``invoke(Command(resume=answer), config)``; then the node runs again
    from its start and this call returns ``answer``. Several calls are answered in order.
    Without a checkpointer the run stops and returns the interrupt, with a warning.

    ``response_schema``, as in LangGraph: a dict (JSON Schema) is shown with the interrupt
    as it is; a type (pydantic model, dataclass, ``TypedDict``, ``int``...) is shown as
    its JSON Schema, and the answer is validated against it (and returned validated). An
    answer that does not fit raises pydantic's ``ValidationError`` (``is_invalid_resume``
    says so) and fails the task, so the interrupt still waits to be answered again.
    """
    scope = _scope.get()
    if scope is None:
        raise diagnose.interrupt_outside_node()
    adapter = answer_adapter(response_schema)
    if scope.run.resume is None:  # no thread here nor above: nothing can answer
        warn(diagnose.interrupt_without_checkpointer(scope.task.node, scope.task.step))
    index = scope.interrupts_seen
    scope.interrupts_seen += 1
    if index < len(scope.answers):
        return _fitting(adapter, scope.answers[index], scope, value)
    # The id names the answer slot this call would fill (the task's answers so far), not
    # the call's number, as LangGraph keys it: calls made at once (a ToolNode's tools)
    # are numbered in no stable order, and all of them wait for the same next answer.
    namespace, slot = scope.namespace, len(scope.answers)
    answer = scope.run.resume.take(namespace, slot) if scope.run.resume is not None else NO_ANSWER
    if answer is not NO_ANSWER:
        fitting = _fitting(adapter, answer, scope, value)
        scope.answers.append(answer)  # (kept as given: it is checked again on a rerun)
        return fitting
    shown = adapter.json_schema() if adapter is not None else response_schema
    asked = Interrupt(value=value, id=interrupt_id(namespace, slot), response_schema=shown)
    raise GraphInterrupt((asked,))


def answer_adapter(response_schema: Any) -> Any:
    """A pydantic ``TypeAdapter`` checking answers against ``response_schema``; None when
    there is nothing to check (no schema, or a JSON Schema dict, shown as it is)."""
    if response_schema is None or isinstance(response_schema, dict):
        return None
    feature = "interrupt(response_schema=...) with a type"
    pydantic = require("pydantic", extra="agents", feature=feature)
    return pydantic.TypeAdapter(response_schema)


def _fitting(adapter: Any, answer: Any, scope: TaskScope, value: Any) -> Any:
    """``answer`` validated by ``adapter`` (as it is without one)."""
    if adapter is None:
        return answer
    from pydantic import ValidationError

    try:
        return adapter.validate_python(answer)
    except ValidationError as error:
        mark_invalid_resume(error)
        error.add_note(diagnose.answer_does_not_fit(scope.task.node, scope.task.step, value))
        raise
