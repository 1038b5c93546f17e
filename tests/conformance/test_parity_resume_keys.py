"""A resume map keyed by the wrong ids, with two approvals waiting (a Send fan-out).

`get_state(config).tasks[i].id` looks like the id to answer by, but a resume map is
keyed by each interrupt's own id. A dict whose keys are not interrupt ids (32 hex
digits) is read by both libraries as one answer for several questions: LangGraph
raises RuntimeError (UnknownInterruptError, reason "ambiguous", in strict resume mode)
and leaves the thread as it was. graphkit raises the same, and its message says which
ids the keys are, lists the pending interrupts with their questions, and gives the map
to pass.
"""

from __future__ import annotations

import operator
import re
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import _interrupt, _memory_saver

LIBRARIES = [
    pytest.param(load_langgraph, id="langgraph"),
    pytest.param(load_graphkit, id="graphkit"),
]
STRICT = {"__pregel_strict_resume": True}
INPUT = {"expenses": [{"item": "laptop"}, {"item": "chair"}]}


class Expenses(TypedDict, total=False):
    expenses: list
    decisions: Annotated[list, operator.add]


def _approvals(lib: Lib) -> Any:
    interrupt = _interrupt(lib.name)

    def approve(expense: dict) -> dict:
        return {"decisions": [f"{expense['item']}: {interrupt(expense['item'] + '?')}"]}

    builder = lib.StateGraph(Expenses).add_node("approve", approve)
    sends = lambda state: [lib.Send("approve", e) for e in state["expenses"]]  # noqa: E731
    builder.add_conditional_edges(lib.START, sends, ["approve"])
    return builder.add_edge("approve", lib.END)


KEYS = {
    "task ids": lambda task_id, interrupt_id: task_id,
    "task ids cut short": lambda task_id, interrupt_id: task_id[:8],
    "interrupt ids cut short": lambda task_id, interrupt_id: interrupt_id[:8],
}


def _resume_by(lib: Lib, keys: str, extra: dict[str, Any]) -> tuple[Any, ...]:
    """Pause on both approvals, answer laptop 'yes' and chair 'no' by ``keys``; what
    the caller sees, and the map the error gives (its interrupt ids by question)."""
    with _memory_saver(lib.name) as saver:
        graph = _approvals(lib).compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "t"}}
        graph.invoke(INPUT, config)
        tasks = graph.get_state(config).tasks
        answers = {"laptop?": "yes", "chair?": "no"}
        resume = {
            KEYS[keys](task.id, task.interrupts[0].id): answers[task.interrupts[0].value]
            for task in tasks
        }
        resumed = {"configurable": {"thread_id": "t", **extra}}
        with pytest.raises(Exception) as raised:
            graph.invoke(lib.Command(resume=resume), resumed)
        left = graph.get_state(config)
        by_question = {i.value: i.id for i in left.interrupts}
        error = raised.value
        seen = (type(error).__name__, getattr(error, "reason", None), left.values)
        return seen, str(error), by_question


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
@pytest.mark.parametrize("keys", list(KEYS))
def test_a_map_not_keyed_by_interrupt_ids_raises_as_in_langgraph(keys, strict):
    extra = STRICT if strict else {}
    theirs, _, _ = _resume_by(load_langgraph(), keys, extra)
    ours, _, _ = _resume_by(load_graphkit(), keys, extra)
    assert ours == theirs
    assert ours[0] == ("UnknownInterruptError" if strict else "RuntimeError")


@pytest.mark.parametrize("keys", list(KEYS))
def test_the_message_says_what_the_keys_are_and_gives_the_map_to_pass(keys):
    _, message, by_question = _resume_by(load_graphkit(), keys, {})
    laptop, chair = by_question["laptop?"], by_question["chair?"]
    said = {
        "task ids": "those are the ids of the tasks that asked (get_state(config).tasks[i].id)",
        "task ids cut short": "those are the ids of the tasks that asked",
        "interrupt ids cut short": "those are the pending interrupts' ids cut short",
    }
    assert said[keys] in message
    assert "so the dict reads as one answer for 2 questions" in message
    assert re.search(f"'{laptop}' asks 'laptop\\?' \\(task '[0-9a-f-]{{36}}'\\)", message)
    assert re.search(f"'{chair}' asks 'chair\\?' \\(task '[0-9a-f-]{{36}}'\\)", message)
    pairs = sorted([f"'{laptop}': 'yes'", f"'{chair}': 'no'"])
    fills = re.search(r"Resume with Command\(resume=\{(.*)\}\)", message)
    assert fills is not None and sorted(fills.group(1).split(", ")) == pairs


def test_keys_that_are_no_ids_get_the_map_with_blanks():
    lib = load_graphkit()
    with _memory_saver(lib.name) as saver:
        graph = _approvals(lib).compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "t"}}
        ids = sorted(i.id for i in graph.invoke(INPUT, config)["__interrupt__"])
        with pytest.raises(RuntimeError) as raised:
            graph.invoke(lib.Command(resume={"laptop": "yes", "chair": "no"}), config)
        message = str(raised.value)
        assert message.startswith(
            "Command(resume=...) is keyed by ['chair', 'laptop']:\n"
            "those are not the ids of the pending interrupts, so the dict reads as one "
            "answer for 2 questions.\n"
        )
        assert all(f"{i!r}: ..." in message for i in ids)
        with pytest.raises(RuntimeError) as raised:
            graph.invoke(lib.Command(resume="yes"), config)
        assert str(raised.value).startswith(
            "Command(resume='yes') gives one answer, and 2 interrupts are pending:\n"
            "say which answer is whose, by interrupt id.\nThe pending interrupts"
        )
