"""Tests of lesson 05's checks: each passes on its solution and fails, saying why, on
the notebook's stub and on typical wrong answers."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

from langgraph.types import Command as LangGraphCommand

from graphkit import Command, Send
from graphkit.course import lesson05
from graphkit.course.solutions import lesson05 as solutions
from tests.course.cells import run_cells

# -- 5.1 · Map with Send


def test_fan_out_passes_on_the_solution():
    verdict = lesson05.check_fan_out(solutions.fan_out)
    assert verdict, verdict.message
    assert "push task" in verdict.message


def test_fan_out_stub_routes_by_name_and_gets_a_pull_task():
    def fan_out(state):
        return "work"  # the notebook's stub

    verdict = lesson05.check_fan_out(fan_out)
    assert not verdict
    assert "pull task" in verdict.message and "whole state" in verdict.message
    assert "Send" in verdict.hint


def test_fan_out_sending_only_the_first_item():
    def fan_out(state):
        return [Send("work", {"item": state["items"][0]})]

    verdict = lesson05.check_fan_out(fan_out)
    assert not verdict
    assert "planned 1 push task of `work`" in verdict.message  # not "push task(s)"


def test_fan_out_sending_the_bare_item():
    def fan_out(state):
        return [Send("work", item) for item in state["items"]]

    verdict = lesson05.check_fan_out(fan_out)
    assert not verdict
    assert "'ant'" in verdict.message and "key 'item'" in verdict.message


def test_fan_out_sending_the_whole_list_to_each_task():
    def fan_out(state):
        return [Send("work", {"item": state["items"]}) for _ in state["items"]]

    verdict = lesson05.check_fan_out(fan_out)
    assert not verdict
    assert "exactly one task" in verdict.message or "received the items" in verdict.message


def test_fan_out_sending_to_a_misspelt_node():
    verdict = lesson05.check_fan_out(
        lambda state: [Send("worker", {"item": x}) for x in state["items"]]
    )
    assert not verdict
    assert "'worker', which is not a node" in verdict.message


def test_fan_out_with_the_send_arguments_swapped():
    # The runtime failed in the next Plan with "unhashable type: 'dict'".
    verdict = lesson05.check_fan_out(
        lambda state: [Send({"item": item}, "work") for item in state["items"]]
    )
    assert not verdict
    assert "takes the node's name first" in verdict.message
    assert "swapped: write Send('work', {'item': 'ant'})" in verdict.message


def test_fan_out_sending_nothing():
    verdict = lesson05.check_fan_out(lambda state: [])
    assert not verdict
    assert "never ran" in verdict.message


def test_fan_out_sending_each_distinct_item_once_loses_a_repeated_one():
    def fan_out(state):
        return [Send("work", {"item": item}) for item in sorted(set(state["items"]))]

    verdict = lesson05.check_fan_out(fan_out)
    assert not verdict
    assert "With 3 items ['ant', 'bee', 'ant']" in verdict.message
    assert "planned 2 push tasks" in verdict.message


def test_fan_out_returning_a_generator_is_told_to_return_a_list():
    # the run's words were "returned <generator object ...>, ... add it there"
    verdict = lesson05.check_fan_out(
        lambda state: (Send("work", {"item": item}) for item in state["items"])
    )
    assert not verdict
    assert verdict.message.startswith("fan_out returned a generator")
    assert "generator object" not in verdict.message
    assert "list" in verdict.hint


# -- 5.2 · Command


def test_triage_passes_on_the_solution():
    verdict = lesson05.check_triage(solutions.triage)
    assert verdict, verdict.message


def test_triage_written_as_a_callable_object_passes():
    class Triage:  # (its __call__'s annotation declares where it goes, as LangGraph reads it)
        def __call__(self, state: dict) -> Command[Literal["approve", "review", "reject"]]:
            return solutions.triage(state)

    verdict = lesson05.check_triage(Triage())
    assert verdict, verdict.message


def test_triage_as_a_partial_is_told_the_partial_hides_its_annotation():
    # (LangGraph reads no annotation through a partial either: the graph draws no way out)
    verdict = lesson05.check_triage(functools.partial(solutions.triage))
    assert not verdict
    assert "nothing leads to it from START" in verdict.message
    assert "functools.partial" in verdict.hint and "triage itself" in verdict.hint


def test_triage_stub_always_approves():
    def triage(state) -> Command[Literal["approve", "review", "reject"]]:
        return Command(update={"level": "low"}, goto="approve")  # the notebook's stub

    verdict = lesson05.check_triage(triage)
    assert not verdict
    assert "amount=101" in verdict.message and "['approve']" in verdict.message
    assert "boundaries" not in verdict.hint


def test_triage_without_annotation_is_told_the_compile_warning():
    def triage(state):
        return solutions.triage(state)

    verdict = lesson05.check_triage(triage)
    assert not verdict
    assert "nothing leads to it from START" in verdict.message
    assert "Command[Literal" in verdict.hint


def test_triage_annotated_with_langgraph_s_command_is_told_to_import_graphkit_s():
    # (annotated, just with LangGraph's Command: "annotate the node" would not help)
    def triage(state) -> LangGraphCommand[Literal["approve", "review", "reject"]]:
        return solutions.triage(state)

    verdict = lesson05.check_triage(triage)
    assert not verdict
    assert "annotated with Command from langgraph.types" in verdict.message
    assert "from graphkit import Command" in verdict.hint


def test_triage_returning_a_dict_routes_nowhere():
    def triage(state) -> Command[Literal["approve", "review", "reject"]]:
        return {"level": "low"}

    verdict = lesson05.check_triage(triage)
    assert not verdict
    assert "nothing ran after triage" in verdict.message and "dict" in verdict.message


def test_triage_with_an_off_by_one_boundary():
    def triage(state) -> Command[Literal["approve", "review", "reject"]]:
        amount = state["amount"]
        if amount < 100:
            return Command(update={"level": "low"}, goto="approve")
        if amount < 1000:
            return Command(update={"level": "medium"}, goto="review")
        return Command(update={"level": "high"}, goto="reject")

    verdict = lesson05.check_triage(triage)
    assert not verdict
    assert "amount=100," in verdict.message and "boundaries" in verdict.hint


def test_triage_routing_right_but_wrong_level():
    def triage(state) -> Command[Literal["approve", "review", "reject"]]:
        route = solutions.triage(state).goto
        return Command(update={"level": "low"}, goto=route)

    verdict = lesson05.check_triage(triage)
    assert not verdict
    assert "set level to 'low'" in verdict.message


def test_triage_updating_with_the_whole_state_doubles_the_log():
    def triage(state) -> Command[Literal["approve", "review", "reject"]]:
        route = solutions.triage(state)
        state["level"] = route.update["level"]
        return Command(update=state, goto=route.goto)  # the whole state, log included

    verdict = lesson05.check_triage(triage)
    assert not verdict
    assert "log ended as ['received', 'received', 'approve']" in verdict.message
    assert "triage's Command wrote log = ['received'] too" in verdict.message
    assert "only the key triage changes" in verdict.hint


# -- 5.3 · A subgraph with its own schema

word_counter = lesson05.word_count_graph()


def test_call_subgraph_passes_on_the_solution():
    verdict = lesson05.check_call_subgraph(solutions.count_words)
    assert verdict, verdict.message
    assert "count_words" in verdict.message


def test_call_subgraph_given_the_child_graph_itself_is_told_it_became_the_node():
    # The learner passes word_counter where count_words goes: no one "invoked it with
    # the keys []"; added as the node, it got none of the parent's keys.
    verdict = lesson05.check_call_subgraph(word_counter)
    assert not verdict
    assert "You invoked it with" not in verdict.message
    assert "You passed word_counter itself as count_words" in verdict.message
    assert "none of the parent's keys (text)" in verdict.message
    assert "def count_words(state)" in verdict.hint


def test_call_subgraph_stub():
    verdict = lesson05.check_call_subgraph(lambda state: {"words": 0})
    assert not verdict
    assert "ran no subgraph" in verdict.message


def test_call_subgraph_counting_without_the_subgraph():
    verdict = lesson05.check_call_subgraph(lambda state: {"words": len(state["text"].split())})
    assert not verdict
    assert "no subruns" in verdict.message


def test_call_subgraph_passing_the_parent_keys():
    def count_words(state):
        return {"words": word_counter.invoke({"text": state["text"]})["count"]}

    verdict = lesson05.check_call_subgraph(count_words)
    assert not verdict
    # said in the exercise's terms: the child failed, on the keys it was given
    assert "KeyError: 'doc'" in verdict.message
    assert "word_counter itself failed, in its node tokenize" in verdict.message
    assert "with the keys ['text']" in verdict.message and "['doc', 'count']" in verdict.message
    assert "word_counter.invoke({'doc': ...})" in verdict.hint


def test_call_subgraph_reading_the_child_key_from_the_parent_state():
    def count_words(state):
        return {"words": word_counter.invoke({"doc": state["doc"]})["count"]}

    verdict = lesson05.check_call_subgraph(count_words)
    assert not verdict
    assert "KeyError" in verdict.message and "itself failed" not in verdict.message
    # the generic "run it yourself" said nothing of whose key 'doc' is
    assert "receives the parent's state, whose keys are ['summary', 'text', 'words']" in (
        verdict.message
    )
    assert "'doc' is a key of the child's state" in verdict.message
    assert "Translate on the way in" in verdict.hint


def test_call_subgraph_reading_the_parent_key_from_the_child_result():
    def count_words(state):
        return {"words": word_counter.invoke({"doc": state["text"]})["words"]}

    verdict = lesson05.check_call_subgraph(count_words)
    assert not verdict
    assert "word_counter ran and finished, then count_words raised KeyError: 'words'" in (
        verdict.message
    )
    assert "the child's keys ['count', 'doc'], not the parent's" in verdict.message
    assert "on the way out" in verdict.hint


def test_call_subgraph_raising_a_key_error_of_a_list_gets_a_verdict():
    """KeyError(['a']) names no dict key: looking it up in the state's keys raised
    TypeError inside the check, reported as the learner's own "unhashable type" error;
    the verdict is now the runtime's account of the KeyError, before or after the child."""

    def before_the_child(state):
        raise KeyError(["a"])

    def after_the_child(state):
        word_counter.invoke({"doc": state["text"]})
        raise KeyError(["a"])

    for count_words in (before_the_child, after_the_child):
        verdict = lesson05.check_call_subgraph(count_words)
        assert not verdict
        assert "unhashable" not in verdict.message
        name = count_words.__name__
        assert f"raised KeyError in step 1 (node count_words, in {name}): ['a']" in (
            verdict.message
        )


def test_call_subgraph_returning_the_child_state():
    def count_words(state):
        return word_counter.invoke({"doc": state["text"]})

    verdict = lesson05.check_call_subgraph(count_words)
    assert not verdict
    assert "dropped a write" in verdict.message and "'doc'" in verdict.message


def test_call_subgraph_returning_a_wrong_count():
    def count_words(state):
        return {"words": word_counter.invoke({"doc": state["text"]})["count"] + 1}

    verdict = lesson05.check_call_subgraph(count_words)
    assert not verdict
    assert "expected 4" in verdict.message


def test_call_subgraph_run_for_show_while_counting_by_hand():
    def count_words(state):
        word_counter.invoke({"doc": "placeholder"})  # the subgraph runs, on the wrong text
        return {"words": len(state["text"].split())}

    verdict = lesson05.check_call_subgraph(count_words)
    assert not verdict
    assert "subgraph counted 1" in verdict.message and "'placeholder'" in verdict.message


def test_triage_says_where_a_command_went_when_it_is_not_a_node():
    def to_end(state) -> Command[Literal["approve", "review", "reject"]]:
        return Command(update={"level": "low"}, goto="__end__")

    def misspelt(state) -> Command[Literal["approve", "review", "reject"]]:
        command = solutions.triage(state)
        return Command(update=command.update, goto=command.goto.capitalize())

    verdict = lesson05.check_triage(to_end)
    assert not verdict
    assert "its Command went to '__end__'" in verdict.message and "END ends" in verdict.message
    verdict = lesson05.check_triage(misspelt)
    assert not verdict
    assert "'Approve', which is not one of the nodes" in verdict.message
    assert "spelt" in verdict.hint


def test_the_lesson_names_no_checkpoint_term_before_lesson_07():
    """The namespace of a subgraph's run is said in the lesson's words: "LangGraph's
    `checkpoint_ns`" named a checkpoint field three lessons before checkpoints."""
    import json
    from pathlib import Path

    notebook = Path(__file__).parents[2] / "notebooks" / "05-send-command-subgraphs.ipynb"
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    prose = "".join(
        line for cell in cells if cell["cell_type"] == "markdown" for line in cell["source"]
    )
    assert "checkpoint_ns" not in prose
    assert "namespace** `node:task_id`, the node's name and its task's id" in prose


def test_each_section_s_run_shows_the_same_when_read_again_after_a_later_one():
    """A learner re-reads a section's run after the later sections: each reads its own
    run still. (Every section named its run ``run``, so reading the jokes' run again read
    the blog's: ``why`` said generate_joke never ran, and ``best_selected_joke`` was
    missing.) ``why``'s answers are printed, since their repr does not say which run."""
    lesson = Path(__file__).parents[2] / "notebooks" / "05-send-command-subgraphs.ipynb"
    explained = ("l05-c14", "l05-c21")
    run_cells(
        lesson,
        again=("l05-c14", "l05-c15", "l05-c21", "l05-c29"),
        source_of=lambda cell, source: f"print({source})" if cell in explained else source,
    )
