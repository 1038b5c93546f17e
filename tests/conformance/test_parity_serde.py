"""State that is not plain JSON checkpoints and restores as LangGraph's default serializer
does, and a stored class is built only when allowed (issue 14, item 13).

The state holds a pydantic model, a dataclass, an enum, a datetime, a set, langchain
messages, and a dataclass in an ``Any`` field (a class no schema declares). Each case
runs in fresh processes, because LangGraph reads ``LANGGRAPH_STRICT_MSGPACK`` when it is
imported and because what matters is a reader that has (or has not) imported the
module defining the classes: one process runs the graph on an SQLite file, another reads
the thread back, through the compiled graph (which imports the module) or through the
saver alone (which does not), with and without an allow-list.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from .harness import run_fresh

TYPES = "parity_serde_types"
"""The module, written to a temporary directory, that defines the state's classes."""

TYPES_SOURCE = '''
import dataclasses
import datetime
import enum
from typing import Annotated, Any, TypedDict

from pydantic import BaseModel


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


class Model(BaseModel):
    name: str
    size: int = 1


@dataclasses.dataclass
class Extra:
    """Stored in the ``Any`` field: no schema declares it."""

    a: int
    b: int


class Plain:
    """Not storable: neither a dataclass, a pydantic model nor an enum."""


def add(left, right):
    return left + right


class State(TypedDict, total=False):
    model: Model
    point: Point
    color: Color
    when: datetime.datetime
    tags: set[str]
    messages: Annotated[list, add]
    loose: Any


def build(lib, checkpointer):
    """The same graph on either library: a node that reads and rebuilds every class."""
    if lib == "lg":
        from langgraph.graph import START, StateGraph
        from langchain_core.messages import AIMessage
    else:
        from graphkit import START, StateGraph
        from langchain_core.messages import AIMessage

    def step(state):
        return {
            "model": Model(name=state["model"].name + "!", size=state["model"].size + 1),
            "point": Point(state["point"].x + 1, state["point"].y),
            "color": Color.BLUE if state["color"] is Color.RED else Color.RED,
            "when": state["when"] + datetime.timedelta(days=1),
            "tags": state["tags"] | {"seen"},
            "messages": [AIMessage("reply", id="ai1")],
        }

    builder = StateGraph(State)
    builder.add_node("step", step)
    builder.add_edge(START, "step")
    return builder.compile(checkpointer=checkpointer)


def state_input(loose):
    from langchain_core.messages import HumanMessage

    return {
        "model": Model(name="m"),
        "point": Point(1),
        "color": Color.RED,
        "when": datetime.datetime(2024, 1, 2, 3, 4, tzinfo=datetime.timezone.utc),
        "tags": {"a"},
        "messages": [HumanMessage("hi", id="h1")],
        "loose": Plain() if loose == "plain" else Extra(7, 8),
    }
'''

RUNNER = """
import json, sqlite3, sys, asyncio

args = json.loads(sys.argv[1])
lib, action = args["lib"], args["action"]
TYPES = "parity_serde_types"
CONFIG = {"configurable": {"thread_id": "t1"}}
ALLOWED = [(TYPES, "Model"), (TYPES, "Point"), (TYPES, "Color"), (TYPES, "Extra")]


def serde():
    if not args.get("allow"):
        return None
    if lib == "lg":
        from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    else:
        from graphkit.checkpoint import JsonPlusSerializer
    return JsonPlusSerializer(allowed_msgpack_modules=ALLOWED)


def saver(kind):
    if lib == "lg":
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.checkpoint.sqlite import SqliteSaver
    else:
        from graphkit import InMemorySaver, SqliteSaver
    if kind == "memory":
        return InMemorySaver(serde=serde())
    return SqliteSaver(sqlite3.connect(args["path"], check_same_thread=False), serde=serde())


def describe(values):
    found = {}
    for key in sorted(k for k in values if not k.startswith(("branch:", "__"))):
        value = values[key]
        shown = sorted(value) if isinstance(value, set) else value
        found[key] = f"{type(value).__module__}.{type(value).__qualname__}: {shown!r}"
    return found


def run(kind):
    import parity_serde_types as types

    checkpointer = saver(kind)
    graph = types.build(lib, checkpointer)
    try:
        if args.get("async"):
            asyncio.run(graph.ainvoke(types.state_input(args["loose"]), CONFIG))
        else:
            graph.invoke(types.state_input(args["loose"]), CONFIG)
    except Exception as error:
        return {"raised": type(error).__name__}
    return {"values": describe(graph.get_state(CONFIG).values)}


def read_with_graph():
    import parity_serde_types as types

    graph = types.build(lib, saver("sqlite"))
    if args.get("register") and lib == "gk":  # what compile() is to do (see the test)
        from graphkit.checkpoint import allow_schema_classes

        graph.checkpointer = allow_schema_classes(graph.checkpointer, [types.State])
    return {"values": describe(graph.get_state(CONFIG).values)}


def read_with_saver():
    saved = saver("sqlite").get_tuple(CONFIG).checkpoint
    values = saved["channel_values"] if lib == "lg" else saved.channel_values
    return {"values": describe(values)}


result = {"write": lambda: run("sqlite"), "memory": lambda: run("memory"),
          "graph": read_with_graph, "saver": read_with_saver}[action]()
result["imported"] = TYPES in sys.modules
print(json.dumps(result))
"""


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("parity_serde")
    (directory / f"{TYPES}.py").write_text(textwrap.dedent(TYPES_SOURCE))
    (directory / "runner.py").write_text(RUNNER)
    return directory


def run(workdir: Path, *, strict: bool = False, **args) -> dict:
    """Run one action in a fresh interpreter; its JSON result."""
    strictness = {"LANGGRAPH_STRICT_MSGPACK": str(strict)}
    runner = [str(workdir / "runner.py"), json.dumps(args)]
    return run_fresh(runner, first=(str(workdir),), env=strictness, cwd=workdir)


@pytest.fixture(scope="module")
def files(workdir) -> dict[str, str]:
    """A thread written by each library to its own SQLite file (default settings)."""
    written = {}
    for lib in ("lg", "gk"):
        path = str(workdir / f"{lib}.sqlite")
        result = run(workdir, lib=lib, action="write", path=path, loose="point")
        assert "values" in result, result
        written[lib] = path
    return written


def both(workdir: Path, files: dict[str, str], **args) -> tuple[dict, dict]:
    return tuple(run(workdir, lib=lib, path=files[lib], **args) for lib in ("lg", "gk"))


def typed(result: dict, field: str) -> str:
    return result["values"][field].partition(":")[0]


# -- writing and reading back in the same process --------------------------------------


@pytest.mark.parametrize("kind", ["write", "memory"], ids=["sqlite", "memory"])
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_rich_state_round_trips_like_langgraph(workdir, tmp_path, kind, mode):
    if kind == "write" and mode == "async":
        pytest.skip("LangGraph's SqliteSaver is sync only (AsyncSqliteSaver is another class)")
    args = dict(action=kind, loose="point", path=str(tmp_path / "x.sqlite"))
    langgraph = run(workdir, lib="lg", **args, **{"async": mode == "async"})
    args["path"] = str(tmp_path / "y.sqlite")
    graphkit = run(workdir, lib="gk", **args, **{"async": mode == "async"})
    assert graphkit == langgraph
    assert typed(graphkit, "point") == f"{TYPES}.Point"
    assert typed(graphkit, "messages") == "builtins.list"


@pytest.mark.parametrize("kind", ["write", "memory"], ids=["sqlite", "memory"])
def test_a_value_neither_library_can_store_is_refused_by_both_savers(workdir, tmp_path, kind):
    args = dict(action=kind, loose="plain", path=str(tmp_path / "plain.sqlite"))
    langgraph = run(workdir, lib="lg", **args)
    graphkit = run(workdir, lib="gk", **{**args, "path": str(tmp_path / "plain2.sqlite")})
    assert langgraph["raised"] == graphkit["raised"] == "TypeError"


# -- reading a saved thread in a fresh process ------------------------------------------


def test_a_reader_that_imports_the_classes_gets_them_back(workdir, files):
    langgraph, graphkit = both(workdir, files, action="graph")
    assert graphkit == langgraph
    assert typed(graphkit, "loose") == f"{TYPES}.Extra"


@pytest.mark.parametrize("action", ["graph", "saver"], ids=["through the graph", "saver only"])
def test_an_allow_list_builds_the_classes_it_names(workdir, files, action):
    langgraph, graphkit = both(workdir, files, action=action, allow=True, strict=True)
    assert graphkit == langgraph
    assert graphkit["imported"]  # allowed by name: importing the module is the user's choice
    assert {typed(graphkit, name) for name in ("model", "point", "loose", "color")} == {
        f"{TYPES}.{name}" for name in ("Model", "Point", "Extra", "Color")
    }


def test_strict_without_an_allow_list_gives_plain_data_and_imports_nothing(workdir, files):
    langgraph, graphkit = both(workdir, files, action="saver", strict=True)
    assert graphkit == langgraph
    assert not graphkit["imported"]
    assert typed(graphkit, "point") == "builtins.dict"
    assert graphkit["values"]["color"] == "builtins.str: 'blue'"
    assert typed(graphkit, "messages") == "builtins.list"  # messages are always allowed
    assert "AIMessage(content='reply'" in graphkit["values"]["messages"]


def test_by_default_graphkit_never_imports_a_module_a_row_names(workdir, files):
    """The one deliberate difference: LangGraph's default imports the module a row names
    (and warns); graphkit gives the plain data unless the class is allowed."""
    langgraph, graphkit = both(workdir, files, action="saver")
    assert langgraph["imported"] and typed(langgraph, "point") == f"{TYPES}.Point"
    assert not graphkit["imported"] and typed(graphkit, "point") == "builtins.dict"
    assert graphkit["values"]["point"] == "builtins.dict: {'x': 2, 'y': 0}"
    allowed = run(workdir, lib="gk", path=files["gk"], action="saver", allow=True)
    assert allowed["values"] == langgraph["values"]


def test_strict_builds_the_classes_the_state_schema_declares(workdir, files):
    langgraph, graphkit = both(workdir, files, action="graph", strict=True)
    assert typed(langgraph, "loose") == "builtins.dict"  # no schema declares it
    assert graphkit == langgraph


def test_allow_schema_classes_gives_langgraphs_strict_reading(workdir, files):
    """The function compile() is to call, applied by hand: strict reading then builds
    the classes the state schema declares and only those, as LangGraph's compile does."""
    langgraph, graphkit = both(workdir, files, action="graph", strict=True, register=True)
    assert graphkit == langgraph
    assert typed(graphkit, "point") == f"{TYPES}.Point"
    assert typed(graphkit, "loose") == "builtins.dict"
