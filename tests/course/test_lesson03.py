"""Tests of lesson 03's checks: each passes on its solution and fails, with a message
that says what the runtime saw, on the notebook's stub and on typical wrong answers."""

from __future__ import annotations

import json
import operator
import warnings
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from graphkit import START, StateGraph
from graphkit.course import lesson03
from graphkit.course.solutions import lesson03 as solutions
from graphkit.errors import GraphkitWarning
from tests.course.cells import printing_verdicts, run_cells

# -- 3.1 · Fix the conflict -----------------------------------------------------------------


def fan_out(schema, *, chain: bool = False) -> StateGraph:
    builder = StateGraph(schema)
    builder.add_node("a", lambda state: {"results": ["apple"]})
    builder.add_node("b", lambda state: {"results": ["banana"]})
    builder.add_edge(START, "a")
    builder.add_edge("a" if chain else START, "b")
    return builder


class Plain(TypedDict):  # the notebook's stub
    results: list


class KeepsLast(TypedDict):
    results: Annotated[list, lambda current, update: update]


class Adds(TypedDict):
    results: Annotated[list, operator.add]


def test_fix_conflict_passes_on_the_solution():
    verdict = lesson03.check_fix_conflict(solutions.build_fan_out)
    assert verdict, verdict
    assert "['apple', 'banana']" in verdict.message


def test_fix_conflict_fails_on_the_stub_naming_the_step_and_writers():
    verdict = lesson03.check_fix_conflict(fan_out(Plain))
    assert not verdict
    assert verdict.message == (
        "The run failed in step 1's Update with InvalidUpdateError: a and b both wrote "
        "`results` in that step (['apple'] from a, ['banana'] from b), and `results` is a "
        "plain key (a LastValue channel), which keeps one value per step. Of writes made at "
        "the same time none is the last, so the Update refused them."
    )
    assert "reducer" in verdict.hint


def test_fix_conflict_on_the_stub_does_not_hand_over_the_answer():
    """The runtime's error ends with its fix, Annotated[list, operator.add]: the
    exercise's answer, which the verdict must not quote (the hint points at it)."""
    verdict = lesson03.check_fix_conflict(fan_out(Plain))
    assert "operator.add" not in verdict.message + verdict.hint
    assert "Annotated[list, <a function that combines two lists>]" in verdict.hint


def test_fix_conflict_names_a_channel_kind_that_takes_one_write_per_step():
    from graphkit.channels import EphemeralValue

    ephemeral = TypedDict("Ephemeral", {"results": Annotated[list, EphemeralValue]})  # noqa: UP013
    verdict = lesson03.check_fix_conflict(fan_out(ephemeral))
    assert not verdict
    assert "`results` is an EphemeralValue channel, which keeps one value" in verdict.message


def test_fix_conflict_fails_on_a_reducer_that_keeps_the_last_write():
    verdict = lesson03.check_fix_conflict(fan_out(KeepsLast))
    assert not verdict
    assert "two writes to `results`" in verdict.message and "lost" in verdict.message


def test_fix_conflict_says_add_messages_changed_the_items_rather_than_lost_them():
    """add_messages, met in lesson 01, keeps both writes but makes a message of each: the
    verdict said "the write of a and b was lost", which the learner's output denied."""
    from graphkit import add_messages

    messages = TypedDict("Messages", {"results": Annotated[list, add_messages]})  # noqa: UP013
    verdict = lesson03.check_fix_conflict(fan_out(messages))
    assert not verdict
    assert "lost" not in verdict.message
    assert verdict.message == (
        "Step 1 had two writes to `results`, ['apple'] from a and ['banana'] from b, and after "
        "its Update `results` holds two items, but not those: [HumanMessage, HumanMessage]. "
        "Your reducer, add_messages, changed each item it was given (it makes a chat message "
        "of each: it is the reducer of a list of messages)."
    )
    assert "as they were written" in verdict.hint


def test_fix_conflict_says_lost_when_one_write_is_kept_twice():
    """A reducer returning the new list twice kept b's write and lost a's, with as many
    items as were written: it was told it changed each item it was given."""
    twice = TypedDict("Twice", {"results": Annotated[list, lambda current, new: new + new]})  # noqa: UP013
    verdict = lesson03.check_fix_conflict(fan_out(twice))
    assert not verdict
    assert "changed each item" not in verdict.message
    assert "is ['banana', 'banana']: the write of a was lost" in verdict.message


def test_fix_conflict_says_a_write_kept_as_a_list_inside_the_list_was_not_lost():
    """current + [new] keeps each write, as one item: it was told both writes were lost."""
    for name, reducer in [
        ("in_brackets", lambda current, new: current + [new]),  # noqa: RUF005 (as learners write it)
        ("pair", lambda current, new: [current, new]),
    ]:
        schema = TypedDict(name, {"results": Annotated[list, reducer]})  # noqa: UP013
        verdict = lesson03.check_fix_conflict(fan_out(schema))
        assert not verdict
        assert "lost" not in verdict.message and "changed each item" not in verdict.message
        assert "each write is in it as one item: a list inside the list" in verdict.message
        assert "the items of the new list, not the list itself" in verdict.hint


def test_fix_conflict_says_a_reducer_made_text_of_the_list():
    """A reducer joining the writes into text passed step 1 ('apple' is in
    "[]['apple']['banana']" as text), then was told the input's 'seed' was lost, though
    the text held it."""
    for name, reducer in [
        ("as_text", lambda current, new: str(current) + str(new)),
        ("joined", lambda c, u: c + "".join(u) if isinstance(c, str) else "".join(c + u)),
    ]:
        schema = TypedDict(name, {"results": Annotated[list, reducer]})  # noqa: UP013
        verdict = lesson03.check_fix_conflict(fan_out(schema))
        assert not verdict
        assert "lost" not in verdict.message
        assert "a str, not a list" in verdict.message
        assert "returns a list" in verdict.hint


def test_fix_conflict_shows_the_changed_items_when_they_are_short():
    """A lambda that made each item upper case was told "[str, str]" and "Your reducer,
    <lambda>,": the items themselves say what changed, and <lambda> names nothing."""
    upper = TypedDict(  # noqa: UP013
        "Upper", {"results": Annotated[list, lambda c, u: c + [x.upper() for x in u]]}
    )
    verdict = lesson03.check_fix_conflict(fan_out(upper))
    assert not verdict
    assert verdict.message.endswith(
        "and after its Update `results` holds two items, but not those: ['APPLE', 'BANANA']. "
        "Your reducer changed each item it was given."
    )


class Appends(TypedDict):  # list.append returns None
    results: Annotated[list, list.append]


def test_fix_conflict_says_a_reducer_that_returns_none_returned_none():
    verdict = lesson03.check_fix_conflict(fan_out(Appends))
    assert not verdict
    assert "Your reducer returned None" in verdict.message
    assert "list.append changes a list in place and returns None" in verdict.message


def test_fix_conflict_names_the_channel_kind_picked_instead_of_a_reducer():
    from graphkit.channels import AnyValue, Topic

    topic = TypedDict("Topics", {"results": Annotated[list, Topic]})  # noqa: UP013
    verdict = lesson03.check_fix_conflict(fan_out(topic))
    assert not verdict
    assert "the input's value was lost. `results` is a Topic channel" in verdict.message
    any_value = TypedDict("AnyValues", {"results": Annotated[list, AnyValue]})  # noqa: UP013
    verdict = lesson03.check_fix_conflict(fan_out(any_value))
    assert not verdict
    assert "`results` is an AnyValue channel: it keeps one of a step's writes" in verdict.message


def test_fix_conflict_keeps_the_note_naming_a_reducer_that_raised():
    ors = TypedDict("Ors", {"results": Annotated[list, operator.or_]})  # noqa: UP013
    verdict = lesson03.check_fix_conflict(fan_out(ors))
    assert not verdict
    assert "TypeError in step 0" in verdict.message
    assert "its reducer or_ raised (writers: '__start__')" in verdict.message


def test_fix_conflict_says_a_reducer_key_declared_int_starts_from_zero():
    # tokens' line copied for results: the channel starts from int(), and 0 + [] fails
    counts = TypedDict("Counts", {"results": Annotated[int, operator.add]})  # noqa: UP013
    verdict = lesson03.check_fix_conflict(fan_out(counts))
    assert not verdict
    assert "declared Annotated[int, ...], so its channel starts from int() = 0" in verdict.message
    assert "declare Annotated[list, ...]" in verdict.hint


def test_fix_conflict_names_a_set_s_start_once():
    # Annotated[set, operator.or_] (a learner's "union of the results"): "set() = set()"
    sets = TypedDict("Sets", {"results": Annotated[set, operator.or_]})  # noqa: UP013
    verdict = lesson03.check_fix_conflict(fan_out(sets))
    assert not verdict
    assert "so its channel starts from set(), and its reducer failed" in verdict.message


def test_fix_conflict_fails_when_the_nodes_no_longer_run_in_parallel():
    verdict = lesson03.check_fix_conflict(fan_out(Plain, chain=True))
    assert not verdict
    assert "no longer run in parallel" in verdict.message


def test_fix_conflict_fails_when_a_node_is_renamed():
    builder = StateGraph(Adds).add_node("a", lambda state: {"results": ["apple"]})
    builder.add_edge(START, "a")
    verdict = lesson03.check_fix_conflict(builder)
    assert not verdict
    assert "no node 'b'" in verdict.message


# -- 3.2 · A reducer that keeps the best score ------------------------------------------------


def stub_best_scores(current: dict, update: dict) -> dict:  # the notebook's stub
    return update


def last_wins(current: dict, update: dict) -> dict:
    return {**current, **update}


def mutates(current: dict, update: dict) -> dict:
    for player, score in update.items():
        current[player] = max(score, current.get(player, score))
    return current


def compares_dicts(current: dict, update: dict) -> dict:
    return max(current, update)


def test_best_scores_passes_on_the_solution():
    verdict = lesson03.check_best_scores(solutions.best_scores)
    assert verdict, verdict
    assert "{'ann': 9, 'bob': 7, 'cy': 5}" in verdict.message


def test_best_scores_fails_on_the_stub():
    verdict = lesson03.check_best_scores(stub_best_scores)
    assert not verdict
    assert "returned {'ann': 5, 'bob': 1}" not in verdict.message
    assert "expected {'ann': 5, 'bob': 1}" in verdict.message


def test_best_scores_fails_when_the_last_write_wins():
    verdict = lesson03.check_best_scores(last_wins)
    assert not verdict
    assert "returned {'ann': 2, 'bob': 1}" in verdict.message
    assert "higher of the two" in verdict.hint


def test_best_scores_fails_when_it_changes_its_argument():
    verdict = lesson03.check_best_scores(mutates)
    assert not verdict
    assert "changed its arguments" in verdict.message and "new dict" in verdict.hint


def test_best_scores_hint_gives_the_lessons_reason_not_a_graphkit_one():
    # Section 4 says graphkit hands a reducer a copy, so its records stay right; the
    # reason not to change `current` is LangGraph's (a checkpoint or a streamed chunk
    # may still hold it). A hint blaming graphkit's records contradicted the lesson.
    hint = lesson03.check_best_scores(mutates).hint
    assert "records" not in hint
    assert "LangGraph" in hint and "checkpoint" in hint


def test_best_scores_fails_on_an_error_without_raising():
    verdict = lesson03.check_best_scores(compares_dicts)
    assert not verdict
    assert "TypeError" in verdict.message


def test_best_scores_fails_on_a_non_function():
    verdict = lesson03.check_best_scores({"ann": 1})
    assert not verdict
    assert "Expected a function" in verdict.message


# -- 3.3 · Return only the report -----------------------------------------------------------


def report_graph(**schemas) -> StateGraph:
    builder = StateGraph(solutions.ReportState, **schemas)
    # unannotated nodes: a node's own state annotation would add its keys to the graph's
    builder.add_node("research", lambda state: solutions.research(state))
    builder.add_node("write", lambda state: solutions.write(state))
    builder.add_edge(START, "research")
    builder.add_edge("research", "write")
    return builder


class ReportAndNotes(TypedDict):
    report: str
    notes: str


class TopicOnly(TypedDict):
    topic: str


def test_output_schema_passes_on_the_solution():
    verdict = lesson03.check_output_schema(solutions.build_report)
    assert verdict, verdict
    assert "{'report':" in verdict.message


def test_output_schema_fails_on_the_stub():
    verdict = lesson03.check_output_schema(report_graph())
    assert not verdict
    assert "returned the keys ['notes', 'report', 'topic']" in verdict.message
    assert "output_schema" in verdict.hint


def test_output_schema_fails_with_too_many_output_keys():
    verdict = lesson03.check_output_schema(report_graph(output_schema=ReportAndNotes))
    assert not verdict
    assert "returned the keys ['notes', 'report']" in verdict.message


def test_output_schema_fails_when_the_input_schema_is_set_instead():
    verdict = lesson03.check_output_schema(report_graph(input_schema=TopicOnly))
    assert not verdict
    assert "returned the keys ['notes', 'report', 'topic']" in verdict.message


def test_output_schema_fails_when_notes_leave_the_state():
    class Slim(TypedDict):
        topic: str
        report: str

    builder = StateGraph(Slim, output_schema=solutions.ReportOutput)
    builder.add_node("write", lambda state: {"report": f"Report on {state['topic']}."})
    builder.add_edge(START, "write")
    verdict = lesson03.check_output_schema(builder)
    assert not verdict
    assert "no `notes`" in verdict.message


def test_output_schema_fails_when_the_input_loses_topic():
    class NoTopic(TypedDict):
        notes: str

    with pytest.warns(GraphkitWarning, match="topic"):
        verdict = lesson03.check_output_schema(report_graph(input_schema=NoTopic))
    assert not verdict
    assert "raised KeyError in step 1 (node research): 'topic'" in verdict.message
    assert (
        "research read state['topic'], but topic never reached the state: the input gave "
        "topic, but the input schema has no key 'topic'"
    ) in verdict.message
    assert "keep the input schema (or the state schema) holding it" in verdict.hint


def test_output_schema_names_the_reader_when_the_state_loses_topic():
    """The output schema given as the state schema: topic is no key of the graph."""

    def research(state):
        return {"notes": f"3 facts about {state['topic']}"}

    builder = StateGraph(solutions.ReportOutput)
    builder.add_node("research", research)
    builder.add_node("write", lambda state: {"report": "..."})
    builder.add_edge(START, "research")
    builder.add_edge("research", "write")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        verdict = lesson03.check_output_schema(builder)
    assert not verdict
    assert "(node research)" in verdict.message
    lost = "the state has no key 'topic': the input gave topic, but no schema"
    assert lost in verdict.message


def test_output_schema_names_the_state_schema_as_the_input_schema_when_none_was_given():
    """The output schema given as the state schema, the notebook's annotated nodes kept:
    topic is a key of the graph, but the input schema (the state schema: no
    input_schema= was given) lacks it. A learner who never wrote an input schema is told
    which schema that is, and the runtime's note does not say the input lacked topic."""
    builder = StateGraph(solutions.ReportOutput)
    builder.add_node("research", solutions.research)
    builder.add_node("write", solutions.write)
    builder.add_edge(START, "research")
    builder.add_edge("research", "write")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        verdict = lesson03.check_output_schema(builder)
    assert not verdict
    assert (
        "the input gave topic, but the input schema, here the state schema ReportOutput "
        "(no input_schema= was given), has no key 'topic'"
    ) in verdict.message
    # the runtime's note on the KeyError must not deny what the check's next line says
    assert "the input did not give it" not in verdict.message
    assert "neither the input nor a node put it in the state" in verdict.message


def _extend_in_place(current: list, update: list) -> list:
    current.extend(update)
    return current


class ExtendsInPlace(TypedDict):
    results: Annotated[list, _extend_in_place]


def test_fix_conflict_fails_on_a_reducer_that_changes_current_in_place():
    verdict = lesson03.check_fix_conflict(fan_out(ExtendsInPlace))
    assert not verdict.passed
    assert "in place" in verdict.message and "['seed', 'new']" in verdict.message
    assert "new list" in verdict.hint
    assert "current + update" not in verdict.hint  # nearly the answer: not given


def test_best_scores_fails_when_a_missing_player_counts_as_zero():
    def zero_default(current, update):
        return {k: max(current.get(k, 0), update.get(k, 0)) for k in {**current, **update}}

    verdict = lesson03.check_best_scores(zero_default)
    assert not verdict
    assert "'zed': -3" in verdict.message


def test_output_schema_with_no_keys_is_a_verdict_not_a_crash():
    verdict = lesson03.check_output_schema(lambda: _report(output_schema=dict))
    assert not verdict
    assert "returned None, not a dict" in verdict.message
    assert "Your code raised" not in verdict.message


class Reports(TypedDict):  # a slip in the key's name
    reports: str


def test_output_schema_names_a_key_no_node_writes():
    verdict = lesson03.check_output_schema(lambda: _report(output_schema=Reports))
    assert not verdict
    assert "names no key" not in verdict.message  # it names one: reports
    assert "no node writes reports" in verdict.message
    assert "did you mean 'report'?" in verdict.message


def test_output_schema_given_as_the_second_argument_is_the_context_schema():
    verdict = lesson03.check_output_schema(lambda: _report(None, solutions.ReportOutput))
    assert not verdict
    assert "context schema" in verdict.message
    assert "output_schema=ReportOutput" in verdict.hint


def test_output_schema_hint_fits_a_node_that_returns_no_dict():
    def build():
        builder = StateGraph(solutions.ReportState, output_schema=solutions.ReportOutput)
        builder.add_node("research", lambda state: solutions.research(state))
        builder.add_node("write", lambda state: f"Report on {state['topic']}")  # no dict
        builder.add_edge(START, "research")
        builder.add_edge("research", "write")
        return builder

    verdict = lesson03.check_output_schema(build)
    assert not verdict
    assert "node 'write' returned a value of type str" in verdict.message
    assert "state schema" not in verdict.hint  # a key the nodes read is not what went wrong
    assert "research and write" in verdict.hint


class Public(TypedDict):  # the state without `notes`, which research writes
    topic: str
    report: str


class Output(TypedDict):
    report: str


def test_output_schema_names_the_key_a_node_lost_not_topic():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)  # "notes is not in the state"
        verdict = lesson03.check_output_schema(lambda: _report(Public, output_schema=Output))
    assert not verdict
    assert "KeyError in step 2 (node write): 'notes'" in verdict.message
    assert "notes" in verdict.hint and "topic" not in verdict.hint.split("(")[0]


def _report(state=None, *context, **schemas):
    builder = StateGraph(state or solutions.ReportState, *context, **schemas)
    # unannotated nodes: a node's own state annotation would add its keys to the graph's
    builder.add_node("research", lambda state: solutions.research(state))
    builder.add_node("write", lambda state: solutions.write(state))
    builder.add_edge(START, "research")
    builder.add_edge("research", "write")
    return builder


# -- the predict questions ---------------------------------------------------------------------

NOTEBOOK = Path(__file__).parents[2] / "notebooks" / "03-state-channels-reducers.ipynb"
GUESSES = {  # each question's guess cell, and the answer its reveal explains
    "l03-c10": "InvalidUpdateError",
    "l03-c55": "['seed', 'apple', 'banana']",
}


def _predictions(answers: dict[str, str]) -> tuple[list, list[list[str]]]:
    """Run the lesson's code up to the exercises with ``answers`` in its guess cells;
    the predictions made, and each question's cells (setup, guess, reveal) by id."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    namespace: dict[str, object] = {}
    made, questions = [], []
    for number, cell in enumerate(code):
        source = "".join(cell["source"])
        if "graphkit.course" in source:
            break
        if cell["id"] in answers:
            before, after = code[number - 1], code[number + 1]
            questions.append([before["id"], cell["id"], after["id"]])
            source = f"{source.split(' = ')[0]} = {answers[cell['id']]}"
        exec(compile(source, cell["id"], "exec", dont_inherit=True), namespace)
        if ".predict(" in source:
            made.append(namespace[source.split(".predict(")[0]].predictions[-1])
    return made, questions


def test_each_predict_question_is_setup_guess_then_reveal():
    """As in lesson 02: a cell that runs up to the question, a cell holding only the
    guess, and a cell that reveals; the stub's guess is wrong, the reveal's answer right."""
    cells = {
        c["id"]: "".join(c["source"])
        for c in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    }
    right, questions = _predictions(GUESSES)
    assert [p.correct for p in right] == [True, True], [p.explanation for p in right]
    sessions = []
    for setup, guess, reveal in questions:
        # each question has its own session and guess, so its cells can be run again
        session = cells[reveal].split(".")[0]
        assert f"{session} = DebugSession(" in cells[setup]
        assert cells[setup].rstrip().endswith(f"{session}.plan()  # step 1: a and b are planned")
        assert cells[guess].startswith(f"{session}_guess = None  # your guess")
        assert cells[reveal] == f'{session}.predict(channel="results", value={session}_guess)'
        sessions.append(session)
    assert len(set(sessions)) == len(questions), sessions
    stubs, _ = _predictions({cell: "None" for cell in GUESSES})
    assert [p.correct for p in stubs] == [False, False]


def test_the_conflict_reveal_explains_without_handing_over_exercise_3_1():
    """The first reveal quoted the error's text, whose last sentence is its fix ("Give
    it a reducer, e.g. Annotated[list, operator.add]"), the answer exercise 3.1 asks
    for; it now says, from the records, who wrote what and the rule that refused it."""
    for guess in ("InvalidUpdateError", "None"):
        (conflict, _), _ = _predictions({"l03-c10": guess, "l03-c55": "None"})
        text = conflict.explanation
        assert "step 1's Update failed, so results holds no new value" in text
        assert "a and b each wrote results, a plain key (a LastValue channel)" in text
        assert "of writes made at the same time none is the last" in text
        assert "reducer" not in text and "Annotated" not in text


def test_the_first_question_run_again_after_the_second_judges_the_first():
    """A learner goes back to the conflict question after the reducer's and runs its guess
    and predict cells again: they judge the conflict's run. (Both bound ``session`` and
    ``guess``: run again, the first question's cells judged the reducer's run.)"""
    seen = run_cells(
        NOTEBOOK,
        until="from graphkit.course",
        again=("l03-c10", "l03-c54"),
        source_of=printing_verdicts,
    )
    assert "step 1's Update failed, so results holds no new value" in seen["l03-c54"][0]


class KeepsTwo(TypedDict):  # both writes kept from [], one lost once the input gave one
    results: Annotated[
        list, lambda current, update: current + update if len(current) < 2 else current
    ]


def test_fix_conflict_fails_when_a_write_is_lost_once_the_input_gave_an_item():
    verdict = lesson03.check_fix_conflict(fan_out(KeepsTwo))
    assert not verdict.passed
    assert verdict.message.startswith(
        "Started from results=['seed'], the run ended with results=['seed', 'apple']: "
        "the write of b was lost."
    )
