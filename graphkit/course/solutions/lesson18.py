"""Solutions to lesson 18 · Async nodes and what runs at the same time.

>>> from graphkit.course import lesson18
>>> bool(lesson18.check_in_order(report)), bool(lesson18.check_limit(config_for))
(True, True)
"""

from __future__ import annotations

import asyncio

from graphkit.course.lesson18 import Job, Trip, fetch_report, slow_forecast

__all__ = ["config_for", "forecast", "report"]


async def forecast(state: Trip) -> dict:
    """18.1: the blocking call runs in a worker thread; the node awaits it, so the event
    loop runs the step's other tasks meanwhile."""
    return {"weather": await asyncio.to_thread(slow_forecast, state["city"])}


async def report(job: Job) -> dict:
    """18.2: each task returns its own report as an update; the Update adds them in task
    order (the order of the Sends), whatever order the calls finish in."""
    return {"reports": [await fetch_report(job["city"])]}


def config_for(capacity: int) -> dict:
    """18.3: at most ``capacity`` of a step's tasks run at once."""
    return {"max_concurrency": capacity}
