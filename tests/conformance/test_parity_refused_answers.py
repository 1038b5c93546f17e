"""An answer a node refuses (it raises on what ``interrupt()`` returned) stays given, as
in LangGraph: the answer is saved beside the error, so ``invoke(None)`` runs the node
on it again, and a later ``Command(resume=...)`` does not replace it. Both savers, a
graph node and an entrypoint."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from .func_programs import side
from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS, _interrupt


class State(TypedDict):
    answer: str


def _graph(lib: Lib, saver: Any) -> Any:
    ask = _interrupt(lib.name)

    def node(state: dict) -> dict:
        answer = ask("which?")
        if answer == "bad":
            raise ValueError("bad answer")
        return {"answer": answer}

    builder = lib.StateGraph(State).add_node("asks", node).add_edge(lib.START, "asks")
    return builder.compile(checkpointer=saver)


def _entrypoint(lib: Lib, saver: Any) -> Any:
    s = side(lib.name)

    @s.entrypoint(checkpointer=saver)
    def asks(x: Any) -> Any:
        answer = s.interrupt("which?")
        if answer == "bad":
            raise ValueError("bad answer")
        return answer

    return asks


def _outcome(run: Any) -> Any:
    try:
        return run()
    except ValueError as error:
        return f"raised {error}"


@pytest.mark.parametrize("then", ["invoke(None)", "resume again"])
@pytest.mark.parametrize("saver", SAVERS)
@pytest.mark.parametrize("shape", ["graph", "entrypoint"])
def test_a_refused_answer_stays_given(shape, saver, then):
    def observe(lib: Lib) -> list[Any]:
        with SAVERS[saver](lib.name) as checkpointer:
            app = (_graph if shape == "graph" else _entrypoint)(lib, checkpointer)
            config = {"configurable": {"thread_id": "t"}}
            app.invoke({"answer": ""} if shape == "graph" else 1, config)
            seen = [_outcome(lambda: app.invoke(lib.Command(resume="bad"), config))]
            again = None if then == "invoke(None)" else lib.Command(resume="good")
            seen.append(_outcome(lambda: app.invoke(again, config)))
            seen.append(app.get_state(config).next)
        return seen

    expected = observe(load_langgraph())
    assert observe(load_graphkit()) == expected
    assert expected[1] == "raised bad answer"
