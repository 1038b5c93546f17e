"""Checks for lesson 08 · Human in the loop.

Each check builds its own checkpointed mail graph, runs it until it pauses, plays the
human (``Command(resume=...)``, ``update_state``, ``invoke(None, ...)``) and reads the
thread back with ``get_state``: did the run really pause, where, and did the mail go out
to the right address? Every answer is tried on more than one input.

>>> from graphkit.course.solutions import lesson08 as solutions
>>> bool(check_approval(solutions.approve_mail))
True
"""

from __future__ import annotations

import ast
import inspect
import operator
import textwrap
from collections import Counter
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from graphkit.course.answers import refuse_unread_stream
from graphkit.course.checking import Wrong, compiled, exercise

__all__ = [
    "Mail",
    "approval_app",
    "check_approval",
    "check_breakpoint",
    "check_edit_at_breakpoint",
    "mail_builder",
]


class Mail(TypedDict, total=False):
    name: str
    to: str
    body: str
    approved: bool
    outbox: Annotated[list[str], operator.add]


def _write(state: Mail) -> dict:
    name = state["name"]
    return {"to": f"{name.lower()}@exmaple.com", "body": f"Hi {name}, lunch on Friday?"}


def mail_builder(calls: Counter[str] | None = None) -> Any:
    """``write → review → send``: ``write`` drafts a mail (to a misspelt domain,
    ``exmaple.com``), ``review`` signs it, ``send`` puts it in the ``outbox``. ``calls``
    counts the nodes' runs."""
    from graphkit import END, START, StateGraph

    calls = Counter() if calls is None else calls

    def write(state: Mail) -> dict:
        calls["write"] += 1
        return _write(state)

    def review(state: Mail) -> dict:
        calls["review"] += 1
        return {"body": state["body"] + " -- Ann"}

    def send(state: Mail) -> dict:
        calls["send"] += 1
        return {"outbox": [f"to {state['to']}: {state['body']}"]}

    builder = StateGraph(Mail)
    builder.add_sequence([write, review, send])
    builder.add_edge(START, "write")
    builder.add_edge("send", END)
    return builder


def approval_app(approve: Callable[[Mail], Any]) -> tuple[Any, Counter[str]]:
    """``write → approve → send or END``: ``approve`` is the learner's node; the router
    sends the mail when the state's ``approved`` is true."""
    from graphkit import END, START, InMemorySaver, StateGraph

    calls: Counter[str] = Counter()

    def write(state: Mail) -> dict:
        calls["write"] += 1
        return _write(state)

    def send(state: Mail) -> dict:
        calls["send"] += 1
        return {"outbox": [f"to {state['to']}: {state['body']}"]}

    def route(state: Mail) -> str:
        return "send" if state.get("approved") else END

    builder = StateGraph(Mail)
    builder.add_node("write", write)
    builder.add_node("approve", approve)
    builder.add_node("send", send)
    builder.add_edge(START, "write")
    builder.add_edge("write", "approve")
    builder.add_conditional_edges("approve", route, ["send", END])
    builder.add_edge("send", END)
    return builder.compile(checkpointer=InMemorySaver()), calls


def _thread(name: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}


# -- 8.1 --------------------------------------------------------------------------------


def _catches_interrupt(approve: Callable[..., Any]) -> bool:
    """Whether ``approve``'s source calls ``interrupt`` inside a ``try`` with a handler
    (False when the source cannot be read)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(approve)))
    except (OSError, TypeError, SyntaxError):
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and node.handlers:
            for inner in (n for statement in node.body for n in ast.walk(statement)):
                function = getattr(inner, "func", None)
                name = getattr(function, "id", None) or getattr(function, "attr", None)
                if isinstance(inner, ast.Call) and name == "interrupt":
                    return True
    return False


@exercise("8.1 · An approval node")
def check_approval(approve: Callable[[Mail], Any]) -> str:
    """``approve(state)`` must pause the run with ``interrupt(...)``, showing the draft
    (the ``body``) to the reviewer; resumed with ``"yes"`` the run goes on to ``send``,
    with ``"no"`` (or any other answer) it ends without sending. Tried for two mails and
    four answers: ``"yes"``, ``"no"``, ``"maybe"`` and ``""``."""
    from graphkit import Command

    for name in ("Ada", "Bob"):
        # ("": a reviewer who pressed Enter; `answer in ("yes")` takes it for a yes)
        for answer in ("yes", "no", "maybe", ""):
            app, calls = approval_app(approve)
            config = _thread(f"check-8.1-{name}-{answer}")
            app.invoke({"name": name}, config)
            paused = app.get_state(config)
            body = paused.values.get("body", "")
            if not paused.interrupts:
                outbox = paused.values.get("outbox")
                caught = (
                    " It pauses the run by raising: your try/except around it catches the pause."
                    if _catches_interrupt(approve)
                    else ""
                )
                raise Wrong(
                    f"(mail to {name}) the run never paused: approve returned without "
                    f"asking and the run ended with next {paused.next} and outbox {outbox}.",
                    "Call interrupt(...) inside approve; what it returns is the human's "
                    f"answer.{caught}",
                )
            asked = paused.interrupts[0].value
            if body not in str(asked):
                raise Wrong(
                    f"(mail to {name}) approve paused, but it asks {asked!r}: the reviewer "
                    f"cannot see the draft {body!r}.",
                    "Pass the draft (state['body']) in the value you give interrupt(...).",
                )
            app.invoke(Command(resume=answer), config)
            final = app.get_state(config)
            if final.interrupts or final.next:
                raise Wrong(
                    f"(mail to {name}, answer {answer!r}) after the answer the run paused "
                    f"again (next {final.next}): approve asked a second question.",
                    "Ask once: one interrupt(...) call, whose return value you compare.",
                )
            approved = final.values.get("approved")
            if approved is not None and type(approved) is not bool:
                raise Wrong(
                    f"(mail to {name}, answer {answer!r}) approve wrote "
                    f"approved={approved!r} (of type {type(approved).__name__}): the state's "
                    "approved is a bool, and the router reads any non-empty value as yes.",
                    "Write the comparison itself: {'approved': answer == 'yes'}.",
                )
            sent = calls["send"]
            if answer == "yes" and not sent and "approved" not in final.values:
                raise Wrong(  # (None for a "no" is fine: the router reads no approval)
                    f"(mail to {name}) resumed with 'yes', but send did not run: approve "
                    "wrote no `approved`: a key the state does not have is dropped "
                    "(graphkit warned, naming it), and returning None writes nothing.",
                    "Return the state's own key: {'approved': True} when the answer is 'yes'.",
                )
            if answer == "yes" and not sent:
                raise Wrong(
                    f"(mail to {name}) resumed with 'yes', but send did not run: approve "
                    f"wrote approved={final.values.get('approved')!r}.",
                    "Return {'approved': True} when the answer is 'yes'.",
                )
            if answer != "yes" and sent:
                raise Wrong(
                    f"(mail to {name}) resumed with {answer!r}, but send ran and the outbox is "
                    f"{final.values.get('outbox')}: approve wrote "
                    f"approved={final.values.get('approved')!r}.",
                    "Compare the answer: approved is True only when it == 'yes' "
                    "(a non-empty string like 'no' is truthy; 'maybe' is not a yes either)."
                    if answer
                    else "Compare the answer with ==: approved is True only when it == 'yes'. "
                    "(`answer in ('yes')` looks for a piece of the text 'yes', which '' is: "
                    "the brackets make no tuple.)",
                )
    return (
        "approve paused with the draft, ran again from its start on resume, and "
        "interrupt() returned the answer: 'yes' went on to send, 'no', 'maybe' and an "
        "empty answer ended the run."
    )


# -- 8.2 --------------------------------------------------------------------------------


@exercise("8.2 · A static breakpoint")
def check_breakpoint(pause_before_send: Callable[[Any], Any]) -> str:
    """``pause_before_send(builder)`` must compile the ``write → review → send`` builder so
    that every run stops before ``send`` (``get_state(config).next == ('send',)``, the
    outbox still empty), and ``invoke(None, config)`` then sends the mail."""
    for name in ("Ada", "Bob"):
        calls: Counter[str] = Counter()
        app = compiled(pause_before_send(mail_builder(calls)), "what pause_before_send returns")
        if app.checkpointer is None:
            raise Wrong(
                "Your graph has no checkpointer: a run stopped at a breakpoint could not be "
                "resumed, since nothing saved where it stopped.",
                "compile(checkpointer=InMemorySaver(), ...).",
            )
        config = _thread(f"check-8.2-{name}")
        app.invoke({"name": name}, config)
        paused = app.get_state(config)
        outbox = paused.values.get("outbox") or []
        if paused.next == ("send",) and not outbox:
            app.invoke(None, config)
            final = app.get_state(config)
            if final.next != () or len(final.values.get("outbox") or []) != 1:
                raise Wrong(
                    f"(mail to {name}) the run stopped before send, but invoke(None, config) "
                    f"did not finish it: next {final.next}, outbox {final.values.get('outbox')}.",
                    "Stop only before send: one breakpoint.",
                )
            continue
        if outbox:
            raise Wrong(
                f"(mail to {name}) the mail was sent before the run stopped: outbox {outbox}, "
                f"next {paused.next}"
                + (" (the run did not stop at all)." if not paused.next else "."),
                "interrupt_before=[...] stops before a step that would run a node; "
                "interrupt_after=[...] after a step that ran one.",
            )
        ran = ", ".join(node for node in ("write", "review") if calls[node])
        raise Wrong(
            f"(mail to {name}) the run stopped too early: next is {paused.next}, "
            + (f"only {ran} ran." if ran else "nothing ran yet."),
            "Put the breakpoint on the node the run must not reach.",
        )
    return (
        "Both runs stopped with next ('send',) and an empty outbox, and invoke(None, config) "
        "sent the mail. (interrupt_after=['review'] stops at the same place.)"
    )


# -- 8.3 --------------------------------------------------------------------------------


def _resumes(app: Any) -> list[Any]:
    """The answers ``app`` will be resumed with (``Command(resume=...)`` inputs to its
    ``invoke`` and ``stream``): at a breakpoint no interrupt() reads one, so the thread
    keeps no trace of it."""
    from graphkit import Command

    resumes: list[Any] = []
    for name in ("invoke", "stream"):
        method = getattr(app, name)

        def watched(input: Any, *args: Any, _method: Any = method, **kwargs: Any) -> Any:
            if isinstance(input, Command) and input.resume is not None:
                resumes.append(input.resume)
            return _method(input, *args, **kwargs)

        setattr(app, name, watched)
    return resumes


@exercise("8.3 · Edit the state at a breakpoint")
def check_edit_at_breakpoint(fix_and_send: Callable[[Any, dict, str], Any]) -> str:
    """``fix_and_send(app, config, address)`` gets a thread paused before ``send`` whose
    ``to`` is misspelt; it must correct ``to`` with ``update_state`` and resume, so that
    ``send`` runs once and the outbox holds the mail to ``address``."""
    from graphkit import InMemorySaver

    for name in ("Ada", "Bob"):
        calls: Counter[str] = Counter()
        builder = mail_builder(calls)
        app = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["send"])
        config = _thread(f"check-8.3-{name}")
        app.invoke({"name": name}, config)
        address = f"{name.lower()}@example.com"
        before_edit = app.get_state(config).values.get("to")
        resumed = _resumes(app)
        refuse_unread_stream(fix_and_send(app, dict(config), address))
        final = app.get_state(config)
        outbox = final.values.get("outbox") or []
        history = list(app.get_state_history(config))
        sources = [(s.metadata or {}).get("source") for s in history]
        if sources.count("input") > 1:
            edited = "update" in sources
            raise Wrong(
                f"(mail to {name}) "
                + ("your update_state edited the paused run, but then " if edited else "")
                + f"you started a new run with new input: the thread has "
                f"{sources.count('input')} input steps, and the new run stopped at the "
                f"breakpoint again (next {final.next}, outbox {outbox}).",
                "Resume with invoke(None, config): None goes on from the pause, while any "
                "input starts a new run from START."
                if edited
                else "Edit the paused run with app.update_state(config, {...}), then "
                "invoke(None, config).",
            )
        if calls["send"] == 0 and outbox:
            raise Wrong(
                f"(mail to {name}) the outbox is {outbox}, but send never ran: you wrote "
                "the outbox yourself.",
                "Fix only `to`, and let send do the sending.",
            )
        if final.next == ("send",) and calls["review"] > 1:
            raise Wrong(
                f"(mail to {name}) you resumed, but review ran again and the run stopped at "
                "the breakpoint before send once more: your update_state counted the edit "
                "as the output of a node before review.",
                "Leave as_node out (the node that ran last, review, whose edge leads to "
                "send), or name that node.",
            )
        if final.next == ("send",):
            raise Wrong(
                f"(mail to {name}) the run is still paused before send (next ('send',)); "
                f"`to` is {final.values.get('to')!r}.",
                "After update_state, resume with app.invoke(None, config).",
            )
        if not outbox:
            updates = [s for s in history if (s.metadata or {}).get("source") == "update"]
            detail = (
                f"your update_state left next {updates[0].next}: the edit counted as the "
                "output of a node whose edge leads to END, as if send had already run"
                if updates and updates[0].next != ("send",)
                else "send never ran"
            )
            raise Wrong(
                f"(mail to {name}) the outbox is empty: {detail}.",
                "Leave as_node out (the node that ran last, review, whose edge leads to "
                "send), or name that node.",
            )
        if outbox != [f"to {address}: Hi {name}, lunch on Friday? -- Ann"]:
            if "exmaple" not in outbox[0]:
                detail = f": `to` is {final.values.get('to')!r}."
            elif any(
                s.values.get("to") == before_edit and app.get_state(s.parent_config).next
                for s in history
                if (s.metadata or {}).get("source") == "update"
            ):
                detail = (
                    f": your update_state did not change `to` (still {before_edit!r}), so "
                    "send mailed the misspelt address. update_state writes only the keys the "
                    f"state has ({', '.join(Mail.__annotations__)}) and drops any other key, "
                    "with a warning that names it."
                )
            elif "update" in sources:
                detail = ": send ran before your edit."
            elif resumed:
                detail = (
                    ": the thread's `to` was never changed (no `update` checkpoint). "
                    "Command(resume=...) answers an interrupt() and edits nothing."
                )
            else:  # (the stub; or a change made to get_state(...).values, a copy)
                detail = (
                    ": you resumed the run without changing the thread's `to` first (its "
                    "history has no `update` checkpoint), so send mailed the misspelt "
                    "address."
                )
            raise Wrong(
                f"(mail to {name}) the outbox is {outbox}; expected one mail to {address!r}"
                + detail,
                "While the run is paused, correct `to` with app.update_state(...); then resume.",
            )
    if "update" not in sources:
        return (
            "send ran once, to the right address: Command(update=...) as the resume input "
            "wrote `to` into the paused step, as in LangGraph. update_state, the lesson's "
            "way, does the same before you resume and leaves an `update` checkpoint in the "
            "history, so you can look at the edit before anything runs."
        )
    return (
        "update_state saved your address as a new checkpoint, attributed to review, so "
        "send stayed next; resuming with None (no new input) ran send once, to the right "
        "address."
    )
