"""Under ``LANGGRAPH_STRICT_MSGPACK=true`` a saver builds back the classes a graph's
schemas declare, as LangGraph's ``compile()`` allows them: for a state written with
``typing_extensions.TypedDict`` (what LangGraph's examples import; before Python 3.12
``typing.is_typeddict`` does not see it) and for an entrypoint (its input, output and
saved value's types).

Each library runs in a fresh interpreter, because LangGraph reads the switch when it is
imported. The graphs use an SQLite saver: graphkit's ``InMemorySaver`` keeps its own
copies and reads no rows back (see docs/compatibility.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .harness import run_fresh

PROGRAM = """
import json, operator, sqlite3, sys
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, NewType, Optional, Union

from pydantic import BaseModel
from typing_extensions import NotRequired, TypedDict

if sys.argv[1] == "lg":
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.func import entrypoint, task
    from langgraph.graph import START, StateGraph
    from langgraph.types import Command, interrupt
else:
    from graphkit.checkpoint.sqlite import SqliteSaver
    from graphkit.func import entrypoint, task
    from graphkit.graph import START, StateGraph
    from graphkit.types import Command, interrupt


class Color(Enum):
    RED = "red"


@dataclass
class Inner:
    value: int


class Model(BaseModel):
    name: str


@dataclass
class Tree:
    value: int
    child: "Tree | None" = None


@dataclass
class NodeOnly:
    value: int


@dataclass
class RouterOnly:
    value: int


@dataclass
class Loose:
    value: int


class Payload(TypedDict):
    item: Inner
    maybe: NotRequired[Model]


UserId = NewType("UserId", Inner)


class State(TypedDict, total=False):
    color: Color
    nested: list[dict[str, Optional[Inner]]]
    union: Union[Inner, Model]
    tree: Tree
    payload: Payload
    user: UserId
    loose: Any
    node_only: Any
    router_only: Any
    reduced: Annotated[list[Model], operator.add]


class NodeInput(TypedDict):
    node_only: NodeOnly


class RouterInput(TypedDict):
    router_only: RouterOnly


def kinds(value):
    if isinstance(value, dict):
        return {key: kinds(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [kinds(item) for item in value]
    return type(value).__name__


def node(state: NodeInput):
    return {"reduced": [Model(name="more")]}


def route(state: RouterInput):
    return "__end__"


def saver():
    return SqliteSaver(sqlite3.connect(":memory:", check_same_thread=False))


builder = StateGraph(State)
builder.add_node("node", node)
builder.add_edge(START, "node")
builder.add_conditional_edges("node", route)
graph = builder.compile(checkpointer=saver())
config = {"configurable": {"thread_id": "1"}}
graph.invoke(
    {
        "color": Color.RED,
        "nested": [{"a": Inner(1), "b": None}],
        "union": Model(name="m"),
        "tree": Tree(1, Tree(2)),
        "payload": {"item": Inner(3), "maybe": Model(name="p")},
        "user": Inner(4),
        "loose": Loose(5),
        "node_only": NodeOnly(6),
        "router_only": RouterOnly(7),
        "reduced": [Model(name="r")],
    },
    config,
)
result = {"state": kinds(graph.get_state(config).values)}


class Question(BaseModel):
    text: str


class Answer(BaseModel):
    text: str


@dataclass
class Undeclared:
    value: int


@task
def rephrase(question: Question) -> Question:
    return Question(text=question.text + "?")


@task
def undeclared(question: Question) -> Undeclared:
    return Undeclared(1)


@entrypoint(checkpointer=saver())
def ask(question: Question) -> Answer:
    rephrased, other = rephrase(question), undeclared(question)
    reply = interrupt(rephrased.result().text)
    return Answer(text=f"{reply} ({kinds(rephrased.result())}, {kinds(other.result())})")


ask.invoke(Question(text="why"), config)
result["entrypoint"] = repr(ask.invoke(Command(resume="because"), config))
result["entrypoint state"] = kinds(ask.get_state(config).values)
print(json.dumps(result))
"""


def run(lib: str, workdir: Path) -> dict:
    """The program's result on ``lib`` in a fresh interpreter, strict reading on."""
    program = workdir / "strict_program.py"
    program.write_text(PROGRAM)
    return run_fresh([str(program), lib], env={"LANGGRAPH_STRICT_MSGPACK": "true"}, cwd=workdir)


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, dict]:
    workdir = tmp_path_factory.mktemp("strict_allowlist")
    return {lib: run(lib, workdir) for lib in ("lg", "gk")}


def test_strict_reading_builds_what_a_typing_extensions_state_declares(results):
    assert results["gk"]["state"] == results["lg"]["state"]
    assert results["lg"]["state"]["color"] == "Color"  # declared: built
    assert results["lg"]["state"]["loose"] == {"value": "int"}  # not declared: plain data


def test_strict_reading_builds_what_an_entrypoint_declares(results):
    for key in ("entrypoint", "entrypoint state"):
        assert results["gk"][key] == results["lg"][key]
    assert results["lg"]["entrypoint"] == "Answer(text=\"because (Question, {'value': 'int'})\")"
