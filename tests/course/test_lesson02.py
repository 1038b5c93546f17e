"""Tests of lesson 02's checks: each passes on its solution and fails, saying why, on
typical wrong answers and on the notebook's stub."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphkit import END, START, GraphkitWarning, StateGraph
from graphkit.course import lesson02
from graphkit.course.solutions import lesson02 as solution
from graphkit.course.solutions.lesson02 import Counter, bump, double, peek
from tests.course.cells import printing_verdicts, run_cells

# -- 2.1 · Predict the steps ----------------------------------------------------------------


def test_predict_steps_passes_on_its_solution_in_any_order():
    assert lesson02.check_predict_steps(solution.STEPS).passed
    shuffled = {3: "merge", 2: ("slow", "merge"), 1: {"right", "left"}}
    verdict = lesson02.check_predict_steps(shuffled)
    assert verdict.passed, verdict
    assert "merge ran twice" in verdict.message


def test_predict_steps_fails_on_the_stub_without_giving_step_1_away():
    # (the run's own steps named right, or a blank name, are no answer yet either: they
    # got "Step 1 runs left, right", or "Your steps stop before step 1, which runs ...")
    stubs = [{1: [], 2: []}, {1: [], 2: [], 3: []}, {}, {1: "", 2: [""]}]
    stubs += [{0: ["__start__"], 1: [], 2: []}, {-1: "__input__", 0: "__start__"}]
    for stub in stubs:
        verdict = lesson02.check_predict_steps(stub)
        assert not verdict.passed
        assert "names no node yet" in verdict.message
        assert "Plan: who runs, and why" in verdict.hint
        text = verdict.message + verdict.hint
        assert not any(node in text for node in ("left", "right", "slow", "merge")), text


def test_predict_steps_fails_when_merge_waits_for_both_branches():
    verdict = lesson02.check_predict_steps({1: ["left", "right"], 2: ["slow"], 3: ["merge"]})
    assert not verdict.passed
    assert "Step 2 runs merge, slow; you said slow" in verdict.message
    assert "merge ran at step 2 because left wrote branch:to:merge in step 1" in verdict.message
    # a waiting edge is taught in lessons 03 and 04: the hint says it without the term
    assert "A plain edge wakes its node on its own: any one edge is enough" in verdict.hint
    assert "waiting" not in verdict.hint


def test_predict_steps_fails_when_merge_runs_only_once():
    verdict = lesson02.check_predict_steps({1: ["left", "right"], 2: ["slow", "merge"]})
    assert not verdict.passed
    assert "stop before step 3, which runs merge" in verdict.message


def test_predict_steps_fails_on_a_step_too_many_and_on_a_wrong_shape():
    verdict = lesson02.check_predict_steps({**solution.STEPS, 4: ["merge"]})
    assert not verdict.passed
    assert "Step 4 runs no node (the run is over)" in verdict.message
    verdict = lesson02.check_predict_steps(["left", "right"])
    assert not verdict.passed
    assert "Expected a dict" in verdict.message


def test_predict_steps_says_step_0_is_the_runs_own_when_the_steps_start_at_0():
    """Off by one: the learner's nodes numbered from step 0, where __start__ runs."""
    verdict = lesson02.check_predict_steps({0: ["left", "right"], 1: ["slow", "merge"]})
    assert not verdict.passed
    assert verdict.message.startswith(
        "You put left, right in step 0, but step 0 runs only __start__."
    )
    assert "the nodes after START run in step 1" in verdict.message
    assert lesson02.check_predict_steps({0: ["__start__"], **solution.STEPS}).passed


def test_predict_steps_takes_the_runs_own_steps_named_right():
    """Step -1 runs __input__ (a whole run's steps, -1 on, are right: the check said
    "You put __input__ in step -1, but step -1 runs only __input__"); __start__ there is
    wrong."""
    assert lesson02.check_predict_steps({-1: "__input__", 0: "__start__", **solution.STEPS}).passed
    verdict = lesson02.check_predict_steps({-1: ["__start__"], **solution.STEPS})
    assert verdict.message.startswith("You put __start__ in step -1, but step -1 runs only")


def test_predict_steps_takes_a_name_that_is_no_list_as_a_guess():
    # (it said "Your code raised TypeError: 'int' object is not iterable")
    verdict = lesson02.check_predict_steps({1: 3})
    assert "you said '3'" in verdict.message and "There is no node '3'" in verdict.message


def test_predict_steps_reads_names_in_one_text_and_end_as_what_they_are():
    # "Step 1 runs left, right; you said left, right." read as a right answer judged wrong
    verdict = lesson02.check_predict_steps({1: "left, right", 2: ["slow", "merge"], 3: "merge"})
    assert verdict.message == (
        "Step 1 runs left, right; you said 'left, right'.\n"
        "'left, right' is one text, not 2 names: write a list, ['left', 'right']."
    )
    assert verdict.hint.startswith("Write each step's nodes as a list of names")
    verdict = lesson02.check_predict_steps({**solution.STEPS, 4: [END]})
    assert verdict.message == (
        "Step 4 runs no node (the run is over); you said '__end__'.\n"
        "'__end__' is where the run stops, not a node that runs: leave out a step that runs "
        "no node."
    )


def test_predict_steps_tells_end_beside_a_steps_node_to_leave_end_out_of_the_list():
    # "leave out a step that runs no node" was said of step 3, which runs merge
    guess = {1: ["left", "right"], 2: ["slow", "merge"], 3: ["merge", END]}
    verdict = lesson02.check_predict_steps(guess)
    assert verdict.message == (
        "Step 3 runs merge; you said '__end__', merge.\n"
        "'__end__' is where the run stops, not a node that runs: leave it out of step 3's "
        "list."
    )


def test_predict_steps_names_a_node_that_does_not_exist():
    verdict = lesson02.check_predict_steps({1: ["left", "rigth"]})
    assert not verdict.passed
    assert "no node 'rigth'" in verdict.message


def test_predict_steps_says_so_when_the_dict_maps_nodes_to_steps():
    # it said "Your steps stop before step 1, which runs left, right": no word of the keys
    verdict = lesson02.check_predict_steps({"left": 1, "right": 1, "slow": 2, "merge": 3})
    assert not verdict.passed
    assert verdict.message.startswith("Your dict's keys are node names ('left', ")
    assert "a step number to the nodes that step runs" in verdict.message
    assert "stop before" not in verdict.message
    verdict = lesson02.check_predict_steps({"step 1": ["left", "right"]})
    assert verdict.message.startswith("'step 1' is not a step number")


# -- 2.2 · See the old value -----------------------------------------------------------------


def graph(edges, nodes=None):
    nodes = nodes or {"bump": bump, "double": double, "peek": peek}
    builder = StateGraph(Counter)
    for name, action in nodes.items():
        builder.add_node(name, action)
    for source, target in edges:
        builder.add_edge(source, target)
    return builder


def test_old_value_passes_on_its_solution():
    verdict = lesson02.check_old_value(solution.build_old_value)
    assert verdict.passed, verdict
    # in the numbers of the exercise's example (it said "saw 11", from the last count, 10)
    assert verdict.message.startswith(
        "peek ran in step 2 beside double and, from count=3, saw 4, bump's write from step 1; "
        "double's 8 was still pending in step 2's buffer"
    )


def test_old_value_fails_on_the_stub():
    stub = graph(
        [(START, "bump"), ("bump", "double"), ("double", END)], {"bump": bump, "double": double}
    )
    verdict = lesson02.check_old_value(stub)
    assert not verdict.passed
    assert "no node 'peek'" in verdict.message


def test_old_value_fails_when_no_edge_leads_to_peek():
    stub = graph([(START, "bump"), ("bump", "double"), ("double", END)])
    with pytest.warns(GraphkitWarning, match="'peek': nothing leads to it from START"):
        verdict = lesson02.check_old_value(stub)
    assert not verdict.passed
    assert "peek never ran" in verdict.message


def test_old_value_fails_on_a_chain():
    chain = graph([(START, "bump"), ("bump", "double"), ("double", "peek"), ("peek", END)])
    verdict = lesson02.check_old_value(chain)
    assert not verdict.passed
    assert "peek ran in step 3, after double's step 2, so it saw double's write" in (
        verdict.message
    )
    # the exercise's own example, count = 3, before the check's others
    assert "from count=3, seen ended at 8." in verdict.message


def test_old_value_fails_when_peek_runs_beside_bump():
    side = graph([(START, "bump"), (START, "peek"), ("bump", "double"), ("double", END)])
    verdict = lesson02.check_old_value(side)
    assert not verdict.passed
    assert "peek never saw bump's write: from count=3, seen ended at 3." in verdict.message


def test_old_value_fails_when_peek_reads_the_wrong_key_or_runs_twice():
    def wrong_peek(state):
        return {"seen": state["count"] * 2}

    nodes = {"bump": bump, "double": double, "peek": wrong_peek}
    edges = [(START, "bump"), ("bump", "double"), ("bump", "peek")]
    verdict = lesson02.check_old_value(graph(edges, nodes))
    assert not verdict.passed
    assert "On count=3: seen = 8, count = 8; expected seen = 4 (bump's value)" in verdict.message

    verdict = lesson02.check_old_value(graph([*edges, ("double", "peek")]))
    assert not verdict.passed
    assert "peek ran in steps [2, 3]" in verdict.message


def test_old_value_says_peek_wrote_nothing_without_giving_its_code():
    nodes = {"bump": bump, "double": double, "peek": lambda state: None}
    edges = [(START, "bump"), ("bump", "double"), ("bump", "peek")]
    verdict = lesson02.check_old_value(graph(edges, nodes))
    assert not verdict.passed
    assert "peek ran in step 2 beside double, right, but wrote nothing to seen" in (verdict.message)
    assert 'state["count"]' not in verdict.hint  # peek's one line is the exercise


# -- 2.3 · What does the reducer hold? ---------------------------------------------------------


def test_total_after_passes_on_its_solution():
    verdict = lesson02.check_total_after(solution.TOTAL_AFTER)
    assert verdict.passed, verdict


def test_total_after_fails_on_the_stub_without_giving_step_2s_start():
    verdict = lesson02.check_total_after({2: None, 3: None})
    assert not verdict.passed
    assert "no answer for step 2" in verdict.message
    assert "one step at a time" in verdict.hint
    assert "6" not in verdict.message + verdict.hint  # step 1's total, step 2's start
    verdict = lesson02.check_total_after({2: None, 3: 44})  # (step 3 has a number)
    assert verdict.message == "You have no answer for step 2 yet."
    verdict = lesson02.check_total_after({2: 22, 3: None})
    assert "no answer for step 3 yet (step 2's 22 is right)" in verdict.message
    assert "finish" not in verdict.message  # that it runs once is the step's question


def test_total_after_fails_when_a_sibling_sees_the_other_write():
    verdict = lesson02.check_total_after({2: 32, 3: 64})
    assert not verdict.passed
    assert "After step 2, total does not hold 32" in verdict.message
    assert "still pending" in verdict.hint
    assert "22" not in verdict.message + verdict.hint  # the answer is not given away


def test_total_after_fails_when_one_write_is_lost():
    verdict = lesson02.check_total_after({2: 16, 3: 32})
    assert not verdict.passed
    assert "every write of the step counts" in verdict.hint


def test_total_after_fails_when_finish_runs_twice():
    verdict = lesson02.check_total_after({2: 22, 3: 66})
    assert not verdict.passed
    assert "After step 3, total does not hold 66" in verdict.message
    assert "finish runs once" in verdict.hint


def test_total_after_fails_on_a_wrong_shape():
    verdict = lesson02.check_total_after([22, 44])
    assert not verdict.passed
    assert "Expected a dict" in verdict.message


def test_the_exercise_graphs_draw():
    edges = {(e.source, e.target) for e in lesson02.uneven_graph().get_graph().edges}
    assert {("left", "merge"), ("slow", "merge")} <= edges
    assert lesson02.tally_graph().invoke(dict(lesson02.TALLY_INPUT)) == {"total": 44}


def test_step_numbers_may_be_written_as_strings():
    assert lesson02.check_total_after({"2": 22, "3": 44}).passed
    verdict = lesson02.check_predict_steps({"1": ["left", "right"], "2": []})
    assert not verdict.passed
    assert "Step 2 runs" in verdict.message


def test_old_value_says_peek_returned_more_than_seen():
    def whole_state_peek(state: Counter) -> dict:
        return {**state, "seen": state["count"]}  # the whole state: count too

    def build():
        builder = StateGraph(Counter)
        for name, action in (("bump", bump), ("double", double), ("peek", whole_state_peek)):
            builder.add_node(name, action)
        builder.add_edge(START, "bump")
        builder.add_edge("bump", "double")
        builder.add_edge("bump", "peek")
        return builder

    verdict = lesson02.check_old_value(build)
    assert not verdict
    assert "peek wrote `count` as well as `seen`" in verdict.message
    assert "reducer" not in verdict.hint and "only the keys it changes" in verdict.hint


def test_total_after_says_a_number_typed_as_a_string_is_a_string():
    verdict = lesson02.check_total_after({2: "22", 3: "44"})
    assert not verdict
    assert "the number 22" in verdict.message and "the string '22'" in verdict.message
    assert "without quotes" in verdict.hint


# -- the predict questions ---------------------------------------------------------------------

NOTEBOOK = Path(__file__).parents[2] / "notebooks" / "02-supersteps.ipynb"
ANSWERS = {  # the guess cell of each question, and the answer its reveal explains
    "l02-c37": "sunny (saw 120 tokens)",
    "l02-c66": 220,
    "l02-c67": 252,
    "l02-c68": ["news", "weather"],
}


def _predictions(answers: dict[str, object]) -> list:
    """Run the lesson's code up to the exercises with ``answers`` in its guess cells;
    the predictions its four questions made."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    namespace: dict[str, object] = {}
    made = []
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] != "code" or source.startswith("from IPython"):
            continue
        if "graphkit.course" in source:
            break
        if cell["id"] in answers:
            source = f"{source.split(' = ')[0]} = {answers[cell['id']]!r}"
        exec(compile(source, cell["id"], "exec", dont_inherit=True), namespace)
        if ".predict(" in source:
            made.append(namespace[source.split(".predict(")[0]].predictions[-1])
    return made


def test_the_predict_questions_are_answered_as_their_reveals_say():
    """Each question is about a run the lesson has not shown; the prose after it gives
    the answer (120, 220, 252, news once), which must stay what the runtime does."""
    right = _predictions(ANSWERS)
    assert [p.correct for p in right] == [True] * 4, [p.explanation for p in right]
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    guesses = {cell["id"]: "".join(cell["source"]) for cell in cells if cell["id"] in ANSWERS}
    assert set(guesses) == set(ANSWERS)
    # each question's guess has a name of its own, and its stub holds no answer
    names = [g.split(" = ")[0] for g in guesses.values()]
    assert len(set(names)) == 4 and all(name.endswith("_guess") for name in names), names
    assert all("  # your guess" in g for g in guesses.values())
    wrong = _predictions(
        {**ANSWERS, "l02-c37": "sunny (saw 170 tokens)", "l02-c68": ["news", "news", "weather"]}
    )
    assert [p.correct for p in wrong] == [False, True, True, False]
    assert "it runs once in step 2" in wrong[3].explanation


def test_a_question_run_again_after_the_later_ones_judges_that_question():
    """A learner goes back to Q1 (and Q2, Q3) after Q4 and runs its guess and predict
    cells again: they judge that question's run. (All four bound ``guess``, and Q1 and Q2
    shared one ``session`` that Q3 and Q4 rebound: Q1's cells run again after Q4 judged
    ``forecast`` in Q4's run, of another input, and Q2's after Q1's judged step 3.)"""
    questions = [("l02-c37", "l02-c38"), ("l02-c66", "l02-c41"), ("l02-c67", "l02-c44")]
    seen = run_cells(
        NOTEBOOK,
        until="from graphkit.course",
        again=tuple(cell for question in questions for cell in question),
        source_of=printing_verdicts,
    )
    assert "forecast holds 'sunny (saw 120 tokens)' after step 2's Update" in seen["l02-c38"][0]
    assert "token_count holds 220 after step 3's Update" in seen["l02-c41"][0]
    assert "token_count holds 252 after step 2's Update" in seen["l02-c44"][0]
