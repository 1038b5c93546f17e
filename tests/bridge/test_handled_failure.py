"""A LangGraph thread whose node raised and whose error handler took over
(``add_node("c", c, error_handler=h)``): LangGraph saves the node's error with a
``__error_source_node__`` write and the handler's writes under the handler's own task
id, which no checkpoint plans. The import shows what graphkit's own run of the graph
shows: ``c`` raised and was handled, its handler ran as a task of that step, started by
the failure, its writes credited to it, and the thread did not fail."""

from __future__ import annotations

import operator
import re
from typing import Annotated, TypedDict

import pytest

from graphkit import from_langgraph, open_langgraph_thread
from graphkit.errors import GraphkitWarning

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.errors import NodeError
from langgraph.graph import START, StateGraph


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _handled(handler_breaks: bool = False) -> StateGraph:
    def c(state: Log) -> dict:
        raise ConnectionError("down")

    def handler(state: Log, error: NodeError) -> dict:
        if handler_breaks:
            raise ValueError("handler broke")
        return {"log": ["handled"]}

    builder = StateGraph(Log).add_node("a", lambda state: {"log": ["a"]})
    builder.add_node("c", c, error_handler=handler)
    return builder.add_edge(START, "a").add_edge("a", "c")


def test_a_handled_failure_shows_the_handler_taking_over_as_graphkits_own_run():
    app = _handled().compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    assert app.invoke({"log": []}, config, durability="sync") == {"log": ["a", "handled"]}
    imported = open_langgraph_thread(app, config)
    own_app = from_langgraph(_handled().compile(checkpointer=InMemorySaver()))
    own = own_app.trace({"log": []}, config, durability="sync")

    assert imported.status == own.status == "done" and imported.error is None
    for run in (imported, own):
        step = run.steps[-1]
        assert step.execution.error is None
        failed, handler = step.execution.results
        assert [t.node for t in step.plan.tasks] == ["c"]
        assert (failed.task.node, failed.handled, type(failed.error).__name__) == (
            "c",
            True,
            "ConnectionError",
        )
        assert failed.writes == ()
        assert (handler.task.node, handler.task.kind) == ("__error_handler__c", "error_handler")
        assert handler.task.parent == failed.task.id and handler.error is None
        assert handler.task.path == ("__pregel_pull", "c", "node_error_handler", False)
        assert handler.writes == (("log", ["handled"]),)
        (change,) = [c for c in step.update.changes if c.channel == "log"]
        assert (change.after, change.writers) == (["a", "handled"], ("__error_handler__c",))
    # LangGraph's id for the handler's task: the one its writes were saved under
    handler_ids = {t for t, c, _ in app.checkpointer.get_tuple(
        {"configurable": {**config["configurable"],
                          "checkpoint_id": imported.steps[-2].update.checkpoint.id}}
    ).pending_writes if c == "log"}  # fmt: skip
    assert handler_ids == {imported.steps[-1].execution.results[1].task.id}
    text = imported.timeline(width=None)
    assert re.search(r"EXECUTE +__error_handler__c +wrote log", text)
    assert re.search(r"UPDATE +log .*\(from __error_handler__c\)", text)
    assert "the run is done" in text
    reasons = " ".join(r.text for a in imported.why("c").answers for r in a.reasons)
    assert "c raised ConnectionError: down, and __error_handler__c took over" in reasons
    # (its attempts are unknown in an imported thread: why still answers)
    started = " ".join(
        r.text for a in imported.why("__error_handler__c").answers for r in a.reasons
    )
    assert "c raised ConnectionError: down in step 2; it has an error handler" in started


def test_a_handler_that_raised_fails_the_thread_with_its_own_error():
    app = _handled(handler_breaks=True).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    with pytest.raises(ValueError, match="handler broke"):
        app.invoke({"log": []}, config, durability="sync")
    imported = open_langgraph_thread(app, config)
    own_app = from_langgraph(_handled(handler_breaks=True).compile(checkpointer=InMemorySaver()))
    with pytest.raises(ValueError, match="handler broke"):
        own_app.trace({"log": []}, config, durability="sync")

    assert imported.status == "error"
    assert type(imported.error).__name__ == "ValueError" and "handler broke" in str(imported.error)
    failed, handler = imported.steps[-1].execution.results
    assert failed.handled and handler.task.node == "__error_handler__c"
    assert type(handler.error).__name__ == "ValueError"
    assert imported.steps[-1].update is None


def test_under_exit_the_import_says_the_steps_and_the_hand_over_were_not_saved():
    # durability="exit" saves the run's last checkpoint only: nothing of c's failure,
    # its handler or the steps before is there to show, and the import says so
    app = _handled().compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}
    assert app.invoke({"log": []}, config, durability="exit") == {"log": ["a", "handled"]}
    with pytest.warns(GraphkitWarning, match="begins with a checkpoint of step 2"):
        imported = open_langgraph_thread(app, config)

    assert imported.status == "done" and imported.error is None
    assert imported.values == {"log": ["a", "handled"]}
    text = imported.timeline(width=None)
    assert re.search(r"EXECUTE +__input__ +the steps up to step 2 were not saved", text)
    assert "any error a task raised or an error handler took over are not known" in text
    assert re.search(r"UPDATE +log +\[\] -> \['a', 'handled'\] +\(not saved\)$", text, re.M)
    assert "wrote nothing" not in text
    answer = imported.why("__error_handler__c", graph=app)
    assert "never ran" not in answer.summary
    assert "whether it ran before them was not saved" in answer.summary
