"""The readable tables in a notebook: real DataFrames whose HTML keeps graphkit's short
texts whole and lays them out for reading (the look itself: test_readable_frame_in_lab)."""

from __future__ import annotations

import re
from typing import TypedDict

import pandas
import pytest

from graphkit import START, InMemorySaver, StateGraph
from graphkit.inspect import checkpoints_frame, pending_writes_frame
from graphkit.inspect.examples import paused_thread
from graphkit.inspect.readable_frame import NARROW, NOT_VALUES, ReadableFrame, _rules
from graphkit.inspect.tables import COLUMNS
from graphkit.inspect.threads import CHECKPOINT_COLUMNS, WRITE_COLUMNS
from graphkit.inspect.timeline import TIMELINE_COLUMNS
from graphkit.inspect.values import show

LONG = "a sentence long enough that show cuts it at sixty characters, and more"


class Notes(TypedDict):
    note: str


def long_run():
    builder = StateGraph(Notes)
    builder.add_node("write", lambda state: {"note": LONG})
    builder.add_edge(START, "write")
    return builder.compile().trace({"note": "short"})


def cells(html: str) -> list[str]:
    return re.findall(r"<td>(.*?)</td>", html)


def test_the_html_keeps_graphkits_short_text_whole():
    """pandas cut every notebook cell at 50 characters: a value show had already cut to
    60 with its own "…" read `'a sentence long enough that show cuts it at sixt...`."""
    shown = show(LONG)
    assert len(shown) == 60 and shown.endswith("…")
    run = long_run()
    for frame in (
        run.to_frame("writes", readable=True),
        run.to_frame("changes", readable=True),
        run.to_frame("state", readable=True),
        run.step(1).to_frame(readable=True),
    ):
        html = frame._repr_html_()
        assert shown in cells(html), type(frame)
        assert not any(cell.endswith("...") for cell in cells(html))
    assert shown in repr(run.to_frame("writes", readable=True))  # print(frame) too


def test_the_html_carries_the_layout(seed_run):
    """Each column found from the row's end: the index before it, step and task ids on
    one line, the values given room and wrapped between words, text left-aligned."""
    frame = seed_run.to_frame("writes", readable=True)  # step, task_id, node, channel, value
    html = frame._repr_html_()
    scope = re.match(r'<div class="gk-readable (gk-readable-\w+)">', html)
    assert scope, html[:200]
    table = f".{scope.group(1)} table.dataframe"
    style = html[html.rindex("<style>") : html.index("</style>", html.rindex("<style>"))]
    assert f"{table} td, {table} tbody tr th\n{{vertical-align: top}}" in style
    assert f"{table} td:nth-last-child(5),\n{table} td:nth-last-child(4)\n" in style
    assert "{white-space: nowrap}" in style
    value = f"{table} td:nth-last-child(1)\n{{white-space: normal; overflow-wrap: normal;"
    assert value in style and "word-break: normal; min-width: 24ch}" in style
    assert f"{table} thead th:nth-last-child(1)\n{{text-align: left}}" in style
    assert "<th>task_<wbr>id</th>" in html  # a long name can break at its "_"
    # the theme's colours stay JupyterLab's, so the dark theme reads as well as the light
    assert not re.search(r"color|background|#[0-9a-f]{3}", style)


def test_value_columns_share_the_room_and_short_values_take_no_more():
    frame = ReadableFrame({"step": [1], "before": ["x" * 60], "after": ["y" * 60], "n": ["1"]})
    rules = "\n".join(_rules(frame))
    assert rules.count("min-width: 13ch}") == 2  # 40 characters shared by three values
    assert "min-width: 1ch}" in rules  # a column of one-character values


def test_a_whole_checkpoint_id_may_break_where_a_short_task_id_may_not():
    frame = ReadableFrame({"task_id": ["b4db3854"], "checkpoint_id": ["1f0" + "-abcd" * 7]})
    assert (
        "\n".join(_rules(frame))
        .split("{white-space: nowrap}")[0]
        .endswith("SCOPE td:nth-last-child(2)\n")
    )


def test_columns_pandas_leaves_out_are_not_counted():
    frame = ReadableFrame({name: ["x"] for name in ("step", "a", "b", "c", "d", "task_id")})
    with pandas.option_context("display.max_columns", 4):
        rules = "\n".join(_rules(frame))
        html = frame._repr_html_()
    assert "<th>...</th>" in html  # first two, "...", last two
    assert "SCOPE td:nth-last-child(5),\nSCOPE td:nth-last-child(1)\n{white-space: nowrap}" in (
        rules
    )
    assert "nth-last-child(3)" not in rules


def test_every_column_of_every_table_is_placed():
    """A new column is a value (it gets the room) unless named here."""
    tables = [*COLUMNS.values(), TIMELINE_COLUMNS, CHECKPOINT_COLUMNS, WRITE_COLUMNS]
    names = {name for columns in tables for name in columns}
    values = {"before", "after", "value", "values", "packet", "error", "given", "returned"}
    assert names - values <= NOT_VALUES
    assert not values & NOT_VALUES
    assert {"step", "task_id", "checkpoint_id", "parent_id"} <= NARROW


def test_a_readable_frame_is_still_a_dataframe(seed_run, tmp_path):
    frame = seed_run.to_frame("changes", readable=True)
    plain = pandas.DataFrame(frame)
    assert type(frame) is ReadableFrame and isinstance(frame, pandas.DataFrame)
    assert frame.equals(plain) and plain.equals(frame)
    assert (frame == plain).all().all()
    assert frame.to_csv() == plain.to_csv() and frame.to_dict() == plain.to_dict()
    assert frame.loc[0, "channel"] == plain.loc[0, "channel"]
    pandas.testing.assert_frame_equal(frame, plain)  # (as the docs say: one way round,
    pandas.testing.assert_frame_equal(plain, frame, check_frame_type=False)  # or told)
    # a slice keeps the look: the lessons filter, then set the index, then pick columns
    picked = frame[frame.step >= 1].set_index("step")[["channel", "after"]]
    assert type(picked) is ReadableFrame and "gk-readable" in picked._repr_html_()
    assert type(frame.query("step >= 1")) is ReadableFrame
    assert type(frame["after"]) is pandas.Series


def test_the_plain_frames_are_pandas_own(seed_run):
    for frame in (seed_run.to_frame("changes"), seed_run.step(1).to_frame()):
        assert type(frame) is pandas.DataFrame
        assert "gk-readable" not in frame._repr_html_()


def test_the_thread_tables_are_readable_frames_too():
    app, config = paused_thread()
    assert type(checkpoints_frame(app, config, readable=True)) is ReadableFrame
    assert type(pending_writes_frame(app, config, readable=True)) is ReadableFrame
    assert type(checkpoints_frame(app, config)) is pandas.DataFrame


@pytest.mark.parametrize("kind", ["tasks", "writes", "changes", "state", "timeline", "store"])
def test_every_readable_run_table_is_a_readable_frame(seed_run, kind):
    assert type(seed_run.to_frame(kind, readable=True)) is ReadableFrame


def test_html_turned_off_and_the_info_view_are_pandas_own(seed_run):
    frame = seed_run.to_frame("tasks", readable=True)
    with pandas.option_context("display.notebook_repr_html", False):
        assert frame._repr_html_() is None
    with pandas.option_context("display.large_repr", "info", "display.max_rows", 2):
        assert frame._repr_html_().startswith("<pre>")


def test_an_empty_readable_frame_shows():
    builder = StateGraph(Notes)
    builder.add_node("write", lambda state: {})
    builder.add_edge(START, "write")
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"note": "x"}, config)
    frame = pending_writes_frame(app, config, readable=True)
    assert frame.empty and "gk-readable" in frame._repr_html_()
