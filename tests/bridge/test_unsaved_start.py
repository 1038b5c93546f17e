"""A LangGraph thread run with ``durability="exit"`` saves only its last checkpoint:
the import starts from it, with an ``__input__`` task standing in for the steps that
made it. Every view says those steps' writes were not saved by LangGraph, not that
the task "wrote nothing" or that the runtime changed the state; a thread run with
``durability="sync"`` (every step saved) says none of it."""

from __future__ import annotations

import operator
import re
import warnings
from typing import Annotated, TypedDict

import pytest

from graphkit import open_langgraph_thread
from graphkit.unsaved import not_saved

pytest.importorskip("langgraph")
pytest.importorskip("pandas")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

from graphkit.render.highlight import overlay_path
from graphkit.widgets import DebugSession
from graphkit.widgets.view import frame_html, has_unsaved, legend_html, view_at

NOT_SAVED = "the steps up to step 2 were not saved by LangGraph"


class Log(TypedDict):
    log: Annotated[list, operator.add]


def _thread(durability: str):
    builder = StateGraph(Log).add_node("a", lambda state: {"log": ["a"]})
    builder.add_node("b", lambda state: {"log": ["b"]})
    app = builder.add_edge(START, "a").add_edge("a", "b").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": durability}}
    assert app.invoke({"log": []}, config, durability=durability) == {"log": ["a", "b"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (exit: the import warns its beginning is missing)
        return app, config, open_langgraph_thread(app, config)


def test_under_exit_the_input_task_stands_in_for_the_steps_not_saved():
    _, _, run = _thread("exit")
    first = run.steps[0]
    assert first.step == 2 and [t.node for t in first.plan.tasks] == ["__input__"]
    (result,) = first.execution.results
    assert result.writes == () and not_saved(result) is not None
    assert not_saved(result).start == 2 and NOT_SAVED in not_saved(result).text()
    # (nothing of its attempts or time was saved: it ran nothing)
    assert (result.attempts, result.duration, result.worker) == (None, None, None)
    assert [c.writers for c in first.update.changes if c.channel == "log"] == [()]


def test_under_exit_the_step_table_and_cards_say_the_writes_were_not_saved():
    _, _, run = _thread("exit")
    rows = run.steps[0].to_frame()
    execute = rows[rows["phase"] == "execute"]["detail"].tolist()
    assert len(execute) == 1 and execute[0].startswith(NOT_SAVED)
    log = rows[(rows["phase"] == "update") & (rows["channel"] == "log")]["detail"].tolist()
    assert log == ["v0 → v4, add, written in steps LangGraph did not save"]
    for html in (run._repr_html_(), run.steps[0]._repr_html_()):
        assert NOT_SAVED in html and "wrote nothing" not in html
        assert "(writers not saved · add)" in html and "(runtime · add)" not in html
    assert NOT_SAVED in run.steps[0].execution._repr_html_()
    assert "wrote nothing" not in str(run)


@pytest.mark.parametrize("kind", ["tasks", "writes", "changes", "state"])
def test_under_exit_the_run_tables_note_the_steps_not_saved(kind):
    _, _, run = _thread("exit")
    for frame in (run.to_frame(kind), run.to_frame(kind, readable=True)):
        (note,) = frame.attrs["notes"]
        assert note.startswith("The steps up to step 2 were not saved by LangGraph")
    assert note in repr(run.to_frame(kind, readable=True))
    assert "not saved by LangGraph" in run.to_frame(kind, readable=True)._repr_html_()
    assert "not that they wrote nothing" in run.to_frame("writes").attrs["notes"][0]


def test_under_exit_the_debugger_says_the_steps_were_not_saved():
    app, config, run = _thread("exit")
    view = DebugSession.from_run(app, run, config).view()
    assert view.step == 2
    for kind in ("tasks", "writes", "changes", "state"):
        assert "not saved by LangGraph" in view.table_html(kind), kind
    # the empty writes tab says why it is empty, not only "no writes in this step"
    assert view.tables["writes"].empty
    assert "not that they wrote nothing" in frame_html(view.tables["writes"], "no writes")


def test_under_sync_every_step_was_saved_and_no_view_says_otherwise():
    app, config, run = _thread("sync")
    assert [s.step for s in run.steps] == [-1, 0, 1, 2]
    assert not any(not_saved(r) for s in run.steps for r in s.execution.results)
    assert "not saved" not in str(run) and "not saved" not in run._repr_html_()
    for kind in ("tasks", "writes", "changes", "state"):
        assert "notes" not in run.to_frame(kind, readable=True).attrs
    view = DebugSession.from_run(app, run, config).view()
    assert all("not saved" not in view.table_html(k) for k in ("tasks", "writes", "changes"))


def test_under_exit_the_update_and_change_cards_say_the_writers_were_not_saved():
    # (they get only the Update or the change: the record says its writers were not saved)
    _, _, run = _thread("exit")
    update = run.steps[0].update
    (log,) = [c for c in update.changes if c.channel == "log"]
    for html in (update._repr_html_(), log._repr_html_()):
        assert "(writers not saved · add)" in html and "(runtime · add)" not in html
    assert log.writers == () and log.unsaved is not None and log.unsaved.start == 2
    # the channels the runtime cleared are still the runtime's
    assert all(c.unsaved is None for c in update.changes if c.channel != "log")
    assert "(runtime)    cleared" in str(run) and "(not saved)" in str(run)


def test_under_exit_the_changes_table_reads_writers_and_values_unknown():
    # (as a task's attempts read "unknown": not (), which reads as the runtime's change)
    _, _, run = _thread("exit")
    for frame in (run.to_frame("changes"), run.to_frame("changes", readable=True)):
        row = frame[frame["channel"] == "log"].iloc[0]
        assert (row["writers"], row["values"]) == ("unknown", "unknown")
    note = run.to_frame("changes").attrs["notes"][0]
    assert "read 'unknown'" in note and "not the runtime" in note


def test_under_sync_the_cards_and_changes_table_name_the_writers():
    _, _, run = _thread("sync")
    changes = [c for s in run.steps if s.update is not None for c in s.update.changes]
    assert all(c.unsaved is None for c in changes)
    html = run.step(2).update._repr_html_()
    assert "(b · add)" in html and "not saved" not in html
    frame = run.to_frame("changes")
    assert frame[frame["step"] == 2]["writers"].tolist() == [("b",)]
    readable = run.to_frame("changes", readable=True)
    assert readable[readable["step"] == 2]["writers"].tolist() == ["b"]


def _classes(svg: str, node: str) -> list[str]:
    (found,) = re.findall(rf'<g id="node-{node}" class="([^"]*)">', svg)
    return found.split()


def test_under_exit_the_debugger_draws_the_nodes_that_ran_as_writes_not_saved():
    # (a and b were drawn as nodes that never ran, while the legend keyed "writes not
    # saved" for a style no node had: the checkpoint says they ran, what they wrote is
    # not known)
    app, config, run = _thread("exit")
    session = DebugSession.from_run(app, run, config)
    assert "writes not saved" in legend_html(has_unsaved(session.supersteps))
    for phase in ("execute", "update"):
        svg = view_at(session, 0, phase).svg
        assert all("not-saved" in _classes(svg, n) for n in ("__start__", "a", "b")), phase
        assert "not-saved" not in _classes(svg, "__end__")
    assert "not-saved" not in _classes(view_at(session, 0, "plan").svg, "a")
    assert not_saved(run.steps[0].execution.results[0]).ran == ("__start__", "a", "b")
    # the path a run took says the same
    overlaid = overlay_path(session.graph_svg, run)
    assert all("not-saved" in _classes(overlaid, n) for n in ("a", "b"))


def test_under_sync_the_debugger_draws_no_node_as_not_saved():
    app, config, run = _thread("sync")
    session = DebugSession.from_run(app, run, config)
    assert not has_unsaved(session.supersteps)
    svg = view_at(session, len(session.supersteps) - 1, "update").svg
    assert "not-saved" not in _classes(svg, "b") and "applied" in _classes(svg, "b")


def _sync_then_exit():
    # (the first run saves every step; the second, under exit, only its last checkpoint:
    # the thread's history jumps from step 2 to step 6)
    app, config, _ = _thread("sync")
    assert app.invoke({"log": ["x"]}, config, durability="exit")["log"][-2:] == ["a", "b"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (its beginning was saved: no warning)
        return app, config, open_langgraph_thread(app, config)


def test_a_later_run_under_exit_reads_as_steps_not_saved_not_as_the_runtime():
    # (its one step read 'log ... (runtime)' with no task: the runtime wrote the second
    # run's whole log, and nothing said steps 3 to 5 were missing)
    app, config, run = _sync_then_exit()
    assert [s.step for s in run.steps] == [-1, 0, 1, 2, 6]
    (result,) = run.step(6).execution.results
    unsaved = not_saved(result)
    assert unsaved is not None and (unsaved.start, unsaved.after) == (6, 2)
    assert set(unsaved.ran) == {"__start__", "a", "b"}
    (log,) = [c for c in run.step(6).update.changes if c.channel == "log"]
    assert log.unsaved is unsaved and log.writers == ()
    text = str(run)
    assert "steps 3 to 6 were not saved by LangGraph" in text
    assert "(not saved)" in text and "(runtime)\n" not in text
    assert "(writers not saved · add)" in run.step(6)._repr_html_()
    # the tables say so too; the state before step 6 was saved (step 2's), so no note
    (note,) = run.to_frame("writes").attrs["notes"]
    assert note.startswith("Steps 3 to 6 were not saved by LangGraph")
    assert "notes" not in run.to_frame("state").attrs
    # the steps that were saved read as they do under sync
    assert "(from b)" in text and not any(not_saved(r) for r in run.step(2).execution.results)
    # (LangGraph's own history has the same gap)
    assert [s.metadata["step"] for s in app.get_state_history(config)] == [6, 2, 1, 0, -1]


def test_a_later_run_under_exit_keeps_its_step_number_in_the_debugger():
    # (the debugger numbers steps one after another to hide a fork's extra number: it
    # called step 6 'step 3 (after the fork)', beside a note on 'steps 3 to 6')
    app, config, run = _sync_then_exit()
    session = DebugSession.from_run(app, run, config)
    last = len(session.supersteps) - 1
    view = view_at(session, last, "execute")
    assert view.step_label.startswith("step 6") and "fork" not in view.step_label
    assert "Steps 3 to 6 were not saved" in view.table_html("writes")
    svg = view.svg
    assert all("not-saved" in _classes(svg, n) for n in ("a", "b"))


def _asked_and_resumed(durability: str):
    from langgraph.types import Command, interrupt

    def ask(state):
        return {"log": [f"b:{interrupt('ok?')}"]}

    builder = StateGraph(Log).add_node("a", lambda state: {"log": ["a"]}).add_node("b", ask)
    app = builder.add_edge(START, "a").add_edge("a", "b").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": durability}}
    app.invoke({"log": []}, config, durability=durability)
    assert app.invoke(Command(resume="yes"), config, durability=durability) == {
        "log": ["a", "b:yes"]
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return open_langgraph_thread(app, config)


def test_a_task_resumed_under_exit_reads_as_not_saved_not_as_still_paused():
    # (the resuming run saved neither the answer nor b's writes: b read 'paused in
    # interrupt('ok?')' in a finished run, and its log change '(runtime)')
    run = _asked_and_resumed("exit")
    assert run.status == "done"
    (b,) = run.step(2).execution.results
    assert not b.paused and b.interrupts == () and not_saved(b).resumed
    text = str(run)
    assert "paused in" not in text and "resumed after its interrupt()" in text
    assert "['a'] -> ['a', 'b:yes']  (from b)" in text
    assert "the run that resumed it" in " ".join(str(run.why("b")).split())
    # under sync the answer and the writes were saved
    (b,) = _asked_and_resumed("sync").step(2).execution.results
    assert b.answers == ("yes",) and b.writes and not_saved(b) is None


@pytest.mark.parametrize("durability", ["exit", "sync"])
def test_a_failed_thread_read_from_langgraph_pickles_and_copies(durability):
    # (its error's class is made on import, so pickle could not find it by name:
    # "Can't pickle <class 'graphkit.bridge.saved.ValueError'>")
    import copy
    import pickle

    def fail(state):
        raise ValueError("bad")

    builder = StateGraph(Log).add_node("a", lambda state: {"log": ["a"]}).add_node("b", fail)
    app = builder.add_edge(START, "a").add_edge("a", "b").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": durability}}
    with pytest.raises(ValueError, match="bad"):
        app.invoke({"log": []}, config, durability=durability)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = open_langgraph_thread(app, config)
    assert run.status == "error"
    for again in (pickle.loads(pickle.dumps(run)), copy.deepcopy(run)):
        assert str(again) == str(run) and again.status == "error"
        (b,) = again.step(2).execution.results
        assert type(b.error).__name__ == "ValueError" and str(b.error) == "bad"
    for kind in ("tasks", "writes", "changes", "state", "timeline", "subgraphs", "store"):
        pickle.loads(pickle.dumps(run.to_frame(kind)))
