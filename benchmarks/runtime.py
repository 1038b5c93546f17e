"""graphkit beside LangGraph on the same graphs, in one process (not a test).

Run it with ``.venv/bin/python benchmarks/runtime.py`` (``--quick`` for fewer repeats).
Each case builds the same graph with both libraries; the runs are interleaved, repeated,
and the table shows medians and the ratio LangGraph / graphkit (above 1: graphkit is
faster). The cases call ``invoke``, which keeps no supersteps (nobody could read
them); row 6 shows what recording every superstep costs, on the stepper.
LangGraph's savers run with ``durability="sync"``, as graphkit saves each step before
the next one starts.

Cases (issue 7): 1 a chain of 1,000 trivial nodes; 2 the same with the in-memory and
the SQLite saver (and chains of 100 and 5,000 nodes, to show how the cost per step
grows); 3 a fan-out of 100 Sends into a reducing node; 4 200 invocations of a 3-node
graph; 5 a ReAct loop of 20 tool round trips with a scripted model; 6 graphkit only:
recording on vs off, ``Run.to_frame`` of a 1,000-step run, SVG of a 200-node graph,
one debugger step update on 50-node graphs; 7 peak memory of a 10,000-step run with recording on;
8 a 2,000-step loop whose ``Annotated[list, operator.add]`` grows by one int per step, with
each saver: the run, a full ``get_state_history``, and the SQLite file's size;
9 (no issue-7 target) ``ainvoke`` of async graphs: a fan-out of 100 async Sends, each
awaiting the loop once, and 200 ainvokes of a 3-node async chain, on one event loop.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import operator
import sqlite3
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypedDict

import langgraph.graph as langgraph_graph
from langgraph.checkpoint.memory import InMemorySaver as LangGraphMemory
from langgraph.checkpoint.sqlite import SqliteSaver as LangGraphSqlite
from langgraph.types import Send as LangGraphSend

import graphkit
from graphkit.checkpoint import InMemorySaver, SqliteSaver


class Counter(TypedDict):
    n: int


class Items(TypedDict):
    items: Annotated[list, operator.add]
    total: int


class Chat(TypedDict):
    messages: Annotated[list, operator.add]


class Growing(TypedDict):
    n: int
    log: Annotated[list, operator.add]
    other: str


def chain(lib: Any, length: int, checkpointer: Any = None) -> Any:
    builder = lib.StateGraph(Counter)
    names = [f"n{index}" for index in range(length)]
    for name in names:
        builder.add_node(name, lambda state: {"n": state["n"] + 1})
    builder.add_edge(lib.START, names[0])
    for first, second in itertools.pairwise(names):
        builder.add_edge(first, second)
    return builder.compile(checkpointer=checkpointer)


def fan_out(lib: Any, send: Any, width: int = 100) -> Any:
    builder = lib.StateGraph(Items)
    builder.add_node("split", lambda state: {"items": []})
    builder.add_node("work", lambda index: {"items": [index * index]})
    builder.add_node("reduce", lambda state: {"total": sum(state["items"])})
    builder.add_edge(lib.START, "split")
    builder.add_conditional_edges("split", lambda state: [send("work", i) for i in range(width)])
    builder.add_edge("work", "reduce")
    return builder.compile()


def small(lib: Any) -> Any:
    builder = lib.StateGraph(Counter)
    for name in ("a", "b", "c"):
        builder.add_node(name, lambda state: {"n": state["n"] + 1})
    builder.add_edge(lib.START, "a").add_edge("a", "b").add_edge("b", "c")
    return builder.compile()


def react(lib: Any, rounds: int = 20) -> Any:
    """agent ↔ tools, as a ReAct loop: the scripted model asks for a tool ``rounds``
    times, then answers. Messages are langchain-core messages."""
    from langchain_core.messages import AIMessage, ToolMessage

    def agent(state: Chat) -> dict:
        asked = sum(1 for m in state["messages"] if isinstance(m, ToolMessage))
        if asked < rounds:
            call = {"name": "add", "args": {"a": asked, "b": 1}, "id": f"call-{asked}"}
            return {"messages": [AIMessage(content="", tool_calls=[call])]}
        return {"messages": [AIMessage(content=f"done after {asked} tools")]}

    def tools(state: Chat) -> dict:
        call = state["messages"][-1].tool_calls[0]
        result = call["args"]["a"] + call["args"]["b"]
        return {"messages": [ToolMessage(str(result), tool_call_id=call["id"])]}

    def route(state: Chat) -> str:
        return "tools" if state["messages"][-1].tool_calls else lib.END

    builder = lib.StateGraph(Chat).add_node("agent", agent).add_node("tools", tools)
    builder.add_edge(lib.START, "agent").add_conditional_edges("agent", route, ["tools", lib.END])
    builder.add_edge("tools", "agent")
    return builder.compile()


async def _split(state: Items) -> dict:
    return {"items": []}


async def _work(index: int) -> dict:
    await asyncio.sleep(0)  # one trip through the loop, so the tasks really interleave
    return {"items": [index * index]}


async def _reduce(state: Items) -> dict:
    return {"total": sum(state["items"])}


async def _add(state: Counter) -> dict:
    await asyncio.sleep(0)
    return {"n": state["n"] + 1}


def async_fan_out(lib: Any, send: Any, width: int = 100) -> Any:
    """``fan_out`` with ``async def`` nodes: step 1 sends ``width`` async tasks."""
    builder = lib.StateGraph(Items).add_node("split", _split).add_node("work", _work)
    builder.add_node("reduce", _reduce).add_edge(lib.START, "split")
    builder.add_conditional_edges("split", lambda state: [send("work", i) for i in range(width)])
    builder.add_edge("work", "reduce")
    return builder.compile()


def async_small(lib: Any) -> Any:
    """``small`` with ``async def`` nodes, each awaiting the loop once."""
    builder = lib.StateGraph(Counter)
    for name in ("a", "b", "c"):
        builder.add_node(name, _add)
    builder.add_edge(lib.START, "a").add_edge("a", "b").add_edge("b", "c")
    return builder.compile()


def async_cases(loop: asyncio.AbstractEventLoop) -> dict[str, Case]:
    """Case 9: ``ainvoke`` driven by ``loop.run_until_complete`` on one loop made once, so
    no run pays for making a loop; each pair's results are checked equal before timing."""

    def pair(ours: Callable[[], Any], theirs: Callable[[], Any]) -> Any:
        mine, other = loop.run_until_complete(ours()), loop.run_until_complete(theirs())
        assert mine == other, f"graphkit gave {mine!r}, LangGraph {other!r}"
        return lambda: loop.run_until_complete(ours()), lambda: loop.run_until_complete(theirs())

    def fan() -> Any:
        ours = async_fan_out(graphkit, graphkit.Send)
        theirs = async_fan_out(langgraph_graph, LangGraphSend)
        return pair(
            lambda: ours.ainvoke({"items": [], "total": 0}),
            lambda: theirs.ainvoke({"items": [], "total": 0}),
        )

    def invokes() -> Any:
        async def many(app: Any) -> list:
            return [await app.ainvoke({"n": 0}) for _ in range(200)]

        ours, theirs = async_small(graphkit), async_small(langgraph_graph)
        return pair(lambda: many(ours), lambda: many(theirs))

    return {
        "9 async fan-out of 100 Sends, ainvoke, per Send task": (fan, 100),
        "9 200 ainvokes of a 3-node async chain, per ainvoke": (invokes, 200),
    }


def growing(lib: Any, steps: int, checkpointer: Any) -> Any:
    """One node looping ``steps`` times, each step adding an int to a list: a long
    thread whose saved state grows by one item per step."""
    builder = lib.StateGraph(Growing).add_node("f", lambda s: {"n": s["n"] + 1, "log": [s["n"]]})
    builder.add_edge(lib.START, "f")
    builder.add_conditional_edges("f", lambda s: "f" if s["n"] < steps else lib.END)
    return builder.compile(checkpointer=checkpointer)


def timed(function: Callable[[], Any]) -> float:
    gc.collect()
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


FAN_OUTS = 10
"""Case 3's fan-outs in one measurement."""

Case = tuple[Callable[[], tuple[Callable[[], Any], Callable[[], Any]]], int]
"""How to build one case's pair of runs (graphkit's, LangGraph's), and how many units
(steps, tasks, invokes) one run does."""


def compare(repeats: int, cases: dict[str, Case]) -> None:
    """Each case's graphs are built just before it runs and dropped after, so no case
    pays for the garbage collector walking an earlier case's graphs and threads."""
    header = f"{'case':<56} {'graphkit':>12} {'LangGraph':>12} {'ratio':>7}"
    print(f"{header}   (per unit, median of {repeats})")
    for name, (build, units) in cases.items():
        ours, theirs = build()
        ours_times, their_times = [], []
        for _ in range(repeats):  # interleaved, so that machine noise hits both alike
            ours_times.append(timed(ours))
            their_times.append(timed(theirs))
        del ours, theirs
        gc.collect()
        mine, other = statistics.median(ours_times) / units, statistics.median(their_times) / units
        print(f"{name:<56} {mine * 1e6:>10.1f}µs {other * 1e6:>10.1f}µs {other / mine:>6.1f}×")


def chain_cases(lengths: list[int]) -> dict[str, Case]:
    cases: dict[str, Case] = {}
    folder = Path(tempfile.mkdtemp())
    for length in lengths:
        limit = {"recursion_limit": length + 10}

        def plain(length: int = length, limit: dict = limit) -> Any:
            ours, theirs = chain(graphkit, length), chain(langgraph_graph, length)
            return lambda: ours.invoke({"n": 0}, limit), lambda: theirs.invoke({"n": 0}, limit)

        def in_memory(length: int = length, limit: dict = limit) -> Any:
            ours = chain(graphkit, length, InMemorySaver())
            theirs = chain(langgraph_graph, length, LangGraphMemory())
            return (
                lambda: ours.invoke({"n": 0}, _thread(limit)),
                lambda: theirs.invoke({"n": 0}, _thread(limit), durability="sync"),
            )

        def sqlite(length: int = length, limit: dict = limit) -> Any:
            ours = chain(graphkit, length, SqliteSaver(_connect(folder / f"g{length}.db")))
            theirs = chain(
                langgraph_graph, length, LangGraphSqlite(_connect(folder / f"l{length}.db"))
            )
            return (
                lambda: ours.invoke({"n": 0}, _thread(limit)),
                lambda: theirs.invoke({"n": 0}, _thread(limit), durability="sync"),
            )

        cases[f"1 chain {length}, per step"] = (plain, length)
        cases[f"2 chain {length}, in-memory saver, per step"] = (in_memory, length)
        if length <= 1000:
            cases[f"2 chain {length}, SQLite saver, per step"] = (sqlite, length)
    return cases


_threads = iter(range(10**9))


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(str(path), check_same_thread=False)


def _thread(limit: dict) -> dict:
    return {**limit, "configurable": {"thread_id": f"t{next(_threads)}"}}


def growing_cases(steps: int) -> dict[str, Case]:
    """Case 8: ``growing`` with each saver, its run and its full ``get_state_history``
    (SQLite: read through a new connection each time, as another process reads it)."""
    folder = Path(tempfile.mkdtemp())
    start = {"n": 0, "log": [], "other": "x" * 1000}
    limit = {"recursion_limit": steps + 10}
    libraries = {"g": (graphkit, SqliteSaver), "l": (langgraph_graph, LangGraphSqlite)}

    def run(saver: str) -> Any:
        def build() -> Any:
            def runner(lib: Any, saver_class: Any, prefix: str) -> Callable[[], Any]:
                durability = {} if lib is graphkit else {"durability": "sync"}
                if saver == "memory":
                    app = growing(
                        lib, steps, InMemorySaver() if lib is graphkit else LangGraphMemory()
                    )
                    return lambda: app.invoke(start, _thread(limit), **durability)
                path = folder / f"{prefix}{next(_threads)}.db"
                app = growing(lib, steps, saver_class(_connect(path)))
                return lambda: app.invoke(start, _thread(limit), **durability)

            return tuple(
                runner(lib, saver_class, key) for key, (lib, saver_class) in libraries.items()
            )

        return build

    def history(saver: str) -> Any:
        def build() -> Any:
            def reader(lib: Any, saver_class: Any, prefix: str) -> Callable[[], Any]:
                config = _thread(limit)
                if saver == "memory":
                    memory = InMemorySaver() if lib is graphkit else LangGraphMemory()
                    growing(lib, steps, memory).invoke(start, config)
                    return lambda: list(growing(lib, steps, memory).get_state_history(config))
                path = folder / f"{prefix}{next(_threads)}.db"
                growing(lib, steps, saver_class(_connect(path))).invoke(start, config)
                opened = lambda: growing(lib, steps, saver_class(_connect(path)))  # noqa: E731
                return lambda: list(opened().get_state_history(config))

            return tuple(
                reader(lib, saver_class, key) for key, (lib, saver_class) in libraries.items()
            )

        return build

    return {
        f"8 growing list {steps}, in-memory saver, per step": (run("memory"), steps),
        f"8 growing list {steps}, in-memory history, per checkpoint": (history("memory"), steps),
        f"8 growing list {steps}, SQLite saver, per step": (run("sqlite"), steps),
        f"8 growing list {steps}, SQLite history, per checkpoint": (history("sqlite"), steps),
    }


def growing_file_size(steps: int) -> None:
    """Case 8: the SQLite file (with its write-ahead log) after one ``growing`` run."""
    folder, sizes = Path(tempfile.mkdtemp()), []
    for lib, saver_class in ((graphkit, SqliteSaver), (langgraph_graph, LangGraphSqlite)):
        path = folder / f"{lib.__name__}.db"
        connection = _connect(path)
        app = growing(lib, steps, saver_class(connection))
        app.invoke(
            {"n": 0, "log": [], "other": "x" * 1000}, _thread({"recursion_limit": steps + 10})
        )
        connection.close()
        sizes.append(sum(p.stat().st_size for p in folder.glob(f"{path.name}*")) / 1e6)
    print(
        f"{f'8 growing list {steps}, SQLite file':<56} {sizes[0]:>10.1f}MB "
        f"{sizes[1]:>10.1f}MB {sizes[1] / sizes[0]:>6.1f}×"
    )


def checkpoint_cost(lengths: list[int]) -> None:
    """graphkit's cost per step of saving (in-memory saver minus no saver), with the
    garbage collector on and off: the checkpoint work itself is O(what changed); with
    the collector on, a bigger graph also means a bigger heap for it to walk."""
    for length in lengths:
        on, off = _checkpoint_cost(length, collector=True), _checkpoint_cost(length, False)
        gc.collect()
        print(
            f"  2 checkpoint cost per step, chain {length}: {on:.1f} µs "
            f"(garbage collector off: {off:.1f} µs)"
        )


def _checkpoint_cost(length: int, collector: bool) -> float:
    plain, saved = chain(graphkit, length), chain(graphkit, length, InMemorySaver())
    limit = {"recursion_limit": length + 10}
    if not collector:
        gc.disable()
    try:
        bare = statistics.median(timed(lambda: plain.invoke({"n": 0}, limit)) for _ in range(5))
        with_saver = statistics.median(
            timed(lambda: saved.invoke({"n": 0}, _thread(limit))) for _ in range(5)
        )
    finally:
        gc.enable()
    return (with_saver - bare) / length * 1e6


def graphkit_only(quick: bool) -> None:
    print("\ngraphkit only")
    checkpoint_cost([100, 1000] if quick else [100, 1000, 5000])
    app = chain(graphkit, 1000)
    limit = {"recursion_limit": 1010}
    on_times, off_times = [], []
    for _ in range(7):  # interleaved, so that machine noise hits both alike
        on_times.append(timed(lambda: app.stepper({"n": 0}, limit).run()))
        off_times.append(timed(lambda: app.stepper({"n": 0}, limit, record=False).run()))
    on, off = statistics.median(on_times), statistics.median(off_times)
    per_step = f"{on / 1000 * 1e6:.1f} vs {off / 1000 * 1e6:.1f} µs/step"
    print(f"  6 recording on vs off, chain 1000: {per_step} ({(on / off - 1) * 100:+.0f}%)")
    run = app.trace({"n": 0}, limit)
    for kind in ("tasks", "writes", "changes", "state"):
        seconds = statistics.median(timed(lambda kind=kind: run.to_frame(kind)) for _ in range(3))
        print(f"  6 Run.to_frame({kind!r}) of 1,000 steps: {seconds * 1000:.1f} ms")
    big = chain(graphkit, 200).get_graph()
    for engine in ("dot", "python"):
        from graphkit.render import svg as svg_module

        svg_module._cache.clear() if hasattr(svg_module, "_cache") else None
        seconds = timed(lambda engine=engine: big.draw_svg(engine=engine))
        print(f"  6 SVG of a 200-node graph, {engine} layout: {seconds * 1000:.0f} ms")
    debugger_step(chain(graphkit, 50), "50-node chain")
    debugger_step(wide(graphkit, 50), "50-node fan-out (49 tasks in one step)")
    steps = 2_000 if quick else 10_000
    long_app = chain(graphkit, 10)
    loop = graphkit.StateGraph(Counter).add_node("spin", lambda s: {"n": s["n"] + 1})
    loop.add_edge(graphkit.START, "spin").add_conditional_edges(
        "spin", lambda s: "spin" if s["n"] < steps else graphkit.END
    )
    spin = loop.compile()
    del long_app
    gc.collect()
    tracemalloc.start()
    run = spin.trace({"n": 0}, {"recursion_limit": steps + 10})
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(
        f"  7 {steps:,}-step run, recording on: peak {peak / 1e6:.1f} MB "
        f"({peak / steps:.0f} bytes per step; {len(run.steps):,} supersteps kept)"
    )


def wide(lib: Any, size: int) -> Any:
    """START fans out to ``size - 1`` workers, which all lead to one sink."""
    builder = lib.StateGraph(Items)
    workers = [f"w{index}" for index in range(size - 1)]
    for name in workers:
        builder.add_node(name, lambda state, name=name: {"items": [name]})
        builder.add_edge(lib.START, name)
    builder.add_node("sink", lambda state: {"total": len(state["items"])})
    builder.add_edge(workers, "sink")
    return builder.compile()


def debugger_step(app: Any, label: str) -> None:
    """One press of the debugger's Step: the session runs the next superstep and builds
    the view (the restyled SVG, labels, "why" and the open tab's table), then the
    ipywidgets Debugger does the same and updates its widgets (no browser attached)."""
    from graphkit.widgets import Debugger, DebugSession

    def session_step(session: Any) -> None:
        view = session.step_view()
        view.table_html("tasks")

    first = {"n": 0} if "n" in app.spec.state_keys else {"items": [], "total": 0}
    limit = {"recursion_limit": 200}
    for name, make, press in (
        ("DebugSession.step_view", lambda: DebugSession(app, first, limit), session_step),
        ("Debugger Step button", lambda: Debugger(app, first, limit), lambda d: d.click("step")),
    ):
        times = []
        for _ in range(3):
            target = make()
            press(target)  # the input step; also imports pandas the first time
            steps = 0
            while target_running(target) and steps < 40:
                times.append(timed(lambda target=target, press=press: press(target)))
                steps += 1
        print(
            f"  6 debugger step update, {label}, {name}: "
            f"{statistics.median(times) * 1000:.1f} ms (median of {len(times)} steps)"
        )


def target_running(target: Any) -> bool:
    session = getattr(target, "session", target)
    return session.next_phase is not None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and sizes")
    parser.add_argument("--only", metavar="PREFIX", help="only the cases named so, e.g. '8 '")
    options = parser.parse_args()
    quick = options.quick
    repeats = 3 if quick else 5
    cases = chain_cases([100, 1000] if quick else [100, 1000, 5000])

    def fan() -> Any:
        # ten fan-outs a measurement: one alone waits mostly for 100 pool threads to wake,
        # which on a busy machine swamps the work being compared
        ours, theirs = fan_out(graphkit, graphkit.Send), fan_out(langgraph_graph, LangGraphSend)
        return (
            lambda: [ours.invoke({"items": [], "total": 0}) for _ in range(FAN_OUTS)],
            lambda: [theirs.invoke({"items": [], "total": 0}) for _ in range(FAN_OUTS)],
        )

    def invokes() -> Any:
        ours, theirs = small(graphkit), small(langgraph_graph)
        return (
            lambda: [ours.invoke({"n": 0}) for _ in range(200)],
            lambda: [theirs.invoke({"n": 0}) for _ in range(200)],
        )

    def agent() -> Any:
        ours, theirs = react(graphkit), react(langgraph_graph)
        limit = {"recursion_limit": 100}
        return (
            lambda: ours.invoke({"messages": []}, limit),
            lambda: theirs.invoke({"messages": []}, limit),
        )

    cases["3 fan-out of 100 Sends, per Send task"] = (fan, 100 * FAN_OUTS)
    cases["4 200 invokes of a 3-node graph, per invoke"] = (invokes, 200)
    cases["5 ReAct loop, 20 tool round trips, per run"] = (agent, 1)
    cases.update(growing_cases(2000))
    loop = asyncio.new_event_loop()
    cases.update(async_cases(loop))
    if options.only:
        cases = {name: case for name, case in cases.items() if name.startswith(options.only)}
    try:
        compare(repeats, cases)
    finally:
        loop.close()
    if not options.only or "8 ".startswith(options.only):
        growing_file_size(2000)
    if not options.only:
        graphkit_only(quick)


if __name__ == "__main__":
    main()
