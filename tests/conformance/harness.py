"""Differential conformance: run one graph on LangGraph and on graphkit, compare what a user sees.

A `Case` builds a graph from a `Lib` (the few names a graph needs from one library), so the
same case runs on either side. `observe` runs it and records an `Observation`: the result of
`invoke`, the `stream` of ["updates", "values"] chunks and the "values" stream, per input, with
every value turned into a canonical string so that unhashable state (lists, dicts, models)
compares exactly. Two libraries conform on a case when their observations are equal.

A case may also ask for other stream modes ("tasks", "debug", "custom"), `subgraphs=True`,
extra run arguments (`context=`, `print_mode=`), or the async path (`ainvoke`/`astream`).
What is random or timed is normalised first (`tidy`): task ids become "task-1", "task-2"...
in order of first appearance, namespaces lose their task ids, timestamps are dropped and
errors inside payloads are known by class name. Whatever `invoke` and the stream print to
stdout is recorded too.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import difflib
import functools
import io
import json
import os
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = [
    "Case",
    "Lib",
    "Observation",
    "Raised",
    "Run",
    "appender",
    "canonical",
    "compare",
    "describe",
    "load_graphkit",
    "load_langgraph",
    "normalise_stream",
    "observe",
    "tidy",
]


@dataclass(frozen=True)
class Lib:
    """The names a graph needs from one library."""

    name: str
    StateGraph: Any
    START: str
    END: str
    Send: Any
    Command: Any
    errors: ModuleType
    channels: ModuleType
    warning: type[Warning] | None
    """The warning category this library emits where LangGraph is silent (None: LangGraph)."""
    RetryPolicy: Any = None
    managed: ModuleType | None = None
    """The module holding `RemainingSteps` and `IsLastStep`."""
    get_stream_writer: Any = None
    get_config: Any = None

    def __repr__(self) -> str:
        return f"Lib({self.name!r})"


CHECKOUT = Path(__file__).resolve().parents[2]
"""The checkout these tests belong to (its graphkit, not the venv's, which may be another's)."""


def run_fresh(
    args: list[str],
    *,
    first: tuple[str, ...] = (),
    env: Mapping[str, str | None] | None = None,
    cwd: Path | None = None,
) -> Any:
    """Run ``python *args`` in a fresh interpreter that imports this checkout's graphkit
    (after the folders ``first``); ``env`` sets variables (None: removes one). Its last
    line of output, read as JSON."""
    variables = {**os.environ, "PYTHONPATH": os.pathsep.join([*first, str(CHECKOUT)])}
    for name, value in (env or {}).items():
        if value is None:
            variables.pop(name, None)
        else:
            variables[name] = value
    done = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=variables, cwd=cwd,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@functools.cache
def load_langgraph() -> Lib:
    """The oracle."""
    import langgraph.channels
    import langgraph.errors
    import langgraph.managed
    from langgraph.config import get_config, get_stream_writer
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Command, RetryPolicy, Send

    return Lib(
        "langgraph",
        StateGraph,
        START,
        END,
        Send,
        Command,
        langgraph.errors,
        langgraph.channels,
        warning=None,
        RetryPolicy=RetryPolicy,
        managed=langgraph.managed,
        get_stream_writer=get_stream_writer,
        get_config=get_config,
    )


@functools.cache
def load_graphkit() -> Lib:
    """The library under test; imported here so that collecting the suite never needs it.

    A missing or half-written graphkit raises ImportError here, which fails the test.
    """
    import graphkit.channels
    import graphkit.errors
    import graphkit.managed
    from graphkit import END, START, Command, RetryPolicy, Send, StateGraph, get_stream_writer
    from graphkit.config import get_config

    return Lib(
        "graphkit",
        StateGraph,
        START,
        END,
        Send,
        Command,
        graphkit.errors,
        graphkit.channels,
        warning=graphkit.errors.GraphkitWarning,
        RetryPolicy=RetryPolicy,
        managed=graphkit.managed,
        get_stream_writer=get_stream_writer,
        get_config=get_config,
    )


@dataclass(frozen=True)
class Raised:
    """An exception, known only by its class name (messages are free to differ)."""

    name: str


@dataclass(frozen=True)
class Case:
    """One graph and the inputs to run it on.

    `expected` holds LangGraph's `invoke` result for each input (a state, or `Raised`); the
    sanity test checks it, so each case also documents what LangGraph does. A case whose
    `build` must fail (a compile-time error) sets `build_raises` and has no inputs.
    """

    name: str
    build: Callable[[Lib], Any]
    inputs: tuple[Any, ...] = ()
    expected: tuple[Any, ...] = ()
    config: Mapping[str, Any] | None = None
    build_raises: str | None = None
    warns: bool = False
    """graphkit must emit a GraphkitWarning here (LangGraph silently ignores something)."""
    stream_mode: str | tuple[str, ...] = ("updates", "values")
    run_kwargs: Mapping[str, Any] | None = None
    """Extra keyword arguments for every run (`context=...`, `print_mode=...`)."""
    subgraphs: bool = False
    """Stream the case's mode(s) with `subgraphs=True`: chunks carry their namespace."""
    run_async: bool = False
    """Run through `ainvoke` and `astream` (each under `asyncio.run`) instead."""

    def __repr__(self) -> str:
        return f"Case({self.name!r})"


@dataclass(frozen=True)
class Run:
    """What one input produced: `invoke`, the mixed stream and the "values" stream."""

    input: str
    invoke: str
    stream: tuple[str, ...]
    values: tuple[str, ...]
    printed: tuple[str, ...] = ()
    """What invoke, the case's stream and the "values" stream printed to stdout, by line."""


@dataclass(frozen=True)
class Observation:
    """Everything a user of the library sees for one case; equal observations conform."""

    library: str = field(compare=False)
    build: str
    runs: tuple[Run, ...]
    warnings: tuple[str, ...] | None = field(default=None, compare=False)
    """Messages of the library's own warning category, checked apart from equality
    (None: the library has no such category, i.e. LangGraph)."""


def canonical(value: Any) -> str:
    """A deterministic string for a value: dicts and sets sorted, containers recursed into,
    dataclasses and pydantic models spelled out by field. 1, 1.0 and True stay distinct,
    and so do a list and a tuple.
    """
    if isinstance(value, Raised):
        return f"raised {value.name}"
    prefix = "" if type(value) in (dict, list, tuple, set, frozenset) else type(value).__name__
    if isinstance(value, Mapping):
        items = sorted(f"{canonical(k)}: {canonical(v)}" for k, v in value.items())
        return prefix + "{" + ", ".join(items) + "}"
    if isinstance(value, list):
        return prefix + "[" + ", ".join(canonical(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(canonical(v) for v in value)
        return prefix + "(" + inner + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, set | frozenset):
        return type(value).__name__ + "{" + ", ".join(sorted(canonical(v) for v in value)) + "}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = [f.name for f in dataclasses.fields(value)]
        return _spell_fields(value, names)
    model_fields = getattr(type(value), "model_fields", None)  # a pydantic v2 model
    if isinstance(model_fields, dict):
        return _spell_fields(value, list(model_fields))
    return repr(value)


def _spell_fields(value: Any, names: list[str]) -> str:
    fields = ", ".join(f"{name}={canonical(getattr(value, name))}" for name in names)
    return f"{type(value).__name__}({fields})"


def _finishes_a_task(mode: str, chunk: Any) -> bool:
    """Chunks that the tasks of one step send as they finish, so in any order."""
    if mode == "updates":
        return True
    if mode == "tasks":
        return isinstance(chunk, Mapping) and "result" in chunk
    return mode == "debug" and isinstance(chunk, Mapping) and chunk.get("type") == "task_result"


def normalise_stream(chunks: Iterable[tuple[Any, ...]]) -> list[str]:
    """One line per chunk, except that the chunks tasks send as they finish ("updates", and
    the results of "tasks" and "debug") between two other chunks become one line per mode
    holding them as a sorted multiset: tasks of one step finish in any order. (A stream of
    "updates" alone is therefore one multiset.) A chunk is `(mode, chunk)`, or
    `(namespace, mode, chunk)` as `stream(..., subgraphs=True)` gives it.
    """
    lines: list[str] = []
    pending: dict[str, list[str]] = {}

    def flush() -> None:
        for mode in sorted(pending):
            lines.append(f"{mode} [" + ", ".join(sorted(pending[mode])) + "]")
        pending.clear()

    for *namespace, mode, chunk in chunks:
        text = " ".join(canonical(part) for part in (*namespace, chunk))
        if _finishes_a_task(mode, chunk):
            pending.setdefault(mode, []).append(text)
        else:
            flush()
            lines.append(f"{mode} {text}")
    flush()
    return lines


def tidy(chunks: Iterable[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The chunks of one stream with what differs from run to run normalised: each task id
    becomes "task-1", "task-2"... in order of first appearance, a namespace element
    "node:<task id>" becomes "node", "debug" chunks lose their timestamp, and an error in a
    task result is known by its class name.
    """
    ids: dict[str, str] = {}

    def payload(value: Any) -> Any:
        if not isinstance(value, Mapping) or "id" not in value:
            return value
        value = dict(value)
        value["id"] = ids.setdefault(value["id"], f"task-{len(ids) + 1}")
        if isinstance(value.get("error"), BaseException):
            value["error"] = Raised(type(value["error"]).__name__)
        return value

    tidied: list[tuple[Any, ...]] = []
    for *namespace, mode, chunk in chunks:
        if mode == "tasks":
            chunk = payload(chunk)
        elif mode == "debug" and isinstance(chunk, Mapping):
            chunk = {k: v for k, v in chunk.items() if k != "timestamp"}
            chunk["payload"] = payload(chunk.get("payload"))
        if namespace:
            namespace = [tuple(part.split(":")[0] for part in namespace[0])]
        tidied.append((*namespace, mode, chunk))
    return tidied


def _drain(start: Callable[[], Any], run_async: bool) -> tuple[list[Any], Exception | None]:
    """Consume a stream (an async one under `asyncio.run`): its chunks, and the exception
    that ended it, even midway."""

    async def drain_async() -> tuple[list[Any], Exception | None]:
        seen: list[Any] = []
        try:
            async for chunk in start():
                seen.append(chunk)
        except Exception as error:
            return seen, error
        return seen, None

    if run_async:
        return asyncio.run(drain_async())
    seen: list[Any] = []
    try:
        for chunk in start():
            seen.append(chunk)
    except Exception as error:
        return seen, error
    return seen, None


def _collect(
    start: Callable[[], Any], lines: Callable[[list[Any]], list[str]], run_async: bool = False
) -> tuple[str, ...]:
    """Consume a stream; an exception, even midway, ends it with a "raised X" line."""
    seen, error = _drain(start, run_async)
    if error is not None:
        return (*lines(seen), canonical(Raised(type(error).__name__)))
    return tuple(lines(seen))


def _tagged(case: Case, chunk: Any) -> tuple[Any, ...]:
    """A chunk of the case's stream as `(mode, chunk)` or `(namespace, mode, chunk)`."""
    if not isinstance(case.stream_mode, str):  # a list of modes: the library tags them
        return chunk
    if case.subgraphs:
        return (chunk[0], case.stream_mode, chunk[1])
    return (case.stream_mode, chunk)


def _run_one(case: Case, app: Any, given: Any) -> Run:
    """Run one input three times: invoke, the case's stream mode(s), and "values"."""
    stream, invoke = (app.astream, app.ainvoke) if case.run_async else (app.stream, app.invoke)

    def args() -> tuple[Any, Any]:  # fresh copies: a library may mutate what it is given
        config = copy.deepcopy(dict(case.config)) if case.config is not None else None
        return copy.deepcopy(given), config

    def kwargs(**more: Any) -> dict[str, Any]:
        return {**copy.deepcopy(dict(case.run_kwargs or {})), **more}

    def mixed() -> Any:
        mode = case.stream_mode
        more = {"subgraphs": True} if case.subgraphs else {}
        return stream(
            *args(), **kwargs(stream_mode=mode if isinstance(mode, str) else list(mode), **more)
        )

    def mixed_lines(seen: list[Any]) -> list[str]:
        return normalise_stream(tidy(_tagged(case, chunk) for chunk in seen))

    printed: list[str] = []

    @contextlib.contextmanager
    def printing(label: str) -> Iterator[None]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            yield
        printed.extend(f"{label}: {line}" for line in out.getvalue().splitlines())

    with printing("invoke"):
        try:
            value = invoke(*args(), **kwargs())
            result = canonical(asyncio.run(value) if case.run_async else value)
        except Exception as error:
            result = canonical(Raised(type(error).__name__))
    with printing("stream"):
        streamed = _collect(mixed, mixed_lines, case.run_async)
    with printing("values"):
        values = _collect(
            lambda: stream(*args(), **kwargs(stream_mode="values")),
            lambda seen: [canonical(value) for value in seen],
            case.run_async,
        )
    return Run(canonical(given), result, streamed, values, tuple(printed))


def observe(case: Case, lib: Lib) -> Observation:
    """Build the case's graph with `lib` and run every input through invoke and stream."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            app = case.build(lib)
        except Exception as error:
            build, runs = canonical(Raised(type(error).__name__)), ()
        else:
            build, runs = "ok", tuple(_run_one(case, app, given) for given in case.inputs)
    own = None
    if lib.warning is not None:
        own = tuple(str(w.message) for w in caught if issubclass(w.category, lib.warning))
    return Observation(lib.name, build, runs, own)


def appender(name: str, key: str = "log") -> Callable[[Any], dict[str, list[str]]]:
    """A node called `name` that appends its name to the list under `key`."""

    def node(state: Any) -> dict[str, list[str]]:
        return {key: [name]}

    node.__name__ = name
    return node


def describe(observation: Observation) -> list[str]:
    """The observation as indented lines, for reading and for diffs."""
    lines = [f"build: {observation.build}"]
    for run in observation.runs:
        lines.append(f"input {run.input}")
        lines.append(f"  invoke: {run.invoke}")
        lines.append("  stream:")
        lines.extend(f"    {line}" for line in run.stream)
        lines.append("  values stream:")
        lines.extend(f"    {line}" for line in run.values)
        if run.printed:
            lines.append("  printed:")
            lines.extend(f"    {line}" for line in run.printed)
    return lines


def compare(case: Case, expected: Observation, actual: Observation) -> list[str]:
    """What differs between the oracle's observation and the library's, as readable text."""
    problems = []
    if expected != actual:
        diff = difflib.unified_diff(
            describe(expected), describe(actual), expected.library, actual.library, lineterm=""
        )
        problems.append(f"case {case.name!r}: observations differ\n" + "\n".join(diff))
    if actual.warnings is not None:
        if case.warns and not actual.warnings:
            problems.append(f"case {case.name!r}: {actual.library} should have warned")
        if not case.warns and actual.warnings:
            problems.append(f"case {case.name!r}: unexpected warnings {actual.warnings}")
    return problems
