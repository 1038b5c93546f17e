"""A LangGraph thread whose node raised, then was resumed with ``invoke(None, config)``:
LangGraph keeps the failed run's ``__error__`` write beside what the resumed run did
(its writes under ``durability="sync"``, nothing under ``"exit"``, which saves only its
last checkpoint). The imported step says the task finished, as graphkit's own resumed
run does, and that an earlier run raised, never that the one task both raised and
wrote."""

from __future__ import annotations

import contextlib
import operator
import re
from typing import Annotated, TypedDict

import pytest

from graphkit import from_langgraph, open_langgraph_thread
from graphkit.errors import GraphkitWarning

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _flaky(down: list[bool]) -> StateGraph:
    def c(state: Log) -> dict:
        if down[0]:
            raise ConnectionError("down")
        return {"log": ["c"]}

    builder = StateGraph(Log).add_node("a", lambda state: {"log": ["a"]}).add_node("c", c)
    return builder.add_edge(START, "a").add_edge("a", "c")


def _fail_then_resume(app: object, config: dict, down: list[bool], durability: str) -> None:
    down[0] = True
    with contextlib.suppress(ConnectionError):
        app.invoke({"log": []}, config, durability=durability)
    down[0] = False
    app.invoke(None, config, durability=durability)


@pytest.mark.parametrize("durability", ["sync", "exit"])
def test_a_resumed_failure_shows_the_task_finished_and_the_earlier_runs_error(durability):
    down = [True]
    app = _flaky(down).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": durability}}
    _fail_then_resume(app, config, down, durability)
    late = pytest.warns(GraphkitWarning, match="begins with a checkpoint of step 1")
    with late if durability == "exit" else contextlib.nullcontext():
        imported = open_langgraph_thread(app, config)
        reasons = " ".join(r.text for a in imported.why("c", graph=app).answers for r in a.reasons)

    # graphkit's own thread: the failed run's step raised, the resumed one wrote
    own_app = from_langgraph(_flaky(down).compile(checkpointer=InMemorySaver()))
    down[0] = True
    with contextlib.suppress(ConnectionError):
        own_app.trace({"log": []}, config, durability=durability)
    down[0] = False
    own = own_app.trace(None, config, durability=durability).steps[-1]

    step = imported.steps[-1]
    (result,) = step.execution.results
    assert imported.status == "done" and imported.error is None
    assert result.task.node == own.execution.results[0].task.node == "c"
    assert result.error is None and own.execution.results[0].error is None
    assert [type(e).__name__ for e in result.failed_attempts] == ["ConnectionError"]
    (change,) = [c for c in step.update.changes if c.channel == "log"]
    (own_change,) = [c for c in own.update.changes if c.channel == "log"]
    for made in (change, own_change):
        assert (made.before, made.after, made.writers) == (["a"], ["a", "c"], ("c",))
    text = imported.timeline(width=None)
    assert re.search(r"EXECUTE +c +raised", text) is None
    assert "an earlier run raised ConnectionError: down" in text
    if durability == "sync":  # the resumed run's write was saved against the step
        assert result.writes == (("log", ["c"]),)
    else:
        assert "saved only its last checkpoint (durability='exit')" in text
    assert "an earlier run raised ConnectionError: down" in reasons
    assert "retry policy" not in reasons


def test_a_resumed_failure_that_failed_again_still_shows_the_error():
    down = [True]
    app = _flaky(down).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    for given in ({"log": []}, None):
        with contextlib.suppress(ConnectionError):
            app.invoke(given, config, durability="sync")
    imported = open_langgraph_thread(app, config)
    (result,) = imported.steps[-1].execution.results
    assert imported.status == "error" and type(imported.error).__name__ == "ConnectionError"
    assert type(result.error).__name__ == "ConnectionError" and result.failed_attempts == ()
