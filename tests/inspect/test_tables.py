"""Run.to_frame / Superstep.to_frame: every table's columns and rows, plain rows first."""

from __future__ import annotations

import operator
import re
import subprocess
import sys
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from graphkit import START, Send, StateGraph
from graphkit.channels import EMPTY
from graphkit.inspect.tables import (
    COLUMNS,
    KINDS,
    change_rows,
    run_rows,
    state_rows,
    superstep_rows,
    task_rows,
    write_rows,
)


def test_tasks_table_columns_and_rows(seed_run):
    frame = seed_run.to_frame("tasks")
    assert list(frame.columns) == [
        "step",
        "node",
        "kind",
        "triggers",
        "packet",
        "attempts",
        "duration",
        "cached",
        "reused",
        "error",
        "worker",
        "started_by",
        "task_id",
    ]
    assert frame[["step", "node", "kind"]].values.tolist() == [
        [-1, "__input__", "input"],
        [0, "__start__", "pull"],
        [1, "planner", "pull"],
        [2, "news", "pull"],
        [2, "weather", "pull"],
        [3, "summarize", "pull"],
    ]
    assert frame["triggers"].tolist()[2] == ("branch:to:planner",)
    assert frame["attempts"].tolist() == [1] * 6
    assert frame["error"].isna().all()
    assert frame["task_id"].tolist() == [t.id for s in seed_run.steps for t in s.plan.tasks]


def test_writes_table_columns_and_rows(seed_run):
    frame = seed_run.to_frame("writes")
    assert list(frame.columns) == ["step", "task_id", "node", "channel", "value"]
    step2 = frame[frame.step == 2]
    assert step2[["node", "channel", "value"]].values.tolist() == [
        ["news", "news", "market up"],
        ["news", "token_count", 50],
        ["news", "branch:to:summarize", None],
        ["weather", "weather", "sunny"],
        ["weather", "token_count", 50],
        ["weather", "branch:to:summarize", None],
    ]


def test_changes_table_columns_and_the_reducer_row(seed_run):
    frame = seed_run.to_frame("changes")
    assert list(frame.columns) == [
        "step",
        "channel",
        "before",
        "after",
        "version_before",
        "version_after",
        "writers",
        "values",
        "reducer",
    ]
    (row,) = frame[(frame.step == 2) & (frame.channel == "token_count")].to_dict("records")
    assert (row["before"], row["after"], row["writers"], row["values"], row["reducer"]) == (
        101,
        201,
        ("news", "weather"),
        (50, 50),
        "add",
    )
    assert str(frame["version_before"].dtype) == "Int64"  # a first version has none


def test_state_table_one_row_per_step_one_column_per_state_key(seed_run):
    frame = seed_run.to_frame("state")
    assert list(frame.columns) == ["step", "messages", "token_count", "plan", "weather", "news"]
    assert frame["step"].tolist() == [-1, 0, 1, 2, 3]
    # a reducer key holds its start value (0) before any write, as get_state_history shows
    assert frame["token_count"].tolist() == [0, 1, 101, 201, 201]
    assert frame["weather"].tolist() == [EMPTY, EMPTY, EMPTY, "sunny", "sunny"]


def test_state_table_shows_internal_channels_only_when_asked(seed_run):
    assert "branch:to:weather" not in seed_run.to_frame("state").columns
    frame = seed_run.to_frame("state", internal=True)
    assert {"__start__", "branch:to:weather", "branch:to:summarize"} <= set(frame.columns)
    assert frame["branch:to:weather"].tolist() == [EMPTY, EMPTY, None, EMPTY, EMPTY]


def test_timeline_table(seed_run):
    frame = seed_run.to_frame("timeline")
    assert list(frame.columns) == [
        "step",
        "node",
        "task_id",
        "worker",
        "start",
        "end",
        "duration",
        "barrier",
        "wait",
        "error",
    ]
    assert frame["node"].tolist() == ["__start__", "planner", "news", "weather", "summarize"]


def test_unknown_kind_names_the_kinds(seed_run):
    with pytest.raises(ValueError) as caught:
        seed_run.to_frame("task")
    assert str(caught.value) == (
        "Unknown table 'task'; use one of 'tasks', 'writes', 'changes', 'state', 'timeline', "
        "'subgraphs', 'store'. Did you mean 'tasks'?"
    )
    assert KINDS == ("tasks", "writes", "changes", "state", "timeline", "subgraphs", "store")


def test_readable_frames_hold_text(seed_run, failing_run):
    changes = seed_run.to_frame("changes", readable=True, internal=True)
    assert changes["after"].tolist()[:4] == [
        "{'messages': [('user', 'hi')], 'token_count': 1}",
        "[('user', 'hi')]",
        "1",
        "None",
    ]
    assert changes["after"].tolist()[4] == "<empty>"
    tasks = failing_run.to_frame("tasks", readable=True)
    assert tasks["error"].tolist()[-2:] == ["ValueError: bad <script>alert(1)</script>", ""]


def test_readable_frames_show_short_task_ids_and_the_plain_frame_whole_ones(seed_run):
    """A whole task id wrapped at its hyphens in JupyterLab and made every row of the
    tasks and writes tables tall; the readable tables show its first 8 characters."""
    whole = [t.id for s in seed_run.steps for t in s.plan.tasks]
    for kind in ("tasks", "writes", "timeline"):
        readable = seed_run.to_frame(kind, readable=True)["task_id"].tolist()
        plain = seed_run.to_frame(kind)["task_id"].tolist()
        assert set(plain) <= set(whole)
        assert readable == [i if i.startswith("__") else i[:8] for i in plain]
    assert "__input__" in seed_run.to_frame("tasks", readable=True)["task_id"].tolist()


def test_short_task_ids_grow_where_two_would_read_alike():
    from graphkit.inspect.tables import _shorten_ids

    rows = [{"task_id": "abcdef12-0000"}, {"task_id": "abcdef12-1111"}, {"task_id": None}]
    _shorten_ids(rows)
    assert [row["task_id"] for row in rows] == ["abcdef12-000", "abcdef12-111", None]


def test_readable_frames_join_names_and_writes_instead_of_showing_tuples(seed_run):
    # Lesson 04 showed writers as (flights,) and triggers as (branch:to:tools,): a
    # learner reads names, several joined with ", "; readable=False keeps the tuples.
    tasks = seed_run.to_frame("tasks", readable=True)
    assert tasks["triggers"].tolist()[:3] == ["", "__start__", "branch:to:planner"]
    changes = seed_run.to_frame("changes", readable=True)
    tokens = changes[(changes.step == 2) & (changes.channel == "token_count")]
    assert tokens[["writers", "values"]].values.tolist() == [["news, weather", "50, 50"]]
    news = changes[(changes.step == 2) & (changes.channel == "news")]
    assert news[["writers", "values"]].values.tolist() == [["news", "'market up'"]]
    raw = seed_run.to_frame("changes")
    assert raw[raw.step == 2]["writers"].tolist()[0] == ("news",)
    assert seed_run.to_frame("tasks")["triggers"].tolist()[2] == ("branch:to:planner",)


class Log(TypedDict):
    log: Annotated[list, operator.add]


def test_readable_frames_keep_long_names_whole():
    # Joining cut triggers and writers at 60 characters, as show cuts a value: the
    # debugger's tasks tab showed join:hotel_book_long_name+…+car_rental_… for a
    # channel the changes table names in full.
    names = ["hotel_book_long_name", "flight_book_long_name", "car_rental_long_name"]
    builder = StateGraph(Log).add_node("itinerary", lambda state: {})
    for name in names:
        builder.add_node(name, lambda state: {"log": ["x" * 30]}).add_edge(START, name)
    run = builder.add_edge(names, "itinerary").compile().trace({"log": []})
    tasks = run.to_frame("tasks", readable=True)
    join = "join:hotel_book_long_name+flight_book_long_name+car_rental_long_name:itinerary"
    assert tasks[tasks.node == "itinerary"]["triggers"].tolist() == [join]
    changes = run.to_frame("changes", readable=True)
    writers, values = changes[changes.step == 1][["writers", "values"]].values.tolist()[0]
    assert writers == "car_rental_long_name, flight_book_long_name, hotel_book_long_name"
    assert len(values) == 60 and values.endswith("…")  # values are cut, as show cuts


def test_a_failed_step_has_tasks_and_writes_but_no_changes_or_state(failing_run):
    assert [row["node"] for row in task_rows(failing_run.steps) if row["step"] == 1] == [
        "bad",
        "ok",
    ]
    assert [row["channel"] for row in write_rows(failing_run.steps) if row["step"] == 1] == [
        "log",
        "branch:to:after",
    ]
    assert not [row for row in change_rows(failing_run.steps) if row["step"] == 1]
    assert [row["step"] for row in state_rows(failing_run)] == [-1, 0]


def test_superstep_frame_reads_plan_execute_update_in_order(seed_run):
    frame = seed_run.step(2).to_frame()
    assert list(frame.columns) == list(COLUMNS["superstep"])
    assert frame["phase"].tolist() == ["plan"] * 2 + ["execute"] * 6 + ["update"] * 6
    assert frame.iloc[0].to_dict() == {
        "phase": "plan",
        "node": "news",
        "channel": "branch:to:news",
        "before": None,
        "value": None,
        "detail": "woken by version 3 (pull task)",
    }
    rows = superstep_rows(seed_run.step(2))
    assert rows[9] == {
        "phase": "update",
        "node": "news, weather",
        "channel": "token_count",
        "before": 101,
        "value": 201,
        "detail": "v3 → v4, add",
    }
    assert rows[-1]["detail"] == "v3 → v4, cleared by the runtime"


def test_superstep_frame_of_a_failed_step(failing_run):
    rows = superstep_rows(failing_run.step(1))
    (raised,) = [row for row in rows if row["detail"] == "raised"]
    assert raised["node"] == "bad" and isinstance(raised["value"], ValueError)
    assert rows[-1] == {
        "phase": "update",
        "node": "",
        "channel": None,
        "before": None,
        "value": None,
        "detail": "skipped: a task failed",
    }
    readable = failing_run.step(1).to_frame(readable=True)
    assert readable[readable.detail == "raised"]["value"].tolist() == [
        "ValueError: bad <script>alert(1)</script>"
    ]


# these runs start no subgraph; the subgraphs table has its own tests
# (tests/inspect/test_new_behaviours_shown.py)
WITHOUT_SUBGRAPHS = tuple(kind for kind in KINDS if kind not in ("subgraphs", "store"))
"""The tables every run has rows in (a run with no subgraph and no store has none there)."""


def test_run_rows_are_plain_dicts(seed_run):
    for kind in WITHOUT_SUBGRAPHS:
        rows = run_rows(seed_run, kind)
        assert rows and all(type(row) is dict for row in rows)


def test_importing_graphkit_and_its_views_imports_no_pandas():
    # graphkit imports graphkit.inspect to attach the records' methods; the core never
    # does (tests/test_layers.py), and pandas waits for the first table.
    code = (
        "import sys, graphkit, graphkit.inspect;"
        "assert 'pandas' not in sys.modules, 'pandas imported';"
        "graphkit.Run.to_frame;"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_long_run_builds_every_table(loop):
    run = loop.trace({"x": 0, "log": []}, {"recursion_limit": 2000})
    assert len(run.to_frame("state")) == 1003  # input step, step 0, 1000 spins, done
    for kind in WITHOUT_SUBGRAPHS:
        assert len(run.to_frame(kind)) > 1000


def test_state_table_has_every_schema_key_in_schema_order_even_one_never_written():
    from typing import TypedDict

    from graphkit import START, StateGraph

    class Fields(TypedDict):
        first: str
        never: str
        last: str

    builder = StateGraph(Fields)
    builder.add_node("w", lambda state: {"last": "z"})
    builder.add_edge(START, "w")
    run = builder.compile().trace({"first": "a"})
    frame = run.to_frame("state")
    assert list(frame.columns) == ["step", "first", "never", "last"]
    assert frame["never"].tolist() == [EMPTY, EMPTY, EMPTY]
    assert frame["last"].tolist() == [EMPTY, EMPTY, "z"]


def test_changes_table_hides_the_runtimes_channels_unless_internal(seed_run):
    public = seed_run.to_frame("changes")
    assert public.equals(seed_run.to_frame("changes", internal=False))
    assert set(public["channel"]) == {"messages", "token_count", "plan", "weather", "news"}
    everything = seed_run.to_frame("changes", internal=True)
    assert {"__start__", "branch:to:weather"} <= set(everything["channel"])
    assert len(everything) == len(change_rows(seed_run.steps))


class Jokes(TypedDict):
    subjects: list[str]
    jokes: Annotated[list[str], operator.add]


def test_a_push_tasks_packet_tells_the_rows_of_a_map_reduce_apart():
    """Three tasks of one node sent by Send look alike but for what each was sent."""
    builder = StateGraph(Jokes).add_node("topics", lambda state: {})
    builder.add_node("joke", lambda packet: {"jokes": [packet["subject"]]})
    builder.add_edge(START, "topics")
    builder.add_conditional_edges(
        "topics", lambda state: [Send("joke", {"subject": s}) for s in state["subjects"]]
    )
    run = builder.compile().trace({"subjects": ["cats", "owls"], "jokes": []})
    frame = run.to_frame("tasks", readable=True)
    pushed = frame.loc[frame["kind"] == "push", "packet"].tolist()
    assert len(pushed) == 2 and "cats" in pushed[0] and "owls" in pushed[1], pushed
    assert set(frame.loc[frame["kind"] != "push", "packet"]) == {""}
    raw = run.to_frame("tasks")
    assert raw.loc[raw["kind"] == "push", "packet"].tolist() == [
        {"subject": "cats"},
        {"subject": "owls"},
    ]


def test_a_text_column_keeps_none_where_a_row_has_none():
    """pandas 3 reads a column of text as its string dtype, whose missing value is NaN:
    the tasks a called task's caller started showed ``started_by`` ``NaN``."""
    from graphkit.func import entrypoint, task

    @task
    def double(x):
        return 2 * x

    @entrypoint()
    def main(x):
        return double(x).result()

    frame = main.trace(3).to_frame("tasks")
    assert frame["started_by"].tolist() == [None, None, "main"]


def test_a_write_of_removals_names_the_messages_it_removed():
    # A summariser's [RemoveMessage(<uuid>), RemoveMessage('ai-3')] read
    # [2 messages: …, remove id 'ai-3'] in the changes table: the first removal was hidden.
    messages = pytest.importorskip("langchain_core.messages")
    from graphkit import MessagesState

    def trim(state):
        return {"messages": [messages.RemoveMessage(id=m.id) for m in state["messages"][-2:]]}

    builder = StateGraph(MessagesState).add_node("trim", trim).add_edge(START, "trim")
    history = [
        messages.HumanMessage("hi", id="h-1"),
        messages.HumanMessage("she likes boxes", id="3cede81d-8a74-bb47-7087-1f138119b800"),
        messages.AIMessage("reply 3", id="ai-3"),
    ]
    run = builder.compile().trace({"messages": history})
    changes = run.to_frame("changes", readable=True)
    assert changes[changes.step == 1]["values"].tolist() == [
        '[remove human: "she likes boxes", ai: "reply 3"]'
    ]
    writes = run.to_frame("writes", readable=True)  # (no state before here: the ids)
    assert writes[writes.node == "trim"]["value"].tolist() == [
        "[remove ids '3cede81d-8a74-bb47-7087-1f138119b800', 'ai-3']"
    ]


def documented_columns() -> dict[str, list[str]]:
    """The columns docs/inspecting.md's table lists for each kind (what is in brackets
    left out; ``state``'s per-key columns are not named there)."""
    page = (Path(__file__).parents[2] / "docs" / "inspecting.md").read_text()
    found = {}
    for kind, columns in re.findall(r"^\| `(\w+)` \| [^|]+ \| ([^|]+) \|$", page, re.MULTILINE):
        while re.search(r"\([^()]*\)", columns):
            columns = re.sub(r"\s*\([^()]*\)", "", columns)
        found[kind] = [name.strip() for name in columns.split(",")]
    return found


def test_the_inspecting_guide_lists_every_table_and_its_columns(seed_run):
    """The guide's table of kinds is what ``to_frame`` gives: a column added to a table
    (``reused``, ``attempt``) or a kind added (``store``) shows up there too."""
    documented = documented_columns()
    assert sorted(documented) == sorted(KINDS)
    for kind in KINDS:
        if kind != "state":  # (its columns are the state's keys)
            assert documented[kind] == list(seed_run.to_frame(kind).columns), kind
