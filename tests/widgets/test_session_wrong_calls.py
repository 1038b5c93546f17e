"""DebugSession called as a careless notebook user calls it: a misspelt node, an index
typed as text, a resume with nothing waiting. Each is refused or told at the call,
naming what was wrong and what to write, and the session goes on stepping after it."""

from __future__ import annotations

import pytest

from graphkit import END, START, GraphkitWarning
from graphkit.widgets import DebugSession
from tests.widgets.graphs import asking_app, chain_app

INPUT = {"n": 1, "log": []}


@pytest.fixture
def session():
    return DebugSession(chain_app(), INPUT)


def still_steps(session: DebugSession) -> None:
    before = len(session.supersteps)
    session.step()
    assert len(session.supersteps) == before + 1 and session.status == "running"


# -- node names -----------------------------------------------------------------------------


@pytest.mark.parametrize(("typed", "meant"), [("B", "b"), ("C", "c")])
def test_a_misspelt_breakpoint_names_the_node_meant(session, typed, meant):
    with pytest.raises(ValueError) as caught:
        session.set_breakpoints([typed])
    assert str(caught.value) == (
        f"No node named [{typed!r}] (did you mean {meant!r}?); breakpoints go on nodes: "
        "['__start__', 'a', 'b', 'c']."
    )
    assert session.breakpoints == frozenset()
    still_steps(session)


def test_a_breakpoint_on_end_says_nothing_runs_there(session):
    with pytest.raises(ValueError) as caught:
        session.set_breakpoints([END])
    assert str(caught.value) == (
        "No node named ['__end__'] (END is where a run stops, not a node that runs: put "
        "the breakpoint on the node before it); breakpoints go on nodes: "
        "['__start__', 'a', 'b', 'c']."
    )
    session.set_breakpoints([START])  # (START is a node: the step after the input runs it)
    assert session.breakpoints == {START}


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (None, "breakpoints take a list of node names, got None: write [] for none."),
        ([["a"]], "breakpoints take a list of node names, got [['a']]: write ['a']."),
        (3, "breakpoints take a list of node names, got 3: write e.g. ['a']."),
    ],
)
def test_breakpoints_of_the_wrong_shape_are_refused_by_name(session, given, said):
    # None said "'NoneType' object is not iterable", a nested list "unhashable type"
    with pytest.raises(TypeError) as caught:
        session.set_breakpoints(given)
    assert str(caught.value) == said
    still_steps(session)


def test_select_names_the_node_meant_and_refuses_a_list(session):
    with pytest.raises(ValueError, match=r"\. Did you mean 'b'\?$"):
        session.select("B")
    with pytest.raises(TypeError) as caught:
        session.select(["a"])  # (it said "unhashable type: 'list'")
    assert str(caught.value) == "select() takes one node's name, got ['a']: write 'a'."
    session.select("a")
    assert session.selected == "a"


# -- indexes and step numbers --------------------------------------------------------------


@pytest.mark.parametrize("method", ["goto", "rewind"])
def test_an_index_typed_as_text_is_refused_by_name(session, method):
    session.step(), session.step()
    # (it raised "'<=' not supported between instances of 'int' and 'str'")
    with pytest.raises(TypeError) as caught:
        getattr(session, method)("0")
    assert str(caught.value) == (
        f"{method}() takes an index, an int, got the str '0': write {method}(0)."
    )
    still_steps(session)


def test_goto_given_a_step_number_says_it_takes_a_position_and_which(session):
    # Appendix A1: "session.goto(3) # position 3, step 2"; a learner after step -1 typed
    # goto(-1) and was told only "No superstep at index -1; there are 5."
    with pytest.raises(IndexError) as caught:
        session.goto(0)
    assert str(caught.value) == (
        "No superstep at index 0: nothing is recorded yet. Step the session first (session.step())."
    )
    session.run()
    with pytest.raises(IndexError) as caught:
        session.goto(-1)
    assert str(caught.value) == (
        "No superstep at index -1: goto() takes a position in the recorded run, 0 to 4 "
        "(steps -1 to 3), not counted from the end (the last is goto(4)); to show step "
        "-1, write goto(0)."
    )
    with pytest.raises(IndexError, match=r"^No superstep at index 9: goto\(\) takes a .*3\)\.$"):
        session.goto(9)
    with pytest.raises(IndexError) as caught:
        session.rewind(-1)
    assert str(caught.value) == (
        "No applied step at index -1: rewind() takes a position among the applied steps, "
        "0 to 4 (steps -1 to 3), not counted from the end (the last is rewind(4)); to go "
        "back to just after step -1, write rewind(0)."
    )
    session.goto(4)  # (in range: it looks, as before)
    assert session.view().step == 3


def test_goto_and_rewind_out_of_range_say_only_true_things(session):
    # review11: after a Plan, goto(0) shows the planned step, but rewind(0) was told
    # "nothing is recorded yet"; goto(-1) meaning Python's "the last" was pointed only
    # at step -1 (the input step)
    session.plan()
    with pytest.raises(IndexError) as caught:
        session.rewind(0)
    assert str(caught.value) == (
        "No applied step at index 0: no step's Update has been applied yet. Step the "
        "session first (session.step())."
    )
    session.run()
    with pytest.raises(IndexError) as caught:
        session.goto(-1)
    assert str(caught.value) == (
        "No superstep at index -1: goto() takes a position in the recorded run, 0 to 4 "
        "(steps -1 to 3), not counted from the end (the last is goto(4)); to show step "
        "-1, write goto(0)."
    )
    with pytest.raises(IndexError) as caught:
        session.rewind(-2)
    assert str(caught.value) == (
        "No applied step at index -2: rewind() takes a position among the applied steps, "
        "0 to 4 (steps -1 to 3), not counted from the end (the last is rewind(4))."
    )


def test_predict_a_step_typed_as_text_is_refused_not_judged(session):
    # it said "This guess is about step 2, but the session is at step -1"
    with pytest.raises(TypeError, match=r"^predict\(step=\.\.\.\) takes a step number"):
        session.predict(nodes=["__input__"], step="-1")
    assert session.predictions == ()
    assert session.predict(nodes=["__input__"], step=-1).correct


# -- predict with the wrong type -------------------------------------------------------------


@pytest.mark.parametrize(
    ("nodes", "said"),
    [
        (5, "predict(nodes=...) takes a list of node names, got 5: write nodes=['a']."),
        (
            [5],
            "predict(nodes=...) takes a list of node names, got [5]: 5 is no node's name; "
            "write e.g. nodes=['a'].",
        ),
    ],
)
def test_predict_nodes_of_the_wrong_type_is_refused_at_the_call(session, nodes, said):
    session.step(), session.step()
    with pytest.raises(TypeError) as caught:
        session.predict(nodes=nodes)
    assert str(caught.value) == said
    assert session.predictions == () and session.next_phase == "plan"
    assert session.predict(nodes=["a"]).correct


def test_predict_a_channel_that_is_no_str_is_not_quoted_as_one(session):
    session.step(), session.step()
    session.plan()
    with pytest.raises(TypeError) as caught:
        session.predict(channel=3, value=1)  # (it said "No state channel '3'")
    assert str(caught.value) == (
        "predict(channel=...) takes a state key's name, a str, got the int 3; the state's "
        "keys are ['n', 'log']."
    )
    assert session.predict(channel="n", value=3).correct


# -- resume with nothing waiting ------------------------------------------------------------


def test_resume_with_nothing_waiting_says_so_where_it_was_called(session):
    # it set only session.message: a notebook cell showed nothing at all
    with pytest.warns(GraphkitWarning) as warned:
        session.resume("yes")
    assert str(warned[0].message) == (
        "session.resume() resumed nothing: the run is running and no interrupt() waits for "
        "an answer. Call session.step() or session.run() to go on."
    )
    still_steps(session)


def test_resume_twice_is_told_the_second_time():
    session = DebugSession(asking_app(), {"n": 1})
    session.run()
    session.resume("yes")
    with pytest.warns(GraphkitWarning, match=r"^session\.resume\(\) resumed nothing: the run is"):
        session.resume("yes")
    assert session.run().values == {"n": 20, "answer": "yes"}
    with pytest.warns(GraphkitWarning) as warned:
        session.resume("again")
    assert str(warned[0].message) == (
        "session.resume() resumed nothing: the run is over (done). session.back() goes back "
        "a step; session.reset() starts again."
    )


def test_step_at_an_interrupt_says_to_resume_not_that_the_run_is_over():
    # session.step() at an interrupt returned the last superstep as if it had run; a
    # phase called there was told "the run is over (interrupted)", which it is not
    session = DebugSession(asking_app(), {"n": 1})
    session.run()
    for call in (session.step, session.plan):
        with pytest.warns(GraphkitWarning) as warned:
            assert call() is None
        assert str(warned[0].message).endswith(
            "ran nothing: the run is paused at an interrupt(), waiting for its answer. "
            "Call session.resume(answer) to go on; session.back() goes back a step."
        )
    session.resume("yes")
    assert session.run().values == {"n": 20, "answer": "yes"}


def test_a_pause_is_not_called_over_and_a_compiled_breakpoint_asks_no_answer():
    # review11: at an interrupt() the session's message (the widget's line) still read
    # "The run is over (interrupted): use Back or Reset", under a warning saying to
    # resume; at a compiled interrupt_before the warning spoke of an interrupt() and its
    # answer, where nothing is asked and resume() takes none
    from graphkit import InMemorySaver

    asking = DebugSession(asking_app(), {"n": 1})
    asking.run()
    with pytest.warns(GraphkitWarning):
        asking.step()
    assert asking.message == (
        "The run is paused at an interrupt(), waiting for its answer: Resume goes on; "
        "Back or Reset go back."
    )
    app = chain_app(checkpointer=InMemorySaver())
    app.interrupt_before = ("b",)
    paused = DebugSession(app, INPUT)
    paused.run()
    assert paused.status == "interrupted"
    with pytest.warns(GraphkitWarning) as warned:
        assert paused.step() is None
    assert str(warned[0].message) == (
        "session.step() ran nothing: the run is paused by a compiled breakpoint "
        "(interrupt_before/interrupt_after), which asks nothing. Call session.resume() to "
        "go on; session.back() goes back a step."
    )
    assert paused.message == (
        "The run is paused by a compiled breakpoint: Resume goes on; Back or Reset go back."
    )
    paused.resume()
    assert paused.run().values["log"] == ["a", "b", "c"]


# -- the config -------------------------------------------------------------------------------


def test_a_config_that_is_no_dict_is_refused_naming_the_config():
    # it said "dictionary update sequence element #0 has length 1; 2 is required"
    with pytest.raises(TypeError) as caught:
        DebugSession(chain_app(), INPUT, "t1")
    assert str(caught.value) == (
        "A run's config must be a dict, got str 't1'. For a thread, write "
        "{'configurable': {'thread_id': ...}}."
    )


def test_a_thread_id_beside_configurable_is_the_thread_the_session_steps_on():
    """A run takes {'thread_id': 't1'} as LangGraph's do (it goes under configurable):
    the session named a thread of its own while every step was saved on 't1', so it read
    its origin, state and history from a thread nothing ran on."""
    from graphkit.checkpoint import InMemorySaver

    app = chain_app(checkpointer=InMemorySaver())
    session = DebugSession(app, INPUT, {"thread_id": "t1"})
    assert session.thread_id == "t1"
    session.run()
    assert app.get_state({"configurable": {"thread_id": "t1"}}).values == session.values
