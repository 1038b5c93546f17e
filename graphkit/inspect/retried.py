"""The attempts a retry policy made a task run before its last one.

A node with a ``RetryPolicy`` that raised a retryable error (a rate limit, a dropped
connection) runs again from its start, so what it did before it raised (a message sent,
a row written) is done once per attempt, while only the last attempt's writes reach the
state. The records keep each failed attempt's error (``TaskResult.failed_attempts``);
without these words a run that succeeded on its third try read like any other, in
``print(run)``, on its card and in ``why``. A thread read from LangGraph's saver keeps
no retries, nor how many attempts a task took (``attempts`` is None), but the error of a
run that failed, after which ``invoke(None, config)`` ran the task again: its one failed
attempt is that error, said as an earlier run's, never counted.
"""

from __future__ import annotations

from itertools import groupby
from typing import TYPE_CHECKING

from graphkit.inspect.values import show_error

if TYPE_CHECKING:
    from graphkit.pregel.records import TaskResult

__all__ = ["retried_errors", "retried_reason_text", "retried_text"]


def retried_errors(result: TaskResult) -> str:
    """The failed attempts' errors, each once, with how often it was raised in a row
    (``RateLimitError: 429 ×2``); empty when the task ran once.

    >>> from graphkit.pregel.records import Task, TaskResult
    >>> task = Task("t1", 1, "n", "pull", ("n",), ("branch:to:n",), {})
    >>> failed = (ConnectionError("down"), ConnectionError("down"), TimeoutError("slow"))
    >>> retried_errors(TaskResult(task, (), attempts=4, failed_attempts=failed))
    'ConnectionError: down ×2, TimeoutError: slow'
    """
    texts = [show_error(error) for error in result.failed_attempts]
    runs = [(text, len(list(same))) for text, same in groupby(texts)]
    return ", ".join(f"{text} ×{times}" if times > 1 else text for text, times in runs)


def retried_text(result: TaskResult) -> str | None:
    """``on attempt 3, after RateLimitError: 429 ×2 (each attempt ran the node from its
    start)``, or None for a task that ran once.

    >>> from graphkit.pregel.records import Task, TaskResult
    >>> task = Task("t1", 1, "n", "pull", ("n",), ("branch:to:n",), {})
    >>> print(retried_text(TaskResult(task, (), attempts=2, failed_attempts=(OSError("x"),))))
    on attempt 2, after OSError: x (each attempt ran the node from its start)
    """
    if not result.failed_attempts:
        return None
    if result.attempts is None:  # (read from LangGraph: a failed run's saved error)
        return (
            f"an earlier run raised {retried_errors(result)}; resumed, it ran again from its start"
        )
    attempt = len(result.failed_attempts) + 1
    return (
        f"on attempt {attempt}, after {retried_errors(result)} "
        "(each attempt ran the node from its start)"
    )


def retried_reason_text(result: TaskResult) -> str | None:
    """What ``why`` says of a retried task: how often it ran, why, and what that means
    for anything it did before it raised."""
    if not result.failed_attempts:
        return None
    node, times = result.task.node, len(result.failed_attempts) + 1
    ended = "raised again" if result.error is not None else "finished"
    if result.attempts is None:  # (read from LangGraph, which saves no retries)
        return (
            f"{node} ran again in step {result.task.step}: an earlier run raised "
            f"{retried_errors(result)} in it (LangGraph saved that error), and the thread, "
            f"resumed (invoke(None, config)), ran {node} again from its start, and it {ended}. "
            f"Whatever it did before it raised (a message sent, a row written, a model "
            f"called) was done again; only the last attempt's writes count."
        )
    return (
        f"{node} ran {times} times in step {result.task.step}: its retry policy ran it "
        f"again from its start after {retried_errors(result)}, and attempt {times} {ended}. "
        f"Whatever it did before it raised (a message sent, a row written, a model "
        f"called) was done once per attempt; only the last attempt's writes count."
    )
