"""``stream_events`` / ``astream_events(version="v3")``: LangGraph's v3 event protocol.

The same programs (``stream_v3_programs``) run on both libraries, synchronously and under
asyncio; the protocol events (method, namespace, data, interrupts, seq), the run's
output / interrupted / interrupts and its projections (values, subgraphs, lifecycle,
messages, custom transformers) are compared once normalised.
"""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
from typing import Any, TypedDict

import pytest

from .stream_v3_programs import (
    HOW,
    INPUT,
    THREAD,
    Ids,
    State,
    chain,
    drain,
    fan_out,
    functional,
    lib,
    lines,
    low_level,
    nested,
    outcome,
    plain,
    run_v3,
)

pytestmark = pytest.mark.filterwarnings("ignore:The v3 streaming protocol")


def both(program: Any) -> tuple[Any, Any]:
    """``program(lib)`` on LangGraph, then on graphkit. LangGraph's streams a program
    left open are collected between the two: finalized later, inside graphkit's half (a
    thread pool's submit), an aborted one's executor waited forever and hung CI."""
    expected = program(lib("langgraph"))
    gc.collect()
    return expected, program(lib("graphkit"))


def assert_same(program: Any) -> Any:
    expected, actual = both(program)
    assert actual == expected
    return expected


# -- the run stream: events in order, output, interrupts -------------------------------


@pytest.mark.parametrize("how", HOW)
def test_a_chain(how):
    seen = assert_same(lambda lib: run_v3(chain(lib), INPUT, how, drain(how)))
    events, output, interrupted, interrupts = seen
    assert [line.split()[0] for line in events] == ["values"] * 3
    assert (output["items"], interrupted, interrupts) == (["a", "b"], False, [])


@pytest.mark.parametrize("how", HOW)
def test_a_send_fan_out(how):
    seen = assert_same(lambda lib: run_v3(fan_out(lib), INPUT, how, drain(how), config=None))
    assert seen[1] == {"items": [10, 20, 30], "x": 3}


@pytest.mark.parametrize("how", HOW)
def test_subgraphs_give_namespaced_values_and_lifecycle_events(how):
    events = assert_same(lambda lib: run_v3(nested(lib), INPUT, how, drain(how)))[0]
    methods = [line.split()[0] for line in events]
    assert methods.count("lifecycle") == 4  # sub and sub|deep: started, completed
    assert "tasks" not in methods  # folded into lifecycle


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("program", [chain, nested], ids=["root", "in-a-subgraph"])
def test_an_interrupt_then_resume(program, how):
    def resume(lib):
        app = program(lib, ask=True)
        first = run_v3(app, INPUT, how, drain(how))
        second = run_v3(app, lib.Command(resume="yes"), how, drain(how))
        return first, second

    first, second = assert_same(resume)
    assert first[2] is True and first[3] == [("Interrupt", first[3][0][1])]
    assert second[2] is False


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("program", [chain, nested], ids=["root", "in-a-subgraph"])
def test_an_error_in_a_node(program, how):
    seen = assert_same(lambda lib: run_v3(program(lib, fail=True), INPUT, how, drain(how)))
    assert seen[1].startswith("ValueError")


def test_output_interrupted_and_interrupts_run_the_graph_without_iterating():
    def read(run):
        # read to the end by .output; the events it passed went by unread
        return run.output, run.interrupted, plain(run.interrupts, Ids()), lines(list(run))

    seen = assert_same(lambda lib: run_v3(chain(lib, ask=True), INPUT, "sync", read))
    assert seen[1] is True and seen[3] == []


@pytest.mark.parametrize("first", ["interrupted", "interrupts"])
def test_interrupted_first(first):
    def read(run):
        return plain(getattr(run, first), Ids()), run.output

    assert_same(lambda lib: run_v3(chain(lib, ask=True), INPUT, "sync", read))


def test_an_error_raises_from_output():
    def read(run):
        try:
            return run.output
        except ValueError as error:
            return outcome(error)

    assert assert_same(lambda lib: run_v3(chain(lib, fail=True), INPUT, "sync", read))


@pytest.mark.parametrize("how", HOW)
def test_abort_stops_the_run(how):
    def sync(run):
        iterator = iter(run)
        head = [next(iterator)]
        run.abort()
        run.abort()  # (again: nothing)
        return lines(head + list(iterator)), run.output

    async def asynchronous(run):
        iterator = aiter(run)
        head = [await anext(iterator)]
        await run.abort()
        return lines(head + [e async for e in iterator]), await run.output()

    seen = assert_same(
        lambda lib: run_v3(chain(lib), INPUT, how, sync if how == "sync" else asynchronous)
    )
    assert len(seen[0]) == 1


def test_a_context_manager_aborts_on_exit():
    def program(lib):
        with chain(lib).stream_events(INPUT, THREAD, version="v3") as run:
            first = next(iter(run))
        return lines([first]), run.output

    assert_same(program)


# -- the arguments ---------------------------------------------------------------------


@pytest.mark.parametrize("method", ["stream_events", "astream_events"])
@pytest.mark.parametrize(
    "kwargs",
    [{"stream_mode": "values"}, {"subgraphs": True}, {"stream_mode": "values", "subgraphs": False}],
)
def test_v3_owns_stream_mode_and_subgraphs(method, kwargs):
    def program(lib):
        with pytest.raises(TypeError) as raised:
            getattr(chain(lib), method)(INPUT, THREAD, version="v3", **kwargs)
        return str(raised.value)

    assert "v3 owns these" in assert_same(program)


@pytest.mark.parametrize("version", ["v1", "v2", "v4"])
def test_sync_stream_events_has_no_other_version(version):
    def program(lib):
        with pytest.raises(NotImplementedError) as raised:
            chain(lib).stream_events(INPUT, THREAD, version=version)
        return str(raised.value)

    assert_same(program)


def test_transformers_must_be_factories():
    def program(lib):
        with pytest.raises(TypeError) as raised:
            chain(lib).stream_events(
                INPUT, THREAD, version="v3", transformers=[lib.stream.UpdatesTransformer()]
            )
        return str(raised.value)

    assert "pre-built instance" in assert_same(program)


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize(
    "kwargs",
    [{"interrupt_before": ["b"]}, {"interrupt_after": ["a"]}, {"durability": "exit"}],
    ids=str,
)
def test_run_options_are_forwarded(kwargs, how):
    def program(lib):
        app = chain(lib)
        seen = run_v3(app, INPUT, how, drain(how), **kwargs)
        return seen, list(app.get_state(THREAD).next)

    assert_same(program)


@pytest.mark.parametrize("how", HOW)
def test_context_is_forwarded(how):
    def program(lib):
        Ctx = TypedDict("Ctx", {"n": int})  # noqa: UP013
        get_runtime = __import__(f"{lib.stream.__name__.split('.')[0]}.runtime", fromlist=["x"])
        node = lambda state: {"x": get_runtime.get_runtime().context["n"]}  # noqa: E731
        builder = lib.StateGraph(State, context_schema=Ctx).add_node("a", node)
        app = builder.add_edge(lib.START, "a").compile()
        return run_v3(app, INPUT, how, drain(how), config=None, context={"n": 7})

    assert assert_same(program)[1]["x"] == 7


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("program", [low_level, functional], ids=["Pregel", "entrypoint"])
def test_other_graph_kinds(program, how):
    given = 1 if program is functional else 3
    assert_same(lambda lib: run_v3(program(lib), given, how, drain(how)))


def test_the_beta_warning():
    """Each library warns LangChainBetaWarning twice, on its first v3 run only (sync and
    async apart); a fresh interpreter each, as the warning is once per process."""

    def program(lib):
        script = f"""
            import asyncio, warnings
            from tests.conformance.stream_v3_programs import chain, lib, INPUT, THREAD
            app = chain(lib({lib.name!r}))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                app.stream_events(INPUT, THREAD, version="v3")
                app.stream_events(INPUT, THREAD, version="v3")
                asyncio.run(app.astream_events(INPUT, THREAD, version="v3"))
            print([(w.category.__name__, str(w.message)) for w in caught])
        """
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(script)],
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    seen = assert_same(program)
    assert seen.count("LangChainBetaWarning") == 4
