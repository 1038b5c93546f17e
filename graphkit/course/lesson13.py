"""Checks for lesson 13 · The functional API: ``@entrypoint`` and ``@task``.

Each check runs the learner's entrypoint on the real runtime, on data of its own, and
reads what happened: the records of the run (which task calls step 0 ran), the value
saved for the next run (``previous``), or a log the program's tasks keep. A hard-coded
answer cannot pass.

>>> from graphkit.course.solutions import lesson13 as solutions
>>> bool(check_together(solutions.forecast))
True
"""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import Future
from typing import Any

from graphkit.course.checking import Wrong, counted, exercise, trace
from graphkit.func import entrypoint, task
from graphkit.func.task import TaskFunction

__all__ = [
    "FORECASTS",
    "check_budget",
    "check_reruns",
    "check_together",
    "lookup",
    "trip_program",
]


# -- 13.1 · the weather service, and how the check sees calls running together -----------

FORECASTS = {"Oslo": "snow", "Lima": "fog", "Rome": "sun", "Cairo": "heat", "Quito": "rain"}

WAIT = 2.0
"""How long a call waits for the run's other calls to be made, during a check: calls made
together never wait that long (the last one made lets all go); a call made alone waits it
out once, and the check says so."""


class _Meeting:
    """During a check, every ``lookup`` call of one run meets here: each call's code waits
    until all ``expected`` calls have been *made* (counted in the caller's thread, as
    ``lookup(city)`` returns its future). Calls made before any result is read go on at
    once, however late their worker threads start; a call whose result was read before
    the next call was made waits ``WAIT`` seconds in vain, and is noted as alone (the
    calls after it do not wait)."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.made = 0
        self.alone: dict[str, int] = {}  # city → how many calls had been made by then
        self.lock = threading.Lock()
        self.everyone = threading.Event()

    def made_one(self) -> None:
        with self.lock:
            self.made += 1
            if self.made >= self.expected:
                self.everyone.set()

    def arrive(self, city: str) -> None:
        with self.lock:
            if self.alone:  # (one wait is enough to know: do not slow the check further)
                return
        if not self.everyone.wait(WAIT):
            with self.lock:
                self.alone[city] = self.made


_meeting: _Meeting | None = None


class _Service(TaskFunction):
    """``lookup``: a task whose calls, during a check, are counted as they are made."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        meeting = _meeting
        if meeting is not None:
            meeting.made_one()
        return super().__call__(*args, **kwargs)


def _lookup(city: str) -> str:
    """The weather service: imagine a slow web request. Returns ``"<weather> in <city>"``."""
    meeting = _meeting
    if meeting is not None:
        meeting.arrive(city)
    return f"{FORECASTS.get(city, 'clouds')} in {city}"


lookup = _Service(_lookup, name="lookup")


def _entrypoint(answer: Any, name: str) -> Any:
    """The learner's entrypoint, or ``Wrong`` saying what it is instead."""
    if type(answer).__module__.partition(".")[0] == "langgraph":
        raise Wrong(
            f"{name} is LangGraph's entrypoint: the checks read the records graphkit "
            "makes of a run.",
            "Import from graphkit with the same names: from graphkit.func import entrypoint, task.",
        )
    if isinstance(answer, entrypoint):  # (@entrypoint with no parentheses)
        raise Wrong(
            f"{name} is the decorator entrypoint itself, not a graph: written without its "
            "parentheses, @entrypoint took your function as its checkpointer.",
            f"Write @entrypoint() on the line above def {name}(...), with the parentheses.",
        )
    if not (hasattr(answer, "trace") and hasattr(answer, "invoke")):
        raise Wrong(
            f"{name} is a {type(answer).__name__}, not an entrypoint: its task calls need "
            "a running entrypoint around them.",
            f"Put @entrypoint() on the line above def {name}(...).",
        )
    if isinstance(answer.checkpointer, type):
        saver = answer.checkpointer.__name__
        raise Wrong(
            f"{name}'s checkpointer is the class {saver}, not a saver: a class cannot "
            "keep checkpoints.",
            f"Make one with parentheses: @entrypoint(checkpointer={saver}()).",
        )
    return answer


@exercise("13.1 · Start the calls together")
def check_together(forecast: Any) -> str:
    """``forecast(cities)`` must call ``lookup`` once per city, start every call before
    reading any result, and return ``{city: report}``. Tried on two lists of cities."""
    global _meeting
    app = _entrypoint(forecast, "forecast")
    for cities in (["Oslo", "Lima", "Rome"], ["Cairo", "Quito", "Oslo", "Perth"]):
        meeting = _meeting = _Meeting(len(cities))
        # (a checkpointer is no part of the exercise, but harmless: give it a thread)
        thread = {"configurable": {"thread_id": f"check-13.1-{next(_threads)}"}}
        try:
            run = trace(app, cities, thread if app.checkpointer is not None else None)
        finally:
            _meeting = None
        expected = {city: f"{FORECASTS.get(city, 'clouds')} in {city}" for city in cities}
        calls = [r for r in run.step(0).execution.results if r.task.node == "lookup"]
        got = run.values.get("__end__")
        if len(calls) != len(cities):
            raise Wrong(
                f"For {len(cities)} cities ({', '.join(cities)}), step 0 ran "
                f"{counted(len(calls), 'lookup call')}: each city's report must come from "
                "a call of the task lookup, which the records show as a task of kind call.",
                "Call lookup(city) for each city inside forecast: a call of a @task "
                "returns a future at once.",
            )
        if isinstance(got, dict) and any(isinstance(v, Future) for v in got.values()):
            raise Wrong(
                f"For {cities}, forecast returned {{city: future}}: its values are futures, "
                "the calls' promises, not the reports.",
                "Read each future with .result() once every call has been made, and put "
                "what it gives in the dict.",
            )
        if got != expected:
            raise Wrong(
                f"For {cities}, forecast returned {got!r}; expected {expected!r}.",
                "Return a dict with one entry per city: the city as the key, the value "
                "of its future (future.result()) as the value.",
            )
        if meeting.alone:
            city, started = next(iter(meeting.alone.items()))
            raise Wrong(
                f"lookup({city!r}) ran alone: it waited {WAIT:.0f} s for the other calls "
                f"of the run, and only {counted(started, 'call')} of "
                f"{len(cities)} had been made. Your forecast read a result (.result() waits "
                "for its call to finish) before it made the next call.",
                "A call starts its task and hands back a future at once; .result() waits "
                "for it. Make every call before you wait for any.",
            )
    return (
        "All the lookup calls of each run were running at once, in step 0, beside "
        "forecast: you started them all before reading any result."
    )


# -- 13.2 · a budget kept across invocations --------------------------------------------

BUDGET = 100


@exercise("13.2 · A budget across invocations")
def check_budget(spend: Any) -> str:
    """``spend(amount)``, with a checkpointer, returns what is left of a budget of 100
    after everything spent on its thread, and saves the total spent so far (what the next
    call gets as ``previous``). Tried on two threads at once."""
    app = _entrypoint(spend, "spend")
    if app.checkpointer is None:
        raise Wrong(
            "spend has no checkpointer, so nothing is kept between two invocations: "
            "previous is None every time.",
            "Give it one: @entrypoint(checkpointer=InMemorySaver()).",
        )
    tag = next(_threads)
    threads = {name: {"configurable": {"thread_id": f"check-13.2-{tag}-{name}"}} for name in "ab"}
    spent = {"a": 0, "b": 0}
    for name, amount in (("a", 30), ("b", 5), ("a", 50), ("b", 15), ("a", 40)):
        first, previous = spent[name] == 0, _previous_of(app, threads[name])
        spent[name] += amount
        where = f"thread {name}, spending {amount} after {spent[name] - amount}"
        try:
            run = trace(app, amount, threads[name])
        except Wrong as failed:  # (trace's, naming the step: its cause is the body's error)
            error = failed.__cause__
            if spent[name] > BUDGET and error is not None:
                raise Wrong(
                    f"On {where}, spend raised {type(error).__name__}: {error}, with "
                    f"{spent[name]} spent of {BUDGET}.",
                    f"A budget can be overspent: return {BUDGET} minus the total spent, "
                    "below 0 too, so the caller sees by how much.",
                ) from None
            if not (first and isinstance(error, TypeError) and "NoneType" in str(error)):
                raise
            raise Wrong(
                f"On a new thread ({where}) spend raised TypeError: {error}: on a thread's "
                "first call previous is None.",
                "Treat a previous of None as nothing spent yet.",
            ) from None
        got, saved = run.values.get("__end__"), _previous_of(app, threads[name])
        if got != BUDGET - spent[name] and first and got == BUDGET - sum(spent.values()):
            raise Wrong(
                f"On a new thread ({where}) spend returned {got!r}, not "
                f"{BUDGET - spent[name]}: it counted what thread a spent. A total kept "
                "outside spend (a global) is shared by every thread.",
                "Keep the total in what spend saves for the next call: previous belongs "
                "to the thread.",
            )
        if got != BUDGET - spent[name]:
            if got is None:
                raise Wrong(
                    f"On {where}, spend returned None: a function that ends without a "
                    "return statement returns None.",
                    f"Return what is left of the budget of {BUDGET}, and save the total spent "
                    "(entrypoint.final, section 4).",
                )
            if isinstance(got, dict) and {"value", "save"} <= set(got):
                raise Wrong(
                    f"On {where}, spend returned {got!r}, not {BUDGET - spent[name]}: a dict "
                    "is returned, and saved, as it is.",
                    "To return one value and save another, return "
                    "entrypoint.final(value=..., save=...).",
                )
            if first and got == amount:
                raise Wrong(
                    f"On a new thread ({where}) spend returned {got!r}, what was spent, "
                    f"not what is left, {BUDGET - spent[name]}.",
                    f"Return what is left of the budget of {BUDGET}, and save the total spent.",
                )
            if first:
                raise Wrong(
                    f"On a new thread ({where}) spend returned {got!r}, not "
                    f"{BUDGET - spent[name]}: on a thread's first call previous is None, "
                    "nothing spent before it.",
                    f"Return what is left after spending: {BUDGET} minus the total spent on "
                    "the thread, this amount included.",
                )
            if "runtime" not in next(iter(app.spec.nodes.values())).injected:
                raise Wrong(
                    f"On {where}, spend returned {got!r}, not {BUDGET - spent[name]}: spend "
                    "has no parameter named previous, so it never gets what the call before "
                    f"saved ({previous!r}).",
                    "The runtime hands the saved value to a parameter of that name only: "
                    "def spend(amount, previous=None).",
                )
            if got == 0 and BUDGET - spent[name] < 0:
                raise Wrong(
                    f"On {where}, spend returned 0, with {spent[name]} spent of {BUDGET}: "
                    f"what is left is {BUDGET - spent[name]}, an overspent budget.",
                    f"Return {BUDGET} minus the total spent, below 0 too: the caller needs to "
                    "see by how much the budget was overspent.",
                )
            raise Wrong(
                f"On {where}, spend returned {got!r}, not {BUDGET - spent[name]}. It got "
                f"previous = {previous!r}, what the call before saved for it.",
                "previous is what the last call on the thread saved; without "
                "entrypoint.final it saves what it returns. Return what is left, and save "
                "the total spent (section 4).",
            )
        if saved != spent[name]:
            raise Wrong(
                f"On {where}, spend returned the right {got}, but saved {saved!r} for the "
                f"next call (previous), not the total spent, {spent[name]}.",
                "What spend saves is what the next call gets as previous: save the total "
                "spent, and compute what is left from it. Without entrypoint.final an "
                "entrypoint saves what it returns; entrypoint.final returns one value and "
                "saves another (section 4).",
            )
    return (
        "Each thread kept its own total: spend returned what was left (70, 20, -20 on "
        "thread a) and saved the total spent, which the next call got as previous."
    )


_threads = itertools.count(1)


def _previous_of(app: Any, config: dict) -> Any:
    """What the thread's latest checkpoint saved for the next call's ``previous``."""
    checkpoint = app.checkpointer.get_tuple(config)
    if checkpoint is None:
        return None
    return checkpoint.checkpoint["channel_values"].get("__previous__")


# -- 13.3 · which tasks run again on resume ---------------------------------------------

TASKS = ("find_flights", "find_hotels", "ask_approval", "book")


def trip_program() -> tuple[Any, list[str]]:
    """A trip planner: two searches started together, an approval that asks with
    ``interrupt`` inside a task, then a booking; and the list each task's code (and the
    entrypoint's body, as ``"trip"``) appends its name to when it runs."""
    from graphkit import InMemorySaver, interrupt

    ran: list[str] = []

    @task
    def find_flights(city: str) -> str:
        ran.append("find_flights")
        return f"a flight to {city}"

    @task
    def find_hotels(city: str) -> str:
        ran.append("find_hotels")
        return f"a hotel in {city}"

    @task
    def ask_approval(offer: str) -> bool:
        ran.append("ask_approval")
        return interrupt({"approve?": offer})

    @task
    def book(offer: str) -> str:
        ran.append("book")
        return f"booked {offer}"

    @entrypoint(checkpointer=InMemorySaver())
    def trip(city: str) -> str:
        ran.append("trip")
        flights, hotels = find_flights(city), find_hotels(city)
        offer = f"{flights.result()} and {hotels.result()}"
        if ask_approval(offer).result():
            return book(offer).result()
        return "nothing booked"

    return trip, ran


@exercise("13.3 · Which code runs again on resume?")
def check_reruns(body_runs: Any, reran: Any) -> str:
    """``body_runs``: how many times ``trip``'s body runs in all, from the first invoke
    to the end of the resumed one; ``reran``: the tasks whose code runs during the resumed
    run. Judged against the runtime: the check runs the program."""
    if not isinstance(body_runs, int) or isinstance(body_runs, bool):
        raise Wrong(f"body_runs is {body_runs!r}; give a whole number.", "Count the runs.")
    names = reran if isinstance(reran, set | frozenset | list | tuple) else None
    if names is None or not all(isinstance(name, str) for name in names):
        raise Wrong(
            f"reran is {reran!r}; give a set of task names, such as {{'find_flights'}} "
            "(set() if you think none runs).",
            "Write the names as strings in a set.",
        )
    guessed = set(reran)
    if unknown := sorted(guessed - set(TASKS)):
        raise Wrong(
            f"{', '.join(map(repr, unknown))} is not a task of trip; its tasks are "
            f"{', '.join(TASKS)}.",
            "Name tasks only (trip is the entrypoint, counted by body_runs).",
        )
    from graphkit import Command

    trip, ran = trip_program()
    config = {"configurable": {"thread_id": "check-13.3"}}
    trip.invoke("Rome", config)
    before = len(ran)
    trip.invoke(Command(resume=True), config)
    resumed = [name for name in ran[before:] if name != "trip"]
    truth, runs = set(resumed), ran.count("trip")
    if body_runs != runs:
        if body_runs < 1:
            where = "the first invoke alone ran it once, up to the pause"
        elif body_runs < runs:
            where = "a resumed entrypoint does not start where it paused"
        else:
            where = "the resume runs trip once: the first invoke ran it up to the pause"
        raise Wrong(
            f"You said trip's body runs {counted(body_runs, 'time')}; it ran "
            f"{'more' if body_runs < runs else 'fewer'} times: {where}.",
            "Count the first invoke, and then what Command(resume=...) runs.",
        )
    wrong = []
    for name in sorted(guessed - truth):
        wrong.append(
            f"{name} had finished before the pause: the resume returned its saved result "
            "to trip, and its code did not run again"
        )
    for name in sorted(truth - guessed):
        if name in ran[:before]:
            wrong.append(
                f"{name}'s code did run again: it was paused inside its interrupt(), so it "
                "had not finished and nothing was saved for it; the resume ran it again "
                "from its first line"
            )
        else:
            wrong.append(f"{name}'s code ran in the resumed run, for the first time")
    if wrong:
        raise Wrong(
            "; ".join(wrong) + ".",
            "On resume the entrypoint runs again from the top; a task call that had "
            "finished returns its saved result, a call that had not (it paused) runs "
            "from its start.",
        )
    return (
        f"trip's body ran {counted(runs, 'time')}; on resume, the two searches returned "
        "their saved results, ask_approval ran again from its start (its interrupt() now "
        "returned True), and book ran for the first time."
    )
