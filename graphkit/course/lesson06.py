"""Checks for lesson 06: messages and the ReAct agent, offline.

The checks run the learner's agent, filter node or router on the real runtime and read
the records: which node ran in which superstep, what the model asked for, what the
tools answered, and what the ``add_messages`` reducer kept.

>>> from graphkit.course.solutions import lesson06 as solutions
>>> bool(check_keep_last(solutions.keep_last))
True
"""

from __future__ import annotations

import functools
import inspect
import re
import warnings
from typing import Any

from graphkit.constants import END
from graphkit.course.checking import Wrong, compiled, exercise, trace
from graphkit.extras import require
from graphkit.inspect.values import join_names, quoted, show

__all__ = [
    "MAX_MESSAGES",
    "QUESTION",
    "TEMPERATURES",
    "check_keep_last",
    "check_should_summarize",
    "check_tool_round_trip",
    "history",
    "keep_last_graph",
    "summary_graph",
]

TEMPERATURES = {"Oslo": "4°C", "Rome": "18°C", "Lima": "15°C"}
"""What exercise 6.1's ``temperature`` tool knows."""

QUESTION = "How warm is it in Rome right now?"
"""The question exercise 6.1's agent is asked."""

MAX_MESSAGES = 6
"""Exercise 6.3: summarise when the history holds more than this many messages."""


def history(length: int, prefix: str = "m") -> list[Any]:
    """A chat history of ``length`` messages, human and AI in turn, with ids
    ``m0``, ``m1``, ... (so ``RemoveMessage(id=...)`` can find them)."""
    AIMessage, HumanMessage = _message_classes("AIMessage", "HumanMessage")

    return [
        HumanMessage(f"question {i // 2 + 1}", id=f"{prefix}{i}")
        if i % 2 == 0
        else AIMessage(f"answer {i // 2 + 1}", id=f"{prefix}{i}")
        for i in range(length)
    ]


def _message_classes(*names: str) -> tuple[Any, ...]:
    """Classes of ``langchain_core.messages`` (the agents extra), by name."""
    module = require("langchain_core.messages", extra="agents", feature="lesson 06's checks")
    return tuple(getattr(module, name) for name in names)


def _quiet_trace(app: Any, input: Any) -> Any:
    from graphkit.errors import GraphkitWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        return trace(app, input)


def _ids(messages: Any) -> list[str]:
    return [getattr(m, "id", None) for m in messages]


def _brief(value: Any) -> str:
    """A node's update to ``messages`` in a line, as the tables show messages:
    ``[ai: "answer 2" (id m3)]``, not the messages' full reprs (content,
    additional_kwargs, response_metadata, ...)."""
    if not isinstance(value, list) or not all(hasattr(m, "type") for m in value):
        return repr(value)
    return "[" + ", ".join(f"{show(m)} (id {m.id})" for m in value) + "]"


def _said(text: Any) -> str:
    """A message's text in double quotes, as ``show`` and the tables print it (Python's
    repr would switch quotes for a text with an apostrophe)."""
    return quoted(text) if isinstance(text, str) else repr(text)


# -- 6.1 · One tool round trip -------------------------------------------------------------


def _steps(nodes: list[list[str]]) -> str:
    return ", ".join(" + ".join(step) for step in nodes)


def _messages_written(result: Any) -> list[Any]:
    """The messages a task wrote to ``messages`` (its update, before the reducer)."""
    found: list[Any] = []
    for channel, value in result.writes:
        if channel == "messages":
            found.extend(value if isinstance(value, list) else [value])
    return found


def _go_on(sentence: str) -> str:
    """``sentence`` going on after a comma: its first word lowercased, unless it is a
    name (it read "…in lesson06.TEMPERATURES: The final answer…").

    >>> _go_on("The final answer"), _go_on("ScriptedChatModel ran out")
    ('the final answer', 'ScriptedChatModel ran out')
    """
    word = sentence.split(" ", 1)[0]
    plain = word[1:].islower() or len(word) == 1
    return sentence[:1].lower() + sentence[1:] if word.isalpha() and plain else sentence


@exercise("6.1 · One tool round trip")
def check_tool_round_trip(build_agent: Any) -> str:
    """``build_agent()`` returns an agent (``create_react_agent`` or hand-built) whose
    scripted model calls the ``temperature`` tool once for Rome, then answers with the
    tool's result: the steps are model, tools, model."""
    names, answer, final = _round_trip(build_agent)
    # A second run with another temperature for Rome: the tool must look it up, and the
    # final answer must be built from the tool's result, not typed into the script.
    rome = TEMPERATURES["Rome"]
    TEMPERATURES["Rome"] = "21°C"
    try:
        _round_trip(build_agent)
    except Wrong as wrong:
        hint = wrong.hint
        if "tool answered" in wrong.message or "does not give" in wrong.message:
            hint = (
                "Nothing may be typed in advance: the tool returns TEMPERATURES[city], and "
                "the final answer is a function of the messages the model was sent."
            )
        raise Wrong(
            "On a second run, with Rome set to '21°C' in lesson06.TEMPERATURES, "
            + _go_on(wrong.message),
            hint=hint,
        ) from wrong
    finally:
        TEMPERATURES["Rome"] = rome
    return (
        f"Steps 1–3 ran {names}: the model asked, the tool "
        f"answered {_said(answer.content)}, the model replied {_said(final.content)} "
        "(and followed the table when the check changed it)."
    )


def _refuse_other_cities(content: Any) -> None:
    """A tool answer that holds other cities' temperatures too (the whole table) did not
    look the city up, though Rome's value is in it."""
    others = [
        f"{city}'s {value}"
        for city, value in TEMPERATURES.items()
        if city != "Rome" and value != TEMPERATURES["Rome"] and value in str(content)
    ]
    if others:
        raise Wrong(
            f"The temperature tool answered {_said(content)}: Rome's "
            f"{TEMPERATURES['Rome']} is there, but it also gives {join_names(others)}. "
            "It looked nothing up.",
            hint="Return the one city's temperature: TEMPERATURES[city] (or "
            "TEMPERATURES.get(city, ...)).",
        )


def _say_if_an_injection_is_bare(error: Exception) -> None:
    """``state: InjectedState`` without Annotated: the tool's schema fails to build (in
    LangGraph too) with a pydantic error that names no fix."""
    found = re.search(r"schema for '([^']+)'.*?<class '[\w.]*\.(Injected\w+)'>", str(error), re.S)
    if type(error).__name__ != "PydanticInvalidForJsonSchema" or not found:
        return
    name, marker = found.groups()
    raise Wrong(
        f"Building the agent failed: a parameter of the tool {name!r} is annotated {marker} "
        "alone, so the tool's argument schema (what the model is shown) tried to describe "
        "it as an argument and could not.",
        hint=f"Annotate it as Annotated[{'dict' if marker == 'InjectedState' else '...'}, "
        f"{marker}] (from typing import Annotated): the "
        "marker then hides it from the model and the tools node fills it in.",
    ) from error


def _say_if_a_tool_message_missed_its_call(run: Any) -> None:
    """A tool that built its own ToolMessage, answering an id the model's call does not
    have: the call stays unanswered, and the next model call fails on the history."""
    AIMessage, ToolMessage = _message_classes("AIMessage", "ToolMessage")
    steps = [s for s in run.steps if s.step >= 1 and s.execution] if run is not None else []
    if len(steps) < 2:
        return
    calls = [
        call
        for r in steps[0].execution.results
        for m in _messages_written(r)
        if isinstance(m, AIMessage)
        for call in m.tool_calls
    ]
    stray = [
        m
        for r in steps[1].execution.results
        for m in _messages_written(r)
        if isinstance(m, ToolMessage) and m.tool_call_id not in [c["id"] for c in calls]
    ]
    if calls and stray:
        name = stray[0].name or calls[0]["name"]  # (a ToolMessage built by hand has none)
        raise Wrong(
            f"In step 2 the tool {name} returned a ToolMessage answering the call "
            f"{stray[0].tool_call_id!r}, but the model's call has the id {calls[0]['id']!r}: the "
            "call stayed unanswered, and the next model call refused the history.",
            hint="Return the value itself (e.g. a str); the tools node wraps it in a "
            "ToolMessage with the call's id.",
        )


def _say_if_an_injected_key_is_missing(wrong: Wrong) -> None:
    """A KeyError raised by the tools node itself (not inside the tool): a parameter
    marked InjectedState('key') asked for a key the graph's state does not have."""
    error, run = wrong.__cause__, getattr(wrong.__cause__, "run", None)
    found = re.search(r"KeyError in step \d+ \(node tools\): '(\w+)'", wrong.message)
    if not isinstance(error, KeyError) or run is None or not found:
        return
    key, keys = found.group(1), sorted(run.values)
    if key in keys:
        return
    raise Wrong(
        wrong.message,
        hint=f"InjectedState({key!r}) reads the graph's state, whose keys are "
        f"{join_names(keys)}, and hides the parameter from the model. For an argument "
        f"the model gives, use a plain parameter, {key}: str.",
    ) from error


def _round_trip(build_agent: Any) -> tuple[str, Any, Any]:
    """Run exercise 6.1's agent once; return its steps, the tool's answer and the final
    message, or raise ``Wrong`` saying what the run did instead."""
    AIMessage, ToolMessage = _message_classes("AIMessage", "ToolMessage")

    try:
        app = compiled(build_agent, "build_agent()")
    except TypeError as error:  # langchain-core builds each tool call of an AIMessage
        missing = re.findall(r"'(name|args|id)'", str(error))
        if "tool_call()" not in str(error) or not missing:
            raise
        needs = {
            "name": "a 'name' (the tool to run)",
            "args": "its 'args' (a dict of the tool's arguments)",
            "id": "an 'id' (any string, e.g. 'call-1'): the ToolMessage that answers the "
            "call carries the same id, so the model can tell which call it answers",
        }
        raise Wrong(
            f"Scripting the model raised TypeError: {error}. Each tool call of an "
            f"AIMessage needs {join_names([needs[key] for key in missing])}.",
            hint="Write each tool call as {'name': ..., 'args': {...}, 'id': ...}.",
        ) from None
    except Exception as error:
        _say_if_an_injection_is_bare(error)
        raise
    try:
        run = _quiet_trace(app, {"messages": [("user", QUESTION)]})
    except Wrong as wrong:
        _say_if_a_tool_message_missed_its_call(getattr(wrong.__cause__, "run", None))
        _say_if_an_injected_key_is_missing(wrong)
        if "ScriptExhaustedError" not in wrong.message:
            raise
        raise Wrong(
            wrong.message,
            hint="The model ran out of script. A ScriptedChatModel answers its script "
            "once: script one answer per model call (a tool call, then the final answer), "
            "and create the model inside build_agent so each run gets a fresh one.",
        ) from wrong
    loop = [s for s in run.steps if s.step >= 1 and s.plan.tasks]
    nodes = [s.plan.nodes for s in loop]
    if not loop:
        raise Wrong("Your agent ran no node after __start__.", hint="Connect START to the model.")
    first = [m for r in loop[0].execution.results for m in _messages_written(r)]
    asked = [m for m in first if isinstance(m, AIMessage) and m.tool_calls]
    if not asked:
        said = first[-1].content if first else None
        raise Wrong(
            f"In step 1 the model answered {_said(said)} with no tool call, so the run ended "
            "there. The tools never ran.",
            hint="The model's first scripted answer must ask for the tool: a message carrying "
            "a tool call (the tool's name, its arguments, an id). The agent then runs the "
            "tool and asks the model again.",
        )
    # (a script too short fails above, as ScriptExhaustedError: here the graph stopped)
    if len(loop) == 1:
        asked_for = join_names(sorted({call["name"] for m in asked for call in m.tool_calls}))
        raise Wrong(
            f"In step 1 the model asked for {asked_for}, but the run ended there: no "
            "tools node ran the call.",
            hint="Give the agent your tool: create_react_agent(model, [temperature]) adds "
            "a tools node and routes a tool call to it.",
        )
    answered = [
        (r.task.node, m)
        for r in loop[1].execution.results
        for m in _messages_written(r)
        if isinstance(m, ToolMessage)
    ]
    tool_messages = [m for _, m in answered]
    if len(loop) == 2 and answered:  # (a step 2 with no ToolMessage is said below)
        model, tools = loop[0].plan.nodes[0], answered[0][0]
        raise Wrong(
            f"The run stopped after the steps {_steps(nodes)}: the tools ran in step 2, but "
            "nothing led back to the model, so it never saw the tool's answer.",
            hint=f"Add the edge {tools} → {model} (create_react_agent adds it for you).",
        )
    if not tool_messages:
        raise Wrong(
            f"Step 2 ran {_steps(nodes[1:2])}, which wrote no ToolMessage; the tools node should "
            "answer the model's tool call there.",
            hint="Use ToolNode([...]) and tools_condition, or create_react_agent.",
        )
    answer = tool_messages[0]
    if answer.status == "error":
        raise Wrong(
            f"The tool call failed in step 2: the tools node answered {_said(answer.content)}.",
            hint="The call's name and args must fit your tool: temperature(city='Rome').",
        )
    if answer.name != "temperature":
        raise Wrong(
            f"Step 2 called the tool {answer.name!r}; this exercise wants a tool named "
            "'temperature'.",
            hint="@tool def temperature(city: str) -> str: ...",
        )
    if TEMPERATURES["Rome"] not in str(answer.content):
        raise Wrong(
            f"The temperature tool answered {_said(answer.content)} for the call "
            f"{asked[0].tool_calls[0]['args']}; expected Rome's {TEMPERATURES['Rome']} "
            "from lesson06.TEMPERATURES.",
            hint="Look the city up in TEMPERATURES, and call it with city='Rome'.",
        )
    _refuse_other_cities(answer.content)
    if len(loop) != 3:
        raise Wrong(
            f"The run took {len(loop)} steps after __start__ ({_steps(nodes)}); one tool "
            "round trip "
            "is model, tools, model.",
            hint="After the tool's answer, script a plain answer (no tool calls).",
        )
    final = run.values["messages"][-1]
    if not isinstance(final, AIMessage) or final.tool_calls:
        raise Wrong(
            f"The last message is {show(final)}; expected the model's final answer.",
            hint="Script a plain answer as the model's second response.",
        )
    if TEMPERATURES["Rome"] not in str(final.content):
        raise Wrong(
            f"The final answer {_said(final.content)} does not give the tool's result "
            f"{_said(answer.content)}.",
            hint="A scripted response can be a function: lambda messages: ... "
            "messages[-1].content ...",
        )
    return _steps(nodes), answer, final


# -- 6.2 · Keep the last N messages --------------------------------------------------------


def keep_last_graph(keep_last: Any, n: int = 2) -> Any:
    """The exercise's graph: START → ``filter`` (``keep_last(state, n)``) → END, on
    ``MessagesState``."""
    from graphkit import END, START, StateGraph
    from graphkit.prebuilt import MessagesState

    def filter(state: MessagesState) -> Any:
        return keep_last(state, n)

    builder = StateGraph(MessagesState)
    builder.add_node("filter", filter)
    builder.add_edge(START, "filter")
    builder.add_edge("filter", END)
    return builder.compile()


@exercise("6.2 · Keep the last N messages")
def check_keep_last(keep_last: Any) -> str:
    """``keep_last(state, n)`` deletes, with ``RemoveMessage``, every message but the last
    ``n`` — checked for several ``n`` (0: delete them all) and history lengths."""
    cases = [(2, 5), (2, 2), (2, 1), (3, 8), (1, 4), (4, 10), (0, 3)]
    edits: list[tuple[list[str], list[str]]] = []
    misuses: list[Any] = []  # what RemoveMessage was given instead of an id

    def watched(state: Any, n: int) -> Any:
        # The list a node is handed is the channel's own: deleting from it "works", and
        # rewrites the history the records show, so it is caught before the result.
        given = state["messages"]
        before = _ids(given)
        try:
            update = keep_last(state, n)
        except Exception as error:
            if (given_instead := _remove_message_given(error)) is None:
                raise
            misuses.append(given_instead)
            return {}
        if _ids(given) != before:
            edits.append((before, _ids(given)))
        return update

    for n, length in cases:
        messages = history(length)
        run = _quiet_trace(keep_last_graph(watched, n), {"messages": messages})
        if misuses:
            raise Wrong(
                f"RemoveMessage was given {_given(misuses[0])}, but it takes the id of the "
                "message to delete (a string), not the message itself.",
                hint="Each message has its id in m.id: RemoveMessage(id=m.id).",
            )
        if edits:
            before, after = edits[0]
            raise Wrong(
                f"With n={n}, your node changed state['messages'] in place: inside keep_last "
                f"the list went from {before} to {after}. A node never edits the state it is "
                "given; it returns an update, and the reducer applies it in the Update. The "
                "list was the channel's own, so the records now say step 0 already held "
                f"{_ids(run.step(0).update.change('messages').after)}: editing in place "
                "rewrote history (lesson 03).",
                hint="Leave state['messages'] as it is, and return RemoveMessages for the "
                "ones to delete: add_messages deletes only those.",
            )
        kept = _ids(run.values["messages"])
        expected = _ids(messages[length - n :])  # (messages[-n:] is all of them for n=0)
        if kept == expected:
            continue
        change = run.step(1).update.change("messages") if len(run.steps) > 2 else None
        written = change.values if change is not None else ()
        wrote = (
            f" Your node wrote {_brief(written[0])}." if written else " Your node wrote nothing."
        )
        if n == 0 and len(kept) == length:
            raise Wrong(
                f"With n=0 and {length} messages ({_ids(messages)}), every message should go, "
                f"but all {length} are still there.{wrote}",
                hint="messages[:-n] is messages[:0], empty, when n is 0: slice up to "
                "len(messages) - n instead.",
            )
        if len(kept) == length:
            raise Wrong(
                f"With n={n} and {length} messages ({_ids(messages)}), all {length} are still "
                f"there after the filter.{wrote} add_messages merges by id: messages it "
                "already has stay; only a RemoveMessage deletes one.",
                hint="Only a removal, naming a message by its id, deletes it: write one for each "
                "message before the last n.",
            )
        raise Wrong(
            f"With n={n} and {length} messages ({_ids(messages)}), the filter kept {kept}; "
            f"expected the last {n}: {expected}.",
            hint="Which messages are 'all but the last n'? Slice up to len(messages) - n "
            "(messages[:-n] keeps them all when n is 0).",
        )
    return f"Right on all {len(cases)} histories: only the last n messages survive."


def _given(value: Any) -> str:
    """A value a learner passed, in a line: a message as ``the message human: "hi" (id m0)``."""
    return f"the message {_brief([value])[1:-1]}" if hasattr(value, "type") else repr(value)


def _remove_message_given(error: Exception) -> Any:
    """What a ``RemoveMessage(...)`` that pydantic refused was given as its ``id``, when
    that is what ``error`` is (None otherwise): a learner writes ``RemoveMessage(m)``."""
    if getattr(error, "title", None) != "RemoveMessage" or not hasattr(error, "errors"):
        return None
    for problem in error.errors():
        if tuple(problem.get("loc", ())) == ("id",):
            return problem.get("input")
    return None


# -- 6.3 · Summarise only when the history is long ----------------------------------------


def summary_graph(should_summarize: Any) -> Any:
    """The exercise's graph: ``conversation`` (adds one AI reply) → your router →
    ``summarize_conversation`` (writes ``summary``, keeps the last 2 messages) or END."""
    AIMessage, RemoveMessage = _message_classes("AIMessage", "RemoveMessage")

    from graphkit import END, START, StateGraph
    from graphkit.prebuilt import MessagesState

    class State(MessagesState):
        summary: str

    def conversation(state: State) -> dict:
        return {"messages": [AIMessage(f"reply {len(state['messages'])}", id="reply")]}

    def summarize_conversation(state: State) -> dict:
        removed = [RemoveMessage(id=m.id) for m in state["messages"][:-2]]
        return {"summary": f"summary of {len(state['messages'])} messages", "messages": removed}

    builder = StateGraph(State)
    builder.add_node("conversation", conversation)
    builder.add_node("summarize_conversation", summarize_conversation)
    builder.add_edge(START, "conversation")
    builder.add_conditional_edges("conversation", should_summarize, ["summarize_conversation", END])
    builder.add_edge("summarize_conversation", END)
    return builder.compile()


_DESTINATIONS = ("summarize_conversation", END)


def _strays(choice: Any) -> bool:
    """Whether a router's ``choice`` names anything but the two destinations (a list's
    items too); a dict or a Send gets the runtime's own words."""
    from graphkit import Send

    items = choice if isinstance(choice, (list, tuple)) else [choice]
    return any(not isinstance(item, (dict, Send)) and item not in _DESTINATIONS for item in items)


def _stray(size: int, choice: Any) -> Wrong:
    """The verdict for a router that returned neither destination: the graph is the
    check's, so its conditional edge, not the learner, decides what may be returned."""
    where = f"With {size} message{'s' if size != 1 else ''} after conversation (step 1)"
    if choice is None:
        return Wrong(
            f"{where}, your router returned None: a function that reaches its end without "
            "a return statement returns None. The conditional edge goes only to "
            "'summarize_conversation' or END.",
            hint="Give every path of the router a return: 'summarize_conversation' for a "
            "long history, END otherwise.",
        )
    if choice == "END":
        return Wrong(
            f"{where}, your router returned the string 'END'; END is a constant whose value "
            "is '__end__'.",
            hint="Return END itself (from graphkit import END), not the string 'END'.",
        )
    test = (
        " A comparison is True or False, not a destination: use it in an if."
        if isinstance(choice, bool)
        else ""
    )
    return Wrong(
        f"{where}, your router returned {choice!r}; the conditional edge goes only to "
        f"'summarize_conversation' (the node's name) or END.{test}",
        hint="Return exactly 'summarize_conversation' or END.",
    )


@exercise("6.3 · Summarise only when the history is long")
def check_should_summarize(should_summarize: Any) -> str:
    """``should_summarize(state)`` routes to ``summarize_conversation`` when the history
    holds more than ``MAX_MESSAGES`` messages, else to ``END`` — checked on histories
    from 1 to 10 messages."""
    strays: list[tuple[int, Any]] = []  # (messages the router saw, what it returned)

    @functools.wraps(should_summarize)
    def watched(state: Any) -> Any:
        choice = should_summarize(state)
        if _strays(choice):
            strays.append((len(state["messages"]), choice))
        return choice

    # (an async router is left as it is: the runtime says to make it a plain def)
    async_router = inspect.iscoroutinefunction(should_summarize)
    app = summary_graph(should_summarize if async_router else watched)
    wrong = []  # (messages after `conversation`, summarised?)
    for length in range(0, 10):
        try:
            run = _quiet_trace(app, {"messages": history(length), "summary": ""})
        except Wrong:
            if strays:
                raise _stray(*strays[0]) from None
            raise
        size = length + 1  # conversation adds its reply in step 1
        summarized = any("summarize_conversation" in s.plan.nodes for s in run.steps)
        if summarized != (size > MAX_MESSAGES):
            wrong.append((size, summarized))
    if wrong:
        size, summarized = wrong[0]
        did = "summarised" if summarized else "ended without a summary"
        boundary = len(wrong) == 1 and size in (MAX_MESSAGES, MAX_MESSAGES + 1)
        raise Wrong(
            f"With {size} message{'s' if size != 1 else ''} after conversation (step 1), "
            f"your router {did}; it should {'end' if summarized else 'summarise'}: summarise "
            f"only when there are more than {MAX_MESSAGES} (wrong for "
            f"{len(wrong)} of the 10 histories).",
            hint=(
                f"Compare len(state['messages']) with MAX_MESSAGES: more than {MAX_MESSAGES}, "
                f"not at least {MAX_MESSAGES} ({MAX_MESSAGES} messages end, "
                f"{MAX_MESSAGES + 1} summarise)."
                if summarized
                else f"Compare len(state['messages']) with MAX_MESSAGES: {MAX_MESSAGES + 1} "
                f"messages are already more than {MAX_MESSAGES}, so they summarise "
                f"({MAX_MESSAGES} end)."
            )
            if boundary
            else "The router sees the whole state: let the number of messages in it decide "
            "between summarising and ending.",
        )
    return (
        f"Summarised exactly when the history had more than {MAX_MESSAGES} messages "
        "(checked from 1 to 10)."
    )
