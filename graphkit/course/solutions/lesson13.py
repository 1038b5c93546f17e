"""Solutions to lesson 13 · The functional API: ``@entrypoint`` and ``@task``.

>>> from graphkit.course import lesson13
>>> bool(lesson13.check_budget(spend)), bool(lesson13.check_reruns(**RERUN_ANSWERS))
(True, True)
"""

from __future__ import annotations

from graphkit import InMemorySaver
from graphkit.course.lesson13 import lookup
from graphkit.func import entrypoint

__all__ = ["RERUN_ANSWERS", "forecast", "spend"]


@entrypoint()
def forecast(cities: list[str]) -> dict[str, str]:
    """13.1: start every call first (each returns a future at once), then read them."""
    futures = {city: lookup(city) for city in cities}
    return {city: future.result() for city, future in futures.items()}


@entrypoint(checkpointer=InMemorySaver())
def spend(amount: int, previous: int | None = None) -> entrypoint.final[int, int]:
    """13.2: return what is left, save the total spent (the next call's ``previous``)."""
    total = (previous or 0) + amount
    return entrypoint.final(value=100 - total, save=total)


RERUN_ANSWERS = {"body_runs": 2, "reran": {"ask_approval", "book"}}
"""13.3: the body runs up to the pause and again on resume; the searches had finished
(their saved results are returned), ask_approval had paused (it runs again from its
start), and book runs for the first time."""
