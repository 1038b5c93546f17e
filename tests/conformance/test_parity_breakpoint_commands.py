"""A ``Command`` given where a run stopped, on both libraries: at an ``interrupt_before``
breakpoint a ``Command(update=...)`` / ``Command(goto=...)`` passes the breakpoint (the
thread used to stay stuck there for good), and a ``Command(resume=...)`` answers only
the step it resumes (it used to answer an ``interrupt()`` a later node raised); a resume
map keyed by a task's first interrupt id answers that task's next interrupt, as
LangGraph's map does for ids of older versions."""

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import _interrupt, _memory_saver

LIBS = [load_langgraph, load_graphkit]


class Log(TypedDict):
    x: Annotated[list, operator.add]


def _shown(output: dict[str, Any]) -> Any:
    """An output with its interrupts known by value."""
    interrupts = [item.value for item in output.get("__interrupt__", ())]
    return {**{k: v for k, v in output.items() if k != "__interrupt__"}, "asks": interrupts}


def _chain(lib: Lib, *, asks_in: str = "", **compiled: Any) -> Any:
    """START → a → b → c, each appending its name; ``asks_in`` interrupts first."""
    graph = lib.StateGraph(Log)
    for name in ("a", "b", "c"):

        def node(state: Log, name: str = name) -> dict[str, Any]:
            if name == asks_in:
                return {"x": [f"{name}:{_interrupt(lib.name)('q' + name)}"]}
            return {"x": [name]}

        graph.add_node(name, node)
    graph.add_edge(lib.START, "a").add_edge("a", "b").add_edge("b", "c")
    with _memory_saver(lib.name) as saver:
        return graph.compile(checkpointer=saver, **compiled)


def _steps(loader: Any, inputs: list[Any], *, use_async: bool = False, **built: Any) -> list[Any]:
    lib = loader()
    app = _chain(lib, **built)
    config = {"configurable": {"thread_id": "t"}}
    seen = []
    for given in inputs:
        given = given(lib) if callable(given) else given
        run = asyncio.run(app.ainvoke(given, config)) if use_async else app.invoke(given, config)
        output = run
        seen.append((_shown(output), app.get_state(config).next))
    return seen


def _command(**fields: Any) -> Any:
    return lambda lib: lib.Command(**fields)


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(
    "command",
    [
        {"update": {"x": ["u"]}},
        {"goto": "c"},
        {"update": {"x": ["u"]}, "goto": "c"},
        {"resume": "R", "update": {"x": ["u"]}},
    ],
    ids=["update", "goto", "update-goto", "resume-update"],
)
def test_a_command_at_a_breakpoint_passes_it(command, use_async):
    inputs = [{"x": []}, _command(**command), None, {"x": ["new"]}]
    seen = [_steps(loader, inputs, use_async=use_async, interrupt_before=["b"]) for loader in LIBS]
    assert seen[1] == seen[0]
    assert seen[1][1][1] == ()  # the run went on to the end, past "b"'s breakpoint


def test_a_command_at_a_breakpoint_on_the_first_node_passes_it():
    inputs = [{"x": []}, _command(update={"x": ["u"]}), None]
    seen = [_steps(loader, inputs, interrupt_before=["a"]) for loader in LIBS]
    assert seen[1] == seen[0]
    assert seen[1][1] == ({"x": ["u", "a", "b", "c"], "asks": []}, ())


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("asks_in", ["b", "c"])
def test_a_resume_at_a_breakpoint_answers_only_the_step_it_resumes(asks_in, use_async):
    inputs = [{"x": []}, _command(resume="R0"), _command(resume="R1")]
    seen = [
        _steps(loader, inputs, use_async=use_async, interrupt_before=["a"], asks_in=asks_in)
        for loader in LIBS
    ]
    assert seen[1] == seen[0]
    assert seen[1][1][0]["asks"] == ["q" + asks_in]  # the human sees the question
    assert f"{asks_in}:R1" in seen[1][2][0]["x"]


def _asking_thrice(lib: Lib) -> Any:
    def ask(state: Log) -> dict[str, Any]:
        interrupt = _interrupt(lib.name)
        return {"x": [interrupt("q1"), interrupt("q2"), interrupt("q3")]}

    graph = lib.StateGraph(Log).add_node("ask", ask).add_edge(lib.START, "ask")
    with _memory_saver(lib.name) as saver:
        return graph.compile(checkpointer=saver)


def test_a_resume_map_keyed_by_the_first_interrupt_answers_the_next_one():
    seen = []
    for loader in LIBS:
        lib = loader()
        app = _asking_thrice(lib)
        config = {"configurable": {"thread_id": "t"}}
        first = app.invoke({"x": []}, config)["__interrupt__"][0].id
        outputs = [_shown(app.invoke(lib.Command(resume={first: "v0"}), config))]
        second = app.get_state(config).interrupts[0].id
        # the current id wins over the first one; then the first one alone answers q3
        outputs.append(_shown(app.invoke(lib.Command(resume={first: "w", second: "v1"}), config)))
        outputs.append(_shown(app.invoke(lib.Command(resume={first: "v2"}), config)))
        seen.append(outputs)
    assert seen[1] == seen[0]
    assert seen[1] == [
        {"x": [], "asks": ["q2"]},
        {"x": [], "asks": ["q3"]},
        {"x": ["v0", "v1", "v2"], "asks": []},
    ]
