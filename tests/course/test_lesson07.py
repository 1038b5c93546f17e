"""Tests of lesson 07's checks: each passes on its solution and fails, saying why, on
the notebook's stub and on typical wrong answers."""

from __future__ import annotations

import pytest

from graphkit import END, START, GraphkitWarning, InMemorySaver, StateGraph
from graphkit.course import lesson07
from graphkit.course.solutions import lesson07 as solutions
from graphkit.prebuilt import MessagesState

# -- 7.1 · Replay from before a node


def test_replay_passes_on_the_solution():
    verdict = lesson07.check_replay(solutions.replay_from)
    assert verdict, verdict.message
    assert "fork" in verdict.message


def test_replay_stub_invokes_the_latest_checkpoint():
    def replay_from(app, config, node):
        return app.invoke(None, config)  # the notebook's stub

    verdict = lesson07.check_replay(replay_from)
    assert not verdict
    assert "nothing was replayed" in verdict.message and "no `fork`" in verdict.message
    assert "checkpoint and clean did not run again." in verdict.message  # not "ran 0 more"
    assert "time(s)" not in verdict.message
    assert ".next" in verdict.hint


def test_replay_from_the_checkpoint_after_the_node():
    def replay_from(app, config, node):
        # the checkpoint written by the step in which `node` ran: one too late
        after = next(s for s in app.get_state_history(config) if node in (s.next or ())).config
        later = next(s for s in app.get_state_history(config) if s.parent_config == after)
        return app.invoke(None, later.config)

    verdict = lesson07.check_replay(replay_from)
    assert not verdict
    assert "too late" in verdict.message and "('summarize',)" in verdict.message


def test_replay_from_the_very_first_checkpoint():
    def replay_from(app, config, node):
        first = list(app.get_state_history(config))[-1]
        return app.invoke(None, first.config)

    verdict = lesson07.check_replay(replay_from)
    assert not verdict
    assert "too early" in verdict.message and "fetch" in verdict.message


def test_replay_comparing_next_with_a_string_says_next_is_a_tuple():
    # next(...) finds nothing and raises a StopIteration with no message of its own
    def replay_from(app, config, node):
        before = next(s for s in app.get_state_history(config) if s.next == node)
        return app.invoke(None, before.config)

    verdict = lesson07.check_replay(replay_from)
    assert not verdict
    assert "found no checkpoint matching your condition" in verdict.message
    assert "tuple" in verdict.hint


def test_replay_indexing_next_of_a_finished_checkpoint_says_next_can_be_empty():
    # the newest checkpoint of a finished run has next (): s.next[0] raises IndexError
    def replay_from(app, config, node):
        before = next(s for s in app.get_state_history(config) if s.next[0] == node)
        return app.invoke(None, before.config)

    verdict = lesson07.check_replay(replay_from)
    assert not verdict
    assert "IndexError" in verdict.message
    assert "next ()" in verdict.hint and "('clean',)" in verdict.hint


def test_fix_city_comparing_next_with_a_string_names_lookup_and_7_1_names_its_own_node():
    # each exercise's hint shows a node of its own graph: 7.1 has no node lookup
    def fix_city(app, config, city):
        before = next(s for s in app.get_state_history(config) if s.next == "lookup")
        return app.invoke(None, app.update_state(before.config, {"city": city}))

    def replay_from(app, config, node):
        before = next(s for s in app.get_state_history(config) if s.next == [node])
        return app.invoke(None, before.config)

    verdict = lesson07.check_fix_city(fix_city)
    assert not verdict and "('lookup',)" in verdict.hint
    verdict = lesson07.check_replay(replay_from)
    assert not verdict and "('clean',)" in verdict.hint and "lookup" not in verdict.hint


def test_replay_with_new_input_is_a_new_run():
    def replay_from(app, config, node):
        return app.invoke({"url": "example.org"}, config)

    verdict = lesson07.check_replay(replay_from)
    assert not verdict
    assert "new input step" in verdict.message


# -- 7.2 · Fix a wrong value with update_state


def test_fix_city_passes_on_the_solution():
    verdict = lesson07.check_fix_city(solutions.fix_city)
    assert verdict, verdict.message


def test_fix_city_stub_updates_the_latest_checkpoint():
    def fix_city(app, config, city):
        app.update_state(config, {"city": city})  # the notebook's stub
        return app.invoke(None, config)

    verdict = lesson07.check_fix_city(fix_city)
    assert not verdict
    assert "'unknown in Pari'" in verdict.message and "next ()" in verdict.message
    assert "('lookup',)" in verdict.hint


def test_fix_city_without_resuming():
    def fix_city(app, config, city):
        before = next(s for s in app.get_state_history(config) if s.next == ("lookup",))
        app.update_state(before.config, {"city": city})

    verdict = lesson07.check_fix_city(fix_city)
    assert not verdict
    assert "stopped at your update" in verdict.message and "invoke(None" in verdict.hint


def test_fix_city_writing_the_report_directly():
    def fix_city(app, config, city):
        report = f"{lesson07.WEATHER[city]} in {city}"
        app.update_state(config, {"city": city, "report": report})

    verdict = lesson07.check_fix_city(fix_city)
    assert not verdict
    assert "lookup never ran again" in verdict.message


def test_fix_city_as_the_node_to_rerun():
    # "I want lookup to run again, so the edit is lookup's": its edge makes compose next,
    # and compose ran on a state with no forecast (a KeyError from the check's own graph)
    def fix_city(app, config, city):
        before = next(s for s in app.get_state_history(config) if s.next == ("lookup",))
        return app.invoke(None, app.update_state(before.config, {"city": city}, as_node="lookup"))

    verdict = lesson07.check_fix_city(fix_city)
    assert not verdict
    assert "raised" not in verdict.message
    assert "next ('compose',)" in verdict.message and "as_node" in verdict.message
    assert "lookup never ran on the corrected city" in verdict.message


def test_fix_city_on_the_right_checkpoint_with_the_wrong_as_node_is_told_so():
    # the checkpoint is the one the hint names, so the hint must not send the learner
    # back to it: it is as_node that chose what runs next
    for wrong in ("lookup", "compose"):

        def fix_city(app, config, city, wrong=wrong):
            before = next(s for s in app.get_state_history(config) if s.next == ("lookup",))
            edited = app.update_state(before.config, {"city": city}, as_node=wrong)
            return app.invoke(None, edited)

        verdict = lesson07.check_fix_city(fix_city)
        assert not verdict
        assert "You edited the right checkpoint" in verdict.message
        assert "as_node" in verdict.message and "edge leads to lookup" in verdict.hint
        assert "Update the checkpoint whose .next is" not in verdict.hint


def test_fix_city_resuming_the_checkpoint_before_the_edit():
    def fix_city(app, config, city):
        before = next(s for s in app.get_state_history(config) if s.next == ("lookup",))
        app.update_state(before.config, {"city": city})
        return app.invoke(None, before.config)  # the old checkpoint, not the edited one

    verdict = lesson07.check_fix_city(fix_city)
    assert not verdict
    assert "not from your update" in verdict.message and "'Pari'" in verdict.message
    assert "lookup ran once more, but" in verdict.message  # not "ran 1 more time(s)"
    assert "update_state returns" in verdict.hint


def test_fix_city_with_a_misspelt_key_says_the_city_did_not_change():
    # the run did resume from the edit; the edit wrote nothing (the key was dropped)
    def fix_city(app, config, city):
        before = next(s for s in app.get_state_history(config) if s.next == ("lookup",))
        return app.invoke(None, app.update_state(before.config, {"cty": city}))

    with pytest.warns(GraphkitWarning, match="'cty'"):
        verdict = lesson07.check_fix_city(fix_city)
    assert not verdict
    assert "not from your update" not in verdict.message
    assert "did not change city: it is still 'Pari'" in verdict.message
    assert "(city, forecast, report)" in verdict.message
    assert "key city itself" in verdict.hint


def test_fix_city_editing_the_finished_run_as_start():
    # the report comes out right, but the edit sits on top of the finished run, not on
    # the checkpoint before lookup ran that the exercise asks for
    def fix_city(app, config, city):
        return app.invoke(None, app.update_state(config, {"city": city}, as_node=START))

    verdict = lesson07.check_fix_city(fix_city)
    assert not verdict
    assert "edited the last checkpoint" in verdict.message
    assert "already finished" in verdict.message and "('lookup',)" in verdict.hint


def test_fix_city_with_a_new_run():
    def fix_city(app, config, city):
        return app.invoke({"city": city}, config)

    verdict = lesson07.check_fix_city(fix_city)
    assert not verdict
    assert "no `update` checkpoint" in verdict.message and "new run" in verdict.message


def test_fix_city_updating_then_resuming_with_new_input_is_a_new_run():
    # the report comes out right, but from the new input: the edit was never resumed
    def fix_city(app, config, city):
        before = next(s for s in app.get_state_history(config) if s.next == ("lookup",))
        edited = app.update_state(before.config, {"city": city})
        return app.invoke({"city": city}, edited)

    verdict = lesson07.check_fix_city(fix_city)
    assert not verdict
    assert "new input" in verdict.message and "2 input steps" in verdict.message
    assert "not from your update" in verdict.message
    assert "invoke(None" in verdict.hint


def test_fix_city_with_a_new_run_before_its_update_does_not_say_the_run_came_after():
    # the new input ran first and the update came last: "after it" would be false
    def fix_city(app, config, city):
        app.invoke({"city": city}, config)
        app.update_state(config, {"city": city})

    verdict = lesson07.check_fix_city(fix_city)
    assert not verdict
    assert "2 input steps" in verdict.message and "after it" not in verdict.message
    assert "before your update" in verdict.message


# -- 7.3 · Read the history


def two_turn_chat():
    def chat(state):
        last = state["messages"][-1].content
        return {"messages": [("assistant", f"You said {last!r} ({len(state['messages'])})")]}

    builder = StateGraph(MessagesState).add_node("chat", chat)
    app = (
        builder.add_edge(START, "chat").add_edge("chat", END).compile(checkpointer=InMemorySaver())
    )
    config = {"configurable": {"thread_id": "quiz"}}
    app.invoke({"messages": [("user", "Hi, I'm Ada")]}, config)
    app.invoke({"messages": [("user", "What's my name?")]}, config)
    return app, config


def test_history_passes_on_the_solution():
    app, config = two_turn_chat()
    verdict = lesson07.check_history(app, config, **solutions.HISTORY_ANSWERS)
    assert verdict, verdict.message
    assert "6 checkpoints" in verdict.message


def test_history_stub():
    app, config = two_turn_chat()
    verdict = lesson07.check_history(app, config, checkpoints=0, replay_step=0)  # the stub
    assert not verdict
    assert "You said 0 checkpoints" in verdict.message and "holds more" in verdict.message
    assert "6" not in verdict.message  # the answer is not given away


def test_history_counting_the_supersteps_of_one_turn():
    app, config = two_turn_chat()
    verdict = lesson07.check_history(app, config, checkpoints=3, replay_step=3)
    assert not verdict
    assert "one turn's worth" in verdict.message and "2 turns" in verdict.message


def test_history_giving_the_step_in_which_chat_ran():
    app, config = two_turn_chat()
    verdict = lesson07.check_history(app, config, checkpoints=6, replay_step=4)
    assert not verdict
    assert "step 4 is the step in which chat ran" in verdict.message


def test_history_giving_the_first_turn():
    app, config = two_turn_chat()
    verdict = lesson07.check_history(app, config, checkpoints=6, replay_step=0)
    assert not verdict
    assert "first question, not the second" in verdict.message
    assert "step 3" not in verdict.message  # the answer is not given away


def test_history_giving_the_input_step_of_the_second_turn():
    app, config = two_turn_chat()
    verdict = lesson07.check_history(app, config, checkpoints=6, replay_step=2)
    assert not verdict
    # replaying it does re-run chat, so "not the one before chat" alone read as false
    assert "step 2 (next ('__start__',)" in verdict.message
    assert "runs chat again, but __start__ first" in verdict.message


def test_history_on_an_empty_thread():
    app, _ = two_turn_chat()
    verdict = lesson07.check_history(app, {"configurable": {"thread_id": "nobody"}}, 6, 3)
    assert not verdict
    assert "0 turns;" in verdict.message


def test_history_leaving_out_the_input_steps():
    app, config = two_turn_chat()
    verdict = lesson07.check_history(app, config, checkpoints=4, replay_step=3)
    assert not verdict
    assert "left out the input steps" in verdict.message


def test_replay_through_an_empty_update_is_named():
    def replay_from(app, config, node):
        before = next(s for s in app.get_state_history(config) if s.next == (node,))
        return app.invoke(None, app.update_state(before.config, {}))

    verdict = lesson07.check_replay(replay_from)
    assert not verdict
    assert "from a checkpoint you made with update_state" in verdict.message
    assert "nothing was replayed" not in verdict.message


def _quiz():
    def chat(state: MessagesState) -> dict:
        return {"messages": [("ai", "hello")]}

    builder = StateGraph(MessagesState)
    builder.add_node("chat", chat)
    builder.add_edge(START, "chat")
    builder.add_edge("chat", END)
    app = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "quiz"}}
    app.invoke({"messages": [("user", "Hi")]}, config)
    app.invoke({"messages": [("user", "Again")]}, config)
    return app, config


def test_history_takes_numbers_typed_as_strings_and_names_a_missing_answer():
    app, config = _quiz()
    assert lesson07.check_history(app, config, checkpoints="6", replay_step=" 3")
    verdict = lesson07.check_history(app, config, checkpoints=None, replay_step=None)
    assert not verdict
    assert verdict.message == "checkpoints is None; give a count of checkpoints, a whole number."
    verdict = lesson07.check_history(app, config, checkpoints=6, replay_step="three")
    assert not verdict and "replay_step is 'three'" in verdict.message


def test_history_names_an_app_or_a_config_of_the_wrong_kind():
    # it said "Your code raised AttributeError: 'NoneType' object has no attribute
    # 'get_state_history'", or "'CompiledGraph' object has no attribute 'get'"
    app, config = _quiz()
    hint = (
        "Pass the lesson's quiz_app (compiled with its checkpointer), then quiz, its "
        "thread's config: check_history(quiz_app, quiz, checkpoints=checkpoints, "
        "replay_step=replay_step)."
    )
    for given, shown in [
        (None, "None"),
        ("app", "the str 'app'"),
        (StateGraph, "the class StateGraph"),
        (StateGraph(MessagesState), "a StateGraph"),
    ]:
        verdict = lesson07.check_history(given, config, 6, 3)
        assert verdict.message == (
            f"check_history() got {shown} as app: it reads the thread's checkpoints with "
            "app.get_state_history(config)."
        )
        assert verdict.hint == hint
    verdict = lesson07.check_history(app, app, 6, 3)
    assert verdict.message == (
        "check_history() got a CompiledGraph as config, where the thread's config goes, "
        "e.g. {'configurable': {'thread_id': 'quiz'}}."
    )
    assert verdict.hint == hint


@pytest.mark.parametrize("answer", [4, 5])
def test_history_giving_the_last_step_as_the_count(answer):
    """The history table is indexed by step (-1 to 4): a learner who reads its last
    index, or one past it, as the count is told a step is not a count."""
    app, config = two_turn_chat()
    verdict = lesson07.check_history(app, config, checkpoints=answer, replay_step=3)
    assert not verdict
    assert f"{answer} is" in verdict.message and "steps start at -1" in verdict.message
    assert "6" not in verdict.message  # the answer is not given away


def test_a_stream_returned_unread_is_told_it_never_ran():
    # "Invoking the latest checkpoint ... has nothing left to run" named what 7.1's
    # answer did not do; 7.2's said "resume with app.invoke", as if it never tried
    def before(app, config, node):
        return next(s for s in app.get_state_history(config) if s.next == (node,))

    def replay_from(app, config, node):
        return app.stream(None, before(app, config, node).config)

    def fix_city(app, config, city):
        fixed = app.update_state(before(app, config, "lookup").config, {"city": city})
        return app.stream(None, fixed)

    for verdict in (lesson07.check_replay(replay_from), lesson07.check_fix_city(fix_city)):
        assert not verdict
        assert "returned app.stream(...) unread: a stream runs" in verdict.message
        assert "Invoking the latest checkpoint" not in verdict.message
        assert "list(app.stream(...))" in verdict.hint


def test_history_guess_of_one_checkpoint_reads_in_the_singular():
    app, config = two_turn_chat()
    verdict = lesson07.check_history(app, config, checkpoints=1, replay_step=0)
    assert not verdict and "You said 1 checkpoint;" in verdict.message
