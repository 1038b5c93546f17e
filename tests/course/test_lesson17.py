"""Lesson 17's checks on their solutions, on typical wrong answers and on the notebook's
stubs; and the lesson's cells, whose app is LangGraph's, checked against the threads
LangGraph saved: what the lesson prints from graphkit's records must be what LangGraph
holds."""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from pathlib import Path

import pytest

pytest.importorskip("langgraph.prebuilt")

from graphkit.course import assert_fails, assert_passes, lesson17
from graphkit.course.solutions import lesson17 as solutions

LESSON = Path(__file__).parents[2] / "notebooks" / "17-debug-your-langgraph-app.ipynb"


def lesson_cells() -> list[tuple[str, str]]:
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    return [(cell["id"], "".join(cell["source"])) for cell in cells if cell["cell_type"] == "code"]


def run_lesson(until: str = "lesson17.check_lost_at") -> tuple[dict, dict]:
    """The code cells up to ``until``: what each prints, and the names they define (the
    last expression of a cell is evaluated as the notebook shows it, and kept as ``_``)."""
    names: dict = {}
    printed = {}
    for cell, source in lesson_cells():
        if source.startswith(until):
            break
        out = io.StringIO()
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(source, cell, "exec", dont_inherit=True), names)
        printed[cell] = out.getvalue()
    return printed, names


@pytest.fixture(scope="module")
def lesson():
    return run_lesson()


def test_the_lessons_app_is_langgraphs(lesson):
    _, names = lesson
    for app in ("app", "reviewed", "after_tools"):
        assert type(names[app]).__module__.startswith("langgraph"), app


def test_what_the_lesson_prints(lesson):
    printed, _ = lesson
    told = "".join(printed.values())
    assert "The Moon's pull makes the tides. (sources: wiki/moon)\n['wiki/moon']" in told
    assert "UPDATE   sources          ['wiki/tides'] -> ['wiki/moon']  (from tools)" in told
    assert "sources   ['wiki/tides'] -> ['wiki/moon']" in told  # the diff of steps 3 and 4
    assert "LangGraph plans ('write_answer',).\nLook at the Moon too, please. (sources: )" in told
    assert "EXECUTE  __update__              wrote messages, branch:to:write_answer" in told
    assert "tools did not run at step 3: nothing wrote branch:to:tools in step 2." in told
    said = " ".join(told.split())
    assert "by update_state (__update__), made as a node: it is the route agent's router" in said
    assert "('agent',)" in told
    assert "done in 8 steps; done in 8 steps\nthe records agree: True" in told


def test_q1_the_source_left_in_step_4_on_langgraph(lesson):
    """Q1's answer, from LangGraph's own history: sources after each step."""
    _, names = lesson
    app, config = names["app"], names["config"]
    history = {s.metadata["step"]: s for s in app.get_state_history(config)}
    assert history[2].values["sources"] == ["wiki/tides"]
    assert history[3].values["sources"] == ["wiki/tides"]
    assert history[4].values["sources"] == ["wiki/moon"]
    assert history[4].metadata["source"] == "loop" and history[3].next == ("tools",)
    # and the imported run's state after every step is LangGraph's checkpoint's
    run = names["run"]
    for superstep in run.steps:
        assert superstep.checkpoint.channel_values.get("sources") == history[
            superstep.step
        ].values.get("sources"), superstep.step
        assert len(superstep.checkpoint.channel_values.get("messages", [])) == len(
            history[superstep.step].values.get("messages", [])
        )
    assert solutions.lost_at(run, "sources") == (4, "tools")


def test_q2_the_edit_was_made_as_agent_and_tools_never_ran_on_langgraph(lesson):
    _, names = lesson
    reviewed, review = names["reviewed"], names["review"]
    history = sorted(reviewed.get_state_history(review), key=lambda s: s.metadata["step"])
    assert [s.metadata["source"] for s in history] == ["input", "loop", "loop", "update", "loop"]
    assert history[2].next == ("tools",) and history[3].next == ("write_answer",)
    assert "sources" not in history[-1].values  # tools never ran
    # LangGraph's own update as agent routes the same; as tools, it goes to agent
    from langgraph.checkpoint.memory import InMemorySaver

    for as_node, planned in (("agent", ("write_answer",)), ("tools", ("agent",))):
        app = names["build"](names["model"]).compile(
            checkpointer=InMemorySaver(), interrupt_before=["tools"]
        )
        config = {"configurable": {"thread_id": as_node}}
        app.invoke({"messages": [("user", "Why are there tides?")]}, config)
        app.update_state(config, {"messages": [("user", "the Moon too")]}, as_node=as_node)
        assert app.get_state(config).next == planned
    edited = names["edited"]
    assert [superstep.plan.nodes for superstep in edited.steps][3:] == [
        ["__update__"],
        ["write_answer"],
    ]


def test_from_langgraph_records_agree_with_the_thread(lesson):
    _, names = lesson
    own, run = names["own"], names["run"]
    assert [s.plan.nodes for s in own.steps] == [s.plan.nodes for s in run.steps]

    def readable(values):  # message ids are drawn at random in each run
        messages = [
            (m.type, m.content, m.tool_calls if m.type == "ai" else None)
            for m in values["messages"]
        ]
        return {**values, "messages": messages}

    assert readable(own.values) == readable(run.values)


def test_the_notebooks_stubs_fail_their_checks():
    _, names = run_lesson(until="lesson17.check_last_writer")
    verdict = assert_fails(
        lesson17.check_lost_at(names["lost_at"]),
        "returned None, but a step's Update",
        hint="each step's change of sources, its before and its after",
    )
    # a hint points at what the stub missed (a loss), it does not spell out lost_at
    assert "first" not in verdict.hint and "who wrote" not in verdict.hint
    assert_fails(lesson17.check_fixed_app(names["build_fixed"]), "turned ['wiki/owls'] into")
    assert_fails(lesson17.check_last_writer(names["last_writer"]), "returned None, but a step")


# -- 17.1


def test_lost_at_passes_on_the_solution():
    assert (
        "None where nothing was lost"
        in assert_passes(lesson17.check_lost_at(solutions.lost_at)).message
    )


def _any_change_without_growth(run, key):
    """Wrong: the first change of the key that is not the first write."""
    for superstep in run.steps:
        change = superstep.update.change(key) if superstep.update else None
        if change is not None and isinstance(change.before, list):
            return superstep.step, change.writers[0]
    return None


def _last_loss(run, key):
    """Wrong: the last step that took an item out, not the first."""
    found = None
    for superstep in run.steps:
        change = superstep.update.change(key) if superstep.update else None
        before = change.before if change is not None else None
        if isinstance(before, list) and any(item not in change.after for item in before):
            found = (superstep.step, change.writers[0])
    return found


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (
            lambda run, key: (4, "tools"),
            "returned (4, 'tools'), but no step",
            "A change is not a loss",
        ),
        (_any_change_without_growth, "returned (0, '__start__'), but no step", "not a loss"),
        (_last_loss, "an earlier step already took an item out", "the first step that"),
        (lambda run, key: (4, "agent"), "sources was written by tools, not 'agent'", "writers"),
        (lambda run, key: 4, "the answer is a pair", "Return a pair"),
        (
            lambda run, key: (2, "tools"),
            "step 2's Update took nothing out of sources",
            "compare before with after in step 2's change",
        ),
    ],
)
def test_lost_at_wrong_answers(answer, said, hint):
    assert_fails(lesson17.check_lost_at(answer), said, hint=hint)


def _first_loss_as(run, key, shape):
    for superstep in run.steps:
        change = superstep.update.change(key) if superstep.update else None
        before = change.before if change is not None else None
        if isinstance(before, list) and any(item not in change.after for item in before):
            return shape(superstep, change)
    return None


@pytest.mark.parametrize(
    ("shape", "said", "hint"),
    [
        (lambda step, change: (step, change.writers[0]), "is a Superstep", "superstep.step"),
        (
            lambda step, change: (step.step, change.writers),
            "is a tuple, not a node's name",
            "a str",
        ),
    ],
)
def test_lost_at_and_last_writer_with_a_pair_of_the_wrong_kinds(shape, said, hint):
    """The step that lost an item, given as a Superstep (or its writers tuple): the verdict
    says what the pair holds, not that this step took nothing out (it did)."""
    verdict = lesson17.check_lost_at(lambda run, key: _first_loss_as(run, key, shape))
    assert "took nothing out" not in assert_fails(verdict, said, hint=hint).message
    verdict = lesson17.check_last_writer(lambda run, key: _first_loss_as(run, key, shape))
    assert "did not change" not in assert_fails(verdict, said, hint=hint).message


def test_lost_at_not_a_function():
    assert_fails(lesson17.check_lost_at((4, "tools")), "not a function")


# -- 17.2


def test_fixed_app_passes_on_the_solution():
    assert (
        "names them all" in assert_passes(lesson17.check_fixed_app(solutions.build_fixed)).message
    )


def _with_state(sources_type):
    """The solution's builder, with ``sources`` annotated as ``sources_type``."""
    from typing import Annotated, TypedDict

    from langgraph.graph.message import add_messages

    State = TypedDict("State", {"messages": Annotated[list, add_messages], "sources": sources_type})  # noqa: UP013

    def build(model):
        builder = solutions.build_fixed(model)
        from langgraph.graph import StateGraph

        fixed = StateGraph(State)
        for name, spec in builder.nodes.items():
            fixed.add_node(name, spec.runnable)
        for start, end in builder.edges:
            fixed.add_edge(start, end)
        for start, branches in builder.branches.items():
            for branch in branches.values():
                fixed.add_conditional_edges(start, branch.path, branch.ends)
        return fixed

    return build


def test_fixed_app_wrong_answers():
    from typing import Annotated

    from langgraph.graph.message import add_messages

    assert_fails(
        lesson17.check_fixed_app(_with_state(list)),
        "in step 4, tools wrote sources and its Update turned ['wiki/owls'] into ['wiki/bats']",
        hint="without a reducer",
    )
    # add_messages as the reducer: the sources become HumanMessages
    verdict = lesson17.check_fixed_app(_with_state(Annotated[list, add_messages]))
    assert_fails(
        verdict,
        "your app raised TypeError on LangGraph in step 8 (write_answer)",
        hint="add_messages made each source a message",
    )
    # a reducer is there, but it drops: the hint must not say the key has none
    verdict = lesson17.check_fixed_app(_with_state(Annotated[list, lambda old, new: new]))
    assert_fails(verdict, "turned ['wiki/owls'] into ['wiki/bats']", hint="Your reducer")
    assert "without a reducer" not in verdict.hint
    keeps_two = _with_state(Annotated[list, lambda old, new: (old + new)[-2:]])
    verdict = lesson17.check_fixed_app(keeps_two)
    assert_fails(
        verdict,
        "turned ['wiki/owls', 'wiki/bats'] into ['wiki/bats', 'wiki/moths']",
        hint="Your reducer",
    )
    assert "without a reducer" not in verdict.hint


def test_fixed_app_whose_tools_write_one_str_to_the_added_list_is_judged_not_the_check():
    """operator.add on sources, and tools writing the source alone (a str): the run
    raised, then reading the thread's state raised it again inside the check, which
    called the failure its own."""
    import operator
    from typing import Annotated, TypedDict

    from langchain_core.messages import AIMessage, ToolMessage
    from langgraph.graph import END, START, StateGraph
    from langgraph.graph.message import add_messages
    from langgraph.prebuilt import tools_condition

    State = TypedDict(  # noqa: UP013  # (its annotations are read at once)
        "State",
        {"messages": Annotated[list, add_messages], "sources": Annotated[list, operator.add]},
    )

    def build(model):
        def agent(state):
            return {"messages": [model.invoke(state["messages"])]}

        def tools(state):
            call = state["messages"][-1].tool_calls[0]
            found = f"wiki/{call['args']['topic']}"
            return {"messages": [ToolMessage(found, tool_call_id=call["id"])], "sources": found}

        def write_answer(state):
            return {"messages": [AIMessage(", ".join(state.get("sources", [])))]}

        builder = StateGraph(State)
        builder.add_node("agent", agent)
        builder.add_node("tools", tools)
        builder.add_node("write_answer", write_answer)
        builder.add_edge(START, "agent")
        builder.add_conditional_edges(
            "agent", tools_condition, {"tools": "tools", END: "write_answer"}
        )
        builder.add_edge("tools", "agent")
        builder.add_edge("write_answer", END)
        return builder

    assert_fails(lesson17.check_fixed_app(build), "your app raised TypeError", hint="[found]")


def test_lost_at_that_looks_at_the_last_item_only_fails():
    """An edit that keeps the last note and drops an earlier one: a lost_at that asks
    whether the newest item is still there passed every thread."""

    def newest_gone(run, key):
        for superstep in run.steps:
            change = superstep.update.change(key) if superstep.update else None
            before = change.before if change is not None else None
            if isinstance(before, list) and before and before[-1] not in change.after:
                return superstep.step, change.writers[0]
        return None

    assert_fails(
        lesson17.check_lost_at(newest_gone),
        "lost_at(run, 'notes') returned None, but a step's Update took an item out of notes",
    )


def test_fixed_app_built_with_graphkit():
    from graphkit import StateGraph

    def build(model):
        builder = StateGraph(dict)
        builder.add_node("agent", lambda state: {})
        return builder

    assert_fails(
        lesson17.check_fixed_app(build), "not LangGraph's StateGraph", hint="langgraph.graph"
    )


# -- 17.3


def test_last_writer_passes_on_the_solution():
    assert_passes(lesson17.check_last_writer(solutions.last_writer))


def _last_step(run, key):
    """Wrong: the run's last step and its node, whatever it wrote."""
    last = run.steps[-1]
    return last.step, last.plan.nodes[0]


def _first_writer(run, key):
    for superstep in run.steps:
        change = superstep.update.change(key) if superstep.update else None
        if change is not None:
            return superstep.step, change.writers[0]
    return None


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (_last_step, "step 8's Update did not change sources", "latest change"),
        (_first_writer, "a later step changed sources again", "latest change"),
        (
            lambda run, key: (6, "agent"),
            "sources was written by tools, not 'agent'",
            "latest change",
        ),
        (lambda run, key: "tools", "the answer is a pair", "Return a pair, (step, node)"),
    ],
)
def test_last_writer_wrong_answers(answer, said, hint):
    assert_fails(lesson17.check_last_writer(answer), said, hint=hint)


def test_last_writer_that_forgets_update_state():
    def nodes_only(run, key):
        found = None
        for superstep in run.steps:
            change = superstep.update.change(key) if superstep.update else None
            if change is not None and not change.writers[0].startswith("__"):
                found = (superstep.step, change.writers[0])
        return found

    verdict = lesson17.check_last_writer(nodes_only)
    assert_fails(verdict, "thread whose notes were edited with update_state")


# -- answers the first checks let through, and apps they judged as their own mistakes


def _shorter(run, key):
    """Wrong: a loss taken for a list that did not grow."""
    for superstep in run.steps:
        change = superstep.update.change(key) if superstep.update else None
        before = change.before if change is not None else None
        if isinstance(before, list) and len(change.after) <= len(before):
            return superstep.step, change.writers[0]
    return None


def _first_item_changed(run, key):
    """Wrong: a loss taken for a changed first item."""
    for superstep in run.steps:
        change = superstep.update.change(key) if superstep.update else None
        before = change.before if change is not None else None
        if isinstance(before, list) and before and change.after[:1] != before[:1]:
            return superstep.step, change.writers[0]
    return None


@pytest.mark.parametrize("answer", [_shorter, _first_item_changed])
def test_lost_at_that_reads_the_length_or_the_first_item(answer):
    assert_fails(
        lesson17.check_lost_at(answer),
        "a thread of the same app whose notes were then edited with update_state, "
        "lost_at(run, 'notes') returned None, but a step's Update took an item out of notes",
        hint="lacks something its value before held",
    )


def test_the_edit_that_loses_a_note_and_grows_the_list_on_langgraph():
    """The thread 17.1's check added, on LangGraph: the edit (step 6) drops 'wiki/bats'
    from two notes and leaves three."""
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver

    builder = lesson17._builder(lesson17.research_model(("owls", "bats")), "in_node", "notes")
    app = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["write_answer"])
    config = {"configurable": {"thread_id": "1"}}
    app.invoke({"messages": [HumanMessage("owls, bats?")]}, config)
    app.update_state(config, {"notes": ["wiki/owls", "wiki/cats", "wiki/dogs"]})
    app.invoke(None, config)
    history = {s.metadata["step"]: s for s in app.get_state_history(config)}
    assert history[5].values["notes"] == ["wiki/owls", "wiki/bats"]
    assert history[6].metadata["source"] == "update"
    assert history[6].values["notes"] == ["wiki/owls", "wiki/cats", "wiki/dogs"]
    run = lesson17.research_thread(
        ("owls", "bats"),
        "in_node",
        "notes",
        edit={"notes": ["wiki/owls", "wiki/cats", "wiki/dogs"]},
    )
    assert solutions.lost_at(run, "notes") == (6, "__update__")


def test_fixed_app_returned_compiled():
    verdict = lesson17.check_fixed_app(lambda model: solutions.build_fixed(model).compile())
    assert_fails(verdict, "returned CompiledStateGraph, an app already compiled", hint="without")


def test_fixed_app_that_does_not_compile():
    from langgraph.graph import StateGraph

    def build(model):
        builder = StateGraph(solutions.State)
        builder.add_node("agent", lambda state: {})
        return builder

    verdict = lesson17.check_fixed_app(build)
    assert_fails(verdict, "LangGraph could not compile the builder", hint="add_edge(START")


def test_fixed_app_that_loops_fails_fast_with_langgraphs_error():
    """LangGraph 1.2's recursion limit is 10,000 steps: the check ran into its time limit
    and blamed a Python loop; it now runs the app with a limit of its own."""
    from langgraph.graph import START, StateGraph

    def build(model):
        looping = StateGraph(solutions.State)
        looping.add_node("agent", lambda state: {"sources": ["again"]})
        looping.add_edge(START, "agent")
        looping.add_edge("agent", "agent")
        return looping

    verdict = lesson17.check_fixed_app(build)
    assert_fails(verdict, "your app raised GraphRecursionError on LangGraph in step")
    assert "seconds" not in verdict.message


def test_fixed_app_whose_state_lost_its_messages():
    from typing import TypedDict

    from langgraph.graph import START, StateGraph

    class Other(TypedDict):
        sources: list

    def build(model):
        builder = StateGraph(Other)
        builder.add_node("agent", lambda state: {"sources": []})
        builder.add_edge(START, "agent")
        return builder

    verdict = lesson17.check_fixed_app(build)
    assert_fails(verdict, "your app ended with no messages in its state", hint="Keep the state")


def _set_difference(run, key):
    """Right for strings, as on sources: a set of what the value before held, less the
    value after; raises on a key whose items are messages."""
    for superstep in run.steps:
        change = superstep.update.change(key) if superstep.update else None
        before = change.before if change is not None else None
        if isinstance(before, list) and set(before) - set(change.after):
            return superstep.step, change.writers[0]
    return None


def test_lost_at_by_set_difference_is_told_the_items_are_not_hashable():
    """17.1 says any key holding a list; the check asks for messages too. A set of
    HumanMessages raises ``TypeError: unhashable type``, which was reported as any error
    ("run your answer on its own in a cell"): the verdict now says the items are not
    hashable and to compare them another way, without saying how."""
    verdict = assert_fails(
        lesson17.check_lost_at(_set_difference),
        "lost_at(run, 'messages') raised TypeError: unhashable type: 'HumanMessage'. "
        "messages there holds items such as a HumanMessage, which are not hashable",
        hint="Compare the items another way, without a set or dict",
    )
    assert "A set works for sources" in verdict.message
    assert "in change.after" not in verdict.message + verdict.hint  # (no code given)


def test_lost_at_raising_another_type_error_is_reported_as_its_own_error():
    def broken(run, key):
        return len(None)

    verdict = assert_fails(lesson17.check_lost_at(broken), "Your code raised TypeError")
    assert "hashable" not in verdict.message


def test_each_reveal_cell_shows_the_same_when_run_again_at_once():
    """A learner who fixes a guess runs its reveal cell again, and nothing else: Q2's
    reveal edited a thread that had already run to its end, so LangGraph planned ()
    and the answer was the note without its sources line, and the thread printed below
    gained a second edit."""
    from tests.course.cells import run_cells

    run_cells(
        LESSON,
        until="from graphkit import from_langgraph",
        again=("l17-c07", "l17-c18", "l17-c20"),
    )


def _iterating_every_before(run, key):
    """Reads each change's before as a list: a key's first write has nothing before it."""
    for superstep in run.steps:
        change = superstep.update.change(key) if superstep.update else None
        if change is not None and any(item not in change.after for item in change.before):
            return superstep.step, change.writers[0]
    return None


def test_lost_at_iterating_the_empty_before_of_a_first_write_is_told_so():
    """The verdict was "Your code raised TypeError: '_Empty' object is not iterable" and
    to run the answer alone: a private class's name, and no word of a first write."""
    verdict = assert_fails(
        lesson17.check_lost_at(_iterating_every_before),
        "Step 2's change of sources is its first write: its before is empty",
        hint="<empty>",
    )
    assert "_Empty" not in verdict.hint


def _lost_by_place(run, key):
    for place, superstep in enumerate(run.steps):
        change = superstep.update.change(key) if superstep.update else None
        before = change.before if change is not None else None
        if isinstance(before, list) and any(item not in change.after for item in before):
            return place, change.writers[0]
    return None


def _last_by_place(run, key):
    found = None
    for place, superstep in enumerate(run.steps):
        change = superstep.update.change(key) if superstep.update else None
        if change is not None:
            found = (place, change.writers[0])
    return found


@pytest.mark.parametrize(
    ("check", "answer"),
    [(lesson17.check_lost_at, _lost_by_place), (lesson17.check_last_writer, _last_by_place)],
)
def test_a_steps_place_in_run_steps_given_for_its_number_is_told_steps_start_at_minus_1(
    check, answer
):
    """enumerate(run.steps) numbers the input step 0: the hint said to compare before
    and after in a step the answer never looked at."""
    assert_fails(check(answer), "returned (", hint="run.steps starts with step -1")


@pytest.mark.parametrize(
    ("check", "answer"),
    [
        (lesson17.check_lost_at, lambda run, key: ()),
        (lesson17.check_last_writer, lambda run, key: ()),
    ],
)
def test_an_empty_tuple_for_nothing_is_told_to_return_none(check, answer):
    assert_fails(check(answer), "returned ()", hint="None")


def test_fixed_app_that_forgets_to_return_the_builder_is_told_so():
    def build(model):
        solutions.build_fixed(model)

    verdict = assert_fails(
        lesson17.check_fixed_app(build), "build(model) returned None", hint="return"
    )
    assert "NoneType" not in verdict.message


def _research_app(messages_kept, sources_kept, old_too=False):
    """build(model) for section 1's app, its keys kept as given; with ``old_too``,
    tools writes the sources so far and the new one."""
    from typing import TypedDict

    from langchain_core.messages import AIMessage, ToolMessage
    from langgraph.graph import END, START, StateGraph
    from langgraph.prebuilt import tools_condition

    # (the functional form: the kinds are this function's arguments)
    State = TypedDict("State", {"messages": messages_kept, "sources": sources_kept})  # noqa: UP013

    def build(model):
        def agent(state):
            return {"messages": [model.invoke(state["messages"])]}

        def tools(state):
            call = state["messages"][-1].tool_calls[0]
            found = solutions.search(**call["args"])
            new = [*state.get("sources", []), found] if old_too else [found]
            return {"messages": [ToolMessage(found, tool_call_id=call["id"])], "sources": new}

        def write_answer(state):
            said = state["messages"][-1].content
            return {"messages": [AIMessage(f"{said} ({', '.join(state.get('sources', []))})")]}

        builder = StateGraph(State)
        builder.add_node("agent", agent)
        builder.add_node("tools", tools)
        builder.add_node("write_answer", write_answer)
        builder.add_edge(START, "agent")
        paths = {"tools": "tools", END: "write_answer"}
        builder.add_conditional_edges("agent", tools_condition, paths)
        builder.add_edge("tools", "agent")
        builder.add_edge("write_answer", END)
        return builder

    return build


def test_fixed_app_with_a_reducer_whose_tools_write_the_old_list_too_is_told_so():
    """Both fixes at once: the reducer adds the list so far to itself at each search.
    The hint said only that each result must be there once."""
    import operator
    from typing import Annotated

    from langgraph.graph.message import add_messages

    build = _research_app(Annotated[list, add_messages], Annotated[list, operator.add], True)
    assert_fails(
        lesson17.check_fixed_app(build),
        "the thread ended with sources = ['wiki/owls', 'wiki/owls', 'wiki/bats'",
        hint="With a reducer, a node writes only what is new",
    )


def test_fixed_app_whose_messages_lost_add_messages_is_told_so():
    """Without add_messages each write replaces the history: the model never sees its
    search's answer and searches again until the check's recursion limit; the hint
    said only to read the thread."""
    import operator
    from typing import Annotated

    build = _research_app(list, Annotated[list, operator.add])
    assert_fails(
        lesson17.check_fixed_app(build),
        "your app raised GraphRecursionError on LangGraph",
        hint="messages has no reducer",
    )
