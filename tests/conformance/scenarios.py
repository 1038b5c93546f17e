"""Scenarios: several calls on one checkpointed thread, compared between the two libraries.

A `Case` runs one input three ways on a graph without memory. A `Scenario` builds a graph
with a checkpointer and plays a list of steps on one thread: invoke (with an input, a
`Resume`, or None), stream, update_state, get_state, get_state_history. Each step shows a
few lines of what a user sees, and every call (invoke, stream, update_state) ends with
what get_state then says of the thread. The lines of all steps are the scenario's
`Transcript`; two libraries conform when their transcripts are equal.

Checkpoint and interrupt ids differ between libraries and between runs: each is replaced
by a placeholder ("cp1", "i1"...) in order of first appearance, so the transcript still
shows which config points at which checkpoint, and which interrupt is asked again. Pending
tasks are shown by name (never by id), timestamps only when they are missing. A step that
needs an id (resuming interrupts by id, replaying an older checkpoint, continuing from the
config update_state returned) finds it in what the earlier steps returned, as a user would.

Steps are records; `at=` picks the config a step runs on: the thread (default), an older
checkpoint of its history (`Older(n)`, n snapshots back from the newest), the config the
last update_state returned (`FORKED`), or another thread (`Thread("other")`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import difflib
import functools
import inspect
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from .harness import Lib, Raised, canonical

__all__ = [
    "FORKED",
    "SAVERS",
    "Calls",
    "GetState",
    "History",
    "Invoke",
    "Older",
    "Resume",
    "ResumeEach",
    "Scenario",
    "Session",
    "Stream",
    "Thread",
    "Tools",
    "Transcript",
    "UpdateState",
    "compare_transcripts",
    "load_tools",
    "play",
    "stream_lines",
]

THREAD = "1"


# --- what a scenario's graph needs --------------------------------------------------------


@dataclass(frozen=True)
class Tools:
    """What a scenario's `build` gets: the library, a checkpointer, `interrupt`, and a
    counter that nodes may bump to show how often each one ran."""

    lib: Lib
    checkpointer: Any
    interrupt: Callable[[Any], Any]
    calls: collections.Counter = field(default_factory=collections.Counter)

    def __repr__(self) -> str:
        return f"Tools({self.lib.name!r})"


@functools.cache
def _interrupt(library: str) -> Callable[[Any], Any]:
    if library == "langgraph":
        from langgraph.types import interrupt
    else:
        from graphkit import interrupt
    return interrupt


@contextlib.contextmanager
def _memory_saver(library: str) -> Iterator[Any]:
    if library == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
    else:
        from graphkit import InMemorySaver
    yield InMemorySaver()


@contextlib.contextmanager
def _sqlite_saver(library: str) -> Iterator[Any]:
    if library == "langgraph":
        from langgraph.checkpoint.sqlite import SqliteSaver
    else:
        from graphkit.checkpoint.sqlite import SqliteSaver
    with (
        tempfile.TemporaryDirectory() as folder,
        SqliteSaver.from_conn_string(os.path.join(folder, "threads.sqlite")) as saver,
    ):
        yield saver


SAVERS: dict[str, Callable[[str], contextlib.AbstractContextManager[Any]]] = {
    "memory": _memory_saver,
    "sqlite": _sqlite_saver,
}
"""Each kind of checkpointer a scenario runs with, by name, for either library."""


@contextlib.contextmanager
def load_tools(lib: Lib, saver: str) -> Iterator[Tools]:
    """The tools for one run of a scenario: a fresh checkpointer of kind `saver`."""
    with SAVERS[saver](lib.name) as checkpointer:
        yield Tools(lib, checkpointer, _interrupt(lib.name))


# --- normalising ids ----------------------------------------------------------------------


class Interrupt:
    """An interrupt as the transcript shows it, `Interrupt(i1, 'value')`: its id's
    placeholder and its value."""

    def __init__(self, placeholder: str | None, value: Any) -> None:
        self.placeholder = placeholder
        self.value = value

    def __repr__(self) -> str:
        return f"Interrupt({self.placeholder}, {canonical(self.value)})"


class Session:
    """One library's graph and thread while a scenario plays: the ids seen so far (each
    with its placeholder), the interrupts of the last result, and the last forked config."""

    def __init__(self, tools: Tools, app: Any) -> None:
        self.tools = tools
        self.app = app
        self.ids: dict[tuple[str, str], str] = {}
        self.interrupts: list[Any] = []
        """The raw interrupts of the last invoke or stream, to resume them by id."""
        self.forked: dict[str, Any] | None = None
        self.asynchronous = False
        """Run invoke and stream as `ainvoke` and `astream`, each in its own event loop."""

    def __repr__(self) -> str:
        return f"Session({self.tools.lib.name!r}, {len(self.ids)} ids)"

    def invoke(self, given: Any, config: Any, **options: Any) -> Any:
        if not self.asynchronous:
            return self.app.invoke(given, config, **options)
        return asyncio.run(self.app.ainvoke(given, config, **options))

    def stream(self, given: Any, config: Any, **options: Any) -> Iterable[Any]:
        if not self.asynchronous:
            return self.app.stream(given, config, **options)

        async def collect() -> list[Any]:
            return [chunk async for chunk in self.app.astream(given, config, **options)]

        return asyncio.run(collect())

    def placeholder(self, kind: str, raw: Any) -> str | None:
        """`raw`'s placeholder among ids of its `kind`: "cp1", "cp2"... (None stays None)."""
        if raw is None:
            return None
        key = (kind, str(raw))
        count = sum(seen == kind for seen, _ in self.ids)
        return self.ids.setdefault(key, f"{kind}{count + 1}")

    def checkpoint(self, config: Mapping[str, Any] | None) -> str | None:
        """The placeholder of the checkpoint a config points at (None: no config or id)."""
        if not config:
            return None
        return self.placeholder("cp", config.get("configurable", {}).get("checkpoint_id"))

    def scrub(self, value: Any) -> Any:
        """`value` with every interrupt replaced by an `Interrupt` holding a placeholder id.
        Interrupts of one list are numbered in the order of their values (parallel tasks
        interrupt in any order)."""
        if _is_interrupt(value):
            return Interrupt(self.placeholder("i", value.id), self.scrub(value.value))
        if isinstance(value, Mapping):
            return {key: self.scrub(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            items = list(value)
            if items and all(_is_interrupt(item) for item in items):
                items.sort(key=lambda item: canonical(item.value))
            return type(value)(self.scrub(item) for item in items)
        return value

    def show(self, value: Any) -> str:
        return canonical(self.scrub(value))


def _is_interrupt(value: Any) -> bool:
    return type(value).__name__ == "Interrupt" and hasattr(value, "value") and hasattr(value, "id")


# --- where a step runs --------------------------------------------------------------------


class At(Protocol):
    def config(self, session: Session) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Thread:
    """The latest checkpoint of a thread (the scenario's own thread by default)."""

    thread_id: str = THREAD

    def config(self, session: Session) -> dict[str, Any]:
        return {"configurable": {"thread_id": self.thread_id}}


@dataclass(frozen=True)
class Older:
    """The checkpoint `back` snapshots before the newest in the thread's history."""

    back: int

    def config(self, session: Session) -> dict[str, Any]:
        history = list(session.app.get_state_history(Thread().config(session)))
        return dict(history[self.back].config)


@dataclass(frozen=True)
class Forked:
    """The config the last update_state returned."""

    def config(self, session: Session) -> dict[str, Any]:
        assert session.forked is not None, "no update_state step came before"
        return session.forked


FORKED = Forked()


# --- inputs that depend on the library ----------------------------------------------------


@dataclass(frozen=True)
class Resume:
    """`Command(resume=value)` of the library under test."""

    value: Any


@dataclass(frozen=True)
class ResumeEach:
    """`Command(resume={interrupt id: answer})`: each answer is keyed by the value of the
    interrupt it answers, and that interrupt's id is looked up in the last result."""

    answers: Mapping[Any, Any]


def _input(session: Session, given: Any) -> Any:
    command = session.tools.lib.Command
    if isinstance(given, Resume):
        return command(resume=given.value)
    if isinstance(given, ResumeEach):
        ids = {canonical(item.value): item.id for item in session.interrupts}
        return command(resume={ids[canonical(k)]: v for k, v in given.answers.items()})
    return given


# --- steps --------------------------------------------------------------------------------


class Step(Protocol):
    def play(self, session: Session) -> list[str]: ...


def _attempt(run: Callable[[], list[str]]) -> list[str]:
    """What a step shows, or the class of the exception it raised."""
    try:
        return run()
    except Exception as error:
        return [canonical(Raised(type(error).__name__))]


def _head(verb: str, at: At | None, options: Mapping[str, Any], *given: Any) -> str:
    """A step's first line: `verb [input] [at <where>] [option=value...]`."""
    words = [verb, *(canonical(value) for value in given)]
    words += [] if at is None else [f"at {canonical(at)}"]
    words += [f"{key}={canonical(value)}" for key, value in options.items()]
    return " ".join(words)


@dataclass(frozen=True)
class Invoke:
    """`invoke(input, config, **options)`; shows the result on the next line."""

    input: Any
    at: At | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def play(self, session: Session) -> list[str]:
        def run() -> list[str]:
            config = (self.at or Thread()).config(session)
            result = session.invoke(_input(session, self.input), config, **self.options)
            if isinstance(result, Mapping):
                session.interrupts = list(result.get("__interrupt__", ()))
            return [session.show(result)]

        head = _head("invoke", self.at, self.options, self.input)
        return [head, *_indent([*_attempt(run), *_thread_state(session)])]


def stream_lines(chunks: Iterable[tuple[str, Any]]) -> list[str]:
    """One line per `(mode, chunk)`; the chunks that tasks send as they finish (updates,
    and the values LangGraph sends with each task's interrupt) are sorted between two other
    chunks, as tasks of one step finish in any order."""
    lines: list[str] = []
    finished: list[str] = []
    for mode, chunk in chunks:
        line = f"{mode} {canonical(chunk)}"
        interrupted = isinstance(chunk, Mapping) and "__interrupt__" in chunk
        if mode == "updates" or (mode == "values" and interrupted):
            finished.append(line)
        else:
            lines += [*sorted(finished), line]
            finished.clear()
    return lines + sorted(finished)


@dataclass(frozen=True)
class Stream:
    """`stream(input, config, stream_mode=[...], **options)` of "updates" and "values";
    one line per chunk (see `stream_lines`)."""

    input: Any
    at: At | None = None
    modes: tuple[str, ...] = ("updates", "values")
    options: Mapping[str, Any] = field(default_factory=dict)

    def play(self, session: Session) -> list[str]:
        seen: list[Any] = []
        error = None
        try:
            config = (self.at or Thread()).config(session)
            given = _input(session, self.input)
            for chunk in session.stream(
                given, config, stream_mode=list(self.modes), **self.options
            ):
                seen.append(chunk)
        except Exception as raised:
            error = canonical(Raised(type(raised).__name__))
        session.interrupts = [
            item
            for mode, chunk in seen
            if mode == "updates" and isinstance(chunk, Mapping)
            for item in chunk.get("__interrupt__", ())
        ]
        session.show(session.interrupts)  # number them by value, not by which came first
        lines = stream_lines((mode, session.scrub(chunk)) for mode, chunk in seen)
        lines += [error] if error is not None else []
        head = _head("stream", self.at, self.options, self.input)
        return [head, *_indent([*lines, *_thread_state(session)])]


@dataclass(frozen=True)
class GetState:
    """`get_state(config)`: the snapshot with its pending tasks (see `_snapshot`). Every
    call step (invoke, stream, update_state) already ends with the thread's state; this
    step is for other configs, or a thread before any call."""

    at: At | None = None

    def play(self, session: Session) -> list[str]:
        def run() -> list[str]:
            snapshot = session.app.get_state((self.at or Thread()).config(session))
            return _snapshot(session, snapshot, tasks=True)

        return [_head("get_state", self.at, {}), *_indent(_attempt(run))]


@dataclass(frozen=True)
class History:
    """`get_state_history(config, filter=, before=, limit=)`: how many snapshots, then each
    (newest first)."""

    at: At | None = None
    filter: Mapping[str, Any] | None = None
    before: At | None = None
    limit: int | None = None

    def play(self, session: Session) -> list[str]:
        def run() -> list[str]:
            before = self.before.config(session) if self.before is not None else None
            snapshots = list(
                session.app.get_state_history(
                    (self.at or Thread()).config(session),
                    filter=self.filter,
                    before=before,
                    limit=self.limit,
                )
            )
            lines = [f"{len(snapshots)} snapshots"]
            for snapshot in snapshots:
                lines.extend(_snapshot(session, snapshot))
            return lines

        arguments = {"filter": self.filter, "before": self.before, "limit": self.limit}
        options = {key: value for key, value in arguments.items() if value is not None}
        return [_head("history", self.at, options), *_indent(_attempt(run))]


@dataclass(frozen=True)
class UpdateState:
    """`update_state(config, values, as_node)`; shows the checkpoint of the config it
    returns, which `FORKED` then names."""

    values: Any
    as_node: str | None = None
    at: At | None = None

    def play(self, session: Session) -> list[str]:
        def run() -> list[str]:
            config = (self.at or Thread()).config(session)
            if self.as_node is None:
                returned = session.app.update_state(config, self.values)
            else:
                returned = session.app.update_state(config, self.values, as_node=self.as_node)
            session.forked = dict(returned)
            return [f"-> {session.checkpoint(returned)}"]

        options = {} if self.as_node is None else {"as_node": self.as_node}
        head = _head("update_state", self.at, options, self.values)
        return [head, *_indent([*_attempt(run), *_thread_state(session)])]


@dataclass(frozen=True)
class Calls:
    """How many times each node function ran so far (nodes count themselves in
    `tools.calls`)."""

    def play(self, session: Session) -> list[str]:
        return [f"calls {canonical(dict(session.tools.calls))}"]


def _indent(lines: list[str]) -> list[str]:
    return [f"  {line}" for line in lines]


def _thread_state(session: Session) -> list[str]:
    """What get_state says of the thread after a call, prefixed "state"."""

    def run() -> list[str]:
        return _snapshot(session, session.app.get_state(Thread().config(session)), tasks=True)

    first, *rest = _attempt(run)
    return [f"state {first}", *rest]


def _snapshot(session: Session, snapshot: Any, *, tasks: bool = False) -> list[str]:
    """A snapshot as `checkpoint<-parent source/step next=(...) values` (saying so if it
    has no created_at), then, indented, its interrupts and (with `tasks`) its pending
    tasks, if it has any."""
    metadata = snapshot.metadata or {}
    ids = f"{session.checkpoint(snapshot.config)}<-{session.checkpoint(snapshot.parent_config)}"
    step = f"{metadata.get('source')}/{metadata.get('step')}"
    head = f"{ids} {step} next={canonical(tuple(snapshot.next))} {session.show(snapshot.values)}"
    lines = [head + (" (no created_at)" if snapshot.created_at is None else "")]
    if snapshot.interrupts:
        lines.append(f"  interrupts {session.show(list(snapshot.interrupts))}")
    if tasks and snapshot.tasks:
        lines.append(f"  tasks {canonical(sorted(_task(task) for task in snapshot.tasks))}")
    return lines


def _task(task: Any) -> str:
    """A pending task by name, with `!Error` if it failed (the error's type, as get_state
    gives it) and `?n` if it waits on n interrupts."""
    text = task.name
    if task.error is not None:
        text += f"!{type(task.error).__name__}"
    if task.interrupts:
        text += f"?{len(task.interrupts)}"
    return text


# --- scenarios ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """A graph built with a checkpointer, and the steps to play on one of its threads.

    `expected` is LangGraph's transcript (with its in-memory saver) as text, indented
    freely (see `expected_lines`); the sanity test checks it, so the scenario also
    documents what LangGraph does.
    """

    name: str
    build: Callable[[Tools], Any]
    steps: tuple[Step, ...]
    expected: str
    warns: str = ""
    """Part of the GraphkitWarning graphkit must give here (LangGraph is silent)."""

    def __repr__(self) -> str:
        return f"Scenario({self.name!r})"

    def expected_lines(self) -> tuple[str, ...]:
        return tuple(inspect.cleandoc(self.expected).splitlines())


@dataclass(frozen=True)
class Transcript:
    """What one library showed on one scenario, line by line."""

    library: str = field(compare=False)
    saver: str = field(compare=False)
    lines: tuple[str, ...]


def play(
    scenario: Scenario, lib: Lib, saver: str = "memory", asynchronous: bool = False
) -> Transcript:
    """Build the scenario's graph with `lib` and a fresh `saver`, and play its steps
    (through `ainvoke`/`astream` when `asynchronous`)."""
    with load_tools(lib, saver) as tools:
        try:
            app = scenario.build(tools)
        except Exception as error:
            failed = f"build {canonical(Raised(type(error).__name__))}"
            return Transcript(lib.name, saver, (failed,))
        session = Session(tools, app)
        session.asynchronous = asynchronous
        lines = [line for step in scenario.steps for line in step.play(session)]
    return Transcript(lib.name, saver, tuple(lines))


def compare_transcripts(name: str, expected: Transcript, actual: Transcript) -> list[str]:
    """What differs between the oracle's transcript and the library's, as a unified diff."""
    if expected == actual:
        return []
    diff = difflib.unified_diff(
        list(expected.lines),
        list(actual.lines),
        f"{expected.library} ({expected.saver})",
        f"{actual.library} ({actual.saver})",
        lineterm="",
    )
    return [f"scenario {name!r}: transcripts differ\n" + "\n".join(diff)]
