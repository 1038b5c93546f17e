"""Tests of lesson 01's checks: each passes on its solution and fails, saying why, on
typical wrong answers and on the notebook's stub."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, TypedDict

import pytest

from graphkit import END, START, StateGraph
from graphkit.course import lesson01
from graphkit.course.solutions import lesson01 as solution
from graphkit.course.solutions.lesson01 import Weather, Words
from tests.course.cells import run_cells

# -- 1.1 · A three-node chain -------------------------------------------------------------


def chain(order=("split_words", "count_words", "write_report"), **actions):
    nodes = {
        "split_words": solution.split_words,
        "count_words": solution.count_words,
        "write_report": solution.write_report,
        **actions,
    }
    builder = StateGraph(Words)
    for name in order:
        builder.add_node(name, nodes[name])
    previous = START
    for name in order:
        builder.add_edge(previous, name)
        previous = name
    builder.add_edge(previous, END)
    return builder


def test_chain_passes_on_its_solution():
    verdict = lesson01.check_chain(solution.build_chain)
    assert verdict.passed, verdict
    assert "three supersteps" in verdict.message


def test_chain_fails_on_the_stub():
    def split_words(state):
        return {}  # your code here

    def build_chain():
        builder = StateGraph(Words)
        builder.add_node("split_words", split_words)
        builder.add_edge(START, "split_words")
        builder.add_edge("split_words", END)
        return builder

    verdict = lesson01.check_chain(build_chain)
    assert not verdict.passed
    assert "no nodes 'count_words' and 'write_report'" in verdict.message


def test_chain_fails_when_a_node_returns_the_whole_state():
    def count_words(state):
        return {**state, "count": len(state["words"])}

    verdict = lesson01.check_chain(chain(count_words=count_words))
    assert not verdict.passed
    assert "count_words wrote text, words, count" in verdict.message
    assert "partial update" in verdict.hint


def test_chain_fails_when_the_nodes_run_in_the_wrong_order():
    def write_report(state):
        return {"text": f"{state.get('count', 0)} words"}

    order = ("split_words", "write_report", "count_words")
    verdict = lesson01.check_chain(chain(order, write_report=write_report))
    assert not verdict.passed
    assert "step 2: write_report; step 3: count_words" in verdict.message
    assert "one node per step" in verdict.message


def test_chain_fails_when_two_nodes_share_a_step():
    builder = chain()
    builder.add_edge("split_words", "write_report")
    verdict = lesson01.check_chain(builder)
    assert not verdict.passed
    # write_report reads count before count_words wrote it: the run fails in step 2
    assert "KeyError in step 2 (node write_report)" in verdict.message
    assert "count had no value yet when step 2 began" in verdict.message
    assert "(step 1: split_words wrote words)" in verdict.message


def test_chain_names_a_misspelt_key_the_state_dropped():
    """A node returning {"wrods": ...} read "split_words wrote nothing" while the learner's
    node plainly returns a key, and print(run) says it was dropped: the verdict says so."""

    def split_words(state):
        return {"wrods": state["text"].split()}

    def count_words(state):
        return {"count": len(state.get("words", []))}

    with pytest.warns(UserWarning, match="wrods"):
        verdict = lesson01.check_chain(chain(split_words=split_words, count_words=count_words))
    assert verdict.message == (
        "split_words wrote nothing and dropped wrods: not a key of the graph's state; it "
        "should write only words."
    )
    with pytest.warns(UserWarning, match="wrods"):
        verdict = lesson01.check_chain(chain(split_words=split_words))
    assert (
        "(step 1: split_words wrote nothing and dropped wrods: not a key of the graph's "
        "state)" in verdict.message
    )


def test_chain_fails_when_a_node_changes_the_state_in_place():
    def split_words(state):
        state["words"] = state["text"].split()  # lost: only what a node returns counts
        return {}

    verdict = lesson01.check_chain(chain(split_words=split_words))
    assert not verdict.passed
    assert "count_words read state['words'], but words had no value yet" in verdict.message
    assert "(step 1: split_words wrote nothing)" in verdict.message
    assert "changing `state` in place is not kept" in verdict.hint
    assert "{'words': ...}" in verdict.hint


def test_chain_fails_on_a_wrong_value():
    def write_report(state):
        return {"text": f"{state['count']} word(s)"}

    verdict = lesson01.check_chain(chain(write_report=write_report))
    assert not verdict.passed
    assert "text = '4 word(s)'; expected '4 words'" in verdict.message


# -- 1.2 · Route by temperature -----------------------------------------------------------


def router(route=None, path=None, plain=()):
    builder = StateGraph(Weather)
    builder.add_node("measure", solution.measure)
    builder.add_node("hot", solution.hot)
    builder.add_node("cold", solution.cold)
    builder.add_edge(START, "measure")
    if route is not None:
        builder.add_conditional_edges("measure", route, path)
    for target in plain:
        builder.add_edge("measure", target)
    builder.add_edge("hot", END)
    builder.add_edge("cold", END)
    return builder


def test_router_passes_on_its_solution_and_with_a_path_list():
    assert lesson01.check_router(solution.build_router).passed

    def untyped(state):
        return "hot" if state["temperature"] >= 25 else "cold"

    assert lesson01.check_router(router(untyped, ["hot", "cold"])).passed


def test_router_fails_on_the_stub():
    verdict = lesson01.check_router(router(plain=["cold"]))
    assert not verdict.passed
    assert "measure → cold is a plain edge" in verdict.message


def test_router_fails_with_two_plain_edges():
    verdict = lesson01.check_router(router(plain=["hot", "cold"]))
    assert not verdict.passed
    assert "plain edge" in verdict.message


def test_router_fails_on_the_wrong_boundary():
    def strict(state):
        return "hot" if state["temperature"] > 25 else "cold"

    verdict = lesson01.check_router(router(strict, ["hot", "cold"]))
    assert not verdict.passed
    assert "At 25 °C your run went step 1: measure; step 2: cold" in verdict.message


def test_router_fails_when_it_always_chooses_one():
    verdict = lesson01.check_router(router(lambda state: "cold", ["hot", "cold"]))
    assert not verdict.passed
    assert "At 30 °C" in verdict.message and "expected step 1: measure; step 2: hot" in (
        verdict.message
    )


def test_router_fails_when_the_drawing_cannot_tell_the_choices():
    def untyped(state):
        return "hot" if state["temperature"] >= 25 else "cold"

    verdict = lesson01.check_router(router(untyped))
    assert not verdict.passed
    assert "drawing shows measure may go to" in verdict.message
    assert "Literal" in verdict.hint


def test_router_fails_on_a_graph_of_another_shape():
    class Other(TypedDict):
        x: int

    builder = StateGraph(Other)
    builder.add_node("measure", lambda state: {})
    builder.add_edge(START, "measure")
    verdict = lesson01.check_router(builder)
    assert not verdict.passed
    assert "no nodes 'hot' and 'cold'" in verdict.message


# -- 1.3 · Read a run -----------------------------------------------------------------------


def test_read_run_passes_on_its_solution():
    verdict = lesson01.check_read_run(solution.SIGN_STEP, solution.TEXT_AFTER_2)
    assert verdict.passed, verdict
    assert "HELLO ADA!" in verdict.message


def test_read_run_fails_on_the_stub():
    verdict = lesson01.check_read_run(None, None)
    assert not verdict.passed
    assert "still None" in verdict.message


def test_read_run_fails_on_a_position_in_run_steps():
    verdict = lesson01.check_read_run(4, solution.TEXT_AFTER_2)
    assert not verdict.passed
    assert "not its step number" in verdict.message
    assert "run.step(n)" in verdict.hint


def test_read_run_fails_on_another_step():
    verdict = lesson01.check_read_run(2, solution.TEXT_AFTER_2)
    assert not verdict.passed
    assert "step 2 ran shout, tally" in verdict.message


def test_read_run_fails_on_the_value_after_another_step():
    verdict = lesson01.check_read_run(3, "hello Ada")
    assert not verdict.passed
    assert "after step 1, not after step 2" in verdict.message


def test_read_run_on_the_final_text_points_at_the_last_row_not_a_position():
    verdict = lesson01.check_read_run(3, "HELLO ADA! (signed, graphkit)")
    assert not verdict.passed
    assert "after step 3, not after step 2" in verdict.message
    assert "not the last row, which is the final state" in verdict.hint
    assert "position 2" not in verdict.hint  # (that misreading gives step 1's value)


def test_read_run_fails_on_a_value_the_run_never_held():
    verdict = lesson01.check_read_run(3, "HELLO ADA")
    assert not verdict.passed
    assert "never held" in verdict.message


def test_the_mystery_graph_is_drawn_with_its_router():
    edges = {(e.source, e.target, e.kind) for e in lesson01.mystery_graph().get_graph().edges}
    assert {("greet", "shout", "conditional"), ("greet", "whisper", "conditional")} <= edges


def test_chain_fails_when_the_stubs_edge_to_end_is_kept():
    builder = chain()
    builder.add_edge("split_words", END)  # the stub's placeholder, left in

    verdict = lesson01.check_chain(builder)
    assert not verdict.passed
    assert "also has the edge split_words → END" in verdict.message
    assert "add_edge('split_words', END)" in verdict.hint


def test_read_run_accepts_the_step_number_written_as_a_string():
    # '3' read off a table is the right step: it must not be told "there is no step 3"
    verdict = lesson01.check_read_run(str(solution.SIGN_STEP), solution.TEXT_AFTER_2)
    assert verdict.passed, verdict


def test_read_run_says_when_the_value_was_copied_with_its_quotes():
    verdict = lesson01.check_read_run(solution.SIGN_STEP, repr(solution.TEXT_AFTER_2))
    assert not verdict.passed
    assert "quotes" in verdict.hint
    assert "never held" not in verdict.message


def test_router_with_a_choice_it_never_returns_is_told_which():
    def untyped(state):
        return "hot" if state["temperature"] >= 25 else "cold"

    verdict = lesson01.check_router(router(untyped, ["hot", "cold", END]))
    assert not verdict.passed
    assert "may also go to __end__: the choices you listed include it" in verdict.message
    assert "List exactly the nodes the router returns" in verdict.hint


@pytest.mark.parametrize("flag", [True, False])
def test_read_run_refuses_a_bool_for_the_step(flag):
    verdict = lesson01.check_read_run(flag, solution.TEXT_AFTER_2)
    assert not verdict.passed
    assert f"sign_step is {flag}, a bool" in verdict.message


def test_router_that_fails_is_named_in_the_verdict():
    def reads_the_reading(state: Weather) -> Literal["hot", "cold"]:
        return "hot" if state["reading"] >= 25 else "cold"  # reading is a str

    def build():
        builder = StateGraph(Weather)
        for name in ("measure", "hot", "cold"):
            builder.add_node(name, getattr(solution, name))
        builder.add_edge(START, "measure")
        builder.add_conditional_edges("measure", reads_the_reading)
        builder.add_edge("hot", END)
        builder.add_edge("cold", END)
        return builder

    verdict = lesson01.check_router(build)
    assert not verdict.passed
    assert "TypeError in step 1 (node measure)" in verdict.message
    assert "Raised by the router reads_the_reading of node 'measure'" in verdict.message
    assert "During task" not in verdict.message  # (its id tells a learner nothing)


@pytest.mark.parametrize(
    ("returned", "said"),
    [(True, "True, which is not a node's name"), (END, "END")],
)
def test_router_that_returns_no_node_name_is_told_what_it_returned(returned, said, recwarn):
    def route(state) -> bool:  # a learner's "is it hot?" instead of a node's name
        return returned

    verdict = lesson01.check_router(router(route))
    assert not verdict.passed
    assert f"At 30 °C your router returned {said}, so nothing ran after measure" in (
        verdict.message
    )
    assert "the name of the node to run next, as a string" in verdict.hint
    assert not recwarn.list  # the runtime's warning (Command, path_map) is not shown too


@pytest.mark.parametrize(
    ("returned", "path", "said"),
    [
        (True, ["hot", "cold"], "True, which is not a node's name, so"),  # the list the
        (None, None, "None, which is not a node's name, so"),  # drawing's hint asks for
        ("Hot", ["hot", "cold"], "'Hot', which is not a node's name (did you mean 'hot'?), so"),
        ("Hot", None, "'Hot', which is not a node's name (did you mean 'hot'?), so"),
    ],
)
def test_router_returning_no_node_name_is_told_so_when_the_run_raises_too(returned, path, said):
    # with the list ['hot', 'cold'] (or None) the run raises, and the verdict spoke of a
    # "path_map" and "a valid destination", words lesson 01 has not taught, with no hint
    def route(state):
        return returned if state["temperature"] >= 25 else "cold"

    verdict = lesson01.check_router(router(route, path))
    assert not verdict.passed
    assert f"At 30 °C your router returned {said} nothing ran after measure." in verdict.message
    assert "path_map" not in verdict.message and "destination" not in verdict.message
    assert "the name of the node to run next, as a string" in verdict.hint


def test_router_with_a_dict_of_choices_missing_a_node_keeps_the_run_s_words():
    verdict = lesson01.check_router(router(lambda s: "hot", {True: "hot", False: "cold"}))
    assert not verdict.passed
    # the map's key that leads to the node it returned: the router returns keys
    assert "returned 'hot', where its path_map's key True leads" in verdict.message
    assert verdict.message.endswith(": return True.")


def test_the_first_graph_shows_the_same_when_run_again_after_the_router():
    """A learner re-runs the first graph's cells after the router's and the exercises: they
    build, run and read the first graph still. (The router's cell once redefined ``node_1``
    and ``node_2``, so the first graph ran its ``node_2``, which writes no mood; and 1.3
    named its trace ``run`` too, so reading ``run.step(1)`` again read the mystery's.)"""
    lesson = Path(__file__).parents[2] / "notebooks" / "01-first-graph.ipynb"
    run_cells(lesson, again=("l01-c07", "l01-c09", "l01-c13", "l01-c15"))


def test_chain_fails_when_words_are_split_on_one_space():
    # text.split(" ") counts the empty strings between two spaces as words
    verdict = lesson01.check_chain(
        chain(split_words=lambda state: {"words": state["text"].split(" ")})
    )
    assert not verdict.passed
    assert "expected" in verdict.message and "text.split()" in verdict.hint


def test_router_comparing_the_reading_as_text_is_caught_on_a_one_digit_temperature():
    # "30 °C" >= "25" and "24 °C" < "25" compare right as text; "9 °C" >= "25" does not
    def by_reading(state):
        return "hot" if state["reading"] >= "25" else "cold"

    verdict = lesson01.check_router(router(by_reading, ["hot", "cold"]))
    assert not verdict.passed
    assert "At 9 °C your run went step 1: measure; step 2: hot" in verdict.message


def test_router_written_async_is_told_by_the_run_not_as_a_coroutine_returned(recwarn):
    async def hot_or_cold(state) -> Literal["hot", "cold"]:
        return "hot" if state["temperature"] >= 25 else "cold"

    verdict = lesson01.check_router(router(hot_or_cold))
    assert not verdict.passed
    assert "coroutine" not in verdict.message
    assert "async" in verdict.message
    assert not [w for w in recwarn.list if "never awaited" in str(w.message)]


def test_read_run_takes_a_whole_float_and_tells_text_that_is_no_number():
    # 3.0 is the step number 3, as lessons 02 and 07 take it; "step 3" was told
    # "sign did not run in step step 3: there is no step step 3"
    assert lesson01.check_read_run(float(solution.SIGN_STEP), solution.TEXT_AFTER_2).passed
    verdict = lesson01.check_read_run(f"step {solution.SIGN_STEP}", solution.TEXT_AFTER_2)
    assert not verdict.passed
    assert "step step" not in verdict.message
    assert verdict.message.startswith(f"sign_step is 'step {solution.SIGN_STEP}', not a number")


def test_the_two_bookkeeping_steps_come_with_an_input_not_with_a_resume():
    """Section "Look inside" says the input step and __start__'s step come whenever a
    StateGraph starts from an input (it said "in every run"): a run resumed with
    invoke(None, ...) has neither, on graphkit as on LangGraph (no new input checkpoint)."""
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.graph import START as LG_START
    from langgraph.graph import StateGraph as LangGraphStateGraph

    from graphkit import InMemorySaver

    class Two(TypedDict):
        text: str

    def build(graph_class, start, saver):
        builder = graph_class(Two)
        builder.add_node("first", lambda state: {"text": state["text"] + " 1"})
        builder.add_node("second", lambda state: {"text": state["text"] + " 2"})
        builder.add_edge(start, "first")
        builder.add_edge("first", "second")
        return builder.compile(checkpointer=saver, interrupt_before=["second"])

    config = {"configurable": {"thread_id": "t"}}
    ours = build(StateGraph, START, InMemorySaver())
    started = ours.trace({"text": "go"}, config)
    resumed = ours.trace(None, config)
    assert [s.step for s in started.steps] == [-1, 0, 1]
    assert [s.plan.nodes for s in started.steps[:2]] == [["__input__"], ["__start__"]]
    assert [(s.step, s.plan.nodes) for s in resumed.steps] == [(2, ["second"])]

    theirs = build(LangGraphStateGraph, LG_START, LangGraphSaver())
    theirs.invoke({"text": "go"}, config)
    theirs.invoke(None, config)
    sources = [(s.metadata["step"], s.metadata["source"]) for s in theirs.get_state_history(config)]
    assert sources == [(2, "loop"), (1, "loop"), (0, "loop"), (-1, "input")]
    assert resumed.values == theirs.get_state(config).values == {"text": "go 1 2"}
