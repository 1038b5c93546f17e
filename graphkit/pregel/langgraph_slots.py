"""LangGraph's own run-context functions called inside a graphkit task (an import left as
it was, e.g. ``from langgraph.config import get_store``).

Those functions read what they need from the current langchain-core config, under keys
of its ``configurable``. LangGraph's ``get_store()``, ``get_stream_writer()`` and
``langgraph.runtime.get_runtime()`` read the runtime, and graphkit's ``Runtime`` has the
fields they read, so it is found there (made when asked for) and they work.
``interrupt()`` and calling a LangGraph ``@task`` need LangGraph's own machinery (its
scratchpad, its task calls): under those keys stands a ``LangGraphsOnly``, which refuses
at its first use, naming the function and graphkit's import. Only a program that
imported ``langgraph`` gets these keys; they are in the config langchain-core
keeps, not in the node's ``config``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphkit.pregel.task_scope import TaskScope

__all__ = ["LangGraphsOnly", "with_langgraph_slots"]

RUNTIME, SCRATCHPAD, CALL = "__pregel_runtime", "__pregel_scratchpad", "__pregel_call"

_USES = {
    SCRATCHPAD: ("interrupt() from langgraph.types", "from graphkit import interrupt"),
    CALL: ("A LangGraph @task (langgraph.func)", "from graphkit.func import task"),
}


class LangGraphsOnly:
    """Stands where LangGraph's runtime keeps its ``key`` entry; any use is refused.

    >>> LangGraphsOnly(SCRATCHPAD, "ask").interrupt_counter()
    Traceback (most recent call last):
    TypeError: interrupt() from langgraph.types, called in node 'ask', needs LangGraph's runtime. Import graphkit's: from graphkit import interrupt.
    """  # noqa: E501

    __slots__ = ("key", "node")

    def __init__(self, key: str, node: str) -> None:
        self.key, self.node = key, node

    def __getattr__(self, name: str) -> Any:
        raise self._refusal()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise self._refusal()

    def _refusal(self) -> TypeError:
        used, fix = _USES[self.key]
        return TypeError(
            f"{used}, called in node {self.node!r}, needs LangGraph's runtime. "
            f"Import graphkit's: {fix}."
        )

    def __repr__(self) -> str:
        return f"LangGraphsOnly({self.key!r}, node={self.node!r})"


def with_langgraph_slots(config: dict[str, Any], scope: TaskScope) -> dict[str, Any]:
    """``config`` with the entries LangGraph's functions read: the runtime of the task
    ``scope`` runs and a ``LangGraphsOnly`` for each entry graphkit has no counterpart of."""
    configurable = _Configurable(config.get("configurable") or {})
    configurable.scope = scope
    return {**config, "configurable": configurable}


_SLOTS = frozenset((RUNTIME, *_USES))


class _Configurable(dict):  # type: ignore[type-arg]
    """A task's ``configurable`` whose LangGraph entries are made when read: every task
    of a program that imported ``langgraph`` gets one, and few ever read them (a
    runtime made for each would also be timed, kept, and carried to a process pool's
    workers)."""

    __slots__ = ("scope",)
    scope: TaskScope

    def __missing__(self, key: str) -> Any:
        if key == RUNTIME:
            from graphkit.pregel.runtime import _task_runtime

            return _task_runtime(self.scope)
        if key in _USES:
            return LangGraphsOnly(key, self.scope.task.node)
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        return key in _SLOTS or dict.__contains__(self, key)

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        return self[key] if key in self else default  # noqa: SIM401 (that is this method)
