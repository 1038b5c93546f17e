"""Checks for lesson 18 · Async nodes and what runs at the same time.

Each check runs the learner's answer with ``atrace`` (as ``ainvoke`` runs it, recorded, so
that a failure names its step and node) on the real runtime, with cities, orders and
limits of its own, and reads what happened from evidence that does not depend
on the machine's speed: on which thread a blocking call ran (18.1), the order the results
landed in while the check made the calls finish last-first (18.2), and how many calls a
service had in flight at once (18.3). A hard-coded answer cannot pass.

>>> from graphkit.course.solutions import lesson18 as solutions
>>> bool(check_no_stall(solutions.forecast))
True
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import concurrent.futures.thread
import functools
import inspect
import operator
import threading
import time
import traceback
from typing import Annotated, Any, TypedDict

from graphkit.course.answers import run_apart
from graphkit.course.checking import Wrong, exercise, failed_run

__all__ = [
    "Job",
    "Trip",
    "check_in_order",
    "check_limit",
    "check_no_stall",
    "fetch_report",
    "slow_forecast",
]


def _function(answer: Any, name: str) -> None:
    if type(answer).__module__.partition(".")[0] == "langgraph":
        raise Wrong(
            f"{name} comes from LangGraph: the checks read what graphkit runs.",
            "Import from graphkit with the same names.",
        )
    if not callable(answer):
        raise Wrong(f"{name} is {answer!r}, not a function.", f"Write {name} with def.")


def _on_a_loop() -> bool:
    """Whether this thread is running an event loop (as an ``async def`` node's code is)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


# -- 18.1 · a blocking client call that stalls nobody ------------------------------------

_SKIES = ("sunny", "cloudy", "rainy", "windy", "foggy")
_blocked: list[str] = []  # the cities slow_forecast was called for on a loop's thread
_held: list[str] = []  # ... called for in another thread while the check's loop stood still
_check_loop: list[asyncio.AbstractEventLoop] = []  # the loop running the check's graph
_handed: list[str] = []  # the strs handed to the check's loop's threads to be called


class _Threads(concurrent.futures.ThreadPoolExecutor):
    """The check's loop's threads (``to_thread``'s and ``run_in_executor(None, ...)``'s),
    noting a str they are handed to call: what a verdict names, it has seen."""

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        # to_thread hands on partial(context.run, its function, ...); run_in_executor the
        # function itself.
        called = fn.args[0] if isinstance(fn, functools.partial) and fn.args else fn
        if isinstance(called, str):
            _handed.append(called)
        return super().submit(fn, *args, **kwargs)


LOOP_ANSWERS = 5.0
"""Seconds ``slow_forecast``, called off the check's loop, waits for that loop to run a
callback before it counts the loop as held. A free loop runs it at once, however
loaded the machine: only a node that holds the loop (``.result()``, ``join()``) makes
the call wait this long, and fail."""


def slow_forecast(city: str) -> str:
    """A sync client's call to a slow weather service: it blocks the thread that calls it
    until the service answers (here, a moment)."""
    _a_city("slow_forecast", city)
    if _on_a_loop():
        _blocked.append(city)
    elif _check_loop:
        # The service answers once the check's loop has run a callback: evidence that
        # the loop was free while this call waited, whatever the machine's speed.
        answered = threading.Event()
        _check_loop[0].call_soon_threadsafe(answered.set)
        if not answered.wait(LOOP_ANSWERS):
            _held.append(city)
        return _sky(city)
    time.sleep(0.05)
    return _sky(city)


def _a_city(service: str, city: Any) -> None:
    """A service is called with a city's name: anything else is named, not left to fail
    deep inside the check's service."""
    if not isinstance(city, str):
        raise TypeError(
            f"{service} takes the city, a str; it was given a {type(city).__name__}: {city!r}"
        )


def _sky(city: str) -> str:
    return f"{city}: {_SKIES[sum(map(ord, city)) % len(_SKIES)]}"


class Trip(TypedDict, total=False):
    city: str
    weather: str
    heard: Annotated[list, operator.add]


def _forecast_graph(forecast: Any) -> Any:
    """START → forecast (the learner's) and heartbeat, side by side in step 1."""
    from graphkit import START, StateGraph

    async def heartbeat(state: Trip) -> dict:
        await asyncio.sleep(0)
        return {"heard": ["heartbeat"]}

    builder = StateGraph(Trip)
    builder.add_node("forecast", forecast)
    builder.add_node("heartbeat", heartbeat)
    builder.add_edge(START, "forecast")
    builder.add_edge(START, "heartbeat")
    return builder.compile()


@exercise("18.1 · Wait without stalling the step")
def check_no_stall(forecast: Any) -> str:
    """``forecast(state)`` writes ``slow_forecast(state["city"])`` to ``weather`` and never
    holds the event loop while the service answers. Tried on cities of the check's own."""
    _function(forecast, "forecast")
    app = _forecast_graph(forecast)
    for city in ("Quito", "Perth", "Bergen"):
        _blocked.clear()
        _held.clear()
        _handed.clear()

        async def forecast_for(city: str = city) -> Any:
            _check_loop.append(asyncio.get_running_loop())
            asyncio.get_running_loop().set_default_executor(_Threads())
            try:
                return (await app.atrace({"city": city})).values
            finally:
                _check_loop.clear()

        try:
            out = run_apart(forecast_for)
        except Exception as error:
            if _blocked and _thread_called_a_str(error):
                raise _called_first(city, error) from error
            if _blocked and "can't be used in 'await' expression" in str(error):
                raise Wrong(
                    f"For {city!r} your node called slow_forecast on the event loop's own "
                    f"thread, then awaited its answer, a str: TypeError: {error}. A plain "
                    "function's call blocks there; an await after it comes too late.",
                    "Hand the function and its argument to asyncio.to_thread, and await that.",
                ) from error
            wrong = failed_run(app, error)
            if "'coroutine' object has no attribute 'result'" in str(error):
                wrong.hint = (
                    "What asyncio.to_thread hands back is a coroutine: await it to get its "
                    "result (.result() is for a @task's future, lesson 13)."
                )
            raise wrong from error
        got, expected = out.get("weather"), _sky(city)
        if inspect.isawaitable(got):
            raise Wrong(
                f"For {city!r} forecast wrote a {type(got).__name__} object to weather, not "
                "the forecast: the call was started but never waited for.",
                "What asyncio hands back must be awaited to give its result.",
            )
        if _blocked:
            raise Wrong(
                f"For {city!r} your node called slow_forecast on the event loop's own "
                "thread: while the service took its time, heartbeat and every other task "
                "of step 1 on that loop stood still.",
                "A blocking call must not run on the loop: hand it to a thread of its own, "
                "and await that.",
            )
        if _held:
            raise Wrong(
                f"For {city!r} slow_forecast ran in another thread, but your node waited "
                "for it without an await: the event loop's thread stood still until the "
                "service answered, and heartbeat with it.",
                "Waiting for a thread with .result() or join() holds the loop as the call "
                "itself would. Await the thread's work instead.",
            )
        if got is None:
            raise Wrong(
                f"For {city!r} forecast wrote nothing to weather.",
                "A node changes the state through the dict it returns: {'weather': the "
                "service's answer}.",
            )
        if got != expected:
            raise Wrong(
                f"For {city!r} forecast wrote weather = {got!r}; expected {expected!r}, the "
                "service's answer.",
                "Write to weather what slow_forecast returns for the state's city.",
            )
    return (
        "slow_forecast ran off the event loop: while it waited for the service, the "
        "loop was free for heartbeat and any other task of the step."
    )


def _thread_called_a_str(error: Exception) -> bool:
    """Whether ``error`` is a thread pool's worker calling a str it was handed (the
    innermost frame is the worker's, not the node's: a node calling a str raises the same)."""
    trace = traceback.extract_tb(error.__traceback__)
    return (
        isinstance(error, TypeError)
        and str(error) == "'str' object is not callable"
        and bool(trace)
        and trace[-1].filename == concurrent.futures.thread.__file__
    )


def _called_first(city: str, error: TypeError) -> Wrong:
    """``to_thread(slow_forecast(city))``: the call made on the loop, a str passed on (its
    answer, or what else the check's threads were handed)."""
    handed = {_sky(city): "its answer, a str,", city: f"{city!r}, the city,"}
    what = next((handed.get(given, f"a str, {given!r},") for given in _handed), "a str")
    return Wrong(
        f"For {city!r} your node called slow_forecast({city!r}) itself, on the event "
        f"loop's thread, then handed {what} to be run in a thread: "
        f"TypeError: {error}. The blocking call was over before any thread was asked.",
        "Hand asyncio.to_thread the function and its argument, and do not call it "
        "yourself: to_thread(f, x) calls f(x) in a thread of its own.",
    )


# -- 18.2 · results in a fixed order, whoever finishes first ------------------------------


class Job(TypedDict, total=False):
    city: str


class _Service:
    """A report service whose calls finish last-first: each call waits until the call
    for the next city has finished (the last city's finishes at once)."""

    def __init__(self, cities: list[str]) -> None:
        self.loop = asyncio.get_running_loop()  # (the run's: made by the check's coroutine)
        self.cities = cities
        self.done = {city: asyncio.Event() for city in cities}
        self.finished: list[str] = []

    async def report(self, city: str) -> str:
        _a_city("fetch_report", city)
        if asyncio.get_running_loop() is not self.loop:  # (its events would never wake it)
            raise _OwnLoop("fetch_report was awaited on an event loop of its own")
        if city not in self.done:
            return f"{city}: no report"
        index = self.cities.index(city)
        if index + 1 < len(self.cities):
            await self.done[self.cities[index + 1]].wait()
        self.finished.append(city)
        self.done[city].set()
        return _report_text(city)


class _OwnLoop(RuntimeError):
    """``fetch_report`` awaited on a loop other than the run's (``asyncio.run`` in a plain
    ``def`` node): the check's service, made on the run's loop, cannot answer there."""


def _report_text(city: str) -> str:
    return f"{city}: {len(city) * 3} mm of rain"


_service: _Service | None = None  # the check's, while it runs one


async def fetch_report(city: str) -> str:
    """The (async) report service: ``await fetch_report("Lima")``."""
    _a_city("fetch_report", city)
    if _service is not None:
        return await _service.report(city)
    await asyncio.sleep(0)
    return _report_text(city)


class Digest(TypedDict, total=False):
    cities: list
    reports: Annotated[list, operator.add]


def _digest_graph(report: Any) -> Any:
    """START sends one ``Job`` per city to ``report`` (the learner's)."""
    from graphkit import START, Send, StateGraph

    builder = StateGraph(Digest)
    builder.add_node("report", report)
    builder.add_conditional_edges(
        START, lambda state: [Send("report", {"city": c}) for c in state["cities"]], ["report"]
    )
    return builder.compile()


@exercise("18.2 · Reports in the order asked")
def check_in_order(report: Any) -> str:
    """``report(job)`` fetches the job's city's report and adds it to ``reports``: in the
    order the cities were sent, however the calls finish. Tried with the check's cities."""
    global _service
    _function(report, "report")
    app = _digest_graph(report)
    for cities in (["Lima", "Oslo", "Cairo"], ["Perth", "Bergen", "Quito", "Accra"]):
        for run in (1, 2):  # (twice: an answer that keeps something between runs shows)

            async def digest(cities: list[str] = cities) -> Any:
                global _service
                _service = _Service(cities)
                return (await app.atrace({"cities": cities})).values, _service.finished

            try:
                out, finished = run_apart(digest)
            except _OwnLoop as error:
                raise Wrong(
                    f"Sent {cities}: your node ran fetch_report on an event loop of its own "
                    "(asyncio.run in a plain def node, which runs in a worker thread), not "
                    "on the run's loop beside the other tasks of its step.",
                    "Make report an async def and await fetch_report(...): the runtime runs "
                    "it on the run's own loop.",
                ) from error
            except Exception as error:
                wrong = failed_run(app, error)
                if "its reducer add raised" in wrong.message:
                    wrong.hint = (
                        "operator.add joins two lists: what a node writes to reports must "
                        "be a list too (lesson 03)."
                    )
                raise wrong from error
            finally:
                _service = None
            got, expected = out.get("reports"), [_report_text(c) for c in cities]
            if any(inspect.iscoroutine(item) for item in got or ()):
                raise Wrong(
                    f"Sent {cities}: reports ended as {got!r}, coroutine objects, not "
                    "reports: each call of fetch_report was made but never waited for.",
                    "fetch_report is async: what it hands back gives its result when awaited.",
                )
            if not got:
                raise Wrong(
                    f"Sent {cities} (run {run}); the calls finished as {finished}, and "
                    f"reports ended as {got!r}, not {expected!r}: your node wrote nothing "
                    "to reports.",
                    "Your node fetched the report and kept it: a node changes the state only "
                    "through the dict it returns, and yours holds nothing for reports.",
                )
            if got != expected and len(got) == len(cities) and set(got).isdisjoint(expected):
                raise Wrong(
                    f"Sent {cities} (run {run}); reports ended as {got!r}: in the right "
                    "order, but they are not what fetch_report returned, "
                    f"{expected!r}.",
                    "Write to reports what fetch_report returned for the job's city.",
                )
            if got != expected:
                raise Wrong(
                    f"Sent {cities} (run {run}); the calls finished as {finished}, and "
                    f"reports ended as {got!r}, not {expected!r}.",
                    "Who decides the order of a step's writes? Not the tasks, as they "
                    "finish: the Update applies what they wrote in task order, through the "
                    "channel's reducer. Leave the ordering to it, and keep nothing from an "
                    "earlier run.",
                )
    return (
        "The calls finished last-first, yet reports came out in the order the cities were "
        "sent: the Update applied the step's writes in task order."
    )


# -- 18.3 · a limit for a rate-limited service --------------------------------------------


class TooManyRequests(Exception):
    """The service's "429 Too Many Requests": more calls in flight than it allows."""


FULL_WAIT = 0.5
"""Seconds a full service (as many calls in flight as it allows) holds its calls before
it answers them: a run that starts more calls than allowed starts them in that time, and
is refused. A run that respects the limit loses this much per batch, nothing more."""

FILL_WAIT = 2.0
"""Seconds a call waits for the service to fill before the service answers anyway.
Only a run that starts fewer calls than allowed waits this long (once: after it, the
service stops holding calls); a run that fills it never does, however slow its start."""


class _Gate:
    """A service that allows ``capacity`` calls in flight at once. A call holds its slot
    until every call still to come is in flight too, or the service is full and no call
    came or went for ``FULL_WAIT`` (then every call in flight is answered), or the
    service did not fill in ``FILL_WAIT``. So a run that may start more calls than the
    service allows does, and one that may start as many as it allows fills it: the
    verdict follows from what the run starts, not from how fast the machine is."""

    def __init__(self, capacity: int, total: int) -> None:
        self.capacity, self.total = capacity, total
        self.now = self.peak = self.done = self.entered = 0
        self.answered_upto = 0  # calls that entered up to this one are answered
        self.stalled = False  # the service did not fill: it stops holding calls
        self.changed = asyncio.Condition()

    async def call(self, city: str) -> str:
        async with self.changed:
            if self.now >= self.capacity:
                raise TooManyRequests(
                    f"429 Too Many Requests: {self.now + 1} calls in flight, the service "
                    f"allows {self.capacity}"
                )
            self.now += 1
            self.entered += 1
            me = self.entered
            self.peak = max(self.peak, self.now)
            self.changed.notify_all()
            await self._hold(me)
            self.now -= 1
            self.done += 1
            self.changed.notify_all()
        return f"{city}: ok"

    async def _hold(self, me: int) -> None:
        """Wait (holding ``changed``) until call number ``me`` may be answered."""
        while self.now + self.done < self.total and me > self.answered_upto:
            full = self.now >= self.capacity
            if self.stalled and not full:
                return
            try:  # (every entry and exit wakes the waiters: each wait starts afresh)
                await asyncio.wait_for(self.changed.wait(), FULL_WAIT if full else FILL_WAIT)
            except TimeoutError:
                if full:
                    self.answered_upto = self.entered
                    self.changed.notify_all()
                else:
                    self.stalled = True
                return


class Calls(TypedDict, total=False):
    cities: list
    answers: Annotated[list, operator.add]


def _calls_graph(gate: _Gate) -> Any:
    from graphkit import START, Send, StateGraph

    async def call(job: Job) -> dict:
        return {"answers": [await gate.call(job["city"])]}

    builder = StateGraph(Calls)
    builder.add_node("call", call)
    builder.add_conditional_edges(
        START, lambda state: [Send("call", {"city": c}) for c in state["cities"]], ["call"]
    )
    return builder.compile()


@exercise("18.3 · Respect the service's limit")
def check_limit(config_for: Any) -> str:
    """``config_for(capacity)`` is the config that runs a fan-out of calls to a service
    allowing ``capacity`` calls at once: never more in flight, and no fewer than it
    allows. Tried with capacities of the check's own."""
    _function(config_for, "config_for")
    cities = ["Lima", "Oslo", "Cairo", "Perth", "Quito", "Accra", "Bergen"]
    for capacity in (3, 2, 4):
        config = config_for(capacity)
        if not isinstance(config, dict):
            raise Wrong(
                f"config_for({capacity}) returned {config!r}, not a dict.",
                "Return the config dict the run takes as its second argument.",
            )

        async def fan_out(capacity: int = capacity, config: dict = config) -> Any:
            gate = _Gate(capacity, len(cities))
            await _calls_graph(gate).atrace({"cities": cities}, config)
            return gate.peak

        try:
            peak = run_apart(fan_out)
        except TooManyRequests as error:
            hint = (
                "By default a step starts all its tasks at once; the run's config can "
                "cap how many of a step's tasks run at the same time."
            )
            if "max_concurrency" in (config.get("configurable") or {}):
                hint = (
                    "max_concurrency is a key of the config itself, beside recursion_limit, "
                    "not inside configurable (which holds the thread and your own settings)."
                )
            elif isinstance(config.get("max_concurrency"), int):
                hint = (
                    "Your cap lets more calls run at once than the service allows: the cap "
                    "should follow the capacity given."
                )
            raise Wrong(
                f"With a service allowing {capacity} calls at once, and config_for"
                f"({capacity}) = {config!r}, the run failed: {error}.",
                hint,
            ) from error
        except Exception as error:
            hint = "Return a config dict with the setting that caps how many tasks run at once."
            if "max_concurrency" in config:
                hint = "Give max_concurrency a whole number: the capacity given."
            raise Wrong(
                f"With config_for({capacity}) = {config!r} the run raised "
                f"{type(error).__name__}: {error}",
                hint,
            ) from error
        if peak < capacity:
            raise Wrong(
                f"The service allows {capacity} calls at once, and with config_for"
                f"({capacity}) = {config!r} it never had more than {peak} in flight: the "
                "calls took turns they did not need to.",
                "Use what the service allows, not less: the cap should follow the capacity given.",
            )
    return (
        "Each run kept exactly as many calls in flight as the service allowed: the step's "
        "tasks waited for a free slot, and its Update still waited for all of them."
    )
