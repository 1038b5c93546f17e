"""Random graphs for the fuzz suite: a plain description (`Blueprint`), hypothesis
strategies that draw one, `build` that turns it into a compiled graph with either library's
classes, and `observe` that runs it and records what a user sees.

A blueprint holds only names and numbers; the node and router functions made from it are
the same Python code on both sides and read nothing but the state they are given. Only the
library's own names (`StateGraph`, `Send`, `Command`, `interrupt`, `InMemorySaver`) differ.
"""

from __future__ import annotations

import copy
import functools
import operator
import re
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict

from hypothesis import strategies as st

from tests.conformance.harness import Lib, Raised, canonical, normalise_stream, tidy

RECURSION_LIMIT = 8
"""Small, so a random loop ends quickly (in GraphRecursionError, on both sides)."""

START, END = "__start__", "__end__"
GHOST = "ghost"
"""A name no blueprint declares as a node: an edge or a router naming it is a mistake."""


STATE_KEYS = ("log", "total", "tags", "last", "n")


def merge_tags(left: list, right: list) -> list:
    """The custom reducer: a sorted union, so the order writes arrive in cannot show."""
    return sorted(set(left) | set(right))


class State(TypedDict, total=False):
    log: Annotated[list, operator.add]
    total: Annotated[int, operator.add]
    tags: Annotated[list, merge_tags]
    last: str
    n: int


# --- the description --------------------------------------------------------------------


@dataclass(frozen=True)
class Node:
    """One node: what it writes and how it returns it.

    `kind` is "dict" (return the update), "command" (`Command(update, goto)`), "none"
    (return None), "bad" (return a number: a mistake), "interrupt" (ask, then write the
    answer) or "subgraph" (a compiled two-node graph on the same state).
    """

    name: str
    writes: tuple[str, ...] = ("log",)
    kind: str = "dict"
    goto: tuple[str, ...] = ()
    defer: bool = False


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


def _update(name: str, writes: Iterable[str], state: dict) -> dict[str, Any]:
    seen = len(state.get("log", []))
    values = {
        "log": [name],
        "total": seen + 1,
        "tags": [f"{name}{seen % 3}"],
        "last": name,
        "n": state.get("n", 0) + 1,
    }
    return {key: values[key] for key in writes}


def _pick(targets: tuple[str, ...], state: dict, offset: int = 0) -> str:
    return targets[(len(state.get("log", [])) + state.get("n", 0) + offset) % len(targets)]


def make_node(lib: Lib, node: Node) -> Any:
    """The node's function (or compiled subgraph) built with `lib`'s names."""
    name, writes = node.name, node.writes
    if node.kind == "subgraph":
        inner = lib.StateGraph(State)
        inner.add_node("inner_a", lambda state: {"log": [f"{name}/a"], "total": 1})
        inner.add_node("inner_b", lambda state: {"tags": [f"{name}/b"]})
        inner.add_edge(lib.START, "inner_a")
        inner.add_edge("inner_a", "inner_b")
        return inner.compile()
    if node.kind == "interrupt":
        interrupt = extras(lib.name)[0]

        def asks(state: dict) -> dict:
            answer = interrupt(f"{name}?")
            return {**_update(name, writes, state), "log": [f"{name}={answer}"]}

        return asks

    def acts(state: dict) -> Any:
        update = _update(name, writes, state)
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


def build(blueprint: Blueprint, lib: Lib) -> Any:
    """The blueprint's graph, compiled with `lib` (and a fresh checkpointer if it asks)."""
    graph = lib.StateGraph(State)
    for node in blueprint.nodes:
        options = {"defer": True} if node.defer else {}
        graph.add_node(node.name, make_node(lib, node), **options)
    for source, target in blueprint.edges:
        graph.add_edge(_endpoint(lib, source), _endpoint(lib, target))
    for sources, target in blueprint.waits:
        graph.add_edge(list(sources), _endpoint(lib, target))
    for router in blueprint.routers:
        route, path_map = make_router(lib, router)
        graph.add_conditional_edges(_endpoint(lib, router.source), route, path_map)
    checkpointer = extras(lib.name)[1]() if blueprint.checkpointer else None
    return graph.compile(checkpointer=checkpointer)


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


def config_of(blueprint: Blueprint) -> dict[str, Any]:
    config: dict[str, Any] = {"recursion_limit": RECURSION_LIMIT}
    if blueprint.checkpointer:
        config["configurable"] = {"thread_id": "1"}
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
        lines.append(canonical(Raised(type(error).__name__)))
        summary += " " + canonical(Raised(type(error).__name__))
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
    order) and the history after it; ids as "<id>". Saves are synchronous: LangGraph's
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
        lines += [_snapshot(snapshot) for snapshot in app.get_state_history(config)]
    return [PAYLOAD_ID.sub("<id>", line) for line in lines]


def _snapshot(snapshot: Any) -> str:
    """A StateSnapshot by value (a Send task's path without LangGraph's third item, a
    difference compatibility.md lists)."""
    tasks = [
        (task.name, task.path[:2] if task.path[0] == "__pregel_push" else task.path,
         repr(task.error) if task.error else None, task.result,
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
    kinds = ["dict"] * 6 + ["command", "none", "subgraph"] + ["interrupt"] * (2 * interrupts)
    if mistakes:
        kinds.append("bad")
    writes = st.lists(st.sampled_from((*STATE_KEYS[:4], "log", "log")), max_size=3, unique=True)

    nodes = []
    for name in found:
        kind = draw(st.sampled_from(kinds))
        goto = tuple(draw(st.lists(targets, max_size=2))) if kind == "command" else ()
        nodes.append(
            Node(name, tuple(draw(writes)), kind, goto, defer=draw(st.integers(0, 7)) == 0)
        )

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
