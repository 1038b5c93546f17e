"""Lesson 21's checks on their solutions, on typical wrong answers and on the notebook's
stubs; and the lesson's claims on LangGraph: its graph cells run there too (imports
swapped), printing the same, and what graphkit's records show (tasks per step, the order
of the answers, a failed step's state, what a resume runs again) is read from LangGraph's
own stream and checkpoints."""

from __future__ import annotations

import contextlib
import io
import time
import warnings
from pathlib import Path
from typing import Annotated

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.prebuilt.tool_node import ToolInvocationError as LangGraphToolInvocationError

from graphkit import START, Command, StateGraph
from graphkit.course import assert_fails, assert_passes, lesson21
from graphkit.course.solutions import lesson21 as solutions
from graphkit.prebuilt import (
    InjectedState,
    MessagesState,
    ToolInvocationError,
    ToolNode,
    create_react_agent,
)
from tests.course.cells import (
    cells_showing_an_id,
    code_cells,
    lines_too_long,
    run_again_in_reverse,
    stub_names,
)

LESSON = Path(__file__).parents[2] / "notebooks" / "21-tools-in-depth.ipynb"
IMPORT = "from graphkit.course import lesson21"


def stub_cells() -> dict:
    return stub_names(
        LESSON, lesson21, ("@tool\ndef set_budget(", "tool_errors =", "def build_agent(")
    )


def test_the_notebooks_stubs_fail_their_checks():
    stubs = stub_cells()
    assert_fails(lesson21.check_set_budget(stubs["set_budget"]), "never written", hint="Section 3")
    assert_fails(
        lesson21.check_tool_errors(stubs["tool_errors"]),
        "the model got a ToolMessage",
        hint="by their classes",
    )
    assert_fails(
        lesson21.check_approve_once(stubs["build_agent"]),
        "`email alice` ran 2 times",
        hint="a task of its own",
    )


def test_the_lessons_cells_show_the_same_when_run_again():
    """Every cell that runs a graph shows the same when run again, in any order: each
    builds its own graph and checkpointer, and clears what it counts."""
    shown = run_again_in_reverse(
        LESSON, IMPORT, lambda source: "trace(" in source or "invoke(" in source
    )
    said = "\n".join(out for out, _ in shown.values())
    assert "appended: ['Oslo: sunny', 'Rome: sunny', 'Lima: sunny']" in said
    # Q2's table shows each answer whole: a changes row joined the three and cut the
    # join at 60 characters, as show cuts a value ([tool: "Lima:…).
    tables = "\n".join(str(value) for _, value in shown.values())
    assert all(f'[tool: "{city}: sunny"]' in tables for city in ("Oslo", "Rome", "Lima"))
    assert "emails:  2" in said and "emails: 1 · done:" in said


def test_no_cell_shows_an_id():
    """A message's generated id, a task's or an interrupt's change from run to run."""
    assert cells_showing_an_id(LESSON, IMPORT) == {}


def test_every_code_line_fits_the_cell():
    """JupyterLab at the course's reading width shows about 105 characters of a code line;
    a longer one scrolls sideways, hiding its end (Q4's ``is not None`` did)."""
    assert lines_too_long(LESSON) == []


# -- the lesson's claims on LangGraph

LANGGRAPH_IMPORTS = {
    # the swap the import cell's comment says, line by line
    "from graphkit import END, START, Command, InMemorySaver, MessagesState, StateGraph, "
    "interrupt": (
        "from langgraph.checkpoint.memory import InMemorySaver\n"
        "from langgraph.graph import END, START, MessagesState, StateGraph\n"
        "from langgraph.types import Command, interrupt"
    ),
    "from graphkit.prebuilt import InjectedState, ToolNode, create_react_agent, tools_condition": (
        "from langgraph.prebuilt import InjectedState, ToolNode, create_react_agent\n"
        "from langgraph.prebuilt import tools_condition"
    ),
}


def to_langgraph(source: str) -> str | None:
    """The cell for LangGraph, or None for one that reads graphkit's records."""
    if ".trace(" in source or "to_frame" in source or ".execution." in source:
        return None
    for ours, theirs in LANGGRAPH_IMPORTS.items():
        source = source.replace(ours, theirs)
    assert "from graphkit import" not in source
    return source


def run_lesson(library: str) -> tuple[dict, dict]:
    """Sections 1 to 4's code cells on ``library``: what each printed, and the names."""
    names: dict = {"display": print}
    printed = {}
    for cell, source in code_cells(LESSON):
        if source.startswith(IMPORT):
            break
        if library == "langgraph":
            source = to_langgraph(source)
            if source is None:
                continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(source, names)
        printed[cell] = out.getvalue()
    return printed, names


def task_steps(app, given, config=None) -> dict[int, list[tuple[str, tuple]]]:
    """Each step's tasks (name, triggers), from ``stream_mode="debug"`` (both libraries)."""
    steps: dict[int, list[tuple[str, tuple]]] = {}
    for event in app.stream(given, config, stream_mode="debug"):
        if event["type"] == "task" and event["payload"]["name"] != "__start__":
            payload = event["payload"]
            steps.setdefault(event["step"], []).append(
                (payload["name"], tuple(payload["triggers"]))
            )
    return steps


def observe(names: dict) -> dict:
    """What the lesson shows, computed from its own graphs with the library's stream,
    invoke and checkpoints (no graphkit records)."""
    seen: dict = {}
    question = names["question"]
    agent = names["hand_built_agent"](names["weather_model"](), [names["weather"]])
    seen["Q1 steps"] = task_steps(agent, question)
    out = names["hand_built_agent"](names["weather_model"](), [names["weather"]]).invoke(question)
    seen["Q1 order"] = [m.content for m in out["messages"] if m.type == "tool"]
    for version in ("v1", "v2"):
        react = names["create_react_agent"](
            names["weather_model"](), [names["weather"]], version=version
        )
        seen[f"{version} steps"] = task_steps(react, question)
    react = names["create_react_agent"](names["weather_model"](), [names["weather"]])
    seen["Q2 order"] = [m.content for m in react.invoke(question)["messages"] if m.type == "tool"]
    # the failing batch: the run stops, and with a checkpointer its step left no write
    builder = names["StateGraph"](names["MessagesState"])
    builder.add_node("tools", names["ToolNode"]([names["convert"]]))
    builder.add_edge(names["START"], "tools")
    saved = builder.compile(checkpointer=names["InMemorySaver"]())
    config = {"configurable": {"thread_id": "fail"}}
    batch = [{"name": "convert", "args": {"euros": 10, "currency": "USD"}, "id": "call-4"}]
    with pytest.raises(ConnectionError):
        saved.invoke(
            {"messages": [AIMessage("", tool_calls=[*batch, names["tool_raises"]])]}, config
        )
    state = saved.get_state(config)
    seen["failed step"] = (state.next, [m.type for m in state.values["messages"]])
    # a tool's Command: its writes, and the error without the ToolMessage
    choose = names["trip_tools"](names["choose_city"]).invoke(
        {"messages": [AIMessage("", tool_calls=[names["choose_call"]])]}
    )
    last = choose["messages"][-1]
    seen["choose_city"] = (choose["city"], type(last).__name__, last.tool_call_id, last.content)
    with pytest.raises(ValueError) as raised:
        names["trip_tools"](names["choose_city_unanswered"]).invoke(
            {"messages": [AIMessage("", tool_calls=[names["unanswered_call"]])]}
        )
    seen["unanswered"] = type(raised.value).__name__
    # section 4 with one task per call: the email is sent once
    done = names["done"]
    done.clear()
    agent = names["create_react_agent"](
        names["booking_model"](),
        [names["email"], names["pay"]],
        checkpointer=names["InMemorySaver"](),
    )
    agent.invoke(names["booking_question"], names["booking_thread"])
    agent.invoke(names["Command"](resume="yes"), names["booking_thread"])
    seen["one task per call"] = list(done)
    return seen


def test_the_lessons_claims_hold_on_langgraph():
    pytest.importorskip("langgraph.prebuilt")
    our_printed, ours = run_lesson("graphkit")
    their_printed, theirs = run_lesson("langgraph")
    # the cells that run on both print the same (Q3, the handle_tool_errors table,
    # InjectedState, Q5)
    assert their_printed == {cell: our_printed[cell] for cell in their_printed}
    assert theirs["outcomes"] == ours["outcomes"]
    assert "emails:  2" in "".join(their_printed.values())
    seen = observe(ours)
    assert seen == observe(theirs)
    assert seen["Q1 steps"] == {
        1: [("assistant", ("branch:to:assistant",))],
        2: [("tools", ("branch:to:tools",))],
        3: [("assistant", ("branch:to:assistant",))],
    }
    assert seen["Q1 order"] == seen["Q2 order"] == ["Oslo: sunny", "Rome: sunny", "Lima: sunny"]
    assert seen["v1 steps"][2] == [("tools", ("branch:to:tools",))]
    assert seen["v2 steps"][2] == [("tools", ("__pregel_push",))] * 3
    assert seen["failed step"] == (("tools",), ["ai"])
    assert seen["choose_city"] == ("Oslo", "ToolMessage", "call-city", "The trip goes to Oslo.")
    assert seen["unanswered"] == "ValueError"
    assert seen["one task per call"] == ["email ada@example.com", "pay 300"]


def test_the_lessons_cells_print_what_the_lesson_says():
    printed, names = run_lesson("graphkit")
    said = "\n".join(printed.values())
    assert "v1: step 2 runs 1 task(s): [('tools', 'pull')]" in said
    assert (
        "v2: step 2 runs 3 task(s): [('tools', 'push'), ('tools', 'push'), ('tools', 'push')]"
        in said
    )
    assert "unknown tool: message, status 'error', which says" in said
    assert "wrong argument: message, status 'error', which says" in said
    assert "tool raises: stops, ConnectionError('the yen rates service is down')" in said
    assert "the model is asked for: ['city']" in said and "['nights']" in said
    assert "step 1 ran: ['tools'] · its Update ran: False" in said
    assert "the state's keys after the run: ['messages']" in said
    outcomes = names["outcomes"]
    assert outcomes["explain (ConnectionError)"]["wrong argument"] == "stops: ToolInvocationError"
    assert outcomes["False"] == {
        "wrong argument": "stops: ToolInvocationError",
        "tool raises": "stops: ConnectionError",
    }
    assert outcomes["a string"] == {
        "wrong argument": "Conversion failed.",
        "tool raises": "Conversion failed.",
    }
    assert outcomes["default"]["tool raises"] == "stops: ConnectionError"


# -- 21.1 · A tool that sets the budget


def test_set_budget_passes_on_the_solution():
    assert_passes(lesson21.check_set_budget(solutions.set_budget))


@tool
def budget_without_answer(euros: int) -> Command:
    """Set the trip's budget, in euros."""
    return Command(update={"budget": euros})


@tool
def budget_with_a_fixed_id(euros: int) -> Command:
    """Set the trip's budget, in euros."""
    answer = ToolMessage("Done.", tool_call_id="call-1")
    return Command(update={"budget": euros, "messages": [answer]})


@tool
def budget_with_a_visible_id(euros: int, tool_call_id: str) -> Command:
    """Set the trip's budget, in euros."""
    answer = ToolMessage("Done.", tool_call_id=tool_call_id)
    return Command(update={"budget": euros, "messages": [answer]})


@tool
def budget_hard_coded(euros: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command:
    """Set the trip's budget, in euros."""
    answer = ToolMessage("Done.", tool_call_id=tool_call_id)
    return Command(update={"budget": 450, "messages": [answer]})


@tool
def budget_under_another_key(
    euros: int, tool_call_id: Annotated[str, InjectedToolCallId]
) -> Command:
    """Set the trip's budget, in euros."""
    answer = ToolMessage("Done.", tool_call_id=tool_call_id)
    return Command(update={"euros": euros, "messages": [answer]})


@tool
def budget_refusing_large_amounts(
    euros: int, tool_call_id: Annotated[str, InjectedToolCallId]
) -> Command:
    """Set the trip's budget, in euros."""
    if euros > 1000:
        raise ValueError("a budget over 1000 euros is not allowed")
    answer = ToolMessage("Done.", tool_call_id=tool_call_id)
    return Command(update={"budget": euros, "messages": [answer]})


@tool
def budget_with_one_message(
    euros: int, tool_call_id: Annotated[str, InjectedToolCallId]
) -> Command:
    """Set the trip's budget, in euros."""
    answer = ToolMessage("Done.", tool_call_id=tool_call_id)
    return Command(update={"budget": euros, "messages": answer})


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        # a Command that wrote budget, or another key: the verdict said "the state key was
        # never written" and hinted that a tool's return value is only its message's text
        (budget_hard_coded, "wrote budget 450, not 1200", "the amount the model gave"),
        (budget_under_another_key, "writes ['euros', 'messages']", "under budget"),
        (budget_without_answer, "failed with ValueError", "tool_call_id"),
        # its update holds a ToolMessage: the verdict names the id it answers, and the hint
        # where the call's id comes from, not that the update must hold a ToolMessage
        (budget_with_a_fixed_id, "its ToolMessage answers 'call-1'", "InjectedToolCallId"),
        (budget_with_a_visible_id, "['euros', 'tool_call_id']", "hidden from the model"),
        # a ValueError of the tool's own, and one ToolMessage not in a list: both were told
        # that the update must hold a ToolMessage answering the call, which each had tried
        (budget_refusing_large_amounts, "your tool raised ValueError", "any amount"),
        (budget_with_one_message, "one ToolMessage, not a list", "[ToolMessage("),
        (None, "not a tool", ""),
        # (langchain's tool() made a tool of the class's __init__: "KeyError: 'state_schema'")
        (StateGraph, "set_budget is the class StateGraph, not a tool.", "@tool"),
    ],
)
def test_set_budget_wrong_answers(answer, said, hint):
    assert_fails(lesson21.check_set_budget(answer), said, hint=hint)


@tool
def budget_reading_the_state_without_answer(
    euros: int, state: Annotated[dict, InjectedState]
) -> Command:
    """Set the trip's budget, in euros."""
    return Command(update={"budget": euros})


@tool
def budget_reading_the_state_under_another_key(
    euros: int,
    state: Annotated[dict, InjectedState],
    tool_call_id: Annotated[str, InjectedToolCallId],
) -> Command:
    """Set the trip's budget, in euros."""
    answer = ToolMessage(f"Was {state['budget']}.", tool_call_id=tool_call_id)
    return Command(update={"euros": euros, "messages": [answer]})


@tool
def budget_reading_the_state(
    euros: int,
    state: Annotated[dict, InjectedState],
    tool_call_id: Annotated[str, InjectedToolCallId],
) -> Command:
    """Set the trip's budget, in euros."""
    answer = ToolMessage(f"Was {state['budget']}, now {euros}.", tool_call_id=tool_call_id)
    return Command(update={"budget": euros, "messages": [answer]})


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (budget_reading_the_state_without_answer, "failed with ValueError", "tool_call_id"),
        (budget_reading_the_state_under_another_key, "writes ['euros', 'messages']", "budget"),
    ],
)
def test_set_budget_reading_the_state_is_told_what_its_update_lacks(answer, said, hint):
    """A tool reading the state (InjectedState, section 3) ran in the graph, but the check
    ran it again on its own with no state: pydantic's "state Field required", told as
    "your tool raised ValidationError" or "Your code raised" (neither said the run's)."""
    verdict = assert_fails(lesson21.check_set_budget(answer), said, hint=hint)
    assert "ValidationError" not in verdict.message


def test_set_budget_reading_the_state_passes():
    assert_passes(lesson21.check_set_budget(budget_reading_the_state))


# -- 21.2 · Errors the model reads, errors that stop


def handle_by_annotation(error: ValueError | ToolInvocationError) -> str:
    return f"Could not do it: {error}"


@pytest.mark.parametrize("answer", [solutions.tool_errors, handle_by_annotation])
def test_tool_errors_passes_on_the_solutions(answer):
    assert_passes(lesson21.check_tool_errors(answer))


def misreads_the_error(error: ValueError | ToolInvocationError) -> str:
    return "Error: " + error.message  # (an exception has no .message in Python 3)


def only_refusals(error: ValueError) -> str:
    return str(error)


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (True, "ConnectionError('the booking service is down')", "by their classes"),
        ("Something failed.", "never read that the hotel is full", "must reach it"),
        (ValueError, "nights='three'", "a class of its own"),
        (only_refusals, "nights='three'", "before the tool runs"),
        (ToolInvocationError, "no rooms left in Nice", "the error's text must reach it"),
        (False, "stopped the run", "another city"),
        # a handler that raises was told only that it stopped the run, not with what
        (misreads_the_error, "raised AttributeError: 'ValueError' object", "your function"),
    ],
)
def test_tool_errors_wrong_answers(answer, said, hint):
    assert_fails(lesson21.check_tool_errors(answer), said, hint=hint)


def langgraphs_class_by_annotation(error: ValueError | LangGraphToolInvocationError) -> str:
    return f"Could not do it: {error}"


@pytest.mark.parametrize(
    "answer", [(ValueError, LangGraphToolInvocationError), langgraphs_class_by_annotation]
)
def test_tool_errors_names_langgraphs_class_when_a_learner_imports_it(answer):
    """The lesson says where LangGraph keeps ToolInvocationError; a learner who imports it
    from there was told the wrong argument fails 'with a class of its own', the class they
    had named."""
    assert_fails(
        lesson21.check_tool_errors(answer),
        "LangGraph's ToolInvocationError",
        hint="from graphkit.prebuilt",
    )


def test_tool_errors_quotes_a_message_on_one_line():
    """True's message has a newline before "Please fix your mistakes.": the verdict
    quoted it with its repr, and the learner read a backslash and an n."""
    said = assert_fails(lesson21.check_tool_errors(True), "Please fix your mistakes").message
    assert "\\n" not in said


# -- 21.3 · Approve a payment, email once


def routed_one_call_per_task(model, tools, checkpointer):
    """A hand-built agent whose router sends each call to the ToolNode on its own."""
    from graphkit import END, Send

    def assistant(state):
        return {"messages": [model.bind_tools(tools).invoke(state["messages"])]}

    def route(state):
        calls = state["messages"][-1].tool_calls
        return [Send("tools", [call]) for call in calls] if calls else END

    builder = StateGraph(MessagesState)
    builder.add_node("assistant", assistant)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "assistant")
    builder.add_conditional_edges("assistant", route, ["tools", END])
    builder.add_edge("tools", "assistant")
    return builder.compile(checkpointer=checkpointer)


@pytest.mark.parametrize("answer", [solutions.build_agent, routed_one_call_per_task])
def test_approve_once_passes_on_the_solutions(answer):
    assert_passes(lesson21.check_approve_once(answer))


def one_tool_node_task(model, tools, checkpointer):
    return create_react_agent(model, tools, checkpointer=checkpointer, version="v1")


def without_checkpointer(model, tools, checkpointer):
    return create_react_agent(model, tools)


def only_pay(model, tools, checkpointer):
    """Only the tool that needs approval: the model's other calls get an error message."""
    return create_react_agent(
        model, [t for t in tools if t.name == "pay"], checkpointer=checkpointer
    )


def without_pay(model, tools, checkpointer):
    return create_react_agent(
        model, [t for t in tools if t.name != "pay"], checkpointer=checkpointer
    )


def asked_before_the_tools(model, tools, checkpointer):
    """Section 4's other way, a question in a node of its own before the ToolNode; but
    the check's pay asks again when it runs."""
    from graphkit import END, interrupt
    from graphkit.prebuilt import tools_condition

    def assistant(state):
        return {"messages": [model.bind_tools(tools).invoke(state["messages"])]}

    def approve(state):
        goto = "tools" if interrupt("Run these calls?") == "yes" else "assistant"
        return Command(goto=goto)

    builder = StateGraph(MessagesState)
    builder.add_node("assistant", assistant)
    builder.add_node("approve", approve, destinations=("tools", "assistant"))
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "assistant")
    builder.add_conditional_edges("assistant", tools_condition, {"tools": "approve", END: END})
    builder.add_edge("tools", "assistant")
    return builder.compile(checkpointer=checkpointer)


def stopped_before_tools(model, tools, checkpointer):
    """A learner's breakpoint from LangChain Academy: stop before every tools step."""
    return create_react_agent(model, tools, checkpointer=checkpointer, interrupt_before=["tools"])


def runs_the_last_call_only(model, tools, checkpointer):
    """A tools node of the learner's own that runs one call of the answer, the last: it
    has every tool, and never runs the email."""
    from graphkit.prebuilt import tools_condition

    by_name = {t.name: t for t in tools}

    def assistant(state):
        return {"messages": [model.invoke(state["messages"])]}

    def run_tools(state):
        call = state["messages"][-1].tool_calls[-1]
        said = by_name[call["name"]].invoke(call["args"])
        return {"messages": [ToolMessage(said, tool_call_id=call["id"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("assistant", assistant)
    builder.add_node("tools", run_tools)
    builder.add_edge(START, "assistant")
    builder.add_conditional_edges("assistant", tools_condition)
    builder.add_edge("tools", "assistant")
    return builder.compile(checkpointer=checkpointer)


def stopped_after_tools(model, tools, checkpointer):
    """A breakpoint after every tools step: pay asks first, then the run stops again
    once every call is answered."""
    return create_react_agent(model, tools, checkpointer=checkpointer, interrupt_after=["tools"])


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (one_tool_node_task, "ran 2 times", "a task of its own"),
        (stopped_before_tools, "stopped before tools with no question", "interrupt()"),
        (without_checkpointer, "no checkpointer", "the checkpointer the check gives"),
        (without_pay, "never paused", "pay asks a human itself"),
        (asked_before_the_tools, "paused again, asking 'Pay", "pay asks a human itself"),
        (only_pay, "`email alice` never ran", "every tool the check passes"),
        (runs_the_last_call_only, "no ToolMessage answers its call", "every call"),
        (stopped_after_tools, "stopped again before agent with no question", "interrupt_after"),
        (None, "not a function", ""),
    ],
)
def test_approve_once_wrong_answers(answer, said, hint):
    assert_fails(lesson21.check_approve_once(answer), said, hint=hint)


def forgot_to_return(model, tools, checkpointer):
    create_react_agent(model, tools, checkpointer=checkpointer)


def forgot_to_compile(model, tools, checkpointer):
    from graphkit.prebuilt import tools_condition

    builder = StateGraph(MessagesState)
    builder.add_node("assistant", lambda state: {"messages": [model.invoke(state["messages"])]})
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "assistant")
    builder.add_conditional_edges("assistant", tools_condition)
    builder.add_edge("tools", "assistant")
    return builder


def langgraphs_agent(model, tools, checkpointer):
    from langgraph.prebuilt import create_react_agent as their_agent

    with warnings.catch_warnings():  # (LangGraph's: it moved to langchain.agents)
        warnings.simplefilter("ignore")
        return their_agent(model, tools, checkpointer=checkpointer)


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        # each was told "build_agent returned NoneType (StateGraph) with no checkpointer",
        # and hinted to compile with the checkpointer, which each had done or meant to
        (forgot_to_return, "build_agent returned None, not an agent", "return the agent"),
        (forgot_to_compile, "a StateGraph, not a compiled graph", "compile(checkpointer="),
        # LangGraph's own TypeError ("Invalid checkpointer provided ... Received
        # InMemorySaver"), with the hint to run the answer alone, where it works
        (langgraphs_agent, "inside LangGraph's code", "from graphkit.prebuilt"),
    ],
)
def test_approve_once_an_agent_not_returned_compiled_or_graphkits(answer, said, hint):
    assert_fails(lesson21.check_approve_once(answer), said, hint=hint)


def test_one_call_per_task_keeps_the_email_on_langgraph_too():
    """21.3's stub and solution shapes on LangGraph: one ToolNode task sends the email
    twice, a task per call once."""
    pytest.importorskip("langgraph.prebuilt")
    from langgraph.checkpoint.memory import InMemorySaver as TheirSaver
    from langgraph.prebuilt import create_react_agent as their_agent
    from langgraph.types import Command as TheirCommand
    from langgraph.types import interrupt as their_interrupt

    from graphkit.prebuilt import ScriptedChatModel

    counts = {}
    done: list[str] = []

    @tool
    def pay(euros: int) -> str:
        """Pay for the trip, once a human approves."""
        return f"{their_interrupt(f'Pay {euros} euros?')}: paid {euros} euros."

    @tool
    def email(to: str) -> str:
        """Email the itinerary."""
        done.append(f"email {to}")
        return f"Emailed {to}."

    for version in ("v1", "v2"):
        done.clear()

        calls, answer = lesson21.BATCHES[0]
        model = ScriptedChatModel(responses=[AIMessage("", tool_calls=calls), "All done."])
        app = their_agent(model, [email, pay], checkpointer=TheirSaver(), version=version)
        config = {"configurable": {"thread_id": "t"}}
        app.invoke({"messages": [HumanMessage("Book my trip.")]}, config)
        app.invoke(TheirCommand(resume=answer), config)
        counts[version] = done.count("email alice")
    assert counts == {"v1": 2, "v2": 1}


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_a_task_per_call_keeps_a_finished_calls_write_when_another_fails(library):
    """Section 2's aside: with one task per call and a checkpointer, the call that
    finished in a failed step is not run again by the retry (``invoke(None, config)``).
    The dollar call is the slower one, so the yen task fails first: the step still waits
    for it and keeps its write. (The two tasks run at once, so only the counts are
    checked, never the order they started in.)"""
    if library == "langgraph":
        pytest.importorskip("langgraph.prebuilt")
        from langgraph.checkpoint.memory import InMemorySaver as Saver
        from langgraph.prebuilt import create_react_agent as agent
    else:
        from graphkit import InMemorySaver as Saver

        agent = create_react_agent
    from graphkit.prebuilt import ScriptedChatModel

    ran, down = [], [True]

    @tool
    def convert(euros: float, currency: str) -> str:
        """Convert euros into another currency."""
        if currency == "USD":
            time.sleep(0.05)  # finishes after the yen task has failed
        ran.append(currency)
        if currency == "JPY" and down[0]:
            raise ConnectionError("the yen rates service is down")
        return f"{euros} {currency}"

    calls = [
        {"name": "convert", "args": {"euros": 10, "currency": c}, "id": c} for c in ("USD", "JPY")
    ]
    model = ScriptedChatModel(responses=[AIMessage("", tool_calls=calls), "Done."])
    app = agent(model, [convert], checkpointer=Saver())
    config = {"configurable": {"thread_id": "retry"}}
    with pytest.raises(ConnectionError):
        app.invoke({"messages": [HumanMessage("Convert 10 euros.")]}, config)
    down[0] = False
    out = app.invoke(None, config)
    assert {currency: ran.count(currency) for currency in ran} == {"USD": 1, "JPY": 2}
    assert [m.content for m in out["messages"] if m.type == "tool"] == ["10.0 USD", "10.0 JPY"]
