"""PNG drawings: ``draw_png()`` and ``draw_mermaid_png()``, the two LangGraph tutorials
call (``display(Image(app.get_graph().draw_mermaid_png()))``), drawn by graphviz's
``dot`` with graphkit's styles; Mermaid's own options are taken and have no effect."""

import shutil
import struct
from typing import TypedDict

import pytest

from graphkit import END, START, StateGraph

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="graphviz's dot is missing")


class State(TypedDict):
    x: int


def _app():
    builder = StateGraph(State).add_node("a", lambda s: {}).add_node("b", lambda s: {})
    builder.add_edge(START, "a").add_conditional_edges("a", lambda s: "b", ["b", END])
    return builder.compile()


def _size(png: bytes) -> tuple[int, int]:
    width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
    return width, height


@needs_dot
def test_draw_mermaid_png_gives_the_bytes_of_a_png_of_the_graph():
    png = _app().get_graph().draw_mermaid_png()
    assert png.startswith(PNG_SIGNATURE)
    width, height = _size(png)
    assert height > width > 50  # three ranks of nodes, one or two wide


@needs_dot
def test_the_mermaid_options_of_langgraph_s_tutorials_are_taken():
    from langchain_core.runnables.graph import MermaidDrawMethod

    png = _app().get_graph().draw_mermaid_png(
        draw_method=MermaidDrawMethod.API, curve_style="linear", wrap_label_n_words=9,
        node_colors=None, max_retries=2, retry_delay=0.5,
    )  # fmt: skip
    assert png.startswith(PNG_SIGNATURE)


@needs_dot
def test_a_png_is_written_to_the_file_given_and_draw_png_then_returns_none(tmp_path):
    graph = _app().get_graph()
    mermaid = graph.draw_mermaid_png(output_file_path=str(tmp_path / "m.png"))
    assert (tmp_path / "m.png").read_bytes() == mermaid  # (LangGraph returns the bytes too)
    assert graph.draw_png(output_file_path=str(tmp_path / "p.png")) is None
    assert (tmp_path / "p.png").read_bytes().startswith(PNG_SIGNATURE)
    assert graph.draw_png().startswith(PNG_SIGNATURE)


@needs_dot
def test_padding_and_background_change_the_picture():
    graph = _app().get_graph()
    plain, padded = graph.draw_mermaid_png(padding=0), graph.draw_mermaid_png(padding=40)
    assert _size(padded)[0] > _size(plain)[0]
    assert graph.draw_mermaid_png(background_color="black") != graph.draw_mermaid_png()


def test_without_dot_the_error_says_what_to_install_and_what_works_instead(monkeypatch):
    import graphkit.render.png as png

    monkeypatch.setattr(png.shutil, "which", lambda name: None)
    with pytest.raises(FileNotFoundError, match=r"graphviz.*draw_svg\(\)"):
        _app().get_graph().draw_mermaid_png()


def test_labels_are_refused_as_not_done():
    with pytest.raises(NotImplementedError, match="labels"):
        _app().get_graph().draw_png(labels={"nodes": {"a": "A"}})


@needs_dot
def test_an_ipython_image_shows_it():
    from IPython.display import Image

    image = Image(_app().get_graph().draw_mermaid_png())
    assert image.format == "png" and image.data.startswith(PNG_SIGNATURE)
    assert image._repr_png_()  # what a notebook shows
