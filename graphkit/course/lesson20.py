"""Checks for lesson 20 · Subgraphs in depth: their own checkpoints, pauses inside them,
and what runs again on resume.

Each check builds checkpointed graphs of its own, runs them until a subgraph pauses,
answers with ``Command(resume=...)`` and reads the thread back: what ran before the pause,
what ran again after it, what each subgraph remembered. A hard-coded answer cannot pass.

- ``check_mail_once(build_request)``: a mail sent before an approval subgraph asks, and
  never again when the run resumes.
- ``check_memory(compile_subgraphs)``: a notes subgraph that remembers the parent's turns
  on a thread, and a draft subgraph that starts afresh each turn yet resumes where it
  paused.
- ``check_answer_all(answer_all)``: one ``Command`` that answers several pauses of one
  step, each by its interrupt id.

>>> from graphkit.course.solutions import lesson20 as solutions
>>> bool(check_mail_once(solutions.build_request)), bool(check_memory(solutions.compile_subgraphs))
(True, True)
>>> bool(check_answer_all(solutions.answer_all))
True
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from graphkit.course.checking import Wrong, compiled, exercise

__all__ = [
    "Approval",
    "Draft",
    "Notes",
    "Request",
    "approval_graph",
    "check_answer_all",
    "check_mail_once",
    "check_memory",
    "draft_builder",
    "notes_builder",
    "turn_graph",
]


def _thread(name: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}


def _function(answer: Any, name: str) -> None:
    if not callable(answer):
        raise Wrong(f"{name} is {answer!r}, not a function.", f"Write {name} with def.")


def _checkpointed(answer: Any, what: str) -> Any:
    """``answer`` compiled with a checkpointer: a builder is compiled here with one."""
    from graphkit import InMemorySaver, StateGraph

    if isinstance(answer, StateGraph):
        return answer.compile(checkpointer=InMemorySaver())
    app = compiled(answer, what)
    if app.checkpointer is None:
        raise Wrong(
            f"{what} was compiled with no checkpointer: a run that pauses could not be "
            "resumed, since nothing saved where it stopped.",
            "Return the builder itself: the check compiles it with a checkpointer.",
        )
    return app


# -- 20.1 · send the mail once ---------------------------------------------------------------


class Request(TypedDict, total=False):
    item: str
    answer: str


class Approval(TypedDict, total=False):
    item: str
    price: int
    answer: str


PRICES = {"chair": 80, "lamp": 35, "desk": 240, "kettle": 25}


def approval_graph(calls: list[str] | None = None) -> Any:
    """A subgraph: ``look_up`` finds the item's price, ``decide`` asks ``Buy ITEM for PRICE?``
    with ``interrupt`` and keeps the answer. ``calls`` lists the nodes as they start."""
    from graphkit import START, StateGraph, interrupt

    calls = [] if calls is None else calls

    def look_up(state: Approval) -> dict:
        calls.append("look_up")
        return {"price": PRICES.get(state["item"], 50)}

    def decide(state: Approval) -> dict:
        calls.append("decide")
        return {"answer": interrupt(f"Buy {state['item']} for {state['price']}?")}

    builder = StateGraph(Approval)
    builder.add_node("look_up", look_up)
    builder.add_node("decide", decide)
    builder.add_edge(START, "look_up")
    builder.add_edge("look_up", "decide")
    return builder.compile()


@exercise("20.1 · Send the mail once")
def check_mail_once(build_request: Callable[[Any, Any], Any]) -> str:
    """``build_request(send, approval)`` returns a builder whose run mails the buyer
    (``send(item)``) and then asks the ``approval`` subgraph; the mail must have gone out
    when the run pauses, and never again after the resume. One graph serves four
    requests on threads of their own, the last a second buyer of the first item (a mail
    skipped because the item was mailed before fails there), each answered ``"yes"`` or
    ``"no"``."""
    from graphkit import Command

    _function(build_request, "build_request")
    sent: list[str] = []
    app = _checkpointed(build_request(sent.append, approval_graph()), "build_request's graph")
    requests = (("chair", "yes"), ("lamp", "no"), ("kettle", "yes"), ("chair", "no"))
    for number, (item, answer) in enumerate(requests):
        before = len(sent)  # this request's mails are sent[before:]
        config = _thread(f"check-20.1-{number}-{item}")
        app.invoke({"item": item}, config)
        mails = sent[before:]
        paused = app.get_state(config)
        questions = [pause.value for pause in paused.interrupts]
        if not questions:
            raise Wrong(
                f"(item {item!r}) the run never paused: it ended with next {paused.next} "
                f"and the state {paused.values}, so the approval subgraph never asked.",
                "Run the approval subgraph in your graph, as a node or inside one: its "
                "decide node asks.",
            )
        asked = f"Buy {item} for {PRICES[item]}?"  # (approval_graph's decide node)
        if questions[0] != asked:
            raise Wrong(
                f"(item {item!r}) the run paused and asked {questions[0]!r}, not the "
                f"approval subgraph's question, {asked!r}: the subgraph never asked.",
                "Ask with the approval subgraph build_request is given, added as a node or "
                "called inside one with approval.invoke(...): its decide node asks.",
            )
        if not mails and item in [earlier for earlier, _ in requests[:number]]:
            raise Wrong(
                f"(item {item!r}) when the run paused to ask {questions[0]!r}, no mail had "
                f"gone out: this is a second buyer of {item!r}, on a thread of its own, and "
                "the graph mailed the first buyer only.",
                "Each request must mail its own buyer. A memory of what was sent, kept "
                "outside the run, is shared by every thread of the graph: put the mail in "
                "a step that has finished when the run pauses.",
            )
        if mails != [item]:
            said = "no mail had gone out" if not mails else f"the mails were {mails}"
            raise Wrong(
                f"(item {item!r}) when the run paused to ask {questions[0]!r}, {said}: "
                f"the buyer must get one mail, send({item!r}), before the question.",
                "Send the mail before the subgraph asks, from code that has finished "
                "when the run pauses.",
            )
        app.invoke(Command(resume=answer), config)
        mails = sent[before:]
        final = app.get_state(config)
        if final.interrupts or final.next:
            raise Wrong(
                f"(item {item!r}) after the answer {answer!r} the run still waits, with "
                f"next {final.next}.",
                "Ask once: the approval subgraph's question is the only pause.",
            )
        if len(mails) != 1:
            raise Wrong(
                f"(item {item!r}) the buyer got {len(mails)} mails, {mails}: one before the "
                "pause, and another when the resume ran again the code that sent it.",
                "On a resume, the parent's task that paused runs again from its first "
                "line, though the subgraph inside it goes on from its own checkpoint. "
                "Code that must run once belongs in a step that had finished before the "
                "pause.",
            )
        if final.values.get("answer") != answer:
            raise Wrong(
                f"(item {item!r}) resumed with {answer!r}, the run ended with answer "
                f"{final.values.get('answer')!r}.",
                "Keep the approval subgraph's answer in the parent's state, under answer.",
            )
    return (
        "Each buyer got one mail, before the question, and none on the resume, which ran "
        "again only the task that paused."
    )


# -- 20.2 · a subgraph's memory --------------------------------------------------------------


class Notes(TypedDict, total=False):
    msg: str
    seen: Annotated[list, operator.add]


class Draft(TypedDict, total=False):
    msg: str
    lines: Annotated[list, operator.add]
    text: str


def notes_builder() -> Any:
    """A subgraph whose ``note`` node adds the message to ``seen``."""
    from graphkit import START, StateGraph

    builder = StateGraph(Notes)
    builder.add_node("note", lambda state: {"seen": [state["msg"]]})
    builder.add_edge(START, "note")
    return builder


def draft_builder(calls: list[str] | None = None) -> Any:
    """A subgraph: ``outline`` adds a line to ``lines``, ``confirm`` asks with
    ``interrupt`` whether to keep them, and writes ``text``. ``calls`` lists the nodes as
    they start."""
    from graphkit import START, StateGraph, interrupt

    calls = [] if calls is None else calls

    def outline(state: Draft) -> dict:
        calls.append("outline")
        return {"lines": [f"about {state['msg']}"]}

    def confirm(state: Draft) -> dict:
        calls.append("confirm")
        answer = interrupt(f"Keep {state['lines']}?")
        return {"text": f"{answer}: {'; '.join(state['lines'])}"}

    builder = StateGraph(Draft)
    builder.add_node("outline", outline)
    builder.add_node("confirm", confirm)
    builder.add_edge(START, "outline")
    builder.add_edge("outline", "confirm")
    return builder


class Turn(TypedDict, total=False):
    msg: str
    notes: list
    text: str


def turn_graph(notes: Any, draft: Any) -> Any:
    """The parent: ``remember`` calls ``notes``, then ``write`` calls ``draft``, each
    inside a node, translating the keys; compiled with a checkpointer."""
    from graphkit import START, InMemorySaver, StateGraph

    def remember(state: Turn) -> dict:
        return {"notes": notes.invoke({"msg": state["msg"]})["seen"]}

    def write(state: Turn) -> dict:
        return {"text": draft.invoke({"msg": state["msg"]})["text"]}

    builder = StateGraph(Turn)
    builder.add_node("remember", remember)
    builder.add_node("write", write)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "write")
    return builder.compile(checkpointer=InMemorySaver())


def _two_subgraphs(answer: Any) -> tuple[Any, Any]:
    if not isinstance(answer, tuple) or len(answer) != 2:
        raise Wrong(
            f"compile_subgraphs returned {answer!r}, not a pair (notes, draft).",
            "Return the two compiled subgraphs: return notes, draft.",
        )
    notes = compiled(answer[0], "the notes subgraph")
    draft = compiled(answer[1], "the draft subgraph")
    if "outline" in notes.spec.nodes and "note" in draft.spec.nodes:
        raise Wrong(
            "compile_subgraphs returned the draft first (its nodes are outline and "
            "confirm) and the notes second.",
            "The pair comes in the order of the arguments: return notes, draft.",
        )
    return notes, draft


@exercise("20.2 · Remember, or start afresh")
def check_memory(compile_subgraphs: Callable[[Any, Any], Any]) -> str:
    """``compile_subgraphs(notes_builder, draft_builder)`` compiles the two subgraphs: the
    notes must remember every turn of a thread (and only of that thread), the draft must
    start afresh each turn, yet resume a pause without running ``outline`` again."""
    from graphkit import Command

    _function(compile_subgraphs, "compile_subgraphs")
    calls: list[str] = []
    notes, draft = _two_subgraphs(compile_subgraphs(notes_builder(), draft_builder(calls)))
    app = turn_graph(notes, draft)
    turns = [("a", "tea"), ("a", "cake"), ("b", "soup"), ("a", "jam")]
    said: dict[str, list[str]] = {}
    for number, (thread, msg) in enumerate(turns, 1):
        config = _thread(f"check-20.2-{thread}")
        calls.clear()
        app.invoke({"msg": msg}, config)
        paused = app.get_state(config)
        if not paused.interrupts:
            raise Wrong(
                f"(turn {number}, {msg!r} on thread {thread!r}) the draft subgraph never "
                f"paused: the run ended with {paused.values}.",
                "Compile the draft's builder as it is: its confirm node asks.",
            )
        app.invoke(Command(resume="ok"), config)
        values = app.get_state(config).values
        said.setdefault(thread, []).append(msg)
        if values.get("notes") != said[thread]:
            forgot = len(values.get("notes") or []) < len(said[thread])
            own_saver = notes.checkpointer not in (None, True, False)
            raise Wrong(
                f"(turn {number}, {msg!r} on thread {thread!r}) the notes subgraph held "
                f"{values.get('notes')}, not {said[thread]}, the thread's turns so far: "
                + ("it forgot the earlier turns." if forgot else "it kept what it should not.")
                + (
                    f" It has a checkpointer of its own, {type(notes.checkpointer).__name__}, "
                    "which inside the parent's node saves each call apart, as the default does."
                    if forgot and own_saver
                    else ""
                ),
                "Give the notes no saver of their own: compile(checkpointer=True) saves "
                "through the parent's checkpointer, under the node's name, for every call."
                if forgot and own_saver
                else "Section 3's table: which compile keeps a subgraph's state across the "
                "parent's calls on a thread? The default keeps it for one call only."
                if forgot
                else "The notes must remember each thread's turns, and only that thread's.",
            )
        if values.get("text") != f"ok: about {msg}":
            raise Wrong(
                f"(turn {number}, {msg!r} on thread {thread!r}) the draft wrote "
                f"{values.get('text')!r}, not 'ok: about {msg}': it started from an "
                "earlier turn's lines.",
                "The draft must start afresh each turn: only the notes keep their state "
                "across turns.",
            )
        if calls.count("outline") != 1:
            raise Wrong(
                f"(turn {number}, {msg!r} on thread {thread!r}) the draft's outline node ran "
                f"{calls.count('outline')} times: once before the pause, and again when "
                "the resume started the draft over, since it had saved nothing.",
                "A subgraph resumes from its own checkpoint only if it saves one: the "
                "default compile saves per call, through the parent's checkpointer.",
            )
    return (
        "The notes remembered each thread's turns, the draft started afresh each turn "
        "and resumed from its own checkpoint: outline ran once per turn."
    )


# -- 20.3 · answer every pause by id ---------------------------------------------------------


class Order(TypedDict, total=False):
    items: list
    bought: Annotated[list, operator.add]


def _send_order(prices: dict[str, int]) -> Any:
    """One ``check`` task per item (a ``Send`` each), each pausing on ``{item, price}``."""
    from graphkit import START, InMemorySaver, Send, StateGraph, interrupt

    def check(packet: dict) -> dict:
        answer = interrupt({"item": packet["item"], "price": prices[packet["item"]]})
        return {"bought": [f"{packet['item']}: {answer}"]}

    builder = StateGraph(Order)
    builder.add_node("check", check)
    builder.add_conditional_edges(
        START, lambda state: [Send("check", {"item": i}) for i in state["items"]], ["check"]
    )
    return builder.compile(checkpointer=InMemorySaver())


def _subgraph_order(prices: dict[str, int]) -> Any:
    """One subgraph node per item, side by side, each pausing on ``{item, price}``."""
    from graphkit import START, InMemorySaver, StateGraph, interrupt

    def ask(state: Approval) -> dict:
        return {"answer": interrupt({"item": state["item"], "price": state["price"]})}

    sub = StateGraph(Approval)
    sub.add_node("ask", ask)
    sub.add_edge(START, "ask")
    asker = sub.compile()

    def node_for(item: str) -> Callable[[Order], dict]:
        def buy(state: Order) -> dict:
            answer = asker.invoke({"item": item, "price": prices[item]})["answer"]
            return {"bought": [f"{item}: {answer}"]}

        return buy

    builder = StateGraph(Order)
    for item in prices:
        builder.add_node(f"buy_{item}", node_for(item))
        builder.add_edge(START, f"buy_{item}")
    return builder.compile(checkpointer=InMemorySaver())


BUDGET = 100


@exercise("20.3 · Answer every pause")
def check_answer_all(answer_all: Callable[[Any], Any]) -> str:
    """``answer_all(interrupts)`` returns one ``Command`` that answers every pause: ``"yes"``
    for an item whose price is at most 100, ``"no"`` otherwise. Tried on a step of ``Send``
    tasks and on a step of two subgraphs, with items of the check's own."""
    from graphkit import Command

    _function(answer_all, "answer_all")
    orders = [
        # a shelf at the budget itself: "at most" answers it "yes", a "<" would not
        ("three Sends", _send_order, {"pen": 3, "desk": 240, "shelf": BUDGET}),
        ("two subgraphs", _subgraph_order, {"sofa": 900, "mug": 12}),
    ]
    for shape, build, prices in orders:
        app = build(prices)
        config = _thread(f"check-20.3-{shape}")
        app.invoke({"items": list(prices)}, config)
        interrupts = app.get_state(config).interrupts
        command = answer_all(interrupts)
        if type(command).__module__.partition(".")[0] == "langgraph":
            raise Wrong(
                f"({shape}) answer_all returned LangGraph's {type(command).__name__} (from "
                f"{type(command).__module__}): the check resumes a graphkit graph, which "
                "reads graphkit's Command.",
                "Import it from graphkit, with the same name: from graphkit import Command.",
            )
        if not isinstance(command, Command):
            raise Wrong(
                f"({shape}) answer_all returned {command!r}, not a Command.",
                "Return Command(resume=...): the one value you invoke the thread with.",
            )
        try:
            app.invoke(command, config)
        except RuntimeError as error:
            # graphkit's message says what was wrong before it lists the pending ids
            said = str(error).split("\nThe pending interrupts")[0]
            first = " ".join(said.splitlines()).rstrip(":.")
            raise Wrong(
                f"({shape}) {len(interrupts)} questions were waiting, and resuming with your "
                f"{command!r} raised RuntimeError: {first}.",
                "With several pauses, the runtime must know which answer is whose: each "
                "pause has an id of its own, in the interrupts you are given.",
            ) from error
        final = app.get_state(config)
        if final.interrupts:
            waiting = [pause.value["item"] for pause in final.interrupts]
            raise Wrong(
                f"({shape}) after your resume the run still waits on {waiting}: your "
                f"Command answered {len(interrupts) - len(waiting)} of the "
                f"{len(interrupts)} questions.",
                "Answer every interrupt you are given, in one Command.",
            )
        bought = dict(line.split(": ", 1) for line in final.values.get("bought", []))
        # the answers as given, not as the node wrote them down (True became 'True')
        given = command.resume if isinstance(command.resume, dict) else {}
        answers = {pause.value["item"]: given.get(pause.id) for pause in interrupts}
        for item, price in prices.items():
            expected = "yes" if price <= BUDGET else "no"
            if bought.get(item) != expected:
                answer = answers.get(item, bought.get(item))
                raise Wrong(
                    f"({shape}) {item} costs {price}, and your answer to it was "
                    f"{answer!r}, not {expected!r}.",
                    "Read each interrupt's value, the item and its price: an item that "
                    f"costs at most {BUDGET} gets 'yes'."
                    + (
                        ""
                        if isinstance(answer, str)
                        else " The answers are the words 'yes' and 'no'."
                    ),
                )
    return "Every pause got its own answer, by its id, in one resume: for Sends and subgraphs."
