"""Tests of lesson 20's checks, and of its claims: each check passes on its solution and
fails, saying why, on the notebook's stub and on typical wrong answers; the lesson's
graphs run on LangGraph too, pausing, resuming and remembering the same way (what each
node ran, each snapshot, each subgraph's namespace and memory, the errors)."""

from __future__ import annotations

import operator
import types
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from graphkit import InMemorySaver
from graphkit.course import assert_fails, assert_passes, lesson20
from graphkit.course.solutions import lesson20 as solutions
from tests.course.cells import (
    cells_showing_an_id,
    run_again_in_reverse,
    stub_names,
)

LESSON = Path(__file__).parents[2] / "notebooks" / "20-subgraphs-in-depth.ipynb"
IMPORT = "from graphkit.course import lesson20"


def stub_cells() -> dict:
    return stub_names(
        LESSON, lesson20, ("def build_request(", "def compile_subgraphs(", "def answer_all(")
    )


def test_the_notebooks_stubs_fail_their_checks():
    stubs = stub_cells()
    assert_fails(lesson20.check_mail_once(stubs["build_request"]), "got 2 mails", hint="first line")
    assert_fails(
        lesson20.check_memory(stubs["compile_subgraphs"]), "it forgot", hint="one call only"
    )
    assert_fails(
        lesson20.check_answer_all(stubs["answer_all"]), "raised RuntimeError", hint="an id"
    )


def test_the_lessons_cells_show_the_same_when_run_again():
    """Every cell that runs a graph shows the same when run again, in any order: each
    builds its own checkpointer, and none prints an id (a task's id changes with the
    checkpoint's)."""
    shown = run_again_in_reverse(
        LESSON, IMPORT, lambda source: "trace(" in source or "invoke(" in source
    )
    assert "starts: {'review': 2, 'write': 1, 'ask': 2}" in shown["l20-c21"][0]


def test_no_cell_shows_an_id():
    """A task's id (in a subgraph's namespace) and an interrupt's id change from run to
    run: a cell that printed one would show each learner something else than the text
    around it says, and differ on every run of the lesson."""
    assert cells_showing_an_id(LESSON, IMPORT) == {}


# -- 20.1 · Send the mail once


def test_mail_once_passes_on_the_solution():
    assert (
        "one mail, before the question"
        in assert_passes(lesson20.check_mail_once(solutions.build_request)).message
    )


def mail_after(send, approval):
    from graphkit import START, StateGraph

    def request(state):
        answer = approval.invoke({"item": state["item"]})["answer"]
        send(state["item"])
        return {"answer": answer}

    return StateGraph(lesson20.Request).add_node("request", request).add_edge(START, "request")


def no_question(send, approval):
    from graphkit import START, StateGraph

    def request(state):
        send(state["item"])
        return {"answer": "yes"}

    return StateGraph(lesson20.Request).add_node("request", request).add_edge(START, "request")


def subgraph_as_node(send, approval):
    """The mail in its own node, the approval subgraph added as the next node."""
    from graphkit import START, StateGraph

    builder = StateGraph(lesson20.Request)
    builder.add_node("notify", lambda state: send(state["item"]) or {})
    builder.add_node("approval", approval)
    builder.add_edge(START, "notify")
    builder.add_edge("notify", "approval")
    return builder


def test_mail_once_passes_on_the_subgraph_added_as_a_node():
    assert_passes(lesson20.check_mail_once(subgraph_as_node))


def mail_beside_the_subgraph(send, approval):
    """The mail in a node of its own, in the same step as the approval subgraph."""
    from graphkit import START, StateGraph

    builder = StateGraph(lesson20.Request)
    builder.add_node("notify", lambda state: send(state["item"]) or {})
    builder.add_node("approval", approval)
    builder.add_edge(START, "notify")
    builder.add_edge(START, "approval")
    return builder


def test_mail_once_says_only_what_is_true_of_a_mail_sent_in_the_paused_step():
    """A mail sent beside the subgraph, in the step that paused, is kept as its finished
    task's write: the verdict said it had been sent by a step that had finished."""
    said = assert_passes(lesson20.check_mail_once(mail_beside_the_subgraph)).message
    assert "step that had finished" not in said
    assert "none on the resume" in said


def mail_unless_sent(send, approval):
    """A learner's guard: remember the items mailed, and skip the mail on the resume. It
    mails a second buyer of the same item nothing."""
    from graphkit import START, StateGraph

    mailed = set()

    def request(state):
        if state["item"] not in mailed:
            mailed.add(state["item"])
            send(state["item"])
        return {"answer": approval.invoke({"item": state["item"]})["answer"]}

    return StateGraph(lesson20.Request).add_node("request", request).add_edge(START, "request")


def own_question(send, approval):
    """The mail in its own node, then a question of the learner's own: the approval
    subgraph never runs. The check passed it."""
    from graphkit import START, StateGraph, interrupt

    builder = StateGraph(lesson20.Request)
    builder.add_node("notify", lambda state: send(state["item"]) or {})
    builder.add_node("request", lambda state: {"answer": interrupt(f"Buy {state['item']}?")})
    builder.add_edge(START, "notify")
    builder.add_edge("notify", "request")
    return builder


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (mail_after, "no mail had gone out", "before the subgraph asks"),
        (
            own_question,
            "asked 'Buy chair?', not the approval subgraph's question, 'Buy chair for 80?'",
            "approval.invoke",
        ),
        (mail_unless_sent, "a second buyer of 'chair'", "every thread"),
        (no_question, "never paused", "as a node or inside one"),
        (lambda send, approval: None, "Expected build_request's graph", ""),
        (None, "not a function", ""),
    ],
)
def test_mail_once_wrong_answers(answer, said, hint):
    assert_fails(lesson20.check_mail_once(answer), said, hint=hint)


# -- 20.2 · Remember, or start afresh


def test_memory_passes_on_the_solution():
    assert_passes(lesson20.check_memory(solutions.compile_subgraphs))


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (
            lambda n, d: (n.compile(checkpointer=True), d.compile(checkpointer=True)),
            "started from an earlier turn's lines",
            "start afresh",
        ),
        (
            lambda n, d: (n.compile(checkpointer=True), d.compile(checkpointer=False)),
            "outline node ran 2 times",
            "saves per call",
        ),
        (
            lambda n, d: (n.compile(checkpointer=False), d.compile()),
            "it forgot the earlier turns",
            "one call only",
        ),
        (lambda n, d: n.compile(), "not a pair", ""),
        # a saver of its own forgets too (on LangGraph as well): the hint said "compiled
        # otherwise, it keeps its own state", and it had been compiled otherwise
        (
            lambda n, d: (n.compile(checkpointer=InMemorySaver()), d.compile()),
            "a checkpointer of its own",
            "checkpointer=True",
        ),
        (
            lambda n, d: (n.compile(checkpointer=False), d.compile()),
            "it forgot the earlier turns",
            "Section 3's table",
        ),
        # the pair turned round: the check's parent read the draft's state as the notes',
        # and the verdict said "Your code raised KeyError: 'seen'"
        (
            lambda n, d: (d.compile(), n.compile(checkpointer=True)),
            "the draft first",
            "return notes, draft",
        ),
    ],
)
def test_memory_wrong_answers(answer, said, hint):
    assert_fails(lesson20.check_memory(answer), said, hint=hint)


# -- 20.3 · Answer every pause


def test_answer_all_passes_on_the_solution():
    assert_passes(lesson20.check_answer_all(solutions.answer_all))


def by_item(interrupts):
    from graphkit import Command

    return Command(resume={p.value["item"]: "yes" for p in interrupts})


def all_yes(interrupts):
    from graphkit import Command

    return Command(resume={p.id: "yes" for p in interrupts})


def below_the_budget(interrupts):
    """``<`` for "at most": right on every price but the budget's own."""
    from graphkit import Command

    return Command(resume={p.id: "yes" if p.value["price"] < 100 else "no" for p in interrupts})


def as_booleans(interrupts):
    """True for "yes": the node wrote it down as the text 'True'."""
    from graphkit import Command

    return Command(resume={p.id: p.value["price"] <= 100 for p in interrupts})


def langgraphs_command(interrupts):
    """The right answers, in LangGraph's Command (as its docs import it)."""
    from langgraph.types import Command

    return Command(resume={p.id: "yes" if p.value["price"] <= 100 else "no" for p in interrupts})


def first_only(interrupts):
    from graphkit import Command

    return Command(resume={interrupts[0].id: "yes"})


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        # (the runtime's message in full: its first line stopped at "is keyed by [...]")
        (by_item, "keyed by ['desk', 'pen', 'shelf']: those are not the ids", "id of its own"),
        (all_yes, "desk costs 240, and your answer to it was 'yes'", "price"),
        (below_the_budget, "shelf costs 100, and your answer to it was 'no'", "at most 100"),
        (first_only, "still waits on ['desk', 'shelf']", "every interrupt"),
        # the verdict quoted the node's text, 'True', as if the learner had answered a str
        (as_booleans, "your answer to it was True, not 'yes'", "the words 'yes' and 'no'"),
        (lambda interrupts: {"resume": "yes"}, "not a Command", ""),
        # the verdict said "returned Command(resume={...}), not a Command"
        (langgraphs_command, "LangGraph's Command", "from graphkit import Command"),
    ],
)
def test_answer_all_wrong_answers(answer, said, hint):
    assert_fails(lesson20.check_answer_all(answer), said, hint=hint)


# -- the lesson's claims, on LangGraph


def libraries() -> list[types.SimpleNamespace]:
    import graphkit

    pytest.importorskip("langgraph")
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from langgraph.types import Command, Send, interrupt

    return [
        types.SimpleNamespace(
            StateGraph=graphkit.StateGraph,
            START=graphkit.START,
            Saver=graphkit.InMemorySaver,
            Command=graphkit.Command,
            Send=graphkit.Send,
            interrupt=graphkit.interrupt,
        ),
        types.SimpleNamespace(
            StateGraph=StateGraph,
            START=START,
            Saver=InMemorySaver,
            Command=Command,
            Send=Send,
            interrupt=interrupt,
        ),
    ]


class Post(TypedDict, total=False):
    topic: str
    draft: str
    verdict: str


class Desk(TypedDict, total=False):
    topic: str
    verdict: str
    published: bool


class Notebook(TypedDict, total=False):
    msg: str
    seen: Annotated[list, operator.add]


class Chat(TypedDict, total=False):
    msg: str
    seen: list


class Order(TypedDict, total=False):
    items: list
    bought: Annotated[list, operator.add]


def thread(name: str) -> dict:
    return {"configurable": {"thread_id": name}}


def values_of(pauses: Any) -> list:
    return [pause.value for pause in pauses]


def sections_1_2_and_5(lib: Any, seen: dict) -> None:
    calls: list[str] = []

    def write(state: Post) -> dict:
        calls.append("write")
        return {"draft": f"A post about {state['topic']}"}

    def ask(state: Post) -> dict:
        calls.append("ask")
        answer = lib.interrupt(f"Publish {state['draft']!r}?")
        return {"verdict": f"{answer}: {state['draft']}"}

    editor_builder = lib.StateGraph(Post)
    editor_builder.add_node("write", write)
    editor_builder.add_node("ask", ask)
    editor_builder.add_edge(lib.START, "write")
    editor_builder.add_edge("write", "ask")
    editor = editor_builder.compile()

    def publish(state: Desk) -> dict:
        return {"published": state["verdict"].startswith("yes")}

    desk_builder = lib.StateGraph(Desk)
    desk_builder.add_node("editor", editor)
    desk_builder.add_node("publish", publish)
    desk_builder.add_edge(lib.START, "editor")
    desk_builder.add_edge("editor", "publish")
    desk = desk_builder.compile(checkpointer=lib.Saver())
    result = desk.invoke({"topic": "tides"}, thread("desk"))
    paused = desk.get_state(thread("desk"))
    task = paused.tasks[0]
    seen["1 pause"] = (values_of(result["__interrupt__"]), list(calls), paused.next, paused.values)
    seen["1 task"] = (task.name, values_of(task.interrupts), sorted(task.state["configurable"]))
    namespace = task.state["configurable"]["checkpoint_ns"]
    assert namespace == f"editor:{task.id}"
    inside = desk.get_state(thread("desk"), subgraphs=True)
    editor_state = inside.tasks[0].state
    assert editor_state.config["configurable"]["checkpoint_ns"] == namespace
    assert editor_state.interrupts[0].id == paused.interrupts[0].id
    seen["1 inside"] = (
        editor_state.next,
        editor_state.values,
        [(t.name, values_of(t.interrupts)) for t in editor_state.tasks],
    )
    history = {"configurable": {"thread_id": "desk", "checkpoint_ns": namespace}}
    seen["1 history"] = [
        (saved.metadata["step"], saved.next, saved.values)
        for saved in desk.get_state_history(history)
    ]
    seen["1 parent history"] = [
        (saved.metadata["step"], saved.next, saved.values)
        for saved in desk.get_state_history(thread("desk"))
    ]
    calls.clear()
    seen["1 resume"] = desk.invoke(lib.Command(resume="yes"), thread("desk")), list(calls)

    def review_graph(editor: Any) -> Any:
        def review(state: Desk) -> dict:
            calls.append("review")
            result = editor.invoke({"topic": state["topic"]})
            calls.append("review, after the subgraph")
            return {"verdict": result["verdict"]}

        builder = lib.StateGraph(Desk)
        builder.add_node("review", review)
        builder.add_node("publish", publish)
        builder.add_edge(lib.START, "review")
        builder.add_edge("review", "publish")
        return builder.compile(checkpointer=lib.Saver())

    for choice, options in CHOICES.items():
        app = review_graph(editor_builder.compile(**options))
        calls.clear()
        app.invoke({"topic": "tides"}, thread("review"))
        inner = app.get_state(thread("review"), subgraphs=True).tasks[0].state
        saved_in = None if inner is None else inner.config["configurable"]["checkpoint_ns"]
        saved_in = saved_in and saved_in.partition(":")[0] + ":" * (":" in saved_in)
        result = app.invoke(lib.Command(resume="yes"), thread("review"))
        seen[f"2 {choice}"] = (saved_in, list(calls), result)

    fix = desk_builder.compile(checkpointer=lib.Saver())
    fix.invoke({"topic": "tides"}, thread("fix"))
    inner = fix.get_state(thread("fix"), subgraphs=True).tasks[0].state
    fix.update_state(inner.config, {"draft": "Tides, in three pictures"})
    inner = fix.get_state(thread("fix"), subgraphs=True).tasks[0].state
    seen["5"] = inner.values, inner.next, fix.invoke(lib.Command(resume="yes"), thread("fix"))


CHOICES = {
    "compile()": {},
    "checkpointer=True": {"checkpointer": True},
    "checkpointer=False": {"checkpointer": False},
}


def section_3(lib: Any, seen: dict) -> None:
    notebook_builder = lib.StateGraph(Notebook)
    notebook_builder.add_node("note", lambda state: {"seen": [state["msg"]]})
    notebook_builder.add_edge(lib.START, "note")
    for choice, options in CHOICES.items():
        notebook = notebook_builder.compile(**options)

        def chat(state: Chat, notebook: Any = notebook) -> dict:
            return {"seen": notebook.invoke({"msg": state["msg"]})["seen"]}

        builder = lib.StateGraph(Chat)
        builder.add_node("chat", chat)
        builder.add_edge(lib.START, "chat")
        app = builder.compile(checkpointer=lib.Saver())
        seen[f"3 {choice}"] = [
            app.invoke({"msg": msg}, thread(name))["seen"]
            for name, msg in [("a", "hi"), ("a", "again"), ("b", "other")]
        ]


def section_4(lib: Any, seen: dict) -> None:
    calls: list[str] = []

    def check(packet: dict) -> dict:
        calls.append(f"check {packet['item']}")
        answer = lib.interrupt({"question": "Buy it?", "item": packet["item"]})
        return {"bought": [f"{packet['item']}: {answer}"]}

    builder = lib.StateGraph(Order)
    builder.add_node("check", check)
    builder.add_conditional_edges(
        lib.START, lambda s: [lib.Send("check", {"item": i}) for i in s["items"]], ["check"]
    )
    order = builder.compile(checkpointer=lib.Saver())
    result = order.invoke({"items": ["laptop", "desk"]}, thread("order"))
    paused = order.get_state(thread("order"))
    seen["4 pause"] = (
        values_of(result["__interrupt__"]),
        paused.next,
        [(task.name, values_of(task.interrupts)) for task in paused.tasks],
        len({pause.id for pause in paused.interrupts}),
    )
    with pytest.raises(RuntimeError):
        order.invoke(lib.Command(resume="yes"), thread("order"))
    seen["4 one answer"] = values_of(order.get_state(thread("order")).interrupts)
    wanted = {"laptop": "yes", "desk": "no"}
    calls.clear()
    resume = {pause.id: wanted[pause.value["item"]] for pause in result["__interrupt__"]}
    seen["4 by id"] = order.invoke(lib.Command(resume=resume), thread("order")), list(calls)
    some = builder.compile(checkpointer=lib.Saver())
    pauses = some.invoke({"items": ["laptop", "desk"]}, thread("order"))["__interrupt__"]
    laptop = next(pause for pause in pauses if pause.value["item"] == "laptop")
    calls.clear()
    result = some.invoke(lib.Command(resume={laptop.id: "yes"}), thread("order"))
    seen["4 some"] = result["bought"], list(calls), values_of(result["__interrupt__"])
    one = builder.compile(checkpointer=lib.Saver())
    one.invoke({"items": ["lamp"]}, thread("order"))
    seen["4 one pause"] = one.invoke(lib.Command(resume="yes"), thread("order"))["bought"]


def observe_lesson(lib: Any) -> dict:
    """Sections 1 to 5 of the lesson, written against ``lib``: what a learner sees."""
    seen: dict = {}
    sections_1_2_and_5(lib, seen)
    section_3(lib, seen)
    section_4(lib, seen)
    return seen


def test_the_lessons_graphs_do_on_graphkit_what_they_do_on_langgraph():
    ours, theirs = (observe_lesson(lib) for lib in libraries())
    assert ours == theirs
    assert ours["1 pause"][1:] == (["write", "ask"], ("editor",), {"topic": "tides"})
    assert ours["1 inside"][:2] == (("ask",), {"topic": "tides", "draft": "A post about tides"})
    # Q1: at the pause the subgraph saved 3 checkpoints (its write's step holds draft), the
    # parent 2: its step 1, the subgraph's task, has no Update yet
    assert [step for step, _, _ in ours["1 history"]] == [1, 0, -1]
    assert ours["1 history"][0][1:] == (("ask",), {"topic": "tides", "draft": "A post about tides"})
    assert ours["1 parent history"] == [
        (0, ("editor",), {"topic": "tides"}),
        (-1, ("__start__",), {}),
    ]
    assert ours["1 resume"][1] == ["ask"]  # added as a node: write does not run again
    default, kept, unsaved = (ours[f"2 {choice}"] for choice in CHOICES)
    assert [entry[0] for entry in (default, kept, unsaved)] == ["review:", "review", None]
    for _, calls, result in (default, kept):
        assert [calls.count(name) for name in ("review", "write", "ask")] == [2, 1, 2]
        assert result["published"] is True
    assert [unsaved[1].count(name) for name in ("review", "write", "ask")] == [2, 2, 2]
    assert ours["3 compile()"][1] == ["again"] == ours["3 checkpointer=False"][1]
    assert ours["3 checkpointer=True"] == [["hi"], ["hi", "again"], ["other"]]
    assert ours["4 pause"][1:] == (
        ("check", "check"),
        [
            ("check", [v])
            for v in [
                {"question": "Buy it?", "item": "laptop"},
                {"question": "Buy it?", "item": "desk"},
            ]
        ],
        2,
    )
    assert ours["4 by id"][0]["bought"] == ["laptop: yes", "desk: no"]
    assert ours["4 some"][0] == ["laptop: yes"] and len(ours["4 some"][2]) == 1
    assert ours["4 one pause"] == ["lamp: yes"]  # one pause: a bare answer is its answer
    values, next_nodes, result = ours["5"]
    assert (values["draft"], next_nodes) == ("Tides, in three pictures", ("ask",))
    assert result["verdict"] == "yes: Tides, in three pictures"


def mail_runs(lib: Any, shape: str) -> tuple:
    """20.1's stub (the mail sent in the node that calls the subgraph) or its solution (the
    mail in a node of its own before): the mails at the pause and after the resume."""
    mails: list[str] = []
    approval = lib.StateGraph(lesson20.Approval)
    approval.add_node("look_up", lambda s: {"price": 80})
    approval.add_node("decide", lambda s: {"answer": lib.interrupt(f"Buy {s['item']}?")})
    approval.add_edge(lib.START, "look_up")
    approval.add_edge("look_up", "decide")
    sub = approval.compile()

    def request(state: dict) -> dict:
        if shape == "stub":
            mails.append(state["item"])
        return {"answer": sub.invoke({"item": state["item"]})["answer"]}

    builder = lib.StateGraph(lesson20.Request)
    builder.add_node("request", request)
    if shape == "solution":
        builder.add_node("notify", lambda s: mails.append(s["item"]) or {})
        builder.add_edge(lib.START, "notify")
        builder.add_edge("notify", "request")
    else:
        builder.add_edge(lib.START, "request")
    app = builder.compile(checkpointer=lib.Saver())
    app.invoke({"item": "chair"}, thread("t"))
    at_pause = list(mails)
    final = app.invoke(lib.Command(resume="yes"), thread("t"))
    return at_pause, list(mails), final


def side_by_side(lib: Any) -> tuple:
    """20.3's two subgraphs paused in one step: their snapshots, a bare answer refused,
    and one answer each by id."""
    sub = lib.StateGraph(lesson20.Approval)
    sub.add_node("ask", lambda s: {"answer": lib.interrupt({"item": s["item"]})})
    sub.add_edge(lib.START, "ask")
    asker = sub.compile()

    def buyer(item: str) -> Any:
        return lambda s: {"bought": [f"{item}: {asker.invoke({'item': item})['answer']}"]}

    builder = lib.StateGraph(Order)
    for item in ("sofa", "mug"):
        builder.add_node(f"buy_{item}", buyer(item))
        builder.add_edge(lib.START, f"buy_{item}")
    app = builder.compile(checkpointer=lib.Saver())
    pauses = app.invoke({}, thread("t"))["__interrupt__"]
    inside = sorted(
        (t.name, t.state.next) for t in app.get_state(thread("t"), subgraphs=True).tasks
    )
    with pytest.raises(RuntimeError):
        app.invoke(lib.Command(resume="no"), thread("t"))
    resume = {p.id: "yes" if p.value["item"] == "mug" else "no" for p in pauses}
    return inside, app.invoke(lib.Command(resume=resume), thread("t"))["bought"]


def test_the_exercise_graphs_do_on_graphkit_what_they_do_on_langgraph():
    """20.1's stub mails twice and its solution once; 20.3's two subgraphs paused side by
    side take one answer each by id, and refuse a bare answer; the same on LangGraph."""
    ours, theirs = (
        (mail_runs(lib, "stub"), mail_runs(lib, "solution"), side_by_side(lib))
        for lib in libraries()
    )
    assert ours == theirs
    stub, solution, (inside, bought) = ours
    assert stub[:2] == (["chair"], ["chair", "chair"])
    assert solution[:2] == (["chair"], ["chair"])
    assert inside == [("buy_mug", ("ask",)), ("buy_sofa", ("ask",))]
    assert sorted(bought) == ["mug: yes", "sofa: no"]
