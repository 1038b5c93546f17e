"""The timeline: rows behind it, SVG drawn from them, and a slow sibling holding back the
next step (made slow with an Event, never with sleeps or timing assertions)."""

from __future__ import annotations

import threading
import xml.etree.ElementTree as ElementTree

from graphkit import START
from graphkit.inspect.timeline import TIMELINE_COLUMNS, duration_text, timeline_rows, timeline_svg
from graphkit.render.theme import CARD_CLASS, CARD_PAD

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ElementTree.Element:
    return ElementTree.fromstring(svg)  # raises if the SVG is not well-formed XML


def by_class(root: ElementTree.Element, name: str) -> list[ElementTree.Element]:
    return [element for element in root.iter() if element.get("class") == name]


def slow_sibling_run(make):
    """START -> (fast || slow) -> next, where slow finishes only after fast's result is in."""
    release = threading.Event()

    def fast(state):
        return {"log": ["fast"]}

    def slow(state):
        assert release.wait(timeout=10), "fast never finished"
        return {"log": ["slow"]}

    app = make(
        [("fast", fast), ("slow", slow), "next"],
        [(START, "fast"), (START, "slow"), ("fast", "next"), ("slow", "next")],
    )
    stepper = app.stepper({"x": 0, "log": []})
    stepper.step()  # the input step
    stepper.step()  # __start__
    assert stepper.plan().nodes == ["fast", "slow"]
    for result in stepper.iter_execute():  # results arrive as their tasks finish
        if result.task.node == "fast":
            release.set()
    return stepper.run()


def test_rows_have_the_columns_and_one_row_per_executed_task(seed_run):
    rows = timeline_rows(seed_run)
    assert [tuple(row) for row in rows] == [TIMELINE_COLUMNS] * 5
    assert [(row["step"], row["node"]) for row in rows] == [
        (0, "__start__"),
        (1, "planner"),
        (2, "news"),
        (2, "weather"),
        (3, "summarize"),
    ]
    assert rows[0]["start"] == 0.0
    for row in rows:
        assert row["start"] <= row["end"] <= row["barrier"]
        assert row["wait"] == row["barrier"] - row["end"]


def test_a_slow_sibling_holds_back_the_next_step(make):
    rows = {row["node"]: row for row in timeline_rows(slow_sibling_run(make))}
    fast, slow, after = rows["fast"], rows["slow"], rows["next"]
    assert fast["step"] == slow["step"] == 1 and after["step"] == 2
    assert slow["end"] > fast["end"]
    assert fast["barrier"] == slow["barrier"] == slow["end"]  # the slowest task sets the barrier
    assert fast["wait"] > 0 and slow["wait"] == 0  # fast's result waited for slow
    assert after["start"] >= slow["barrier"]  # the next step starts after the barrier


def test_svg_draws_the_next_steps_bars_after_the_barrier(make):
    root = parse(slow_sibling_run(make).timeline_svg())
    barrier = float(root.find(f".//{SVG}line[@id='barrier-1']").get("x1"))
    step_1 = root.find(f".//{SVG}g[@id='step-1']")
    step_2 = root.find(f".//{SVG}g[@id='step-2']")
    bars_1 = [bar for bar in by_class(step_1, "gk-bar")]
    bars_2 = [bar for bar in by_class(step_2, "gk-bar")]
    assert [bar.get("data-node") for bar in bars_1] == ["fast", "slow"]
    assert all(float(bar.get("x")) <= barrier for bar in bars_1)
    assert [bar.get("data-node") for bar in bars_2] == ["next"]
    assert all(float(bar.get("x")) >= barrier for bar in bars_2)


def test_svg_structure_ids_and_classes(seed_run):
    root = parse(seed_run.timeline_svg())
    assert root.tag == f"{SVG}svg"
    steps = by_class(root, "gk-step")
    assert [group.get("id") for group in steps] == ["step-0", "step-1", "step-2", "step-3"]
    assert [bar.get("id") for bar in by_class(root, "gk-bar")] == [
        "task-0-0",
        "task-1-0",
        "task-2-0",
        "task-2-1",
        "task-3-0",
    ]
    assert len(by_class(root, "gk-barrier")) == 4
    assert by_class(root, "gk-axis")


def test_svg_escapes_node_names_and_is_well_formed(hostile_run, hostile):
    svg = hostile_run.timeline_svg()
    root = parse(svg)
    assert not [element for element in root.iter() if element.tag.endswith("script")]
    assert "<script>" not in svg
    labels = [text.text for text in root.iter(f"{SVG}text")]
    assert hostile in labels
    explode = [bar for bar in by_class(root, "gk-bar") if bar.get("data-node") == "explode"]
    assert explode[0].get("fill") == "#d55e00"  # a task that raised is vermillion


def test_svg_of_no_rows_is_still_a_document():
    root = parse(timeline_svg([]))
    assert root.tag == f"{SVG}svg" and not by_class(root, "gk-bar")


def test_to_frame_timeline_is_the_same_rows(seed_run):
    frame = seed_run.to_frame("timeline")
    assert frame.to_dict("records") == timeline_rows(seed_run)


def test_duration_text():
    assert [duration_text(s) for s in (0, 5e-6, 0.00025, 0.0123, 2.5)] == [
        "0 µs",
        "5 µs",
        "0.25 ms",
        "12.3 ms",
        "2.5 s",
    ]


def test_the_timeline_svg_scales_down_to_a_narrow_column():
    from graphkit.inspect.examples import forecast_run

    svg = forecast_run().timeline_svg(width=720)
    assert 'viewBox="0 0 720 ' in svg and 'style="max-width:100%;height:auto"' in svg


def _extent(element: ElementTree.Element) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of a rect or a line; a text's anchor point."""
    if element.tag == f"{SVG}rect":
        x, y = float(element.get("x", 0)), float(element.get("y", 0))
        return x, y, x + float(element.get("width")), y + float(element.get("height"))
    if element.tag == f"{SVG}line":
        xs = float(element.get("x1")), float(element.get("x2"))
        ys = float(element.get("y1")), float(element.get("y2"))
        return min(xs), min(ys), max(xs), max(ys)
    x, y = float(element.get("x")), float(element.get("y"))
    return x, y, x, y


def test_the_timeline_sits_on_the_drawings_card_with_a_margin(seed_run):
    # JupyterLab shows SVG(run.timeline_svg()) as an <img>, which no theme variable
    # reaches: the timeline was a full-width white band, its stripes at its edges, a hole
    # in a dark notebook. Now it is the graph drawings' card (render.theme): opaque, rounded,
    # white in an image and the notebook's ground inline, nothing nearer its edge than
    # the margin.
    root = parse(seed_run.timeline_svg(width=720))
    _, _, width, height = (float(n) for n in root.get("viewBox").split())
    drawn = [element for element in root if element.tag != f"{SVG}title"]
    card, content = drawn[0], drawn[1]
    assert card.tag == f"{SVG}rect" and card.get("class") == CARD_CLASS
    assert (card.get("fill"), card.get("stroke"), card.get("rx")) == ("#ffffff", "none", "8")
    assert "var(--jp-layout-color0" in card.get("style")  # inline, the notebook's ground
    assert _extent(card) == (0, 0, width, height)
    assert content.get("transform") == f"translate({CARD_PAD},{CARD_PAD})"
    inner_width, inner_height = width - 2 * CARD_PAD, height - 2 * CARD_PAD
    shapes = [e for e in content.iter() if e.tag in {f"{SVG}rect", f"{SVG}line", f"{SVG}text"}]
    assert len(shapes) > 20
    for shape in shapes:
        left, top, right, bottom = _extent(shape)
        assert left >= 0 and right <= inner_width, (shape.get("id"), left, right)
        assert top >= 0 and bottom <= inner_height, (shape.get("id"), top, bottom)
    axis_labels = [text for text in root.iter(f"{SVG}text") if text.get("text-anchor") == "middle"]
    # a centred tick label of up to six characters still ends inside the margin
    assert max(float(text.get("x")) for text in axis_labels) + 3 * 7 <= inner_width
