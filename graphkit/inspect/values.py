"""Readable text for the values a run holds.

Tables keep the values themselves (objects in cells); ``show`` is the one place that
turns a value into the short, deterministic text a card, a timeline or a readable table
prints. langchain-core messages are recognised by their ``type`` and ``content``
attributes, so langchain-core need not be installed. The runtime's channel names
(``is_internal``, ``branch_target``, ``barrier_parts``, ``barrier_seen``) are read in
``graphkit.inspect.channel_names``, and imported from here too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from graphkit.channels import EMPTY
from graphkit.errors import ParentCommand
from graphkit.inspect.channel_names import (
    barrier_parts,
    barrier_seen,
    branch_target,
    is_internal,
)
from graphkit.types import Overwrite, Send

__all__ = [
    "barrier_parts",
    "barrier_seen",
    "branch_target",
    "ended_text",
    "ends_the_run",
    "handoff",
    "handoff_text",
    "is_internal",
    "is_message",
    "join_names",
    "quoted",
    "same_value",
    "show",
    "show_error",
    "step_failure",
    "was_cancelled",
]

_MAX_DEPTH = 6


def show(value: Any, width: int = 60, before: Any = None) -> str:
    """A short, readable, single-line text for ``value`` (at most ``width`` characters).

    Strings keep their quotes, sets are sorted (so the text never depends on hashing),
    an empty channel shows as ``<empty>``, and messages show their type and content, in
    double quotes whatever it holds (Python's own repr switches to them only for a text
    with an apostrophe, and a history would mix both), then the tools they call with
    args, in words (``ai calls search(...)``, its empty text left out): a card's and a
    timeline's arrows are a change's before and after.
    A list of messages too long for ``width`` shows its count and its newest messages
    (its start is the same in every state of a conversation; its end is what changed).
    A list of removals reads as one ``remove``, naming each message it removes from
    ``before`` (the messages the write applies to, where the view knows them), else its id.

    >>> show("sunny"), show(EMPTY), show({"news", "weather"})
    ("'sunny'", '<empty>', "{'news', 'weather'}")
    >>> class Message:
    ...     type, content = "ai", "hello"
    >>> print(show({"messages": [Message()]}))
    {'messages': [ai: "hello"]}
    >>> Message.content = "I'm Lance"
    >>> print(show([Message()]))
    [ai: "I'm Lance"]
    >>> Message.tool_calls = [{"name": "search", "args": {"query": "cats"}, "id": "1"}]
    >>> print(show([Message()] * 3, width=70))
    [3 messages: …, ai: "I'm Lance" calls search({'query': 'cats'})]
    >>> Message.content = ""
    >>> print(show([Message()] * 3))
    [3 messages: …, ai calls search({'query': 'cats'})]
    >>> show("x" * 100, width=12)
    "'xxxxxxxxxx…"
    >>> show(Overwrite(["fresh"]))
    "Overwrite(['fresh'])"
    >>> show(Send("joke", {"subject": "cats"}))
    "Send('joke', {'subject': 'cats'})"
    >>> call = {"name": "search", "args": {"query": "cats"}, "id": "1"}
    >>> show(Send("tools", {"__type": "tool_call_with_context", "tool_call": call, "state": {}}))
    "Send('tools', tool call search({'query': 'cats'}))"
    >>> class Remove:
    ...     type, content = "remove", ""
    ...     def __init__(self, id):
    ...         self.id = id
    >>> class Human:
    ...     type, content, id = "human", "she likes boxes", "h-1"
    >>> print(show([Remove("h-1"), Remove("ai-3")]))
    [remove ids 'h-1', 'ai-3']
    >>> print(show([Remove("h-1"), Remove("ai-3")], before=[Human()]))
    [remove human: "she likes boxes", id 'ai-3']
    """
    known = _by_id(before) if isinstance(value, list) else None
    text = _text(value, width + 1, 0, known).replace("\n", "\\n")
    return text if len(text) <= width else text[: width - 1] + "…"


def show_error(error: BaseException | None) -> str:
    """An exception as ``Type: message`` (empty for None).

    >>> show_error(ValueError("boom"))
    'ValueError: boom'
    """
    if error is None:
        return ""
    message = str(error)
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


def was_cancelled(error: BaseException | None) -> bool:
    """True for a task stopped by cancelling its async run (it failed with
    ``CancelledError``), as opposed to one whose node raised.

    >>> was_cancelled(asyncio.CancelledError()), was_cancelled(ValueError("boom"))
    (True, False)
    """
    return isinstance(error, asyncio.CancelledError)


def step_failure(results: Iterable[Any]) -> Any:
    """The result of the task whose error failed a step, or None: the first in plan
    order that raised (not taken over by an error handler, not a called task, whose
    caller decides), unless its error is a ``CancelledError`` a sibling's failure
    caused (an async run cancels the tasks still running when one fails), then that
    sibling's; the first cancelled one when nothing else failed (the run was cancelled).
    """
    failed = [r for r in results if r.error is not None and not r.handled and r.task.kind != "call"]
    return next((r for r in failed if not was_cancelled(r.error)), failed[0] if failed else None)


def which_packet(failed: Any, results: Iterable[Any]) -> str:
    """`` (sent {'x': 2})`` for a push task that shares its node with another task of its
    step (a map-reduce's ``Send`` per item): its node's name alone did not say which
    item's task it was; "" otherwise.

    >>> from graphkit.pregel.records import Task, TaskResult
    >>> def sent(i):
    ...     return Task(f"t{i}", 2, "joke", "push", ("__pregel_push", i), (), {"x": i})
    >>> results = [TaskResult(sent(i), ()) for i in (1, 2)]
    >>> which_packet(results[1], results)
    " (sent {'x': 2})"
    """
    task = failed.task
    if task.kind != "push" or sum(r.task.node == task.node for r in results) < 2:
        return ""
    return f" (sent {show(task.input, 40)})"


def same_value(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are equal, False where ``==`` gives no bool (arrays compare
    item by item) or raises.

    >>> same_value([1, 2], [1, 2]), same_value("1", 1)
    (True, False)
    """
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:  # e.g. arrays, whose == is elementwise
        return False


def is_message(value: Any) -> bool:
    """True for a chat message (anything with a string ``type`` and a ``content``).

    >>> class Message:
    ...     type, content = "human", "hi"
    >>> is_message(Message()), is_message("hi")
    (True, False)
    """
    return (
        not isinstance(value, type)
        and isinstance(getattr(value, "type", None), str)
        and hasattr(value, "content")
    )


def _text(value: Any, budget: int, depth: int, known: dict[str, Any] | None = None) -> str:
    """Readable text, built only as far as ``budget`` characters (big lists stay cheap);
    ``known``: the messages a list of removals may name, by id."""
    if value is EMPTY:
        return "<empty>"
    if isinstance(value, str):
        return repr(value)
    if is_message(value):
        return _message(value, budget)
    if isinstance(value, Overwrite):  # its ``type`` field is a constant: leave it out
        return f"Overwrite({_text(value.value, budget, depth + 1)})"
    if _is_send(value):  # no field names: the packet must fit a card's width
        timeout = getattr(value, "timeout", None)
        timeout = "" if timeout is None else f", timeout={timeout!r}"
        return f"Send({value.node!r}, {_text(value.arg, budget, depth + 1)}{timeout})"
    kind = type(value)
    if kind is dict and value.get("__type") == "tool_call_with_context":
        return _tool_call(value.get("tool_call"), budget, depth)
    if kind in (list, tuple, set, frozenset, dict):
        if depth >= _MAX_DEPTH:
            return "…"
        if kind is dict:
            items: Iterable[str] = (
                f"{_text(k, budget, depth + 1)}: {_text(v, budget, depth + 1)}"
                for k, v in value.items()
            )
            return "{" + _join(items, budget) + "}"
        if kind in (set, frozenset):
            if not value:
                return f"{kind.__name__}()"
            texts = sorted(_text(item, budget, depth + 1) for item in value)
            return "{" + _join(texts, budget) + "}"
        if kind is list and len(value) > 1 and all(_is_removal(item) for item in value):
            return _removals(value, budget, known or {})
        if kind is list and len(value) > 1 and all(is_message(item) for item in value):
            return _history(value, budget)
        inner = _join((_text(item, budget, depth + 1) for item in value), budget)
        if kind is tuple:
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        return f"[{inner}]"
    try:
        return repr(value)
    except Exception:  # a broken __repr__ must not break a table or a card
        return f"<{kind.__name__} object>"


def _is_send(value: Any) -> bool:
    """graphkit's ``Send``, or LangGraph's: a thread LangGraph saved keeps its own (a
    pending ``__pregel_tasks`` write), whose repr hid the tool call in its packet."""
    if isinstance(value, Send):
        return True
    kind = type(value)
    return kind.__name__ == "Send" and kind.__module__.startswith("langgraph")


def _join(texts: Iterable[str], budget: int) -> str:
    parts: list[str] = []
    length = 0
    for text in texts:
        if length > budget:
            parts.append("…")
            break
        parts.append(text)
        length += len(text) + 2
    return ", ".join(parts)


def quoted(text: str) -> str:
    r"""``text`` in double quotes, as ``show`` prints a message's text (the course's checks
    quote one so too), escaped as ``repr`` escapes a string: a newline, a bidi control
    or a line separator shows as its escape (JSON leaves the last two raw).

    >>> print(quoted('say "hi"\n\u202e\u2028'))
    "say \"hi\"\n\u202e\u2028"
    """
    if text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return '"' + "".join('\\"' if c == '"' else repr(c)[1:-1] for c in text) + '"'


def _tool_call(call: Any, budget: int, depth: int) -> str:
    """The packet ``tools_condition`` sends ``ToolNode`` (LangGraph's and graphkit's):
    the call it carries, without the copy of the whole state that rides along."""
    return f"tool call {_call(call, budget, depth)}"


def _call(call: Any, budget: int, depth: int) -> str:
    """A tool call as ``name(args)``: an agent asking the same twice shows in its args."""
    if not isinstance(call, dict):
        return _text(call, budget, depth + 1)
    return f"{call.get('name', '?')}({_text(call.get('args', {}), budget, depth + 1)})"


def _history(messages: list[Any], budget: int) -> str:
    """Two or more messages: the whole list when it fits, else their count and the
    newest ones, whole and in order (the newest always, cut if it must be). A
    conversation grows at its end, so its start read the same before and after."""
    texts: list[str] = []  # newest first, only as many as can show
    length = 0  # of the whole list's text so far: "[" + ", ".join(texts) + "]"
    for message in reversed(messages):
        texts.append(_message(message, budget))
        length += len(texts[-1]) + 2
        if length >= budget:
            break
    if len(texts) == len(messages) and length < budget:
        return "[" + ", ".join(reversed(texts)) + "]"
    head = f"[{len(messages)} messages: …, "
    length, shown = len(head) + len(texts[0]) + 1, 1
    while shown < len(texts) and length + len(texts[shown]) + 2 < budget:
        length += len(texts[shown]) + 2
        shown += 1
    return head + ", ".join(reversed(texts[:shown])) + "]"


def _is_removal(value: Any) -> bool:
    return is_message(value) and value.type == "remove"


def _by_id(messages: Any) -> dict[str, Any] | None:
    """The messages of ``messages`` (a state's list) by id, or None for anything else."""
    if not isinstance(messages, list):
        return None
    return {m.id: m for m in messages if is_message(m) and isinstance(getattr(m, "id", None), str)}


def _removals(removals: list[Any], budget: int, known: dict[str, Any]) -> str:
    """Two or more ``RemoveMessage``s as one ``remove``: each message it removes, named
    by its text where ``known`` has it (else by id), all while they fit, else their count
    and the last ones whole (as ``_history``). Unlike a conversation, a write of removals
    has no old start to leave out: every one is what the step does."""
    ids = [getattr(removal, "id", None) for removal in removals]
    if all(isinstance(i, str) and i not in known and i != "__remove_all__" for i in ids):
        head, texts = "remove ids ", [repr(i) for i in ids]
        counted = f"remove {len(ids)} ids: …, "
    else:
        head, counted = "remove ", f"remove {len(ids)} messages: …, "
        texts = [_target(i, known, budget) for i in ids]
    whole = "[" + head + ", ".join(texts) + "]"
    if len(whole) < budget:
        return whole
    length, shown = len(counted) + len(texts[-1]) + 2, 1
    while shown < len(texts) and length + len(texts[-1 - shown]) + 2 < budget:
        length += len(texts[-1 - shown]) + 2
        shown += 1
    return "[" + counted + ", ".join(texts[-shown:]) + "]"


def _target(message_id: Any, known: dict[str, Any], budget: int) -> str:
    if message_id == "__remove_all__":
        return "all"
    if isinstance(message_id, str) and message_id in known:  # (an id may be unhashable)
        return _message(known[message_id], budget)
    return f"id {message_id!r}"


def _message(message: Any, budget: int) -> str:
    if message.type == "remove":  # a RemoveMessage: its id is what it says
        target = getattr(message, "id", None)
        return "remove all" if target == "__remove_all__" else f"remove id {target!r}"
    content = message.content
    # (only what can show: ``show`` cuts the text at ``budget`` anyway)
    body = quoted(content[:budget]) if isinstance(content, str) else _text(content, budget, 1)
    calls = getattr(message, "tool_calls", None)
    if not calls:
        return f"{message.type}: {body}"
    # (a model that only calls a tool says nothing: its empty text would be noise)
    said = message.type if content == "" else f"{message.type}: {body}"
    return f"{said} calls " + ", ".join(_call(call, budget, 1) for call in calls)


# -- a subgraph's handoff -----------------------------------------------------------------


def handoff(run: Any) -> Any:
    """The ``Command(graph=Command.PARENT)`` a subgraph's run ended with, or None.

    A node of a subgraph that returns one hands its parent where to go next (a swarm's
    handoff): the runtime stops the subgraph with ``ParentCommand``, so the run record
    reads ``error``, but the parent applies the update and goes on. At the top, with no
    parent to take it, the ``ParentCommand`` is an error (``run.namespace`` is empty).

    >>> from graphkit import Command
    >>> from graphkit.errors import ParentCommand
    >>> from graphkit.pregel.records import Run
    >>> sent = Command(goto="billing", update={"agent": "billing"})
    >>> handoff(Run((), {}, "error", ParentCommand(sent), namespace=("triage:1",))) is sent
    True
    >>> handoff(Run((), {}, "error", ParentCommand(sent))) is None
    True
    """
    error = getattr(run, "error", None)
    if isinstance(error, ParentCommand) and run.namespace:
        return error.command
    return None


def handoff_text(command: Any) -> str:
    """What a handoff tells the parent: ``goto 'billing', update {'agent': 'billing'}``.

    >>> from graphkit import Command
    >>> handoff_text(Command(goto="billing", update={"agent": "billing"}))
    "goto 'billing', update {'agent': 'billing'}"
    """
    parts = []
    goto = getattr(command, "goto", ())
    if goto or goto == 0:
        parts.append(f"goto {show(goto)}")
    update = getattr(command, "update", None)
    if update is not None:
        parts.append(f"update {show(update, 80)}")
    return ", ".join(parts) or "no goto and no update"


ENDED = "it returned Command(goto=END)"
"""What a task's line and card add when the task returned ``Command(goto=END)``: it
wrote no route on purpose (a supervisor's last turn), whatever state it wrote."""


def ends_the_run(output: Any) -> bool:
    """Whether a task's return is a ``Command`` whose only ``goto`` is END, or a list of
    such Commands (a graphkit or a LangGraph one: read by their fields), so it wrote no
    route on purpose.

    >>> from graphkit import END, Command
    >>> ends_the_run(Command(goto=END, update={"n": 3})), ends_the_run(Command(goto="a"))
    (True, False)
    """
    commands = output if isinstance(output, (list, tuple)) else [output]
    if not commands or any(type(c).__name__ != "Command" for c in commands):
        return False
    for command in commands:
        goto = getattr(command, "goto", None)
        gotos = goto if isinstance(goto, (list, tuple)) else [goto]
        if not gotos or any(g != "__end__" for g in gotos):
            return False
    return True


def ended_text(output: Any, did: str) -> str:
    """``did`` (what a task wrote) with ``ENDED`` after it when ``output`` ended the run:
    after "wrote nothing" as its cause, after writes as one more thing it did.

    >>> from graphkit import END, Command
    >>> ended_text(Command(goto=END, update={"n": 3}), "wrote n")
    'wrote n; it returned Command(goto=END)'
    >>> ended_text(Command(goto=END), "wrote nothing"), ended_text({}, "wrote nothing")
    ('wrote nothing: it returned Command(goto=END)', 'wrote nothing')
    """
    if not ends_the_run(output):
        return did
    return f"{did}{':' if did == 'wrote nothing' else ';'} {ENDED}"


def join_names(names: Iterable[str], conjunction: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``.

    >>> join_names(["news"]), join_names(["news", "weather"]), join_names("abc", "or")
    ('news', 'news and weather', 'a, b or c')
    """
    items = list(names)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {conjunction} {items[-1]}"
