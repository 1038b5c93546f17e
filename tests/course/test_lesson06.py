"""Tests of lesson 06's checks: each passes on its solution and fails, saying why, on
the notebook's stub and on typical wrong answers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from langchain_core.messages import AIMessage, RemoveMessage, ToolMessage
from langchain_core.tools import tool

from graphkit import END
from graphkit.course import lesson06
from graphkit.course.solutions import lesson06 as solutions
from graphkit.prebuilt import InjectedState, ScriptedChatModel, create_react_agent
from tests.course.cells import run_cells

# -- 6.1 · One tool round trip


def _call(name="temperature", args=None, id="call-1"):
    return {"name": name, "args": args if args is not None else {"city": "Rome"}, "id": id}


def _agent(*responses, tools=(solutions.temperature,)):
    return lambda: create_react_agent(ScriptedChatModel(responses=list(responses)), list(tools))


def test_round_trip_passes_on_the_solution():
    verdict = lesson06.check_tool_round_trip(solutions.build_agent)
    assert verdict, verdict.message
    assert "agent, tools, agent" in verdict.message


def test_round_trip_stub_answers_without_a_tool():
    @tool
    def temperature(city: str) -> str:
        """The temperature in a city right now."""
        return "unknown"  # the notebook's stub

    def build_agent():
        model = ScriptedChatModel(responses=["I have no idea."])
        return create_react_agent(model, [temperature])

    verdict = lesson06.check_tool_round_trip(build_agent)
    assert not verdict
    assert "no tool call" in verdict.message and '"I have no idea."' in verdict.message


def test_round_trip_calling_a_tool_the_agent_does_not_have():
    verdict = lesson06.check_tool_round_trip(
        _agent(AIMessage("", tool_calls=[_call("weather")]), "It is warm.")
    )
    assert not verdict
    assert "failed in step 2" in verdict.message and "weather" in verdict.message


def test_round_trip_with_a_tool_that_ignores_the_table():
    @tool
    def temperature(city: str) -> str:
        """The temperature in a city right now."""
        return "warm"

    verdict = lesson06.check_tool_round_trip(
        _agent(AIMessage("", tool_calls=[_call()]), "It is warm.", tools=[temperature])
    )
    assert not verdict
    assert 'answered "warm"' in verdict.message and "18°C" in verdict.message


def test_round_trip_with_a_tool_that_returns_the_whole_table_fails():
    # Rome's temperature is in the answer, and the final reply quotes it: but the tool
    # looked nothing up, so it must not pass.
    @tool
    def temperature(city: str) -> dict:
        """The temperature in a city right now."""
        return lesson06.TEMPERATURES

    verdict = lesson06.check_tool_round_trip(
        _agent(
            AIMessage("", tool_calls=[_call()]),
            lambda messages: f"It is {messages[-1].content}.",
            tools=[temperature],
        )
    )
    assert not verdict
    assert "also gives Oslo's 4°C and Lima's 15°C" in verdict.message
    assert "TEMPERATURES[city]" in verdict.hint


def test_round_trip_with_a_tool_that_wraps_its_answer_in_a_dict_passes():
    @tool
    def temperature(city: str) -> dict:
        """The temperature in a city right now."""
        return {"city": city, "temperature": lesson06.TEMPERATURES[city]}

    verdict = lesson06.check_tool_round_trip(
        _agent(
            AIMessage("", tool_calls=[_call()]),
            lambda messages: f"It is {messages[-1].content}.",
            tools=[temperature],
        )
    )
    assert verdict, verdict.message


def test_round_trip_with_a_bare_injected_state_annotation_is_told_to_wrap_it():
    # `state: InjectedState` (no Annotated) fails in LangGraph too, as a pydantic
    # schema error that names no fix.
    def temperature(city: str, state: InjectedState) -> str:
        """The temperature in a city right now."""
        return lesson06.TEMPERATURES[city]

    verdict = lesson06.check_tool_round_trip(
        lambda: _agent(AIMessage("", tool_calls=[_call()]), "done", tools=[tool(temperature)])()
    )
    assert not verdict
    assert (
        "a parameter of the tool 'temperature' is annotated InjectedState alone" in verdict.message
    )
    assert "Annotated[dict, InjectedState]" in verdict.hint


def test_round_trip_with_a_tool_returning_a_tool_message_of_another_id_names_the_ids():
    # The tool builds its own ToolMessage, with an id it made up: the call stays
    # unanswered and step 3's model call fails; the verdict says which ids differ.
    @tool
    def temperature(city: str) -> ToolMessage:
        """The temperature in a city right now."""
        return ToolMessage(lesson06.TEMPERATURES[city], tool_call_id="rome")

    verdict = lesson06.check_tool_round_trip(
        _agent(AIMessage("", tool_calls=[_call()]), "done", tools=[temperature])
    )
    assert not verdict
    assert (
        "In step 2 the tool temperature returned a ToolMessage answering the call 'rome', "
        "but the model's call has the id 'call-1'"
    ) in verdict.message
    assert "Return the value itself" in verdict.hint


def test_round_trip_with_the_city_injected_from_the_state_says_the_state_has_no_city():
    # InjectedState("city") reads the graph's state, which has no 'city': the model's
    # argument is hidden from it. LangGraph raises the same bare KeyError('city').
    @tool
    def temperature(city: Annotated[str, InjectedState("city")]) -> str:
        """The temperature in a city right now."""
        return lesson06.TEMPERATURES[city]

    verdict = lesson06.check_tool_round_trip(
        _agent(AIMessage("", tool_calls=[_call()]), "done", tools=[temperature])
    )
    assert not verdict
    assert "raised KeyError in step 2 (node tools): 'city'" in verdict.message
    assert "InjectedState('city') reads the graph's state, whose keys are" in verdict.hint
    assert "a plain parameter, city: str" in verdict.hint


def test_round_trip_quotes_a_tool_answer_as_show_does():
    # An apostrophe, a double quote and a newline: in double quotes, as show() prints
    # a message's text, escaped as repr escapes it (repr itself gave 'it\'s "warm"\n').
    @tool
    def temperature(city: str) -> str:
        """The temperature in a city right now."""
        return 'it\'s "warm"\n'

    verdict = lesson06.check_tool_round_trip(
        _agent(AIMessage("", tool_calls=[_call()]), "It is warm.", tools=[temperature])
    )
    assert not verdict
    assert 'answered "it\'s \\"warm\\"\\n" for the call' in verdict.message


def test_round_trip_asking_for_the_wrong_city():
    verdict = lesson06.check_tool_round_trip(
        _agent(AIMessage("", tool_calls=[_call(args={"city": "Oslo"})]), "It is 4°C.")
    )
    assert not verdict
    assert "{'city': 'Oslo'}" in verdict.message


def test_round_trip_with_two_round_trips():
    verdict = lesson06.check_tool_round_trip(
        _agent(
            AIMessage("", tool_calls=[_call()]),
            AIMessage("", tool_calls=[_call(id="call-2")]),
            "It is 18°C.",
        )
    )
    assert not verdict
    assert "5 steps" in verdict.message


def test_round_trip_with_a_final_answer_that_ignores_the_tool():
    verdict = lesson06.check_tool_round_trip(
        _agent(AIMessage("", tool_calls=[_call()]), "Lovely weather.")
    )
    assert not verdict
    assert "does not give the tool's result" in verdict.message


def test_round_trip_with_a_final_answer_typed_into_the_script():
    verdict = lesson06.check_tool_round_trip(
        _agent(AIMessage("", tool_calls=[_call()]), "It is 18°C in Rome.")
    )
    assert not verdict
    assert "second run" in verdict.message and "'21°C'" in verdict.message
    # one sentence: it read "...in lesson06.TEMPERATURES: The final answer..."
    assert "lesson06.TEMPERATURES, the final answer" in verdict.message
    assert "does not give the tool's result" in verdict.message
    assert lesson06.TEMPERATURES["Rome"] == "18°C"  # the check put the table back


def test_round_trip_with_a_tool_that_always_says_18():
    @tool
    def temperature(city: str) -> str:
        """The temperature in a city right now."""
        return "18°C"

    verdict = lesson06.check_tool_round_trip(
        _agent(
            AIMessage("", tool_calls=[_call()]),
            lambda messages: f"It is {messages[-1].content}.",
            tools=(temperature,),
        )
    )
    assert not verdict
    assert "second run" in verdict.message and 'tool answered "18°C"' in verdict.message
    assert "TEMPERATURES[city]" in verdict.hint


def test_round_trip_with_a_tool_call_without_an_id():
    # langchain-core refuses it while the learner's build_agent scripts the model
    def build_agent():
        call = {"name": "temperature", "args": {"city": "Rome"}}
        return _agent(AIMessage("", tool_calls=[call]), "It is 18°C.")()

    verdict = lesson06.check_tool_round_trip(build_agent)
    assert not verdict
    assert "Each tool call of an AIMessage needs an 'id' (any string" in verdict.message
    assert "'id': ..." in verdict.hint


def test_round_trip_with_a_tool_that_raises_names_it_and_adds_no_generic_hint():
    # The model asks for 'rome': TEMPERATURES[city] raises KeyError in the learner's tool.
    # The verdict names the tool; "run it with app.trace(...)" would add nothing.
    @tool
    def temperature(city: str) -> str:
        """The temperature in a city right now."""
        return lesson06.TEMPERATURES[city]

    verdict = lesson06.check_tool_round_trip(
        _agent(
            AIMessage("", tool_calls=[_call(args={"city": "rome"})]),
            lambda messages: f"It is {messages[-1].content}.",
            tools=(temperature,),
        )
    )
    assert not verdict
    assert verdict.message == (
        "Running your graph raised KeyError in step 2 (node tools, in temperature): 'rome'"
    )
    assert "app.trace" not in verdict.hint


def test_round_trip_with_a_script_too_short():
    verdict = lesson06.check_tool_round_trip(_agent(AIMessage("", tool_calls=[_call()])))
    assert not verdict
    assert "ScriptExhaustedError" in verdict.message
    assert "its script has 1 response;" in verdict.message
    assert "one answer per model call" in verdict.hint


def test_round_trip_with_a_model_used_up_before_the_check():
    agent = solutions.build_agent()
    agent.invoke({"messages": [("user", lesson06.QUESTION)]})  # the demo line uses it up
    verdict = lesson06.check_tool_round_trip(agent)
    assert not verdict
    assert "ScriptExhaustedError" in verdict.message and "fresh one" in verdict.hint


# -- 6.2 · Keep the last N messages


def test_keep_last_passes_on_the_solution():
    verdict = lesson06.check_keep_last(solutions.keep_last)
    assert verdict, verdict.message


def test_keep_last_stub_removes_nothing():
    verdict = lesson06.check_keep_last(lambda state, n: {"messages": []})  # the stub
    assert not verdict
    assert "still there" in verdict.message and "RemoveMessage" in verdict.message


def test_keep_last_returning_the_last_messages_keeps_everything():
    verdict = lesson06.check_keep_last(lambda state, n: {"messages": state["messages"][-n:]})
    assert not verdict
    assert "merges by id" in verdict.message


def test_keep_last_names_the_messages_written_briefly():
    verdict = lesson06.check_keep_last(lambda state, n: {"messages": state["messages"][-n:]})
    # in double quotes, as the tables and show() print message texts (it was Python's
    # repr: 'answer 2', but "I'm Lance" for a text with an apostrophe)
    assert 'wrote [ai: "answer 2" (id m3), human: "question 3" (id m4)]' in verdict.message
    assert "additional_kwargs" not in verdict.message


def test_keep_last_deleting_from_the_state_in_place_fails():
    # It "works" (the list is the channel's own), and rewrites what the records show.
    def keep_last(state, n):
        del state["messages"][: len(state["messages"]) - n]
        return state

    verdict = lesson06.check_keep_last(keep_last)
    assert not verdict
    assert "changed state['messages'] in place" in verdict.message
    assert "from ['m0', 'm1', 'm2', 'm3', 'm4'] to ['m3', 'm4']" in verdict.message
    assert "rewrote history" in verdict.message and "RemoveMessage" in verdict.hint


def test_keep_last_reassigning_the_key_is_not_called_in_place():
    def keep_last(state, n):
        state["messages"] = state["messages"][len(state["messages"]) - n :]
        return state

    verdict = lesson06.check_keep_last(keep_last)
    assert not verdict
    assert "in place" not in verdict.message and "merges by id" in verdict.message


def test_keep_last_off_by_one():
    def keep_last(state, n):
        return {"messages": [RemoveMessage(id=m.id) for m in state["messages"][: -n - 1]]}

    verdict = lesson06.check_keep_last(keep_last)
    assert not verdict
    assert "expected the last 2" in verdict.message


def test_keep_last_removing_the_newest():
    def keep_last(state, n):
        return {"messages": [RemoveMessage(id=m.id) for m in state["messages"][n:]]}

    verdict = lesson06.check_keep_last(keep_last)
    assert not verdict
    assert "the filter kept ['m0', 'm1']" in verdict.message


def test_keep_last_fixed_to_two():
    def keep_last(state, n):
        return {"messages": [RemoveMessage(id=m.id) for m in state["messages"][:-2]]}

    verdict = lesson06.check_keep_last(keep_last)
    assert not verdict
    assert "n=3" in verdict.message


# -- 6.3 · Summarise only when the history is long


def test_should_summarize_passes_on_the_solution():
    verdict = lesson06.check_should_summarize(solutions.should_summarize)
    assert verdict, verdict.message


def test_should_summarize_stub_never_summarises():
    verdict = lesson06.check_should_summarize(lambda state: END)  # the stub
    assert not verdict
    assert "With 7 messages" in verdict.message and "ended without a summary" in verdict.message
    assert "wrong for 4 of the 10" in verdict.message and "number of messages" in verdict.hint


def test_should_summarize_always():
    verdict = lesson06.check_should_summarize(lambda state: "summarize_conversation")
    assert not verdict
    assert "With 1 message after" in verdict.message and "summarised" in verdict.message


def test_should_summarize_at_least_instead_of_more_than():
    def should_summarize(state):
        return "summarize_conversation" if len(state["messages"]) >= 6 else END

    verdict = lesson06.check_should_summarize(should_summarize)
    assert not verdict
    assert "With 6 messages" in verdict.message and "not at least" in verdict.hint


def test_should_summarize_returning_the_string_end_points_at_the_constant():
    def should_summarize(state):
        return "summarize_conversation" if len(state["messages"]) > 6 else "END"

    verdict = lesson06.check_should_summarize(should_summarize)
    assert not verdict
    assert "returned the string 'END'; END is a constant whose value is '__end__'" in (
        verdict.message
    )
    assert "Return END itself (from graphkit import END)" in verdict.hint


def test_should_summarize_misspelling_the_node_names_the_two_destinations():
    # The path map is the check's: "add it there", the runtime's words, cannot be done.
    def should_summarize(state):
        return "summarize" if len(state["messages"]) > 6 else END

    verdict = lesson06.check_should_summarize(should_summarize)
    assert not verdict
    assert "With 7 messages after conversation (step 1), your router returned 'summarize'" in (
        verdict.message
    )
    assert "goes only to 'summarize_conversation' (the node's name) or END" in verdict.message
    assert "add it there" not in verdict.message


def test_should_summarize_falling_off_its_end_returns_none():
    def should_summarize(state):
        if len(state["messages"]) > 6:
            return "summarize_conversation"

    verdict = lesson06.check_should_summarize(should_summarize)
    assert not verdict
    assert "your router returned None: a function that reaches its end" in verdict.message
    assert "every path" in verdict.hint


def test_keep_last_slicing_with_minus_n_fails_for_n_zero():
    def keep_last(state, n):
        return {"messages": [RemoveMessage(id=m.id) for m in state["messages"][:-n]]}

    verdict = lesson06.check_keep_last(keep_last)
    assert not verdict
    assert "n=0" in verdict.message and "len(messages) - n" in verdict.hint


def test_keep_last_giving_remove_message_the_message_itself():
    from langchain_core.messages import RemoveMessage

    def keep_last(state, n):
        return {
            "messages": [
                RemoveMessage(id=m) for m in state["messages"][: len(state["messages"]) - n]
            ]
        }

    verdict = lesson06.check_keep_last(keep_last)
    assert not verdict
    assert 'RemoveMessage was given the message human: "question 1" (id m0)' in verdict.message
    assert "m.id" in verdict.hint and "ValidationError" not in verdict.message


def test_round_trip_with_a_tool_call_without_a_name_or_args():
    # the same TypeError as a missing id, for the call's other keys
    for key, needs in (("name", "a 'name' (the tool to run)"), ("args", "its 'args' (a dict")):
        call = {"name": "temperature", "args": {"city": "Rome"}, "id": "call-1"}
        del call[key]

        def build_agent(call=call):
            return _agent(AIMessage("", tool_calls=[call]), "It is 18°C.")()

        verdict = lesson06.check_tool_round_trip(build_agent)
        assert not verdict
        assert f"Each tool call of an AIMessage needs {needs}" in verdict.message
        assert "'id': ..." in verdict.hint


def test_should_summarize_returning_a_comparison_names_the_two_destinations():
    # `return len(state["messages"]) > 6`: a bool got the runtime's "add it there"
    verdict = lesson06.check_should_summarize(lambda state: len(state["messages"]) > 6)
    assert not verdict
    assert "your router returned False; the conditional edge goes only to" in verdict.message
    assert "A comparison is True or False, not a destination" in verdict.message
    assert "add it there" not in verdict.message


def test_should_summarize_returning_a_list_with_a_misspelt_name():
    def should_summarize(state):
        return ["summarize"] if len(state["messages"]) > 6 else [END]

    verdict = lesson06.check_should_summarize(should_summarize)
    assert not verdict
    assert "With 7 messages after conversation (step 1), your router returned ['summarize']" in (
        verdict.message
    )
    assert "add it there" not in verdict.message


def test_should_summarize_written_async_is_told_to_be_a_plain_def():
    # the check's wrapper hid that the router is async: the verdict said it returned a
    # coroutine, which was "not a key of its path_map"
    async def should_summarize(state):
        return END

    verdict = lesson06.check_should_summarize(should_summarize)
    assert not verdict
    assert "is an async function" in verdict.message and "make the router a plain def" in (
        verdict.message
    )


def test_each_section_s_run_shows_the_same_when_read_again_after_a_later_one():
    """A learner re-reads a section's run after the later sections: each reads its own
    run still. (Every section named its run ``run``, so reading the agent's run again read
    the trimmed chat's: one ``chat`` task, and tools "never ran".) The timeline is printed,
    since an ``SVG``'s repr does not say what it draws."""
    lesson = Path(__file__).parents[2] / "notebooks" / "06-messages-and-agents.ipynb"
    run_cells(
        lesson,
        again=("l06-c17", "l06-c18", "l06-c25", "l06-c28"),
        source_of=lambda cell, source: source.replace("\nSVG(", "\nprint("),
    )


def test_round_trip_with_an_agent_given_no_tools_says_so_not_that_the_script_is_short():
    # The script has its second answer; the agent was built without the tool, so the
    # model's tool call had no tools node to go to and the run ended after step 1.
    verdict = lesson06.check_tool_round_trip(
        _agent(
            AIMessage("", tool_calls=[_call()]),
            lambda messages: f"It is {messages[-1].content}.",
            tools=(),
        )
    )
    assert not verdict
    assert "asked for temperature" in verdict.message and "no tools node" in verdict.message
    assert "second scripted answer" not in verdict.hint
    assert "create_react_agent(model, [temperature])" in verdict.hint


def test_round_trip_with_no_way_back_from_the_tools_names_the_missing_edge():
    # A hand-built agent whose tools node has no edge back: model, tools, then the end.
    from graphkit import START, MessagesState, StateGraph
    from graphkit.prebuilt import ToolNode, tools_condition

    def build_agent():
        model = ScriptedChatModel(
            responses=[AIMessage("", tool_calls=[_call()]), lambda m: m[-1].content]
        )
        builder = StateGraph(MessagesState)
        builder.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
        builder.add_node("tools", ToolNode([solutions.temperature]))
        builder.add_edge(START, "agent")
        builder.add_conditional_edges("agent", tools_condition, ["tools", END])
        return builder

    verdict = lesson06.check_tool_round_trip(build_agent)
    assert not verdict
    assert "nothing led back to the model" in verdict.message
    assert "second scripted answer" not in verdict.hint
    assert "tools → agent" in verdict.hint


def test_round_trip_whose_second_step_is_not_the_tools_is_not_said_to_have_run_them():
    # The model's step is followed by a node of the learner's own that answers: no tool
    # ran, so "the tools ran in step 2" and "Add the edge respond → agent" were untrue.
    from graphkit import START, MessagesState, StateGraph

    def build_agent():
        model = ScriptedChatModel(responses=[AIMessage("", tool_calls=[_call()]), "Warm."])
        builder = StateGraph(MessagesState)
        builder.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
        builder.add_node("respond", lambda state: {"messages": [AIMessage("Done.")]})
        builder.add_edge(START, "agent")
        builder.add_edge("agent", "respond")
        return builder

    verdict = lesson06.check_tool_round_trip(build_agent)
    assert not verdict
    assert "Step 2 ran respond, which wrote no ToolMessage" in verdict.message
    assert "respond → agent" not in verdict.hint


def test_round_trip_with_a_node_beside_the_tools_names_the_tools_edge():
    # Beside the tools, a node whose name sorts first: the hint named its edge back.
    from graphkit import START, MessagesState, StateGraph
    from graphkit.prebuilt import ToolNode

    def build_agent():
        model = ScriptedChatModel(responses=[AIMessage("", tool_calls=[_call()]), "Warm."])
        builder = StateGraph(MessagesState)
        builder.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
        builder.add_node("tools", ToolNode([solutions.temperature]))
        builder.add_node("a_log", lambda state: {})
        builder.add_edge(START, "agent")
        builder.add_edge("agent", "tools")
        builder.add_edge("agent", "a_log")
        return builder

    verdict = lesson06.check_tool_round_trip(build_agent)
    assert not verdict
    assert "nothing led back to the model" in verdict.message
    assert "Add the edge tools → agent" in verdict.hint


def test_should_summarize_more_than_five_gets_a_hint_with_the_numbers():
    # "more than, not at least" does not help one who wrote "more than" (> 5).
    def should_summarize(state):
        return "summarize_conversation" if len(state["messages"]) > 5 else END

    verdict = lesson06.check_should_summarize(should_summarize)
    assert not verdict
    assert "With 6 messages" in verdict.message
    assert "6 messages end, 7 summarise" in verdict.hint


def test_the_prebuilt_agent_s_tasks_table_shows_which_call_each_tools_task_ran():
    """Section 3 says step 2 holds two tools tasks, "one per call": the table shows it
    (two identical rows `tools push __pregel_push` did not)."""
    lesson = Path(__file__).parents[2] / "notebooks" / "06-messages-and-agents.ipynb"
    shown = run_cells(lesson, until="from IPython.display import SVG")
    table = shown["l06-c23"][1]
    assert "tool call add({'a': 1, 'b': 2})" in table
    assert "tool call multiply({'a': 3, 'b': 4})" in table


def test_the_prebuilt_agent_s_run_shows_the_same_when_run_again_at_once():
    """A learner runs section 3's traced run a second time, to look again: it shows the
    same answer and tasks. (Its scripted model had answered its two calls already, so the
    second run raised ScriptExhaustedError.)"""
    lesson = Path(__file__).parents[2] / "notebooks" / "06-messages-and-agents.ipynb"
    run_cells(lesson, until="from IPython.display import SVG", again=("l06-c23",))


def test_the_summarised_chat_run_again_shows_its_summary_grow_from_the_first_turn():
    """A learner runs the summarising chat's three turns a second time: the summary grows
    turn by turn, as the text says, and the next cell counts 6 model calls for 3 turns.
    (The turns went on the same thread, so every summary was already the full one, and
    the count said 12 model calls for 3 turns.)"""
    lesson = Path(__file__).parents[2] / "notebooks" / "06-messages-and-agents.ipynb"
    shown = run_cells(lesson, until="from typing import Literal", again=("l06-c34", "l06-c35"))
    assert shown["l06-c34"][0].splitlines()[0] == '2 messages kept · summary: "Hi, I\'m Lance."'
    assert shown["l06-c35"][0].startswith("6 model calls for 3 turns")


def test_should_summarize_one_too_late_is_not_told_it_wrote_at_least():
    # "more than 6, not at least 6" was said to a router that wrote > 7: it summarised late
    def should_summarize(state):
        return "summarize_conversation" if len(state["messages"]) > 7 else END

    verdict = lesson06.check_should_summarize(should_summarize)
    assert not verdict
    assert "With 7 messages" in verdict.message and "ended without a summary" in verdict.message
    assert "not at least" not in verdict.hint
    assert "7 messages are already more than 6" in verdict.hint
