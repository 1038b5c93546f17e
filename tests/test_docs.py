"""The documentation site: it builds with warnings as errors, and its examples run."""

from __future__ import annotations

import contextlib
import doctest
import importlib
import io
import linecache
import re
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
# Pages whose Python blocks run, in order, in one namespace; the guides' examples start
# from a graph the page takes as given (its `app`, `run`, `model`, ...), set up here.
SEED = """
import warnings
from examples.seed import build_graph
app = build_graph()
run = app.trace({"messages": [("user", "what's up today?")], "token_count": 1})
"""
AGENT = """
from langchain_core.messages import AIMessage
from graphkit.prebuilt import ScriptedChatModel

def add(a: int, b: int) -> int:
    \"\"\"Add two numbers.\"\"\"
    return a + b

def multiply(a: int, b: int) -> int:
    \"\"\"Multiply two numbers.\"\"\"
    return a * b

def answer(messages):
    last = messages[-1]
    if last.type != "human":
        return f"The tools said {last.content}."
    calls = [{"name": "add", "args": {"a": 1, "b": 2}, "id": "call-1"}]
    if "3 × 4" in last.content:
        calls.append({"name": "multiply", "args": {"a": 3, "b": 4}, "id": "call-2"})
    return AIMessage("", tool_calls=calls)

model = ScriptedChatModel(responses=[answer] * 50)
"""
PAGES = {
    "index.md": "",
    "getting-started.md": "",
    "concepts.md": "",
    "how-to.md": "",
    "control-flow.md": "",
    "pregel.md": "",
    "caching.md": "",
    "errors-and-timeouts.md": "",
    "functional.md": "",
    "store.md": "",
    "runtime.md": SEED + "input, config = {'token_count': 1}, None\n",
    "drawing.md": SEED,
    "inspecting.md": SEED,
    "course.md": SEED,
    "debugger.md": "from graphkit.inspect.examples import forecast_graph\napp = forecast_graph()\n",
    "persistence.md": "from graphkit import StateGraph, START\n"
    "from graphkit.prebuilt import MessagesState\n"
    "builder = StateGraph(MessagesState)\n"
    "builder.add_node('bot', lambda state: {'messages': [('ai', 'hi')]})\n"
    "builder.add_edge(START, 'bot')\n",
    "agents.md": AGENT,
    "langgraph.md": "",
    "teaching.md": "",
}


def blocks(page: str) -> list[tuple[str, str]]:
    """The fenced blocks of a page, as (language, code); a ```text block that follows a
    ```python block with nothing but blank lines between is its output (``output``)."""
    found, end, previous = [], None, None
    for match in FENCE.finditer((DOCS / page).read_text()):
        language = match.group(1)
        gap = match.string[end : match.start()] if end is not None else "x"
        if language == "text" and previous == "python" and not gap.strip():
            language = "output"
        found.append((language, match.group(2)))
        end, previous = match.end(), match.group(1)
    return found


@pytest.mark.parametrize("page", sorted(PAGES))
def test_page_runs_as_written(page, tmp_path, monkeypatch):
    """Each ```python block runs; a ```text block right after one is exactly its output;
    ```pycon blocks are doctests."""
    monkeypatch.chdir(tmp_path)  # examples may write files (threads.db, run.html)
    monkeypatch.syspath_prepend(str(ROOT))
    name = "docs_" + page.removesuffix(".md").replace("-", "_")
    module = type(sys)(name)
    monkeypatch.setitem(sys.modules, name, module)  # so schemas' annotations resolve
    namespace = module.__dict__
    exec(PAGES[page], namespace)
    printed = None
    for number, (language, code) in enumerate(blocks(page)):
        if language == "python":
            # Each block's source is kept where tracebacks and graphkit's notes read it,
            # as IPython keeps a cell's: a note that quotes the node's code shows here too.
            filename = f"{page}, block {number}"
            source = (len(code), None, code.splitlines(True), filename)
            monkeypatch.setitem(linecache.cache, filename, source)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, filename, "exec"), namespace)
            printed = out.getvalue()
            continue
        if language == "output":
            assert printed == code, f"{page}: the output block differs from what ran"
        elif language == "pycon":
            test = doctest.DocTestParser().get_doctest(code, namespace, page, page, 0)
            runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
            runner.run(test)
            assert runner.failures == 0, f"{page}: a pycon block's output differs"
        printed = None


def test_every_python_block_runs_or_is_marked():
    """Every page's ```python blocks are run above; other blocks are marked as output
    (text), shell (bash) or SQL. A block without a language fails."""
    for page in sorted(path.name for path in DOCS.glob("*.md")):
        languages = {language for language, _ in blocks(page)}
        if "python" in languages or "pycon" in languages:
            assert page in PAGES, f"{page} has Python blocks that no test runs"
        assert languages <= {"python", "pycon", "output", "text", "bash", "sql"}, (page, languages)


# The characters a code block's line shows at 1280 px, both sidebars beside the page
# (Material's column, 82 "x" in its monospace type; measured in headless Chromium on the
# built site, see docs/about-these-docs.md). Longer, the block scrolls sideways.
CODE_COLUMN = 82


def test_code_blocks_fit_the_column():
    """No line of a page's code (python, pycon, bash, sql) is longer than the column shows
    at 1280 px: about 80 blocks of 88-character code scrolled sideways by 3 to 200 px,
    and a reader scrolled to see a call's last argument. Outputs (```text) may scroll."""
    long = []
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text()
        for match in FENCE.finditer(text):
            if match.group(1) == "text":
                continue
            first = text.count("\n", 0, match.start(2)) + 1
            for number, line in enumerate(match.group(2).splitlines(), first):
                if len(line) > CODE_COLUMN:
                    long.append(f"{path.name}:{number}: {len(line)} characters")
    assert long == [], f"{len(long)} code lines longer than {CODE_COLUMN}: {long}"


def reference_entries() -> list[tuple[str, object]]:
    """Each ``::: name`` entry of the API reference, with the module or object it names."""
    reference = "".join(path.read_text() for path in (DOCS / "reference").glob("*.md"))
    entries = []
    for dotted in re.findall(r"^::: ([\w.]+)", reference, re.MULTILINE):
        module_name, _, attribute = dotted.rpartition(".")
        try:
            entries.append((dotted, importlib.import_module(dotted)))
        except ImportError:
            entries.append((dotted, getattr(importlib.import_module(module_name), attribute)))
    return entries


def reference_doctests() -> list[doctest.DocTest]:
    """The docstrings the API reference shows: each ``::: name`` entry's, its public
    members' (a module's ``__all__`` too) and, for a class, the public methods it
    inherits from graphkit's classes."""
    finder, found = doctest.DocTestFinder(), {}
    for dotted, obj in reference_entries():
        tests = finder.find(obj, dotted)
        for name in getattr(obj, "__all__", []) if isinstance(obj, type(sys)) else []:
            tests += finder.find(getattr(obj, name), f"{dotted}.{name}", module=False, globs={})
        for klass in getattr(obj, "__mro__", ())[1:]:
            if klass.__module__.startswith("graphkit"):
                for name, member in vars(klass).items():
                    tests += finder.find(member, f"{dotted}.{name}", module=False, globs={})
        for test in tests:
            public = all(not part.startswith("_") for part in test.name.split(".")[1:])
            if test.docstring and (public or test.name.endswith(".__init__")):
                found.setdefault(test.docstring, test)
    return list(found.values())


def test_the_api_references_examples_fit_the_column():
    """A docstring example the API reference shows keeps to the same column, counted from
    the docstring's indent: 26 blocks there scrolled sideways, a builder chained on one
    line or an error's message of 83 to 94 characters."""
    long = set()
    for test in reference_doctests():
        lines = test.docstring.expandtabs().splitlines()
        indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
        margin, example = min(indents, default=0), False
        for number, line in enumerate(lines):
            shown = line if number == 0 else line[margin:]
            example = shown.lstrip().startswith(">>>") or (example and bool(shown.strip()))
            if example and len(shown) > CODE_COLUMN:
                where = test.name
                if test.filename and test.lineno is not None:
                    path = Path(test.filename).relative_to(ROOT)
                    where = f"{path}:{test.lineno + number + 1} ({test.name})"
                long.add(f"{where}: {len(shown)} characters")
    assert not long, f"{len(long)} example lines longer than {CODE_COLUMN}: {sorted(long)}"


def test_compatibility_page_names_real_cases():
    """Each case the compatibility page cites is a case of the conformance suites."""
    sources = "".join(
        path.read_text()
        for folder in ("tests/conformance", "tests/prebuilt")
        for path in (ROOT / folder).glob("*.py")
    )
    cited = 0
    for line in (DOCS / "compatibility.md").read_text().splitlines():
        cells = line.split("|")
        if len(cells) < 4 or not re.search(r"\b[CSP] `", cells[-2]):
            continue
        for suite, names in re.findall(r"\b([CSP]) ((?:`[^`]+`(?:, )?)+)", cells[-2]):
            for case in re.findall(r"`([^`]+)`", names):
                stem = re.sub(r"-(memory|sqlite)$", "", case) if suite == "S" else case
                cited += 1
                assert stem in sources, f"{suite} {case}"
    assert cited > 100


def test_the_lessons_kernel_imports_this_checkout(site_env, monkeypatch):
    """The site's build runs each lesson in a kernel started in the notebook's folder; that
    kernel imports this checkout's graphkit, whatever PYTHONPATH the tests were started
    with (``PYTHONPATH=.`` named docs/lessons there, so a worktree's site tests silently
    ran the venv's editable install, another checkout)."""
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("PYTHONPATH", site_env["PYTHONPATH"])
    code = "import graphkit; print(graphkit.__file__)"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    lessons = {"metadata": {"path": str(DOCS / "lessons")}}  # as mkdocs-jupyter runs one
    NotebookClient(notebook, kernel_name="python3", resources=lessons).execute()
    imported = Path(notebook.cells[0].outputs[0]["text"].strip())
    assert imported.is_relative_to(ROOT / "graphkit"), f"the lessons' kernel ran {imported}"


@pytest.mark.docs
def test_site_builds_strictly(site):
    """``mkdocs build --strict``: a broken link, a missing page or a docstring the API
    reference cannot render fails the build. The lessons are executed while it builds."""
    for page in [
        "index.html",
        "getting-started/index.html",
        "lessons/02-supersteps/index.html",
        "reference/graphkit/index.html",
        "concepts/home.svg",
        "concepts/graph.svg",
        f"{WIDGET_JS}/embed.js",
    ]:
        assert (site / page).is_file(), page
    lesson = (site / "lessons/02-supersteps/index.html").read_text()
    assert "Traceback" not in lesson
    assert broken_anchors(site) == {}
    with_widgets = {
        page.parent.name
        for page in site.glob("lessons/*/index.html")
        if WIDGET_VIEW in page.read_text()
    }
    assert with_widgets == set(WIDGET_LESSONS), "open each lesson with widgets offline below"


NUMBER_WORDS = {
    f"{tens}-{unit}" if unit else tens: value + i
    for tens, value in (("twenty", 20), ("thirty", 30))
    for i, unit in enumerate(
        ("", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
    )
}


def test_every_page_counts_the_lessons_there_are():
    """README's quick start said "copy the 21 lessons" when there were 25 (it had said
    "nineteen" at 21 before): each count of the lessons in the README and the docs is the
    number of lessons in notebooks/."""
    lessons = len(list((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")))
    counted = re.compile(
        r"\b(\d+|(?:twenty|thirty)(?:-[a-z]+)?)(?: offline)? (?:lessons|notebooks)\b", re.I
    )
    wrong = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        if page.name == "changelog.md":  # (it says how many there were)
            continue
        text = re.sub(r"\s*\n\s*#?\s*", " ", page.read_text())  # (a count split over lines)
        for match in counted.finditer(text):
            word = match.group(1).lower()
            number = int(word) if word.isdigit() else NUMBER_WORDS.get(word)
            if number != lessons:
                wrong.append(f"{page.name}: {match.group(0)!r}")
    assert wrong == [], f"there are {lessons} lessons"


@pytest.mark.docs
def test_the_course_page_links_every_lesson(site):
    """The course page's table names every lesson, each a link to its page (it named them
    as code only: a reader found lessons 11 to 13 on the course page, no way to open them
    but the navigation)."""
    html = (site / "course/index.html").read_text()
    article = html[html.index("<article") : html.index("</article>")]  # not the navigation
    lessons = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert len(lessons) == 28, lessons  # twenty-seven lessons and the appendix
    unlinked = [stem for stem in lessons if f'href="../lessons/{stem}/"' not in article]
    assert unlinked == [], f"the course page links no page of {unlinked}"


@pytest.mark.docs
@pytest.mark.parametrize(
    ("page", "dotted"),
    [("widgets", "graphkit.widgets.DebugSession"), ("graphkit", "graphkit.CompiledGraph")],
)
def test_a_class_page_lists_every_public_member(site, page, dotted):
    """``DebugSession`` and ``CompiledGraph`` take many methods from mixins (time travel,
    recorded runs; batching, LangChain's Runnable surface); the reference page must still
    list each one (it listed none of them)."""
    module, name = dotted.rsplit(".", 1)
    cls = getattr(importlib.import_module(module), name)
    html = (site / f"reference/{page}/index.html").read_text()
    shown = set(re.findall(rf'id="[\w.]*\.{name}\.(\w+)"', html))
    # (the views' methods, attached at import, have their own page: reference/records.md)
    public = {
        member
        for member in dir(cls)
        if not member.startswith("_")
        and not getattr(getattr(cls, member), "__module__", "").startswith("graphkit.render")
    }
    assert public - shown == set()


# The lessons that show a saved Debugger; the site serves their widget manager itself.
WIDGET_LESSONS = [
    "08-human-in-the-loop",
    "10-bsp-beyond-agents",
    "17-debug-your-langgraph-app",
    "A1-debugger-tour",
]
WIDGET_VIEW = 'type="application/vnd.jupyter.widget-view+json"'
WIDGET_JS = "assets/jupyter-widgets"


@pytest.mark.docs
@pytest.mark.browser
@pytest.mark.parametrize("lesson", WIDGET_LESSONS)
def test_lesson_widgets_render_offline(site, site_url, lesson, tmp_path):
    """A lesson's saved Debugger renders from the site alone: headless Chromium gets no
    answer from anywhere but the local server, as on a course machine offline, and the
    debugger's graph, buttons and step label show (its PNG lands in ``tmp_path``). Right
    above it a note says it is a saved picture and how to run the lesson live."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    from scripts.read_in_lab import CHROMIUM, CHROMIUM_ARGS, LOCAL

    refused, answered, errors = [], [], []

    def local_only(route):
        if route.request.url.startswith(LOCAL):
            return route.continue_()
        refused.append((route.request.resource_type, route.request.url))
        return route.abort()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 1000})
            page.route("**/*", local_only)
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.on("response", lambda r: answered.append((r.status, r.request.resource_type)))
            page.goto(f"{site_url}/lessons/{lesson}/")
            debugger = page.locator(".gk-debugger")
            try:
                debugger.wait_for(state="visible", timeout=30_000)
            except PlaywrightTimeout:
                page.screenshot(path=str(tmp_path / f"{lesson}.png"), full_page=True)
                pytest.fail(
                    f"lessons/{lesson}: the saved Debugger did not render offline; refused "
                    f"{refused}, page errors {errors}, screenshot {tmp_path / lesson}.png"
                )
            assert debugger.locator(".gk-graph svg g.node").count() >= 3
            assert debugger.locator("button.gk-step-button").is_visible()
            assert debugger.locator(".gk-step").inner_text().strip() != ""
            note = page.locator(".gk-saved-widget")
            assert note.count() == debugger.count() == 1
            assert note.is_visible()
            said = " ".join(note.inner_text().split())
            assert "buttons do nothing here" in said and "jupyter lab" in said, said
            below = debugger.bounding_box()["y"] - sum(
                note.bounding_box()[k] for k in ("y", "height")
            )
            assert 0 <= below < 60, f"the note ends {below} px above the debugger"
            link = note.locator("a").get_attribute("href")
            assert link.endswith("course/#getting-the-lessons"), link
            page.add_style_tag(content=".md-header { visibility: hidden }")  # not over it
            debugger.screenshot(path=str(tmp_path / f"{lesson}.png"))  # waits for the fonts
        finally:
            browser.close()
    assert refused == [], f"lessons/{lesson} asked another host: {refused}"
    assert 'id="getting-the-lessons"' in (site / "course/index.html").read_text()
    assert [status for status, _ in answered if status >= 400] == []
    assert (200, "font") in answered  # the buttons' icon font, from the site too
    assert errors == []


@pytest.mark.docs
@pytest.mark.browser
def test_lesson_pages_ask_no_other_host(site, site_url):
    """Every lesson page, and the Home page, loads from the site alone: a request to any
    other host (a web font, a CDN's script or stylesheet) would fail on a course machine
    offline, so each one fails here. (Material asked Google Fonts for Roboto on every page
    until ``theme.font: false``.)"""
    from playwright.sync_api import sync_playwright

    from scripts.read_in_lab import CHROMIUM, CHROMIUM_ARGS, LOCAL

    pages = ["", *sorted(f"lessons/{p.parent.name}/" for p in site.glob("lessons/*/index.html"))]
    assert len(pages) == 29, pages  # Home, twenty-seven lessons and the appendix
    refused: dict[str, list[str]] = {}

    def local_only(path):
        def handle(route):
            if route.request.url.startswith(LOCAL):
                return route.continue_()
            refused.setdefault(path or "index", []).append(route.request.url)
            return route.abort()

        return handle

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for path in pages:
                page = browser.new_page()
                page.route("**/*", local_only(path))
                page.goto(f"{site_url}/{path}", wait_until="networkidle")
                page.close()
        finally:
            browser.close()
    assert refused == {}, f"pages that asked another host: {refused}"


def broken_anchors(site: Path) -> dict[str, list[str]]:
    """Each built page's links to its own anchors (``href="#..."``) that name no element of
    the page: mkdocs checks the Markdown pages' links, not the lessons' table of contents."""
    broken = {}
    for page in sorted(site.rglob("*.html")):
        html = page.read_text()
        ids = set(re.findall(r'\bid="([^"]+)"', html))
        missing = sorted({a for a in re.findall(r'href="#([^"]+)"', html) if a not in ids})
        if missing:
            broken[page.relative_to(site).as_posix()] = missing
    return broken


def test_the_runtime_walk_names_each_core_file_once():
    """docs/runtime.md's walk through the code names every file of the runtime (graph,
    channels, pregel, streaming) exactly once, so a new file cannot go unexplained."""
    page = (DOCS / "runtime.md").read_text()
    walk = page[page.index("## Reading the code") : page.index("The layers go one way")]
    files = [
        path.relative_to(ROOT).as_posix()
        for folder in ("graph", "channels", "pregel", "streaming")
        for path in sorted((ROOT / "graphkit" / folder).glob("*.py"))
        if path.name != "__init__.py"
    ]
    counts = {name: walk.count(f"`{name}`") for name in files}
    assert {name: n for name, n in counts.items() if n != 1} == {}
    named = set(re.findall(r"`(graphkit/[\w/]+\.py)`", walk))
    assert named <= {
        *files,
        *(p.relative_to(ROOT).as_posix() for p in ROOT.glob("graphkit/*/*.py")),
    }


def test_the_api_reference_names_every_export():
    """Each name of ``graphkit.__all__`` has an entry in the API reference (``::: ...``) or
    is named on its page, so a name a tutorial imports can be looked up."""
    import graphkit

    reference = "".join(path.read_text() for path in (DOCS / "reference").glob("*.md"))
    entries = {name.rsplit(".", 1)[-1] for name in re.findall(r"^::: ([\w.]+)", reference, re.M)}
    missing = [
        name for name in graphkit.__all__ if name not in entries and f"`{name}`" not in reference
    ]
    assert missing == []


def test_the_api_reference_examples_run_as_pasted():
    """A docstring example in the API reference runs in a fresh session that has only
    ``graphkit``'s exports and the name the entry documents: the doctests run in their
    module's globals, where a name the example never imports (``RemoveMessage``) is found
    anyway. A module's entry (the course's checks) may use the module's own names."""
    import graphkit

    exports = {name: getattr(graphkit, name) for name in graphkit.__all__ if name != "MessageGraph"}
    failed = {}
    for dotted, obj in reference_entries():
        is_module = isinstance(obj, type(sys))
        for test in doctest.DocTestFinder().find(obj, dotted, globs={}):
            if is_module and test.name != dotted:
                continue  # a module's functions have entries of their own, or none
            test.globs = {**exports, dotted.rsplit(".", 1)[-1]: obj}
            if is_module:
                test.globs.update({k: v for k, v in vars(obj).items() if not k.startswith("_")})
            elif test.name != dotted:  # a method's example: its class is named too
                test.globs[test.name.split(".")[-2]] = obj
            out = io.StringIO()
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                runner.run(test, out=out.write)
            if runner.failures:
                failed[test.name] = sorted(
                    set(re.findall(r"NameError: name '(\w+)'", out.getvalue()))
                )
    assert failed == {}
