"""``why`` of an entrypoint woken by its input says what is true of an entrypoint: its
function runs on the input (there is no START node writing it into a state), in the
steps the thread numbers (a second invoke's input step is step 1, as in LangGraph), and
on resume the input is the one an earlier invoke wrote (lesson 13 said "step -1 ...
woke __start__, which writes the input into the state" in all three cases)."""

from __future__ import annotations

from graphkit import Command, StateGraph, interrupt
from graphkit.checkpoint.memory import InMemorySaver
from graphkit.func import entrypoint


def asker(entrypoint_, interrupt_, saver):
    @entrypoint_(checkpointer=saver)
    def weather(city: str) -> str:
        return f"{city}: {interrupt_('which day?')}"

    return weather


def reasons(explanation) -> list[str]:
    return [" ".join(r.text.split()) for a in explanation.answers for r in a.reasons]


def test_an_entrypoints_first_run_runs_its_function_on_the_input():
    app = asker(entrypoint, interrupt, InMemorySaver())
    why = app.trace("Oslo", {"configurable": {"thread_id": "t"}}).why("weather", step=0)
    assert (
        why.summary
        == "weather ran at step 0 because the input was written to __start__ in step -1."
    )
    assert reasons(why)[0] == (
        "Step -1 (the input step) wrote the run's input to __start__; its Update applied it, "
        "so step 0's Plan woke weather, which is subscribed to __start__ and runs on the "
        "input (an entrypoint's function gets it as its first argument)."
    )
    assert "writes the input into the state" not in str(why)


def test_a_resumed_entrypoint_runs_again_on_the_input_an_earlier_invoke_wrote():
    app = asker(entrypoint, interrupt, InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke("Oslo", config)
    why = app.trace(Command(resume="Monday"), config).why("weather", step=0)
    assert why.summary == (
        "weather ran at step 0 because __start__ still held the input of an earlier invoke."
    )
    said = reasons(why)
    assert said[0].startswith("__start__ still held the input an earlier invoke wrote, in ")
    assert "so step 0's Plan woke weather again, on the same input." in said[0]
    assert not any("(the input step)" in text for text in said)  # (not in this run)
    assert any(text.startswith("weather was resumed with 'Monday'") for text in said)


def test_a_second_invoke_is_told_in_the_steps_the_thread_numbers():
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.func import entrypoint as lg_entrypoint

    def counter(entrypoint_, saver):
        @entrypoint_(checkpointer=saver)
        def count(n: int, previous: int | None = None) -> int:
            return (previous or 0) + n

        return count

    config = {"configurable": {"thread_id": "t"}}
    theirs = counter(lg_entrypoint, LangGraphSaver())
    theirs.invoke(1, config), theirs.invoke(2, config)
    steps = [s.metadata["step"] for s in theirs.get_state_history(config)]
    ours = counter(entrypoint, InMemorySaver())
    ours.invoke(1, config)
    run = ours.trace(2, config)
    assert steps == [2, 1, 0, -1]  # LangGraph: the second invoke's steps are 1 and 2
    assert [s.step for s in run.steps] == [1, 2]
    why = run.why("count", step=2)
    assert (
        why.summary == "count ran at step 2 because the input was written to __start__ in step 1."
    )
    assert reasons(why)[0].startswith("Step 1 (the input step) wrote the run's input")
    assert "so step 2's Plan woke count," in reasons(why)[0]
    assert reasons(run.why("__input__", step=1)) == [
        "Step 1 is the input step: its one task writes the run's input to __start__."
    ]


def test_a_state_graphs_start_node_still_writes_the_input_into_the_state():
    builder = StateGraph(dict)
    builder.add_node("echo", lambda state: state)
    builder.set_entry_point("echo")
    why = builder.compile().trace({"x": 1}).why("__start__", step=0)
    assert reasons(why)[0].endswith("woke __start__, which writes the input into the state.")
