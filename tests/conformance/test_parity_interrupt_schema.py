"""`interrupt(value, response_schema=...)`, as LangGraph 1.2 has it.

An `Interrupt` carries `response_schema` (None unless given; its repr shows it). A dict
schema is shown as it is and the answer is not checked; a type (pydantic model, dataclass,
TypedDict, `int`...) is shown as its JSON Schema, and the answer is validated against it:
`interrupt` returns the validated object, and an answer that does not fit raises pydantic's
`ValidationError`, marked so that `is_invalid_resume` knows it, with nothing of the task
saved, so the interrupt can be answered again. Every case runs on both libraries, sync and
async, and compares what the caller sees at each call.
"""

from __future__ import annotations

import asyncio
import dataclasses
import operator
import re
from typing import Annotated, Any

import pytest
from pydantic import BaseModel
from typing_extensions import TypedDict

from .harness import Lib, canonical, load_graphkit, load_langgraph
from .scenarios import _interrupt, _memory_saver


class State(TypedDict, total=False):
    got: str
    log: Annotated[list, operator.add]


class Answer(BaseModel):
    ok: bool
    note: str = ""


@dataclasses.dataclass
class Point:
    x: int


class Shape(TypedDict):
    y: int


SCHEMAS: dict[str, Any] = {
    "none": None,
    "dict": {"type": "string"},
    "model": Answer,
    "dataclass": Point,
    "typeddict": Shape,
    "int": int,
}
BAD = {
    "none": 5,
    "dict": 5,
    "model": {"ok": "perhaps"},
    "dataclass": {"x": "a"},
    "typeddict": {"y": "z"},
}
GOOD = {
    "none": "x",
    "dict": "x",
    "model": {"ok": True},
    "dataclass": {"x": 3},
    "typeddict": {"y": 4},
}
BAD["int"], GOOD["int"] = "seven", "7"

LIBS = [load_langgraph, load_graphkit]


def _is_invalid_resume(lib: Lib, error: BaseException) -> bool:
    return lib.errors.is_invalid_resume(error)


def _graph(lib: Lib, schema: Any, saver: Any, ran: list[str]) -> Any:
    """START -> [ask, other]: `ask` asks with the schema, `other` just writes."""
    interrupt = _interrupt(lib.name)

    def ask(state: State) -> State:
        answer = interrupt("q?", response_schema=schema) if schema is not None else interrupt("q?")
        ran.append("ask")
        return {"got": repr(answer), "log": ["ask"]}

    def other(state: State) -> State:
        ran.append("other")
        return {"log": ["other"]}

    builder = lib.StateGraph(State).add_node("ask", ask).add_node("other", other)
    builder.add_edge(lib.START, "ask").add_edge(lib.START, "other")
    return builder.compile(checkpointer=saver)


def _interrupts(values: Any) -> list[str]:
    """By value: ids are made from task ids, which are each library's own."""
    shown = [dataclasses.asdict(item) for item in values]
    return [canonical({k: v for k, v in item.items() if k != "id"}) for item in shown]


def _calls(lib: Lib, kind: str, use_async: bool) -> list[str]:
    """What the caller sees: the first call, a bad answer, the state, a good answer."""
    seen: list[str] = []
    ran: list[str] = []
    config = {"configurable": {"thread_id": "1"}}
    with _memory_saver(lib.name) as saver:
        app = _graph(lib, SCHEMAS[kind], saver, ran)

        def call(given: Any) -> Any:
            if use_async:
                return asyncio.run(app.ainvoke(given, config))
            return app.invoke(given, config)

        first = call({"log": []})
        seen.append(f"first {first['log']} {_interrupts(first['__interrupt__'])}")
        seen.append(re.sub(r"id='\w+'", "id=...", f"repr {first['__interrupt__'][0]!r}"))
        try:
            result = call(lib.Command(resume=BAD[kind]))
            seen.append(re.sub(r"id='\w+'", "id=...", f"bad answer taken: {canonical(result)}"))
        except Exception as error:
            marked = _is_invalid_resume(lib, error)
            seen.append(f"bad answer raised {type(error).__name__}, invalid resume: {marked}")
        state = app.get_state(config)
        seen.append(f"state next {state.next} {_interrupts(state.interrupts)} {state.values}")
        if state.next:
            result = call(lib.Command(resume=GOOD[kind]))
            seen.append(f"good answer {canonical(result)}")
        seen.append(f"ran {sorted(ran)}")
    return seen


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("kind", list(SCHEMAS))
def test_an_answer_is_validated_against_the_response_schema(kind: str, use_async: bool) -> None:
    expected = _calls(load_langgraph(), kind, use_async)
    assert _calls(load_graphkit(), kind, use_async) == expected


def _two_asking(lib: Lib, saver: Any, ran: list[str], use_async: bool) -> Any:
    """Two nodes ask in one step; one wants an int, the other any answer (and, async,
    is still running when the first fails: as in LangGraph, it is not cancelled)."""
    interrupt = _interrupt(lib.name)

    def strict(state: State) -> State:
        ran.append(f"strict {interrupt('n?', response_schema=int)!r}")
        return {"log": ["strict"]}

    def loose(state: State) -> State:
        ran.append(f"loose {interrupt('anything?')!r}")
        return {"log": ["loose"]}

    async def slow_loose(state: State) -> State:
        answer = interrupt("anything?")
        await asyncio.sleep(0.05)
        ran.append(f"loose {answer!r}")
        return {"log": ["loose"]}

    if use_async:
        loose = slow_loose  # type: ignore[assignment]

    builder = lib.StateGraph(State).add_node("strict", strict).add_node("loose", loose)
    builder.add_edge(lib.START, "strict").add_edge(lib.START, "loose")
    return builder.compile(checkpointer=saver)


def _answering_both(lib: Lib, use_async: bool) -> list[str]:
    """A resume that answers one interrupt well and the other badly: the good one's task
    finishes (and is not run again); the bad one can be answered again."""
    seen: list[str] = []
    ran: list[str] = []
    config = {"configurable": {"thread_id": "1"}}
    with _memory_saver(lib.name) as saver:
        app = _two_asking(lib, saver, ran, use_async)

        def call(given: Any) -> Any:
            if use_async:
                return asyncio.run(app.ainvoke(given, config))
            return app.invoke(given, config)

        call({"log": []})
        ids = {item.value: item.id for item in app.get_state(config).interrupts}
        try:
            call(lib.Command(resume={ids["n?"]: "many", ids["anything?"]: "yes"}))
        except Exception as error:
            seen.append(f"raised {type(error).__name__} {_is_invalid_resume(lib, error)}")
        state = app.get_state(config)
        seen.append(f"next {state.next} waiting {sorted(i.value for i in state.interrupts)}")
        result = call(lib.Command(resume={ids["n?"]: "12"}))
        seen.append(f"then {canonical(result)}")
        seen.append(f"ran {sorted(ran)}")
    return seen


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
def test_a_bad_answer_does_not_stop_a_task_answered_well(use_async: bool) -> None:
    expected = _answering_both(load_langgraph(), use_async)
    assert _answering_both(load_graphkit(), use_async) == expected


def _streamed(lib: Lib) -> list[str]:
    """The interrupt as the "tasks" and "checkpoints" streams show it."""
    config = {"configurable": {"thread_id": "1"}}
    with _memory_saver(lib.name) as saver:
        app = _graph(lib, Answer, saver, [])
        seen = []
        for mode, chunk in app.stream({"log": []}, config, stream_mode=["tasks", "checkpoints"]):
            tasks = chunk.get("tasks", [chunk]) if mode == "checkpoints" else [chunk]
            for task in tasks:
                for item in task.get("interrupts") or ():
                    shown = {k: v for k, v in item.items() if k != "id"}
                    seen.append(f"{mode} {task['name']} {canonical(shown)}")
    return seen


def test_streams_show_the_schema_with_the_interrupt() -> None:
    expected = _streamed(load_langgraph())
    assert expected and _streamed(load_graphkit()) == expected


@pytest.mark.parametrize("load", LIBS, ids=["langgraph", "graphkit"])
def test_interrupt_repr_and_fields(load: Any) -> None:
    lib = load()
    module = __import__(f"{lib.name}.types", fromlist=["Interrupt"])
    made = module.Interrupt(value=1, id="abc")
    assert repr(made) == "Interrupt(value=1, id='abc', response_schema=None)"
    given = module.Interrupt("v", "i", response_schema={"type": "integer"})
    assert given.response_schema == {"type": "integer"} and given != module.Interrupt("v", "i")
    with pytest.raises(TypeError):
        module.Interrupt("v", "i", {"type": "integer"})  # (keyword only)


def _empty_map(lib: Lib) -> list[str]:
    """``Command(resume={})``: a map of answers that names no interrupt."""
    interrupt = _interrupt(lib.name)

    def ask(state: State) -> State:
        return {"got": repr(interrupt("q?"))}

    config = {"configurable": {"thread_id": "1"}}
    with _memory_saver(lib.name) as saver:
        builder = lib.StateGraph(State).add_node("ask", ask).add_edge(lib.START, "ask")
        app = builder.compile(checkpointer=saver)
        app.invoke({}, config)
        result = app.invoke(lib.Command(resume={}), config)
        then = app.invoke(lib.Command(resume={"ok": 1}), config)  # (one answer: a dict)
    return [f"{sorted(result)} {[i.value for i in result.get('__interrupt__', ())]}", str(then)]


def test_an_empty_answer_map_answers_nothing() -> None:
    expected = _empty_map(load_langgraph())
    assert _empty_map(load_graphkit()) == expected
