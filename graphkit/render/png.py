"""PNG drawings of a graph, for the lines LangGraph's tutorials use:
``display(Image(app.get_graph().draw_mermaid_png()))`` and ``draw_png()``.

LangGraph draws the first by sending Mermaid text to a web service (mermaid.ink), and
the second with pygraphviz. graphkit draws both with graphviz's ``dot`` from the same
DOT text as its SVG (so the same colours and layout), offline. The Mermaid-only options
(``curve_style``, ``node_colors``, ``wrap_label_n_words``, ``draw_method``, retries,
``base_url``, ``proxies``, ``frontmatter_config``) are taken, so that tutorial code runs
as written, and change nothing.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphkit.render.dot import DOT_TIMEOUT_SECONDS, to_dot

if TYPE_CHECKING:
    from graphkit.render.model import DrawableGraph

__all__ = ["draw_mermaid_png", "draw_png"]

_MERMAID_ONLY = frozenset(
    {
        "curve_style", "node_colors", "wrap_label_n_words", "draw_method", "max_retries",
        "retry_delay", "frontmatter_config", "base_url", "proxies",
    }
)  # fmt: skip


def draw_mermaid_png(
    graph: DrawableGraph,
    *,
    output_file_path: str | None = None,
    background_color: str | None = "white",
    padding: int = 10,
    **mermaid_options: Any,
) -> bytes:
    """The graph as PNG bytes (also written to ``output_file_path`` if given), with
    ``padding`` pixels around it on ``background_color``."""
    unknown = sorted(mermaid_options.keys() - _MERMAID_ONLY)
    if unknown:
        raise TypeError(f"draw_mermaid_png() got an unexpected keyword argument {unknown[0]!r}")
    png = _render(graph, background_color or "transparent", padding)
    if output_file_path is not None:
        Path(output_file_path).write_bytes(png)
    return png


def draw_png(
    graph: DrawableGraph,
    output_file_path: str | None = None,
    fontname: str | None = None,
    labels: Any = None,
) -> bytes | None:
    """The graph as PNG bytes; with ``output_file_path``, written there instead (and
    None returned, as LangGraph's does)."""
    if labels is not None:
        raise NotImplementedError(
            "draw_png(labels=...) is not supported by graphkit yet: nodes and edges are drawn "
            "with their own names."
        )
    png = _render(graph, "white", 10, fontname)
    if output_file_path is None:
        return png
    Path(output_file_path).write_bytes(png)
    return None


def _render(graph: DrawableGraph, background: str, padding: int, font: str | None = None) -> bytes:
    executable = shutil.which("dot")
    if executable is None:
        raise FileNotFoundError(
            "Drawing a PNG needs graphviz's `dot`, which is not on PATH. Install graphviz "
            "(e.g. apt-get install graphviz), or draw without it: the graph itself shows in a "
            "notebook, and get_graph().draw_svg() or draw_mermaid() give SVG or Mermaid text."
        )
    options = [f"-Gbgcolor={background}", f"-Gpad={max(padding, 0) / 72:.3f}"]
    if font is not None:
        options += [f"-Nfontname={font}", f"-Efontname={font}"]
    completed = subprocess.run(
        [executable, "-Tpng", *options],
        input=to_dot(graph).encode("utf-8"),
        capture_output=True,
        timeout=DOT_TIMEOUT_SECONDS,
        check=True,
    )
    return completed.stdout
