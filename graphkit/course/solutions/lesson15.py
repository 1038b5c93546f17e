"""Solutions to lesson 15 · What a node knows: config, context, remaining steps and the
node cache.

>>> from graphkit.course import lesson15
>>> bool(lesson15.check_stop_in_time(route)), bool(lesson15.check_cache_key(request_key))
(True, True)
"""

from __future__ import annotations

from graphkit.course.lesson15 import Reading, Request, Search, Units
from graphkit.runtime import Runtime

__all__ = ["describe", "request_key", "route"]


def describe(state: Reading, runtime: Runtime[Units]) -> dict:
    """15.1: the units are the run's setting, read from its context, not from the state."""
    celsius = state["celsius"]
    if runtime.context.units == "imperial":
        return {"report": f"{state['city']}: {celsius * 9 / 5 + 32:.1f} °F"}
    return {"report": f"{state['city']}: {celsius:.1f} °C"}


def route(state: Search) -> str:
    """15.2: in the step it is read in, remaining_steps counts that step too; conclude needs
    the next one, so the loop stops when only two are left (this one and conclude's)."""
    return "conclude" if state["remaining_steps"] <= 2 else "narrow"


def request_key(state: Request) -> str:
    """15.3: the translation depends on the text and the language, not on the request id."""
    return f"{state['language']}:{state['text']}"
