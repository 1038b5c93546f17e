"""Predict, then reveal, in the Debugger widget (no kernel)."""

from __future__ import annotations

from graphkit.widgets import Debugger
from tests.widgets.graphs import chain_app

INPUT = {"n": 1, "log": []}


def test_predict_mode_shows_the_chooser_for_the_next_phase():
    debugger = Debugger(chain_app(), INPUT)
    panel = debugger.predictor
    assert "gk-predict" in panel.toggle._dom_classes
    assert panel.box.layout.display == "none"
    panel.toggle.value = True
    assert panel.box.layout.display is None
    assert panel.nodes.layout.display is None and panel.channel.layout.display == "none"
    assert debugger.buttons["plan"].disabled  # in predict mode, the guess runs the phase


def test_a_node_prediction_runs_the_plan_and_reveals_it():
    debugger = Debugger(chain_app(), INPUT)
    debugger.click("step")
    debugger.click("step")  # step 0 ran START; step 1 plans a
    panel = debugger.predictor
    panel.toggle.value = True
    panel.nodes.value = ("b",)
    panel.button.click()
    assert "gk-reveal" in panel.reveal._dom_classes
    assert "gk-reveal-wrong" in panel.reveal.value and "step 1 runs a" in panel.reveal.value
    assert panel.score.value == "0 of 1 predictions right"
    assert debugger.phase.value == "after Plan · next: Execute"
    assert panel.channel.layout.display is None and panel.nodes.layout.display == "none"


def test_reveal_with_no_node_chosen_asks_and_counts_nothing():
    debugger = Debugger(chain_app(), INPUT)
    debugger.click("step")
    panel = debugger.predictor
    panel.toggle.value = True
    panel.button.click()  # nothing chosen: no guess was made
    assert panel.prompt.value.startswith("Choose the nodes first")
    assert debugger.session.predictions == () and panel.score.value == ""
    assert debugger.phase.value == "after Update · next: Plan"  # the Plan did not run
    panel.nodes.value = (None, "a")  # "no node" and a node: not a guess either
    panel.button.click()
    assert panel.prompt.value.startswith("“no node: the run ends” and a node cannot both")
    assert debugger.session.predictions == ()
    panel.nodes.value = ("a",)  # a choice: the question is asked again
    assert panel.prompt.value == "Which nodes will step 0 run? Choose them, then Reveal."


def test_the_ask_for_a_choice_goes_once_the_run_moves():
    """Reveal with nothing chosen asks for a choice; after Back (or Reset) the run stands
    elsewhere, and the prompt asks that step's question again."""
    debugger = Debugger(chain_app(), INPUT)
    for _ in range(3):
        debugger.click("step")
    panel = debugger.predictor
    panel.toggle.value = True
    panel.button.click()
    assert panel.prompt.value.startswith("Choose the nodes first")
    debugger.click("back")
    assert panel.prompt.value.startswith("Which nodes will step 1 (replayed) run?")
    panel.button.click()
    debugger.click("reset")
    assert panel.prompt.value.startswith("Which nodes will the input step run?")


def test_the_value_prompt_names_the_step():
    debugger = Debugger(chain_app(), INPUT)
    for _ in range(3):
        debugger.click("step")
    debugger.click("plan")
    panel = debugger.predictor
    panel.toggle.value = True
    assert panel.prompt.value.startswith("What will the channel hold after the Update of step 2?")


def test_no_node_is_a_guess_the_last_plan_proves_right():
    debugger = Debugger(chain_app(), INPUT)
    for _ in range(5):
        debugger.click("step")  # up to step 3 (c); step 4's Plan has nothing to run
    panel = debugger.predictor
    panel.toggle.value = True
    panel.nodes.value = (None,)
    panel.button.click()
    assert "gk-reveal-right" in panel.reveal.value
    assert debugger.session.status == "done"


def test_a_one_node_graph_offers_its_node_and_no_node_in_a_list():
    """A one-row multiple choice reads as a "0 selected" menu in a browser."""
    from graphkit import END, START, StateGraph
    from tests.widgets.graphs import State

    builder = StateGraph(State).add_node("only", lambda state: {"n": 2})
    builder.add_edge(START, "only").add_edge("only", END)
    panel = Debugger(builder.compile(), INPUT).predictor
    labels = [label for label, _ in panel.nodes.options]
    assert labels == ["__input__", "__start__", "only", "no node: the run ends"]
    assert panel.nodes.rows == 4


def test_the_first_two_steps_can_be_guessed_right_and_the_verdict_says_what_they_do():
    """Step -1 runs the input task and step 0 runs __start__: the chooser offers both
    while they can run, and a guess of the first node at step 0 is told when it runs."""
    debugger = Debugger(chain_app(), INPUT)
    panel = debugger.predictor
    panel.toggle.value = True
    assert panel.prompt.value.startswith("Which nodes will the input step run?")
    panel.nodes.value = ("__input__",)
    panel.button.click()
    assert "gk-reveal-right" in panel.reveal.value
    debugger.click("update")  # (disabled in predict mode: a channel guess runs it)
    assert panel.prompt.value.startswith(
        "What will the channel hold after the Update of the input step? (None: it has no value.)"
    )
    panel.channel.value, panel.value.value = "n", "1"
    panel.button.click()  # the input is in __start__, not yet in the state
    assert "gk-reveal-wrong" in panel.reveal.value
    assert "n has no value after step -1&#x27;s Update" in panel.reveal.value
    assert "writes your input only to the channel __start__, so n still has no value" in (
        panel.reveal.value
    )
    labels = [label for label, _ in panel.nodes.options]
    assert labels == ["__start__", "a", "b", "c", "no node: the run ends"]  # no __input__
    assert panel.prompt.value.startswith("Which nodes will step 0 run?")
    panel.nodes.value = ("a",)
    panel.button.click()
    assert "gk-reveal-wrong" in panel.reveal.value
    assert "Step 0 runs only __start__" in panel.reveal.value
    assert "so a runs in step 1" in panel.reveal.value
    debugger.click("reset")
    panel.nodes.value = ("__input__",)  # offered again: the input step is next again
    panel.button.click()
    assert debugger.session.score.right == 2


def test_a_channel_prediction_parses_a_literal_and_scores():
    debugger = Debugger(chain_app(), INPUT)
    for _ in range(2):
        debugger.click("step")
    debugger.click("plan")
    panel = debugger.predictor
    panel.toggle.value = True
    panel.channel.value = "n"
    panel.value.value = "3"
    panel.button.click()
    assert "gk-reveal-right" in panel.reveal.value
    assert panel.score.value == "1 of 1 predictions right"
    panel.channel.value = "log"
    panel.value.value = "['a', 'b']"
    debugger.click("plan")  # ignored in predict mode: the button is disabled
    panel.button.click()  # plans step 2: a node guess is needed, not a channel
    assert "Predict which nodes" in debugger.message.value or panel.nodes.layout.display is None


def test_a_value_that_is_not_a_literal_is_a_string():
    from graphkit.widgets.predict_panel import parse_value

    assert parse_value("[1, 2]") == [1, 2]
    assert parse_value("sunny") == "sunny"
    assert parse_value(" 'x' ") == "x"


def test_a_channel_no_step_wrote_is_told_it_still_has_no_value():
    """Not "has no value ... so it kept its value": a key nothing wrote yet."""
    panel = _value_question_of_a_one_node_run()
    panel.channel.value, panel.value.value = "answer", "'yes'"
    panel.button.click()
    assert "answer has no value after step 1" in panel.reveal.value
    assert "No task wrote answer in step 1, so it still has no value." in panel.reveal.value


def test_none_typed_in_lower_case_is_the_prompts_none():
    """The prompt says "None: it has no value"; a learner typing `none` was read as the
    string 'none' and told wrong. Any case is None; quoted, it stays a string."""
    from graphkit.widgets.predict_panel import parse_value

    assert parse_value("none") is None and parse_value(" NONE ") is None
    assert parse_value("'none'") == "none" and parse_value("nones") == "nones"
    panel = _value_question_of_a_one_node_run()
    assert "(None: it has no value.)" in panel.prompt.value
    panel.channel.value, panel.value.value = "answer", "none"
    panel.button.click()
    assert "gk-reveal-right" in panel.reveal.value
    assert panel.score.value == "1 of 1 predictions right"


def test_true_and_false_typed_in_lower_case_are_the_booleans():
    """A learner typing `true` (as in JSON or JavaScript) was read as the string 'true'
    and told wrong about a boolean channel; quoted, it stays a string."""
    from graphkit.widgets.predict_panel import parse_value

    assert parse_value("true") is True and parse_value(" False ") is False
    assert parse_value("TRUE") is True and parse_value("'true'") == "true"
    assert parse_value("truth") == "truth"


def test_a_list_or_dict_typed_as_json_is_read_as_json():
    """The same learner types a list of booleans as `[true, false]`: it was the string
    '[true, false]', and a right guess about a list channel was scored wrong."""
    from graphkit.widgets.predict_panel import parse_value

    assert parse_value("[true, false, null]") == [True, False, None]
    assert parse_value('{"done": true}') == {"done": True}
    assert parse_value("[sunny]") == "[sunny]"  # neither Python nor JSON: the text


def test_the_verdict_hides_once_the_run_moves_out_of_predict_mode():
    """Predict off, the verdict stays while it is about where the run stands; once the
    run moves on it would sit above a later step, so it hides. Its lines keep a text line
    height (a widget's HTML has a 28 px one)."""
    debugger = Debugger(chain_app(), INPUT)
    panel = debugger.predictor
    panel.toggle.value = True
    panel.nodes.value = ("__input__",)
    panel.button.click()
    assert panel.reveal.layout.display is None and "line-height:1.45" in panel.reveal.value
    panel.toggle.value = False
    assert panel.reveal.layout.display is None  # (the guide's picture of a verdict)
    debugger.click("step")
    assert panel.reveal.layout.display == "none"


def test_predict_turned_on_again_later_starts_clean():
    """Predict off, a few steps, Predict on: the last verdict (step 0's) and the last
    choice showed again, as if about the step now asked; the panel starts clean."""
    debugger = Debugger(chain_app(), INPUT)
    debugger.click("step")
    panel = debugger.predictor
    panel.toggle.value = True
    panel.nodes.value = ("__start__",)
    panel.button.click()
    panel.value.value = "1"
    panel.toggle.value = False
    debugger.click("step")
    debugger.click("step")  # step 2's Plan is next: the same chooser as step 0's
    panel.toggle.value = True
    assert panel.reveal.value == "" and panel.reveal.layout.display == "none"
    assert panel.nodes.value == () and panel.value.value == ""
    assert panel.prompt.value == "Which nodes will step 2 run? Choose them, then Reveal."
    assert panel.score.value == "1 of 1 predictions right"  # the score is the session's


def test_predict_turned_off_and_on_where_it_revealed_keeps_the_verdict():
    """Nothing moved since the reveal: the verdict is still about this moment."""
    debugger = Debugger(chain_app(), INPUT)
    debugger.click("step")
    panel = debugger.predictor
    panel.toggle.value = True
    panel.nodes.value = ("__start__",)
    panel.button.click()
    panel.toggle.value = False
    panel.toggle.value = True
    assert panel.reveal.layout.display is None and "gk-reveal-right" in panel.reveal.value


def test_back_or_reset_in_predict_mode_clears_the_verdict():
    """In predict mode Back and Reset stay on; the verdict they leave behind ("step 1 runs
    a") would read as the verdict of the step the run now stands at, before any guess."""
    for control in ("back", "reset"):
        debugger = Debugger(chain_app(), INPUT)
        debugger.click("step")
        debugger.click("step")
        panel = debugger.predictor
        panel.toggle.value = True
        panel.nodes.value = ("a",)
        panel.button.click()
        assert "gk-reveal-right" in panel.reveal.value
        debugger.click(control)
        assert panel.reveal.value == "" and panel.reveal.layout.display == "none", control
        assert panel.score.value == "1 of 1 predictions right"  # the score stays


def test_a_run_moved_from_code_clears_the_widgets_verdict():
    """A cell that steps the session moves the run too: the widget's verdict goes."""
    debugger = Debugger(chain_app(), INPUT)
    panel = debugger.predictor
    panel.toggle.value = True
    panel.nodes.value = ("__input__",)
    panel.button.click()
    debugger.session.step()
    assert panel.reveal.value == "" and panel.reveal.layout.display == "none"


def test_the_input_step_of_a_thread_with_history_is_told_as_the_input_step():
    """On a thread that already ran, the input step is numbered after its last step
    (step 4 here, as in LangGraph), not -1: its verdict still says where the input went
    (it said only "No task wrote n in step 4, so it kept its value")."""
    from graphkit import InMemorySaver

    app = chain_app(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke(INPUT, config)
    debugger = Debugger(app, {"n": 7, "log": []}, config=config)
    panel = debugger.predictor
    panel.toggle.value = True
    panel.nodes.value = ("__input__",)
    panel.button.click()
    panel.channel.value, panel.value.value = "n", "7"
    panel.button.click()
    assert "gk-reveal-wrong" in panel.reveal.value and "n holds 51 after step 4" in (
        panel.reveal.value
    )
    assert "writes your input only to the channel __start__, so n kept its value. Step 5 runs" in (
        panel.reveal.value
    )


def _value_question_of_a_one_node_run():
    """The predict panel, on, at step 1's value question of a graph whose one node
    writes n (its state also has the key answer, which nothing writes)."""
    from graphkit import END, START, StateGraph
    from tests.widgets.graphs import Asked

    builder = StateGraph(Asked).add_node("only", lambda state: {"n": 2})
    builder.add_edge(START, "only").add_edge("only", END)
    debugger = Debugger(builder.compile(), {"n": 1})
    for _ in range(2):
        debugger.click("step")
    debugger.click("plan")
    panel = debugger.predictor
    panel.toggle.value = True
    return panel


def test_each_question_starts_with_nothing_chosen():
    """The choice made for one step's question stays no answer to the next: Reveal with
    it would count a guess never made for that step (and skip "choose first")."""
    debugger = Debugger(chain_app(), INPUT)
    debugger.click("step")
    debugger.click("step")
    panel = debugger.predictor
    panel.toggle.value = True
    panel.nodes.value = ("a",)
    panel.button.click()  # step 1's guess: a, revealed
    panel.value.value = "3"
    debugger.click("execute")
    debugger.click("update")  # the next question: which nodes will step 2 run?
    assert panel.nodes.value == () and panel.value.value == ""
    panel.button.click()
    assert panel.prompt.value.startswith("Choose the nodes first")
    assert len(debugger.session.predictions) == 1
    panel.nodes.value = ("b",)
    debugger.click("reset")
    assert panel.nodes.value == ()
