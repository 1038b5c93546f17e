"""A LangGraph thread whose process was killed before a task's writes were saved, as
``print(run)``, the step card, the tables and ``why`` show it: "not saved", never
"wrote nothing" (``graphkit/inspect/unsaved.py``).

A separate process runs the graph on LangGraph with a ``SqliteSaver`` and kills itself
(SIGKILL) at a chosen point, as a worker dies; this process opens the file it wrote.
"""

from __future__ import annotations

import operator
import re
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

pytest.importorskip("langgraph")

ROOT = Path(__file__).resolve().parents[2]

# Two threads. "killed": a finished and its writes were saved, then the process died
# while b ran. "behind": the saver is slow to save __start__'s writes; its checkpoint of
# step 0 was saved, then the process died in step 1, before those writes were.
WRITER = textwrap.dedent(
    """
    import operator, os, signal, sqlite3, sys, threading, time
    from typing import Annotated, TypedDict
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import START, StateGraph

    class Log(TypedDict):
        log: Annotated[list, operator.add]

    saved_a, saved_step_0, never = threading.Event(), threading.Event(), threading.Event()

    class Saver(SqliteSaver):
        def put_writes(self, config, writes, task_id, task_path=""):
            if thread == "behind" and any(c == "branch:to:a" for c, _ in writes):
                never.wait()  # a slow database: __start__'s writes are still on their way
            super().put_writes(config, writes, task_id, task_path)
            if any(value == ["a"] for _, value in writes):
                saved_a.set()

        def put(self, config, checkpoint, metadata, new_versions):
            done = super().put(config, checkpoint, metadata, new_versions)
            if metadata.get("step") == 0:
                saved_step_0.set()
            return done

    def die_when(event):
        assert event.wait(20)
        os.kill(os.getpid(), signal.SIGKILL)

    def a(state):
        if thread == "behind":
            die_when(saved_step_0)
        return {"log": ["a"]}

    def b(state):
        assert saved_step_0.wait(20)  # (saved in the background too: else no step 1 to show)
        die_when(saved_a)

    thread, path = sys.argv[1], sys.argv[2]
    builder = StateGraph(Log).add_node("a", a).add_node("b", b)
    builder.add_node("c", lambda state: {"log": ["c"]})
    builder.add_edge(START, "a").add_edge(START, "b").add_edge(["a", "b"], "c")
    app = builder.compile(checkpointer=Saver(sqlite3.connect(path, check_same_thread=False)))
    app.invoke({"log": []}, {"configurable": {"thread_id": thread}}, durability="async")
    """
)


def _graph(path: Path) -> Any:
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import START, StateGraph

    from tests.inspect.conftest import Log

    builder = StateGraph(Log)
    for name in "abc":
        builder.add_node(name, lambda state: {})
    builder.add_edge(START, "a").add_edge(START, "b").add_edge(["a", "b"], "c")
    saver = SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))
    return builder.compile(checkpointer=saver)


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    path = tmp_path_factory.mktemp("killed") / "threads.sqlite"
    for thread in ("killed", "behind"):
        done = subprocess.run(
            [sys.executable, "-c", WRITER, thread, str(path)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
        assert done.returncode == -9, done.stderr[-2000:]  # (killed, as a worker dies)
    return _graph(path), path


def _open(app: Any, thread: str) -> Any:
    from graphkit import open_langgraph_thread

    return open_langgraph_thread(app, {"configurable": {"thread_id": thread}})


def test_a_task_killed_mid_step_is_not_said_to_have_written_nothing(killed):
    app, _ = killed
    config = {"configurable": {"thread_id": "killed"}}
    assert app.get_state(config).next == ("b",)  # LangGraph runs b again: it had not finished
    run = _open(app, "killed")
    text = run.timeline(width=None)
    assert "EXECUTE  a  wrote log, join:a+b:c" in text
    assert "wrote nothing" not in text
    assert (
        "EXECUTE  b  nothing saved: the process ended before it finished or before its "
        "writes were saved; going on (invoke(None, config)) runs it again"
    ) in text
    assert text.splitlines()[-1] == (
        "still running: step 1 stopped with nothing saved of b; going on runs it again, "
        "then step 1's Update"
    )
    card = re.sub(r"<[^>]+>", " ", run.step(1)._repr_html_())
    assert "wrote nothing" not in card and "nothing saved: the process ended" in card
    answer = run.why("b", graph=app).answers[0]
    assert answer.summary == (
        "b was planned at step 1 because __start__ wrote branch:to:b in step 0; nothing of "
        "it was saved, so it may not have finished, and going on runs it again."
    )
    assert answer.kinds[-1] == "not_saved" and "runs b again" in answer.reasons[-1].text
    assert run.why("a", graph=app).answers[0].summary.startswith("a ran at step 1")


def test_a_step_saved_before_its_tasks_writes_says_they_were_not_saved(killed):
    app, _ = killed
    run = _open(app, "behind")
    step = run.step(0)
    text = "\n".join(line.strip() for line in run.timeline(width=None).splitlines())
    assert (
        "EXECUTE  __start__    its writes were not saved: the process ended before "
        "LangGraph saved them (in the background)"
    ) in text
    # it did not write nothing, nor drop the input's log (a key of the state)
    assert "wrote nothing" not in text and "dropped" not in text
    # the step's changes are known, and the one task whose writes were lost made them
    assert [(c.channel, c.writers) for c in step.update.changes if c.writers] == [
        ("branch:to:a", ("__start__",)),
        ("branch:to:b", ("__start__",)),
        ("log", ("__start__",)),
    ]
    assert "(runtime)" not in text.replace("(runtime)    cleared __start__", "")
    rows = run.to_frame("tasks")
    assert rows[rows.node == "__start__"].cached.tolist() == [False]
    details = [r["detail"] for r in _superstep_rows(step) if r["phase"] == "execute"]
    assert details == [
        "its writes were not saved: the process ended before LangGraph "
        "saved them (in the background)"
    ]
    why_a = run.why("a", graph=app).answers[0]
    assert "nothing wrote" not in why_a.summary.lower()
    reasons = run.why("__start__", step=0, graph=app).answers[0].reasons
    assert reasons[-1].kind == "not_saved"
    assert "what each of its tasks wrote is not" in reasons[-1].text


def test_why_of_a_waiting_edge_names_the_part_saved_but_not_applied(killed):
    """a's write to the barrier was saved, its step's Update not: why("c") said "none has
    written yet" and that the edge waited for a and b."""
    app, _ = killed
    answer = _open(app, "killed").why("c", graph=app).answers[0]
    assert answer.summary == (
        "c never ran: the waiting edge [a, b] → c is still waiting for b (a's part is "
        "written, not yet applied)."
    )
    assert answer.reasons[0].text == (
        "The waiting edge [a, b] → c (join:a+b:c) runs c only once all of its sources have "
        "written; by the run's end, a wrote its part in step 1, not applied yet: step 1's "
        "Update has not run (saved: going on applies it), so it is still waiting for b."
    )


def _superstep_rows(step: Any) -> list[dict[str, Any]]:
    from graphkit.inspect.tables import superstep_rows

    return superstep_rows(step)


def test_the_debugger_draws_a_task_with_nothing_saved_so_not_as_one_that_wrote_nothing(killed):
    """The drawing read "ran, wrote nothing" (``wrote-nothing``) for b, killed mid-step,
    and for __start__, whose writes the process never saved: it is ``not-saved``."""
    from graphkit.render.highlight import highlight
    from graphkit.widgets import Debugger
    from tests.render.test_highlight import classes

    app, _ = killed
    svg = _svg()
    run = _open(app, "killed")
    marks = classes(highlight(svg, run.step(1), "execute"))
    assert marks["node-b"] == {"planned", "not-saved"}
    assert marks["node-a"] == {"planned", "wrote", "pending"}
    behind = _open(app, "behind")
    for phase in ("execute", "update"):
        assert "wrote-nothing" not in classes(highlight(svg, behind.step(0), phase)).get(
            "node-__start__", set()
        )
    config = {"configurable": {"thread_id": "killed"}}
    debugger = Debugger.from_run(app, run, config)
    legend = next(w for w in debugger.widget.children if "gk-legend" in w._dom_classes)
    assert 'class="gk-node not-saved"' in legend.value and "writes not saved" in legend.value


def test_the_run_overlay_draws_a_task_with_nothing_saved_as_the_debugger_does(killed):
    """The run's path marked b, killed mid-step (it runs again), ``ran``, where the
    debugger draws it ``not-saved``; __start__ of the "behind" thread had finished (its
    step's checkpoint was saved): it ran."""
    from graphkit.render.highlight import overlay_path
    from tests.render.test_highlight import classes

    app, _ = killed
    svg = _svg()
    marks = classes(overlay_path(svg, _open(app, "killed")))
    assert marks["node-b"] == {"not-saved"}
    assert marks["node-a"] == {"ran"}
    assert classes(overlay_path(svg, _open(app, "behind")))["node-__start__"] == {"ran"}


def _svg() -> str:
    """The graph the threads ran, drawn by graphkit (its element ids are the nodes')."""
    import graphkit

    builder = graphkit.StateGraph(dict)
    for name in "abc":
        builder.add_node(name, lambda state: {})
    builder.add_edge(graphkit.START, "a").add_edge(graphkit.START, "b")
    return builder.add_edge(["a", "b"], "c").compile().get_graph().draw_svg(engine="python")


# "both": the saver is slow to save the writes of step 1 (a and b); its checkpoint was
# saved, then the process died in step 2, before those writes were.
BOTH = textwrap.dedent(
    """
    import operator, os, signal, sqlite3, sys, threading
    from typing import Annotated, TypedDict
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import START, StateGraph

    class State(TypedDict):
        log: Annotated[list, operator.add]
        last: str

    saved_step_1, never = threading.Event(), threading.Event()

    class Saver(SqliteSaver):
        def put_writes(self, config, writes, task_id, task_path=""):
            if any(c == "log" for c, _ in writes):
                never.wait()  # a slow database: a's and b's writes are still on their way
            super().put_writes(config, writes, task_id, task_path)

        def put(self, config, checkpoint, metadata, new_versions):
            done = super().put(config, checkpoint, metadata, new_versions)
            if metadata.get("step") == 1:
                saved_step_1.set()
            return done

    def die(state):
        assert saved_step_1.wait(20)
        os.kill(os.getpid(), signal.SIGKILL)

    builder = StateGraph(State)
    builder.add_node("a", lambda state: {"log": ["a"], "last": "a"})
    builder.add_node("b", lambda state: {"log": ["b"]})
    builder.add_node("c", die).add_node("d", die)
    builder.add_edge(START, "a").add_edge(START, "b").add_edge("a", "c").add_edge("b", "d")
    saver = Saver(sqlite3.connect(sys.argv[1], check_same_thread=False))
    app = builder.compile(checkpointer=saver)
    app.invoke({"log": []}, {"configurable": {"thread_id": "both"}}, durability="async")
    """
)


def test_changes_of_several_unsaved_tasks_are_credited_as_far_as_the_graph_tells(tmp_path):
    """a and b ran in step 1, whose checkpoint was saved but not their writes: every
    change read "(runtime)". An edge's channel is its source's; a key either may have
    written reads "one of a, b (not saved)", a reducer's "one or more of"."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import START, StateGraph

    from graphkit.inspect.tables import superstep_rows

    path = tmp_path / "both.sqlite"
    done = subprocess.run(
        [sys.executable, "-c", BOTH, str(path)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == -9, done.stderr[-2000:]
    builder = StateGraph(_Last)
    for name in "abcd":
        builder.add_node(name, lambda state: {})
    builder.add_edge(START, "a").add_edge(START, "b").add_edge("a", "c").add_edge("b", "d")
    saver = SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))
    run = _open(builder.compile(checkpointer=saver), "both")
    step = run.step(1)
    assert [r.output.finished for r in step.execution.results] == [True, True]
    changes = {c.channel: (c.writers, c.values) for c in step.update.changes if c.writers}
    assert changes == {
        "branch:to:c": (("a",), (None,)),
        "branch:to:d": (("b",), (None,)),
        "last": (("a", "b"), ()),
        "log": (("a", "b"), ()),
    }
    text = run.timeline(width=None)
    updates = [line.split()[1:] for line in text.splitlines() if "UPDATE" in line]
    assert [u for u in updates if "(runtime)" in u] == [
        ["(runtime)", "cleared", "__start__"],
        ["(runtime)", "cleared", "branch:to:a,", "branch:to:b"],
    ]
    assert "(from one of a, b (not saved))" in text
    assert "(from one or more of a, b (not saved))" in text
    rows = {r["channel"]: r["node"] for r in superstep_rows(step) if r["phase"] == "update"}
    assert rows["last"] == "one of a, b (not saved)" and rows["branch:to:c"] == "a"
    card = re.sub(r"<[^>]+>", " ", run.step(1)._repr_html_())
    assert "one or more of a, b (not saved)" in card


class _Last(TypedDict):
    """BOTH's state."""

    log: Annotated[list, operator.add]
    last: str


def test_a_task_unsaved_beside_one_that_raised_is_not_said_killed():
    """durability="exit": b raised while a ran, and LangGraph kept none of a's writes
    though no process ended. a read "nothing saved: the process ended before it finished"
    and why said both that it may not have finished and that "a finished"."""
    import time

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph

    from tests.inspect.conftest import Log

    def a(state: Log) -> dict:
        time.sleep(0.3)  # (still running when b raises)
        return {"log": ["a"]}

    def b(state: Log) -> dict:
        raise ValueError("boom")

    builder = StateGraph(Log).add_node("a", a).add_node("b", b)
    app = builder.add_edge(START, "a").add_edge(START, "b").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "exit"}}
    with pytest.raises(ValueError):
        app.invoke({"log": []}, config, durability="exit")
    with pytest.warns(Warning, match="durability='exit'"):
        run = _open(app, "exit")
    text = run.timeline(width=None)
    assert "process ended" not in text
    assert (
        "EXECUTE  a  nothing saved: b raised while it ran, and LangGraph saved none of its "
        "writes (a run with durability='exit' keeps only those of the tasks that had "
        "finished); going on (invoke(None, config)) runs it again"
    ) in text
    reasons = run.why("a", graph=app).answers[0].reasons
    assert "durability='exit'" in reasons[-2].text
    assert reasons[-1].text == (
        "b raised in the same step, so step 1's Update never ran and nothing a may have "
        "written was applied."
    )
