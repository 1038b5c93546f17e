"""Tests of lesson 04's checks: each passes on its solution(s) and fails, with a message
naming the steps and nodes the run showed, on the notebook's stub and on typical wrong
answers."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from graphkit import END, START, GraphkitWarning, StateGraph
from graphkit.course import lesson04
from graphkit.course.solutions import lesson04 as solutions
from tests.course.cells import code_cells, printing_verdicts, run_cells

# -- 4.1 · Route with a path map ----------------------------------------------------------


def triage_graph(route, path_map) -> StateGraph:
    builder = StateGraph(solutions.Ticket)
    builder.add_node("triage", solutions.triage)
    for name in ("refund", "bug", "human"):
        builder.add_node(name, solutions.handler(name))
        builder.add_edge(name, END)
    builder.add_edge(START, "triage")
    builder.add_conditional_edges("triage", route, path_map)
    return builder


def stub_route(state) -> str:  # the notebook's stub
    return "other"


def names_route(state) -> str:
    message = state["message"]
    if not message:
        return END
    return "refund" if "refund" in message else "bug" if "error" in message else "human"


def no_end_route(state) -> str:
    message = state["message"]
    return "money" if "refund" in message else "crash" if "error" in message else "other"


STUB_MAP = {"money": "refund", "crash": "bug", "other": "human"}  # the notebook's stub
FULL_MAP = {**STUB_MAP, "empty": END}


def test_router_passes_on_the_solution():
    verdict = lesson04.check_router(solutions.build_triage)
    assert verdict, verdict
    assert "All 6 tickets" in verdict.message


def test_router_fails_on_the_stub_naming_the_ticket_and_the_step():
    verdict = lesson04.check_router(triage_graph(stub_route, STUB_MAP))
    assert not verdict
    assert "'please refund me', step 2 ran human; expected refund" in verdict.message
    assert "refund did not run at step 2" in verdict.message


def test_router_fails_without_a_path_map():
    verdict = lesson04.check_router(triage_graph(names_route, None))
    assert not verdict
    assert "no path map" in verdict.message and "dict" in verdict.hint


def test_router_fails_when_an_empty_message_does_not_end():
    verdict = lesson04.check_router(triage_graph(no_end_route, FULL_MAP))
    assert not verdict
    assert "For message '', step 2 ran human; expected END" in verdict.message


def test_router_fails_on_a_key_missing_from_the_path_map_without_raising():
    verdict = lesson04.check_router(triage_graph(solutions.route, STUB_MAP))
    assert not verdict
    assert verdict.message == (
        "Running your graph raised KeyError in step 1 (node triage): The router of "
        "'triage' returned 'empty', which is not a key of its path_map ['crash', 'money', "
        "'other']; add it there or return one of those."
    )
    assert verdict.hint == ""  # the message says the fix: "Run it yourself..." added nothing


def test_router_returning_end_missing_from_the_path_map_gets_a_hint():
    """The runtime says '__end__' is not a key (LangGraph raises KeyError '__end__' too),
    a name the learner never wrote; the exercises' intro promises a hint."""

    def route(state) -> str:
        return no_end_route(state) if state["message"] else END

    verdict = lesson04.check_router(triage_graph(route, STUB_MAP))
    assert not verdict
    assert verdict.message == (
        "For message '', your router returned END, which is not a key of your path map "
        "['crash', 'money', 'other']: the run stopped with a KeyError in step 1."
    )
    assert "END too" in verdict.hint and "'done': END" in verdict.hint


def test_router_mapping_a_key_to_none_names_the_key_and_points_at_end():
    # A learner writes 'empty': None for "nowhere"; the runtime said "maps to unknown
    # node None; ... add_node(None, ...)".
    verdict = lesson04.check_router(triage_graph(solutions.route, {**STUB_MAP, "empty": None}))
    assert not verdict
    assert verdict.message == (
        "Compiling your graph raised ValueError: Conditional edge 'route' of 'triage': its "
        "path_map maps 'empty' to None, which is no node; map 'empty' to END (from graphkit "
        "import END) to end the run there, or to the name of a node."
    )
    assert verdict.hint == ""


def test_router_mapping_to_the_string_end_points_at_the_constant():
    verdict = lesson04.check_router(triage_graph(solutions.route, {**STUB_MAP, "empty": "END"}))
    assert not verdict
    assert "maps 'empty' to unknown node 'END'; to end the run, use the constant END" in (
        verdict.message
    )
    assert "add_node('END'" not in verdict.message


def test_router_mapping_a_key_to_a_misspelt_node_names_the_key_and_compiling():
    # It said "Your code raised ValueError: Conditional edge 'route' of 'triage' maps to
    # unknown node 'bgu'", though graphkit raised it compiling, and named no key.
    verdict = lesson04.check_router(triage_graph(solutions.route, {**FULL_MAP, "crash": "bgu"}))
    assert not verdict
    assert verdict.message == (
        "Compiling your graph raised ValueError: Conditional edge 'route' of 'triage': its "
        "path_map maps 'crash' to unknown node 'bgu'; fix its path_map (did you mean 'bug'?) "
        "or add_node('bgu', ...)."
    )
    assert verdict.hint == ""


def test_router_fails_when_a_node_is_missing():
    builder = StateGraph(solutions.Ticket).add_node("triage", solutions.triage)
    verdict = lesson04.check_router(builder.add_edge(START, "triage"))
    assert not verdict
    assert "no node refund, bug, human" in verdict.message


# -- 4.2 · Fan in exactly once ------------------------------------------------------------


def test_fan_in_passes_with_a_waiting_edge():
    verdict = lesson04.check_fan_in(solutions.build_fan_in)
    assert verdict, verdict
    assert "join:weather+news_2:summarize" in verdict.message


def test_fan_in_passes_with_defer():
    verdict = lesson04.check_fan_in(solutions.build_fan_in_deferred)
    assert verdict, verdict
    assert "ran once, at step 4" in verdict.message


def test_fan_in_fails_on_the_stub_plain_edges():
    builder = solutions._desk()
    builder.add_edge("weather", "summarize")
    builder.add_edge("news_2", "summarize")
    verdict = lesson04.check_fan_in(builder)
    assert not verdict
    assert "summarize ran 2 times (at steps [3, 4])" in verdict.message
    assert "edge weather → summarize" in verdict.message
    assert "waiting edge" in verdict.hint


def test_fan_in_with_a_waiting_edge_beside_the_plain_edges_names_them():
    # The learner adds the waiting edge below the stub's lines and keeps them.
    builder = solutions._desk()
    builder.add_edge("weather", "summarize")
    builder.add_edge("news_2", "summarize")
    builder.add_edge(["weather", "news_2"], "summarize")
    verdict = lesson04.check_fan_in(builder)
    assert not verdict
    assert "summarize ran 2 times (at steps [3, 4])" in verdict.message
    assert "Your waiting edge [weather, news_2] → summarize is there" in verdict.message
    assert "news_2 → summarize and weather → summarize" in verdict.message
    assert "does not replace the plain edges" in verdict.hint


def test_fan_in_with_a_waiting_edge_beside_one_plain_edge():
    builder = solutions._desk()
    builder.add_edge("weather", "summarize")
    builder.add_edge(["weather", "news_2"], "summarize")
    verdict = lesson04.check_fan_in(builder)
    assert not verdict
    assert "so is the plain edge weather → summarize:" in verdict.message


def test_fan_in_waiting_edge_from_a_misspelt_node_suggests_the_node():
    builder = solutions._desk()
    verdict = lesson04.check_fan_in(lambda: builder.add_edge(["weather", "news2"], "summarize"))
    assert not verdict
    assert "did you mean 'news_2'?" in verdict.message


def test_fan_in_fails_when_the_waiting_edge_starts_too_early():
    builder = solutions._desk()
    builder.add_edge(["weather", "news_1"], "summarize")
    verdict = lesson04.check_fan_in(builder)
    assert not verdict
    assert "summarize ran at step 3, but news_2 had not finished" in verdict.message


def test_fan_in_fails_when_only_the_long_branch_is_wired():
    builder = solutions._desk()
    builder.add_edge("news_2", "summarize")
    verdict = lesson04.check_fan_in(builder)
    assert not verdict
    # (the trigger was printed as a Python list: ['branch:to:summarize'])
    assert verdict.message == (
        "summarize ran once, at step 4, but weather never wrote summarize's trigger "
        "branch:to:summarize. It works only because the other branch happens to be longer."
    )


def test_fan_in_deferred_with_one_branch_wired_does_not_blame_branch_lengths():
    # defer=True held summarize back until the end, whichever branch is longer: saying
    # "it works only because the other branch is longer" would be false here.
    for wired, silent in (("weather", "news_2"), ("news_2", "weather")):
        builder = solutions._desk(defer=True)
        builder.add_edge(wired, "summarize")
        verdict = lesson04.check_fan_in(builder)
        assert not verdict
        assert "happens to be longer" not in verdict.message
        assert (
            f"but {silent} never wrote summarize's trigger branch:to:summarize. It waited "
            "for both only because defer=True holds it until nothing else is left"
        ) in verdict.message
        assert f"{silent} → summarize" in verdict.hint


def test_fan_in_waiting_edge_from_the_long_branch_alone_lists_the_triggers():
    builder = solutions._desk()
    builder.add_edge(["news_2"], "summarize")
    verdict = lesson04.check_fan_in(builder)
    assert not verdict
    assert (
        "never wrote any of summarize's triggers (branch:to:summarize, join:news_2:summarize)."
        in (verdict.message)
    )


# -- 4.3 · Predict the steps ---------------------------------------------------------------


def test_predicted_steps_passes_on_the_solution():
    verdict = lesson04.check_predicted_steps(solutions.PREDICTED)
    assert verdict, verdict


def test_predicted_steps_fails_on_the_stub():
    verdict = lesson04.check_predicted_steps({"read": None, "publish": None, "audit": None})
    assert not verdict
    assert "No step (an int) predicted for read, publish, audit" in verdict.message


def test_predicted_steps_fails_one_step_early_and_explains_each_node():
    verdict = lesson04.check_predicted_steps({"read": 2, "publish": 3, "audit": 4})
    assert not verdict
    assert "read: you predicted step 2, it ran at step 3" in verdict.message
    assert "search wrote branch:to:read in step 2" in verdict.message
    assert "waiting edge [read, outline] → publish" in verdict.message
    assert "audit is deferred" in verdict.message


def test_predicted_steps_fails_when_the_deferred_node_is_taken_for_a_plain_one():
    verdict = lesson04.check_predicted_steps({"read": 3, "publish": 4, "audit": 2})
    assert not verdict
    assert "audit: you predicted step 2, it ran at step 5" in verdict.message
    assert "read:" not in verdict.message


def test_predicted_steps_fails_on_a_list():
    verdict = lesson04.check_predicted_steps([3, 4, 5])
    assert not verdict
    assert "Expected a dict" in verdict.message


def test_predicted_steps_takes_step_numbers_written_as_strings():
    # as lesson 02's checks do: "3" read off a table is the step number 3
    as_text = {node: str(step) for node, step in solutions.PREDICTED.items()}
    verdict = lesson04.check_predicted_steps(as_text)
    assert verdict.passed, verdict


def test_fan_in_without_an_edge_into_summarize_names_no_step_none():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)  # "nothing leads to summarize"
        verdict = lesson04.check_fan_in(solutions._desk)  # no edge into summarize
    assert not verdict
    assert "ran never" in verdict.message and "Nothing wrote" in verdict.message
    assert "step None" not in verdict.message


def test_fan_in_with_every_node_deferred_says_the_others_are_deferred_too():
    # defer=True added in the stub's loop: every node waits, so none holds summarize back.
    builder = StateGraph(solutions.Desk)
    for node in (solutions.fetch, solutions.weather, solutions.news_1, solutions.news_2):
        builder.add_node(node.__name__, node, defer=True)
    builder.add_node("summarize", solutions.summarize, defer=True)
    builder.add_edge(START, "fetch")
    builder.add_edge("fetch", "weather")
    builder.add_edge("fetch", "news_1")
    builder.add_edge("news_1", "news_2")
    builder.add_edge("weather", "summarize")
    builder.add_edge("news_2", "summarize")
    verdict = lesson04.check_fan_in(builder)
    assert not verdict
    assert "It is deferred, but so are fetch, news_1, news_2 and weather" in verdict.message
    assert "held back instead of waking" not in verdict.message
    assert "summarize alone" in verdict.hint


def test_the_first_predict_cell_run_again_at_once_judges_step_2_again():
    """As its text says: a learner who runs the first question's cell again, with another
    guess, before the cells below, is judged on step 2 again (the session stays put)."""
    lesson = Path(__file__).parents[2] / "notebooks" / "04-routing-fanout-fanin.ipynb"
    seen = run_cells(
        lesson, until="# finish step 2", again=("l04-c18",), source_of=printing_verdicts
    )
    assert "step 2 runs" in seen["l04-c18"][0]


def test_the_step_3_question_after_the_step_cell_ran_twice_says_so_not_a_wrong_verdict():
    """`session.step();` hides its card, so running it twice leaves no trace: the next
    question then judged step 4 and marked the right step-3 answer wrong."""
    lesson = Path(__file__).parents[2] / "notebooks" / "04-routing-fanout-fanin.ipynb"
    ask = "session.predict(nodes=my_step_3"
    names: dict = {"display": print}
    run_cells(lesson, until=ask, names=names)
    cells = dict(code_cells(lesson))
    finish = next(s for s in cells.values() if s.startswith("# finish step 2"))
    exec(finish, names)  # the second run of the cell
    names["my_step_3"] = ["hotel_book", "itinerary"]  # the right answer
    with pytest.raises(ValueError, match="about step 3, but the session is at step 4"):
        exec(next(s for s in cells.values() if s.startswith(ask)), names)


def test_router_written_async_leaves_no_never_awaited_warning():
    # the check's own call of the router (for END missing from the map) left a coroutine
    async def route(state) -> str:
        return solutions.route(state)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        verdict = lesson04.check_router(triage_graph(route, FULL_MAP))
    assert not verdict
    assert "is an async function, and this run is synchronous" in verdict.message
    assert not [w for w in caught if "never awaited" in str(w.message)]


def test_fan_in_through_a_node_of_the_learner_s_says_neither_branch_woke_summarize():
    # "It works only because the other branch happens to be longer" said of both branches
    builder = solutions._desk()
    builder.add_node("join", lambda state: {})
    builder.add_edge(["weather", "news_2"], "join")
    builder.add_edge("join", "summarize")
    verdict = lesson04.check_fan_in(builder)
    assert not verdict
    assert verdict.message == (
        "summarize ran once, at step 5, but neither weather nor news_2 wrote summarize's "
        "trigger branch:to:summarize: join did."
    )
    assert "Keep the nodes as they are" in verdict.hint


def test_predicted_steps_takes_whole_floats_and_refuses_a_bool():
    # 3.0 was told "No step (an int) predicted"; True passed the int test (True == 1)
    as_floats = {node: float(step) for node, step in solutions.PREDICTED.items()}
    assert lesson04.check_predicted_steps(as_floats).passed
    verdict = lesson04.check_predicted_steps({**solutions.PREDICTED, "read": True})
    assert not verdict.passed and "No step (an int) predicted for read" in verdict.message
