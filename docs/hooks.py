"""MkDocs hook: the drawings on the Home, Concepts and Drawing pages, made at build time.

Nothing generated is committed: every build runs the first Python block of the Home and
Concepts pages, so each drawing is of the graph the reader sees built just above it, and
the seed example (examples/seed.py) for the Drawing page (whose examples take the seed
graph as given) and, its nodes made to sleep, for the timing chart.

The lessons' saved widgets render with the site's own copy of the Jupyter widget manager
(scripts/widget_js.py fetches it from the npm registry at a pinned version), not a CDN's.
A lesson page has no right-hand sidebar: its contents sit in the navigation, its outputs
get the room (docs/about-these-docs.md says why). A predict question's saved output, which
holds its answer, is folded until the reader opens it.
"""

import contextlib
import importlib.util
import io
import re
import sys
import warnings
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
FIRST_PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _seed_module():
    spec = importlib.util.spec_from_file_location(
        "graphkit_docs_seed", ROOT / "examples" / "seed.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its schema's annotations are resolved through it
    spec.loader.exec_module(module)
    return module


def page_namespace(page: str) -> dict:
    """What the first ```python block of ``docs/<page>`` defines (its ``app``, ``run``),
    run as the page's test runs it; what it prints is dropped."""
    code = FIRST_PYTHON_BLOCK.search((ROOT / "docs" / page).read_text()).group(1)
    name = "graphkit_docs_" + page.removesuffix(".md").replace("-", "_")
    module = type(sys)(name)
    sys.modules[name] = module  # so the block's schema's annotations resolve
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, f"docs/{page}", "exec"), module.__dict__)
    return module.__dict__


def drawings() -> dict[str, str]:
    """Every drawing of the Home and Concepts pages, by file name."""
    from graphkit.render.highlight import highlight

    home = page_namespace("index.md")["app"]
    concepts = page_namespace("concepts.md")
    svg = concepts["app"].get_graph().draw_svg(engine="python")
    step = concepts["run"].step(2)  # get_weather and get_news, side by side
    out = {"home.svg": home.get_graph().draw_svg(engine="python"), "graph.svg": svg}
    for phase in ("plan", "execute", "update"):
        out[f"step2-{phase}.svg"] = highlight(svg, step, phase)
    out["timeline.svg"] = _slow_seed_run().timeline_svg()
    return out


# How long each of the seed's nodes sleeps in the timing chart: news is the slow sibling.
SLEEPS = {"planner": 0.01, "weather": 0.02, "news": 0.05, "summarize": 0.01}


def _slow_seed_run():
    """The seed graph's run, each node sleeping as ``SLEEPS`` says first: the seed's own
    nodes return at once, and a chart of microseconds of overhead shows no slow sibling."""
    import time

    from graphkit import END, START, StateGraph

    seed = _seed_module()

    def sleeping(name, node):
        def run(state):
            time.sleep(SLEEPS[name])
            return node(state)

        return run

    builder = StateGraph(seed.State)
    for name, node in [
        ("planner", seed.planner),
        ("weather", seed.call_weather),
        ("news", seed.call_news),
        ("summarize", seed.summarize),
    ]:
        builder.add_node(name, sleeping(name, node))
    builder.add_edge(START, "planner")
    builder.add_conditional_edges("planner", seed.route, ["weather", "news"])
    builder.add_edge("weather", "summarize")
    builder.add_edge("news", "summarize")
    builder.add_edge("summarize", END)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nodes named like state keys, as in the seed
        app = builder.compile()
    return app.trace({"messages": [("user", "what's up today?")], "token_count": 1})


def seed_drawings() -> dict[str, str]:
    """The Drawing page's examples: the seed graph restyled by ``render.highlight`` and
    ``render.overlay_path``, as that page's first block calls them."""
    from graphkit import render

    seed = _seed_module()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app = seed.build_graph()
    run = app.trace({"messages": [("user", "what's up today?")], "token_count": 1})
    svg = app.get_graph().draw_svg(engine="python")
    return {
        "seed-plan.svg": render.highlight(svg, run.step(2), "plan"),
        "seed-path.svg": render.overlay_path(svg, run),
    }


def debugger_export() -> str:
    """A debugging session of the example forecast graph, run to the end and exported as
    the debugger's standalone HTML page (what ``Debugger.export_html`` writes)."""
    from graphkit.inspect.examples import forecast_graph
    from graphkit.widgets import DebugSession

    session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    session.run()
    session.select("summarize")
    return session.to_html()


def _widget_js_module():
    spec = importlib.util.spec_from_file_location(
        "graphkit_docs_widget_js", ROOT / "scripts" / "widget_js.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def widget_js_folder(folder: Path | None = None) -> Path:
    """The widget manager's folder (``folder``, by default the one in build/), fetched
    first when missing. A fetch that fails stops the build with its reason and fix, as
    mkdocs says a plugin's error, not in a traceback of mkdocs' own code."""
    module = _widget_js_module()
    try:
        return module.widget_js(folder or module.FOLDER)
    except RuntimeError as error:
        raise PluginError(f"the lessons' widget manager (docs/hooks.py): {error}") from error


# Where the site serves the widget manager, and the CDN address mkdocs-jupyter's lesson
# pages load it from (html-manager's AMD build; the older package for pre-2 widget state).
WIDGET_JS = "assets/jupyter-widgets"
CDN_WIDGET_JS = re.compile(
    r"https?://[^'\"\s]+/(?:@jupyter-widgets/html-manager|@jupyter-js-widgets)@[^'\"\s]*"
    r"/dist/embed(?:-amd)?\.js"
)
WIDGET_VIEW = 'type="application/vnd.jupyter.widget-view+json"'
# Each saved widget's view: the widget manager draws the widget just before this tag.
WIDGET_VIEW_TAG = f"<script {WIDGET_VIEW}>"
# Said above each saved widget of a lesson page, and only on the site: the page has no
# kernel, so the widget is a picture whose buttons do nothing.
SAVED_WIDGET_NOTE = (
    '<div class="admonition info gk-saved-widget">'
    '<p class="admonition-title">A saved picture: its buttons do nothing here</p>'
    "<p>This widget was recorded when the site was built; stepping it needs a running "
    "Python kernel. To use it, run the lesson live: <code>pip install "
    '"graphkit[course]"</code>, then <code>graphkit lessons ~/graphkit-course</code> and '
    '<code>jupyter lab ~/graphkit-course</code> (<a href="{course}">getting the lessons</a>).'
    "</p></div>"
)


# A predict question of a lesson was run with its stub guess when the site was built, so its
# saved output is the truth ("forecast holds 'sunny (saw 120 tokens)'"), and so are the
# outputs of the cells after it up to the prose that explains the answer (which the lesson
# folds itself). On the site each of those outputs is folded. A question is a cell calling
# ``.predict(`` (a DebugSession's or a lesson's own), or the cells after a guess's stub
# (``# your guess``) that run the graph and print the truth beside it, as lessons 12 and 13
# ask theirs (an exercise's stub says ``# your answer``: its check's verdict stays shown).
# The fold sits in a row of its own with an empty prompt, so it lines up with the code
# above it (and, where the prompts go above the cells, takes the whole width).
REVEAL_OPEN = (
    '<div class="jp-OutputArea-child gk-folded-output">'
    '<div class="jp-OutputPrompt jp-OutputArea-prompt"></div>'
    '<details class="question"><summary>Reveal (run your guess first)</summary>'
)
REVEAL_CLOSE = "</details></div>"
OUTPUT_WRAPPER = '<div class="jp-Cell-outputWrapper">'
# The <div> tags of a page, past scripts, styles and comments (a widget's saved state, a
# card's CSS), whose text may hold what looks like a tag.
DIV_TAG = re.compile(
    r"<script\b.*?</script>|<style\b.*?</style>|<!--.*?-->|<(/?)div\b[^>]*>",
    re.DOTALL | re.IGNORECASE,
)
LESSON = re.compile(r"\d\d-")  # a numbered lesson; the appendix's predict cells are a demo


PREDICT_CALL = ".predict("
GUESS_STUB = "# your guess"


def revealing_cells(notebook: str) -> list[str]:
    """The ids of a lesson's cells whose outputs answer a predict question: each code cell
    calling ``.predict(`` and the code cells after it, and the code cells after a guess's
    stub (a cell saying ``# your guess``), each up to the next Markdown cell."""
    import json

    ids, revealing = [], False
    for cell in json.loads(Path(notebook).read_text())["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            revealing = False
        elif PREDICT_CALL in source:
            revealing = True
        if revealing:
            ids.append(cell["id"])
        if cell["cell_type"] == "code" and GUESS_STUB in source:
            revealing = True  # the stub itself holds the learner's guess, not the answer
    return ids


def _div_end(html: str, start: int) -> int:
    """Where the ``<div>`` opened at ``start`` is closed: the index of its ``</div>``."""
    depth = 0
    for match in DIV_TAG.finditer(html, start):
        if match.group(1) is None:
            continue  # a script, a style or a comment
        depth += -1 if match.group(1) else 1
        if depth == 0:
            return match.start()
    raise PluginError(f"docs/hooks.py: the <div> at {start} of a lesson page is never closed")


def fold_reveals(html: str, cell_ids: list[str], where: str) -> str:
    """``html`` with the output of each cell of ``cell_ids`` folded in a ``<details>``
    (``REVEAL_OPEN``); a cell with no output (the lessons not executed) is left alone."""
    for cell_id in cell_ids:
        anchor = html.find(f'id="cell-id={cell_id}"')
        if anchor < 0:
            raise PluginError(
                f'{where}: no element id="cell-id={cell_id}" on the page, so the output of '
                "that predict question cannot be folded: mkdocs-jupyter's template changed? "
                "Update fold_reveals in docs/hooks.py to how the page marks a cell."
            )
        cell = html.rfind("<div", 0, anchor)
        wrapper = html.find(OUTPUT_WRAPPER, cell, _div_end(html, cell))
        if wrapper < 0:
            continue
        end = _div_end(html, wrapper) + len("</div>")
        html = html[:wrapper] + REVEAL_OPEN + html[wrapper:end] + REVEAL_CLOSE + html[end:]
    return html


def on_files(files: Files, config) -> Files:
    widget_js = widget_js_folder()  # (first: a fetch that fails stops the build at once)
    for name, content in drawings().items():
        files.append(File.generated(config, f"concepts/{name}", content=content))
    for name, content in seed_drawings().items():
        files.append(File.generated(config, f"images/drawing/{name}", content=content))
    files.append(File.generated(config, "debugger/export.html", content=debugger_export()))
    for path in sorted(widget_js.iterdir()):
        files.append(File.generated(config, f"{WIDGET_JS}/{path.name}", abs_src_path=str(path)))
    return files


TABLE = re.compile(r"<table\b.*?</table>", re.DOTALL)
TABLE_CODE = re.compile(r"<code>([^<]{25,})</code>")  # a long code span of plain text
CODE_BREAK = re.compile(r"(/|::|_|\.)(?=\w)")  # after a /, a test id's ::, a _ or a .


def break_long_table_code(html: str) -> str:
    """``html`` with a line-break opportunity (``<wbr>``) after each ``/``, ``::``, ``_``
    and ``.`` of a table's long code spans (25 characters and more). A code span in a
    table never breaks inside a word (docs/stylesheets/extra.css), so a test id of 120
    characters (``tests/conformance/test_parity_node_defaults.py::test_graphkit_...``) made
    its column 890 px at the least, and the compatibility page's tables scrolled sideways
    for 24,000 px; a short name (``handle_tool_errors``) still stays whole."""

    def in_table(table: re.Match) -> str:
        return TABLE_CODE.sub(
            lambda code: "<code>" + CODE_BREAK.sub(r"\1<wbr>", code.group(1)) + "</code>",
            table.group(0),
        )

    return TABLE.sub(in_table, html)


def on_page_content(html: str, page, config, files: Files) -> str:
    """A long code span in a table can break after its ``/``, ``::``, ``_`` and ``.``
    (``break_long_table_code``).

    A lesson with saved widgets loads the widget manager from the site: the CDN's copy
    (any version, AMD, needing RequireJS that the page lacks) rendered nothing, offline or
    not. The standalone build needs no loader and finds its fonts beside itself.

    Each saved widget gets a note above it (``SAVED_WIDGET_NOTE``): a learner who pressed
    Step on the page and saw nothing happen was told why only on "About these docs".

    A predict question's saved output, judged against the stub guess, showed the answer
    right above the folded explanation: it is folded too (``fold_reveals``)."""
    html = break_long_table_code(html)
    if not page.file.src_uri.endswith(".ipynb"):
        return html
    if LESSON.match(Path(page.file.src_uri).name):
        cells = revealing_cells(page.file.abs_src_path)
        html = fold_reveals(html, cells, page.file.src_uri)
    course = files.get_file_from_path("course.md").url_relative_to(page.file)
    note = SAVED_WIDGET_NOTE.format(course=f"{course}#getting-the-lessons")
    html = html.replace(WIDGET_VIEW_TAG, note + WIDGET_VIEW_TAG)
    local = files.get_file_from_path(f"{WIDGET_JS}/embed.js").url_relative_to(page.file)
    html, replaced = CDN_WIDGET_JS.subn(local, html)
    if WIDGET_VIEW in html and not replaced:
        raise PluginError(
            f"{page.file.src_uri}: the lesson has saved widgets but no widget-manager script "
            "address to point at the site's own copy: mkdocs-jupyter's template changed? "
            "Update CDN_WIDGET_JS in docs/hooks.py to what the page loads."
        )
    return html


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


HEADING_ID = re.compile(r"<h([1-6])\b[^>]*\bid=\"([^\"]+)\"")


def on_page_context(context, page, config, nav):
    """A lesson's table of contents drops code spans from its headings ("2 · : update and
    route", for "2 · `Command`: update and route") and from their anchors (#2-update-and-route,
    where the page's heading is #2-command-update-and-route): put the headings' own text
    and ids back, so each entry reads as its heading and scrolls to it.

    A lesson's contents move into the navigation on the left (``on_post_page``) and its
    right-hand sidebar is hidden, as Material's ``hide: [toc]`` does: the outputs get that
    room."""
    if not page.file.src_uri.endswith(".ipynb"):
        return context
    page.meta = {**(page.meta or {}), "hide": [*(page.meta or {}).get("hide", []), "toc"]}
    if page.toc is None:
        return context
    entries = _flatten(page.toc)
    headings = _notebook_headings(page.file.abs_src_path)
    if len(headings) == len(entries):
        for entry, heading in zip(entries, headings, strict=True):
            entry.title = heading
    ids = [(int(level), id) for level, id in HEADING_ID.findall(page.content or "")]
    if [level for level, _ in ids] == [entry.level for entry in entries]:
        for entry, (_, id) in zip(entries, ids, strict=True):
            entry.id = id
    return context


PRIMARY_NAV = 'class="md-nav md-nav--primary"'


def on_post_page(output: str, page, config) -> str:
    """A lesson's table of contents sits in the navigation on the left, as Material's
    ``toc.integrate`` feature puts every page's, and its right-hand sidebar is hidden
    (``on_page_context``): at 1280 px the right sidebar left the outputs 632 px, and wide
    tables and the debugger were cut at that edge. Other pages keep their sidebar."""
    if not page.file.src_uri.endswith(".ipynb"):
        return output
    if output.count(PRIMARY_NAV) != 1:
        raise PluginError(
            f"{page.file.src_uri}: the page has no single primary navigation "
            f"({PRIMARY_NAV}) to put the lesson's contents in: Material's nav template "
            "changed? Update PRIMARY_NAV in docs/hooks.py."
        )
    return output.replace(PRIMARY_NAV, PRIMARY_NAV[:-1] + ' md-nav--integrated"')
