"""A session on a thread LangGraph saved (``DebugSession.from_run``) reads as a live one.

Each graph is declared once and built twice: on LangGraph (run, saved, imported) and on
graphkit (run live in a session). Both sessions must then say the same thing: the same
step, phase and status lines, and the same answer to Step, Back and Resume.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from graphkit import GraphkitWarning
from graphkit.widgets import DebugSession

langgraph = pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402


class Counter(TypedDict):
    n: int
    log: Annotated[list, operator.add]


class Topics(TypedDict, total=False):
    topics: list
    best: str  # a plain field: two judges writing it in one step fail that step's Update


class Asked(TypedDict, total=False):
    n: int
    answer: str
    notes: str


def chain(kit: Any) -> Any:
    """START → a → b → END: a thread that finishes."""
    builder = kit.StateGraph(Counter)
    builder.add_node("a", lambda state: {"n": state["n"] + 1, "log": ["a"]})
    builder.add_node("b", lambda state: {"n": state["n"] * 2, "log": ["b"]})
    return builder.add_edge(kit.START, "a").add_edge("a", "b").add_edge("b", kit.END)


def two_judges(kit: Any) -> Any:
    """plan sends two judges that both write ``best``: step 2's Update fails."""
    builder = kit.StateGraph(Topics)
    builder.add_node("plan", lambda state: {"topics": ["cats", "dogs"]})
    builder.add_node("judge", lambda job: {"best": job["topic"]})
    builder.add_edge(kit.START, "plan")
    sends = lambda state: [kit.Send("judge", {"topic": t}) for t in state["topics"]]  # noqa: E731
    builder.add_conditional_edges("plan", sends, ["judge"])
    return builder.add_edge("judge", kit.END)


def broken(state: Counter) -> dict:
    raise ValueError("boom")


def failing(kit: Any) -> Any:
    """START → a → broken: a node raises in step 2."""
    builder = kit.StateGraph(Counter)
    builder.add_node("a", lambda state: {"n": 7})
    builder.add_node("broken", broken)
    return builder.add_edge(kit.START, "a").add_edge("a", "broken")


def asking(kit: Any) -> Any:
    """START → a → ask (asks twice) → b → END."""

    def ask(state: Asked) -> dict:
        return {"answer": kit.interrupt("publish?"), "notes": kit.interrupt("notes?")}

    builder = kit.StateGraph(Asked)
    builder.add_node("a", lambda state: {"n": state["n"] + 1})
    builder.add_node("ask", ask)
    builder.add_node("b", lambda state: {"n": state["n"] * 10})
    builder.add_edge(kit.START, "a").add_edge("a", "ask").add_edge("ask", "b")
    return builder.add_edge("b", kit.END)


def kits() -> tuple[Any, Any]:
    """The two libraries' names a graph is declared with."""
    import langgraph.graph
    import langgraph.types

    import graphkit

    lang = type("kit", (), {**vars(langgraph.graph), **vars(langgraph.types)})
    return lang, graphkit


def sessions(declare: Any, input: Any, *answers: str) -> tuple[DebugSession, DebugSession]:
    """The session on the LangGraph thread and the live one, where both stopped (each
    answer resumes both once before that)."""
    from langgraph.types import Command

    from graphkit import open_langgraph_thread

    lang, kit = kits()
    app = declare(lang).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "saved"}}
    try:
        app.invoke(input, config)
        for answer in answers:
            app.invoke(Command(resume=answer), config)
    except Exception:  # a failed thread: the error is what the session must show
        pass
    imported = DebugSession.from_run(app, open_langgraph_thread(app, config), config)
    live = DebugSession(declare(kit).compile(), input)
    live.run()
    for answer in answers:
        live.resume(answer)
        live.run()
    return imported, live


def lines(session: DebugSession) -> tuple[str, str, str, str]:
    view = session.view()
    return view.status, view.step_label, view.phase_label, view.status_text


def numbers(session: DebugSession) -> list[int]:
    return [superstep.step for superstep in session.supersteps]


def test_a_finished_thread_reads_as_done_and_step_says_the_run_is_over():
    imported, live = sessions(chain, {"n": 1, "log": []})
    expected = (
        "done",
        "step 2",
        "after Update · run done",
        "done: no node was triggered by the last Update",
    )
    assert lines(imported) == lines(live) == expected
    assert imported.next_phase is None
    with pytest.warns(GraphkitWarning, match=r"session\.step\(\) ran nothing"):
        assert imported.step() is live.step() is None
    assert imported.message == live.message == "The run is over (done): use Back or Reset."
    assert numbers(imported) == numbers(live) == [-1, 0, 1, 2]


def test_a_thread_whose_update_failed_names_the_error_and_its_step():
    imported, live = sessions(two_judges, {"topics": []})
    status, step, phase, text = lines(imported)
    assert (status, step, phase) == ("error", "step 2", "after Execute · run error")
    assert text.startswith("error in step 2's Update: InvalidUpdateError: ")
    assert "Channel 'best' received 2 values" in text
    assert lines(imported) == lines(live)
    with pytest.warns(GraphkitWarning, match=r"session\.step\(\) ran nothing"):
        assert imported.step() is live.step() is None
    assert imported.message == live.message == "The run is over (error): use Back or Reset."
    imported.back(), live.back()  # discards the failed step: Step runs it again
    imported.step(), live.step()
    assert lines(imported) == lines(live) and numbers(imported) == numbers(live)


def test_a_thread_whose_node_failed_names_the_node_and_its_step():
    imported, live = sessions(failing, {"n": 1, "log": []})
    expected = ("error", "step 2", "after Execute · run error")
    assert lines(imported)[:3] == expected
    assert lines(imported)[3].startswith("error in node 'broken' at step 2: ValueError: boom")
    assert lines(imported) == lines(live)
    with pytest.warns(GraphkitWarning, match=r"the run is over \(error\)"):
        assert imported.plan() is None
    assert imported.message == "The run is over (error): use Back or Reset."


def test_a_paused_thread_reads_as_interrupted_with_the_question_and_resume_answers_it():
    imported, live = sessions(asking, {"n": 1})
    asks = "interrupted at step 2: ask asks 'publish?'"
    expected = ("interrupted", "step 2", "after Execute · run interrupted", asks)
    assert lines(imported) == lines(live) == expected
    for session in (imported, live):
        session.resume("yes")
        session.run()
    assert lines(imported) == lines(live)
    assert lines(imported)[3] == "interrupted at step 2: ask asks 'notes?'"
    for session in (imported, live):
        session.resume("ship it")
        session.run()
    assert imported.values == live.values == {"n": 20, "answer": "yes", "notes": "ship it"}
    assert numbers(imported) == numbers(live) == [-1, 0, 1, 2, 3]


def test_a_thread_paused_after_an_answer_resumes_the_question_still_open():
    """LangGraph answered the first interrupt(); Resume answers the second one."""
    imported, live = sessions(asking, {"n": 1}, "yes")
    assert lines(imported) == lines(live)
    assert lines(imported)[3] == "interrupted at step 2: ask asks 'notes?'"
    for session in (imported, live):
        session.resume("ship it")
        session.run()
    assert imported.values == live.values == {"n": 20, "answer": "yes", "notes": "ship it"}
    assert numbers(imported) == numbers(live)


def test_opening_a_thread_adds_no_checkpoint_to_it():
    """The session resumes the thread's latest checkpoint; naming it would replay it on
    a fork of its own, and Step would number the next step one too high."""
    imported, _ = sessions(asking, {"n": 1})
    history = list(imported.app.get_state_history(imported.thread_config))
    assert [h.metadata["source"] for h in history] == ["loop", "loop", "input"]


@pytest.mark.parametrize("compiled", [{"interrupt_before": ["b"]}, {"interrupt_after": ["a"]}])
def test_a_thread_stopped_at_a_compiled_breakpoint_reads_as_paused_and_resume_goes_on(compiled):
    from graphkit import open_langgraph_thread

    lang, kit = kits()
    app = chain(lang).compile(checkpointer=InMemorySaver(), **compiled)
    config = {"configurable": {"thread_id": "saved"}}
    app.invoke({"n": 1, "log": []}, config)
    imported = DebugSession.from_run(app, open_langgraph_thread(app, config), config)
    live = DebugSession(chain(kit).compile(**compiled), {"n": 1, "log": []})
    live.run()
    paused = "paused by a compiled breakpoint at step 2: Resume goes on"
    expected = ("interrupted", "step 1", "after Update · run interrupted", paused)
    assert lines(imported) == lines(live) == expected
    for session in (imported, live):
        session.resume()
        session.run()
    assert lines(imported) == lines(live) and imported.values == live.values
    assert numbers(imported) == numbers(live) == [-1, 0, 1, 2]


def test_wrong_arguments_to_from_run_are_refused_with_a_fix():
    """A missing or swapped run or config was an AttributeError ("'NoneType' object has
    no attribute 'steps'"), breakpoints="a" was read letter by letter, and another
    graph's run opened as if the graph had made it."""
    from graphkit import open_langgraph_thread

    lang, kit = kits()
    app = chain(lang).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "saved"}}
    app.invoke({"n": 1, "log": []}, config)
    run = open_langgraph_thread(app, config)
    for wrong in (None, {"steps": []}, app):
        with pytest.raises(TypeError, match="open_langgraph_thread"):
            DebugSession.from_run(app, wrong, config)
    with pytest.raises(TypeError, match="thread_id"):
        DebugSession.from_run(app, run, "saved")
    with pytest.raises(TypeError, match=r"\['a'\]"):
        DebugSession.from_run(app, run, config, breakpoints="a")
    other = kit.StateGraph(Counter).add_node("z", lambda state: {"n": 0})
    with pytest.raises(ValueError, match=r"nodes \['a', 'b'\] that the graph"):
        DebugSession.from_run(other.add_edge(kit.START, "z").compile(), run, config)


def test_a_graph_with_a_context_schema_steps_on_with_the_context_given():
    # Back then Step failed with "AttributeError: 'NoneType' object has no attribute
    # 'tone'" and no hint: from_run took no context=, and no record keeps a run's context.
    import dataclasses

    from langgraph.graph import START, StateGraph
    from langgraph.runtime import Runtime

    from graphkit import open_langgraph_thread
    from graphkit.widgets import Debugger

    @dataclasses.dataclass
    class Context:
        tone: str

    class Text(TypedDict):
        text: str

    def agent(state: Text, runtime: Runtime[Context]) -> dict:
        return {"text": state["text"] + runtime.context.tone}

    builder = StateGraph(Text, context_schema=Context).add_node("agent", agent)
    app = builder.add_edge(START, "agent").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"text": "hi"}, config, context=Context("!"))
    run = open_langgraph_thread(app, config)
    session = DebugSession.from_run(app, run, config)
    session.back()
    session.run()
    assert session.view().status_text == (
        "error in node 'agent' at step 1: AttributeError: 'NoneType' object has no "
        "attribute 'tone' (the graph has a context_schema, Context, and this debugger was "
        "given no context: pass context=Context(...) to Debugger or DebugSession, or their "
        "from_run)"
    )
    for opened in (
        DebugSession.from_run(app, run, config, context=Context("?")),
        Debugger.from_run(app, run, config, context=Context("?")).session,
    ):
        opened.back()
        opened.run()
        assert (opened.status, opened.values) == ("done", {"text": "hi?"})


def test_a_thread_id_beside_configurable_names_the_copy_as_configurable_does():
    """open_langgraph_thread takes {'thread_id': 'saved'}, as LangGraph's runs do; from_run
    given the same config named its copy 'imported-...' instead of 'saved'."""
    from graphkit import open_langgraph_thread

    lang, _ = kits()
    app = chain(lang).compile(checkpointer=InMemorySaver())
    config = {"thread_id": "saved"}
    app.invoke({"n": 1, "log": []}, config)
    imported = DebugSession.from_run(app, open_langgraph_thread(app, config), config)
    assert imported.thread_id == "saved" and imported.values == {"n": 4, "log": ["a", "b"]}
