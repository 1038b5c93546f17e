"""The order of a checkpoint's pending writes, as LangGraph 1.2 keeps it.

LangGraph's savers hand a checkpoint's pending writes back sorted by the path of the task
that made them, then its id, then the write's index (``writes_sort_key``), whatever order
the tasks finished in; its runtime applies a resumed step's writes in task-path order. The
programs here fan out to several tasks that finish in the reverse of their path order
(later paths sleep less), and stop the step with an interrupt or an error, so that the
finished tasks' writes stay pending: on parallel nodes, on a dozen ``Send`` tasks (past
index 9, where a path's numbers must sort as numbers), inside a subgraph, beside an
``update_state`` and under ``durability="exit"``; each with both savers, sync and async.

What is compared: ``get_tuple().pending_writes`` (each task id known by its task's name
and path, as the ids are each library's own hash of its own checkpoint ids), what
``get_state`` lists per task, the history's pending writes, and the resumed run's result,
whose ``Annotated[list, operator.add]`` shows the order the writes were applied in. The
last case checks that order where LangGraph's string key and a tuple of path parts part
ways: an error handler's writes beside nodes named "a b" and "a!".
"""

import asyncio
import contextlib
import operator
import os
import tempfile
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS, _interrupt

THREAD = {"configurable": {"thread_id": "t"}}
NULL_TASK = "00000000-0000-0000-0000-000000000000"
DELAY = 0.03
"""Between two siblings' finishing times: the later a task's path sorts, the sooner it ends."""


class State(TypedDict):
    log: Annotated[list, operator.add]


class Work(TypedDict):
    i: int


# --- the programs -------------------------------------------------------------------------


class Siblings:
    """The tasks that run beside the troubled one, counted as they finish. The troubled
    task's first run waits for all of them, then ``DELAY`` more for the library to keep
    their writes: on a loaded machine its longer sleep alone did not make it last (CI saw
    a sibling cancelled in one library and finished in the other)."""

    def __init__(self, count: int) -> None:
        self.count, self.finished, self.lock = count, 0, threading.Lock()

    def finish(self) -> None:
        with self.lock:
            self.finished += 1

    def all_finished(self, deadline: float) -> bool:
        if self.finished >= self.count:
            return True
        if time.monotonic() <= deadline:
            return False
        # (waiting on would hang; going on would compare a race again: the run is refused)
        LATE.append(f"{self.finished} of {self.count} siblings finished")
        return True


LATE: list[str] = []
"""What each troubled task that stopped waiting before its siblings had finished saw."""


def _node(
    lib: Lib, name: str, delay: float, trouble: str | None, run_async: bool, siblings: Siblings
) -> Callable:
    """A node that sleeps ``delay`` and logs ``name``; with ``trouble`` it asks first
    ("interrupt") or fails on its first run ("error"), once its siblings have finished."""
    interrupt = _interrupt(lib.name)
    failures = [trouble] if trouble == "error" else []
    first_run = [True] if trouble else []

    def body(state: Any) -> dict:
        label = name if "i" not in state else f"{name}{state['i']}"
        if not trouble:
            siblings.finish()
            return {"log": [label]}
        if trouble == "interrupt":
            return {"log": [f"{label}={interrupt(f'{label}?')}"]}
        if failures:
            failures.pop()
            raise ValueError(f"{label} failed")
        return {"log": [label]}

    def waits() -> bool:
        if not first_run:
            return False
        first_run.pop()
        return True

    if run_async:

        async def node(state: Any) -> dict:
            await asyncio.sleep(delay)
            if waits():
                deadline = time.monotonic() + 10
                while not siblings.all_finished(deadline):
                    await asyncio.sleep(DELAY / 10)
                await asyncio.sleep(DELAY)
            return body(state)

        return node

    def node(state: Any) -> dict:
        time.sleep(delay)
        if waits():
            deadline = time.monotonic() + 10
            while not siblings.all_finished(deadline):
                time.sleep(DELAY / 10)
            time.sleep(DELAY)
        return body(state)

    return node


def parallel(lib: Lib, trouble: str, run_async: bool, siblings: Siblings | None = None) -> Any:
    """START -> a, b, c, d; ``a`` finishes last and has the trouble."""
    graph = lib.StateGraph(State)
    siblings = siblings or Siblings(3)
    for position, name in enumerate("abcd"):
        mine = trouble if name == "a" else None
        delay = (3 - position) * DELAY
        graph.add_node(name, _node(lib, name, delay, mine, run_async, siblings))
        graph.add_edge(lib.START, name)
    return graph


def sends(lib: Lib, trouble: str, run_async: bool) -> Any:
    """START -> fan, which sends 12 tasks to ``work`` and wakes ``other``. Task 0 has the
    trouble and finishes last, well after the others: LangGraph runs a sync step on a
    pool of a few threads, and an error cancels the tasks still waiting for one."""
    graph = lib.StateGraph(State)
    siblings = Siblings(12)
    graph.add_node("fan", lambda state: {"log": ["fan"]})
    graph.add_node("other", _node(lib, "other", 0.0, None, run_async, siblings))
    inner: dict[int, Callable] = {
        i: _node(lib, "w", (11 - i) * DELAY / 3, None, run_async, siblings) for i in range(1, 12)
    }
    inner[0] = _node(lib, "w", 10 * DELAY, trouble, run_async, siblings)

    if run_async:

        async def work(state: Work) -> dict:
            return await inner[state["i"]](state)
    else:

        def work(state: Work) -> dict:
            return inner[state["i"]](state)

    graph.add_node("work", work)
    graph.add_edge(lib.START, "fan")
    graph.add_edge("fan", "other")
    packets = [lib.Send("work", {"i": i}) for i in range(12)]
    graph.add_conditional_edges("fan", lambda state: packets)
    return graph


def subgraph(lib: Lib, trouble: str, run_async: bool) -> Any:
    """START -> sub, p, q, where ``sub`` is a compiled graph fanning out the same way."""
    graph = lib.StateGraph(State)
    siblings = Siblings(5)
    graph.add_node("sub", parallel(lib, trouble, run_async, siblings).compile())
    graph.add_node("p", _node(lib, "p", DELAY, None, run_async, siblings))
    graph.add_node("q", _node(lib, "q", 0.0, None, run_async, siblings))
    for name in ("sub", "p", "q"):
        graph.add_edge(lib.START, name)
    return graph


PROGRAMS = {"parallel": parallel, "sends": sends, "subgraph": subgraph}


# --- running one on either library ----------------------------------------------------------


@contextlib.asynccontextmanager
async def _saver(lib: Lib, kind: str, run_async: bool) -> AsyncIterator[Any]:
    """A fresh saver of ``kind``; LangGraph's async SQLite saver is another class."""
    if kind == "sqlite" and run_async and lib.name == "langgraph":
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "threads.sqlite")
            async with AsyncSqliteSaver.from_conn_string(path) as saver:
                yield saver
        return
    with SAVERS[kind](lib.name) as saver:
        yield saver


class Calls:
    """The calls a program makes, on the sync path (each in a worker thread, where no
    event loop runs, as in plain sync code) or on the async path of one library."""

    def __init__(self, app: Any, saver: Any, run_async: bool) -> None:
        self.app, self.saver, self.run_async = app, saver, run_async

    async def _call(self, target: Any, method: str, *args: Any, **kwargs: Any) -> Any:
        if self.run_async:
            return await getattr(target, f"a{method}")(*args, **kwargs)
        return await asyncio.to_thread(getattr(target, method), *args, **kwargs)

    async def invoke(self, payload: Any, **options: Any) -> Any:
        try:
            return plain(await self._call(self.app, "invoke", payload, THREAD, **options))
        except Exception as error:  # known by class name and message
            return f"raised {type(error).__name__}: {error}"

    async def get_state(self, config: Any, **options: Any) -> Any:
        return await self._call(self.app, "get_state", config, **options)

    async def update_state(self, config: Any, values: Any, as_node: str) -> Any:
        return await self._call(self.app, "update_state", config, values, as_node=as_node)

    async def get_tuple(self, config: Any) -> Any:
        return await self._call(self.saver, "get_tuple", config)

    async def history(self) -> list[Any]:
        if self.run_async:
            return [saved async for saved in self.saver.alist(THREAD)]
        return await asyncio.to_thread(lambda: list(self.saver.list(THREAD)))

    async def pending(self, config: Any) -> list[tuple[Any, ...]]:
        """The pending writes of the checkpoint ``config`` names, each task known by its
        name and path (or as the null task, or as an update's)."""
        saved = await self.get_tuple(config)
        shown = await self.get_state(saved.config)
        names = {task.id: f"{task.name} {task.path}" for task in shown.tasks}
        parent = uuid.UUID(saved.checkpoint["id"])
        names[str(uuid.uuid5(parent, "__interrupt__"))] = "update"
        names[NULL_TASK] = "null"
        return [
            (names.get(task_id, "unknown"), channel, plain(value))
            for task_id, channel, value in saved.pending_writes
        ]

    async def tasks(self, config: Any) -> list[tuple[Any, ...]]:
        """What ``get_state`` lists per task of the checkpoint ``config`` names."""
        shown = await self.get_state(config)
        return [
            (task.name, task.path, bool(task.error), plain(task.interrupts), plain(task.result))
            for task in shown.tasks
        ]


def _comparable(pending: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """``pending`` with START's writes sorted (LangGraph's START writes its edges to
    several nodes in the order of a set of names, which changes from process to process)
    and without the answers LangGraph also saves on a resumed checkpoint (a known
    difference: docs/compatibility.md, "After a resume")."""
    kept = [write for write in pending if write[1] != "__resume__"]
    start = sorted((write for write in kept if write[0].startswith("__start__")), key=repr)
    return start + [write for write in kept if not write[0].startswith("__start__")]


def plain(value: Any) -> Any:
    """``value`` with its interrupts known by their values (their ids are each library's
    own) and its ``Send`` packets by node and argument."""
    if type(value).__name__ == "Interrupt":
        return ("interrupt", plain(value.value))
    if type(value).__name__ == "Send":
        return ("send", value.node, plain(value.arg))
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(plain(item) for item in value)
    return value


async def _observe(lib: Lib, program: str, trouble: str, kind: str, run_async: bool, **options):
    """Run ``program`` until its trouble stops it, read the checkpoint, resume, read again."""
    seen: dict[str, Any] = {}
    LATE.clear()
    async with _saver(lib, kind, run_async) as saver:
        app = PROGRAMS[program](lib, trouble, run_async).compile(checkpointer=saver)
        calls = Calls(app, saver, run_async)
        seen["first"] = await calls.invoke({"log": []}, **options)
        paused = (await calls.get_tuple(THREAD)).config
        seen["pending"] = await calls.pending(paused)
        seen["tasks"] = await calls.tasks(paused)
        if program == "subgraph":
            outer = await calls.get_state(THREAD, subgraphs=True)
            inner = [task.state.config for task in outer.tasks if task.state is not None]
            seen["inner pending"] = [await calls.pending(config) for config in inner]
            seen["inner tasks"] = [await calls.tasks(config) for config in inner]
        answer = lib.Command(resume="yes") if trouble == "interrupt" else None
        seen["resumed"] = await calls.invoke(answer, **options)
        seen["history"] = [
            (saved.metadata["step"], _comparable(await calls.pending(saved.config)))
            for saved in await calls.history()
        ]
    assert not LATE, (
        f"{lib.name}, {program}: the troubled task waited 10 s and went on, {LATE}: a "
        "sibling never finished, so the run compares a thread race, not the libraries"
    )
    return seen


def observe(lib: Lib, program: str, trouble: str, kind: str, run_async: bool, **options):
    return asyncio.run(_observe(lib, program, trouble, kind, run_async, **options))


def _both(*args: Any, **options: Any) -> tuple[Any, Any]:
    return observe(load_langgraph(), *args, **options), observe(load_graphkit(), *args, **options)


MODES = [pytest.param(False, id="sync"), pytest.param(True, id="async")]


# --- the cases --------------------------------------------------------------------------------


@pytest.mark.parametrize("run_async", MODES)
@pytest.mark.parametrize("saver", ["memory", "sqlite"])
@pytest.mark.parametrize("trouble", ["interrupt", "error"])
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_pending_writes_come_back_in_task_path_order(program, trouble, saver, run_async):
    expected, got = _both(program, trouble, saver, run_async)
    assert got == expected


def test_a_dozen_sends_finishing_in_reverse_are_listed_and_applied_in_send_order():
    # what the parametrized case compares, spelled out once
    got = observe(load_graphkit(), "sends", "interrupt", "memory", False)
    work = [(channel, value) for name, channel, value in got["pending"] if name.startswith("work")]
    assert work == [
        ("__interrupt__", [("interrupt", "w0?")]),
        *(("log", [f"w{i}"]) for i in range(1, 12)),
    ]
    assert got["resumed"]["log"] == ["fan", "other", "w0=yes", *(f"w{i}" for i in range(1, 12))]


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_durability_exit_saves_the_writes_in_the_same_order(saver):
    expected, got = _both("parallel", "interrupt", saver, False, durability="exit")
    assert got == expected


async def _edited(lib: Lib, kind: str, where: str) -> dict[str, Any]:
    """An ``update_state`` beside a paused step: as the paused node, at the root or in
    the subgraph that paused; then the pending writes of the checkpoint it built on."""
    seen: dict[str, Any] = {}
    async with _saver(lib, kind, False) as saver:
        program = subgraph if where == "subgraph" else parallel
        app = program(lib, "interrupt", False).compile(checkpointer=saver)
        calls = Calls(app, saver, False)
        await calls.invoke({"log": []})
        config = (await calls.get_tuple(THREAD)).config
        if where == "subgraph":
            outer = await calls.get_state(THREAD, subgraphs=True)
            config = next(task.state.config for task in outer.tasks if task.state is not None)
            config = (await calls.get_tuple(config)).config
        await calls.update_state(config, {"log": ["edited"]}, as_node="a")
        seen["pending"] = await calls.pending(config)
        seen["tasks"] = await calls.tasks(config)
        seen["resumed"] = await calls.invoke(None)
    return seen


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
@pytest.mark.parametrize("where", ["root", "subgraph"])
def test_an_update_beside_an_interrupt_is_listed_where_langgraph_lists_it(where, saver):
    expected = asyncio.run(_edited(load_langgraph(), saver, where))
    got = asyncio.run(_edited(load_graphkit(), saver, where))
    assert got == expected


def _handled(lib: Lib, kind: str | None) -> list[Any]:
    """Node "a" fails and its error handler writes; beside it run "a b" and "a!", whose
    paths sort before the handler's (a space and a "!" come before the ", " that extends
    "a"'s path), and, with a saver, "z", which asks, so that the step's writes stay
    pending until the resume applies them."""
    interrupt = _interrupt(lib.name)

    def fail(state: State) -> dict:
        raise ValueError("a failed")

    graph = lib.StateGraph(State)
    graph.add_node("a", fail, error_handler=lambda state: {"log": ["handler of a"]})
    graph.add_node("a b", lambda state: {"log": ["a b"]})
    graph.add_node("a!", lambda state: {"log": ["a!"]})
    names = ["a", "a b", "a!"]
    if kind is not None:
        graph.add_node("z", lambda state: {"log": [f"z={interrupt('z?')}"]})
        names.append("z")
    for name in names:
        graph.add_edge(lib.START, name)
    if kind is None:
        return [plain(graph.compile().invoke({"log": []}))]
    with SAVERS[kind](lib.name) as saver:
        app = graph.compile(checkpointer=saver)
        first = plain(app.invoke({"log": []}, THREAD))
        return [first, plain(app.invoke(lib.Command(resume="yes"), THREAD))]


@pytest.mark.parametrize("saver", [None, "memory", "sqlite"])
def test_an_error_handlers_writes_apply_in_langgraphs_task_path_order(saver):
    expected = _handled(load_langgraph(), saver)
    assert expected[-1]["log"] == ["a b", "a!", "handler of a", *(["z=yes"] if saver else [])]
    assert _handled(load_graphkit(), saver) == expected
