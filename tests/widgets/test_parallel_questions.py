"""Several ``interrupt()`` calls waiting at once (a Send fan-out of approvals) in the
debugger: LangGraph takes only answers keyed by interrupt id, so the debugger names each
question by its id and its Resume takes a dict of answers by id, on a live run and on a
thread LangGraph saved; a refused Resume leaves the run paused as it was."""

from __future__ import annotations

from typing import Any

import pytest

from graphkit.widgets import DebugSession

langgraph = pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402

from tests.widgets.graphs import approvals  # noqa: E402

INPUT = {"expenses": [{"item": "laptop", "amount": 1800}, {"item": "chair", "amount": 240}]}


def langgraph_kit() -> Any:
    import langgraph.graph
    import langgraph.types

    return type("kit", (), {**vars(langgraph.graph), **vars(langgraph.types)})


def langgraph_answers(ids_to_answers: Any) -> tuple[Any, list[str]]:
    """LangGraph's own run, paused then answered by ``ids_to_answers(ids)``; the app, and
    its decisions."""
    from langgraph.types import Command

    app = approvals(langgraph_kit()).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "lg"}}
    ids = [asked.id for asked in app.invoke(INPUT, config)["__interrupt__"]]
    return app, app.invoke(Command(resume=ids_to_answers(ids)), config)["decisions"]


def live_session() -> DebugSession:
    import graphkit

    session = DebugSession(approvals(graphkit).compile(), INPUT)
    session.run()
    return session


def test_the_status_line_names_each_waiting_question_by_its_id():
    session = live_session()
    first, second = (asked.id[:8] for asked in session.interrupts)
    assert session.view().status_text == (
        f"interrupted at step 1: approve asks 'Approve laptop?' (id {first}); "
        f"approve asks 'Approve chair?' (id {second})"
    )


def test_one_answer_for_several_questions_is_refused_and_the_run_stays_paused():
    # LangGraph refuses it (RuntimeError); the session raised it half-way through
    # resuming, and then showed step 0 "paused by a compiled breakpoint", its questions gone
    session = live_session()
    before = (session.view().status_text, session.supersteps, session.interrupts)
    first, second = (asked.id[:8] for asked in session.interrupts)
    session.resume("yes")
    assert session.message == (
        "2 questions are waiting, so Resume needs an answer for each, keyed by its id: "
        f"type {{'{first}': ..., '{second}': ...}} (a question left out asks again)."
    )
    assert (session.view().status_text, session.supersteps, session.interrupts) == before
    session.resume({"nope": "yes"})
    assert session.message == (
        "'nope' begins none of the ids of the 2 questions waiting: key each answer by its "
        f"own id, as in {{'{first}': ..., '{second}': ...}}."
    )
    assert session.status == "interrupted"


def test_a_resume_the_runtime_refuses_leaves_the_run_paused_as_it_was(monkeypatch):
    session = live_session()
    before = (session.view().status_text, session.supersteps, session.interrupts)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the saver is down")

    monkeypatch.setattr(session.app, "stepper", refuse)
    session.resume({asked.id: "yes" for asked in session.interrupts})
    assert session.message == "Not resumed: RuntimeError: the saver is down"
    assert (session.view().status_text, session.supersteps, session.interrupts) == before


def test_answers_by_short_id_resume_as_langgraph_resumes_with_the_whole_ids():
    _, expected = langgraph_answers(lambda ids: {ids[0]: "yes", ids[1]: "no"})
    session = live_session()
    first, second = (asked.id[:8] for asked in session.interrupts)
    session.resume({first: "yes", second: "no"})
    session.run()
    assert session.status == "done"
    assert session.values["decisions"] == expected == ["laptop: yes", "chair: no"]


def test_one_answer_by_id_leaves_the_other_question_waiting_as_in_langgraph():
    from langgraph.types import Command

    app, _ = langgraph_answers(lambda ids: {ids[0]: "yes"})
    state = app.get_state({"configurable": {"thread_id": "lg"}})
    asked = [i.value for task in state.tasks for i in task.interrupts]
    session = live_session()
    session.resume({session.interrupts[0].id: "yes"})
    session.run()
    assert [i.value for i in session.interrupts] == asked == ["Approve chair?"]
    session.resume("no")  # one question left: a plain answer
    session.run()
    done = app.invoke(Command(resume="no"), {"configurable": {"thread_id": "lg"}})
    assert session.values["decisions"] == done["decisions"] == ["laptop: yes", "chair: no"]


def test_a_langgraph_thread_waiting_on_two_questions_resumes_with_langgraphs_ids():
    # the copied thread asked again under graphkit's ids: answers keyed by LangGraph's
    # (the ones the session shows, and LangGraph's __interrupt__ gives) were dropped
    # without a word, and the run stopped at the same two questions
    from graphkit import open_langgraph_thread

    app = approvals(langgraph_kit()).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "saved"}}
    ids = [asked.id for asked in app.invoke(INPUT, config)["__interrupt__"]]
    session = DebugSession.from_run(app, open_langgraph_thread(app, config), config)
    assert [asked.id for asked in session.interrupts] == ids
    assert f"(id {ids[0][:8]})" in session.view().status_text
    session.resume({ids[0][:8]: "yes", ids[1]: "no"})
    session.run()
    assert session.status == "done"
    _, expected = langgraph_answers(lambda ids: {ids[0]: "yes", ids[1]: "no"})
    assert session.values["decisions"] == expected


def test_the_answer_box_takes_a_dict_of_answers_by_id():
    import graphkit
    from graphkit.widgets import Debugger

    debugger = Debugger(approvals(graphkit).compile(), INPUT)
    debugger.click("run")
    first, second = (asked.id[:8] for asked in debugger.session.interrupts)
    debugger.answer.value = "yes"
    debugger.resume.click()
    assert debugger.session.status == "interrupted"
    assert debugger.message.value.startswith("2 questions are waiting")
    debugger.answer.value = f'{{"{first}": "yes", "{second}": "no"}}'
    debugger.resume.click()
    debugger.click("run")
    assert debugger.session.values["decisions"] == ["laptop: yes", "chair: no"]


def functional_questions(lib: Any) -> Any:
    """An entrypoint whose two called tasks each ask (started together, then awaited)."""

    @lib.task
    def ask(question: str) -> Any:
        return lib.interrupt(question)

    @lib.entrypoint(checkpointer=lib.saver())
    def review(_: Any) -> list:
        first, second = ask("First?"), ask("Second?")
        return [first.result(), second.result()]

    return review


def functional_kit(name: str) -> Any:
    """``task``, ``entrypoint``, ``interrupt`` and ``saver`` of either library."""
    if name == "langgraph":
        from langgraph.func import entrypoint, task
        from langgraph.types import interrupt

        saver: Any = InMemorySaver
    else:
        from graphkit import InMemorySaver as saver
        from graphkit.func import entrypoint, task
        from graphkit.types import interrupt
    return type(
        "kit", (), {"task": task, "entrypoint": entrypoint, "interrupt": interrupt, "saver": saver}
    )


def test_two_called_tasks_questions_are_both_shown_and_answered_by_id():
    # LangGraph's __interrupt__ holds the first question only, yet counts both: one
    # answer is refused. The debugger showed the first twice (its caller's and its
    # own, by whole ids) and, its interrupts holding one, read a dict typed as text
    from langgraph.types import Command

    from graphkit.widgets import Debugger

    app = functional_questions(functional_kit("langgraph"))
    config = {"configurable": {"thread_id": "lg"}}
    assert [i.value for i in app.invoke(1, config)["__interrupt__"]] == ["First?"]
    with pytest.raises(RuntimeError, match="multiple pending interrupts"):
        app.invoke(Command(resume="yes"), config)
    debugger = Debugger(functional_questions(functional_kit("graphkit")), 1)
    debugger.click("run")
    results = debugger.session.supersteps[-1].execution.results
    first, second = dict.fromkeys(asked.id[:8] for r in results for asked in r.interrupts)
    assert debugger.session.view().status_text == (
        f"interrupted at step 0: review asks 'First?' (id {first}); "
        f"ask asks 'Second?' (id {second})"
    )
    debugger.answer.value = f"{{'{first}': 'A', '{second}': 'B'}}"
    debugger.resume.click()
    debugger.click("run")
    assert debugger.session.status == "done"
    assert debugger.session.values["__end__"] == ["A", "B"]


def test_the_answer_box_says_what_was_wrong_with_a_dict_it_cannot_use():
    import graphkit
    from graphkit.widgets import Debugger

    debugger = Debugger(approvals(graphkit).compile(), INPUT)
    debugger.click("run")
    first, second = (asked.id[:8] for asked in debugger.session.interrupts)
    example = f"{{'{first}': ..., '{second}': ...}}"
    said = {}
    for typed in (
        f"{{{first}: yes, {second}: no}}",  # ids and answers unquoted: no dict
        "{[1]: 'yes'}",  # a list as a key (it raised TypeError at the widget)
        f"{{'{first[:4]}': 'yes', '{first}': 'no'}}",
    ):
        debugger.answer.value = typed
        debugger.resume.click()
        said[typed] = debugger.message.value
        assert debugger.session.status == "interrupted"
    unquoted, listed, twice = said.values()
    assert unquoted == (
        f"{{{first}: yes, {second}: no}} does not read as a dict (as Python or JSON): "
        f"quote each id and each text answer, as in {example}."
    )
    assert listed.startswith("{[1]: 'yes'} does not read as a dict")
    assert twice == f"'{first[:4]}' and '{first}' answer the same question: type {example}."


def test_an_id_cut_short_that_begins_two_ids_is_named_as_such():
    from graphkit.types import Interrupt
    from graphkit.widgets.answers import answers_by_id

    waiting = [Interrupt("a?", id="65233a7f" + "0" * 24), Interrupt("b?", id="6523b111" + "0" * 24)]
    assert answers_by_id(waiting, {"6523": "yes", "6523b111": "no"}) == (
        "'6523' begins the ids of 2 questions (those asking 'a?' and 'b?'), so it does not "
        "say which it answers: key each answer by its own id, as in "
        "{'65233a7f': ..., '6523b111': ...}."
    )
    # an id of digits only, typed without quotes, is a number: still that id
    digits = [Interrupt("a?", id="12345678" + "0" * 24), waiting[1]]
    assert answers_by_id(digits, {12345678: "yes"}) == {digits[0].id: "yes"}


# (each id is said once: in the map to pass, or the list of questions, not here too)
UNCLEAR = (
    "'{key}' begins the ids of 2 questions (those asking 'a?' and 'b?'), so it does not say "
    "which it answers: key each answer by its own id"
)
NONE_OF = "'{key}' begins none of the ids of the 2 questions waiting: key each answer by its own id"


def test_the_answer_box_and_the_runtime_say_one_thing_of_a_key_that_names_no_question():
    """The answer box said "type more of it" and "is not the id of one of the questions
    waiting"; the runtime, given the same map, said only that the keys were "not the ids
    of the pending interrupts". Both now give one sentence naming the key and the
    questions it begins the ids of (by what they ask: the ids follow, in the map to pass
    or the list of questions, each id once)."""
    import graphkit
    from graphkit.diagnostics.threads import several_interrupts
    from graphkit.types import Command, Interrupt
    from graphkit.widgets.answers import answers_by_id

    whole = ["65233a7f" + "0" * 24, "6523b111" + "0" * 24]
    waiting = [Interrupt("a?", id=whole[0]), Interrupt("b?", id=whole[1])]
    typed = {"6523": "yes", "6523b111": "no"}
    box = answers_by_id(waiting, typed)
    runtime = several_interrupts(typed, {i.id: (f"task-{i.value}", i) for i in waiting})
    assert box.startswith(UNCLEAR.format(key="6523") + ", as in ")
    assert UNCLEAR.format(key="6523") + "." in runtime.splitlines()
    assert f"Resume with Command(resume={{'{whole[0]}': ..., '{whole[1]}': 'no'}})" in runtime
    for id_ in whole:  # once, in its question's line, and once in the map to pass
        assert runtime.count(id_) == 2 and f"  '{id_}' asks" in runtime
    # a key cut short beside the whole id of the same question: one answer each
    same = several_interrupts(
        {whole[0][:8]: "yes", whole[0]: "no"}, {i.id: ("t", i) for i in waiting}
    )
    assert same.splitlines()[1:3] == [
        "those are not all whole ids of the pending interrupts, so the dict reads as one "
        "answer for 2 questions.",
        f"'65233a7f' and '{whole[0]}' answer the same question ('a?'): give it one answer.",
    ]
    assert f"Command(resume={{'{whole[0]}': ..., '{whole[1]}': ...}})" in same

    # a live run: a key that begins none of the ids, beside one cut short
    app = approvals(graphkit).compile(checkpointer=graphkit.InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    ids = [asked.id for asked in app.invoke(INPUT, config)["__interrupt__"]]
    typed = {ids[0][:8]: "yes", "zzzz": "no"}
    with pytest.raises(RuntimeError) as refused:
        app.invoke(Command(resume=typed), config)
    session = live_session()
    short = [asked.id[:8] for asked in session.interrupts]
    session.resume({short[0]: "yes", "zzzz": "no"})
    assert session.message.startswith(NONE_OF.format(key="zzzz") + ", as in ")
    said = str(refused.value).splitlines()  # (its ids in the order the tasks saved them)
    assert NONE_OF.format(key="zzzz") + "." in said
