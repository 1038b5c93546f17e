"""render.highlight: a low-level node's ``static`` edge to END lights by what it wrote.

``ChannelWriteTupleEntry(mapper, static=[("__end__", None, "done"), ("x", None, "more")])``
declares that the node either goes on (writes ``x``, which wakes ``m``) or ends its
branch. END is no channel, so the edge carries none: the debugger lights it when the
node's writes woke no node along its drawn edges (docs/drawing.md, "Restyling")."""

from __future__ import annotations

from typing import Any

import pytest

from graphkit.channels import LastValue, Topic
from graphkit.pregel import ChannelWriteTupleEntry, NodeBuilder, Pregel
from graphkit.render import highlight, overlay_path
from graphkit.types import Send

from .test_highlight import classes

END_EDGE, ON_EDGE = "edge-n.__end__", "edge-n.m"


def _decide(result: str) -> list[tuple[str, Any]]:
    """What ``n`` writes for its input: a message to ``m``, a Send, an output, nothing."""
    return {
        "more": [("x", 1)],
        "send": [("__pregel_tasks", Send("m", 1))],
        "out": [("result", "done early")],
        "both": [("x", 1), ("result", "done early")],
    }.get(result, [])


def declared_end() -> Pregel:
    static = [("__end__", None, "done"), ("x", None, "more")]
    entry = ChannelWriteTupleEntry(_decide, static=static)
    nodes = {
        "n": NodeBuilder().subscribe_only("start").do(lambda v: v).write_to(entry),
        "m": NodeBuilder().subscribe_only("x").do(lambda v: v).write_to("result"),
    }
    channels = {"start": LastValue(object), "x": Topic(int), "result": LastValue(object)}
    return Pregel(nodes=nodes, channels=channels, input_channels="start", output_channels="result")


@pytest.mark.parametrize("phase", ["execute", "update"])
def test_a_node_that_wrote_a_message_to_a_node_did_not_take_its_declared_end(phase):
    app = declared_end()
    svg = app.get_graph().draw_svg(engine="python")
    marks = classes(highlight(svg, app.trace("more").step(0), phase))
    assert "wrote" in marks[ON_EDGE]
    assert END_EDGE not in marks  # (it lit as a StateGraph router's: no Send, so END)


@pytest.mark.parametrize("phase", ["execute", "update"])
@pytest.mark.parametrize("result", ["stop", "out"])
def test_a_node_that_woke_no_node_took_its_declared_end(phase, result):
    """Wrote nothing, or only an output channel: its branch of the run ends there."""
    app = declared_end()
    svg = app.get_graph().draw_svg(engine="python")
    marks = classes(highlight(svg, app.trace(result).step(0), phase))
    state = "pending" if phase == "execute" else "applied"
    assert marks[END_EDGE] == {"wrote", state}
    assert ON_EDGE not in marks


def test_writing_an_output_besides_a_message_does_not_end_the_branch():
    app = declared_end()
    svg = app.get_graph().draw_svg(engine="python")
    marks = classes(highlight(svg, app.trace("both").step(0), "update"))
    assert "applied" in marks[ON_EDGE] and END_EDGE not in marks


def test_a_send_to_a_node_did_not_take_the_declared_end():
    """Even one ``static`` does not declare (no edge carries it): the Send woke ``m``."""
    app = declared_end()
    svg = app.get_graph().draw_svg(engine="python")
    marks = classes(highlight(svg, app.trace("send").step(0), "update"))
    assert END_EDGE not in marks


def test_the_run_path_ends_at_the_declared_end_only_where_the_node_stopped():
    app = declared_end()
    svg = app.get_graph().draw_svg(engine="python")
    went_on = classes(overlay_path(svg, app.trace("more")))
    assert "traversed" in went_on[ON_EDGE] and END_EDGE not in went_on
    stopped = classes(overlay_path(svg, app.trace("stop")))
    assert "traversed" in stopped[END_EDGE] and ON_EDGE not in stopped


def test_the_declared_end_s_hover_text_names_no_channel():
    """END travels on the edge only as the debugger's marker: the tooltip names none."""
    svg = declared_end().get_graph().draw_svg(engine="python")
    assert "<title>n → __end__</title>" in svg
