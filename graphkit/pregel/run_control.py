"""``RunControl``: how a run is asked to stop at its next superstep boundary (LangGraph
1.2's cooperative drain); the stepper reads it after each Plan."""

from __future__ import annotations

__all__ = ["RunControl"]


class RunControl:
    """Asks a run to stop at its next superstep boundary (LangGraph 1.2's cooperative
    drain): once ``request_drain()`` is called, from a node (``runtime.control``) or from
    any thread, the run plans its next step, saves where it is and raises
    ``GraphDrained`` instead of running it; ``invoke(None, config)`` goes on from there.

    >>> control = RunControl()
    >>> control.request_drain()
    >>> control.drain_requested, control.drain_reason
    (True, 'shutdown')
    """

    __slots__ = ("_reason",)

    def __init__(self) -> None:
        self._reason: str | None = None

    def __repr__(self) -> str:
        return f"RunControl(drain_reason={self._reason!r})"

    def request_drain(self, reason: str = "shutdown") -> None:
        # one attribute store: safe from any thread without a lock
        self._reason = reason

    @property
    def drain_requested(self) -> bool:
        """True once ``request_drain()`` was called."""
        return self._reason is not None

    @property
    def drain_reason(self) -> str | None:
        """What ``request_drain()`` was given; None before."""
        return self._reason
