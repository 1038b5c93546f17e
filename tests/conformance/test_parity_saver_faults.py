"""A saver whose ``put_writes`` or ``put`` fails during a run (a database gone for a
moment), run on both libraries: LangGraph saves task writes, and under
``durability="async"`` checkpoints, in the background and raises the first failure only
once the run is over, so the run goes on to its end (its nodes run; after a failed
checkpoint nothing more is saved); a state edit saves in its own call and raises at
once (LangGraph's ``test_checkpoint_errors`` fails a run this way)."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import _interrupt

LIBS = [load_langgraph, load_graphkit]


class Text(TypedDict):
    text: Annotated[str, operator.add]


def _faulty_saver(lib: Lib, failing: str | None) -> Any:
    """An in-memory saver whose ``put_writes`` raises for writes naming its ``failing``
    channel (None: it saves them all)."""
    if lib.name == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
    else:
        from graphkit import InMemorySaver

    class FaultySaver(InMemorySaver):
        def put_writes(self, config, writes, task_id, task_path=""):  # type: ignore[no-untyped-def]
            if self.failing in [channel for channel, _ in writes]:
                raise ValueError("put_writes failed")
            return super().put_writes(config, writes, task_id, task_path)

        async def aput_writes(self, config, writes, task_id, task_path=""):  # type: ignore[no-untyped-def]
            return self.put_writes(config, writes, task_id, task_path)

    saver = FaultySaver()
    saver.failing = failing
    return saver


def _failing_put(lib: Lib, step: int) -> Any:
    """An in-memory saver whose ``put`` raises for the checkpoint of ``step``."""
    if lib.name == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
    else:
        from graphkit import InMemorySaver

    class FaultySaver(InMemorySaver):
        def put(self, config, checkpoint, metadata, new_versions):  # type: ignore[no-untyped-def]
            if metadata.get("step") == step:
                raise ValueError("put failed")
            return super().put(config, checkpoint, metadata, new_versions)

        async def aput(self, config, checkpoint, metadata, new_versions):  # type: ignore[no-untyped-def]
            return self.put(config, checkpoint, metadata, new_versions)

    return FaultySaver()


def _chain(lib: Lib, saver: Any, ran: list[str], last: Any = None) -> Any:
    def node(name: str) -> Any:
        def write(state: Text) -> dict[str, str]:
            ran.append(name)
            return {"text": name}

        return write

    builder = lib.StateGraph(Text)
    builder.add_node("a", node("a")).add_node("b", node("b"))
    builder.add_node("c", last or node("c"))
    builder.add_edge(lib.START, "a").add_edge("a", "b").add_edge("b", "c")
    return builder.compile(checkpointer=saver)


def _asker(lib: Lib) -> Any:
    """A node that asks "?" and writes the answer."""
    interrupt = _interrupt(lib.name)
    return lambda state: {"text": interrupt("?")}


def _run(app: Any, mode: str, *args: Any, **options: Any) -> Any:
    try:
        if mode == "async":
            return asyncio.run(app.ainvoke(*args, **options))
        return app.invoke(*args, **options)
    except ValueError as error:
        return ("raised", str(error))


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("durability", ["sync", "async"])
@pytest.mark.parametrize("failing", ["branch:to:a", "branch:to:b", "branch:to:c"])
def test_a_run_goes_on_past_a_failed_put_writes_and_raises_it_at_its_end(
    mode: str, durability: str, failing: str
) -> None:
    seen = []
    for load in LIBS:
        lib = load()
        ran: list[str] = []
        app = _chain(lib, _faulty_saver(lib, failing), ran)
        config = {"configurable": {"thread_id": "t"}}
        outcome = _run(app, mode, {"text": ""}, config, durability=durability)
        state = app.get_state(config)
        seen.append((outcome, ran, state.values, state.next, state.metadata["step"]))
    assert seen[0] == seen[1]
    assert seen[1][:2] == (("raised", "put_writes failed"), ["a", "b", "c"])


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_run_that_pauses_after_a_failed_put_writes_raises_it(mode: str) -> None:
    """The paused run raises the saver's error, not the interrupt, as in LangGraph; the
    thread is paused all the same, and its resume goes on."""
    seen = []
    for load in LIBS:
        lib = load()
        ran: list[str] = []
        saver = _faulty_saver(lib, "branch:to:b")
        app = _chain(lib, saver, ran, last=_asker(lib))
        config = {"configurable": {"thread_id": "t"}}
        outcome = _run(app, mode, {"text": ""}, config)
        paused = app.get_state(config)
        resumed = _run(app, mode, lib.Command(resume="!"), config)
        seen.append((outcome, ran, paused.values, paused.next, resumed))
    assert seen[0] == seen[1]
    assert seen[1][0] == ("raised", "put_writes failed")
    assert seen[1][3] == ("c",)


def test_a_state_edit_raises_a_failed_put_writes_at_once() -> None:
    seen = []
    for load in LIBS:
        lib = load()
        saver = _faulty_saver(lib, None)
        app = _chain(lib, saver, [], last=_asker(lib))
        config = {"configurable": {"thread_id": "t"}}
        app.invoke({"text": ""}, config)
        saver.failing = "text"
        try:
            app.update_state(config, {"text": "edit"})
            outcome: Any = "saved"
        except ValueError as error:
            outcome = str(error)
        seen.append((outcome, len(list(app.get_state_history(config)))))
    assert seen[0] == seen[1]
    assert seen[1][0] == "put_writes failed"


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("durability", ["sync", "async"])
@pytest.mark.parametrize("step", [-1, 0, 1, 3])
def test_a_failed_checkpoint_stops_the_saving_and_under_async_durability_not_the_run(
    mode: str, durability: str, step: int
) -> None:
    """Under ``durability="sync"`` the run stops at the failed checkpoint, in both."""
    seen = []
    for load in LIBS:
        lib = load()
        ran: list[str] = []
        app = _chain(lib, _failing_put(lib, step), ran)
        config = {"configurable": {"thread_id": "t"}}
        outcome = _run(app, mode, {"text": ""}, config, durability=durability)
        state = app.get_state(config)
        seen.append((outcome, ran, state.values, state.next, len(state.tasks)))
    assert seen[0] == seen[1]
    assert seen[1][0] == ("raised", "put failed")
    if durability == "async":
        assert seen[1][1] == ["a", "b", "c"]


def _breaking(lib: Lib, ran: list[str]) -> Any:
    """Node "c" of ``_chain``, which raises KeyError."""

    def c(state: Text) -> dict[str, str]:
        ran.append("c")
        raise KeyError("c broke")

    return c


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("last", ["fails", "pauses"])
def test_what_durability_exit_saves_at_the_end_fails_as_a_background_save(
    mode: str, last: str
) -> None:
    """LangGraph makes the saves of ``durability="exit"`` in the background as the run
    ends: a run that failed raises its node's error, not the saver's (graphkit raised
    the saver's), and a paused run raises the saver's error."""
    seen = []
    for load in LIBS:
        lib = load()
        ran: list[str] = []
        node = _breaking(lib, ran) if last == "fails" else _asker(lib)
        app = _chain(lib, _failing_put(lib, 2), ran, last=node)
        config = {"configurable": {"thread_id": "t"}}
        try:
            outcome: Any = _run(app, mode, {"text": ""}, config, durability="exit")
        except KeyError as error:
            outcome = ("node raised", str(error))
        state = app.get_state(config)
        seen.append((outcome, ran, state.values, state.next))
    assert seen[0] == seen[1]
    raised = ("node raised", "'c broke'") if last == "fails" else ("raised", "put failed")
    assert seen[1][0] == raised


def _fan_out(lib: Lib, saver: Any, ran: list[str]) -> Any:
    """a, then b beside c (which asks "?"), then d."""
    interrupt = _interrupt(lib.name)

    def node(name: str) -> Any:
        def write(state: Text) -> dict[str, str]:
            ran.append(name)
            return {"text": interrupt("?") if name == "c" else name}

        return write

    builder = lib.StateGraph(Text)
    for name in ("a", "b", "c", "d"):
        builder.add_node(name, node(name))
    builder.add_edge(lib.START, "a").add_edge("a", "b").add_edge("a", "c")
    builder.add_edge(["b", "c"], "d")
    return builder.compile(checkpointer=saver)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_paused_run_under_durability_exit_saves_the_writes_after_a_failed_one(
    mode: str,
) -> None:
    """Of the writes "exit" holds back, one the saver refuses leaves the others saved
    (LangGraph saves each in the background): the saver refuses the writes of "b",
    which finished beside the pause of "c", and the pause is saved all the same.
    graphkit saved none after the refused one."""
    seen = []
    for load in LIBS:
        lib = load()
        ran: list[str] = []
        app = _fan_out(lib, _faulty_saver(lib, "text"), ran)
        config = {"configurable": {"thread_id": "t"}}
        outcome = _run(app, mode, {"text": ""}, config, durability="exit")
        paused = app.get_state(config)
        resumed = _run(app, mode, lib.Command(resume="R"), config, durability="exit")
        waiting = [len(task.interrupts) for task in paused.tasks]
        seen.append((outcome, paused.values, paused.next, waiting, resumed, sorted(ran)))
    assert seen[0] == seen[1]
    assert seen[1][0] == ("raised", "put_writes failed")
    assert seen[1][3] == [0, 1]  # ("b" is run again, "c" is answered)


def _refusing_b(put_writes: Any, how: str) -> Any:
    """``put_writes`` refusing the writes of node "b", as a plain function (named
    otherwise), a lambda, a ``functools.partial`` or a ``Mock``."""
    import functools
    from unittest import mock

    def refuse_b(config, writes, task_id, task_path=""):  # type: ignore[no-untyped-def]
        if ("text", "b") in writes:
            raise ValueError("put_writes failed")
        return put_writes(config, writes, task_id, task_path)

    return {
        "function": refuse_b,
        "lambda": lambda *args, **options: refuse_b(*args, **options),
        "partial": functools.partial(refuse_b),
        "mock": mock.MagicMock(side_effect=refuse_b),
    }[how]


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("how", ["function", "lambda", "partial", "mock"])
def test_a_saver_whose_put_writes_is_set_on_it_is_called(mode: str, how: str) -> None:
    """``saver.put_writes = ...`` (a test's ``mock.patch.object``, a wrapper): graphkit
    looked for its task-path parameter on the method named by the function's
    ``__name__``, and a sync run raised AttributeError before its first step."""
    seen = []
    for load in LIBS:
        lib = load()
        saver = _faulty_saver(lib, None)
        saver.put_writes = _refusing_b(saver.put_writes, how)
        ran: list[str] = []
        app = _chain(lib, saver, ran)
        config = {"configurable": {"thread_id": "t"}}
        outcome = _run(app, mode, {"text": ""}, config)
        state = app.get_state(config)
        seen.append((outcome, ran, state.values, state.next))
    assert seen[0] == seen[1]
    assert seen[1][:2] == (("raised", "put_writes failed"), ["a", "b", "c"])
