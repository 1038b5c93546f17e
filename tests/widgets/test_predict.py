"""Predict, then reveal, on a DebugSession: the phase runs, the truth is compared and
explained in the words of ``why``, and the score counts."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from graphkit import END, START, InvalidUpdateError, Send, StateGraph
from graphkit.channels import Topic
from graphkit.inspect.examples import forecast_graph
from graphkit.widgets import DebugSession


def _at_step_2() -> DebugSession:
    session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    for _ in range(3):  # the input step, __start__, planner
        session.step()
    return session


def test_a_right_node_prediction_runs_the_plan_and_says_why():
    session = _at_step_2()
    prediction = session.predict(nodes=["weather", "news"])
    assert prediction.correct and prediction.kind == "nodes" and prediction.step == 2
    assert prediction.expected == ["news", "weather"]
    assert session.next_phase == "execute"  # the Plan ran
    assert prediction.explanation.splitlines()[0] == "Right: step 2 runs news, weather."
    assert "planner wrote branch:to:weather in step 1" in prediction.explanation


def test_a_wrong_node_prediction_explains_each_node_it_got_wrong():
    prediction = _at_step_2().predict(nodes=["weather", "summarize"])
    assert not prediction.correct and prediction.expected == ["news", "weather"]
    text = prediction.explanation
    assert text.startswith(
        "Not quite: step 2 runs news, weather; you predicted summarize, weather."
    )
    assert "summarize did not run at step 2: the waiting edge" in text
    assert text.count("← you predicted otherwise") == 2  # news missed, summarize extra


def test_a_channel_prediction_names_the_writes_and_the_reducer():
    session = _at_step_2()
    session.plan()
    prediction = session.predict(channel="tokens", value=150)
    assert not prediction.correct and prediction.expected == 200
    assert prediction.channel == "tokens" and session.next_phase == "plan"  # Update ran
    assert "50 from news, 50 from weather" in prediction.explanation
    assert "the Update combined the 2 writes with add: 100 → 200" in prediction.explanation


def test_a_channel_nobody_wrote_keeps_its_value():
    session = _at_step_2()
    session.plan()
    session.execute()
    prediction = session.predict(channel="topic", value="today")
    assert prediction.correct
    assert "No task wrote topic in step 2, so it kept its value." in prediction.explanation


def test_predicting_the_conflict_of_a_plain_channel():
    class State(TypedDict):
        x: int

    builder = StateGraph(State)
    builder.add_node("a", lambda state: {"x": 1})
    builder.add_node("b", lambda state: {"x": 2})
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    session = DebugSession(builder.compile(), {"x": 0})
    session.step(), session.step(), session.plan()
    wrong = DebugSession(builder.compile(), {"x": 0})
    wrong.step(), wrong.step(), wrong.plan()
    right = session.predict(channel="x", value=InvalidUpdateError)
    assert right.correct and isinstance(right.expected, InvalidUpdateError)
    assert "step 1's Update failed" in right.explanation
    assert "a and b each wrote x, a plain key (a LastValue channel)" in right.explanation
    assert not wrong.predict(channel="x", value=2).correct


def test_a_failed_update_is_predicted_by_the_errors_name_as_typed_in_the_widget():
    """The widget's value box sends text: 'InvalidUpdateError' typed there was scored
    wrong beside a reveal naming InvalidUpdateError, and the reveal never said what was
    guessed."""
    predictions = []
    for guess in ("InvalidUpdateError", "ValueError", 2, InvalidUpdateError):
        session = DebugSession(forecast_conflict(), {"x": 0})
        session.step(), session.step(), session.plan()
        predictions.append(session.predict(channel="x", value=guess))
    assert [p.correct for p in predictions] == [True, False, False, True]
    assert "holds no new value (you predicted 'InvalidUpdateError')." in predictions[0].explanation
    assert "(you predicted 2)." in predictions[2].explanation
    assert "(you predicted InvalidUpdateError)." in predictions[3].explanation


def test_a_base_every_error_has_is_no_answer_to_a_failed_update():
    """Exception (or 'BaseException' typed in the box) was scored right beside an
    InvalidUpdateError: a learner could pass lessons 03 and 10 without knowing it."""
    for guess in (Exception, BaseException, "Exception", "BaseException", " object"):
        session = DebugSession(forecast_conflict(), {"x": 0})
        session.step(), session.step(), session.plan()
        assert not session.predict(channel="x", value=guess).correct, guess


def forecast_conflict():
    """Two nodes write the plain key x in step 1."""

    class State(TypedDict):
        x: int

    builder = StateGraph(State)
    builder.add_node("a", lambda state: {"x": 1})
    builder.add_node("b", lambda state: {"x": 2})
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    return builder.compile()


def test_the_score_counts_every_prediction_and_survives_reset():
    session = _at_step_2()
    session.predict(nodes=["news", "weather"])
    session.predict(channel="tokens", value=0)
    session.predict(nodes=["summarize"])
    assert (session.score.right, session.score.asked) == (2, 3)
    session.reset()
    assert str(session.score) == "2 of 3 predictions right"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.predict(), "takes either nodes"),
        (lambda s: s.predict(nodes=["x"], channel="tokens", value=1), "takes either nodes"),
        (lambda s: s.predict(channel="tokens"), "needs the value you expect"),
        (lambda s: s.predict(nodes=["nope"]), "No node named ['nope']"),
        (lambda s: s.predict(nodes=["__input__"]), "runs only in the input step"),
        # lesson 06: "the model answers, so the run ends at step 3"
        (lambda s: s.predict(nodes=["__end__"]), "END is where a run stops, not a node"),
        (lambda s: s.predict(nodes=["END"]), "for a step that runs no node, predict []"),
        (lambda s: s.predict(channel="nope", value=1), "No state channel 'nope'"),
        (lambda s: s.predict(channel="tokens", value=1), "step 2 is before plan: press Plan"),
    ],
)
def test_a_prediction_at_the_wrong_time_or_of_an_unknown_name_is_refused(call, message):
    session = _at_step_2()
    with pytest.raises((TypeError, ValueError), match=message.replace("[", r"\[")):
        call(session)
    assert session.score.asked == 0 and session.next_phase == "plan"  # nothing ran


def test_a_prediction_at_the_wrong_time_after_back_numbers_the_step_as_the_labels_do():
    """Appendix A1 promises the replayed step is "step 3" everywhere; after its Back, a
    guess at the wrong time was told "step 4 is before plan" (LangGraph's number), and
    "press Plan" with no word of the call to make in code."""
    session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    session.set_breakpoints(["summarize"])
    session.run(), session.run()
    session.back()  # step 3 runs again: LangGraph's step 4
    with pytest.raises(ValueError) as caught:
        session.predict(channel="summary", value="sunny; market up")
    assert str(caught.value) == (
        "Predict a channel's value after Plan and before Update; step 3 is before plan: "
        "press Plan (session.plan()) first."
    )
    session.plan()
    with pytest.raises(ValueError) as caught:
        session.predict(nodes=["summarize"])
    assert str(caught.value) == (
        "Predict which nodes run before Plan; step 3 is before execute: press Step "
        "(session.step()) first."
    )


def test_predicting_a_tool_as_a_node_names_the_node_that_runs_it():
    # Lesson 06: the model's answer asks for multiply, and a learner predicts
    # ["multiply"] for the next step; the refusal listed only the graph's nodes.
    pytest.importorskip("langchain_core")
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool

    from graphkit.prebuilt import ScriptedChatModel, create_react_agent

    @tool
    def multiply(a: int, b: int) -> int:
        """Multiply a and b."""
        return a * b

    call = {"name": "multiply", "args": {"a": 6, "b": 7}, "id": "call-1"}
    model = ScriptedChatModel(responses=[AIMessage("", tool_calls=[call]), "42"])
    session = DebugSession(
        create_react_agent(model, [multiply]), {"messages": [HumanMessage("6 × 7?")]}
    )
    for _ in range(3):  # the input step, __start__, agent
        session.step()
    with pytest.raises(ValueError) as refused:
        session.predict(nodes=["multiply"])
    assert str(refused.value) == (
        "No node named ['multiply'] (multiply is a tool, run by the node tools); the "
        "graph's nodes are ['__start__', 'agent', 'tools']."
    )
    # Beside END, each name keeps its own note (the tool's replaced END's).
    with pytest.raises(
        ValueError, match=r"predict \[\]; multiply is a tool, run by the node tools\)"
    ):
        session.predict(nodes=["multiply", END])
    assert session.predict(nodes=["tools"]).correct


class Notes(TypedDict):
    question: str
    notes: Annotated[list, operator.add]


def test_predicting_a_subgraph_node_names_the_node_that_runs_the_subgraph():
    # Lesson 05: research is a compiled graph added as a node; a learner predicts its
    # inner node look_up, and the refusal listed only the parent's nodes.
    child = StateGraph(Notes).add_node("look_up", lambda state: {"notes": ["found"]})
    parent = StateGraph(Notes).add_node("research", child.add_edge(START, "look_up").compile())
    session = DebugSession(parent.add_edge(START, "research").compile(), {"question": "q"})
    session.step()  # the input step
    session.step()  # __start__
    with pytest.raises(ValueError) as refused:
        session.predict(nodes=["look_up"])
    assert str(refused.value) == (
        "No node named ['look_up'] (look_up is a node of the subgraph that the node research "
        "runs, as one task); the graph's nodes are ['__start__', 'research']."
    )
    assert session.score.asked == 0
    assert session.predict(nodes=["research"]).correct


def test_predicting_a_nested_subgraphs_node_names_the_path_of_nodes_that_runs_it():
    # the hint looked only at the direct subgraphs: a grandchild's node got no note
    grandchild = StateGraph(Notes).add_node("dig", lambda state: {"notes": ["deep"]})
    child = StateGraph(Notes).add_node("deep", grandchild.add_edge(START, "dig").compile())
    parent = StateGraph(Notes).add_node("research", child.add_edge(START, "deep").compile())
    session = DebugSession(parent.add_edge(START, "research").compile(), {"question": "q"})
    session.step()  # the input step
    session.step()  # __start__
    with pytest.raises(ValueError) as refused:
        session.predict(nodes=["dig"])
    assert str(refused.value) == (
        "No node named ['dig'] (dig is a node of a subgraph inside the node research "
        "(research → deep → dig), which runs as one task); the graph's nodes are "
        "['__start__', 'research']."
    )
    with pytest.raises(ValueError, match="deep is a node of the subgraph that the node research"):
        session.predict(nodes=["deep"])
    assert session.score.asked == 0


def test_several_names_in_one_text_are_told_to_be_a_list():
    # "No node named ['weather, news']" said nothing of the list that was meant
    session = _at_step_2()
    with pytest.raises(ValueError, match=r"\('weather, news' is one text: predict a list, "):
        session.predict(nodes="weather, news")
    assert session.predict(nodes=["weather", "news"]).correct


def test_a_case_slip_in_a_predicted_name_is_suggested():
    session = _at_step_2()
    with pytest.raises(ValueError) as refused:
        session.predict(nodes=["Weather", "news"])
    assert str(refused.value) == (
        "No node named ['Weather'] (did you mean 'weather'?); the graph's nodes are "
        "['__start__', 'news', 'planner', 'summarize', 'weather']."
    )
    with pytest.raises(ValueError, match=r"for 'Weather', did you mean 'weather'\?"):
        session.predict(nodes=["Weather", "Nwes"])
    session.plan()
    with pytest.raises(ValueError, match=r"channels are .*\. Did you mean 'tokens'\?$"):
        session.predict(channel="Tokens", value=200)
    assert session.score.asked == 0


def test_a_plain_keys_reveal_needs_no_channel_kind_lesson_02_has_not_taught():
    # lesson 02's Q1 (forecast, one write) said "the Update applied it (LastValue)";
    # LastValue is lesson 03's word
    session = _at_step_2()
    session.plan()
    prediction = session.predict(channel="forecast", value="sunny")
    assert prediction.correct
    assert "LastValue" not in prediction.explanation
    assert "wrote 'sunny' from weather; the Update stored it: <empty> → 'sunny'." in (
        prediction.explanation
    )
    session.plan()
    session.execute()
    again = session.predict(channel="summary", value="?").explanation
    assert "the Update stored it: <empty> → " in again


def test_the_input_step_and_step_0_can_be_predicted_and_the_verdict_says_what_they_do():
    session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    first = session.predict(nodes=["__input__"])  # the input step's one task
    assert first.correct and first.step == -1
    session.step()
    wrong = session.predict(nodes=["planner"])  # the node after START: a step too early
    assert not wrong.correct and wrong.expected == ["__start__"]
    assert wrong.explanation.splitlines()[1] == (
        "- Step 0 runs only __start__, the run's own first task, before any node of yours: "
        "it copies the input into the state and follows the edge START → planner by writing "
        "branch:to:planner; a write becomes visible only in the next step, so planner runs "
        "in step 1."
    )
    session.back()
    session.back()
    # said once: each guessed node's why said "it is the input step" again, twice over
    assert session.predict(nodes=["planner"]).explanation.splitlines() == [
        "Not quite: step -1 runs __input__; you predicted planner.",
        "- Step -1 is the input step: its one task, __input__, writes your input to the "
        "channel __start__, and no node runs beside it. Step 0 runs __start__, which copies "
        "the input into the state; your nodes run from step 1.",
    ]


def test_predicting_nodes_after_the_run_ended_says_so():
    session = _at_step_2()
    session.run()
    with pytest.raises(ValueError, match=r"the run is over \(done\)"):
        session.predict(nodes=["summarize"])


def test_a_right_guess_of_no_node_says_why_the_run_finished():
    """Every right guess says why; for the empty last Plan no node's why says it."""
    session = _at_step_2()
    session.step(), session.step()  # steps 2 and 3 (summarize)
    prediction = session.predict(nodes=[])
    assert prediction.correct and prediction.expected == []
    assert prediction.explanation.splitlines() == [
        "Right: step 4 runs no node.",
        "- Step 4 planned no task: step 3's Update changed no trigger channel, so the run "
        "finished.",
    ]


def test_the_reveal_card_says_right_or_wrong_once():
    html = _at_step_2().predict(nodes=["summarize"])._repr_html_()
    assert "gk-reveal gk-reveal-wrong" in html
    assert html.count("Not quite") == 1 and "step 2 runs news, weather; you predicted" in html


def test_the_reveal_card_lists_each_nodes_reason_as_why_does():
    # the card showed the text as it is, "- news is planned…" and "    · branch:to:news
    # was written…", beside why's bulleted card for the same reasons
    prediction = _at_step_2().predict(nodes=["weather"])
    lines = str(prediction.explanation).splitlines()
    assert lines[1].startswith("- news is planned") and lines[2].startswith("    · ")
    html = prediction._repr_html_()
    assert "<li>news is planned to run at step 2 because planner wrote" in html
    assert "<ul" in html.split("<li>news is planned", 1)[1].split("</li>", 1)[0]
    assert "- news" not in html and "· branch" not in html
    assert '<span style="white-space:nowrap">← you predicted otherwise</span>' in html


def test_predicting_again_right_after_a_reveal_judges_the_same_phase():
    """A notebook cell run again with a corrected guess: nothing runs twice, the same
    step is judged, and only the first try counts (the retry knows the answer)."""
    session = _at_step_2()
    first = session.predict(nodes=["weather"])
    position = (len(session.supersteps), session.next_phase)
    second = session.predict(nodes=["weather", "news"])
    assert (first.correct, second.correct, second.step) == (False, True, 2)
    assert (len(session.supersteps), session.next_phase) == position  # no second Plan
    wrong = session.predict(channel="tokens", value=150)
    right = session.predict(channel="tokens", value=200)
    assert (wrong.correct, right.correct, right.step, session.values["tokens"]) == (
        False,
        True,
        2,
        200,
    )
    assert str(session.score) == "0 of 2 predictions right"
    session.step()  # the run moved on: a prediction is of the new position again
    with pytest.raises(ValueError, match=r"press Plan \(session.plan\(\)\) first"):
        session.predict(channel="tokens", value=200)


def test_a_second_try_says_it_is_not_counted_in_the_score():
    """Appendix A1's predict cells, edited and run again with the right answer: the
    reveal said "Right: ..." and the score printed under it did not move, without a
    word why. The second try says it knew the answer and does not count."""
    session = _at_step_2()
    first = session.predict(nodes=["weather"])
    assert "score" not in first.explanation  # a first try counts: nothing to add
    second = session.predict(nodes=["news", "weather"])
    assert second.explanation.splitlines()[-1] == (
        "A second try at step 2's Plan, made after its answer was shown: "
        "it does not change the score (0 of 1 predictions right)."
    )
    assert "does not change the score" in second._repr_html_()
    session.predict(channel="tokens", value=100)
    again = session.predict(channel="tokens", value=200)
    assert again.correct and again.explanation.splitlines()[-1] == (
        "A second try at step 2's Update, made after its answer was shown: "
        "it does not change the score (0 of 2 predictions right)."
    )


def test_the_same_guess_again_reads_as_it_did_the_first_time():
    """A predict cell run again, unchanged, is not a second try: the course's cells show
    the same when run twice (a changed guess, above, is told it does not count)."""
    session = _at_step_2()
    first = session.predict(nodes=["weather"])
    again = session.predict(nodes=["weather"])
    assert again.explanation == first.explanation
    changed = session.predict(nodes=["news", "weather"])
    assert "does not change the score" in changed.explanation
    assert "does not change the score" in session.predict(nodes=["news", "weather"]).explanation
    assert str(session.score) == "0 of 1 predictions right"


def test_a_node_listed_more_often_than_it_runs_is_a_wrong_prediction():
    # lesson 02 asks "which nodes will step 3 run, and how many times?": a learner who
    # thinks summarize runs once per edge into it lists it twice
    session = _at_step_2()
    session.plan(), session.execute(), session.update()
    prediction = session.predict(nodes=["summarize", "summarize"])
    assert not prediction.correct
    lines = prediction.explanation.splitlines()
    assert lines[0] == "Not quite: step 3 runs summarize; you predicted summarize, summarize."
    assert lines[1] == (
        "- you listed summarize 2 times; it runs once in step 3: one step wakes a node "
        "once, however many edges into it were written."
    )
    # It does run, as predicted: the line that says why is not marked "otherwise" too
    # (lesson 04's ['hotel_book', 'itinerary', 'itinerary'] read both at once).
    assert lines[2].startswith("- summarize is planned to run at step 3 because")
    assert "you predicted otherwise" not in prediction.explanation


def test_a_node_listed_twice_that_does_not_run_is_not_said_to_run_zero_times():
    session = _at_step_2()
    session.plan(), session.execute(), session.update()
    prediction = session.predict(nodes=["summarize", "news", "news"])
    assert not prediction.correct
    assert "news did not run at step 3" in prediction.explanation
    assert "0 times" not in prediction.explanation and "you listed" not in prediction.explanation


def test_a_node_sent_several_packets_may_be_listed_once_or_once_per_packet():
    from graphkit import Send

    class Jobs(TypedDict):
        jobs: list

    def build():
        builder = StateGraph(Jobs)
        builder.add_node("fan", lambda state: {})
        builder.add_node("work", lambda state: {})
        builder.add_edge(START, "fan")
        builder.add_conditional_edges("fan", lambda state: [Send("work", {}) for _ in range(3)])
        return builder.compile()

    for guess, correct in ((["work"], True), (["work"] * 3, True), (["work"] * 4, False)):
        session = DebugSession(build(), {"jobs": []})
        for _ in range(3):  # the input step, __start__, fan
            session.step()
        prediction = session.predict(nodes=guess)
        assert prediction.correct is correct, prediction.explanation
    assert "it runs 3 times in step 2: once per Send packet to it" in prediction.explanation


def test_a_list_with_the_right_items_in_another_order_says_the_order_is_the_tasks():
    # Lesson 04 asks for a Topic's list: ['itinerary', 'hotel_book'] has the items, not
    # the order, and the reveal said only what the channel holds.
    class Trip(TypedDict):
        seen: Annotated[list, Topic]

    builder = StateGraph(Trip)
    builder.add_node("plan", lambda state: {"seen": "plan"})
    builder.add_node("hotel", lambda state: {"seen": "hotel"})
    builder.add_node("flights", lambda state: {"seen": "flights"})
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "hotel")
    builder.add_edge("plan", "flights")
    session = DebugSession(builder.compile(), {"seen": []})
    for _ in range(3):  # the input step, __start__, plan
        session.step()
    session.plan()
    prediction = session.predict(channel="seen", value=["hotel", "flights"])
    assert not prediction.correct and prediction.expected == ["flights", "hotel"]
    assert (
        "You have the right items in another order: an Update applies a step's writes in "
        "the order of its tasks (here flights, then hotel)" in prediction.explanation
    )
    wrong_items = session.predict(channel="seen", value=["hotel", "plan"])
    assert "another order" not in wrong_items.explanation


class _Jokes(TypedDict, total=False):
    jokes: Annotated[list, operator.add]
    subject: str


def _jokes_at_their_update(*, edge: bool = False) -> DebugSession:
    """topics sends joke two packets (cats, owls), and with ``edge`` wakes it by an edge
    too; the session stands before joke's step's Execute."""
    builder = StateGraph(_Jokes)
    builder.add_node("topics", lambda state: {})
    builder.add_node("joke", lambda state: {"jokes": [state.get("subject", "plain")]})
    builder.add_edge(START, "topics")
    if edge:
        builder.add_edge("topics", "joke")
    builder.add_conditional_edges(
        "topics", lambda state: [Send("joke", {"subject": s}) for s in ("cats", "owls")]
    )
    session = DebugSession(builder.compile(), {"jokes": []})
    for _ in range(3):  # the input step, __start__, topics
        session.step()
    session.plan()
    return session


def test_the_order_note_counts_one_nodes_send_tasks_instead_of_repeating_its_name():
    # Lesson 05's jokes in finish order read "(here generate_joke, then generate_joke,
    # then generate_joke)": nothing about which task came first.
    prediction = _jokes_at_their_update().predict(channel="jokes", value=["owls", "cats"])
    assert not prediction.correct and prediction.expected == ["cats", "owls"]
    assert (
        "in the order of its tasks (here the 2 joke tasks in the order their Send packets "
        "were sent), whatever order they finished in" in prediction.explanation
    )


def test_the_order_note_names_each_write_of_a_node_woken_by_an_edge_and_by_sends():
    # a node with an edge from topics and two Send packets ran three tasks; the note
    # said "(here joke)", as if one task wrote all three items
    session = _jokes_at_their_update(edge=True)
    prediction = session.predict(channel="jokes", value=["owls", "cats", "plain"])
    assert not prediction.correct and sorted(prediction.expected) == ["cats", "owls", "plain"]
    assert "(here joke, then joke, then joke)" in prediction.explanation


def test_the_order_note_is_only_for_writes_that_met_in_the_update():
    # One writer's list, or a value no task wrote this step, has an order of its own:
    # "an Update applies a step's writes in the order of its tasks" was said of both.
    class Log(TypedDict):
        items: Annotated[list, operator.add]
        other: int

    builder = StateGraph(Log)
    builder.add_node("a", lambda state: {"items": ["x", "y"]})
    builder.add_node("b", lambda state: {"other": 1})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    session = DebugSession(builder.compile(), {"items": [], "other": 0})
    session.step(), session.step(), session.plan()
    one_writer = session.predict(channel="items", value=["y", "x"])
    session.plan()
    no_writer = session.predict(channel="items", value=["y", "x"])
    for prediction in (one_writer, no_writer):
        assert not prediction.correct and "another order" not in prediction.explanation


def test_the_order_note_is_not_for_items_the_channel_held_before():
    class Log(TypedDict):
        items: Annotated[list, operator.add]

    builder = StateGraph(Log)
    builder.add_node("a", lambda state: {"items": ["a"]})
    builder.add_node("b", lambda state: {"items": ["b"]})
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    old = DebugSession(builder.compile(), {"items": ["p", "q"]})
    old.step(), old.step(), old.plan()
    assert "another order" not in str(old.predict(channel="items", value=["q", "p", "a", "b"]))
    new = DebugSession(builder.compile(), {"items": ["p", "q"]})
    new.step(), new.step(), new.plan()
    assert "another order" in str(new.predict(channel="items", value=["p", "q", "b", "a"]))


def test_the_conflict_of_send_packets_counts_the_tasks_of_one_node():
    class Jokes(TypedDict):
        subjects: list
        best: str

    def fan_out(state):
        return [Send("joke", {"subjects": [s], "best": ""}) for s in state["subjects"]]

    builder = StateGraph(Jokes)
    builder.add_node("pick", lambda state: {})
    builder.add_node("joke", lambda state: {"best": state["subjects"][0]})
    builder.add_edge(START, "pick")
    builder.add_conditional_edges("pick", fan_out, ["joke"])
    session = DebugSession(builder.compile(), {"subjects": ["cats", "dogs", "owls"]})
    session.step(), session.step(), session.step(), session.plan()
    text = session.predict(channel="best", value=InvalidUpdateError).explanation
    assert "the 3 tasks of joke (one per Send packet) each wrote best, a plain key" in text
    assert "joke, joke" not in text


def _broken(left, right):
    raise ValueError("the reducer broke")


def test_a_conflict_is_not_blamed_for_an_update_another_error_stopped():
    class State(TypedDict):
        a: Annotated[int, _broken]
        x: int

    builder = StateGraph(State)
    builder.add_node("p", lambda state: {"a": 1, "x": 1})
    builder.add_node("q", lambda state: {"x": 2})
    builder.add_edge(START, "p")
    builder.add_edge(START, "q")
    session = DebugSession(builder.compile(), {"x": 0})
    session.step(), session.step(), session.plan()
    text = session.predict(channel="x", value=InvalidUpdateError).explanation
    assert "ValueError: the reducer broke" in text and "each wrote x" not in text


def test_a_node_named_end_is_not_told_that_end_is_where_a_run_stops():
    class State(TypedDict):
        x: int

    builder = StateGraph(State)
    builder.add_node("END", lambda state: {"x": 1})
    builder.add_edge(START, "END")
    session = DebugSession(builder.compile(), {"x": 0})
    session.step(), session.step()
    with pytest.raises(ValueError) as refused:
        session.predict(nodes=["END", "nope"])
    assert (
        str(refused.value) == "No node named ['nope']; the graph's nodes are ['END', '__start__']."
    )


def test_a_printed_prediction_is_wrapped_at_words():
    """The debugger tour prints a reveal: its 107-character line broke mid-word in
    JupyterLab. Printed, each line wraps at words under its bullet (the mark of a wrong
    node moves whole); ``explanation``, which the widget wraps, keeps one line each."""
    session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    for _ in range(3):
        session.step()
    printed = str(session.predict(nodes=["weather"])).splitlines()
    assert printed[1:3] == [
        "- news is planned to run at step 2 because planner wrote branch:to:news in step 1.",
        "  ← you predicted otherwise",
    ]
    value = session.predict(channel="tokens", value=200)
    assert str(value).splitlines()[1:] == [
        "Step 2's Execute wrote 50 from news, 50 from weather; the Update combined the 2 writes",
        "with add: 100 → 200.",
    ]
    assert len(value.explanation.splitlines()) == 2


def test_a_number_predicted_as_text_is_told_apart_from_the_number():
    """A guess of "220" for a channel holding 220 read "holds 220 (you predicted '220')":
    the one difference, the quotes, was left for the learner to spot."""
    session = _at_step_2()
    session.plan()
    prediction = session.predict(channel="tokens", value="200")
    assert not prediction.correct and prediction.expected == 200
    assert prediction.explanation.splitlines()[-1] == (
        "You predicted the text '200'; tokens holds the int 200. Write the value as Python "
        "would, without the quotes: 200."
    )


class _Held(TypedDict, total=False):
    nothing: object
    pair: list
    flag: bool
    table: dict
    never: int


def _text_guess(channel: str, guess: str) -> list[str]:
    """The reveal's lines for ``guess`` at ``channel`` after one node wrote None, [1, 2],
    True and {'a': 1} (and ``never`` nothing)."""
    builder = StateGraph(_Held)
    builder.add_node(
        "w", lambda state: {"nothing": None, "pair": [1, 2], "flag": True, "table": {"a": 1}}
    )
    builder.add_edge(START, "w")
    session = DebugSession(builder.compile(), {})
    session.step()
    session.step()
    session.plan()
    return session.predict(channel=channel, value=guess).explanation.splitlines()


def test_text_guessed_for_a_channel_without_a_value_is_not_told_it_holds_none():
    """never has no value; the reveal said "never holds the NoneType None" for 'None'."""
    lines = _text_guess("never", "None")
    assert "has no value" in lines[0]
    assert not any("holds the" in line for line in lines)


def test_text_guessed_for_none_is_told_apart_in_plain_words():
    assert _text_guess("nothing", "None")[-1] == (
        "You predicted the text 'None'; nothing holds None. Write the value as Python "
        "would, without the quotes: None."
    )


def test_text_of_the_value_written_otherwise_is_told_apart_too():
    """'[1,2]' and '{"a": 1}' are the text of the value, written without the space or
    with other quotes: they had no line, as if the guess were wrong in kind."""
    assert _text_guess("pair", "[1,2]")[-1].startswith(
        "You predicted the text '[1,2]'; pair holds the list [1, 2]."
    )
    assert _text_guess("table", '{"a": 1}')[-1].startswith(
        "You predicted the text '{\"a\": 1}'; table holds the dict {'a': 1}."
    )
    assert not _text_guess("flag", "1")[-1].startswith("You predicted the text")  # not True


def test_a_guess_naming_its_step_is_judged_there():
    session = _at_step_2()
    assert session.predict(nodes=["news", "weather"], step=2).correct
    assert session.predict(nodes=["news", "weather"], step=2).correct  # judged again
    assert session.predict(channel="tokens", value=200, step=2).step == 2


def test_a_guess_for_a_step_the_session_has_passed_says_so_and_moves_nothing():
    # A learner runs the cell `session.step();` twice (the ; hides that it stepped): the
    # question is about step 2, the session is before step 3's Plan. Judging step 3
    # would mark a right answer wrong, under a header the learner does not read.
    session = _at_step_2()
    session.step()
    before, score = session.position, str(session.score)
    with pytest.raises(ValueError) as raised:
        session.predict(nodes=["news", "weather"], step=2)
    message = str(raised.value)
    assert "about step 2" in message and "step 3" in message
    assert "DebugSession" in message  # how to get back: run the cells again from it
    assert session.position == before and str(session.score) == score
    with pytest.raises(ValueError, match="about step 2"):
        session.predict(channel="tokens", value=200, step=2)


def test_a_guess_named_for_a_step_after_back_uses_the_step_the_learner_is_told():
    """After Back the stepper plans LangGraph's next step (4, after the fork), which the
    session tells as step 3 again: a guess for step 3 was refused as "at step 4"."""
    session = _at_step_2()
    session.step()  # step 2
    session.step()  # step 3: summarize
    session.back()
    assert "step 3" in session.message and "LangGraph: step 4" in session.message
    assert session.predict(nodes=["summarize"], step=3).correct
    assert session.predict(channel="tokens", value=200, step=3).step == 3


def test_a_guess_named_for_a_step_of_a_langgraph_thread_with_unsaved_steps_is_judged_there():
    """A LangGraph thread run and resumed under ``durability="exit"`` saved its two pauses
    only (steps 1 and 4): the session opened from it tells the second as step 4, standing
    in for steps 2 and 3 it cannot show, so the step after the resume is step 5, in the
    session's words and LangGraph's, not step 3 (one more than the steps it holds)."""
    import warnings

    pytest.importorskip("langgraph")
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START as LG_START
    from langgraph.graph import StateGraph as LangGraphStateGraph

    from graphkit import open_langgraph_thread

    class Log(TypedDict):
        log: Annotated[list, operator.add]

    builder = LangGraphStateGraph(Log)
    for name in "abcde":
        builder.add_node(name, lambda state, name=name: {"log": [name]})
    builder.add_edge(LG_START, "a")
    for source, target in zip("abcd", "bcde", strict=True):
        builder.add_edge(source, target)
    app = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["b", "e"])
    config = {"configurable": {"thread_id": "exit"}}
    app.invoke({"log": []}, config, durability="exit")
    app.invoke(None, config, durability="exit")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (the import warns that steps were not saved)
        session = DebugSession.from_run(app, open_langgraph_thread(app, config), config)
    assert session.view().step_label == "step 4"
    session.resume()
    with pytest.raises(ValueError, match="about step 4, but the session is at step 5"):
        session.predict(nodes=["e"], step=4)
    assert session.predict(nodes=["e"], step=5).correct
    assert session.view().step_label == "step 5"


def test_a_prediction_at_an_interrupt_is_told_the_run_is_paused_not_over():
    """review11: at an interrupt() a prediction was told "the run is over
    (interrupted). Use Back or Reset", where Resume goes on."""
    from tests.widgets.graphs import asking_app

    session = DebugSession(asking_app(), {"n": 1})
    session.run()
    with pytest.raises(ValueError) as caught:
        session.predict(nodes=["b"])
    assert str(caught.value) == (
        "Predict which nodes run before Plan; the run is paused at an interrupt(), waiting "
        "for its answer: resume it (Resume, or session.resume(answer)) and predict the "
        "step it runs next."
    )
    session.resume("yes")
    assert session.predict(nodes=["ask"]).correct
