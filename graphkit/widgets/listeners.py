"""Tell whoever shows a session that it changed, whoever changed it.

A ``Debugger`` shown early in a notebook must not say "not started" while later cells
drive its session (``debugger.session.step()``): the session calls its listeners after
every method that changes what a view shows, once per outermost call (``run`` steps
many times but tells once), and the widget refreshes itself.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["Notifier", "notifies"]

F = TypeVar("F", bound=Callable[..., Any])


class Notifier:
    """Keeps listeners and calls each after a ``@notifies`` method returns.

    >>> class Counter(Notifier):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.n = 0
    ...     @notifies
    ...     def add(self):
    ...         self.n += 1
    >>> counter, seen = Counter(), []
    >>> counter.subscribe(lambda: seen.append(counter.n))
    >>> counter.add(); counter.add(); seen
    [1, 2]
    """

    def __init__(self) -> None:
        self._listeners: list[Callable[[], Any]] = []
        self._depth = 0

    def subscribe(self, listener: Callable[[], Any]) -> None:
        """Call ``listener()`` after every change (a widget's ``refresh``)."""
        if listener not in self._listeners:
            self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[], Any]) -> None:
        """Stop calling ``listener``; one that was never subscribed is ignored."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _notify(self) -> None:
        for listener in list(self._listeners):
            listener()


def notifies(method: F) -> F:
    """Call the listeners after ``method``, also when it raised, but only once for
    nested calls (``run`` calls ``plan``, ``predict`` calls ``update``)."""

    @functools.wraps(method)
    def wrapper(self: Notifier, *args: Any, **kwargs: Any) -> Any:
        self._depth += 1
        try:
            return method(self, *args, **kwargs)
        finally:
            self._depth -= 1
            if self._depth == 0:
                self._notify()

    return wrapper  # type: ignore[return-value]
