"""The functional-API programs the conformance tests run on LangGraph and graphkit
(tests/conformance/test_parity_func.py): each is a function of a ``Side`` (the names it
needs from one library) and a checkpointer, returning the app and the inputs to run on
one thread in turn (a ``Command(resume=...)`` answers the interrupt before it). Tasks
that run side by side sleep a little, so that every call has started before the first
one finishes (the order both libraries then stream in)."""

from __future__ import annotations

import asyncio
import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Side:
    """The names a functional program needs from one library."""

    name: str
    entrypoint: Any
    task: Any
    interrupt: Any
    Command: Any
    RetryPolicy: Any
    get_stream_writer: Any


def side(name: str) -> Side:
    package = "langgraph" if name == "langgraph" else "graphkit"
    func = importlib.import_module(f"{package}.func")
    types = importlib.import_module(f"{package}.types")
    if name == "langgraph":
        from langgraph.config import get_stream_writer
    else:
        from graphkit import get_stream_writer
    interrupt = (
        types.interrupt if name == "langgraph" else importlib.import_module(package).interrupt
    )
    return Side(
        name, func.entrypoint, func.task, interrupt, types.Command, types.RetryPolicy,
        get_stream_writer,
    )  # fmt: skip


SIDES = ("langgraph", "graphkit")
PAUSE = 0.05  # long enough for every parallel call to start before one finishes


# -- the programs: sync ----------------------------------------------------------------------


def parallel(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    """Fan out to parallel calls, then one more call on their results."""

    @s.task
    def double(n: int) -> int:
        time.sleep(PAUSE)
        return n * 2

    @s.task
    def add(a: int, b: int = 1) -> int:
        return a + b

    @s.entrypoint(checkpointer=saver)
    def fan(n: int) -> dict:
        futures = [double(i) for i in range(n)]
        total = sum(future.result() for future in futures)
        return {"total": add(total, b=100).result()}

    return fan, [3, 1]


def nested(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    """A task that calls a task."""

    @s.task
    def inner(x: int) -> int:
        return x + 1

    @s.task
    def outer(x: int) -> int:
        return inner(x).result() * 10

    @s.entrypoint(checkpointer=saver)
    def nest(x: int) -> int:
        return outer(x).result() + outer(x + 1).result()

    return nest, [1]


def remembers(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    """``previous`` and ``entrypoint.final``: return one thing, save another."""

    @s.task
    def grow(n: int) -> int:
        return n + 1

    @s.entrypoint(checkpointer=saver)
    def total(n: int, *, previous: Any = None) -> Any:
        so_far = previous or 0
        return s.entrypoint.final(value=[so_far, grow(n).result()], save=so_far + n)

    return total, [1, 2, 3]


def approves(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    """An interrupt in the entrypoint after a task: resumed, the task is not run again."""

    @s.task
    def draft(topic: str) -> str:
        return f"an essay about {topic}"

    @s.entrypoint(checkpointer=saver)
    def review(topic: str) -> dict:
        essay = draft(topic).result()
        verdict = s.interrupt({"essay": essay})
        return {"essay": essay, "verdict": verdict}

    return review, ["cats", s.Command(resume="great")]


def asks_in_task(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    """An interrupt inside a task; the call before it is reused on resume."""

    @s.task
    def prepare(x: int) -> int:
        return x * 3

    @s.task
    def ask(question: str) -> str:
        return s.interrupt(question)

    @s.entrypoint(checkpointer=saver)
    def flow(x: int) -> list:
        ready = prepare(x).result()
        answer = ask(f"ok with {ready}?").result()
        return [ready, answer]

    return flow, [2, s.Command(resume="yes"), 5, s.Command(resume="no")]


def asks_twice_in_task(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    """A task that asks two questions in turn: each resume answers the next one (the
    first answer is kept while the second is asked)."""

    @s.task
    def ask(topic: str) -> list:
        return [s.interrupt(f"first about {topic}?"), s.interrupt(f"then about {topic}?")]

    @s.entrypoint(checkpointer=saver)
    def interview(topic: str) -> list:
        return ask(topic).result()

    resumes = [s.Command(resume=answer) for answer in ("A", "B")]
    return interview, ["cats", *resumes, "dogs", *resumes]


def asks_in_parallel_tasks(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    """Two tasks called at once both ask: a plain resume value is refused (which question
    would it answer?), as when two nodes ask."""

    @s.task
    def ask(n: int) -> str:
        return s.interrupt(f"question {n}?")

    @s.entrypoint(checkpointer=saver)
    def survey(count: int) -> list:
        futures = [ask(n) for n in range(count)]
        return [future.result() for future in futures]

    return survey, [2, s.Command(resume="plain"), 1, s.Command(resume="only one")]


def retried(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    """A task that fails twice with a retryable error, then succeeds."""
    attempts = {"n": 0}
    policy = s.RetryPolicy(max_attempts=3, initial_interval=0.001, jitter=False)

    @s.task(retry_policy=policy)
    def fetch(x: int) -> int:
        attempts["n"] += 1
        if attempts["n"] % 3:
            raise ConnectionError("try again")
        return x * 7

    @s.entrypoint(checkpointer=saver)
    def flaky(x: int) -> int:
        return fetch(x).result()

    return flaky, [1]


def catches(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    """A task's error, caught by the entrypoint: the run goes on."""

    @s.task
    def boom(x: int) -> int:
        raise ValueError(f"bad {x}")

    @s.entrypoint(checkpointer=saver)
    def careful(x: int) -> str:
        try:
            return str(boom(x).result())
        except ValueError as error:
            return f"caught: {error}"

    return careful, [4]


def fails(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    """A task's error that nobody catches fails the run."""

    @s.task
    def boom(x: int) -> int:
        raise KeyError(x)

    @s.entrypoint(checkpointer=saver)
    def careless(x: int) -> int:
        return boom(x).result()

    return careless, [4]


def writes(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    """Custom chunks from the entrypoint (``writer``) and from a task."""

    @s.task
    def step(x: int) -> int:
        s.get_stream_writer()(f"task got {x}")
        return x - 1

    @s.entrypoint(checkpointer=saver)
    def chatty(x: int, writer):  # (LangGraph injects an unannotated writer)
        writer("starting")
        left = step(x).result()
        writer(f"left {left}")
        return left

    return chatty, [3]


def returns_none(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    @s.task
    def nothing(x: int) -> None:
        return None

    @s.entrypoint(checkpointer=saver)
    def quiet(x: int) -> None:
        nothing(x).result()

    return quiet, [0]


# -- the programs: async ---------------------------------------------------------------------


def gathers(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    """Async tasks awaited one by one and gathered."""

    @s.task
    async def triple(n: int) -> int:
        await asyncio.sleep(PAUSE)
        return n * 3

    @s.entrypoint(checkpointer=saver)
    async def collect(numbers: list) -> list:
        futures = [triple(n) for n in numbers]
        first = await futures[0]
        rest = await asyncio.gather(*futures[1:])
        return [first, *rest]

    return collect, [[1, 2, 3]]


def async_approves(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    """An async entrypoint with ``previous``, a task, and an interrupt."""

    @s.task
    async def draft(topic: str) -> str:
        return f"notes on {topic}"

    @s.entrypoint(checkpointer=saver)
    async def review(topic: str, previous: Any = None) -> Any:
        notes = await draft(topic)
        verdict = s.interrupt(notes)
        return s.entrypoint.final(value=[previous, verdict], save=verdict)

    return review, ["dogs", s.Command(resume="fine"), "cats", s.Command(resume="ok")]


def async_nested(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    """An async task calling a sync task, with a retried async one."""
    attempts = {"n": 0}
    policy = s.RetryPolicy(max_attempts=2, initial_interval=0.001, jitter=False)

    @s.task
    def base(x: int) -> int:
        return x + 1

    @s.task(retry_policy=policy)
    async def wrap(x: int) -> int:
        attempts["n"] += 1
        if attempts["n"] == 1:
            raise ConnectionError("once")
        return await base(x) * 2

    @s.entrypoint(checkpointer=saver)
    async def top(x: int) -> int:
        return await wrap(x)

    return top, [5]


SYNC: dict[str, Callable[[Side, Any], tuple[Any, list[Any]]]] = {
    "parallel": parallel,
    "nested": nested,
    "remembers": remembers,
    "approves": approves,
    "asks_in_task": asks_in_task,
    "asks_twice_in_task": asks_twice_in_task,
    "asks_in_parallel_tasks": asks_in_parallel_tasks,
    "retried": retried,
    "catches": catches,
    "fails": fails,
    "writes": writes,
    "returns_none": returns_none,
}
ASYNC: dict[str, Callable[[Side, Any], tuple[Any, list[Any]]]] = {
    "gathers": gathers,
    "async_approves": async_approves,
    "async_nested": async_nested,
}


def entry_retried(s: Side, saver: Any) -> tuple[Any, list[Any]]:
    """The entrypoint's own retry policy: its second attempt calls the task again, and
    gets the first attempt's call (the same task), which ran once."""
    attempts, ran = {"n": 0}, []
    policy = s.RetryPolicy(max_attempts=2, initial_interval=0.001, jitter=False)

    @s.task
    def once(x: int) -> int:
        ran.append(x)
        return x + 1

    @s.entrypoint(checkpointer=saver, retry_policy=policy)
    def again(x: int) -> list:
        value = once(x).result()
        attempts["n"] += 1
        if attempts["n"] % 2:
            raise ConnectionError("the entrypoint fails once")
        return [value, len(ran)]

    return again, [1]


SYNC["entry_retried"] = entry_retried
