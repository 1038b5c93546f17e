"""A task whose writes the node cache served: it did not run, and what the cache's key
leaves out.

A node with a ``CachePolicy``, in a graph compiled with a cache, is served the writes a
task of it with the same key saved before, in this run or another, and does not run.
The key is made from the node's input alone, so a pricing node that read the
customer's tier from the run's context served one customer's price to another;
``print(run)`` said "from the cache" while ``why`` said the node ran. graphkit's records
say which task the cache served (``TaskResult.cached``); a thread read from LangGraph's
saver does not, so with the graph ``why`` says it may have (only of a task that
finished: the cache holds no error and no interrupt).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from graphkit.inspect.explanation import Reason

if TYPE_CHECKING:
    from graphkit.inspect.wiring import Wiring
    from graphkit.pregel.records import TaskResult

__all__ = ["MAYBE", "cached_reason", "maybe_cached", "maybe_cached_reason"]

MAYBE = "; or the node cache served its writes: LangGraph does not save which"
"""What ends the summary of a node ``maybe_cached`` says may have been served."""


def maybe_cached(node: str, results: Iterable[TaskResult], wiring: Wiring) -> bool:
    """Whether ``node``'s tasks among a step's ``results`` may have been served by the
    cache, unsaid: a thread read from LangGraph's saver (its attempts, not saved either,
    are None), a node the graph caches, and a task that finished (one that raised, asked
    in ``interrupt()`` or was answered ran)."""
    mine = [r for r in results if r.task.node == node]
    finished = [
        r for r in mine if r.error is None and not r.interrupts and not r.paused and not r.answers
    ]
    unsaved = bool(mine) and all(r.attempts is None for r in mine)
    return unsaved and bool(finished) and wiring.cacheable(node)


def cached_reason(node: str, n: int, count: int, wiring: Wiring) -> Reason:
    """The node's writes came from the node cache: which key served them, and what the
    key leaves out (a pricing node reading the run's context served one customer's price
    to another)."""
    tasks = f" ({count} tasks)" if count > 1 else ""
    text = (
        f"Step {n} applied writes the node cache held for {node}{tasks} (its CachePolicy), "
        f"saved when a task of {node} with the same key ran before, in this run or another: "
        f"{node} did not run. {_cache_key(node, wiring)}"
    )
    return Reason("cached", text, n, None, (node,))


def maybe_cached_reason(node: str, n: int, wiring: Wiring) -> Reason:
    """A thread LangGraph saved: the node may have been served from the cache."""
    text = (
        f"{node} has a CachePolicy and the graph a node cache, and LangGraph does not save "
        f"whether a task's writes came from the cache: at step {n} they may be writes "
        f"cached when a task of {node} with the same key ran before, in this thread or "
        f"another, and {node} may not have run. {_cache_key(node, wiring)}"
    )
    return Reason("cached", text, n, None, (node,))


def _cache_key(node: str, wiring: Wiring) -> str:
    """What a node cache's key leaves out."""
    context = wiring.context_schema
    named = f"{getattr(context, '__name__', context)} " if context is not None else ""
    return (
        f"The key is made from {node}'s input alone (the policy's key_func, by default the "
        f"whole input): what else it reads (the run's {named}context, its config, the "
        "store) is not part of it, so a run that differs only there is served the writes "
        "cached first. Put what its answer depends on in the state (and the key_func), or "
        "give the policy a shorter ttl."
    )
