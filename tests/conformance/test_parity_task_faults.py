"""Faults that are not a node's ordinary error, as LangGraph handles them: a
``BaseException`` (``KeyboardInterrupt``, ``SystemExit``, one of the user's) raised by
one of several parallel tasks, and a retry policy that itself fails (a negative
interval, a ``retry_on`` that raises). The failure is the task's error: its siblings
finish and are saved, the thread shows it, a resume runs only what did not finish, and
the run raises it. A bad ``max_concurrency`` is refused before anything runs."""

from __future__ import annotations

import operator
import threading
import time
from typing import Annotated, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS


class State(TypedDict):
    log: Annotated[list, operator.add]


class Halt(BaseException):
    """A user's own BaseException."""


def _fan(lib: Lib, saver: object, bad: object, runs: dict[str, int], failing: dict) -> object:
    """START → in → (ok, bad) → done, with ``bad`` the node to fail while ``failing``."""
    bad_raised = threading.Event()

    def counted(name: str, body: object = None) -> object:
        def node(state: dict) -> dict:
            runs[name] = runs.get(name, 0) + 1
            if body is not None:
                body()
            return {"log": [name]}

        return node

    def ok_body() -> None:
        # still running when its sibling fails (the sleep is an ordering aid: the
        # failure is raised by then), so the run has to wait for it to save it
        if failing["on"] and bad_raised.wait(2):
            time.sleep(0.1)

    def bad_body() -> None:
        if failing["on"]:
            bad_raised.set()
            raise bad()  # type: ignore[operator]

    builder = lib.StateGraph(State)
    builder.add_node("start", counted("start"))
    builder.add_node("ok", counted("ok", ok_body))
    builder.add_node("bad", counted("bad", bad_body), **failing.get("node", {}))
    builder.add_node("done", counted("done"))
    builder.add_edge(lib.START, "start").add_edge("start", "ok").add_edge("start", "bad")
    builder.add_edge(["ok", "bad"], "done")
    return builder.compile(checkpointer=saver)


def _observe(lib: Lib, bad: object, durability: str = "async", node: dict | None = None) -> dict:
    runs: dict[str, int] = {}
    failing = {"on": True, "node": node or {}}
    config = {"configurable": {"thread_id": "t"}}
    with SAVERS["memory"](lib.name) as saver:
        app = _fan(lib, saver, bad, runs, failing)
        try:
            app.invoke({"log": []}, config, durability=durability)
            raised = None
        except BaseException as error:  # (the classes are what is compared)
            context = error.__context__
            raised = (type(error).__name__, type(context).__name__ if context else None)
        state = app.get_state(config)
        paused = (
            state.values,
            state.next,
            sorted((task.name, str(task.error)) for task in state.tasks if task.error),
        )
        failing["on"] = False
        resumed = app.invoke(None, config)
    return {"raised": raised, "paused": paused, "resumed": resumed, "runs": runs}


@pytest.mark.parametrize(
    "bad", [KeyboardInterrupt, SystemExit, Halt], ids=["KeyboardInterrupt", "SystemExit", "own"]
)
def test_a_base_exception_beside_siblings_keeps_their_writes(bad):
    expected = _observe(load_langgraph(), bad)
    got = _observe(load_graphkit(), bad)
    assert got == expected
    assert got["raised"][0] == bad.__name__
    assert got["paused"][0] == {"log": ["start", "ok"]}  # the sibling's write was saved
    assert got["runs"]["ok"] == 1  # and it did not run again on resume


def test_a_base_exception_under_exit_durability_saves_the_thread():
    expected = _observe(load_langgraph(), KeyboardInterrupt, durability="exit")
    got = _observe(load_graphkit(), KeyboardInterrupt, durability="exit")
    assert got == expected
    assert got["paused"][1] == ("bad",)


def _retrying(lib: Lib, **policy: object) -> dict:
    return {"retry_policy": lib.RetryPolicy(**policy)}


class Flaky(ConnectionError):
    pass


@pytest.mark.parametrize("case", ["negative interval", "retry_on raises"])
def test_a_retry_policy_that_fails_is_the_task_error(case):
    def refuse(error: BaseException) -> bool:
        raise KeyError("retry_on broke")

    def observe(lib: Lib) -> dict:
        if case == "negative interval":
            node = _retrying(lib, initial_interval=-1, jitter=False)
        else:
            node = _retrying(lib, retry_on=refuse)
        return _observe(lib, Flaky, node=node)

    expected = observe(load_langgraph())
    got = observe(load_graphkit())
    assert got == expected
    raised = ("ValueError", "Flaky") if case == "negative interval" else ("KeyError", "Flaky")
    assert got["raised"] == raised  # the node's own error is kept as the context
    assert got["paused"][0] == {"log": ["start", "ok"]}


@pytest.mark.parametrize("limit", [0, -1, "2", 1.5, True])
def test_a_bad_max_concurrency_is_refused(limit):
    def observe(lib: Lib) -> tuple:
        runs: dict[str, int] = {}
        with SAVERS["memory"](lib.name) as saver:
            app = _fan(lib, saver, Halt, runs, {"on": False})
            config = {"configurable": {"thread_id": "t"}, "max_concurrency": limit}
            try:
                app.invoke({"log": []}, config)
            except (ValueError, TypeError) as error:
                return type(error).__name__, runs, str(error)
            return None, runs, ""

    expected, got = observe(load_langgraph()), observe(load_graphkit())
    assert got[:2] == expected[:2]
    refused = limit in (0, -1, "2")  # (a number above 0 is a limit, as in LangGraph)
    assert (got[0] is not None and "max_concurrency" in got[2]) if refused else got[1]["done"]


@pytest.mark.parametrize("durability", ["exit", "sync"])
def test_a_base_exception_from_a_lone_task_leaves_the_thread_at_its_step(durability):
    """A task run alone lets a ``KeyboardInterrupt`` through at once (both libraries run
    it inline); what ``durability="exit"`` held back is saved on the way out."""

    def observe(lib: Lib) -> tuple:
        def bad(state: dict) -> dict:
            raise KeyboardInterrupt()

        config = {"configurable": {"thread_id": "t"}}
        with SAVERS["memory"](lib.name) as saver:
            builder = lib.StateGraph(State).add_node("a", lambda state: {"log": ["a"]})
            builder.add_node("bad", bad).add_edge(lib.START, "a").add_edge("a", "bad")
            app = builder.compile(checkpointer=saver)
            with pytest.raises(KeyboardInterrupt):
                app.invoke({"log": ["in"]}, config, durability=durability)
            state = app.get_state(config)
            return state.values, state.next, len(list(app.get_state_history(config)))

    expected = observe(load_langgraph())
    assert observe(load_graphkit()) == expected
    assert expected[:2] == ({"log": ["in", "a"]}, ("bad",))
