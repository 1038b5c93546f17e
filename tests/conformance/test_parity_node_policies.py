"""Error handlers and timeouts (issue 15, item 2), as LangGraph 1.2 defines them: the same
graph runs on both libraries, sync and async, on both savers; they must agree on the
stream chunks (updates, tasks, values), on what the run raised, on how many attempts a
node took, and on the saved thread (values, next, the tasks' errors, pending writes)."""

from __future__ import annotations

import asyncio
import operator
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Annotated, Any, TypedDict

import pytest

from .harness import canonical, normalise_stream, tidy
from .scenarios import SAVERS

LIBRARIES = ("langgraph", "graphkit")
MODES = ["updates", "tasks", "values"]
THREAD = {"configurable": {"thread_id": "t"}}
elapsed = re.compile(r" \(elapsed: [0-9.]+s\)")
# LangGraph 1.2.24's Interrupt has a response_schema graphkit lacks (compatibility page)
hex_id = re.compile(r"\b[0-9a-f]{32}\b")  # an interrupt's id: its task's, which differ
no_schema = re.compile(r"(, response_schema=None|'response_schema': None, )")


def their_saver(saver: str, is_async: bool) -> str:
    """LangGraph's SqliteSaver is sync only: an async run is compared with LangGraph's
    in-memory saver (what a user sees does not depend on the saver)."""
    return "memory" if is_async else saver


class State(TypedDict):
    log: Annotated[list, operator.add]


def names(library: str) -> dict[str, Any]:
    """What a scenario needs from one library, by name."""
    if library == "langgraph":
        from langgraph.errors import NodeCancelledError, NodeError
        from langgraph.graph import START, StateGraph
        from langgraph.runtime import Runtime
        from langgraph.types import Command, RetryPolicy, Send, TimeoutPolicy, interrupt
    else:
        from graphkit import START, Command, RetryPolicy, Send, StateGraph, interrupt
        from graphkit.errors import NodeCancelledError, NodeError
        from graphkit.pregel.runtime import Runtime
        from graphkit.types import TimeoutPolicy
    return dict(
        StateGraph=StateGraph, START=START, Command=Command, RetryPolicy=RetryPolicy,
        Send=Send, TimeoutPolicy=TimeoutPolicy, interrupt=interrupt, NodeError=NodeError,
        Runtime=Runtime, NodeCancelledError=NodeCancelledError,
    )  # fmt: skip


def failing(calls: list[str], name: str, is_async: bool) -> Callable[[Any], Any]:
    if is_async:

        async def fail_async(state: Any) -> Any:
            calls.append(name)
            raise ValueError(f"{name} broke")

        return fail_async

    def fail(state: Any) -> Any:
        calls.append(name)
        raise ValueError(f"{name} broke")

    return fail


def log(text: str) -> Callable[[Any], dict[str, list[str]]]:
    return lambda state: {"log": [text]}


# -- error handler scenarios: builder(lib, calls, is_async) -> (builder, input) ---------------


def handled_beside_a_sibling(lib: dict[str, Any], calls: list[str], is_async: bool) -> Any:
    """A failing node with a handler beside one that works; the failed node's edge is
    not taken; the handler is told which node failed and why."""
    NodeError = lib["NodeError"]

    def handler(state: State, error: NodeError) -> dict:  # type: ignore[valid-type]
        return {"log": [f"handled {error.node}: {error.error}"]}  # type: ignore[attr-defined]

    builder = lib["StateGraph"](State)
    builder.add_node("bad", failing(calls, "bad", is_async), error_handler=handler)
    builder.add_node("ok", log("ok"))
    builder.add_node("after", log("after"))
    builder.add_edge(lib["START"], "bad")
    builder.add_edge(lib["START"], "ok")
    builder.add_edge("bad", "after")
    return builder, {"log": []}


def handler_routes_on(lib: dict[str, Any], calls: list[str], is_async: bool) -> Any:
    """The handler returns a Command that goes to a fallback node; retries come first."""
    Command = lib["Command"]
    builder = lib["StateGraph"](State)
    retry = lib["RetryPolicy"](max_attempts=3, initial_interval=0.0, jitter=False,
                               retry_on=ValueError)  # fmt: skip
    builder.add_node(
        "bad",
        failing(calls, "bad", is_async),
        retry_policy=retry,
        error_handler=lambda state: Command(update={"log": ["handler"]}, goto="fallback"),
    )
    builder.add_node("fallback", log("fallback"))
    builder.add_node("after", log("after"))
    builder.add_edge(lib["START"], "bad")
    builder.add_edge("bad", "after")
    return builder, {"log": []}


def handler_fails_too(lib: dict[str, Any], calls: list[str], is_async: bool) -> Any:
    """A handler that raises fails the run with its own error."""

    def handler(state: State) -> dict:
        raise RuntimeError("handler broke")

    builder = lib["StateGraph"](State)
    builder.add_node("bad", failing(calls, "bad", is_async), error_handler=handler)
    builder.add_edge(lib["START"], "bad")
    return builder, {"log": []}


def default_handler(lib: dict[str, Any], calls: list[str], is_async: bool) -> Any:
    """``set_node_defaults(error_handler=...)`` covers the nodes without their own."""
    NodeError = lib["NodeError"]

    def fallback(state: State, error: NodeError) -> dict:  # type: ignore[valid-type]
        return {"log": [f"default for {error.node}"]}  # type: ignore[attr-defined]

    builder = lib["StateGraph"](State).set_node_defaults(error_handler=fallback)
    builder.add_node("bad", failing(calls, "bad", is_async))
    builder.add_node("own", failing(calls, "own", is_async), error_handler=log("own handler"))
    builder.add_edge(lib["START"], "bad")
    builder.add_edge(lib["START"], "own")
    return builder, {"log": []}


def send_fails(lib: dict[str, Any], calls: list[str], is_async: bool) -> Any:
    """A task sent with Send fails; its handler gets the packet as its input."""
    Send, NodeError = lib["Send"], lib["NodeError"]

    def worker(item: int) -> dict:
        calls.append(f"worker {item}")
        if item == 1:
            raise ValueError(f"item {item}")
        return {"log": [f"item {item}"]}

    def handler(item: int, error: NodeError) -> dict:  # type: ignore[valid-type]
        return {"log": [f"handled {item}: {error.error}"]}  # type: ignore[attr-defined]

    builder = lib["StateGraph"](State)
    builder.add_node("worker", worker, error_handler=handler)
    builder.add_conditional_edges(lib["START"], lambda s: [Send("worker", i) for i in range(3)])
    return builder, {"log": []}


HANDLED = {
    "beside_a_sibling": handled_beside_a_sibling,
    "routes_on": handler_routes_on,
    "fails_too": handler_fails_too,
    "default_handler": default_handler,
    "send_fails": send_fails,
}


def observe(library: str, scenario: Callable[..., Any], saver: str, is_async: bool) -> list:
    """What a user sees of one run: the tidied chunks, the error, the attempts, and the
    saved thread."""
    lib, calls = names(library), []
    builder, given = scenario(lib, calls, is_async)
    with SAVERS[saver](library) as checkpointer:
        app = builder.compile(checkpointer=checkpointer)
        chunks, error = drain(app, given, is_async)
        return [*chunks, error, sorted(calls), *saved_thread(app)]


def drain(app: Any, given: Any, is_async: bool, config: Any = THREAD) -> tuple[list[str], Any]:
    async def run_async() -> tuple[list, Any]:
        seen: list = []
        try:
            async for chunk in app.astream(given, config, stream_mode=MODES):
                seen.append(chunk)
        except Exception as error:
            return seen, type(error).__name__
        return seen, None

    if is_async:
        seen, error = asyncio.run(run_async())
    else:
        seen, error = [], None
        try:
            for chunk in app.stream(given, config, stream_mode=MODES):
                seen.append(chunk)
        except Exception as caught:
            error = type(caught).__name__
    lines = normalise_stream(without_ids(tidy(seen)))
    return [hex_id.sub("ID", no_schema.sub("", line)) for line in lines], error


def without_ids(chunks: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Tasks of one step finish in any order, so their tidied ids ("task-N", numbered as
    they appear) do too: tasks are known by name here."""
    return [
        (mode, {k: v for k, v in chunk.items() if k != "id"} if mode == "tasks" else chunk)
        for mode, chunk in chunks
    ]


def saved_thread(app: Any) -> list[str]:
    """The saved thread as get_state shows it, and the channels of its pending writes."""
    snapshot = app.get_state(THREAD)
    tasks = [(task.name, elapsed.sub("", task.error or "")) for task in snapshot.tasks]
    saved = app.checkpointer.get_tuple(THREAD)
    channels = sorted(channel for _, channel, _ in saved.pending_writes)
    steps = [state.metadata["step"] for state in app.get_state_history(THREAD)]
    next_ = canonical(snapshot.next)  # (in the order the nodes were added, in both)
    return [canonical(snapshot.values), next_, canonical(tasks), channels, steps]


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("saver", sorted(SAVERS))
@pytest.mark.parametrize("scenario", sorted(HANDLED))
def test_error_handlers_agree(scenario, saver, is_async):
    expected = observe("langgraph", HANDLED[scenario], their_saver(saver, is_async), is_async)
    assert observe("graphkit", HANDLED[scenario], saver, is_async) == expected


def paused_then_resumed(library: str, saver: str, is_async: bool, make: Callable) -> list:
    """``bad`` fails and hands over to its handler beside a sibling; the run pauses and is
    resumed with "yes". ``make(lib, calls)`` gives ``(handler, sibling)``. What a user
    sees: the paused thread, the resumed run's chunks, who ran, the thread at the end."""
    lib, calls = names(library), []
    handler, sibling = make(lib, calls)
    builder = lib["StateGraph"](State)
    builder.add_node("bad", failing(calls, "bad", is_async), error_handler=handler)
    builder.add_node("sibling", sibling)
    builder.add_edge(lib["START"], "bad")
    builder.add_edge(lib["START"], "sibling")
    kind = saver if library == "graphkit" else their_saver(saver, is_async)
    with SAVERS[kind](library) as checkpointer:
        app = builder.compile(checkpointer=checkpointer)
        drain(app, {"log": []}, is_async)  # (its chunks race: a known difference)
        paused = saved_thread(app)
        resumed = drain(app, lib["Command"](resume="yes"), is_async)
        return [paused, resumed, sorted(calls), *saved_thread(app)]


def asking_handler(lib: dict[str, Any], calls: list[str]) -> tuple[Any, Any]:
    """The handler pauses in ``interrupt()``; the sibling just writes."""
    NodeError, interrupt = lib["NodeError"], lib["interrupt"]

    def handler(state: State, error: NodeError) -> dict:  # type: ignore[valid-type]
        answer = interrupt(f"{error.node} failed: retry?")  # type: ignore[attr-defined]
        return {"log": [f"answered {answer}"]}

    return handler, log("ok")


def asking_sibling(lib: dict[str, Any], calls: list[str]) -> tuple[Any, Any]:
    """The handler finishes; the sibling pauses in ``interrupt()``."""
    NodeError, interrupt = lib["NodeError"], lib["interrupt"]

    def handler(state: State, error: NodeError) -> dict:  # type: ignore[valid-type]
        calls.append("handler")
        return {"log": [f"handled {type(error.error).__name__}"]}  # type: ignore[attr-defined]

    def asks(state: State) -> dict:
        calls.append("asks")
        return {"log": [f"asked {interrupt('go on?')}"]}

    return handler, asks


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_an_interrupted_handler_resumes_without_rerunning_the_failed_node(saver, is_async):
    expected = paused_then_resumed("langgraph", saver, is_async, asking_handler)
    assert paused_then_resumed("graphkit", saver, is_async, asking_handler) == expected


# -- timeouts: async nodes only, as in LangGraph -------------------------------------------


def slow(calls: list[str], seconds: float) -> Callable[[Any], Any]:
    async def sleeper(state: Any) -> dict:
        calls.append("slow")
        await asyncio.sleep(seconds)
        return {"log": ["slow done"]}

    return sleeper


def run_timeout(lib: dict[str, Any], calls: list[str]) -> Any:
    builder = lib["StateGraph"](State)
    builder.add_node("slow", slow(calls, 0.3), timeout=0.05)
    builder.add_edge(lib["START"], "slow")
    return builder


def timeout_retried(lib: dict[str, Any], calls: list[str]) -> Any:
    """NodeTimeoutError is retried by the default retry_on; each attempt is timed."""
    retry = lib["RetryPolicy"](max_attempts=2, initial_interval=0.0, jitter=False)
    builder = lib["StateGraph"](State)
    builder.add_node("slow", slow(calls, 0.3), timeout=timedelta(milliseconds=50),
                     retry_policy=retry)  # fmt: skip
    builder.add_edge(lib["START"], "slow")
    return builder


def timeout_handled(lib: dict[str, Any], calls: list[str]) -> Any:
    NodeError = lib["NodeError"]

    def handler(state: State, error: NodeError) -> dict:  # type: ignore[valid-type]
        failure = error.error  # type: ignore[attr-defined]
        return {"log": [f"{type(failure).__name__} {failure.kind} {failure.timeout}"]}

    builder = lib["StateGraph"](State)
    builder.add_node("slow", slow(calls, 0.3), timeout=0.05, error_handler=handler)
    builder.add_edge(lib["START"], "slow")
    return builder


def beating(lib: dict[str, Any], calls: list[str], how: str, refresh_on: str) -> Any:
    """Four pauses of 100 ms under an idle timeout of 250 ms: a heartbeat (or, under
    ``refresh_on="auto"``, a streamed chunk) after each keeps the node alive; without
    one, the node is idle past its limit (margins wide enough for a busy machine)."""
    Runtime, TimeoutPolicy = lib["Runtime"], lib["TimeoutPolicy"]

    async def working(state: State, runtime: Runtime) -> dict:  # type: ignore[valid-type]
        calls.append(how)
        for step in range(4):
            await asyncio.sleep(0.1)
            if how == "heartbeat":
                runtime.heartbeat()  # type: ignore[attr-defined]
            elif how == "writer":
                runtime.stream_writer({"step": step})  # type: ignore[attr-defined]
        return {"log": [f"{how} done"]}

    builder = lib["StateGraph"](State)
    policy = TimeoutPolicy(idle_timeout=0.25, refresh_on=refresh_on)
    builder.add_node("working", working, timeout=policy)
    builder.add_edge(lib["START"], "working")
    return builder


def default_timeout(lib: dict[str, Any], calls: list[str]) -> Any:
    builder = lib["StateGraph"](State).set_node_defaults(timeout=0.05)
    builder.add_node("slow", slow(calls, 0.3))
    builder.add_node("quick", slow(calls, 0.0))
    builder.add_edge(lib["START"], "slow")
    builder.add_edge(lib["START"], "quick")
    return builder


TIMED = {
    "run_timeout": run_timeout,
    "retried": timeout_retried,
    "handled": timeout_handled,
    "heartbeat_keeps_alive": lambda lib, calls: beating(lib, calls, "heartbeat", "auto"),
    "silence_times_out": lambda lib, calls: beating(lib, calls, "nothing", "auto"),
    "chunks_keep_alive": lambda lib, calls: beating(lib, calls, "writer", "auto"),
    "chunks_do_not_count": lambda lib, calls: beating(lib, calls, "writer", "heartbeat"),
    "default_timeout": default_timeout,
}


@pytest.mark.parametrize("saver", sorted(SAVERS))
@pytest.mark.parametrize("scenario", sorted(TIMED))
def test_timeouts_agree(scenario, saver):
    def seen(library: str) -> list:
        lib, calls = names(library), []
        builder = TIMED[scenario](lib, calls)
        with SAVERS[saver if library == "graphkit" else "memory"](library) as checkpointer:
            app = builder.compile(checkpointer=checkpointer)
            chunks, error = drain(app, {"log": []}, True)
            return [*chunks, error, sorted(calls), *saved_thread(app)]

    assert seen("graphkit") == seen("langgraph")


def _slow_tokens_model() -> Any:
    """A chat model streaming six tokens 0.1 s apart (0.6 s in all)."""
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, AIMessageChunk
    from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

    class SlowTokens(GenericFakeChatModel):
        async def _astream(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
            for index in range(6):
                await asyncio.sleep(0.1)
                last = "last" if index == 5 else None
                chunk = ChatGenerationChunk(
                    message=AIMessageChunk(content=str(index), chunk_position=last)
                )
                if run_manager:
                    await run_manager.on_llm_new_token(str(index), chunk=chunk)
                yield chunk

        def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # type: ignore[no-untyped-def]
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content=""))])

    return SlowTokens(messages=iter([]))


@pytest.mark.parametrize("how", ["ainvoke", "astream"])
@pytest.mark.parametrize("refresh_on", ["auto", "heartbeat"])
def test_a_models_callback_events_refresh_an_idle_timeout(refresh_on, how):
    """As in LangGraph: under ``refresh_on="auto"`` every callback event of what the node
    runs (here a model's tokens, 0.1 s apart) is progress, whatever the stream mode; under
    ``"heartbeat"`` none is, and the 0.4 s idle timeout fires."""

    def scenario(library: str) -> Any:
        lib, model = names(library), _slow_tokens_model()

        async def call_model(state: State) -> dict:
            reply = None
            async for chunk in model.astream("hi"):  # (the tokens come as callbacks)
                reply = chunk if reply is None else reply + chunk
            return {"log": [reply.content]}

        policy = lib["TimeoutPolicy"](idle_timeout=0.4, refresh_on=refresh_on)
        builder = lib["StateGraph"](State).add_node("model", call_model, timeout=policy)
        app = builder.add_edge(lib["START"], "model").compile()
        try:
            if how == "ainvoke":
                return asyncio.run(app.ainvoke({"log": []}))

            async def stream() -> list:
                return [chunk async for chunk in app.astream({"log": []})]

            return asyncio.run(stream())
        except Exception as error:
            return type(error).__name__

    langgraph, graphkit = scenario("langgraph"), scenario("graphkit")
    assert graphkit == langgraph
    assert (langgraph == "NodeTimeoutError") == (refresh_on == "heartbeat")


@pytest.mark.parametrize("api", ["graph", "functional"])
def test_what_a_timed_out_attempt_streams_or_calls_as_it_goes_on_is_dropped(api):
    """An attempt that catches the ``CancelledError`` of its timeout and goes on: its
    custom chunks are dropped and a task it calls raises ``CancelledError`` (never runs)."""

    def scenario(library: str) -> Any:
        lib, seen = names(library), []
        if library == "langgraph":
            from langgraph.config import get_stream_writer
            from langgraph.func import entrypoint, task
        else:
            from graphkit import get_stream_writer
            from graphkit.func import entrypoint, task

        @task()
        def child(value: Any) -> Any:
            seen.append("child ran")
            return value

        async def goes_on(value: Any) -> Any:
            get_stream_writer()("before")
            try:
                await asyncio.sleep(1.0)
            except asyncio.CancelledError:
                get_stream_writer()("after the timeout")
                try:
                    await child(value)
                except asyncio.CancelledError:
                    seen.append("call cancelled")
            return {"log": ["late"]}

        policy = lib["TimeoutPolicy"](idle_timeout=0.1)
        if api == "graph":
            builder = lib["StateGraph"](State).add_node("n", goes_on, timeout=policy)
            app = builder.add_edge(lib["START"], "n").compile()
        else:
            app = entrypoint(timeout=policy)(goes_on)

        async def stream() -> list:
            chunks: list = []
            try:
                async for chunk in app.astream({"log": []}, stream_mode=["custom", "updates"]):
                    chunks.append(chunk)
            except Exception as error:
                chunks.append(type(error).__name__)
            await asyncio.sleep(0.2)  # (the attempt ends its cleanup)
            return chunks

        return asyncio.run(stream()), seen

    langgraph, graphkit = scenario("langgraph"), scenario("graphkit")
    assert graphkit == langgraph
    assert graphkit[0] == [("custom", "before"), "NodeTimeoutError"]


def test_the_timeout_error_says_which_limit_fired():
    from langgraph.errors import NodeTimeoutError as Theirs

    from graphkit.errors import NodeTimeoutError as Ours

    for limits in ({"kind": "run", "run_timeout": 0.05},
                   {"kind": "idle", "idle_timeout": 0.08, "run_timeout": 2.0}):  # fmt: skip
        ours, theirs = Ours("n", 0.0812, **limits), Theirs("n", 0.0812, **limits)
        assert str(ours) == str(theirs)
        assert (ours.kind, ours.timeout, ours.elapsed) == (theirs.kind, theirs.timeout, 0.0812)
        assert not isinstance(ours, TimeoutError)  # so that the default retry_on retries it


def as_policy(policy: Any, given: Any) -> Any:
    """``("policy", run, idle, refresh_on)`` as a TimeoutPolicy; anything else as given."""
    if not isinstance(given, tuple):
        return given
    run, idle, refresh_on = given[1:]
    return policy(run_timeout=run, idle_timeout=idle, refresh_on=refresh_on)


VALUES = [
    0.5,
    timedelta(seconds=2),
    None,
    ("policy", 1.0, None, "heartbeat"),
    ("policy", None, 0.25, "auto"),
    ("policy", None, None, "auto"),
]


@pytest.mark.parametrize("given", VALUES)
def test_timeout_values_are_read_alike(given):
    from langgraph.types import TimeoutPolicy as Theirs

    from graphkit.types import TimeoutPolicy as Ours

    def coerced(policy: Any) -> Any:
        value = as_policy(policy, given)
        made = policy.coerce(value)
        return None if made is None else (made.run_timeout, made.idle_timeout, made.refresh_on)

    assert coerced(Ours) == coerced(Theirs)


@pytest.mark.parametrize("given", [0, -1, "soon", ("policy", 1.0, None, "sometimes")])
def test_bad_timeouts_are_refused_alike(given):
    for library in LIBRARIES:
        lib = names(library)
        value = as_policy(lib["TimeoutPolicy"], given)
        with pytest.raises(ValueError):
            lib["StateGraph"](State).add_node("a", slow([], 0), timeout=value)


def test_a_sync_node_with_a_timeout_is_refused_at_compile():
    messages = []
    for library in LIBRARIES:
        lib = names(library)
        builder = lib["StateGraph"](State).add_node("sync", log("x"), timeout=1.0)
        builder.add_edge(lib["START"], "sync")
        with pytest.raises(ValueError) as raised:
            builder.compile()
        messages.append(str(raised.value))
    assert messages[1].startswith(messages[0])  # graphkit adds how to fix it


def runnable_nodes() -> dict[str, Any]:
    """Runnable nodes given a timeout: which have async code of their own decides."""
    from langchain_core.runnables import RunnableLambda

    def step(state: Any) -> Any:
        return {"log": ["ran"]}

    async def astep(state: Any) -> Any:
        return {"log": ["ran"]}

    sync_only = RunnableLambda(step)
    both = RunnableLambda(step, afunc=astep)
    return {
        "sync lambda": sync_only,
        "lambda with afunc": both,
        "bound sync lambda": sync_only.with_config(tags=["t"]),
        "sequence with a sync step": both | sync_only,
        "sequence of async steps": both | RunnableLambda(lambda s: s, afunc=astep),
        "sync lambda with retries": sync_only.with_retry(stop_after_attempt=2),
        "lambda with afunc and retries": both.with_retry(stop_after_attempt=2),
    }


@pytest.mark.parametrize("node", list(runnable_nodes()))
def test_a_runnable_node_with_a_timeout_needs_async_code_of_its_own(node):
    seen = []
    for library in LIBRARIES:
        lib = names(library)
        builder = lib["StateGraph"](State).add_node("a", runnable_nodes()[node], timeout=1.0)
        builder.add_edge(lib["START"], "a")
        try:
            app = builder.compile()
        except ValueError as refused:
            seen.append(("refused", str(refused)[:100]))
            continue
        seen.append(("ran", asyncio.run(app.ainvoke({"log": []}))))
    assert seen[1] == seen[0]


@pytest.mark.parametrize("node", ["async def", "lambda with afunc"])
def test_a_timed_node_in_a_sync_run_raises_value_error(node):
    async def astep(state: Any) -> Any:
        return {"log": ["ran"]}

    raised = []
    for library in LIBRARIES:
        lib = names(library)
        action = astep if node == "async def" else runnable_nodes()[node]
        builder = lib["StateGraph"](State).add_node("a", action, timeout=1.0)
        app = builder.add_edge(lib["START"], "a").compile()
        with pytest.raises(ValueError) as error:
            app.invoke({"log": []})
        raised.append(str(error.value))
    assert "timeout" in raised[1] and "ainvoke" in raised[1]  # graphkit says how to fix it


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_step_timeout_fails_the_step_with_timeout_error(is_async):
    def seen(library: str) -> Any:
        lib = names(library)
        builder = lib["StateGraph"](State)
        if is_async:
            builder.add_node("slow", slow([], 0.5))
        else:
            import time

            builder.add_node("slow", lambda state: time.sleep(0.5) or {"log": ["late"]})
        builder.add_node("quick", log("quick"))
        builder.add_edge(lib["START"], "slow")
        builder.add_edge(lib["START"], "quick")
        app = builder.compile()
        app.step_timeout = 0.1
        return drain(app, {"log": []}, is_async, config=None)[1]

    assert seen("graphkit") == seen("langgraph") == "TimeoutError"


def step_timeout_in_an_async_run(library: str, saver: str) -> dict[str, Any]:
    """Past ``step_timeout`` in an async run: what happened, in order; what the thread
    kept; what a resume (without the timeout) ran and returned."""
    import time

    lib, events = names(library), []

    async def stubborn(state: Any) -> dict:
        events.append("stubborn started")
        try:
            await asyncio.sleep(5 if app.step_timeout else 0)  # (the resume has none)
        except asyncio.CancelledError:
            events.append("stubborn cancelled")
            await asyncio.sleep(0.05)  # its cleanup is waited for
            events.append("stubborn cleaned up")
            raise
        return {"log": ["stubborn"]}

    def blocking(state: Any) -> dict:  # a sync node: its thread cannot be stopped
        events.append("blocking started")
        time.sleep(0.3)
        return {"log": ["blocking"]}

    builder = lib["StateGraph"](State)
    builder.add_node("quick", log("quick")).add_node("stubborn", stubborn)
    builder.add_node("blocking", blocking)
    for node in ("quick", "stubborn", "blocking"):
        builder.add_edge(lib["START"], node)
    with SAVERS[saver](library) as checkpointer:
        app = builder.compile(checkpointer=checkpointer)
        app.step_timeout = 0.1

        async def run() -> dict[str, Any]:
            try:
                await app.ainvoke({"log": []}, THREAD)
            except TimeoutError:
                events.append("raised TimeoutError")
            first = [event for event in events if not event.startswith("blocking")]
            state = await app.aget_state(THREAD)
            kept = sorted((t.name, repr(t.error), t.result) for t in state.tasks)
            app.step_timeout = None
            events.clear()
            resumed = await app.ainvoke(None, THREAD)
            return {"first": first, "kept": kept, "next": sorted(state.next),
                    "values": state.values, "resume ran": sorted(events),
                    "resumed": sorted(resumed["log"])}  # fmt: skip

        return asyncio.run(run())


@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_step_timeout_cancels_an_async_run_s_tasks_and_keeps_each_as_failed(saver):
    """LangGraph cancels the step's async nodes (waiting for their cleanup), fails the
    sync ones it cannot stop, saves CancelledError for each, then raises TimeoutError;
    a resume runs only those again."""
    expected = step_timeout_in_an_async_run("langgraph", "memory")  # (no async SqliteSaver)
    ours = step_timeout_in_an_async_run("graphkit", saver)
    assert ours == expected
    assert ours["first"] == [
        "stubborn started", "stubborn cancelled", "stubborn cleaned up", "raised TimeoutError"
    ]  # fmt: skip
    assert ours["kept"] == [
        ("blocking", "'CancelledError()'", None),
        ("quick", "None", {"log": ["quick"]}),
        ("stubborn", "'CancelledError()'", None),
    ]


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_a_task_waiting_to_retry_when_the_step_times_out_is_not_tried_again(is_async):
    import time

    from graphkit import START, RetryPolicy, StateGraph

    attempts = []

    def flaky(state: State) -> dict:
        attempts.append(len(attempts) + 1)
        raise ValueError("try again")

    async def quick_async(state: State) -> dict:
        return {"log": ["quick"]}

    builder = StateGraph(State).add_node("quick", quick_async if is_async else log("quick"))
    policy = RetryPolicy(retry_on=ValueError, initial_interval=0.5, jitter=False)
    builder.add_node("flaky", flaky, retry_policy=policy)
    app = builder.add_edge(START, "quick").add_edge(START, "flaky").compile()
    app.step_timeout = 0.2  # passes while flaky waits to retry
    with pytest.raises(TimeoutError):
        if is_async:
            asyncio.run(app.ainvoke({"log": []}))
        else:
            app.invoke({"log": []})
    time.sleep(0.6)  # past the retry's wait
    assert attempts == [1]


def test_a_cancelled_task_is_not_streamed_as_finished():
    def streamed(library: str) -> tuple[list[str], Any]:
        lib = names(library)
        builder = lib["StateGraph"](State)
        builder.add_node("quick", log("quick")).add_node("stubborn", slow([], 5))
        builder.add_edge(lib["START"], "quick").add_edge(lib["START"], "stubborn")
        app = builder.compile()
        app.step_timeout = 0.1
        return drain(app, {"log": []}, True, config=None)

    assert streamed("graphkit") == streamed("langgraph")


# -- found by review: resumes, retries and a node's own cancellation ----------------------


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_a_finished_handler_runs_again_when_a_sibling_resumes(saver, is_async):
    """The handler finished, a sibling paused: on resume LangGraph runs the handler
    again (given the saved error's text), and so does graphkit."""
    expected = paused_then_resumed("langgraph", saver, is_async, asking_sibling)
    assert paused_then_resumed("graphkit", saver, is_async, asking_sibling) == expected


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_a_retry_after_a_resume_keeps_the_answer(is_async):
    def scenario(library: str) -> list:
        lib, attempts = names(library), []
        interrupt = lib["interrupt"]

        def flaky(state: State) -> dict:
            answer = interrupt("which?")
            attempts.append(answer)
            if len(attempts) == 1:
                raise ConnectionError("try again")
            return {"log": [answer]}

        retry = lib["RetryPolicy"](max_attempts=2, initial_interval=0.0, jitter=False)
        builder = lib["StateGraph"](State).add_node("flaky", flaky, retry_policy=retry)
        builder.add_edge(lib["START"], "flaky")
        with SAVERS[their_saver("memory", is_async)](library) as checkpointer:
            app = builder.compile(checkpointer=checkpointer)
            drain(app, {"log": []}, is_async)
            resumed = drain(app, lib["Command"](resume="A"), is_async)
            return [resumed, attempts, *saved_thread(app)]

    assert scenario("graphkit") == scenario("langgraph")


@pytest.mark.parametrize("with_handler", [False, True], ids=["alone", "handled"])
def test_a_node_raising_cancelled_error_itself_fails_like_any_error(with_handler):
    def scenario(library: str) -> list:
        lib = names(library)

        async def gives_up(state: State) -> dict:
            raise asyncio.CancelledError()

        options = {"error_handler": log("handled")} if with_handler else {}
        builder = lib["StateGraph"](State).add_node("gives_up", gives_up, **options)
        app = builder.add_edge(lib["START"], "gives_up").compile()
        return list(drain(app, {"log": []}, True, config=None))

    assert scenario("graphkit") == scenario("langgraph")


@pytest.mark.parametrize("retry_on", ["default", "NodeCancelledError"])
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_a_node_raising_cancelled_error_itself_is_not_retried(is_async, retry_on):
    """Whatever its retry policy says: LangGraph raises ``NodeCancelledError`` past it."""

    def scenario(library: str) -> list:
        lib, attempts = names(library), []
        cancelled = lib["NodeCancelledError"]

        def gives_up(state: State) -> dict:
            attempts.append("gives_up")
            raise asyncio.CancelledError()

        async def gives_up_async(state: State) -> dict:
            return gives_up(state)

        options = {} if retry_on == "default" else {"retry_on": cancelled}
        retry = lib["RetryPolicy"](initial_interval=0.0, jitter=False, **options)
        action = gives_up_async if is_async else gives_up
        builder = lib["StateGraph"](State).add_node("gives_up", action, retry_policy=retry)
        app = builder.add_edge(lib["START"], "gives_up").compile()
        with pytest.raises(cancelled) as raised:
            asyncio.run(app.ainvoke({"log": []})) if is_async else app.invoke({"log": []})
        return [attempts, raised.value.node]

    assert scenario("graphkit") == scenario("langgraph") == [["gives_up"], "gives_up"]


def test_a_timeout_does_not_wait_for_the_cancelled_attempt_to_clean_up():
    """The attempt's cleanup waits for a release that comes later: the run must raise
    before the cleanup is done (if it waited, the cleanup would be done first)."""

    def scenario(library: str) -> list[str]:
        lib, seen = names(library), []

        async def slow_to_stop(state: State) -> dict:
            try:
                await asyncio.sleep(5)
            finally:
                await asyncio.shield(release.wait())  # a slow cleanup
                seen.append("cleaned up")
            return {"log": ["never"]}

        builder = lib["StateGraph"](State).add_node("slow", slow_to_stop, timeout=0.05)
        app = builder.add_edge(lib["START"], "slow").compile()

        async def run() -> None:
            asyncio.get_running_loop().call_later(0.5, release.set)
            try:
                await app.ainvoke({"log": []})
            except Exception as error:
                seen.append(type(error).__name__)
            await release.wait()
            await asyncio.sleep(0)  # the cleanup may finish now

        release = asyncio.Event()
        asyncio.run(run())
        return seen

    assert scenario("graphkit") == scenario("langgraph") == ["NodeTimeoutError", "cleaned up"]


@pytest.mark.parametrize("sent", [False, True])
def test_a_handler_runs_under_langgraphs_task_path(sent):
    """The handler's path (``langgraph_path`` in its config's metadata, and the key a
    step's writes are applied by) extends the failed task's, a Send's ``False`` included."""

    def observe(library: str) -> list[Any]:
        lib = names(library)
        if library == "langgraph":
            from langgraph.config import get_config
        else:
            from graphkit.config import get_config
        paths: list[Any] = []

        def fails(state: Any) -> dict:
            raise ValueError("boom")

        def handle(state: Any) -> dict:
            paths.append(tuple(get_config()["metadata"]["langgraph_path"]))
            return {"log": ["handled"]}

        builder = lib["StateGraph"](State)
        builder.add_node("fails", fails, error_handler=handle)
        if sent:
            builder.add_conditional_edges(lib["START"], lambda s: [lib["Send"]("fails", s)])
        else:
            builder.add_edge(lib["START"], "fails")
        assert builder.compile().invoke({"log": []}) == {"log": ["handled"]}
        return paths

    assert observe("graphkit") == observe("langgraph")


def test_a_failed_task_is_streamed_even_when_its_handler_fails_first():
    """A node run alone that fails, and a handler that fails at once: the failed task's
    result was queued after its handler started, so in about 1 run of 30 the handler's
    failure came first and the stream, which hears nothing of a step after a failure,
    dropped the task's result (LangGraph streams both). 200 runs: it showed in nearly
    every batch before the fix."""
    from graphkit import START, StateGraph

    def handler(state: State) -> dict:
        raise RuntimeError("handler broke")

    def bad(state: State) -> dict:
        raise ValueError("bad broke")

    app = StateGraph(State).add_node("bad", bad, error_handler=handler)
    app = app.add_edge(START, "bad").compile()
    heard = []
    for _ in range(200):
        names = []
        with pytest.raises(RuntimeError):
            for chunk in app.stream({"log": []}, stream_mode="tasks"):
                if "error" in chunk:
                    names.append(chunk["name"])
        heard.append(sorted(names))
    assert {tuple(names) for names in heard} == {("__error_handler__bad", "bad")}
