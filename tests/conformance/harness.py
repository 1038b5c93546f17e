"""Differential conformance: run one graph on LangGraph and on graphkit, compare what a user sees.

A `Case` builds a graph from a `Lib` (the few names a graph needs from one library), so the
same case runs on either side. `observe` runs it and records an `Observation`: the result of
`invoke`, the `stream` of ["updates", "values"] chunks and the "values" stream, per input, with
every value turned into a canonical string so that unhashable state (lists, dicts, models)
compares exactly. Two libraries conform on a case when their observations are equal.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import functools
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
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

    def __repr__(self) -> str:
        return f"Lib({self.name!r})"


@functools.cache
def load_langgraph() -> Lib:
    """The oracle."""
    import langgraph.channels
    import langgraph.errors
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Command, Send

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
    )


@functools.cache
def load_graphkit() -> Lib:
    """The library under test; imported here so that collecting the suite never needs it.

    A missing or half-written graphkit raises ImportError here, which fails the test.
    """
    import graphkit.channels
    import graphkit.errors
    from graphkit import END, START, Command, Send, StateGraph

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

    def __repr__(self) -> str:
        return f"Case({self.name!r})"


@dataclass(frozen=True)
class Run:
    """What one input produced: `invoke`, the mixed stream and the "values" stream."""

    input: str
    invoke: str
    stream: tuple[str, ...]
    values: tuple[str, ...]


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


def normalise_stream(chunks: Iterable[tuple[str, Any]]) -> list[str]:
    """One line per chunk, except that the "updates" chunks between two other chunks become
    one line holding them as a sorted multiset: tasks of one step finish in any order.
    (A stream of "updates" alone is therefore one multiset.)
    """
    lines: list[str] = []
    pending: list[str] = []

    def flush() -> None:
        if pending:
            lines.append("updates [" + ", ".join(sorted(pending)) + "]")
            pending.clear()

    for mode, chunk in chunks:
        if mode == "updates":
            pending.append(canonical(chunk))
        else:
            flush()
            lines.append(f"{mode} {canonical(chunk)}")
    flush()
    return lines


def _collect(
    start: Callable[[], Iterable[Any]], lines: Callable[[list[Any]], list[str]]
) -> tuple[str, ...]:
    """Consume a stream; an exception, even midway, ends it with a "raised X" line."""
    seen: list[Any] = []
    try:
        for chunk in start():
            seen.append(chunk)
    except Exception as error:
        return (*lines(seen), canonical(Raised(type(error).__name__)))
    return tuple(lines(seen))


def _run_one(case: Case, app: Any, given: Any) -> Run:
    """Run one input three times: invoke, the case's stream mode(s), and "values"."""

    def args() -> tuple[Any, Any]:  # fresh copies: a library may mutate what it is given
        config = copy.deepcopy(dict(case.config)) if case.config is not None else None
        return copy.deepcopy(given), config

    def mixed() -> Iterable[tuple[str, Any]]:
        mode = case.stream_mode
        if isinstance(mode, str):  # one mode: bare chunks, tagged here
            return ((mode, chunk) for chunk in app.stream(*args(), stream_mode=mode))
        return app.stream(*args(), stream_mode=list(mode))

    try:
        result = canonical(app.invoke(*args()))
    except Exception as error:
        result = canonical(Raised(type(error).__name__))
    return Run(
        input=canonical(given),
        invoke=result,
        stream=_collect(mixed, normalise_stream),
        values=_collect(
            lambda: app.stream(*args(), stream_mode="values"),
            lambda seen: [canonical(value) for value in seen],
        ),
    )


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
