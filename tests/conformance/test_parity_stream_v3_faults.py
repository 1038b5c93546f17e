"""Hostile input and faults on a v3 run (``stream_events`` / ``astream_events(version="v3")``):
transformers that are not transformers or misbehave, a projection read twice, ``abort()``
while a node runs, and a subgraph handle's own ``output`` and ``abort()``. The same
programs run on LangGraph and graphkit; errors are compared by type (and, where the
wording is LangGraph's too, by message)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from .stream_v3_programs import HOW, INPUT, THREAD, State, chain, lib, nested, run_v3
from .test_parity_stream_v3 import assert_same, both

pytestmark = pytest.mark.filterwarnings("ignore:The v3 streaming protocol")


def raised(call: Any) -> tuple[str, str]:
    try:
        call()
    except Exception as error:
        return type(error).__name__, str(error)
    raise AssertionError("nothing raised")


def transformer(lib: Any, **hooks: Any) -> Any:
    """A transformer whose ``init`` / ``process`` / ``fail`` are the ``hooks`` given."""

    class Odd(lib.stream.StreamTransformer):
        def init(self):
            return hooks["init"]() if "init" in hooks else {}

        def process(self, event):
            return True

        def fail(self, err):
            if "fail" in hooks:
                hooks["fail"]()

    return Odd


def _boom() -> None:
    raise RuntimeError("transformer broke")


@pytest.mark.parametrize(
    "transformers",
    [[5], ["values"], 5, [lambda scope: None]],
    ids=["an-int", "a-string", "not-a-list", "a-factory-making-none"],
)
def test_what_is_no_transformer_is_refused_when_the_run_starts(transformers):
    """graphkit said "'int' object is not callable" (or "Value after * must be an
    iterable"), and "'NoneType' object has no attribute 'before_builtins'"."""

    def program(lib):
        app = chain(lib)
        return raised(
            lambda: app.stream_events(INPUT, THREAD, version="v3", transformers=transformers)
        )

    kind, message = both(program)[1]
    assert kind == both(program)[0][0]
    assert "transformers" in message or "factory" in message


@pytest.mark.parametrize("init", [None, [1, 2]], ids=["none", "a-list"])
def test_init_must_return_a_dict(init):
    """graphkit raised AttributeError ("'NoneType' object has no attribute 'items'")."""

    def program(lib):
        odd = transformer(lib, init=lambda: init)
        return raised(
            lambda: chain(lib).stream_events(INPUT, THREAD, version="v3", transformers=[odd])
        )

    expected, actual = both(program)
    assert actual[0] == expected[0] == "TypeError"
    assert actual[1].startswith(expected[1])


def test_a_projection_name_taken_twice_is_refused():
    """graphkit let the second transformer's channel replace the first's: ``run.values``
    then gave nothing (the built-in's states were lost)."""

    def program(lib):
        def clash():
            return {"values": lib.stream.StreamChannel()}

        odd = transformer(lib, init=clash)
        app = chain(lib)
        return (
            raised(lambda: app.stream_events(INPUT, THREAD, version="v3", transformers=[odd])),
            raised(
                lambda: app.stream_events(
                    INPUT, THREAD, version="v3", transformers=[lib.stream.UpdatesTransformer] * 2
                )
            ),
        )

    expected, actual = both(program)
    for (kind, message), (their_kind, theirs) in zip(actual, expected, strict=True):
        assert kind == their_kind == "ValueError"
        assert message.startswith(theirs)


@pytest.mark.parametrize("how", HOW)
def test_a_transformer_failing_in_fail_leaves_the_node_error_raised(how):
    """graphkit raised the transformer's error from ``fail`` (``afail``) instead of the
    node's: the reason the run stopped was lost."""

    def program(lib):
        app = chain(lib, fail=True)
        odd = transformer(lib, fail=_boom)

        def read(run):
            try:
                run.output  # noqa: B018
            except Exception as error:
                return type(error).__name__, str(error)

        async def aread(run):
            try:
                await run.output()
            except Exception as error:
                return type(error).__name__, str(error)

        return run_v3(app, INPUT, how, read if how == "sync" else aread, transformers=[odd])

    assert assert_same(program) == ("ValueError", "b broke")


def test_interleave_refuses_a_name_given_twice():
    """graphkit read the channel once and said nothing."""

    def program(lib):
        run = chain(lib).stream_events(INPUT, THREAD, version="v3")
        return raised(lambda: list(run.interleave("values", "values")))

    assert assert_same(program)[0] == "RuntimeError"


def test_interleave_names_the_projection_already_read():
    """graphkit's message named no projection when a plain ``iter(run.values)`` held it
    (LangGraph's ``test_interleave_arrival_order.py``)."""

    def program(lib):
        run = chain(lib).stream_events(INPUT, THREAD, version="v3")
        iter(run.values)
        return raised(lambda: list(run.interleave("messages", "values")))

    assert assert_same(program)[1].startswith("StreamChannel 'values' already has")


def test_interleave_raises_the_error_the_run_failed_with():
    """graphkit's ``interleave`` ended quietly when a node raised: the error was lost
    (LangGraph's ``test_interleave_arrival_order.py``)."""

    def program(lib):
        run = chain(lib, fail=True).stream_events(INPUT, THREAD, version="v3")
        seen = []

        def read():
            for name, item in run.interleave("values", "messages"):
                seen.append((name, item["items"]))

        return raised(read), seen

    error, seen = assert_same(program)
    assert error == ("ValueError", "b broke") and len(seen) == 2


def test_interleave_lets_its_projections_go_when_it_ends():
    """graphkit kept the projections an ``interleave`` had read: reading one again after
    the loop ended, after a ``break``, or in a second ``interleave``, raised "already has
    a subscriber" (LangGraph's ``test_interleave_arrival_order.py``)."""

    def program(lib):
        finished = chain(lib).stream_events(INPUT, THREAD, version="v3")
        list(finished.interleave("values", "messages"))
        broken = chain(lib).stream_events(INPUT, THREAD, version="v3")
        reader = broken.interleave("values", "messages")
        first = next(reader)
        reader.close()
        refused = chain(lib).stream_events(INPUT, THREAD, version="v3")
        iter(refused.messages)
        raised(lambda: list(refused.interleave("values", "messages")))
        return (
            list(finished.interleave("values")),
            list(finished.values),
            first,
            list(broken.values),
            list(refused.values),
        )

    seen = assert_same(program)
    assert [len(items) for items in seen[3:]] == [2, 3]


def test_misuse_errors_match_langgraphs_words():
    """``pytest.raises(match=...)`` written against LangGraph's messages (its
    ``test_pregel_stream_events_v3.py``): graphkit said "give a positive int, or None"
    and "needs a running event loop"."""

    def program(lib):
        class Sched(lib.stream.StreamTransformer):
            def init(self):
                return {}

            def process(self, event):
                return True

        async def nothing():
            pass

        seen = [raised(lambda: lib.stream.StreamChannel("x", maxlen=0))[0]]
        with pytest.raises(ValueError, match="must be a positive int or None"):
            lib.stream.StreamChannel("x", maxlen=0)
        with pytest.raises(RuntimeError, match="requires a running event loop"):
            Sched().schedule(nothing())
        return seen

    assert assert_same(program) == ["ValueError"]


def test_abort_while_another_task_awaits_output():
    """graphkit closed the graph's generator while ``output()`` was running it:
    "RuntimeError: aclose(): asynchronous generator is already running"."""

    def program(lib):
        async def slow(state: State) -> dict:
            await asyncio.sleep(0.5)
            return {"items": ["slow"], "x": 1}

        builder = lib.StateGraph(State).add_node("slow", slow).add_edge(lib.START, "slow")
        app = builder.compile(checkpointer=lib.InMemorySaver())

        async def main():
            run = await app.astream_events(INPUT, THREAD, version="v3")
            output = asyncio.ensure_future(run.output())
            # (not any `next`: the input checkpoint, saved first, has ("__start__",), and an
            # abort there, which CI's load once let LangGraph reach, is another test)
            while app.get_state(THREAD).next != ("slow",):
                await asyncio.sleep(0.01)  # (step 0 is saved: "slow" runs)
            await run.abort()
            return await output, app.get_state(THREAD).values, app.get_state(THREAD).next

        return asyncio.run(main())

    assert assert_same(program) == (INPUT, INPUT, ("slow",))


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("end", ["done", "fail", "ask"])
def test_a_subgraph_handle_output_is_the_subgraphs_own(how, end):
    """graphkit gave the whole run's last state (and its error) for a handle's output."""

    def program(lib):
        app = nested(lib, fail=end == "fail", ask=end == "ask")

        def read(run):
            seen = []
            for handle in run.subgraphs:
                try:
                    seen.append((handle.output, handle.interrupted))
                except Exception as error:
                    seen.append((type(error).__name__, str(error)))
            return seen

        async def aread(run):
            seen = []
            async for handle in run.subgraphs:
                try:
                    seen.append((await handle.output(), await handle.interrupted()))
                except Exception as error:
                    seen.append((type(error).__name__, str(error)))
            return seen

        try:
            return run_v3(app, INPUT, how, read if how == "sync" else aread)
        except ValueError as error:  # (the run's own error, once the handles are read)
            return str(error)

    seen = assert_same(program)
    if end == "done":
        assert seen == [({"items": ["inner"], "x": 2}, False)]


@pytest.mark.parametrize("how", HOW)
def test_aborting_a_subgraph_handle_leaves_the_run_going(how):
    """graphkit's handle ``abort()`` stopped the whole graph: "after" never ran and the
    thread was left mid-run."""

    def program(lib):
        app = nested(lib)

        def read(run):
            for handle in run.subgraphs:
                handle.abort()
                statuses = [handle.status, list(handle.values)]
            return statuses, handle.status, run.output

        async def aread(run):
            async for handle in run.subgraphs:
                await handle.abort()
                statuses = [handle.status, [v async for v in handle.values]]
            return statuses, handle.status, await run.output()

        seen = run_v3(app, INPUT, how, read if how == "sync" else aread)
        return seen, app.get_state(THREAD).next

    seen = assert_same(program)
    assert seen[0][2] == {"items": ["inner"], "x": 3}


def _aborting(lib: Any, holder: dict[str, Any], how: str) -> Any:
    """A transformer that aborts the run when it sees the state after "a"."""

    def due(event):
        return event["method"] == "values" and event["params"]["data"].get("x") == 1

    class Aborting(lib.stream.StreamTransformer):
        def init(self):
            return {}

        def process(self, event):
            if due(event):
                holder["run"].abort()
            return True

    class AsyncAborting(Aborting):
        async def aprocess(self, event):
            if due(event):
                await holder["run"].abort()
            return True

    return Aborting if how == "sync" else AsyncAborting


def _aborted_from_a_transformer(lib: Any, how: str) -> Any:
    app, holder = chain(lib), {}

    def read(run):
        holder["run"] = run
        return [event["method"] for event in run], run.output

    async def aread(run):
        holder["run"] = run
        return [event["method"] async for event in run], await run.output()

    reader = read if how == "sync" else aread
    seen = run_v3(app, INPUT, how, reader, transformers=[_aborting(lib, holder, how)])
    return seen, app.get_state(THREAD).next


def test_an_async_transformer_may_abort_the_run():
    """graphkit waited forever for the pull the transformer itself was in (and, before
    that, the transformers after it pushed to closed channels: RuntimeError)."""
    seen = assert_same(lambda lib: _aborted_from_a_transformer(lib, "async"))
    assert seen == ((["values"], {"items": ["a"], "x": 1}), ("b",))


def test_a_sync_transformer_may_abort_the_run_too():
    """LangGraph's sync run raises "Cannot push to a closed StreamChannel" here (its async
    run does not): graphkit stops both quietly (docs/compatibility.md)."""
    seen = _aborted_from_a_transformer(lib("graphkit"), "sync")
    assert seen == ((["values"], {"items": ["a"], "x": 1}), ("b",))
