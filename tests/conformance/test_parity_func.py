"""LangGraph's functional API (issue 15, item 4): the same ``@entrypoint`` / ``@task``
program runs on LangGraph and on graphkit, and a user sees the same results, stream
chunks in every mode, saved state and history, sync and async, with both savers.

The programs are in ``func_programs``.
"""

from __future__ import annotations

import asyncio
import copy
import importlib
from collections.abc import Callable
from typing import Any

import pytest

from .func_programs import ASYNC, SIDES, SYNC, Side, approves, remembers, side
from .harness import canonical, normalise_stream, tidy
from .scenarios import SAVERS
from .test_parity_stream_v2 import checkpoint_summary, plain_value

MODES = ["updates", "values", "tasks", "checkpoints", "custom", "debug"]


# -- observing a program ---------------------------------------------------------------------


def lines(chunks: list[Any]) -> list[str]:
    """The chunks as comparable lines: ids, timestamps and checkpoint ids left out."""
    rows = []
    for mode, chunk in tidy(chunks):
        if mode == "checkpoints":
            chunk = checkpoint_summary(chunk)
        elif mode == "debug" and chunk["type"] == "checkpoint":
            chunk = {**chunk, "payload": checkpoint_summary(chunk["payload"])}
        rows.append((mode, plain_value(chunk)))
    return normalise_stream(rows)


def snapshot(state: Any) -> str:
    tasks = [(t.name, plain_value(t.interrupts), plain_value(t.result)) for t in state.tasks]
    metadata = state.metadata or {}
    shown = (plain_value(state.values), state.next, tasks, metadata.get("step"))
    return canonical((*shown, metadata.get("source")))


def run_one(app: Any, given: Any, streamed: Any, invoked: Any, run_async: bool) -> tuple[Any, Any]:
    """One input: streamed in every mode on one thread, invoked on another."""

    async def consume() -> list[Any]:
        return [chunk async for chunk in app.astream(given, streamed, stream_mode=MODES)]

    def outcome(run: Callable[[], Any]) -> Any:
        try:
            return run()
        except Exception as error:
            return f"raised {type(error).__name__}"

    if run_async:
        chunks = outcome(lambda: asyncio.run(consume()))
        return chunks, outcome(lambda: asyncio.run(app.ainvoke(given, invoked)))
    chunks = outcome(lambda: list(app.stream(given, streamed, stream_mode=MODES)))
    return chunks, outcome(lambda: app.invoke(given, invoked))


def observe(name: str, library: str, saver: str, run_async: bool) -> dict[str, Any]:
    """Each input on one thread: its stream in every mode; then invoke on another thread;
    the first thread's state and history."""
    s = side(library)
    build = {**SYNC, **ASYNC}[name]
    seen: dict[str, Any] = {}

    with SAVERS[saver](library) as checkpointer:
        app, inputs = build(s, checkpointer)
        streamed, invoked = (
            {"configurable": {"thread_id": "s"}},
            {"configurable": {"thread_id": "i"}},
        )
        for index, given in enumerate(inputs):
            chunks, result = run_one(app, given, streamed, invoked, run_async)
            seen[f"stream {index}"] = chunks if isinstance(chunks, str) else lines(chunks)
            seen[f"invoke {index}"] = canonical(plain_value(result))
        seen["state"] = snapshot(app.get_state(streamed))
        seen["history"] = [snapshot(state) for state in app.get_state_history(streamed)]
    return seen


# -- the tests -------------------------------------------------------------------------------


@pytest.mark.parametrize("saver", SAVERS)
@pytest.mark.parametrize("name", SYNC)
def test_a_sync_program_runs_as_on_langgraph(name: str, saver: str) -> None:
    # the oracle keeps its in-memory saver: both of its savers behave the same here
    expected = observe(name, "langgraph", "memory", run_async=False)
    assert observe(name, "graphkit", saver, run_async=False) == expected


@pytest.mark.parametrize(
    "name", [*ASYNC, "parallel", "approves", "remembers", "catches", "asks_twice_in_task"]
)
def test_a_program_runs_async_as_on_langgraph(name: str) -> None:
    expected = observe(name, "langgraph", "memory", run_async=True)
    assert observe(name, "graphkit", "memory", run_async=True) == expected


def test_sqlite_savers_agree_on_an_interrupted_program() -> None:
    """LangGraph's SqliteSaver as the oracle of graphkit's, on a resumed program."""
    expected = observe("asks_in_task", "langgraph", "sqlite", run_async=False)
    assert observe("asks_in_task", "graphkit", "sqlite", run_async=False) == expected


@pytest.mark.parametrize("how", ["sync", "async"])
def test_v2_parts_as_on_langgraph(how: str) -> None:
    def run(library: str) -> list[str]:
        s = side(library)
        with SAVERS["memory"](library) as checkpointer:
            app, _ = approves(s, checkpointer)
            thread = {"configurable": {"thread_id": "v2"}}
            parts = []
            for given in ("cats", s.Command(resume="fine")):
                # (copied as they come: LangGraph later changes an updates part's dict)
                if how == "sync":
                    stream = app.stream(given, thread, stream_mode=MODES, version="v2")
                    parts += [copy.deepcopy(part) for part in stream]
                else:

                    async def collect(given: Any = given) -> list[Any]:
                        stream = app.astream(given, thread, stream_mode=MODES, version="v2")
                        return [copy.deepcopy(part) async for part in stream]

                    parts += asyncio.run(collect())
            chunks = [(part["type"], part["data"]) for part in parts]
            interrupts = [plain_value(p.get("interrupts")) for p in parts if p["type"] == "values"]
            return [*lines(chunks), canonical(interrupts)]

    assert run("graphkit") == run("langgraph")


def test_update_state_and_the_default_stream_as_on_langgraph() -> None:
    """``update_state`` writes through the entrypoint's writers (``previous`` sees it);
    the default stream mode is "updates"; ``invoke(stream_mode=...)`` lists chunks."""

    def run(library: str) -> str:
        s = side(library)
        with SAVERS["memory"](library) as checkpointer:
            app, _ = remembers(s, checkpointer)
            thread = {"configurable": {"thread_id": "u"}}
            first = list(app.stream(5, thread))
            app.update_state(thread, 100)
            state = app.get_state(thread)
            after = app.invoke(1, thread)
            chunks = app.invoke(2, thread, stream_mode="updates")
            return canonical((first, snapshot(state), after, chunks))

    assert run("graphkit") == run("langgraph")


def _mistakes(s: Side) -> list[str]:
    """What each mistake raises, by class."""

    def raised(make: Callable[[], Any]) -> str:
        try:
            make()
        except Exception as error:
            return type(error).__name__
        return "nothing"

    @s.task
    def plain(x: int) -> int:
        return x

    def generator() -> Any:
        @s.entrypoint()
        def gen(x: int) -> Any:
            yield x

    def no_parameter() -> Any:
        @s.entrypoint()
        def bare() -> int:
            return 1

    def sync_timeout() -> Any:
        @s.task(timeout=1.0)
        def slow(x: int) -> int:
            return x

    def wrong_arguments() -> Any:
        @s.entrypoint()
        def calls_badly(x: int) -> int:
            return plain(x, 2, 3).result()

        return calls_badly.invoke(1)

    def async_task_in_sync_run() -> Any:
        @s.task
        async def later(x: int) -> int:
            return x

        @s.entrypoint()
        def sync_entry(x: int) -> int:
            return later(x).result()

        return sync_entry.invoke(1)

    def result_in_async_code() -> Any:
        @s.task
        async def later(x: int) -> int:
            await asyncio.sleep(0.01)
            return x

        @s.entrypoint()
        async def waits_wrongly(x: int) -> int:
            return later(x).result()

        return asyncio.run(asyncio.wait_for(waits_wrongly.ainvoke(1), 5))

    return [
        raised(result_in_async_code),
        raised(lambda: plain(1)),  # called outside an entrypoint
        raised(generator),
        raised(no_parameter),
        raised(sync_timeout),
        raised(wrong_arguments),
        raised(async_task_in_sync_run),
    ]


def test_mistakes_raise_what_langgraph_raises() -> None:
    assert _mistakes(side("graphkit")) == _mistakes(side("langgraph"))


def test_mistakes_are_named_with_their_fix() -> None:
    from graphkit.func import entrypoint, task

    @task
    def plain(x: int) -> int:
        return x

    with pytest.raises(RuntimeError, match=r"'plain' was called outside a running entrypoint.*"
                       r"plain\.func\(\.\.\.\)"):  # fmt: skip
        plain(1)
    with pytest.raises(ValueError, match=r"bare\(\) gets the run's input.*def bare\(inputs\)"):

        @entrypoint()
        def bare() -> int:
            return 1

    with pytest.raises(ValueError, match=r"'slow' is a sync function.*async def"):

        @task(timeout=1.0)
        def slow(x: int) -> int:
            return x

    @entrypoint()
    def calls_badly(x: int) -> int:
        return plain(x, 2).result()

    with pytest.raises(TypeError, match=r"Task 'plain' was called with arguments that do not "
                       r"fit its signature plain\(x: '?int'?\) -> '?int'?: too many"):  # fmt: skip
        calls_badly.invoke(1)


def test_cached_tasks_and_entrypoints_as_on_langgraph() -> None:
    """A task with a cache policy runs once per key; a cached call streams its update
    with ``"__metadata__": {"cached": True}`` and no task result; ``clear_cache``
    forgets it; an entrypoint's own ``cache_policy`` caches the whole run's writes."""

    def run(library: str) -> list[Any]:
        s = side(library)
        cache_module = importlib.import_module(f"{library}.cache.memory")
        types = importlib.import_module(f"{library}.types")
        cache, ran = cache_module.InMemoryCache(), []

        @s.task(cache_policy=types.CachePolicy())
        def slow(x: int) -> int:
            ran.append(x)
            return x * 2

        @s.entrypoint(cache=cache)
        def twice(x: int) -> int:
            return slow(x).result() + slow(x + 1).result()

        @s.entrypoint(cache=cache, cache_policy=types.CachePolicy())
        def whole(x: int) -> int:
            ran.append(-x)
            return x

        seen = [lines(list(twice.stream(1, stream_mode=MODES))) for _ in range(2)]
        slow.clear_cache(cache)
        seen.append(lines(list(twice.stream(1, stream_mode=["updates", "tasks"]))))
        seen += [list(whole.stream(5)), list(whole.stream(5)), list(ran)]
        return seen

    assert run("graphkit") == run("langgraph")


@pytest.mark.parametrize("how", ["sync", "async"])
def test_messages_from_a_task_and_the_entrypoint_as_on_langgraph(how: str) -> None:
    """Tokens of a chat model called in a task carry the task's metadata (its path marks
    a call, ending in True); those called in the entrypoint carry the entrypoint's."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    def run(library: str) -> list[Any]:
        s = side(library)
        model = GenericFakeChatModel(messages=iter([AIMessage("hello there"), AIMessage("bye")]))

        @s.task
        def ask(question: str) -> str:
            return model.invoke(question).content

        @s.entrypoint()
        def chat(question: str) -> list:
            return [ask(question).result(), model.invoke("again").content]

        if how == "sync":
            chunks = list(chat.stream("hi", stream_mode="messages"))
        else:

            async def collect() -> list[Any]:
                return [chunk async for chunk in chat.astream("hi", stream_mode="messages")]

            chunks = asyncio.run(collect())
        keys = ("langgraph_step", "langgraph_node", "langgraph_triggers", "langgraph_path")
        return [
            (type(message).__name__, message.content, [metadata[key] for key in keys])
            for message, metadata in chunks
        ]

    assert run("graphkit") == run("langgraph")


def test_one_stream_channel_named_alone_reads_as_its_value_in_a_thread() -> None:
    """The low-level rule entrypoints rely on (``stream_channels="name"``): the state,
    the history, a task's result and the checkpoints stream show that channel's value;
    a paused run's values chunk adds the interrupt to a dict value."""

    def run(library: str) -> list[Any]:
        s = side(library)
        pregel = importlib.import_module(f"{library}.pregel")
        channels = importlib.import_module(f"{library}.channels")

        def ask(value: dict) -> dict:
            return {**value, "answer": s.interrupt("ok?")}

        node = pregel.NodeBuilder().subscribe_only("a").do(ask).write_to("b")
        with SAVERS["memory"](library) as checkpointer:
            app = pregel.Pregel(
                nodes={"n": node},
                channels={"a": channels.LastValue(dict), "b": channels.LastValue(dict)},
                input_channels="a",
                output_channels="b",
                stream_channels="b",
                checkpointer=checkpointer,
            )
            thread = {"configurable": {"thread_id": "1"}}
            seen = []
            for given in ({"q": 1}, s.Command(resume="y"), {"q": 2}):
                # (copied as they come: LangGraph later adds the interrupt to the dict
                # its checkpoint chunk holds)
                stream = app.stream(given, thread, stream_mode=MODES)
                seen.append(lines([copy.deepcopy(chunk) for chunk in stream]))
            seen.append(snapshot(app.get_state(thread)))
            seen.append([snapshot(state) for state in app.get_state_history(thread)])
        return seen

    assert run("graphkit") == run("langgraph")


def test_an_entrypoint_run_inside_a_graph_node_streams_as_a_subgraph() -> None:
    """An entrypoint invoked inside a ``StateGraph`` node: its chunks (and its calls')
    come with the node's namespace under ``subgraphs=True``."""

    def run(library: str) -> list[Any]:
        s = side(library)
        graph = importlib.import_module(f"{library}.graph" if library == "langgraph" else library)

        @s.task
        def inc(x: int) -> int:
            return x + 1

        @s.entrypoint()
        def inner(x: int, writer):  # (a custom chunk sent by a task: see functional.md)
            writer(f"inner got {x}")
            return inc(x).result() * 2

        def node(state: dict) -> dict:
            return {"x": inner.invoke(state["x"])}

        builder = graph.StateGraph(dict).add_node("node", node).add_edge(graph.START, "node")
        app = builder.compile()
        chunks = app.stream({"x": 1}, stream_mode=["updates", "custom"], subgraphs=True)
        return [(tuple(part.split(":")[0] for part in ns), mode, c) for ns, mode, c in chunks]

    assert run("graphkit") == run("langgraph")


@pytest.mark.parametrize("saver", SAVERS)
def test_durability_exit_keeps_the_pause_and_the_finished_calls(saver: str) -> None:
    def run(library: str) -> list[str]:
        s = side(library)
        with SAVERS[saver](library) as checkpointer:
            app, inputs = approves(s, checkpointer)
            thread = {"configurable": {"thread_id": "exit"}}
            seen = []
            for given in inputs:
                chunks = app.stream(given, thread, stream_mode=MODES, durability="exit")
                seen.append(lines(list(chunks)))
            seen.append([snapshot(state) for state in app.get_state_history(thread)])
        return seen

    assert run("graphkit") == run("langgraph")


def old_names_program(s: Side) -> tuple[list[str], Any, list[str]]:
    """``entrypoint(config_schema=, retry=)`` and ``task(retry=)``: the names LangGraph
    renamed, still accepted with a warning; what ran, the result, the warning classes."""
    import warnings
    from dataclasses import dataclass

    @dataclass
    class Context:
        greeting: str

    attempts: list[str] = []
    fast = s.RetryPolicy(initial_interval=0.0, jitter=False, retry_on=ValueError)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        @s.task(retry=fast)
        def flaky(word: str) -> str:
            attempts.append(f"task {word}")
            if attempts.count(f"task {word}") < 2:
                raise ValueError("first call fails")
            return word.upper()

        @s.entrypoint(config_schema=Context, retry=fast)
        def greet(word: str, runtime: Any) -> str:
            attempts.append("entrypoint")
            if attempts.count("entrypoint") < 2:
                raise ValueError("first run fails")
            return f"{runtime.context.greeting} {flaky(word).result()}"

        result = greet.invoke("world", context=Context("hello"))
    kinds = sorted(
        {
            type(w.message).__name__
            for w in caught
            if "deprecat" in type(w.message).__name__.lower()
            or "Deprecated" in type(w.message).__name__
        }
    )
    return attempts, result, kinds


def test_the_old_argument_names_work_with_a_warning_as_on_langgraph() -> None:
    theirs = old_names_program(side("langgraph"))
    ours = old_names_program(side("graphkit"))
    assert ours == theirs
    assert ours[:2] == (["entrypoint", "entrypoint", "task world", "task world"], "hello WORLD")
    assert ours[2] == ["LangGraphDeprecatedSinceV05", "LangGraphDeprecatedSinceV10"]


def test_an_unknown_keyword_of_entrypoint_or_task_is_refused_by_name() -> None:
    s = side("graphkit")
    with pytest.raises(
        TypeError, match=r"entrypoint\(\) got unexpected keyword argument\(s\) \['chekpointer'\]"
    ):
        s.entrypoint(chekpointer=None)
    with pytest.raises(
        TypeError, match=r"task\(\) got unexpected keyword argument\(s\) \['retries'\]"
    ):
        s.task(retries=3)


@pytest.mark.parametrize("how", ["sync", "async"])
def test_messages_a_task_or_the_entrypoint_returns_are_streamed_as_on_langgraph(how: str) -> None:
    """``stream_mode="messages"`` also sends the messages a task returns (under the
    task's name) and those in the entrypoint's returned state, never the ones a task was
    given."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    def run(library: str) -> list[Any]:
        s = side(library)

        @s.task
        def call_tool(call_id: str) -> Any:
            return ToolMessage("sunny", tool_call_id=call_id, id="tool-1")

        @s.task
        def echo(messages: list) -> Any:
            return messages[-1]  # given, so not streamed again

        @s.entrypoint()
        def agent(messages: list) -> dict:
            echoed = echo(messages).result()
            result = call_tool("c1").result()
            return {"messages": [*messages, echoed, result, AIMessage("done", id="ai-1")]}

        given = [HumanMessage("weather?", id="human-1")]
        if how == "sync":
            chunks = list(agent.stream(given, stream_mode="messages"))
        else:

            async def collect() -> list[Any]:
                return [chunk async for chunk in agent.astream(given, stream_mode="messages")]

            chunks = asyncio.run(collect())
        return [
            (type(message).__name__, message.content, metadata["langgraph_node"])
            for message, metadata in chunks
        ]

    ours = run("graphkit")
    assert ours == run("langgraph")
    assert ours == [("ToolMessage", "sunny", "call_tool"), ("AIMessage", "done", "agent")]


def test_an_update_of_a_paused_or_new_program_needs_no_as_node_as_on_langgraph() -> None:
    """An entrypoint is its graph's only node: ``update_state`` without ``as_node``
    writes as it, on a new thread and on one paused in its first run."""

    def run(library: str) -> str:
        s = side(library)
        with SAVERS["memory"](library) as checkpointer:

            @s.entrypoint(checkpointer=checkpointer)
            def ask(x: int) -> int:
                return x + int(s.interrupt("how many?"))

            seen = []
            for thread_id, first in (("new", None), ("paused", 1)):
                thread = {"configurable": {"thread_id": thread_id}}
                if first is not None:
                    ask.invoke(first, thread)
                ask.update_state(thread, 7)
                seen.append(snapshot(ask.get_state(thread)))
            return canonical(seen)

    assert run("graphkit") == run("langgraph")


def test_a_resumed_program_that_calls_another_task_here_runs_it_as_on_langgraph() -> None:
    """Call results are reused on resume by task: a program that calls ``b`` where it
    called ``a`` before the pause runs ``b`` (it does not take ``a``'s result)."""

    def run(library: str) -> str:
        s = side(library)
        calls = {"n": 0}

        @s.task
        def a(x: int) -> str:
            return f"a{x}"

        @s.task
        def b(x: int) -> str:
            return f"b{x}"

        with SAVERS["memory"](library) as checkpointer:

            @s.entrypoint(checkpointer=checkpointer)
            def flip(x: int) -> list:
                calls["n"] += 1
                first = (a if calls["n"] == 1 else b)(x).result()
                return [first, s.interrupt("go on?")]

            thread = {"configurable": {"thread_id": "t"}}
            asked = [i.value for i in flip.invoke(1, thread)["__interrupt__"]]
            return canonical([asked, flip.invoke(s.Command(resume="yes"), thread)])

    assert run("graphkit") == run("langgraph")


def test_an_entrypoints_name_is_langgraphs_and_so_is_its_node_name_in_a_graph() -> None:
    def observe(name: str) -> list:
        lib = side(name)
        package = "langgraph.graph" if name == "langgraph" else "graphkit"
        graph_module = importlib.import_module(package)

        @lib.entrypoint()
        def double(state: dict) -> dict:
            return {"x": state["x"] * 2}

        builder = graph_module.StateGraph(dict).add_node(double)
        node = next(iter(builder.nodes))
        builder.add_edge(graph_module.START, node)
        updates = list(builder.compile().stream({"x": 3}, stream_mode="updates"))
        return [double.name, double.get_name(), node, list(double.stream({"x": 3})), updates]

    assert observe("graphkit") == observe("langgraph")


async def _cancels_a_call(root: str) -> list[Any]:
    """An async entrypoint cancels one of its running calls (``future.cancel()``)."""
    func = importlib.import_module(f"{root}.func")
    types = importlib.import_module(f"{root}.types")
    memory = importlib.import_module(f"{root}.checkpoint.memory")
    seen: list[Any] = []
    cancelled: list[int] = []

    @func.task()
    async def slow(number: int) -> str:
        try:
            await asyncio.sleep(0.4)
        except asyncio.CancelledError:
            cancelled.append(number)  # (before or after its caller goes on: a race)
            raise
        return str(number) * 2

    saver = memory.InMemorySaver()

    @func.entrypoint(checkpointer=saver)
    async def main(numbers: list[int]) -> list[str]:
        futures = [slow(number) for number in numbers]
        await asyncio.sleep(0.1)
        dropped = futures.pop()
        seen.append(dropped.cancel())
        try:
            await dropped
        except asyncio.CancelledError:
            seen.append("await: CancelledError")
        answer = types.interrupt("question")
        return [await future + answer for future in futures]

    config = {"configurable": {"thread_id": "1"}}
    for given in ([0, 1], types.Command(resume="!")):
        chunks = [chunk async for chunk in main.astream(given, config, stream_mode=["updates"])]
        seen.append([chunk for _, chunk in chunks if "__interrupt__" not in chunk])
        seen.append(f"cancelled so far: {cancelled}")
        saved = await saver.aget_tuple(config)
        seen.append(
            sorted(
                (channel, str(value)[:30])
                for _, channel, value in saved.pending_writes
                if channel != "__interrupt__"
            )
        )
    return seen


def test_cancelling_a_call_cancels_it_as_on_langgraph() -> None:
    """``future.cancel()`` on a running async call cancels the call: it streams nothing,
    its ``CancelledError`` is saved (not a ``NodeCancelledError``: it did not raise it
    itself), and a resume calls it again."""
    theirs = asyncio.run(_cancels_a_call("langgraph"))
    assert "cancelled so far: [1, 1]" in theirs
    assert asyncio.run(_cancels_a_call("graphkit")) == theirs


async def _one_call_after_another(root: str) -> list[Any]:
    """An async entrypoint awaits one call, then makes the next (sync tasks, run in
    threads, and an async one), streamed in "tasks" and "updates" modes."""
    func = importlib.import_module(f"{root}.func")
    memory = importlib.import_module(f"{root}.checkpoint.memory")

    @func.task()
    def first(text: str) -> str:
        return text + "1"

    @func.task()
    def second(text: str) -> str:
        return text + "2"

    @func.task()
    async def third(text: str) -> str:
        return text + "3"

    @func.entrypoint(checkpointer=memory.InMemorySaver())
    async def main(text: str) -> str:
        return await third(await second(await first(text)))

    seen = []
    for thread in range(5):  # (the order was a race)
        config = {"configurable": {"thread_id": str(thread)}}
        modes = ["tasks", "updates"]
        chunks = [chunk async for chunk in main.astream("0", config, stream_mode=modes)]
        seen.append(lines(chunks))
    return seen


def test_a_calls_result_streams_before_the_next_call_starts() -> None:
    """A call's result chunks come before the start of the call its caller makes after
    awaiting it (graphkit could stream that start first, in an async run)."""
    theirs = asyncio.run(_one_call_after_another("langgraph"))
    assert asyncio.run(_one_call_after_another("graphkit")) == theirs


async def _cancels_a_call_before_it_starts(root: str) -> list[Any]:
    func = importlib.import_module(f"{root}.func")
    memory = importlib.import_module(f"{root}.checkpoint.memory")
    ran: list[str] = []

    @func.task()
    async def slow(number: int) -> int:
        ran.append("started")
        await asyncio.sleep(0.05)
        return number

    saver = memory.InMemorySaver()

    @func.entrypoint(checkpointer=saver)
    async def main(number: int) -> str:
        cancelled = slow(number).cancel()  # (its coroutine has not started yet)
        await asyncio.sleep(0.3)
        return f"cancelled: {cancelled}"

    config = {"configurable": {"thread_id": "1"}}
    chunks = [chunk async for chunk in main.astream(1, config, stream_mode="updates")]
    saved = await saver.aget_tuple(config)
    writes = sorted((channel, str(value)[:30]) for _, channel, value in saved.pending_writes)
    return [chunks, ran, writes]


def test_a_call_cancelled_before_it_starts_never_runs_as_on_langgraph() -> None:
    """LangGraph never starts a call whose future was cancelled first; graphkit's ran on,
    streamed and saved its result (8d002f9 cancelled only a coroutine already running)."""
    theirs = asyncio.run(_cancels_a_call_before_it_starts("langgraph"))
    assert theirs[1] == []
    assert asyncio.run(_cancels_a_call_before_it_starts("graphkit")) == theirs


def test_a_thread_with_nothing_saved_reads_as_an_empty_dict() -> None:
    """An entrypoint reads a saved thread as its bare return value, but a thread with
    nothing saved as ``{}``, as every graph's does (graphkit gave None)."""
    seen = []
    for name in SIDES:
        s = side(name)
        saver = importlib.import_module(f"{name}.checkpoint.memory").InMemorySaver()

        @s.entrypoint(checkpointer=saver)
        def flow(number: int) -> int:
            return number + 1

        empty = flow.get_state({"configurable": {"thread_id": "never"}})
        flow.invoke(1, {"configurable": {"thread_id": "t"}})
        saved = flow.get_state({"configurable": {"thread_id": "t"}})
        later = asyncio.run(flow.aget_state({"configurable": {"thread_id": "other"}}))
        seen.append((empty.values, empty.next, saved.values, later.values))
    assert seen[0] == seen[1] == ({}, (), 2, {})


def test_an_annotation_naming_a_missing_attribute_still_builds_the_entrypoint() -> None:
    """graphkit evaluates an entrypoint's string annotations (this module's ``from
    __future__ import annotations``), LangGraph never does; one naming an attribute that
    is not there is left as written, as a name that cannot be found is, and the
    entrypoint builds and runs as on LangGraph."""
    seen = []
    for name in SIDES:
        s = side(name)

        @s.entrypoint()
        def given(x: asyncio.NoSuchClass) -> dict:  # type: ignore[name-defined]
            return x

        @s.entrypoint()
        def returned(x: list) -> copy.NoSuchClass:  # type: ignore[name-defined]
            return x

        seen.append((given.invoke({"x": 1}), returned.invoke([2])))
    assert seen[0] == seen[1] == ({"x": 1}, [2])


def test_an_entrypoint_is_named_as_in_langgraph() -> None:
    """LangGraph 1.2's ``entrypoint()(weather)`` is a ``Pregel`` named "LangGraph", not
    "weather" (the function names its one node): ``name``, ``get_name()`` and the root
    run of ``astream_events`` say "LangGraph" on both libraries, and the node is
    ``weather``. graphkit's views take the graph's name from there too (a drawing's
    title, an exported session's title)."""

    async def events(app: Any) -> list[tuple[str, str]]:
        seen = [event async for event in app.astream_events(["Oslo"], version="v2")]
        return [(e["event"], e["name"]) for e in seen if e["event"] == "on_chain_start"]

    said = {}
    for library in ("langgraph", "graphkit"):
        func = importlib.import_module(f"{library}.func")

        @func.task
        def fetch(city: str) -> str:
            return city

        @func.entrypoint()
        def weather(cities: list[str]) -> list[str]:
            return [future.result() for future in [fetch(city) for city in cities]]

        nodes = sorted(getattr(node, "id", node) for node in weather.get_graph().nodes)
        said[library] = (weather.name, weather.get_name(), nodes, asyncio.run(events(weather)))
    assert said["graphkit"] == said["langgraph"]
    assert said["graphkit"][0] == "LangGraph"
    assert said["graphkit"][3][:2] == [
        ("on_chain_start", "LangGraph"),
        ("on_chain_start", "weather"),
    ]
