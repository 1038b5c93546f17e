"""LangGraph's low-level API (issue 15, item 5): the same ``Pregel`` program, written with
``NodeBuilder`` and channels, runs on LangGraph and on graphkit, and a user sees the same
results, stream chunks and saved state, sync and async, with both savers.

The programs are LangGraph's documented examples and three vertex programs from the Pregel
paper (one node per vertex, an inbox ``Topic`` per vertex): single-source shortest paths,
PageRank for a fixed number of supersteps, and connected components.
"""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest

from .harness import canonical, normalise_stream, tidy
from .scenarios import SAVERS


@dataclass(frozen=True)
class Side:
    """The names a low-level program needs from one library."""

    name: str
    Pregel: Any
    NodeBuilder: Any
    ChannelWriteEntry: Any
    channels: ModuleType
    Send: Any


def langgraph_side() -> Side:
    import langgraph.channels
    from langgraph.pregel import NodeBuilder, Pregel
    from langgraph.pregel._write import ChannelWriteEntry
    from langgraph.types import Send

    return Side("langgraph", Pregel, NodeBuilder, ChannelWriteEntry, langgraph.channels, Send)


def graphkit_side() -> Side:
    import graphkit.channels
    from graphkit.pregel import ChannelWriteEntry, NodeBuilder, Pregel
    from graphkit.types import Send

    return Side("graphkit", Pregel, NodeBuilder, ChannelWriteEntry, graphkit.channels, Send)


Program = Callable[..., tuple[Any, Any]]
"""``program(side, **pregel_options) -> (app, input)``."""


# -- LangGraph's documented examples -------------------------------------------------------


def single_node(side: Side, **options: Any) -> tuple[Any, Any]:
    c = side.channels
    node = side.NodeBuilder().subscribe_only("a").do(lambda x: x + x).write_to("b")
    channels = {"a": c.EphemeralValue(str), "b": c.EphemeralValue(str)}
    app = side.Pregel(
        nodes={"node1": node},
        channels=channels,
        input_channels=["a"],
        output_channels=["b"],
        **options,
    )
    return app, {"a": "foo"}


def topic(side: Side, **options: Any) -> tuple[Any, Any]:
    c = side.channels
    node1 = side.NodeBuilder().subscribe_only("a").do(lambda x: x + x).write_to("b", "c")
    node2 = side.NodeBuilder().subscribe_only("b").do(lambda x: x + x).write_to("c")
    channels = {
        "a": c.EphemeralValue(str),
        "b": c.EphemeralValue(str),
        "c": c.Topic(str, accumulate=True),
    }
    nodes = {"node1": node1, "node2": node2}
    app = side.Pregel(
        nodes=nodes, channels=channels, input_channels=["a"], output_channels=["c"], **options
    )
    return app, {"a": "foo"}


def chained(side: Side, **options: Any) -> tuple[Any, Any]:
    """One input and one output channel named alone: bare values in and out; the second
    node subscribes with a dict and also reads a channel it is not woken by."""
    c = side.channels
    first = side.NodeBuilder().subscribe_only("a").do(str.upper).write_to("b", seen="yes")
    second = (
        side.NodeBuilder()
        .subscribe_to("b")
        .read_from("seen", "never")
        .do(lambda x: f"{x['b']}!{x['seen']}{sorted(x)}")
        .write_to("c", length=len)
    )
    channels = {
        "a": c.LastValue(str),
        "b": c.LastValue(str),
        "c": c.LastValue(str),
        "seen": c.LastValue(str),
        "never": c.LastValue(str),
        "length": c.LastValue(int),
    }
    nodes = {"first": first, "second": second}
    app = side.Pregel(
        nodes=nodes, channels=channels, input_channels="a", output_channels="c", **options
    )
    return app, "hi"


def aggregate(side: Side, **options: Any) -> tuple[Any, Any]:
    c = side.channels
    node1 = side.NodeBuilder().subscribe_only("a").do(lambda x: x + x).write_to("b", "c")
    node2 = side.NodeBuilder().subscribe_only("b").do(lambda x: x + x).write_to("c")
    channels = {
        "a": c.EphemeralValue(str),
        "b": c.EphemeralValue(str),
        "c": c.BinaryOperatorAggregate(str, operator.add),
    }
    nodes = {"node1": node1, "node2": node2}
    app = side.Pregel(
        nodes=nodes, channels=channels, input_channels=["a"], output_channels=["c"], **options
    )
    return app, {"a": "foo"}


def cycle(side: Side, **options: Any) -> tuple[Any, Any]:
    """A node that writes to the channel it subscribes to, until it writes None (skipped)."""
    node = (
        side.NodeBuilder()
        .subscribe_only("value")
        .do(lambda x: x + x if len(x) < 10 else None)
        .write_to(side.ChannelWriteEntry("value", skip_none=True))
    )
    channels = {"value": side.channels.EphemeralValue(str)}
    app = side.Pregel(
        nodes={"node1": node},
        channels=channels,
        input_channels=["value"],
        output_channels=["value"],
        **options,
    )
    return app, {"value": "a"}


def send(side: Side, **options: Any) -> tuple[Any, Any]:
    """``write_to(Send(...))`` starts a push task of the next step."""
    c = side.channels
    first = side.NodeBuilder().subscribe_only("a").write_to(side.Send("second", "packet"))
    second = side.NodeBuilder().subscribe_only("b").do(lambda x: x + "!").write_to("c")
    channels = {"a": c.LastValue(str), "b": c.LastValue(str), "c": c.LastValue(str)}
    nodes = {"first": first, "second": second}
    app = side.Pregel(
        nodes=nodes, channels=channels, input_channels="a", output_channels=["c"], **options
    )
    return app, "go"


def map_reduce(side: Side, **options: Any) -> tuple[Any, Any]:
    """A worker no channel wakes: only the ``Send``s written to it start it (map), and a
    Topic gathers what the workers wrote (reduce)."""
    c = side.channels
    sends = [side.Send("worker", n) for n in (1, 2, 3)]
    fan = side.NodeBuilder().subscribe_only("numbers").write_to(*sends)
    worker = side.NodeBuilder().do(lambda n: n * 10).write_to("out")
    channels = {"numbers": c.EphemeralValue(str), "out": c.Topic(int, accumulate=True)}
    app = side.Pregel(
        nodes={"fan": fan, "worker": worker}, channels=channels, input_channels="numbers",
        output_channels="out", **options,
    )  # fmt: skip
    return app, "go"


# -- vertex programs ---------------------------------------------------------------------

ROADS = {"s": {"a": 4, "b": 1}, "a": {"c": 1}, "b": {"a": 2, "c": 5}, "c": {"d": 3}, "d": {}}
"""A weighted directed graph: shortest paths from s are s:0, b:1, a:3, c:4, d:7."""


def shortest_paths(side: Side, **options: Any) -> tuple[Any, Any]:
    """Bellman-Ford as message passing: a vertex woken by shorter offers keeps the best
    and tells its neighbours; when no distance improves, nobody writes and the run ends."""
    c, nodes = side.channels, {}
    channels: dict[str, Any] = {}
    for vertex, roads in ROADS.items():
        channels[f"offers:{vertex}"] = c.Topic(int)
        channels[f"distance:{vertex}"] = c.LastValue(int)

        def relax(x: dict[str, Any], vertex: str = vertex) -> int | None:
            best = min(x[f"offers:{vertex}"])
            known = x.get(f"distance:{vertex}")
            return best if known is None or best < known else None

        writes = [side.ChannelWriteEntry(f"distance:{vertex}", skip_none=True)]
        writes += [
            side.ChannelWriteEntry(
                f"offers:{neighbour}",
                mapper=lambda d, w=weight: None if d is None else d + w,
                skip_none=True,
            )
            for neighbour, weight in roads.items()
        ]
        nodes[vertex] = (
            side.NodeBuilder()
            .subscribe_to(f"offers:{vertex}")
            .read_from(f"distance:{vertex}")
            .do(relax)
            .write_to(*writes)
        )
    outputs = [f"distance:{vertex}" for vertex in ROADS]
    app = side.Pregel(
        nodes=nodes,
        channels=channels,
        input_channels=["offers:s"],
        output_channels=outputs,
        stream_channels=outputs,
        **options,
    )
    return app, {"offers:s": 0}


LINKS = {"a": ["b", "c"], "b": ["c"], "c": ["a"], "d": ["c", "a"]}
"""PageRank's web: every page links out; d has no links in (it keeps the base rank)."""
ROUNDS = 3


def pagerank(side: Side, **options: Any) -> tuple[Any, Any]:
    """PageRank for a fixed number of supersteps: a message is {round, share}; the round
    number rides along, so a page stops sending after ``ROUNDS`` rounds."""
    c, nodes, size = side.channels, {}, len(LINKS)
    channels: dict[str, Any] = {}
    for page, links in LINKS.items():
        channels[f"inbox:{page}"] = c.Topic(dict)
        channels[f"rank:{page}"] = c.LastValue(float)

        def rank(messages: list[dict[str, Any]], links: list[str] = links) -> dict[str, Any]:
            round_ = max(message["round"] for message in messages)
            shares = sum(m["share"] for m in messages if m["round"] == round_)
            value = shares if round_ == 0 else 0.15 / size + 0.85 * shares
            value = round(value, 9)
            message = {"round": round_ + 1, "share": value / len(links)}
            return {"rank": value, "send": message if round_ < ROUNDS else None}

        writes = [side.ChannelWriteEntry(f"rank:{page}", mapper=operator.itemgetter("rank"))]
        writes += [
            side.ChannelWriteEntry(f"inbox:{link}", mapper=_send, skip_none=True) for link in links
        ]
        nodes[page] = side.NodeBuilder().subscribe_only(f"inbox:{page}").do(rank).write_to(*writes)
    app = side.Pregel(
        nodes=nodes,
        channels=channels,
        input_channels=[f"inbox:{page}" for page in LINKS],
        output_channels=[f"rank:{page}" for page in LINKS],
        **options,
    )
    return app, {f"inbox:{page}": {"round": 0, "share": 1 / size} for page in LINKS}


def _send(result: dict[str, Any]) -> Any:
    return result["send"]


FRIENDS = [("a", "b"), ("b", "c"), ("d", "e"), ("f", "f")]
"""An undirected graph with components {a, b, c}, {d, e}, {f}."""


def components(side: Side, **options: Any) -> tuple[Any, Any]:
    """Connected components by min-label propagation: a vertex takes the smallest label
    it hears of, and passes it on only when its own label went down."""
    c, nodes = side.channels, {}
    vertices = sorted({v for edge in FRIENDS for v in edge})
    neighbours: dict[str, set[str]] = {v: set() for v in vertices}
    for one, other in FRIENDS:
        neighbours[one].add(other)
        neighbours[other].add(one)
    channels: dict[str, Any] = {}
    for vertex in vertices:
        channels[f"heard:{vertex}"] = c.Topic(str)
        channels[f"label:{vertex}"] = c.LastValue(str)

        def smallest(x: dict[str, Any], vertex: str = vertex) -> str | None:
            label = min(x[f"heard:{vertex}"])
            known = x.get(f"label:{vertex}")
            return label if known is None or label < known else None

        writes = [side.ChannelWriteEntry(f"label:{vertex}", skip_none=True)]
        writes += [
            side.ChannelWriteEntry(f"heard:{n}", skip_none=True)
            for n in sorted(neighbours[vertex] - {vertex})
        ]
        nodes[vertex] = (
            side.NodeBuilder()
            .subscribe_to(f"heard:{vertex}")
            .read_from(f"label:{vertex}")
            .do(smallest)
            .write_to(*writes)
        )
    app = side.Pregel(
        nodes=nodes,
        channels=channels,
        input_channels=[f"heard:{v}" for v in vertices],
        output_channels=[f"label:{v}" for v in vertices],
        **options,
    )
    return app, {f"heard:{v}": v for v in vertices}


PROGRAMS: dict[str, Program] = {
    "single_node": single_node,
    "topic": topic,
    "chained": chained,
    "aggregate": aggregate,
    "cycle": cycle,
    "send": send,
    "map_reduce": map_reduce,
    "shortest_paths": shortest_paths,
    "pagerank": pagerank,
    "components": components,
}

EXPECTED = {
    "shortest_paths": {
        "distance:s": 0,
        "distance:a": 3,
        "distance:b": 1,
        "distance:c": 4,
        "distance:d": 7,
    },
    "components": {
        "label:a": "a",
        "label:b": "a",
        "label:c": "a",
        "label:d": "d",
        "label:e": "d",
        "label:f": "f",
    },
}


# -- observing a program -------------------------------------------------------------------


def observe(side: Side, name: str, run_async: bool = False) -> dict[str, Any]:
    """invoke's result and the chunks of "values"+"updates", "debug" and the default mode."""
    app, given = PROGRAMS[name](side)
    seen: dict[str, Any] = {}
    if run_async:

        async def both() -> None:
            seen["invoke"] = canonical(await app.ainvoke(given))
            for label, modes in (("values+updates", ["values", "updates"]), ("debug", "debug")):
                chunks = [c async for c in app.astream(given, stream_mode=modes)]
                seen[label] = _lines(chunks, modes)
            seen["default"] = [canonical(c) async for c in app.astream(given)]

        asyncio.run(both())
        return seen
    seen["invoke"] = canonical(app.invoke(given))
    for label, modes in (("values+updates", ["values", "updates"]), ("debug", "debug")):
        seen[label] = _lines(list(app.stream(given, stream_mode=modes)), modes)
    seen["default"] = [canonical(chunk) for chunk in app.stream(given)]
    seen["invoke updates"] = canonical(app.invoke(given, stream_mode="updates"))
    return seen


def _lines(chunks: list[Any], modes: Any) -> list[str]:
    pairs = [chunk if isinstance(modes, list) else (modes, chunk) for chunk in chunks]
    return normalise_stream(tidy(pairs))


def persisted(side: Side, name: str, saver: str) -> dict[str, Any]:
    """What a thread keeps: the result, get_state, the history, and a second invoke."""
    seen: dict[str, Any] = {}
    with SAVERS[saver](side.name) as checkpointer:
        app, given = PROGRAMS[name](side, checkpointer=checkpointer)
        thread = {"configurable": {"thread_id": "1"}}
        seen["first"] = canonical(app.invoke(given, thread))
        state = app.get_state(thread)
        seen["state"] = canonical((state.values, state.next, state.metadata["step"]))
        seen["history"] = [
            canonical((s.values, s.next, s.metadata["step"], s.metadata["source"]))
            for s in app.get_state_history(thread)
        ]
        seen["again"] = canonical(app.invoke(given, thread))
        seen["resume"] = canonical(app.invoke(None, thread))
    return seen


def persisted_async(side: Side, name: str) -> dict[str, Any]:
    """The same on the async path (an in-memory saver: LangGraph's SqliteSaver is sync)."""
    seen: dict[str, Any] = {}

    async def run() -> None:
        with SAVERS["memory"](side.name) as checkpointer:
            app, given = PROGRAMS[name](side, checkpointer=checkpointer)
            thread = {"configurable": {"thread_id": "1"}}
            seen["first"] = canonical(await app.ainvoke(given, thread))
            state = await app.aget_state(thread)
            seen["state"] = canonical((state.values, state.next, state.metadata["step"]))
            seen["history"] = [
                canonical((s.values, s.next, s.metadata["step"]))
                async for s in app.aget_state_history(thread)
            ]
            seen["again"] = [canonical(c) async for c in app.astream(given, thread)]

    asyncio.run(run())
    return seen


# -- the tests -----------------------------------------------------------------------------


@pytest.mark.parametrize("run_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_a_program_streams_as_on_langgraph(name: str, run_async: bool) -> None:
    expected = observe(langgraph_side(), name, run_async)
    assert observe(graphkit_side(), name, run_async) == expected


@pytest.mark.parametrize("saver", SAVERS)
@pytest.mark.parametrize("name", ["topic", "aggregate", "cycle", "shortest_paths", "pagerank"])
def test_a_program_saves_its_thread_as_on_langgraph(name: str, saver: str) -> None:
    # The oracle is LangGraph with its in-memory saver: with its SqliteSaver, the history
    # of a Topic program is not deterministic (a checkpoint of step 0 sometimes shows the
    # Topic's values of step 1: it picks a blob by a version with a random suffix).
    expected = persisted(langgraph_side(), name, "memory")
    assert persisted(graphkit_side(), name, saver) == expected


@pytest.mark.parametrize("name", ["aggregate", "components"])
def test_a_program_saves_its_thread_as_on_langgraph_async(name: str) -> None:
    expected = persisted_async(langgraph_side(), name)
    assert persisted_async(graphkit_side(), name) == expected


@pytest.mark.parametrize("name", EXPECTED)
def test_the_vertex_programs_compute_the_answer(name: str) -> None:
    app, given = PROGRAMS[name](graphkit_side())
    assert app.invoke(given) == EXPECTED[name]


def test_pagerank_stops_after_its_rounds() -> None:
    app, given = pagerank(graphkit_side())
    run = app.trace(given)
    assert len(run.steps) == 1 + ROUNDS + 1  # the input step, then rounds 0..ROUNDS
    assert sum(app.invoke(given).values()) == pytest.approx(1.0, abs=0.2)


def test_breakpoints_pause_as_on_langgraph() -> None:
    def run(side: Side) -> list[str]:
        with SAVERS["memory"](side.name) as checkpointer:
            app, given = chained(side, checkpointer=checkpointer, interrupt_before_nodes=["second"])
            thread = {"configurable": {"thread_id": "t"}}
            first = [canonical(c) for c in app.stream(given, thread, stream_mode="updates")]
            state = app.get_state(thread)
            rest = [canonical(c) for c in app.stream(None, thread, stream_mode="updates")]
            return [*first, canonical(state.next), *rest]

    assert run(graphkit_side()) == run(langgraph_side())


def test_write_to_keyword_values_are_written_as_they_are() -> None:
    """LangGraph writes a keyword's non-callable value as given, even a ChannelWriteEntry
    (pass those positionally); a callable maps the node's result."""

    def run(side: Side) -> str:
        c = side.channels
        entry = side.ChannelWriteEntry("d", mapper=len)
        node = side.NodeBuilder().subscribe_only("a").write_to(b=len, c="fixed", d=entry)
        channels = {k: c.LastValue(object) for k in "abcd"}
        app = side.Pregel(
            nodes={"n": node}, channels=channels, input_channels="a", output_channels=["b", "c"]
        )
        return canonical(app.invoke("four"))

    assert run(graphkit_side()) == run(langgraph_side())


def test_one_stream_channel_named_alone_streams_bare_values() -> None:
    def run(side: Side) -> str:
        c = side.channels
        node = side.NodeBuilder().subscribe_only("a").do(lambda x: x + "!").write_to("b")
        app = side.Pregel(
            nodes={"n1": node},
            channels={"a": c.LastValue(str), "b": c.LastValue(str)},
            input_channels="a",
            output_channels="b",
            stream_channels="b",
        )
        seen = [
            list(app.stream("x", stream_mode="values")),
            list(app.stream("x", stream_mode="updates")),
            app.invoke("x", stream_mode="updates"),
            list(app.stream("x", stream_mode=["values", "updates"])),
        ]
        return canonical(seen)

    assert run(graphkit_side()) == run(langgraph_side())


def test_update_state_runs_the_nodes_writers_as_on_langgraph() -> None:
    def run(side: Side) -> str:
        with SAVERS["memory"](side.name) as checkpointer:
            app, given = chained(side, checkpointer=checkpointer)
            thread = {"configurable": {"thread_id": "1"}}
            app.invoke(given, thread)
            app.update_state(thread, "again", as_node="first")
            state = app.get_state(thread)
            resumed = app.invoke(None, thread)
            return canonical((state.values, state.next, state.metadata["source"], resumed))

    assert run(graphkit_side()) == run(langgraph_side())


def test_async_functions_and_injected_config_as_on_langgraph() -> None:
    """``do`` twice (an async function, then a plain one) runs on ainvoke; a sync invoke
    refuses it with TypeError; a function with a ``config`` parameter receives it."""

    def run(side: Side) -> str:
        async def double(x: int) -> int:
            return x * 2

        c = side.channels
        node = side.NodeBuilder().subscribe_only("a").do(double).do(lambda y: y + 1)
        app = side.Pregel(
            nodes={"n": node.write_to("b")},
            channels={"a": c.LastValue(int), "b": c.LastValue(int)},
            input_channels="a",
            output_channels="b",
        )
        result = asyncio.run(app.ainvoke(3))
        with pytest.raises(TypeError):
            app.invoke(3)
        configured = (
            side.NodeBuilder()
            .subscribe_only("a")
            .do(lambda x, config: config["configurable"]["k"] * x)
        )
        app = side.Pregel(
            nodes={"n": configured.write_to("b")},
            channels={"a": c.LastValue(int), "b": c.LastValue(int)},
            input_channels="a",
            output_channels="b",
        )
        return canonical((result, app.invoke(2, {"configurable": {"k": 5}})))

    assert run(graphkit_side()) == run(langgraph_side())


def test_mistakes_are_named_with_their_fix() -> None:
    from graphkit.channels import LastValue
    from graphkit.pregel import NodeBuilder, Pregel

    node = NodeBuilder().subscribe_only("a").write_to("b")
    with pytest.raises(ValueError, match=r"reads channel 'a', but the channels are \['b'\]"):
        Pregel(nodes={"n": node}, channels={"b": LastValue(int)}, input_channels="b",
               output_channels="b")  # fmt: skip
    with pytest.raises(ValueError, match="use subscribe_to"):
        NodeBuilder().subscribe_only("a").subscribe_only("b")
    with pytest.raises(ValueError, match="Use subscribe_to"):
        NodeBuilder().subscribe_only("a").read_from("b")
    channels = {"a": LastValue(int), "b": LastValue(int)}
    app = Pregel(nodes={"n": node}, channels=channels, input_channels=["a"], output_channels="b")
    with pytest.raises(TypeError, match=r"input must be a dict of input channels \['a'\]"):
        app.invoke(1)
    with pytest.raises(ValueError, match="is reserved"):
        Pregel(nodes={"__start__": node}, channels=channels, input_channels="a",
               output_channels="b")  # fmt: skip


def test_a_builders_meta_shows_in_task_events_and_its_retry_policies_retry() -> None:
    """``NodeBuilder.meta(**metadata)``: the metadata in the "tasks" stream's start
    chunks; ``add_retry_policies``: a failing node is tried again."""
    seen = []
    for side in (langgraph_side(), graphkit_side()):
        from importlib import import_module

        RetryPolicy = import_module(f"{side.name}.types").RetryPolicy
        attempts: list[int] = []

        def flaky(value: Any, attempts: list[int] = attempts) -> Any:
            attempts.append(1)
            if len(attempts) < 3:
                raise ConnectionError("try again")
            return value + "!"

        policy = RetryPolicy(max_attempts=3, initial_interval=0, jitter=False)
        node = (
            side.NodeBuilder()
            .subscribe_only("a")
            .do(flaky)
            .write_to("b")
            .meta(owner="ada")
            .add_retry_policies(policy)
        )
        app = side.Pregel(
            nodes={"node": node},
            channels={"a": side.channels.EphemeralValue(str), "b": side.channels.LastValue(str)},
            input_channels=["a"],
            output_channels=["b"],
        )
        chunks = list(app.stream({"a": "hi"}, stream_mode=["tasks", "values"]))
        starts = [
            payload.get("metadata")
            for mode, payload in chunks
            if mode == "tasks" and "input" in payload
        ]
        seen.append((starts, chunks[-1], len(attempts)))
    assert seen[0] == seen[1]
    assert seen[1] == ([{"owner": "ada"}], ("values", {"b": "hi!"}), 3)
