"""Checks for lesson 24 · Messages in depth: ids, replacing, removing, and a history the
model refuses.

Each check runs the learner's node or function in a graph of its own, on histories of its
own (other contents, ids and lengths than the lesson's), and reads what the run did: the
messages and their ids, what the node wrote. A hard-coded answer cannot pass.

- ``check_sign(sign)``: a node that signs the last AI answer in place, keeping its id and
  its position, without a second copy.
- ``check_keep_recent(keep_recent)``: the update that keeps the system message and the
  last ``n`` others.
- ``check_repair(repair)``: the update that lets an agent go on from a history whose tool
  calls wait for an answer, keeping every message.

>>> from graphkit.course.solutions import lesson24 as solutions
>>> bool(check_sign(solutions.sign)), bool(check_keep_recent(solutions.keep_recent))
(True, True)
>>> bool(check_repair(solutions.repair))
True
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from graphkit.course.checking import Wrong, counted, exercise

__all__ = [
    "SIGNATURE",
    "check_keep_recent",
    "check_repair",
    "check_sign",
    "signing_graph",
    "stuck_agent",
    "trimming_graph",
    "unanswered_calls",
]


def _ids(messages: Sequence[Any]) -> list[Any]:
    return [message.id for message in messages]


def _said(ids: Sequence[Any]) -> list[Any]:
    """``ids`` as a verdict shows them: a generated one (long, new at each run) named so."""
    return ["(generated)" if isinstance(i, str) and len(i) > 20 else i for i in ids]


def _shown(message: Any) -> str:
    """A message in a few words: ``ai 'It left Oslo today.' (id 'a-7')``."""
    content = message.content if len(message.content) <= 40 else message.content[:37] + "..."
    return f"{message.type} {content!r} (id {_said([message.id])[0]!r})"


# -- 24.1 · sign the answer in place ---------------------------------------------------------------

SIGNATURE = " (Ada, support team)"
"""What ``sign`` adds to the end of the last AI answer."""


def signing_graph(sign: Callable[..., Any], answer: Any) -> Any:
    """START → ``bot``, which appends ``answer`` (an AIMessage), → ``sign``."""
    from graphkit import START, StateGraph
    from graphkit.prebuilt import MessagesState

    builder = StateGraph(MessagesState)
    builder.add_node("bot", lambda state: {"messages": [answer]})
    builder.add_node("sign", sign)
    builder.add_edge(START, "bot")
    builder.add_edge("bot", "sign")
    return builder.compile()


def _conversations() -> list[tuple[list[Any], Any]]:
    """(history, bot's answer): an answer with an id of its own, one after an earlier AI
    message, one without an id (add_messages gives it one in bot's step)."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    return [
        ([HumanMessage("Where is my parcel?", id="h-1")], AIMessage("It left Oslo.", id="a-7")),
        (
            [
                SystemMessage("Answer in one line.", id="sys"),
                HumanMessage("Hello", id="h-1"),
                AIMessage("Hello! How can I help?", id="a-1"),
                HumanMessage("Can I change my address?", id="h-2"),
            ],
            AIMessage("Yes, until the parcel leaves.", id="a-2"),
        ),
        ([HumanMessage("Opening hours?", id="q")], AIMessage("9 to 5, Monday to Friday.")),
    ]


@exercise("24.1 · Sign the answer in place")
def check_sign(sign: Callable[..., Any]) -> str:
    """``sign``: a node that adds ``SIGNATURE`` to the last AI answer, which must keep its
    id and place: the history is as long after ``sign`` as before it."""
    for history, answer in _conversations():
        text = answer.content
        run = signing_graph(sign, answer).trace({"messages": list(history)})
        before = run.step(1).update.change("messages").after
        after = run.values["messages"]
        expected = [*_ids(history), answer.id]  # (bot's step gave it one, if it had none)
        wrote = [value for key, value in _writes(run, "sign") if key == "messages"]
        if len(after) > len(expected):
            added = [_shown(message) for message in after if message.id not in expected]
            raise Wrong(
                f"After sign, the history holds {len(after)} messages, not {len(expected)}: "
                f"sign added {', '.join(added)}, and bot's answer is still there, unsigned "
                f"({_shown(before[-1])}).",
                "add_messages appends a message whose id the history does not have; "
                "which messages does it replace instead (section 2)?",
            )
        if _ids(after) != expected:
            raise Wrong(
                f"The history's ids went from {_said(expected)} to {_said(_ids(after))}: the "
                "answer lost its id, or its place.",
                "Edit it in place: a message written with the id of one in the history "
                "takes its place (section 2).",
            )
        pairs = zip(after[:-1], history, strict=True)
        changed = [_shown(m) for m, old in pairs if m.content != old.content]
        if after[-1].content == text and changed:
            earlier = "an earlier message" if len(changed) == 1 else "earlier messages"
            raise Wrong(
                f"sign wrote {', '.join(changed)} in place of {earlier}, and left the answer, "
                f"the last message, as it was: {text!r}",
                "The answer is the last message of the history: sign a copy of it, with its "
                "id, since a message written with the id of another takes its place.",
            )
        if not wrote and after[-1].content == text:
            raise Wrong(
                f"sign wrote nothing to messages, so the answer still reads {text!r}: a node's "
                "update is a dict of state keys, and what sign returned held no messages key.",
                "Return the signed copy under messages: {'messages': [signed]}.",
            )
        if after[-1].content != text + SIGNATURE:
            raise Wrong(
                f"The last answer reads {after[-1].content!r}; it should read "
                f"{text + SIGNATURE!r}.",
                "sign returns the update for messages: the answer with the signature at its end.",
            )
        if after[-1].type != "ai":
            raise Wrong(
                "The last answer is signed, in its place, but the answer is now a "
                f"{after[-1].type} message ({type(after[-1]).__name__}): the model would "
                "read it as words "
                "not its own.",
                "Keep it an AI message: a copy of the answer (its model_copy) keeps its kind "
                "and its id.",
            )
        if changed:
            raise Wrong(f"sign changed {', '.join(changed)} too.", "Sign only the last answer.")
        if not wrote:
            raise Wrong(
                "The answer is signed, but sign wrote nothing to messages: it changed the "
                "message object it was given. No Update applied the change, and that object "
                "is the one bot's step left in the state: step 1's records now read it "
                "signed too.",
                "Return the signed message as sign's write, and leave the one it was given "
                "as it is.",
            )
        if answer.content != text:
            raise Wrong(
                "The answer is signed, but sign changed the message object it was given "
                "before writing it: that object is the one bot's step left in the state, "
                "so step 1's records now read it signed too.",
                "Write a signed copy of it, with the same id (a message's model_copy "
                "takes update={...}).",
            )
    return (
        "sign replaced the answer in place: same id, same position, one message, and the "
        "earlier AI message untouched, even for an answer whose id add_messages had made."
    )


def _writes(run: Any, node: str) -> list[tuple[str, Any]]:
    return [
        write
        for superstep in run.steps
        for result in superstep.execution.results
        if result.task.node == node
        for write in result.writes
    ]


# -- 24.2 · keep the system message and the last n -------------------------------------------------


def trimming_graph(keep_recent: Callable[..., Any], n: int) -> Any:
    """START → ``trim``, which writes ``keep_recent(state["messages"], n)``."""
    from graphkit import START, StateGraph
    from graphkit.prebuilt import MessagesState

    builder = StateGraph(MessagesState)
    builder.add_node("trim", lambda state: {"messages": keep_recent(state["messages"], n)})
    builder.add_edge(START, "trim")
    return builder.compile()


def _long_history(turns: int, system: bool = True) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    kinds = [HumanMessage, AIMessage]
    messages = [kinds[i % 2](f"message {i}", id=f"m{i}") for i in range(1, turns + 1)]
    return [SystemMessage("Be kind.", id="sys"), *messages] if system else messages


TRIMS = ((7, 3, True), (7, 4, True), (6, 2, False), (2, 3, True), (4, 0, True))
"""(messages after the system message, n, whether there is a system message)."""


def _kept(history: Sequence[Any], n: int) -> list[Any]:
    """What keep_recent should leave: the system messages, then the last ``n`` others
    (none for n=0: ``others[-0:]`` would be all of them)."""
    others = [message for message in history if message.type != "system"]
    system = [message for message in history if message.type == "system"]
    return system + (others[max(len(others) - n, 0) :] if n else [])


def _not_a_list(value: Any) -> bool:
    """A tuple, a generator or another iterable that is neither a list nor one message:
    add_messages takes one of those two (a tuple it reads as one message, (role, text))."""
    return (
        not isinstance(value, (list, dict, str))
        and getattr(value, "type", None) is None
        and hasattr(value, "__iter__")
    )


def _watching(keep_recent: Callable[..., Any]) -> tuple[Callable[..., Any], list, list]:
    """``keep_recent`` as trim calls it, keeping the list it was given before and after
    the call, and what it returned (None, or a dict named as such, is not written: the
    check names it)."""
    given: list[list[Any]] = []
    returned: list[Any] = []

    def watched(messages: list[Any], n: int) -> Any:
        given.append(list(messages))
        returned.append(keep_recent(messages, n))
        given.append(list(messages))
        shape = returned[-1]
        named = (
            shape is None or (isinstance(shape, dict) and "messages" in shape) or _not_a_list(shape)
        )
        return [] if named else shape  # (told apart after the run)

    return watched, given, returned


@exercise("24.2 · Keep the system message and the last n")
def check_keep_recent(keep_recent: Callable[..., Any]) -> str:
    """``keep_recent(messages, n)``: the update that leaves the system message (if any)
    and the last ``n`` other messages, in order, with their ids."""
    from langchain_core.messages import RemoveMessage

    for turns, n, system in TRIMS:
        history = _long_history(turns, system)
        kept = _kept(history, n)
        said = f"({len(history)} messages, n={n})"
        watched, given, returned = _watching(keep_recent)
        try:
            run = trimming_graph(watched, n).trace({"messages": list(history)})
        except ValueError as error:
            if not any("its reducer" in note for note in getattr(error, "__notes__", ())):
                raise  # (keep_recent's own error, not the Update's)
            raise Wrong(
                f"{said} the Update refused trim's write: {str(error).splitlines()[0]}",
                "Name only messages the history holds.",
            ) from None
        if returned[0] is None:
            raise Wrong(
                f"{said} keep_recent returned None: it has no return, or one that returns nothing.",
                "Make keep_recent return the list of writes for messages (an empty "
                "list writes nothing).",
            )
        if isinstance(returned[0], dict) and "messages" in returned[0]:
            raise Wrong(
                f"{said} keep_recent returned a dict, {{'messages': ...}}.",
                "Return what to write to messages (a list); trim writes "
                '{"messages": keep_recent(state["messages"], n)}.',
            )
        if _not_a_list(returned[0]):
            raise Wrong(
                f"{said} keep_recent returned a {type(returned[0]).__name__}, not a list: "
                "add_messages takes a list of messages (or one message), and "
                + (
                    "reads a tuple as one message, (role, text)."
                    if isinstance(returned[0], tuple)
                    else f"refuses a {type(returned[0]).__name__}."
                ),
                "Return a list: list(...) of it, or a list comprehension [... for ...].",
            )
        if _ids(given[0]) != _ids(given[1]):
            raise Wrong(
                f"{said} keep_recent changed the list it was given, from {len(given[0])} "
                f"messages to {len(given[1])}: that list is the state's own, so the run "
                "seems to keep fewer, but no Update deleted anything, and a checkpoint "
                "would still hold them all.",
                "Return the deletions as keep_recent's result, and leave the list it was "
                "given as it is (section 3).",
            )
        after = run.values["messages"]
        wrote = [value for key, value in _writes(run, "trim") if key == "messages"]
        written = [m for value in wrote for m in (value if isinstance(value, list) else [value])]
        if _ids(after) == _ids(history) and len(kept) < len(history):
            if written and not any(isinstance(m, RemoveMessage) for m in written):
                raise Wrong(
                    f"{said} trim wrote {counted(len(written), 'message')}, all with ids the "
                    f"history holds, and the history still has all {len(history)}: "
                    "add_messages put each in its own place.",
                    "Writing a message never deletes another: a deletion is a message of "
                    "its own kind, one per id to drop (section 3).",
                )
            raise Wrong(
                f"{said} trim changed nothing: the history still has {len(history)} "
                f"messages; it should keep {len(kept)}: {_ids(kept)}.",
                "n may be 0, and then only the system message stays (in Python, "
                "others[:-0] is empty and others[-0:] is the whole list)."
                if n == 0
                else "keep_recent returns the update for messages that drops the others "
                "(section 3).",
            )
        if system and not any(message.type == "system" for message in after):
            raise Wrong(
                f"{said} the system message was deleted: the history ends as {_said(_ids(after))}.",
                "Keep every system message, whatever n.",
            )
        what = f"the system message, then the last {n} others" if system else f"the last {n}"
        dropped = [i for i in _ids(history) if i not in _ids(kept)]
        deleted = [m.id for m in written if isinstance(m, RemoveMessage) and m.id in dropped]
        if len(deleted) == 1 and len(dropped) > 1 and set(_ids(kept)) <= set(_ids(after)):
            raise Wrong(
                f"{said} trim wrote 1 deletion, of {deleted[0]!r}; {len(dropped)} messages "
                f"had to go: {dropped}.",
                "Return one RemoveMessage per message to drop, all in one list (a return "
                "inside the loop returns the first alone).",
            )
        if _ids(after) != _ids(kept):
            same_texts = [m.content for m in after] == [m.content for m in kept]
            hint = (
                "Count the last n among the messages that are not the system message; "
                "a history shorter than that keeps them all."
            )
            if same_texts:
                hint = (
                    "Keep each message with its id: a copy without one is a new message "
                    "(section 1)."
                )
            elif sorted(_ids(after)) == sorted(_ids(kept)):
                hint = (
                    "The right messages stayed, in another order: what follows "
                    "REMOVE_ALL_MESSAGES (or is in an Overwrite) is the new history, in the "
                    "order you write it."
                )
            raise Wrong(
                f"{said} the history ends as {_said(_ids(after))}; it should be "
                f"{_ids(kept)}: {what}, in order.",
                hint,
            )
        if [m.content for m in after] != [m.content for m in kept]:
            raise Wrong(f"{said} trim changed the messages it kept.", "Keep them as they are.")
    return (
        "The history kept its system message and the last n others, with their ids, from "
        "every history the check tried (a short one, and n=0, too)."
    )


# -- 24.3 · repair a history with tool calls waiting -----------------------------------------------


def unanswered_calls(messages: Sequence[Any]) -> list[str]:
    """The ids of the tool calls in ``messages`` that no ToolMessage answers."""
    answered = {message.tool_call_id for message in messages if message.type == "tool"}
    calls = [call for message in messages for call in getattr(message, "tool_calls", [])]
    return [call["id"] for call in calls if call["id"] not in answered]


def stuck_agent(history: list[Any]) -> tuple[Any, dict[str, Any], Any]:
    """A ``create_react_agent`` thread that refused ``history`` (INVALID_CHAT_HISTORY):
    the agent, the thread's config, and the scripted model."""
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool

    from graphkit import InMemorySaver
    from graphkit.prebuilt import ScriptedChatModel, create_react_agent

    @tool
    def weather(city: str) -> str:
        """The weather in a city."""
        return f"{city}: sunny"

    model = ScriptedChatModel(responses=[AIMessage("All right, let us start again.", id="end")])
    agent = create_react_agent(model, [weather], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "stuck"}}
    # (the model node refuses the history: the thread waits to run it again)
    with contextlib.suppress(ValueError):
        agent.invoke({"messages": history}, config)
    return agent, config, model


def _refused_hint(error: Exception) -> str:
    """The hint for an update that ``update_state`` refused with ``error``."""
    if "tool_call_id" in str(error):
        return (
            "Each answer is a ToolMessage that names the call it answers, "
            "ToolMessage(..., tool_call_id=...): a ('tool', text) tuple names none (section 1)."
        )
    if "doesn't exist" in str(error):
        return "Name only messages the history holds."
    return "Return a list of messages to write (section 5)."


def _answer_id(message: Any) -> Any:
    """The id an answer (a ToolMessage, or a dict with role "tool") was given, if any."""
    if isinstance(message, dict):
        return message.get("id") if message.get("role") == "tool" else None
    return message.id if getattr(message, "type", None) == "tool" else None


def _stuck_histories() -> list[list[Any]]:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    def asks(message_id: str, *cities: str) -> AIMessage:
        calls = [{"name": "weather", "args": {"city": c}, "id": f"w-{c.lower()}"} for c in cities]
        return AIMessage("", id=message_id, tool_calls=calls)

    return [
        [HumanMessage("Rain in Bergen?", id="u1"), asks("a1", "Bergen"), HumanMessage("Stop.")],
        [
            HumanMessage("Oslo and Rome?", id="u1"),
            asks("a1", "Oslo", "Rome"),
            ToolMessage("Oslo: sunny", tool_call_id="w-oslo", id="t1"),
            HumanMessage("Forget Rome.", id="u2"),
        ],
        [
            HumanMessage("Lima?", id="u1"),
            asks("a1", "Lima"),
            HumanMessage("Bergen instead?", id="u2"),
            asks("a2", "Bergen"),
            ToolMessage("Bergen: sunny", tool_call_id="w-bergen", id="t1"),
            AIMessage("Sunny in Bergen.", id="a3"),
            HumanMessage("Thanks!", id="u3"),
        ],
        [
            HumanMessage("Oslo and Rome?", id="u1"),
            asks("a1", "Oslo", "Rome"),
            HumanMessage("And Lima?", id="u2"),
            asks("a2", "Lima"),
            HumanMessage("Stop, all of them.", id="u3"),
        ],
    ]


@exercise("24.3 · Repair a history with tool calls waiting")
def check_repair(repair: Callable[..., Any]) -> str:
    """``repair(messages)``: the update for ``messages`` that, given to ``update_state``,
    lets the agent go on, each call answered once and every message kept."""
    for history in _stuck_histories():
        agent, config, model = stuck_agent(history)
        messages = agent.get_state(config).values["messages"]
        waiting = unanswered_calls(messages)
        update = repair(list(messages))
        if update is None:
            raise Wrong(
                "repair returned None: it has no return, or one that returns nothing.",
                "Make repair return the list of messages to write (section 5).",
            )
        if isinstance(update, dict):
            raise Wrong(
                f"repair returned a dict, {update!r}.",
                "Return what to write to messages (a list); the check passes "
                '{"messages": repair(messages)} to update_state.',
            )
        said = f"(calls {waiting} waiting)"
        written = update if isinstance(update, list) else [update]
        given_ids = [_answer_id(message) for message in written]
        shared = sorted({i for i in given_ids if i and given_ids.count(i) > 1})
        if shared:
            raise Wrong(
                f"{said} your update has {given_ids.count(shared[0])} messages with the id "
                f"{shared[0]!r}: add_messages keeps one message per id, so each replaces "
                "the one before it.",
                "Give each answer an id of its own, or none (section 1).",
            )
        try:
            agent.update_state(config, {"messages": update})
        except (KeyError, ValueError, TypeError, NotImplementedError) as error:
            raise Wrong(
                f"{said} update_state refused your update: add_messages raised "
                f"{type(error).__name__}: {error}",
                _refused_hint(error),
            ) from None
        repaired = agent.get_state(config).values["messages"]
        by_id = {m.id: m for m in repaired}
        lost = [_shown(m) for m in messages if m.id not in by_id]
        changed = [
            _shown(by_id[old.id])
            for old in messages
            if old.id in by_id
            and (by_id[old.id].content, getattr(by_id[old.id], "tool_calls", None))
            != (old.content, getattr(old, "tool_calls", None))
        ]
        if lost or changed:
            raise Wrong(
                f"{said} the agent may go on, but the history lost or changed "
                f"{', '.join(lost + changed)}: the model no longer sees what it asked.",
                "Keep every message as it is: add what the history lacks.",
            )
        order = [i for i in _ids(repaired) if i in set(_ids(messages))]
        if order != _ids(messages):
            raise Wrong(
                f"{said} every message is there, but some moved: the history's ids went "
                f"from {_ids(messages)} to {_said(order)} (the answers aside).",
                "Keep every message as it is, in its place: add what the history lacks.",
            )
        asked_at = {
            call["id"]: place
            for place, m in enumerate(repaired)
            for call in getattr(m, "tool_calls", None) or []
        }
        early = [
            m.tool_call_id
            for place, m in enumerate(repaired)
            if m.type == "tool" and asked_at.get(m.tool_call_id, -1) > place
        ]
        if early:
            raise Wrong(
                f"{said} the answer to {early[0]!r} comes before the call it answers.",
                "An answer goes after the AIMessage that made the call: at the end of "
                "the history, or right after that message.",
            )
        still = unanswered_calls(repaired)
        if still and not update:
            asking = [m for m in messages if getattr(m, "tool_calls", None)]
            last_answered = not set(still) & {call["id"] for call in asking[-1].tool_calls}
            raise Wrong(
                f"{said} repair returned nothing to write, so nothing answers those calls "
                "and the agent refuses the history again.",
                "The last AIMessage's calls are all answered here: the waiting ones are "
                "an earlier AIMessage's. Each call of every AIMessage, not only the last "
                "one, needs its answer (section 5)."
                if last_answered
                else "Give update_state what the history lacks for each waiting call (section 5).",
            )
        if still:
            not_tools = [
                m.type
                for m in written
                if getattr(m, "tool_call_id", None) and getattr(m, "type", "tool") != "tool"
            ]
            raise Wrong(
                f"{said} after your update, the history still has calls that nothing "
                f"answers: {still}, so the agent refuses it again.",
                f"An answer is a ToolMessage: {not_tools[0]} messages answer no call, "
                "whatever tool_call_id they hold (section 5)."
                if not_tools
                else "Each call of every AIMessage, not only the last one, needs its answer; "
                "an answer names the call it answers by the call's id (section 5).",
            )
        answers = [getattr(m, "tool_call_id", None) for m in repaired]
        twice = sorted({call for call in answers if call and answers.count(call) > 1})
        if twice:
            raise Wrong(
                f"{said} {twice} now have two answers each: your update answered calls "
                "that had theirs already.",
                "Answer only the calls no message answers yet.",
            )
        result = agent.invoke(None, config)
        if result["messages"][-1].id != "end" or len(model.calls) != 1:
            raise Wrong(
                f"{said} the agent did not go on to the model's answer: the run ended "
                f"with {_shown(result['messages'][-1])}.",
                "Give update_state only the messages to add.",
            )
    return (
        "Each waiting call got one answer, every message stayed, and the agent went on: "
        "the model was sent the whole history, what it asked included."
    )
