"""Checks for lesson 21 · Tools in depth: parallel calls, errors, tools that change the
state, and a human approving a call.

Each check runs the learner's tool, error handling or agent inside a graph of its own,
with tool calls of its own (other amounts, cities and call ids than the lesson's), and
reads what the run did: the state, the ToolMessages, what ran twice. A hard-coded answer
cannot pass.

- ``check_set_budget(set_budget)``: a tool that writes the state key ``budget`` and
  answers its own call with a ToolMessage.
- ``check_tool_errors(tool_errors)``: a ``handle_tool_errors`` under which the model
  reads a wrong argument and a refusal, while a service that is down stops the run.
- ``check_approve_once(build_agent)``: an agent whose payment waits for a human, and
  whose other calls of the same answer run once, not again on the resume.

>>> from graphkit.course.solutions import lesson21 as solutions
>>> bool(check_set_budget(solutions.set_budget)), bool(check_tool_errors(solutions.tool_errors))
(True, True)
>>> bool(check_approve_once(solutions.build_agent))
True
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from graphkit.course.checking import Wrong, exercise, what_was_given
from graphkit.errors import GraphkitWarning
from graphkit.prebuilt import MessagesState

__all__ = [
    "Budget",
    "check_approve_once",
    "check_set_budget",
    "check_tool_errors",
]


def _call(name: str, call_id: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id}


def _tools_graph(tool_node: Any, state: Any = MessagesState) -> Any:
    """A graph whose only node, ``tools``, is ``tool_node``."""
    from graphkit import START, StateGraph

    builder = StateGraph(state)
    builder.add_node("tools", tool_node)
    builder.add_edge(START, "tools")
    return builder.compile()


def _asking(*calls: dict[str, Any]) -> dict[str, Any]:
    from langchain_core.messages import AIMessage, HumanMessage

    return {
        "messages": [HumanMessage("Plan my trip.", id="ask"), AIMessage("", tool_calls=[*calls])]
    }


# -- 21.1 · a tool that sets the budget ----------------------------------------------------------


class Budget(MessagesState):
    budget: int


@exercise("21.1 · A tool that sets the budget")
def check_set_budget(set_budget: Any) -> str:
    """``set_budget`` is a tool the model calls with ``euros``; run by a ToolNode, it must
    write ``budget`` and answer its call with a ToolMessage. Tried on two calls of the
    check's own, with their own ids."""
    from langchain_core.messages import ToolMessage
    from langchain_core.tools import BaseTool

    from graphkit.prebuilt import ToolNode

    if not isinstance(set_budget, BaseTool) and not callable(set_budget):
        raise Wrong(f"set_budget is {set_budget!r}, not a tool.", "Write it with @tool.")
    if isinstance(set_budget, type):  # (ToolNode would make a tool of its __init__)
        raise Wrong(
            f"set_budget is {what_was_given(set_budget)}, not a tool.", "Write it with @tool."
        )
    tool_node = ToolNode([set_budget])
    (name, tool), *_ = tool_node.tools_by_name.items()
    asked = set(tool.tool_call_schema.model_json_schema().get("properties", {}))
    if asked != {"euros"}:
        raise Wrong(
            f"The model is asked for the arguments {sorted(asked)}, not just ['euros']: "
            "it fills in every argument the tool's schema shows it.",
            "The model knows the amount only. What the graph knows (the call's id) must be "
            "an argument the graph fills in, hidden from the model (section 3).",
        )
    for euros, call_id in ((450, "call-7f3a"), (1200, "budget-b2")):
        try:
            with warnings.catch_warnings():  # a key not in the state: said better below
                warnings.simplefilter("ignore", GraphkitWarning)
                state = _tools_graph(tool_node, Budget).invoke(
                    {**_asking(_call(name, call_id, euros=euros)), "budget": 0}
                )
        except ValueError as error:
            _returned_wrong(tool, _call(name, call_id, euros=euros))
            answered = _answered_ids(tool, _call(name, call_id, euros=euros))
            if call_id in answered:  # (it does answer the call: the error is another)
                answered = []
            raise Wrong(
                f"(euros={euros}, call id {call_id!r}) the tools step failed with ValueError: "
                f"{str(error).split(';')[0]}"
                + (f"; its ToolMessage answers {answered[0]!r}." if answered else "."),
                "The call's id changes with every call: take it from an argument annotated "
                "InjectedToolCallId, which the graph fills in (section 3)."
                if answered
                else "A tool that returns a Command answers its call itself: the update must "
                "hold a ToolMessage whose tool_call_id is the id of the call being run.",
            ) from None
        last = state["messages"][-1]
        if state.get("budget") != euros:
            _budget_written_wrong(tool, _call(name, call_id, euros=euros), state["budget"])
            said = f"answered {last.content!r}" if isinstance(last, ToolMessage) else "ran"
            raise Wrong(
                f"(euros={euros}) your tool {said}, but budget is still "
                f"{state.get('budget')!r}: the state key was never written.",
                "What a tool returns becomes its ToolMessage's text, and nothing else. "
                "Section 3 shows how a tool writes another key of the state.",
            )
        if not isinstance(last, ToolMessage) or last.tool_call_id != call_id:
            answering = getattr(last, "tool_call_id", None)
            raise Wrong(
                f"(call id {call_id!r}) the last message is {type(last).__name__}"
                f"{f' answering {answering!r}' if answering else ''}, not a ToolMessage "
                "answering this call.",
                "Answer the call with the id the graph gives the tool, never a fixed one.",
            )
    return (
        "The model gave only the amount; your tool wrote budget and answered each call by "
        "its own id, in the tools task's writes."
    )


def _alone(tool: Any, call: dict[str, Any]) -> Any:
    """What ``tool`` returns for ``call``, run on its own, with the state arguments the
    graph fills in (``InjectedState``) read from the state the check ran it on."""
    from graphkit.prebuilt.tool_args import injected_args

    state = {**_asking(call), "budget": 0}
    filled = {
        name: state if key is None else state.get(key)
        for name, key in injected_args(tool).state.items()
    }
    return tool.invoke({**call, "args": {**call["args"], **filled}, "type": "tool_call"})


def _answered_ids(tool: Any, call: dict[str, Any]) -> list[Any]:
    """The tool_call_ids of the ToolMessages in the update of the Command the tool returns
    for ``call`` (run again, on its own); [] if it returns no such Command."""
    from graphkit import Command

    try:
        returned = _alone(tool, call)
    except Exception:
        return []
    if not isinstance(returned, Command) or not isinstance(returned.update, dict):
        return []
    messages = returned.update.get("messages") or []
    return [m.tool_call_id for m in messages if getattr(m, "type", None) == "tool"]


def _returned_wrong(tool: Any, call: dict[str, Any]) -> None:
    """Say so if the tool, run again on its own, raises, or returns a Command whose
    messages is one message rather than a list: the run's ValueError was then not about a
    call left unanswered."""
    from graphkit import Command

    euros = call["args"]["euros"]
    try:
        returned = _alone(tool, call)
    except Exception as error:
        raise Wrong(
            f"(euros={euros}) your tool raised {type(error).__name__}: {error}, and the run "
            "stopped: the model never heard back.",
            "Set the budget for any amount the model gives: the check calls the tool with "
            "amounts of its own.",
        ) from None
    update = returned.update if isinstance(returned, Command) else None
    messages = update.get("messages") if isinstance(update, dict) else None
    if getattr(messages, "type", None) == "tool":
        raise Wrong(
            f"(euros={euros}) your tool's Command writes messages as one ToolMessage, not a "
            "list of them: add_messages went through the message's fields as if it were a "
            "list of messages.",
            'Put the answer in a list: "messages": [ToolMessage(..., tool_call_id=tool_call_id)].',
        )


def _budget_written_wrong(tool: Any, call: dict[str, Any], budget: Any) -> None:
    """Say so if the tool's ``Command`` wrote another value, or another key, than
    ``budget``: the tool is called again, on its own, to read its update."""
    from graphkit import Command

    euros = call["args"]["euros"]
    if budget != 0:  # (the check starts from 0: something was written)
        raise Wrong(
            f"(euros={euros}) your tool wrote budget {budget!r}, not {euros!r}.",
            "Write the amount the model gave, euros, as it is: the check calls the tool "
            "with amounts of its own.",
        )
    returned = _alone(tool, call)
    if isinstance(returned, Command) and isinstance(returned.update, dict):
        raise Wrong(
            f"(euros={euros}) your tool returned a Command whose update writes "
            f"{sorted(returned.update)}, and budget is still 0: the state has no other key "
            "for the amount.",
            "Write the amount under budget, the key of lesson21.Budget beside messages.",
        )


# -- 21.2 · errors the model reads, errors that stop ----------------------------------------------

FULL = ("Bergen", "Nice")
DOWN = "Porto"


def _book_room() -> Any:
    from langchain_core.tools import tool

    @tool
    def book_room(city: str, nights: int) -> str:
        """Book a hotel room in a city for some nights."""
        if city == DOWN:
            raise ConnectionError("the booking service is down")
        if city in FULL:
            raise ValueError(f"no rooms left in {city}")
        return f"Booked {nights} nights in {city}."

    return book_room


def _outcome(tool_errors: Any, **args: Any) -> Any:
    """The ToolMessage the model gets for one ``book_room`` call, or the error that
    stopped the run."""
    from graphkit.prebuilt import ToolNode

    app = _tools_graph(ToolNode([_book_room()], handle_tool_errors=tool_errors))
    try:
        return app.invoke(_asking(_call("book_room", "call-room", **args)))["messages"][-1]
    except Exception as error:  # (the run stopped: what stopped it)
        return error


def _text(message: Any) -> str:
    """A ToolMessage's text on one line: quoted with its newlines, it showed ``\\n``."""
    return " ".join(str(message.content).split())


def _names_langgraphs_invocation_error(tool_errors: Any) -> bool:
    """Whether ``tool_errors`` (a class, a tuple of them, or a function whose first
    argument's annotation names them) names a ToolInvocationError that is not graphkit's,
    such as LangGraph's, which the lesson says where to import."""
    import inspect
    import typing

    from graphkit.prebuilt import ToolInvocationError

    named: list[Any] = []
    if inspect.isfunction(tool_errors):
        try:
            hints = typing.get_type_hints(tool_errors)
        except Exception:  # an annotation that does not resolve names nothing we can read
            hints = {}
        first = next(iter(inspect.signature(tool_errors).parameters), None)
        named = [hints.get(first)]
    else:
        named = list(tool_errors) if isinstance(tool_errors, tuple) else [tool_errors]
    classes = [arg for kind in named for arg in (typing.get_args(kind) or (kind,))]
    return any(
        isinstance(kind, type)
        and kind.__name__ == "ToolInvocationError"
        and kind is not ToolInvocationError
        for kind in classes
    )


def _handler_raised(tool_errors: Any, outcome: Any, call: str) -> None:
    """Say so if ``outcome`` is an error raised by the learner's handling function itself
    (its code is in the traceback, and the error is not the one the tool raised, which
    a handler may raise again on purpose)."""
    if not isinstance(outcome, Exception) or not hasattr(tool_errors, "__code__"):
        return
    frames, traceback = [], outcome.__traceback__
    while traceback is not None:
        frames.append(traceback.tb_frame.f_code)
        traceback = traceback.tb_next
    if tool_errors.__code__ in frames and outcome.__context__ is not None:
        raise Wrong(
            f"{call}: your function raised {type(outcome).__name__}: {outcome}, while "
            f"handling the tool's {type(outcome.__context__).__name__}, and the run stopped.",
            "Call your function on its own with an error, e.g. ValueError('no rooms left'), "
            "and read what it raises: it must return the text the model reads.",
        )


@exercise("21.2 · Errors the model reads, errors that stop")
def check_tool_errors(tool_errors: Any) -> str:
    """``tool_errors``, given to ``ToolNode(handle_tool_errors=...)``: a wrong argument
    and a full hotel must reach the model as error ToolMessages, a service that is down
    must stop the run. Tried on calls of the check's own."""
    booked = _outcome(tool_errors, city="Lyon", nights=2)
    if getattr(booked, "status", None) != "success":
        raise Wrong(
            f"A call that works was answered {booked!r}.",
            "Change only what happens when a tool fails.",
        )
    full = _outcome(tool_errors, city=FULL[1], nights=3)
    _handler_raised(tool_errors, full, f"book_room(city={FULL[1]!r})")
    if isinstance(full, Exception) or "no rooms left" not in str(full.content):
        said = "stopped the run" if isinstance(full, Exception) else f"gave {_text(full)!r}"
        raise Wrong(
            f"book_room(city={FULL[1]!r}) raised ValueError('no rooms left in {FULL[1]}'), "
            f"and your handling {said}: the model never read that the hotel is full.",
            "The model can fix this one (another city): the error's text must reach it "
            "in the ToolMessage.",
        )
    down = _outcome(tool_errors, city=DOWN, nights=1)
    _handler_raised(tool_errors, down, f"book_room(city={DOWN!r})")
    if not isinstance(down, ConnectionError):
        raise Wrong(
            f"book_room(city={DOWN!r}) raised ConnectionError('the booking service is "
            f"down'), and the model got a ToolMessage, {_text(down)!r}: it would call the "
            "broken service again, and the run would never say it failed.",
            "Catch only the errors the model can fix, by their classes; let the others "
            "stop the run, as a node's error does.",
        )
    wrong = _outcome(tool_errors, city="Lyon", nights="three")
    _handler_raised(tool_errors, wrong, "book_room(nights='three')")
    if isinstance(wrong, Exception) and _names_langgraphs_invocation_error(tool_errors):
        raise Wrong(
            "book_room(nights='three'), an argument that is not a number, stopped the run, "
            "though your handling names LangGraph's ToolInvocationError (from "
            "langgraph.prebuilt.tool_node): graphkit's ToolNode raises a class of its own, "
            "which that one does not catch.",
            "Import ToolInvocationError from graphkit.prebuilt, the library the lesson's "
            "ToolNode comes from.",
        )
    if isinstance(wrong, Exception) or "nights" not in str(wrong.content):
        said = "stopped the run" if isinstance(wrong, Exception) else f"gave {_text(wrong)!r}"
        raise Wrong(
            f"book_room(nights='three'), an argument that is not a number, {said}: the "
            "model never read which argument was wrong.",
            "A wrong argument is not the tool's own error: it fails before the tool runs, "
            "with a class of its own (section 2).",
        )
    return (
        "A wrong argument and a full hotel reached the model as error ToolMessages; the "
        "service that was down stopped the run."
    )


# -- 21.3 · approve once ---------------------------------------------------------------------------


def _trip_tools(done: list[str]) -> list[Any]:
    """``email`` and ``book`` note their side effect in ``done``; ``pay`` asks a human
    with ``interrupt`` first, and pays only on ``"yes"``."""
    from langchain_core.tools import tool

    from graphkit import interrupt

    @tool
    def email(to: str) -> str:
        """Email the itinerary."""
        done.append(f"email {to}")
        return f"Emailed {to}."

    @tool
    def book(hotel: str) -> str:
        """Book a hotel."""
        done.append(f"book {hotel}")
        return f"Booked {hotel}."

    @tool
    def pay(euros: int) -> str:
        """Pay for the trip, once a human approves."""
        if interrupt(f"Pay {euros} euros?") != "yes":
            return "The payment was refused."
        done.append(f"pay {euros}")
        return f"Paid {euros} euros."

    return [email, book, pay]


BATCHES = (
    ([_call("email", "c-1", to="alice"), _call("pay", "c-2", euros=120)], "yes"),
    (
        [
            _call("book", "c-3", hotel="Hotel Sol"),
            _call("pay", "c-4", euros=80),
            _call("email", "c-5", to="bob"),
        ],
        "no",
    ),
)


def _agent(build_agent: Callable[[Any, Any, Any], Any], *given: Any) -> Any:
    """What ``build_agent`` returns, told apart from a graph that cannot run: None (no
    return), a builder not compiled, or LangGraph's agent refusing graphkit's saver."""
    try:
        app = build_agent(*given)
    except Exception as error:
        frames, traceback = [], error.__traceback__
        while traceback is not None:
            frames.append(traceback.tb_frame.f_globals.get("__name__", ""))
            traceback = traceback.tb_next
        if not any(name.split(".")[0] == "langgraph" for name in frames):
            raise
        raise Wrong(
            f"build_agent raised {type(error).__name__} inside LangGraph's code (an import "
            f"from langgraph): {error}",
            "The check gives build_agent graphkit's saver, which LangGraph refuses: import "
            "create_react_agent from graphkit.prebuilt (StateGraph from graphkit), as the "
            "lesson does.",
        ) from None
    if app is None:
        raise Wrong(
            "build_agent returned None, not an agent.",
            "End build_agent with return: return the agent you built.",
        )
    if not hasattr(app, "invoke") and hasattr(app, "compile"):
        raise Wrong(
            f"build_agent returned a {type(app).__name__}, not a compiled graph: a builder "
            "does not run.",
            "Return builder.compile(checkpointer=checkpointer).",
        )
    return app


@exercise("21.3 · Approve a payment, email once")
def check_approve_once(build_agent: Callable[[Any, Any, Any], Any]) -> str:
    """``build_agent(model, tools, checkpointer)`` returns an agent; the model asks for a
    payment and other tools in one answer. The payment must wait for a human, and every
    other call must run once, before the pause, and not again on the resume."""
    from langchain_core.messages import AIMessage, ToolMessage

    from graphkit import Command, InMemorySaver
    from graphkit.prebuilt import ScriptedChatModel

    if not callable(build_agent):
        raise Wrong(f"build_agent is {build_agent!r}, not a function.", "Write it with def.")
    for number, (calls, answer) in enumerate(BATCHES, 1):
        done: list[str] = []
        model = ScriptedChatModel(responses=[AIMessage("", tool_calls=calls), "All done."])
        app = _agent(build_agent, model, _trip_tools(done), InMemorySaver())
        if getattr(app, "checkpointer", None) is None:
            raise Wrong(
                f"build_agent returned {type(app).__name__} with no checkpointer: a run that "
                "pauses could not be resumed.",
                "Compile the agent with the checkpointer the check gives build_agent.",
            )
        config = {"configurable": {"thread_id": f"check-21.3-{number}"}}
        app.invoke({"messages": [("user", "Book my trip.")]}, config)
        paused = app.get_state(config)
        others = [f"{c['name']} {next(iter(c['args'].values()))}" for c in calls]
        others = [name for name in others if not name.startswith("pay")]
        if not paused.interrupts and paused.next:
            # A static breakpoint (interrupt_before/after) stops the run with no question.
            raise Wrong(
                f"(batch {number}) the run stopped before {', '.join(sorted(set(paused.next)))} "
                "with no question to answer: a stop set by interrupt_before (or "
                "interrupt_after) asks nothing, and pay never ran to ask about the payment.",
                "Compile without interrupt_before or interrupt_after, and let the tools run: "
                "pay pauses the run itself, with interrupt(), and its question is the one "
                "to answer.",
            )
        if not paused.interrupts:
            raise Wrong(
                f"(batch {number}) the run never paused to ask about the payment: it ended "
                f"with next {paused.next}.",
                "Run the model's tool calls with the tools given: pay asks a human itself.",
            )
        app.invoke(Command(resume=answer), config)
        final = app.get_state(config)
        if final.interrupts:
            raise Wrong(
                f"(batch {number}) after the answer {answer!r} to "
                f"{paused.interrupts[0].value!r}, the run paused again, asking "
                f"{final.interrupts[0].value!r}: one payment, two questions.",
                "pay asks a human itself, with interrupt(), when its call runs: a question "
                "of your own before the tools asks twice. Let pay's question be the only "
                "one, and give each call a task of its own (section 4).",
            )
        if final.next:
            # A static breakpoint after the tools (or before the model) stops once more.
            raise Wrong(
                f"(batch {number}) after the answer {answer!r}, the run stopped again before "
                f"{', '.join(sorted(set(final.next)))} with no question to answer: a stop set "
                "by interrupt_after (or interrupt_before) asks nothing, and the model never "
                "read the tools' answers.",
                "Compile without interrupt_before or interrupt_after: pay pauses the run "
                "itself, with interrupt(), and its question is the only one to answer.",
            )
        never = [
            (name, call["id"])
            for name, call in zip(others, [c for c in calls if c["name"] != "pay"], strict=True)
            if done.count(name) == 0
        ]
        answers = {
            m.tool_call_id: m for m in final.values["messages"] if isinstance(m, ToolMessage)
        }
        if never and never[0][1] not in answers:
            raise Wrong(
                f"(batch {number}) `{never[0][0]}` never ran, and no ToolMessage answers its "
                f"call ({never[0][1]!r}): your agent ran only some of the model's "
                f"{len(calls)} calls.",
                "Run every call of the model's answer, each in a task of its own (section 4).",
            )
        if never:
            raise Wrong(
                f"(batch {number}) `{never[0][0]}` never ran, though the model asked for it: "
                f"its call was answered {_text(answers[never[0][1]])!r}.",
                "Give the agent every tool the check passes to build_agent.",
            )
        twice = [name for name in others if done.count(name) != 1]
        if twice:
            name = twice[0]
            raise Wrong(
                f"(batch {number}, {len(calls)} calls in one answer) `{name}` ran "
                f"{done.count(name)} times: before the pause, and again when the resume "
                "ran the paused task from its start.",
                "A resume runs again the whole task that paused, with every call it holds. "
                "Give each call a task of its own, so a finished one is not run again "
                "(section 4).",
            )
        answered = {m.tool_call_id for m in final.values["messages"] if isinstance(m, ToolMessage)}
        if final.next or answered != {call["id"] for call in calls}:
            raise Wrong(
                f"(batch {number}) after the answer {answer!r}, the calls answered were "
                f"{sorted(answered)}, of {[call['id'] for call in calls]}; next "
                f"{final.next}.",
                "Every call of the answer needs its ToolMessage before the model runs again.",
            )
    return (
        "The payment waited for a human, and each other call ran once: its task had "
        "finished before the pause, and the resume ran only the task that paused."
    )
