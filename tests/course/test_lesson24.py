"""Lesson 24's checks on their solutions, on typical wrong answers and on the notebook's
stubs; and the lesson's claims on LangGraph: its graph cells run there too (imports
swapped), showing the same messages, ids and order, and what graphkit's records show
(when an id is given, a replaced message, a failed deletion, the order of one step's
writes) is read from LangGraph's own stream, checkpoints and errors."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage

from graphkit.course import assert_fails, assert_passes, lesson24
from graphkit.course.solutions import lesson24 as solutions
from graphkit.prebuilt import REMOVE_ALL_MESSAGES
from graphkit.types import Overwrite
from tests.course.cells import (
    cells_showing_an_id,
    code_cells,
    lines_too_long,
    run_again_in_reverse,
    run_cells,
    stub_names,
)

LESSON = Path(__file__).parents[2] / "notebooks" / "24-messages-in-depth.ipynb"
IMPORT = "from graphkit.course import lesson24"


def stub_cells() -> dict:
    return stub_names(LESSON, lesson24, ("def sign(", "def keep_recent(", "def repair("))


def test_the_notebooks_stubs_fail_their_checks():
    stubs = stub_cells()
    assert_fails(
        lesson24.check_sign(stubs["sign"]),
        "sign wrote nothing to messages, so the answer still reads 'It left Oslo.'",
        hint="the signed copy under messages",
    )
    assert_fails(
        lesson24.check_keep_recent(stubs["keep_recent"]),
        "trim changed nothing: the history still has 8 messages; it should keep 4",
        hint="drops the others",
    )
    assert_fails(
        lesson24.check_repair(stubs["repair"]),
        "repair returned nothing to write",
        hint="what the history lacks",
    )


def test_the_lessons_cells_show_the_same_when_run_again():
    """Every cell that runs a graph shows the same when run again, in any order: each
    builds its own graph and thread."""
    shown = run_again_in_reverse(
        LESSON, IMPORT, lambda source: "trace(" in source or "invoke(" in source
    )
    said = "\n".join(out for out, _ in shown.values())
    assert "the same ids in the result and the checkpoint: True" in said
    assert "answer: the model was sent 4 messages: ['human', 'ai', 'human', 'tool']" in said


def test_no_cell_shows_an_id():
    assert cells_showing_an_id(LESSON, IMPORT) == {}


def test_every_code_line_fits_the_cell():
    """JupyterLab at the course's reading width shows about 105 characters of a code line;
    a longer one scrolls sideways, hiding its end."""
    assert lines_too_long(LESSON) == []


# -- the lesson's claims on LangGraph

LANGGRAPH_IMPORTS = {
    (
        "from graphkit import START, InMemorySaver, MessagesState, Overwrite, StateGraph, "
        "add_messages"
    ): (
        "from langgraph.checkpoint.memory import InMemorySaver\n"
        "from langgraph.graph import START, MessagesState, StateGraph, add_messages\n"
        "from langgraph.types import Overwrite"
    ),
    "from graphkit.prebuilt import REMOVE_ALL_MESSAGES, create_react_agent": (
        "from langgraph.graph.message import REMOVE_ALL_MESSAGES\n"
        "from langgraph.prebuilt import create_react_agent"
    ),
}


def cell_with(text: str) -> str:
    """The id of the lesson's code cell whose source holds ``text``."""
    return next(cell for cell, source in code_cells(LESSON) if text in source)


FAILED_DELETION = cell_with('add_messages(chat, [RemoveMessage(id="answer-9")])')
STUCK = cell_with("error, agent, model, thread = stuck_thread()")
WORDED_ITS_OWN_WAY = (FAILED_DELETION, STUCK)
"""The cells that print an error's words, which are each library's own."""


def to_langgraph(cell: str, source: str) -> str | None:
    """The cell for LangGraph, or None for one that reads graphkit's records."""
    if ".trace(" in source or "to_frame" in source:
        return None
    for ours, theirs in LANGGRAPH_IMPORTS.items():
        source = source.replace(ours, theirs)
    assert "from graphkit import" not in source
    assert "from graphkit.prebuilt import REMOVE" not in source
    return source


def run_lesson(library: str) -> tuple[dict, dict]:
    """Sections 1 to 6's code cells on ``library``: what each showed, and the names."""
    names: dict = {"display": print}
    source_of = to_langgraph if library == "langgraph" else (lambda cell, source: source)
    return run_cells(LESSON, until=IMPORT, names=names, source_of=source_of), names


def _ids(messages) -> list:
    return [m.id if len(m.id) < 20 else "generated" for m in messages]


def observe(names: dict) -> dict:
    """What the lesson shows with graphkit's records, computed from its own graphs with
    the library's stream, checkpointer and errors (no graphkit records)."""
    seen: dict = {}
    graph = names["StateGraph"]
    # section 1: the tuple is written as it is; the Update of step 0 gives it its id
    app = names["hello"].compile(checkpointer=names["InMemorySaver"]())
    thread = {"configurable": {"thread_id": "ids"}}
    chunks = list(app.stream({"messages": [("user", "Hi!")]}, thread, stream_mode="values"))
    seen["values chunks"] = [[(m.type, m.content) for m in c["messages"]] for c in chunks]
    ids = [m.id for m in app.get_state(thread).values["messages"]]
    seen["ids kept in every chunk"] = all(
        [m.id for m in chunk["messages"]] == ids[: len(chunk["messages"])] for chunk in chunks
    )
    seen["messages saved"] = [
        len(s.values["messages"]) for s in reversed(list(app.get_state_history(thread)))
    ]
    # section 2: translate replaced the answer in place; the fixed one appends
    parcel = names["parcel"]
    updates = list(names["support_graph"](names["translate"]).stream(parcel, stream_mode="updates"))
    seen["translate wrote"] = [m.id for m in updates[1]["translate"]["messages"]]
    seen["translated"] = _ids(names["support_graph"](names["translate"]).invoke(parcel)["messages"])
    # section 3: a failed deletion leaves the step's state as it was
    chat = names["chat"]
    builder = graph(names["MessagesState"])
    builder.add_node("note", lambda state: {"messages": [AIMessage("Noted", id="note-1")]})
    builder.add_node("remove", lambda state: {"messages": [RemoveMessage(id="answer-9")]})
    builder.add_edge(names["START"], "note")
    builder.add_edge(names["START"], "remove")
    app = builder.compile(checkpointer=names["InMemorySaver"]())
    thread = {"configurable": {"thread_id": "remove"}}
    with pytest.raises(ValueError, match="answer-9"):
        app.invoke({"messages": chat}, thread)
    saved = app.checkpointer.get_tuple(thread)
    seen["saved after the failed deletion"] = _ids(saved.checkpoint["channel_values"]["messages"])
    seen["pending writes kept"] = len(saved.pending_writes)
    with pytest.raises(ValueError, match="answer-9"):
        app.get_state(thread)  # (it applies the pending writes)
    # section 3: an Overwrite beats the other writes of its step; REMOVE_ALL is merged
    overwrite = names["Overwrite"]
    for name, reset in (
        ("overwrite", overwrite([AIMessage("Only", id="o")])),
        ("remove all", [RemoveMessage(id=names["REMOVE_ALL_MESSAGES"])]),
    ):
        reports = names["two_reports"](news=lambda state, reset=reset: {"messages": reset})
        seen[f"{name} beside another write"] = _ids(reports.invoke({"messages": chat})["messages"])
    # section 4: task order, by name; and two deletions of one message
    seen["appended"] = _ids(names["two_reports"]().invoke({"messages": []})["messages"])
    builder = graph(names["MessagesState"])
    builder.add_node("forecast", names["weather_report"])
    builder.add_node("news", names["news_report"])
    builder.add_edge(names["START"], "forecast")
    builder.add_edge(names["START"], "news")
    seen["renamed"] = _ids(builder.compile().invoke({"messages": []})["messages"])

    def drop(state):
        return {"messages": [RemoveMessage(id="answer-1")]}

    with pytest.raises(ValueError, match="answer-1"):
        names["two_reports"](weather=drop, news=drop).invoke({"messages": chat})
    # section 5: the stuck thread refuses every new message
    error, agent, model, thread = names["stuck_thread"]()
    seen["stuck error"] = "INVALID_CHAT_HISTORY" in str(error)
    with pytest.raises(ValueError, match="INVALID_CHAT_HISTORY"):
        agent.invoke({"messages": [HumanMessage("Are you there?", id="u-3")]}, thread)
    seen["stuck next"] = agent.get_state(thread).next
    seen["stuck model calls"] = len(model.calls)
    # Q4: each repair, and where it leaves the history
    for name, repair in names["repairs"].items():
        _, agent, model, thread = names["stuck_thread"](AIMessage("Hello again!", id="hello-2"))
        agent.update_state(thread, {"messages": repair})
        seen[f"{name} next"] = agent.get_state(thread).next
        seen[f"{name} history"] = _ids(agent.invoke(None, thread)["messages"])
        seen[f"{name} sent"] = _ids(model.calls[-1])
    return seen


def test_the_lessons_claims_hold_on_langgraph():
    pytest.importorskip("langgraph")
    ours, our_names = run_lesson("graphkit")
    theirs, their_names = run_lesson("langgraph")
    # the cells that run on both show the same (the drawings and the errors' words aside)
    same = {cell: ours[cell] for cell in theirs if cell not in WORDED_ITS_OWN_WAY}
    assert {cell: theirs[cell] for cell in same} == same
    assert len(same) >= 16
    said = theirs[FAILED_DELETION][0]
    assert "ValueError: Attempting to delete a message with an ID that doesn't exist" in said
    for library in (ours, theirs):
        shown = library[STUCK]
        assert "code: INVALID_CHAT_HISTORY\nthe thread's next: ('agent',)" in shown[0]
        assert shown[1] == ours[STUCK][1]  # the stuck history's table
    seen = observe(our_names)
    assert seen == observe(their_names)
    assert seen["values chunks"] == [
        [("human", "Hi!")],
        [("human", "Hi!"), ("ai", "Hello! How can I help?")],
    ]
    assert seen["ids kept in every chunk"] is True
    assert seen["messages saved"] == [0, 1, 2]
    assert seen["translate wrote"] == ["answer-1"]
    assert seen["translated"] == ["q-1", "answer-1"]
    assert seen["saved after the failed deletion"] == ["q-1", "answer-1", "q-2"]
    assert seen["pending writes kept"] == 2
    assert seen["overwrite beside another write"] == ["o"]
    assert seen["remove all beside another write"] == ["weather-1"]  # (news, then weather)
    assert seen["appended"] == ["news-1", "weather-1"]
    assert seen["renamed"] == ["weather-1", "news-1"]
    assert (seen["stuck error"], seen["stuck next"], seen["stuck model calls"]) == (
        True,
        ("agent",),
        1,
    )
    assert seen["answer sent"] == ["u-1", "ask-1", "u-2", "generated"]
    assert seen["replace sent"] == ["u-1", "ask-1", "u-2"]
    assert seen["remove sent"] == ["u-1", "u-2"]
    assert {seen[f"{name} next"] for name in ("answer", "replace", "remove")} == {("agent",)}


def test_the_lessons_cells_print_what_the_lesson_says():
    shown, _ = run_lesson("graphkit")
    said = "\n".join(out for out, _ in shown.values())
    values = "\n".join(str(value) for _, value in shown.values())
    assert "step -1: []\ncheckpoint after step  0: ['human, id given: True']" in said
    assert "'Just text' -> HumanMessage('Just text'), id given: True" in said
    assert "step 1: messages before 1, after 2\nstep 2: messages before 2, after 2" in said
    assert "1     ai  answer-1  Votre colis a quitté Oslo aujourd'hui." in values
    assert "remove_all: ['HumanMessage, id given: True']" in said
    assert " overwrite: [('user', 'Start again')]" in said
    assert "step 1's tasks: ['news', 'weather']\nappended: ['news-1', 'weather-1']" in said
    assert "(writers: 'news' and 'weather'); the state is left as it was before the step." in said
    assert "replace: the model was sent 3 messages" in said
    assert " remove: the model was sent 2 messages: ['human', 'human']" in said
    assert "next: ('tools',)" in said and "It is Bergen: sunny." in values
    assert "2   tool   no-1        The user refused this call.          call-1" in values


# -- 24.1 · Sign the answer in place


def test_sign_passes_on_the_solution():
    assert_passes(lesson24.check_sign(solutions.sign))


def sign_as_new(state):
    return {"messages": [AIMessage(state["messages"][-1].content + lesson24.SIGNATURE)]}


def sign_with_a_new_id(state):
    answer = state["messages"][-1]
    signed = AIMessage(answer.content + lesson24.SIGNATURE)
    return {"messages": [RemoveMessage(id=answer.id), signed]}


def sign_in_place(state):
    state["messages"][-1].content += lesson24.SIGNATURE
    return {}


def sign_in_place_and_return(state):
    state["messages"][-1].content += lesson24.SIGNATURE
    return {"messages": [state["messages"][-1]]}


def sign_the_first_answer(state):
    first = next(m for m in state["messages"] if m.type == "ai")
    return {"messages": [first.model_copy(update={"content": first.content + lesson24.SIGNATURE})]}


def sign_as_the_user(state):
    """Same id, same place, signed: but a HumanMessage, so the answer became the user's
    words (it passed)."""
    answer = state["messages"][-1]
    return {"messages": [HumanMessage(answer.content + lesson24.SIGNATURE, id=answer.id)]}


def sign_returning_the_message(state):
    """The signed copy returned bare, not under messages: a message is no dict of state
    keys, so the node wrote nothing (as on LangGraph), and it was told the answer should
    read signed, which it did return."""
    answer = state["messages"][-1]
    return answer.model_copy(update={"content": answer.content + lesson24.SIGNATURE})


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (sign_returning_the_message, "sign wrote nothing to messages", "{'messages': ["),
        (sign_as_the_user, "the answer is now a human message", "AI message"),
        (sign_as_new, "the history holds 3 messages, not 2", "which messages does it replace"),
        (sign_with_a_new_id, "to ['h-1', '(generated)']", "id of one in the history"),
        (sign_in_place, "sign wrote nothing to messages", "leave the one it was given"),
        (sign_in_place_and_return, "changed the message object it was given", "model_copy"),
        (
            sign_the_first_answer,
            "sign wrote ai 'Hello! How can I help? (Ada, support ...' (id 'a-1') in place of an "
            "earlier message, and left the answer, the last message, as it was: 'Yes, until the "
            "parcel leaves.'",
            "the last message of the history",
        ),
    ],
)
def test_sign_wrong_answers(answer, said, hint):
    assert_fails(lesson24.check_sign(answer), said, hint=hint)


# -- 24.2 · Keep the system message and the last n


def test_keep_recent_passes_on_the_solution_and_on_the_other_ways_to_delete():
    assert_passes(lesson24.check_keep_recent(solutions.keep_recent))

    def kept(messages, n):
        others = [m for m in messages if m.type != "system"]
        return [m for m in messages if m.type == "system"] + others[max(len(others) - n, 0) :]

    assert_passes(
        lesson24.check_keep_recent(
            lambda messages, n: [RemoveMessage(id=REMOVE_ALL_MESSAGES), *kept(messages, n)]
        )
    )
    assert_passes(lesson24.check_keep_recent(lambda messages, n: Overwrite(kept(messages, n))))


def test_keep_recent_keeps_no_other_message_for_n_zero():
    """``others[:-n]`` drops nothing when n is 0 (``[:-0]`` is ``[:0]``): a history the
    check tries has n=0, and its own count of what stays is not fooled by ``[-0:]``."""

    def drop_up_to_the_last_n(messages, n):
        others = [m for m in messages if m.type != "system"]
        return [RemoveMessage(id=m.id) for m in others[:-n]]

    assert_fails(
        lesson24.check_keep_recent(drop_up_to_the_last_n),
        "(5 messages, n=0) trim changed nothing",
        hint="n may be 0",
    )


def test_keep_recent_that_deletes_from_the_list_it_was_given_fails():
    """Deleting from ``messages`` itself writes nothing: the run's values show the list
    shortened (it is the channel's own), but no Update deleted anything, so a saved
    checkpoint still holds every message."""

    def trim_the_list(messages, n):
        others = [m for m in messages if m.type != "system"]
        dropped = {m.id for m in others[:-n]}
        messages[:] = [m for m in messages if m.id not in dropped]
        return []

    assert_fails(
        lesson24.check_keep_recent(trim_the_list),
        "keep_recent changed the list it was given",
        hint="Return the deletions",
    )


@pytest.mark.parametrize("shape", [tuple, iter])
def test_keep_recent_returning_a_tuple_or_an_iterator_is_told_to_return_a_list(shape):
    """add_messages takes a list (or one message): a tuple it read as one message, (role,
    text), and the verdict was the coercion's NotImplementedError."""

    def keep_recent(messages, n):
        return shape(solutions.keep_recent(messages, n))

    assert_fails(lesson24.check_keep_recent(keep_recent), "not a list", hint="list(")


def test_keep_recent_returning_a_dict_is_told_to_return_the_list():
    def as_a_dict(messages, n):
        return {"messages": solutions.keep_recent(messages, n)}

    assert_fails(lesson24.check_keep_recent(as_a_dict), "keep_recent returned a dict", hint="list")


def test_keep_recent_that_adds_the_kept_ones_again_with_new_ids_is_told_about_the_ids():
    """A reset that writes copies without their ids keeps the system message, with a new
    id: the verdict says the ids changed, not that the system message was deleted."""

    def copies_without_ids(messages, n):
        others = [m for m in messages if m.type != "system"]
        kept = [m for m in messages if m.type == "system"] + others[-n:]
        copies = [m.model_copy(update={"id": None}) for m in kept]
        return [RemoveMessage(id=REMOVE_ALL_MESSAGES), *copies]

    assert_fails(
        lesson24.check_keep_recent(copies_without_ids),
        "the history ends as ['(generated)', '(generated)'",
        hint="with its id",
    )


def keep_by_writing_them(messages, n):
    return [messages[0], *messages[-n:]]


def keep_the_last_n_of_all(messages, n):
    return [RemoveMessage(id=m.id) for m in messages[:-n]]


def keep_one_too_many(messages, n):
    others = [m for m in messages if m.type != "system"]
    return [RemoveMessage(id=m.id) for m in others[: -n - 1]]


def keep_by_guessed_ids(messages, n):
    return [RemoveMessage(id=f"m{i}") for i in range(len(messages) - n)]


def keep_by_position(messages, n):
    return [RemoveMessage(id=m.id) for m in messages[1:-n]]


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (keep_by_writing_them, "all with ids the history holds", "Writing a message never"),
        (keep_the_last_n_of_all, "the system message was deleted", "Keep every system"),
        (keep_one_too_many, "it should be ['sys', 'm5', 'm6', 'm7']", "Count the last n"),
        (keep_by_position, "(6 messages, n=2) the history ends as", "Count the last n"),
        (keep_by_guessed_ids, "(8 messages, n=3) the Update refused trim's write", "Name only"),
    ],
)
def test_keep_recent_wrong_answers(answer, said, hint):
    assert_fails(lesson24.check_keep_recent(answer), said, hint=hint)


# -- 24.3 · Repair a history with tool calls waiting


def test_repair_passes_on_the_solution():
    assert_passes(lesson24.check_repair(solutions.repair))


def with_answers_after_their_calls(messages):
    """The history again, each waiting call's answer right after the AIMessage that
    made it (where OpenAI's API wants it)."""
    waiting = set(lesson24.unanswered_calls(messages))
    history = []
    for message in messages:
        history.append(message)
        calls = [call["id"] for call in getattr(message, "tool_calls", [])]
        history += [ToolMessage("Cancelled.", tool_call_id=c) for c in calls if c in waiting]
    return history


def test_repair_passes_with_the_answers_right_after_their_calls():
    """A right answer written the other way: the history rewritten with the answers
    inserted (REMOVE_ALL_MESSAGES first, or an Overwrite), every message kept in order."""
    assert_passes(
        lesson24.check_repair(
            lambda messages: [
                RemoveMessage(id=REMOVE_ALL_MESSAGES),
                *with_answers_after_their_calls(messages),
            ]
        )
    )
    assert_passes(
        lesson24.check_repair(lambda messages: Overwrite(with_answers_after_their_calls(messages)))
    )


def test_repair_answering_only_some_of_several_waiting_calls_fails():
    """A history with three calls waiting at once, in two AIMessages."""

    def only_the_first(messages):
        return [ToolMessage("Cancelled.", tool_call_id=lesson24.unanswered_calls(messages)[0])]

    assert_fails(
        lesson24.check_repair(only_the_first),
        "still has calls that nothing answers: ['w-rome', 'w-lima']",
        hint="Each call",
    )


def test_repair_giving_its_answers_one_id_is_told_that_one_replaces_the_other():
    def one_id(messages):
        waiting = lesson24.unanswered_calls(messages)
        return [ToolMessage("Cancelled.", tool_call_id=c, id="cancelled") for c in waiting]

    assert_fails(
        lesson24.check_repair(one_id),
        "3 messages with the id 'cancelled'",
        hint="an id of its own",
    )


def test_repair_that_moves_a_message_or_answers_before_the_call_fails():
    """Rewriting the history is fine; changing its order, or putting an answer before
    its call, is not."""

    def reversed_history(messages):
        answers = [
            ToolMessage("Cancelled.", tool_call_id=c) for c in lesson24.unanswered_calls(messages)
        ]
        return [RemoveMessage(id=REMOVE_ALL_MESSAGES), *reversed(messages), *answers]

    def answers_first(messages):
        answers = [
            ToolMessage("Cancelled.", tool_call_id=c) for c in lesson24.unanswered_calls(messages)
        ]
        return [RemoveMessage(id=REMOVE_ALL_MESSAGES), *answers, *messages]

    assert_fails(lesson24.check_repair(reversed_history), "some moved", hint="in its place")
    assert_fails(
        lesson24.check_repair(answers_first),
        "the answer to 'w-bergen' comes before the call it answers",
        hint="after the AIMessage",
    )


def answer_the_last_calls(messages):
    answered = {m.tool_call_id for m in messages if m.type == "tool"}
    last = next(m for m in reversed(messages) if getattr(m, "tool_calls", None))
    calls = [call for call in last.tool_calls if call["id"] not in answered]
    return [ToolMessage("Cancelled.", tool_call_id=call["id"]) for call in calls]


def answer_every_call(messages):
    calls = [call for m in messages for call in getattr(m, "tool_calls", [])]
    return [ToolMessage("Cancelled.", tool_call_id=call["id"]) for call in calls]


def answer_by_message_id(messages):
    return [ToolMessage("Cancelled.", tool_call_id=m.id) for m in messages if m.type == "ai"]


def remove_the_asking_messages(messages):
    return [RemoveMessage(id=m.id) for m in messages if getattr(m, "tool_calls", None)]


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        # (its hint said to give what the history lacks for each waiting call, not where)
        (
            answer_the_last_calls,
            "(calls ['w-lima'] waiting) repair returned nothing",
            "not only the last one",
        ),
        (answer_every_call, "['w-oslo'] now have two answers", "no message answers yet"),
        (answer_by_message_id, "still has calls that nothing answers: ['w-bergen']", "call's id"),
        (remove_the_asking_messages, "lost or changed ai ''", "Keep every message"),
        (lambda messages: {"messages": []}, "repair returned a dict", "a list"),
    ],
)
def test_repair_wrong_answers(answer, said, hint):
    assert_fails(lesson24.check_repair(answer), said, hint=hint)


def test_the_exercises_solutions_do_the_same_on_langgraph():
    """24.1 and 24.2's solutions in LangGraph's own graphs, 24.3's on its own
    create_react_agent's stuck thread: the same messages, ids and order as graphkit's."""
    pytest.importorskip("langgraph")
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import create_react_agent

    def one_node(node):
        builder = StateGraph(MessagesState)
        builder.add_node("node", node)
        builder.add_edge(START, "node")
        return builder.compile()

    history = [
        HumanMessage("Hello", id="h-1"),
        AIMessage("Hello! How can I help?", id="a-1"),
        HumanMessage("Can I change my address?", id="h-2"),
        AIMessage("Yes.", id="a-2"),
    ]
    # (a lambda: LangGraph reads a node's annotation, graphkit's MessagesState here)
    signed = one_node(lambda state: solutions.sign(state))
    theirs = signed.invoke({"messages": copy.deepcopy(history)})["messages"]
    assert [(m.id, m.content) for m in theirs] == [
        ("h-1", "Hello"),
        ("a-1", "Hello! How can I help?"),
        ("h-2", "Can I change my address?"),
        ("a-2", "Yes." + lesson24.SIGNATURE),
    ]
    trim = one_node(lambda state: {"messages": solutions.keep_recent(state["messages"], 2)})
    for ours_or_theirs in (trim, lesson24.trimming_graph(solutions.keep_recent, 2)):
        assert [m.id for m in ours_or_theirs.invoke({"messages": history})["messages"]] == [
            "h-2",
            "a-2",
        ]

    graphkit_agent, config, _ = lesson24.stuck_agent(lesson24._stuck_histories()[2])
    stuck = graphkit_agent.get_state(config).values["messages"]
    from graphkit.prebuilt import ScriptedChatModel

    model = ScriptedChatModel(responses=[AIMessage("All right.", id="end")])
    agent = create_react_agent(model, [], checkpointer=InMemorySaver())
    with pytest.raises(ValueError, match="INVALID_CHAT_HISTORY"):
        agent.invoke({"messages": copy.deepcopy(stuck)}, config)
    messages = agent.get_state(config).values["messages"]
    assert lesson24.unanswered_calls(messages) == ["w-lima"]
    agent.update_state(config, {"messages": solutions.repair(messages)})
    result = agent.invoke(None, config)["messages"]
    assert [m.id for m in result[: len(stuck)]] == [m.id for m in stuck]
    assert [m.tool_call_id for m in result if m.type == "tool"] == ["w-bergen", "w-lima"]
    assert result[-1].id == "end"


def test_an_answer_that_forgets_to_return_is_told_so():
    """A function without ``return`` gives None, which add_messages refuses; the verdict
    names the missing return, not the reducer's words."""

    def keep_recent(messages, n):
        solutions.keep_recent(messages, n)

    def repair(messages):
        solutions.repair(messages)

    assert_fails(
        lesson24.check_keep_recent(keep_recent), "keep_recent returned None", hint="return"
    )
    assert_fails(lesson24.check_repair(repair), "repair returned None", hint="return")


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_the_answer_written_right_after_its_call_reaches_the_model_there(library):
    """Q4's explanation: REMOVE_ALL_MESSAGES, then the history again with the answer after
    ``ask-1``, puts it where OpenAI's API wants it, on a stuck thread of either library."""
    from langchain_core.tools import tool

    from graphkit.prebuilt import ScriptedChatModel

    if library == "langgraph":
        pytest.importorskip("langgraph")
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.prebuilt import create_react_agent
    else:
        from graphkit import InMemorySaver
        from graphkit.prebuilt import create_react_agent

    @tool
    def weather(city: str) -> str:
        """The weather in a city."""
        return f"{city}: sunny"

    call = {"name": "weather", "args": {"city": "Oslo"}, "id": "call-1"}
    ask = AIMessage("", id="ask-1", tool_calls=[call])
    model = ScriptedChatModel(responses=[ask, AIMessage("Hello again!", id="hello-2")])
    agent = create_react_agent(
        model, [weather], checkpointer=InMemorySaver(), interrupt_before=["tools"]
    )
    thread = {"configurable": {"thread_id": "chat"}}
    agent.invoke({"messages": [HumanMessage("Weather in Oslo?", id="u-1")]}, thread)
    with pytest.raises(ValueError, match="INVALID_CHAT_HISTORY"):
        agent.invoke({"messages": [HumanMessage("Never mind. Hello!", id="u-2")]}, thread)
    history = []
    for message in agent.get_state(thread).values["messages"]:
        history.append(message)
        if message.id == "ask-1":
            history.append(ToolMessage("Cancelled by the user.", tool_call_id="call-1", id="t-1"))
    agent.update_state(thread, {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), *history]})
    result = agent.invoke(None, thread)["messages"]
    assert [m.id for m in result] == ["u-1", "ask-1", "t-1", "u-2", "hello-2"]
    assert [m.id for m in model.calls[-1]] == ["u-1", "ask-1", "t-1", "u-2"]


def test_keep_recent_writing_one_kept_message_reads_in_the_singular():
    def keep_by_writing_the_last(messages, n):
        return [messages[-1]]

    assert_fails(lesson24.check_keep_recent(keep_by_writing_the_last), "trim wrote 1 message,")


def test_keep_recent_that_puts_the_system_message_last_is_told_about_the_order():
    """The right messages, the system message written after the kept ones: the hint
    said to count the last n again, which the answer did right."""

    def system_last(messages, n):
        others = [m for m in messages if m.type != "system"]
        system = [m for m in messages if m.type == "system"]
        return [RemoveMessage(id=REMOVE_ALL_MESSAGES), *(others[-n:] if n else []), *system]

    assert_fails(
        lesson24.check_keep_recent(system_last),
        "the history ends as ['m5', 'm6', 'm7', 'sys']",
        hint="in the order you write",
    )


def test_keep_recent_returning_inside_its_loop_is_told_it_wrote_one_deletion():
    """A ``return`` inside the loop writes the first deletion only: the hint said to
    count the last n, which the loop did right."""

    def return_in_the_loop(messages, n):
        others = [m for m in messages if m.type != "system"]
        for message in others[:-n] if n else others:
            return [RemoveMessage(id=message.id)]
        return []

    assert_fails(
        lesson24.check_keep_recent(return_in_the_loop),
        "trim wrote 1 deletion, of 'm1'; 4 messages had to go: ['m1', 'm2', 'm3', 'm4']",
        hint="return inside the loop",
    )


def test_repair_answering_with_ai_messages_is_told_an_answer_is_a_tool_message():
    """An AIMessage takes a tool_call_id (it keeps any keyword), but answers nothing: the
    check counted it as an answer and the agent's refusal came out as the learner's
    ValueError, with no hint."""

    def answer_as_the_ai(messages):
        waiting = lesson24.unanswered_calls(messages)
        return [AIMessage("Cancelled.", tool_call_id=c) for c in waiting]

    assert lesson24.unanswered_calls([AIMessage("x", tool_calls=[_call("w-1")])]) == ["w-1"]
    assert lesson24.unanswered_calls(
        [AIMessage("", tool_calls=[_call("w-1")]), AIMessage("Cancelled.", tool_call_id="w-1")]
    ) == ["w-1"]
    assert_fails(
        lesson24.check_repair(answer_as_the_ai),
        "still has calls that nothing answers: ['w-bergen']",
        hint="ToolMessage",
    )


def _call(call_id):
    return {"name": "weather", "args": {"city": "Oslo"}, "id": call_id}


def test_repair_whose_update_update_state_refuses_is_told_so():
    """A ``("tool", text)`` tuple is a fine return value, which update_state's
    add_messages cannot make a message of (no tool_call_id): the verdict said the
    learner's code raised KeyError, and to run it alone, where it raises nothing."""

    def answer_as_tuples(messages):
        return [("tool", "Cancelled.") for _ in lesson24.unanswered_calls(messages)]

    verdict = lesson24.check_repair(answer_as_tuples)
    assert_fails(verdict, "update_state refused your update", hint="tool_call_id")
    assert "Run your answer on its own" not in verdict.hint
