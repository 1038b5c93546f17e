"""Solutions to lesson 16 · Several agents: a supervisor and handoffs, superstep by superstep.

>>> from graphkit.course import lesson16
>>> bool(lesson16.check_handoff(clean_handoff))
True
>>> bool(lesson16.check_step_counts(**STEP_COUNTS))
True
"""

from __future__ import annotations

from typing import Annotated, Literal

from langchain_core.messages import AIMessage
from langchain_core.tools import InjectedToolCallId, tool

from graphkit import END, Command
from graphkit.course.lesson16 import WORKERS
from graphkit.prebuilt import InjectedState

__all__ = ["STEP_COUNTS", "clean_handoff", "supervisor"]


def supervisor(state: dict) -> Command[Literal["researcher", "writer", "__end__"]]:
    """16.1: the first worker that has not answered yet (each answer carries its name),
    or END when all have."""
    answered = {m.name for m in state["messages"] if m.type == "ai"}
    todo = [name for name in WORKERS if name not in answered]
    return Command(goto=todo[0] if todo else END)


@tool("transfer_to_writer")
def clean_handoff(
    state: Annotated[dict, InjectedState], tool_call_id: Annotated[str, InjectedToolCallId]
) -> Command:
    """Hand the conversation to the writer."""
    # 16.2: the parent gets only what the update carries. add_messages keeps the question
    # (its id is known) and appends the findings; no tool call, so no ToolMessage needed.
    found = [m.content for m in state["messages"] if m.type == "tool"]
    summary = AIMessage("Found: " + "; ".join(found), name="researcher")
    return Command(
        graph=Command.PARENT, goto="writer", update={"messages": [state["messages"][0], summary]}
    )


# 16.3: the parent runs -1 (input), 0 (START), supervisor 1, researcher 2, supervisor 3,
# writer 4, supervisor 5: 7 steps. The researcher's agent: -1, 0, agent 1, both tool calls
# in step 2 (push tasks), agent 3: 5 steps, whatever the number of topics.
STEP_COUNTS = {"parent_steps": 7, "researcher_steps": 5}
