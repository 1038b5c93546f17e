"""Random graphs for the fuzz suite: a plain description (`Blueprint`), hypothesis
strategies that draw one, `build` that turns it into a compiled graph with either library's
classes, and `observe` that runs it and records what a user sees.

A blueprint holds only names and numbers; the node and router functions made from it are
the same Python code on both sides and read nothing but the state they are given. Only the
library's own names (`StateGraph`, `Send`, `Command`, `interrupt`, `InMemorySaver`) differ.
A `Way` says how a blueprint is run (sync or async, which stream modes, durability,
breakpoints, a cache); `observe_way` runs it so.
"""

from __future__ import annotations

import copy
import functools
import importlib
import operator
import re
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict

from hypothesis import strategies as st

from tests.conformance.harness import Lib, Raised, _drain, canonical, normalise_stream, tidy

RECURSION_LIMIT = 8
"""Small, so a random loop ends quickly (in GraphRecursionError, on both sides)."""

START, END = "__start__", "__end__"
GHOST = "ghost"
"""A name no blueprint declares as a node: an edge or a router naming it is a mistake."""


STATE_KEYS = ("log", "total", "tags", "last", "n", "seen")


def merge_tags(left: list, right: list) -> list:
    """The custom reducer: a sorted union, so the order writes arrive in cannot show."""
    return sorted(set(left) | set(right))


def accumulate(left: list, right: Any) -> list:
    """A `Topic`-like reducer: one value or a list of them, appended."""
    return left + (right if isinstance(right, list) else [right])


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]
    total: Annotated[int, operator.add]
    tags: Annotated[list, merge_tags]
    last: str
    n: int
    seen: Annotated[list, accumulate]


class Flaky(Exception):
    """What a "flaky" node raises the first time it sees a state."""


class Grown(Exception):
    """What a node raises when the state it is given holds more than `GROWN` entries."""


GROWN = 2000
"""List entries (`log`, `tags` and `seen` together) past which a node raises `Grown`. A
"subgraph" node on the parent's state hands its lists back whole, so the parent's
reducers add them again: a loop through one doubles them each step, and a "call" node
whose inner graph keeps its thread ("own") hands back all it ever gathered; one
operation could grow a thread to GBs before the check between operations
(`threads.TOO_LARGE`), and LangGraph's ormsgpack then aborts the process or hangs.
Checked in the nodes (every kind, the inner graphs' too), from the state alone, so both
libraries fail the same task at the same step, the run ending as any node's error does;
a state that differs in size between them still shows (one raises where the other goes
on). A state grows at most (tasks in a step + 1) times past it."""


def _bounded(state: dict, name: str) -> None:
    """Raise `Grown` in node `name` (named, as a node's error is: property 2)."""
    size = sum(len(state.get(key) or ()) for key in ("log", "tags", "seen"))
    if size > GROWN:
        raise Grown(f"node '{name}': the state holds {size} list entries (more than {GROWN})")


# --- the description --------------------------------------------------------------------


@dataclass(frozen=True)
class Node:
    """One node: what it writes and how it returns it.

    `kind` is "dict" (return the update), "command" (`Command(update, goto)`), "none"
    (return None), "bad" (return a number: a mistake), "interrupt" (ask, then write the
    answer), "overwrite" (the log as `Overwrite([name])`), "flaky" (raise `Flaky` the first
    time a state is seen; `retry` gives it a `RetryPolicy` of two attempts), "subgraph" (a
    compiled two-node graph on the same state) or "call" (a node function that invokes
    that graph). `inner` is the two-node graph's kind: "plain", "asks" (its second node
    interrupts), "own" (compiled with `checkpointer=True`) or "parent" (its second node
    returns `Command(graph=Command.PARENT, goto=goto)`).
    """

    name: str
    writes: tuple[str, ...] = ("log",)
    kind: str = "dict"
    goto: tuple[str, ...] = ()
    defer: bool = False
    retry: bool = False
    inner: str = "plain"


@dataclass(frozen=True)
class Router:
    """A conditional edge from `source`: picks among `targets` by the length of the log.

    `style` is "name" (one target), "list" (two targets) or "send" (a `Send` per target,
    each carrying its own small state). `path_map` is None, "list" or "dict" (keys
    "k0", "k1"... and "stop" for END). Once the log holds `stop_at` entries it picks END.
    """

    source: str
    targets: tuple[str, ...]
    style: str = "name"
    path_map: str | None = None
    stop_at: int = 4


@dataclass(frozen=True)
class Blueprint:
    nodes: tuple[Node, ...]
    edges: tuple[tuple[str, str], ...] = ()
    waits: tuple[tuple[tuple[str, ...], str], ...] = ()
    routers: tuple[Router, ...] = ()
    input: Any = field(default_factory=dict)
    checkpointer: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(node.name for node in self.nodes)


@dataclass(frozen=True)
class Way:
    """How property 7 runs a blueprint: `astream` with async nodes or `stream`; the stream
    `modes` (a list, so chunks come as `(mode, chunk)`), with `subgraphs=True` or not; a
    `durability`; `interrupt_before`/`interrupt_after` nodes given at "compile" or per
    "call" (resumed with None); a `cache` (every node with a `CachePolicy`; the run is
    repeated on a second thread); and `goto`: the input as `Command(update=..., goto=goto)`.
    """

    run_async: bool = False
    modes: tuple[str, ...] = ("updates", "values")
    subgraphs: bool = False
    durability: str | None = None
    breakpoints: str | None = None
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    cache: bool = False
    goto: str | None = None
    policies: tuple[tuple[str, Any], ...] = ()
    """Per node name, an object whose `apply(lib, name, function)` gives the node's function and
    `add_node` options (property 9's error handlers, retry and cache policies)."""


# --- building it with one library -----------------------------------------------------------


@functools.cache
def extras(library: str) -> tuple[Callable[[Any], Any], type]:
    """`interrupt` and `InMemorySaver` of one library."""
    if library == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.types import interrupt
    else:
        from graphkit import InMemorySaver, interrupt
    return interrupt, InMemorySaver


def named_in(lib: Lib, module: str, name: str) -> Any:
    """`name` from `lib`'s `module` (graphkit mirrors LangGraph's module paths)."""
    return getattr(importlib.import_module(f"{lib.name}.{module}"), name)


def _update(name: str, writes: Iterable[str], state: dict) -> dict[str, Any]:
    seen = len(state.get("log", []))
    values = {
        "log": [name],
        "total": seen + 1,
        "tags": [f"{name}{seen % 3}"],
        "last": name,
        "n": state.get("n", 0) + 1,
        "seen": name,
    }
    return {key: values[key] for key in writes}


def make_inner(lib: Lib, name: str, inner: str, goto: tuple[str, ...] = ()) -> Any:
    """The two-node graph of a "subgraph" or "call" node."""
    graph = lib.StateGraph(State)

    def inner_a(state: dict) -> dict:
        _bounded(state, name)
        return {"log": [f"{name}/a"], "total": 1}

    graph.add_node("inner_a", inner_a)
    if inner == "parent":
        command = lib.Command
        to = goto[0] if len(goto) == 1 else list(goto)
        graph.add_node(
            "inner_b",
            lambda state: command(graph=command.PARENT, goto=to, update={"log": [f"{name}/b"]}),
        )
    elif inner == "asks":
        interrupt = extras(lib.name)[0]
        graph.add_node("inner_b", lambda state: {"tags": [f"{name}/b={interrupt(name)}"]})
    else:
        graph.add_node("inner_b", lambda state: {"tags": [f"{name}/b"]})
    graph.add_edge(lib.START, "inner_a")
    graph.add_edge("inner_a", "inner_b")
    return graph.compile(checkpointer=True if inner == "own" else None)


def made_async(function: Callable[[dict], Any]) -> Callable[[dict], Any]:
    """The same node as a coroutine function (for the async path)."""

    async def node(state: dict) -> Any:
        return function(state)

    return node


def _pick(targets: tuple[str, ...], state: dict, offset: int = 0) -> str:
    return targets[(len(state.get("log", [])) + state.get("n", 0) + offset) % len(targets)]


def make_node(lib: Lib, node: Node) -> Any:
    """The node's function (or compiled subgraph) built with `lib`'s names."""
    name, writes = node.name, node.writes
    if node.kind == "subgraph":
        return make_inner(lib, name, node.inner, node.goto)
    if node.kind == "call":
        inner = make_inner(lib, name, node.inner, node.goto)

        def calls(state: dict) -> dict:
            _bounded(state, name)
            done = inner.invoke({"log": [], "n": state.get("n", 0)})
            return {"log": done["log"], "tags": done.get("tags", [])}

        return calls
    failed: set[str] = set()
    if node.kind == "interrupt":
        interrupt = extras(lib.name)[0]

        def asks(state: dict) -> dict:
            _bounded(state, name)
            answer = interrupt(f"{name}?")
            return {**_update(name, writes, state), "log": [f"{name}={answer}"]}

        return asks

    def acts(state: dict) -> Any:
        _bounded(state, name)
        update = _update(name, writes, state)
        if node.kind == "flaky" and canonical(state) not in failed:
            failed.add(canonical(state))
            raise Flaky(f"node '{name}' fails the first time it sees a state")
        if node.kind == "overwrite":
            return {**update, "log": named_in(lib, "types", "Overwrite")([name])}
        if node.kind == "none":
            return None
        if node.kind == "bad":
            return len(update)
        if node.kind == "command":
            stop = len(state.get("log", [])) >= 4
            goto = [] if stop or not node.goto else list(node.goto)
            return lib.Command(update=update, goto=goto[0] if len(goto) == 1 else goto)
        return update

    return acts


def make_router(lib: Lib, router: Router) -> tuple[Callable[[dict], Any], Any]:
    """The router function and its path map."""
    targets = router.targets
    keys = {target: f"k{i}" for i, target in enumerate(targets)}
    path_map: Any = None
    if router.path_map == "list":
        path_map = [*targets, END] if END not in targets else list(targets)
    elif router.path_map == "dict":
        path_map = {key: target for target, key in keys.items()} | {"stop": END}

    def spell(target: str) -> str:
        if router.path_map != "dict":
            return target
        return "stop" if target == END and END not in keys else keys[target]

    def route(state: dict) -> Any:
        if len(state.get("log", [])) >= router.stop_at:
            return spell(END)
        first = _pick(targets, state)
        if router.style == "name":
            return spell(first)
        if router.style == "list":
            return [spell(first), spell(_pick(targets, state, 1))]
        sends = [t for t in targets if t != END]
        return [lib.Send(t, {"log": [f"to {t}"], "n": i}) for i, t in enumerate(sends)]

    return route, path_map


def _endpoint(lib: Lib, name: str) -> str:
    return {START: lib.START, END: lib.END}.get(name, name)


def build(blueprint: Blueprint, lib: Lib, way: Way | None = None, saver: Any = None) -> Any:
    """The blueprint's graph, compiled with `lib` (and `saver`, or a fresh checkpointer if
    it asks), with the way's async nodes, cache and compile-time breakpoints."""
    way = way or Way()
    graph = lib.StateGraph(State)
    for node in blueprint.nodes:
        options: dict[str, Any] = {"defer": True} if node.defer else {}
        if node.retry:
            options["retry_policy"] = lib.RetryPolicy(
                max_attempts=2, initial_interval=0.0, jitter=False
            )
        if way.cache:
            # keyed by value: LangGraph's default key pickles the state, so equal values
            # that are not the same objects miss (compatibility.md, "Known differences")
            options["cache_policy"] = named_in(lib, "types", "CachePolicy")(key_func=canonical)
        function = make_node(lib, node)
        if (policy := dict(way.policies).get(node.name)) is not None:
            function, more_options = policy.apply(lib, node.name, function)
            options.update(more_options)
        if way.run_async and callable(function) and not hasattr(function, "invoke"):
            function = made_async(function)
        graph.add_node(node.name, function, **options)
    for source, target in blueprint.edges:
        graph.add_edge(_endpoint(lib, source), _endpoint(lib, target))
    for sources, target in blueprint.waits:
        graph.add_edge(list(sources), _endpoint(lib, target))
    for router in blueprint.routers:
        route, path_map = make_router(lib, router)
        graph.add_conditional_edges(_endpoint(lib, router.source), route, path_map)
    checkpointer = saver or (extras(lib.name)[1]() if blueprint.checkpointer else None)
    more: dict[str, Any] = {}
    if way.cache or any(policy.cached for _, policy in way.policies):
        more["cache"] = named_in(lib, "cache.memory", "InMemoryCache")()
    if way.breakpoints == "compile":
        more.update(interrupt_before=list(way.before), interrupt_after=list(way.after))
    return graph.compile(checkpointer=checkpointer, **more)


# --- running it -----------------------------------------------------------------------------


INTERRUPT = "__interrupt__"


@dataclass(frozen=True)
class Outcome:
    """What one library did with a blueprint: `build` is "ok" or "raised X"; `lines` are
    the stream, one line per "values" chunk and one multiset per step of "updates", then
    the resumes' streams and the final values; `error` is the exception that ended it."""

    library: str = field(compare=False)
    build: str
    lines: tuple[str, ...] = ()
    summary: tuple[str, ...] = field(default=(), compare=False)
    """Per stream, its updates as one multiset and its last values: what stays put when the
    chunks of a step that interrupts arrive in a racy order (K3 in test_fuzz)."""
    error: BaseException | None = field(default=None, compare=False)
    warnings: tuple[str, ...] = field(default=(), compare=False)

    @property
    def refused(self) -> bool:
        return self.error is not None


def scrub(value: Any) -> Any:
    """Interrupts shown by value (their ids are the library's own)."""
    if type(value).__name__ == "Interrupt" and hasattr(value, "value"):
        return Raised(f"Interrupt {canonical(value.value)}")
    if isinstance(value, dict):
        return {key: scrub(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        items = [scrub(item) for item in value]
        return type(value)(
            sorted(items, key=canonical)
            if items and all(isinstance(item, Raised) for item in items)
            else items
        )
    return value


def config_of(blueprint: Blueprint, thread: str = "1") -> dict[str, Any]:
    config: dict[str, Any] = {"recursion_limit": RECURSION_LIMIT}
    if blueprint.checkpointer:
        config["configurable"] = {"thread_id": thread}
    return config


def _stream(app: Any, given: Any, config: dict) -> tuple[list[str], str, BaseException | None]:
    """One stream's lines, its race-free summary (every "updates" chunk as one multiset, the
    last "values" chunk without its interrupts, and those as one multiset) and the
    exception that ended it."""
    seen: list[Any] = []
    error = None
    try:
        for mode, chunk in app.stream(given, config, stream_mode=["updates", "values"]):
            seen.append((mode, scrub(chunk)))
    except Exception as failure:
        error = failure
    lines = normalise_stream(tidy(seen))
    updates = sorted(canonical(chunk) for mode, chunk in seen if mode == "updates")
    values = [chunk for mode, chunk in seen if mode == "values"]
    # each task that pauses sends its own values chunk, so which comes last is racy too
    paused = sorted(canonical(c[INTERRUPT]) for c in values if INTERRUPT in _keys(c))
    last = [canonical(_without_interrupt(chunk)) for chunk in values][-1:]
    summary = f"updates {updates} then {last} paused {paused}"
    if error is not None:
        # a node's non-dict return by its own name: it fails its step as a node's error
        # does (K5 may stand), where an Update's `InvalidUpdateError` comes after it
        lines.append(canonical(Raised(_error_name(error))))
        summary += " " + lines[-1]
    return lines, summary, error


def _keys(chunk: Any) -> Any:
    return chunk.keys() if isinstance(chunk, dict) else ()


def _without_interrupt(chunk: Any) -> Any:
    if isinstance(chunk, dict):
        return {key: value for key, value in chunk.items() if key != INTERRUPT}
    return chunk


def observe(blueprint: Blueprint, lib: Lib, resumes: int = 3) -> Outcome:
    """Build and run the blueprint with `lib`: stream its input, answer each pending
    interrupt (up to `resumes` times), then read the final values (`invoke` without a
    checkpointer, the thread's state with one)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            app = build(blueprint, lib)
        except Exception as error:
            return Outcome(lib.name, canonical(Raised(type(error).__name__)), error=error)
        config = config_of(blueprint)
        lines, first, error = _stream(app, copy.deepcopy(blueprint.input), config)
        summary = [first]
        if blueprint.checkpointer:
            for _ in range(resumes):
                if error is not None:
                    break
                pending = app.get_state(config).interrupts
                if not pending:
                    break
                answer = lib.Command(resume={i.id: f"ok {i.value}" for i in pending})
                more, brief, error = _stream(app, answer, config)
                lines += ["resume", *more]
                summary.append(brief)
            if error is None:
                lines.append("final " + canonical(scrub(app.get_state(config).values)))
                summary.append(lines[-1])
        elif error is None:
            try:
                result = app.invoke(copy.deepcopy(blueprint.input), config)
                lines.append("final " + canonical(scrub(result)))
            except Exception as failure:
                lines.append("final " + canonical(Raised(type(failure).__name__)))
                error = failure
            summary.append(lines[-1])
    own = tuple(
        f"{w.category.__name__}: {w.message}"
        for w in caught
        if lib.warning is not None and issubclass(w.category, lib.warning)
    )
    return Outcome(lib.name, "ok", tuple(lines), tuple(summary), error, own)


PAYLOAD_ID = re.compile(r"[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}|\b[0-9a-f]{32}\b")
"""Checkpoint, task and interrupt ids: each library's own, so compared by first appearance."""


def observe_checkpoints(blueprint: Blueprint, lib: Lib, resumes: int = 3) -> list[str] | None:
    """The "checkpoints" payloads of the blueprint's run and its resumes, each id replaced
    by its order of appearance, and "raised" where a stream failed; None if `lib` refuses
    to build the graph (properties 1-2 compare refusals)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            app = build(blueprint, lib)
        except Exception:
            return None
        config = config_of(blueprint)
        lines: list[str] = []
        given: Any = copy.deepcopy(blueprint.input)
        for _ in range(resumes + 1):
            try:
                for chunk in app.stream(given, config, stream_mode="checkpoints"):
                    lines.append(canonical(chunk))
            except Exception:
                lines.append("raised")
                break
            pending = app.get_state(config).interrupts if blueprint.checkpointer else ()
            if not pending:
                break
            given = lib.Command(resume={item.id: f"ok {item.value}" for item in pending})
            lines.append("resume")
    seen: dict[str, str] = {}
    text = "\n".join(lines)
    named = PAYLOAD_ID.sub(lambda m: seen.setdefault(m.group(0), f"<id{len(seen)}>"), text)
    return named.split("\n")


def observe_thread(blueprint: Blueprint, lib: Lib, pick: int) -> list[str] | None:
    """A checkpointed run and its resumes, then every snapshot of its history, a replay
    from the `pick`-th of them (its updates as a multiset: a step's tasks finish in any
    order), a fork of it (`update_state` as one of the nodes, then a run) and the history
    after them; ids as "<id>". Saves are synchronous: LangGraph's
    async saves can race the next step. None if `lib` refuses the graph or its run."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            app = build(blueprint, lib)
            config = config_of(blueprint)
            given: Any = copy.deepcopy(blueprint.input)
            for _ in range(4):
                for _chunk in app.stream(given, config, durability="sync"):
                    pass
                if not (pending := app.get_state(config).interrupts):
                    break
                given = lib.Command(resume={item.id: f"ok {item.value}" for item in pending})
            history = list(app.get_state_history(config))
        except Exception:
            return None
        lines = [_snapshot(snapshot) for snapshot in history]
        past = history[pick % len(history)].config
        try:
            chunks = app.stream(None, past, stream_mode="updates", durability="sync")
            lines.append(
                f"replayed {sorted(PAYLOAD_ID.sub('<id>', canonical(scrub(c))) for c in chunks)}"
            )
        except Exception as error:
            lines.append(f"replay raised {type(error).__name__}")
        lines.append(_fork(app, past, blueprint.names[pick % len(blueprint.names)]))
        lines += [_snapshot(snapshot) for snapshot in app.get_state_history(config)]
    return [PAYLOAD_ID.sub("<id>", line) for line in lines]


def _fork(app: Any, past: dict, as_node: str) -> str:
    """`update_state` on an old checkpoint as `as_node`, then a run from the fork."""
    try:
        forked = app.update_state(past, {"log": ["edited"], "seen": "edit"}, as_node=as_node)
        config = {**forked, "recursion_limit": RECURSION_LIMIT}
        chunks = app.stream(None, config, stream_mode="updates", durability="sync")
        return f"forked as {as_node!r}: {sorted(canonical(scrub(c)) for c in chunks)}"
    except Exception as error:
        return f"fork as {as_node!r} raised {type(error).__name__}"


def observe_way(blueprint: Blueprint, way: Way, lib: Lib) -> tuple[list[str], list[str]]:
    """Run the blueprint the `way` says: each stream's chunks (normalised as property 1's),
    then, with a checkpointer, a resume (with answers to the interrupts, or None after a
    breakpoint or a `Flaky` failure) while the thread has a next step, the final values and
    the history. Ids are replaced by their order of appearance. Also a race-free summary
    (K3): each stream's chunks as one multiset, task ids aside."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            app = build(blueprint, lib, way)
        except Exception as error:
            return [f"build raised {type(error).__name__}"], []
        lines: list[str] = []
        summary: list[str] = []
        for thread in ("1", "2") if way.cache or way.policies else ("1",):
            lines.append(f"thread {thread}")
            _run_way(blueprint, way, lib, app, thread, lines, summary)
    seen: dict[str, str] = {}
    text = "\n".join(lines)
    named = PAYLOAD_ID.sub(lambda m: seen.setdefault(m.group(0), f"<id{len(seen)}>"), text)
    return named.split("\n"), [PAYLOAD_ID.sub("<id>", line) for line in summary]


TASK_NAME = re.compile(r"task-\d+")

SAVED = "saved after the failure:"
"""How `_run_way`'s line of what a node's error left on the thread begins."""

UNREADABLE = "get_state raised"
"""How `_run_way`'s line begins where the thread's state cannot be read: the writes a
paused or failed step saved conflict (its error's class follows)."""


def _run_way(
    blueprint: Blueprint, way: Way, lib: Lib, app: Any, thread: str, lines: list, summary: list
) -> None:
    config = config_of(blueprint, thread)
    options: dict[str, Any] = {"stream_mode": list(way.modes), "subgraphs": way.subgraphs}
    if way.durability:
        options["durability"] = way.durability
    if way.breakpoints == "call":
        options.update(interrupt_before=list(way.before), interrupt_after=list(way.after))
    given: Any = copy.deepcopy(blueprint.input)
    if way.goto is not None:
        given = lib.Command(update=given, goto=way.goto)
    stream = app.astream if way.run_async else app.stream
    for _ in range(4):
        chunks, error = _drain(functools.partial(stream, given, config, **options), way.run_async)
        tidied = tidy((*c[:-2], c[-2], _saved_errors(c[-2], scrub(c[-1]))) for c in chunks)
        lines += normalise_stream(tidied)
        name = _error_name(error)
        kept = _before_failed_step(tidied) if name in NODE_ERRORS else tidied
        # ids replaced before sorting: two paused tasks' chunks differ first at their
        # interrupts' random ids, which would order them at random
        texts = sorted(
            PAYLOAD_ID.sub("<id>", TASK_NAME.sub("task", " ".join(map(canonical, c)))) for c in kept
        )
        summary.append(f"stream {texts} {name}")
        if error is not None:
            lines.append(canonical(Raised(name)))
        if not blueprint.checkpointer or not isinstance(error, Flaky | None):
            return
        try:
            state = app.get_state(config)
        except named_in(lib, "errors", "InvalidUpdateError") as failed:
            # the step's saved writes cannot be applied (two to one plain key, or two
            # `Overwrite`s of one key): `get_state` raises in both libraries, so it is
            # compared as a value (K5: which writes LangGraph saved is a race)
            lines.append(f"{UNREADABLE} {type(failed).__name__}")
            summary.append(lines[-1])
            return
        pending = state.interrupts
        if error is not None:
            # what the failed step left saved (K5: LangGraph may drop a sibling's writes)
            lines.append(f"{SAVED} next {list(state.next)} asking {len(pending)}")
        if not state.next:
            break
        given = lib.Command(resume={i.id: f"ok {i.value}" for i in pending}) if pending else None
        lines.append("resume")
    lines.append("final " + canonical(scrub(app.get_state(config).values)))
    lines += [_snapshot(snapshot) for snapshot in app.get_state_history(config)]
    summary += lines[-1:]


RETURNED = "InvalidUpdateError (a node's return)"
"""A "bad" node's error: raised in its task (so in its step, beside the others), where
an Update's `InvalidUpdateError` comes after the step's tasks all finished."""

NODE_ERRORS = ("Flaky", "Grown", "Broken", "Missing", "HandlerFailed", RETURNED)
"""The errors a node raises at once (property 9's are defined in `policies.py`)."""


def _error_name(error: BaseException | None) -> str:
    """The error's class name; a node's bad return told from an Update's failure by the
    start of the message, which both libraries share ("Expected dict, got 5")."""
    name = type(error).__name__
    if name == "InvalidUpdateError" and str(error).startswith("Expected dict"):
        return RETURNED
    return name


def _before_failed_step(chunks: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The chunks of a stream a node's error ended, up to the last the root sent between
    steps ("values", "checkpoints", a debug checkpoint): what the failed step's other
    tasks stream before the error is a race (K5), so the summary leaves it out, a paused
    sibling's "values" chunk (its interrupt) too."""
    cut = 0
    for index, (*namespace, mode, chunk) in enumerate(chunks):
        root = not namespace or not namespace[0]
        paused = mode == "values" and INTERRUPT in _keys(chunk)
        between = (mode in ("values", "checkpoints") and not paused) or (
            mode == "debug" and isinstance(chunk, dict) and chunk.get("type") == "checkpoint"
        )
        if root and between:
            cut = index + 1
    return chunks[:cut]


ERROR_CLASS = re.compile(r"^\W*(\w+)\(")
"""The class at the start of a saved task error's text ("InvalidUpdateError('...')")."""


def _error_class(error: Any) -> str | None:
    """A task error by its class: the messages are graphkit's own (decisions.md, "Error
    messages"); a saved error comes back as its text."""
    if error is None or isinstance(error, BaseException):
        return error and type(error).__name__
    found = ERROR_CLASS.match(str(error))
    return found.group(1) if found else str(error)


def _saved_errors(mode: str, chunk: Any) -> Any:
    """A "checkpoints" chunk (or a debug "checkpoint" one) with each task's saved error,
    which it shows as text, known by its class, as `_snapshot` does (property 9's long
    run, seed 2718: a node returning a number, whose error handler asked)."""
    if mode == "debug" and isinstance(chunk, dict) and chunk.get("type") == "checkpoint":
        return {**chunk, "payload": _saved_errors("checkpoints", chunk.get("payload"))}
    if mode != "checkpoints" or not isinstance(chunk, dict) or "tasks" not in chunk:
        return chunk
    tasks = [
        {**task, "error": _error_class(task["error"])}
        if isinstance(task, dict) and task.get("error") is not None
        else task
        for task in chunk["tasks"]
    ]
    return {**chunk, "tasks": tasks}


def _snapshot(snapshot: Any) -> str:
    """A StateSnapshot by value (a Send task's path without LangGraph's third item, a
    difference compatibility.md lists; a task's error by its class)."""
    tasks = [
        (task.name, task.path[:2] if task.path[0] == "__pregel_push" else task.path,
         _error_class(task.error), task.result,
         [(i.value, i.response_schema) for i in task.interrupts], task.state)
        for task in snapshot.tasks
    ]  # fmt: skip
    shown = {
        "values": scrub(snapshot.values), "next": snapshot.next, "tasks": tasks,
        "metadata": snapshot.metadata, "config": snapshot.config,
        "parent_config": snapshot.parent_config,
    }  # fmt: skip
    return canonical(shown)


# --- strategies -------------------------------------------------------------------------------

SAFE_NAME = st.text(alphabet=st.sampled_from("abcdefxyz_-0189 éß☃"), min_size=1, max_size=6).filter(
    lambda name: name.strip() == name and not name.startswith("__")
)
"""Node names both runtimes accept (no ':' '|' or reserved '__' names)."""

AWKWARD_NAME = st.text(
    alphabet=st.sampled_from([*list("ab \"'<>&\n\t\\{}[]|;#%`$é☃\u200b\x1b\x07\r"), "😀"]),
    min_size=1,
    max_size=8,
)
"""Node names for drawing: quotes, markup, newlines, control characters, Unicode."""


@st.composite
def node_names(draw: st.DrawFn, names: st.SearchStrategy[str] = SAFE_NAME) -> list[str]:
    """2 to 8 distinct names; now and then one is a state key (a mistake LangGraph refuses)."""
    found = draw(st.lists(names, min_size=2, max_size=8, unique=True))
    if draw(st.integers(0, 19)) == 0:
        found[draw(st.integers(0, len(found) - 1))] = draw(st.sampled_from(STATE_KEYS))
    return list(dict.fromkeys(found))


@st.composite
def blueprints(
    draw: st.DrawFn, names: st.SearchStrategy[str] = SAFE_NAME, interrupts: bool = False
) -> Blueprint:
    """A random graph: mostly well formed, sometimes with one of the mistakes a learner
    makes (an unknown node, no entry point, a node returning a number, two writes to a
    plain key in one step, a node named like a state key). With `interrupts`, at least
    one node asks (and the graph has a checkpointer)."""
    found = draw(node_names(names))
    mistakes = draw(st.integers(0, 9)) == 0
    targets = st.sampled_from([*found, END, GHOST] if mistakes else [*found, END])
    kinds = ["dict"] * 6 + ["command", "none", "subgraph", "call", "overwrite", "flaky"]
    kinds += ["interrupt"] * (2 * interrupts)
    if mistakes:
        kinds.append("bad")
    keys = (*STATE_KEYS[:4], "seen", "log", "log")
    writes = st.lists(st.sampled_from(keys), max_size=3, unique=True)
    inner = st.sampled_from(["plain", "plain", "asks" if interrupts else "plain", "own", "parent"])

    nodes = []
    for name in found:
        kind = draw(st.sampled_from(kinds))
        inside = draw(inner) if kind in ("subgraph", "call") else "plain"
        parent = inside == "parent"  # (its goto: where the Command.PARENT goes)
        goto = (
            tuple(draw(st.lists(targets, min_size=parent, max_size=2)))
            if kind == "command" or parent
            else ()
        )
        nodes.append(
            Node(
                name, tuple(draw(writes)), kind, goto, defer=draw(st.integers(0, 7)) == 0,
                retry=kind == "flaky" and draw(st.booleans()), inner=inside,
            )
        )  # fmt: skip

    sources = st.sampled_from(found)
    edges = [(START, draw(sources))]
    if mistakes and draw(st.booleans()):
        edges = []  # no entry point
    edges += draw(st.lists(st.tuples(sources, targets), max_size=len(found) + 1))
    waits = draw(
        st.lists(
            st.tuples(st.lists(sources, min_size=2, max_size=3, unique=True).map(tuple), sources),
            max_size=2,
        )
    )
    routers = draw(
        st.lists(
            st.builds(
                Router,
                source=st.sampled_from([START, *found]),
                targets=st.lists(targets, min_size=1, max_size=3, unique=True).map(tuple),
                style=st.sampled_from(["name", "name", "list", "send"]),
                path_map=st.sampled_from([None, "list", "dict"]),
                stop_at=st.integers(1, 6),
            ),
            max_size=3,
        )
    )
    given = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "log": st.lists(st.sampled_from(["x", "y"]), max_size=2),
                "n": st.integers(0, 3),
                "total": st.integers(0, 2),
                "last": st.just("input"),
            },
        )
    )
    if interrupts and all(node.kind != "interrupt" for node in nodes):
        nodes[-1] = Node(nodes[-1].name, nodes[-1].writes, "interrupt")
    # an interrupt without a checkpointer stops the run for good (K2, fixed): a few of those
    checkpointer = interrupts and draw(st.integers(0, 4)) > 0
    return Blueprint(tuple(nodes), tuple(edges), tuple(waits), tuple(routers), given, checkpointer)


@st.composite
def ways(draw: st.DrawFn, blueprint: Blueprint) -> Way:
    """A way to run `blueprint` (breakpoints and durability only with a checkpointer)."""
    cache = draw(st.integers(0, 3)) == 0
    # with a cache, no modes that show a task's result: a hit within a run races in
    # LangGraph (K6 in test_fuzz), so hits are compared by the values they give, and
    # "updates" is streamed too, as only it marks a hit, which tells K6 apart
    modes = ("updates", "values", "checkpoints") + (() if cache else ("tasks", "debug"))
    pick = st.lists(st.sampled_from(blueprint.names), max_size=2, unique=True).map(tuple)
    saved = blueprint.checkpointer
    chosen = draw(st.lists(st.sampled_from(modes), min_size=1, max_size=3, unique=True))
    return Way(
        run_async=draw(st.booleans()),
        modes=tuple(chosen) if not cache or "updates" in chosen else ("updates", *chosen),
        subgraphs=draw(st.booleans()),
        durability=draw(st.sampled_from([None, "sync", "async", "exit"])) if saved else None,
        breakpoints=draw(st.sampled_from([None, "compile", "call"])) if saved else None,
        before=draw(pick),
        after=draw(pick),
        cache=cache,
        goto=draw(st.sampled_from([None, None, *blueprint.names])),
    )
