"""Each feature that needs an extra says which one when its package is missing, and the
extras in pyproject.toml list exactly what graphkit imports.

A missing package is simulated with ``sys.modules[name] = None``, which makes
``import name`` raise ``ImportError`` as if it were not installed.
"""

from __future__ import annotations

import ast
import importlib
import re
import sys
import tomllib
from pathlib import Path

import pytest

from graphkit.extras import require
from graphkit.inspect.examples import counter_run, forecast_graph, paused_thread

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = 'pip install "graphkit[notebook]"'
TOP_LEVEL_IMPORTERS = (
    "graphkit.prebuilt",
    "graphkit.widgets.debugger",
    "graphkit.widgets.predict_panel",
)


def hide(monkeypatch, *modules: str) -> None:
    """Make ``modules`` unimportable, and forget the graphkit modules that import one of them
    at their top, so that they are imported again (monkeypatch puts all back afterwards)."""
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)
    for name in [m for m in sys.modules if m.startswith(TOP_LEVEL_IMPORTERS)]:
        monkeypatch.delitem(sys.modules, name)


def test_the_error_names_the_feature_the_extra_and_the_package(monkeypatch):
    hide(monkeypatch, "langchain_core.messages")
    with pytest.raises(ImportError) as caught:
        require("langchain_core.messages", extra="agents", feature="create_react_agent")
    assert str(caught.value) == (
        "langchain_core is needed for create_react_agent, and plain graphkit does not install "
        'it: pip install "graphkit[agents]" (or pip install langchain-core).'
    )
    assert caught.value.name == "langchain_core.messages"


def test_a_present_module_is_returned():
    assert require("json", extra="notebook", feature="x") is sys.modules["json"]


def test_run_to_frame_without_pandas(monkeypatch):
    run = counter_run()
    hide(monkeypatch, "pandas")
    with pytest.raises(ImportError, match=re.escape("run.to_frame(), and plain graphkit")):
        run.to_frame("changes")
    with pytest.raises(ImportError, match=re.escape(NOTEBOOK)):
        run.steps[1].to_frame()
    with pytest.raises(ImportError, match=re.escape(NOTEBOOK)):  # (its look needs pandas too)
        run.to_frame("changes", readable=True)


def test_thread_tables_without_pandas(monkeypatch):
    from graphkit.inspect import checkpoints_frame, pending_writes_frame

    app, config = paused_thread()
    hide(monkeypatch, "pandas")
    for frame in (checkpoints_frame, pending_writes_frame):
        with pytest.raises(ImportError, match=re.escape(f"{frame.__name__}(), and plain")):
            frame(app, config)


def test_the_debugger_without_ipywidgets(monkeypatch):
    hide(monkeypatch, "ipywidgets")
    with pytest.raises(ImportError, match=re.escape("the Debugger, and plain graphkit does not")):
        from graphkit.widgets import Debugger  # noqa: F401


def test_the_debugger_tables_without_pandas(monkeypatch):
    from graphkit.widgets import DebugSession

    session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    session.run()
    hide(monkeypatch, "pandas")
    view = session.view()
    assert view.status_text.startswith("done")  # the rest of the view needs no pandas
    with pytest.raises(ImportError, match=re.escape("the debugger's tables, and plain")):
        view.tables["tasks"]


@pytest.mark.parametrize("module", ["nbformat", "nbclient", "ipykernel"])
def test_running_the_lessons_without_the_notebook_tools(monkeypatch, tmp_path, module):
    from graphkit.course.lessons import run_lessons

    hide(monkeypatch, module)
    with pytest.raises(ImportError, match=re.escape("graphkit lessons --run), and plain")):
        run_lessons(tmp_path)


def test_copying_the_lessons_needs_no_extra(monkeypatch, tmp_path):
    from graphkit.course.lessons import copy_lessons, lesson_paths

    hide(monkeypatch, "nbformat", "nbclient", "ipykernel", "pandas", "ipywidgets")
    assert len(copy_lessons(tmp_path)) == len(lesson_paths())


AGENTS = 'plain graphkit does not install it: pip install "graphkit[agents]" (or pip install'


def test_the_agents_without_langchain_core(monkeypatch):
    import graphkit

    hide(monkeypatch, "langchain_core")
    with pytest.raises(ImportError) as caught:
        importlib.import_module("graphkit.prebuilt")
    assert str(caught.value) == (
        "langchain_core is needed for graphkit.prebuilt, and plain graphkit does not install "
        'it: pip install "graphkit[agents]" (or pip install langchain-core).'
    )
    with pytest.raises(ImportError, match=re.escape(AGENTS)):
        graphkit.create_react_agent  # noqa: B018


def test_the_lesson_06_checks_without_langchain_core(monkeypatch):
    from graphkit.course import lesson06

    hide(monkeypatch, "langchain_core", "langchain_core.messages")
    with pytest.raises(ImportError, match=re.escape("lesson 06's checks, and " + AGENTS)):
        lesson06.history(4)
    with pytest.raises(ImportError, match=re.escape("lesson 06's checks, and " + AGENTS)):
        lesson06.summary_graph(lambda state: "summarize_conversation")


# --- the extras list what graphkit imports, and nothing else ------------------------


def required_modules() -> dict[str, set[str]]:
    """Each extra named by a ``require(...)`` call in graphkit, with the top-level modules
    asked for."""
    found: dict[str, set[str]] = {}
    for path in (ROOT / "graphkit").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "require":
                extra = next(k.value.value for k in node.keywords if k.arg == "extra")
                found.setdefault(extra, set()).add(node.args[0].value.partition(".")[0])
    return found


def listed(extra: str) -> set[str]:
    """The import names of the packages an extra lists (other graphkit extras left out)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = (re.split(r"[\s\[<>=!~;]", spec)[0] for spec in project["optional-dependencies"][extra])
    return {name.replace("-", "_") for name in names if name != "graphkit"}


def test_each_extra_lists_exactly_the_modules_graphkit_requires():
    required = required_modules()
    assert set(required) == {"notebook", "agents", "course"}
    assert required["course"] == {"langgraph"}  # lesson 17's LangGraph app and its checks
    for extra, modules in required.items():
        assert listed(extra) - {"jupyterlab"} == modules, extra


def test_the_course_is_notebook_and_agents_plus_jupyterlab_and_langgraph():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["optional-dependencies"]["course"][0] == "graphkit[notebook,agents]"
    # JupyterLab, where learners open the lessons; LangGraph, whose app lesson 17 debugs
    assert listed("course") == {"jupyterlab", "langgraph"}
    assert "langgraph>=1.2,<1.3" in project["optional-dependencies"]["course"]
    assert project["dependencies"] == []


def test_the_version_is_written_once():
    import importlib.metadata

    import graphkit

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["dynamic"] == ["version"]
    assert "version" not in project["project"]
    assert graphkit.__version__ == importlib.metadata.version("graphkit")


def test_messages_stream_mode_without_langchain_core(monkeypatch):
    from graphkit.inspect.examples import forecast_graph as graph

    app = graph()
    hide(monkeypatch, "langchain_core")
    with pytest.raises(ImportError, match=re.escape('stream_mode="messages", and plain graphkit')):
        list(app.stream({"topic": "t", "tokens": 0}, stream_mode="messages"))
