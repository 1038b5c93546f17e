"""Random sequences of thread operations for the fuzz suite: what a user does to one
checkpointed thread between runs (`Op`, drawn by `operations`), and `observe_operations`,
which does them with one library's saver (`InMemorySaver` or `SqliteSaver`) and records
every returned value and the thread's state after each.

An operation is one of: "invoke" (the blueprint's input), "none" (`invoke(None)`: resume
or replay the head), "resume" (`Command(resume=value)`), "answer" (`Command(resume={id:
value})` for every pending interrupt), "update" (`update_state(values, as_node)`),
"bulk" (`bulk_update_state` of one or two supersteps), "state" (`get_state`), "history"
(`get_state_history` with a `limit`, `before` and `filter`), "replay" (`invoke(None)`
from an earlier checkpoint), "fork" (`update_state` on an earlier checkpoint, then
`invoke(None)` from the fork) and "rerun" (the input again, from an earlier checkpoint).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.conformance.harness import Lib, Raised, canonical
from tests.fuzz.graphs import (
    END,
    PAYLOAD_ID,
    START,
    Blueprint,
    _error_name,
    _snapshot,
    build,
    config_of,
    scrub,
)

KINDS = (
    "invoke", "none", "resume", "answer", "update", "bulk", "state", "history",
    "replay", "fork", "rerun",
)  # fmt: skip

UPDATES: tuple[Any, ...] = (
    {"log": ["edited"]},
    {"last": "edit", "n": 7},
    {"tags": ["t"], "total": 2, "seen": "s"},
    {},
    None,
)
"""The values an "update" or "bulk" writes (None: `update_state(config, None)`)."""

RUNS = ("invoke", "none", "resume", "answer", "replay", "fork", "rerun")
"""The kinds that run the graph, so take a `durability=`."""

DURABILITIES = (None, "sync", "async", "exit")
"""Drawn per operation that runs the graph (None: each library's default, "async")."""

FILTERS: tuple[dict[str, Any] | None, ...] = (
    None, {"source": "update"}, {"source": "loop"}, {"step": 1}, {"source": "input"},
)  # fmt: skip


@dataclass(frozen=True)
class Op:
    """One operation: its `kind`, two small numbers that pick what it is given (a
    checkpoint of the history, a node, the values, a limit) and, for one that runs the
    graph, its durability."""

    kind: str
    pick: int = 0
    more: int = 0
    durability: str | None = None
    """The `durability=` of an operation that runs the graph (None: the default)."""


def operations(count: int = 8) -> st.SearchStrategy[list[Op]]:
    """One to `count` operations, the first mostly an "invoke"."""
    op = st.builds(
        Op,
        st.sampled_from(KINDS),
        st.integers(0, 30),
        st.integers(0, 30),
        st.sampled_from(DURABILITIES),
    )
    op = op.map(lambda op: op if op.kind in RUNS else dataclasses.replace(op, durability=None))
    first = st.one_of(
        st.builds(Op, st.just("invoke"), durability=st.sampled_from(DURABILITIES)), op
    )
    return st.tuples(first, st.lists(op, min_size=2, max_size=count - 1)).map(
        lambda t: [t[0], *t[1]]
    )


@functools.cache
def savers(library: str) -> tuple[Any, Any, Any]:
    """`InMemorySaver`, `SqliteSaver` and `StateUpdate` of one library."""
    if library == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.checkpoint.sqlite import SqliteSaver
        from langgraph.types import StateUpdate
    else:
        from graphkit.checkpoint import InMemorySaver
        from graphkit.checkpoint.sqlite import SqliteSaver
        from graphkit.types import StateUpdate
    return InMemorySaver, SqliteSaver, StateUpdate


@contextlib.contextmanager
def saver_of(lib: Lib, kind: str) -> Iterator[Any]:
    memory, sqlite, _ = savers(lib.name)
    if kind == "memory":
        yield memory()
    else:
        with sqlite.from_conn_string(":memory:") as saver:
            yield saver


def as_node_of(blueprint: Blueprint, pick: int) -> str | None:
    """None, a node of the blueprint, or now and then START or END."""
    choices = [None, *blueprint.names, *blueprint.names, START, END]
    return choices[pick % len(choices)]


def observe_operations(
    blueprint: Blueprint, ops: list[Op], lib: Lib, saver: str, durability: str | None
) -> list[str]:
    """Each operation's line (what it returned, or "raised X"), the thread's snapshot
    after each that may change it, and the whole history at the end; every id replaced by
    its order of first appearance."""
    lines: list[str] = []
    with warnings.catch_warnings(), saver_of(lib, saver) as checkpointer:
        warnings.simplefilter("ignore")
        try:
            app = build(blueprint, lib, saver=checkpointer)
        except Exception as error:
            return [f"build raised {type(error).__name__}"]
        thread = config_of(blueprint)
        thread["configurable"] = {"thread_id": "1"}
        for op in ops:
            if _grown(app, thread):
                lines.append("stopped: the thread grew too large")
                break
            # a run's line names its durability (K8 is told by it)
            ran = (op.durability or durability) if op.kind in RUNS else None
            said = f"{op.kind} ({ran})" if ran else op.kind
            try:
                lines.append(f"{said}: {_do(app, blueprint, op, lib, thread, durability)}")
            except Exception as error:
                lines.append(f"{said}: {canonical(Raised(_error_name(error)))}")
            if op.kind not in ("state", "history"):
                lines.append("  then " + _state(app, thread))
        lines += ["history:", *(_snapshot(s) for s in app.get_state_history(thread))]
    seen: dict[str, str] = {}
    text = "\n".join(lines)
    named = PAYLOAD_ID.sub(lambda m: seen.setdefault(m.group(0), f"<id{len(seen)}>"), text)
    return named.split("\n")


TOO_LARGE = 500
"""Pending tasks or log entries past which a sequence stops: `Send`s fanning out on each
resume grow a thread exponentially (both sides stop alike, so nothing is hidden)."""


def _grown(app: Any, thread: dict) -> bool:
    try:
        state = app.get_state(thread)
    except Exception:
        return False
    log = state.values.get("log", []) if isinstance(state.values, dict) else []
    return len(state.tasks) > TOO_LARGE or len(log) > TOO_LARGE


def _state(app: Any, thread: dict) -> str:
    try:
        return _snapshot(app.get_state(thread))
    except Exception as error:
        return canonical(Raised(type(error).__name__))


def _earlier(app: Any, thread: dict, pick: int) -> dict[str, Any]:
    """The config of a checkpoint of the thread's history (the thread's own if it has
    none), with the run's recursion limit."""
    history = list(app.get_state_history(thread))
    past = history[pick % len(history)].config if history else thread
    return {**past, "recursion_limit": thread["recursion_limit"]}


def _do(app: Any, blueprint: Blueprint, op: Op, lib: Lib, thread: dict, durability: Any) -> str:
    """Do one operation; what it returned, as a line."""
    durability = op.durability or durability
    run = {"durability": durability} if durability else {}
    given = copy.deepcopy(blueprint.input)
    values = copy.deepcopy(UPDATES[op.more % len(UPDATES)])
    as_node = as_node_of(blueprint, op.pick)
    if op.kind == "invoke":
        return canonical(scrub(app.invoke(given, thread, **run)))
    if op.kind == "none":
        return canonical(scrub(app.invoke(None, thread, **run)))
    if op.kind == "resume":
        return canonical(scrub(app.invoke(lib.Command(resume=f"r{op.pick}"), thread, **run)))
    if op.kind == "answer":
        pending = app.get_state(thread).interrupts
        answer = lib.Command(resume={i.id: f"a{op.pick} {i.value}" for i in pending})
        return canonical(scrub(app.invoke(answer, thread, **run)))
    if op.kind == "update":
        return canonical(app.update_state(thread, values, as_node=as_node))
    if op.kind == "bulk":
        update = savers(lib.name)[2]
        steps = [[update(values, as_node)]]
        if op.pick % 3 == 0:
            steps.append([update({"log": ["bulk"]}, as_node_of(blueprint, op.more))])
        return canonical(app.bulk_update_state(thread, steps))
    if op.kind == "state":
        return _snapshot(app.get_state(thread))
    if op.kind == "history":
        options: dict[str, Any] = {"filter": FILTERS[op.more % len(FILTERS)]}
        if op.pick % 3:
            options["limit"] = op.pick % 4
        if op.more % 2:
            options["before"] = _earlier(app, thread, op.pick)
        return canonical([_snapshot(s) for s in app.get_state_history(thread, **options)])
    past = _earlier(app, thread, op.pick)
    if op.kind == "replay":
        return canonical(scrub(app.invoke(None, past, **run)))
    if op.kind == "rerun":
        return canonical(scrub(app.invoke(given, past, **run)))
    forked = app.update_state(past, values, as_node=as_node)
    config = {**forked, "recursion_limit": thread["recursion_limit"]}
    return f"{canonical(forked)} ran {canonical(scrub(app.invoke(None, config, **run)))}"
