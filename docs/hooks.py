"""MkDocs hook: the drawings on the Concepts page, made by graphkit at build time.

Nothing generated is committed: every build runs the seed example (examples/seed.py) and
a graph with a waiting edge, and adds their SVGs to the site as ``concepts/*.svg``.
"""

import importlib.util
import operator
import sys
import warnings
from pathlib import Path
from typing import Annotated, TypedDict

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]


def _seed_module():
    spec = importlib.util.spec_from_file_location(
        "graphkit_docs_seed", ROOT / "examples" / "seed.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its schema's annotations are resolved through it
    spec.loader.exec_module(module)
    return module


def _waiting_edge_graph():
    """planner -> (weather || news) -> summarize, where summarize waits for both."""
    from graphkit import END, START, StateGraph

    class State(TypedDict):
        log: Annotated[list, operator.add]

    builder = StateGraph(State)
    for name in ("planner", "weather", "news", "summarize"):
        builder.add_node(name, lambda state, name=name: {"log": [name]})
    builder.add_edge(START, "planner")
    builder.add_edge("planner", "weather")
    builder.add_edge("planner", "news")
    builder.add_edge(["weather", "news"], "summarize")
    builder.add_edge("summarize", END)
    return builder.compile()


def drawings() -> dict[str, str]:
    """Every drawing of the Concepts page, by file name."""
    from graphkit.render.highlight import highlight

    seed = _seed_module()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = seed.build_graph()
    svg = app.get_graph().draw_svg(engine="python")
    run = app.trace({"messages": [("user", "what's up today?")], "token_count": 1})
    step = run.step(2)  # weather and news, side by side
    out = {"seed.svg": svg, "timeline.svg": run.timeline_svg()}
    for phase in ("plan", "execute", "update"):
        out[f"step2-{phase}.svg"] = highlight(svg, step, phase)
    out["waiting-edge.svg"] = _waiting_edge_graph().get_graph().draw_svg(engine="python")
    return out


def debugger_export() -> str:
    """A debugging session of the example forecast graph, run to the end and exported as
    the debugger's standalone HTML page (what ``Debugger.export_html`` writes)."""
    from graphkit.inspect.examples import forecast_graph
    from graphkit.widgets import DebugSession

    session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    session.run()
    session.select("summarize")
    return session.to_html()


def on_files(files: Files, config) -> Files:
    for name, content in drawings().items():
        files.append(File.generated(config, f"concepts/{name}", content=content))
    files.append(File.generated(config, "debugger/export.html", content=debugger_export()))
    return files


def _notebook_headings(path: str) -> list[str]:
    """The Markdown headings of a notebook, in order, code spans kept as plain text."""
    import json

    headings = []
    for cell in json.loads(Path(path).read_text())["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        fenced = False
        for line in "".join(cell["source"]).splitlines():
            fenced ^= line.lstrip().startswith("```")
            if not fenced and line.startswith("#"):
                headings.append(line.lstrip("#").strip().replace("`", ""))
    return headings


def _flatten(items) -> list:
    out = []
    for item in items:
        out.append(item)
        out.extend(_flatten(item.children))
    return out


def on_page_context(context, page, config, nav):
    """A lesson's table of contents drops code spans from its headings ("2 · : update and
    route", for "2 · `Command`: update and route"); put the headings' own text back."""
    if not page.file.src_uri.endswith(".ipynb") or page.toc is None:
        return context
    entries = _flatten(page.toc)
    headings = _notebook_headings(page.file.abs_src_path)
    if len(headings) == len(entries):
        for entry, heading in zip(entries, headings, strict=True):
            entry.title = heading
    return context
