"""Lesson 16's checks on their solutions, on typical wrong answers and on the notebook's
stubs; and the lesson's graph cells run on LangGraph, where each claim about supervisors,
handoffs and their bugs must hold too."""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from pathlib import Path
from typing import Annotated

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool

from graphkit import END, Command
from graphkit.course import assert_fails, assert_passes, lesson16
from graphkit.course.solutions import lesson16 as solutions
from graphkit.prebuilt import InjectedState
from tests.course.cells import run_cells

LESSON = Path(__file__).parents[2] / "notebooks" / "16-supervisor-and-handoffs.ipynb"


def lesson_cells() -> list[tuple[str, str]]:
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    return [(cell["id"], "".join(cell["source"])) for cell in cells if cell["cell_type"] == "code"]


def run_lesson(library: str, until: str = "from graphkit.course import lesson16") -> tuple:
    """Sections 1 to 3's code cells, run on ``library``: what each prints, and the names."""
    names: dict = {}
    printed = {}
    for cell, source in lesson_cells():
        if source.startswith(until):
            break
        if library == "langgraph":
            source = to_langgraph(source)
            if source is None:
                continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(source, names)
        printed[cell] = out.getvalue()
    return printed, names


LANGGRAPH_IMPORTS = {
    "from graphkit import END, START, Command, MessagesState, StateGraph": (
        "from langgraph.graph import END, START, MessagesState, StateGraph\n"
        "from langgraph.types import Command"
    ),
    "from graphkit.course import ran_at  # ran_at(run, node): the steps node ran in\n": "",
    "from graphkit.prebuilt import InjectedState, ScriptedChatModel, create_react_agent": (
        "from langgraph.prebuilt import InjectedState, create_react_agent\n"
        "from graphkit.prebuilt import ScriptedChatModel"
    ),
    "from graphkit import GraphRecursionError": "from langgraph.errors import GraphRecursionError",
}


def to_langgraph(source: str) -> str | None:
    """The cell for LangGraph: its imports, and its definitions only (up to the first
    line that runs the graph with graphkit's ``trace`` and reads its records); None for a
    cell that only reads records."""
    if source.startswith(
        ("run.to_frame", "print(run", "my_", "run = ", "swarm_run", "print(swarm_run")
    ):
        return None
    for ours, theirs in LANGGRAPH_IMPORTS.items():
        source = source.replace(ours, theirs)
    lines = source.splitlines()
    cut = next((i for i, line in enumerate(lines) if ".trace(" in line or line == "try:"), None)
    return "\n".join(lines[:cut])


def values(app, given, config=None):
    return app.invoke(given, config)


def test_the_lessons_claims_hold_on_langgraph():
    """What the lesson reveals, computed on both libraries from the same graphs."""
    pytest.importorskip("langgraph.prebuilt")
    from langchain_core.messages import HumanMessage

    _, ours = run_lesson("graphkit")
    asked = {"messages": [HumanMessage("A poem about tides, please.")]}
    for library in ("graphkit", "langgraph"):
        names = ours if library == "graphkit" else lesson_names_on_langgraph()
        # Q1: the supervisor's turns are steps 1, 3, 5 (LangGraph's checkpoints' steps)
        steps = stream_steps(names["supervisor_app"], asked)
        assert steps == {
            1: ["supervisor"],
            2: ["researcher"],
            3: ["supervisor"],
            4: ["writer"],
            5: ["supervisor"],
        }, library
        # Q2: the parent's step 2 runs writer; the handoff's update gave the parent 5 messages
        swarm = names["build_swarm"](names["transfer_to_writer"])
        steps = stream_steps(swarm, asked)
        assert steps == {1: ["researcher"], 2: ["writer"]}, library
        # Q2's text: the researcher's tools node runs the handoff in the subgraph's step 4
        inner = [
            (event["step"], event["payload"]["name"])
            for namespace, event in names["build_swarm"](names["transfer_to_writer"]).stream(
                asked, stream_mode="debug", subgraphs=True
            )
            if event["type"] == "task" and namespace and namespace[0].startswith("researcher:")
        ]
        assert inner == [(1, "agent"), (2, "tools"), (3, "agent"), (4, "tools")], library
        out = names["build_swarm"](names["transfer_to_writer"]).invoke(asked)
        assert [m.type for m in out["messages"]] == ["human", "ai", "tool", "ai", "tool", "ai"]
        assert out["messages"][-1].content == "A poem from 5 messages."
        # bug 1: the writer's step fails on the unanswered call
        with pytest.raises(ValueError, match="ToolMessage"):
            names["build_swarm"](names["transfer_without_answer"]).invoke(asked)
        # the ToolMessage alone: no failure, and none of the research
        only = names["build_swarm"](tool_message_only(library)).invoke(asked)
        assert [m.type for m in only["messages"]] == ["human", "tool", "ai"]


def lesson_names_on_langgraph() -> dict:
    return run_lesson("langgraph")[1]


def tool_message_only(library: str):
    """A handoff whose update is the ToolMessage alone, for ``library``."""
    if library == "graphkit":
        return _tool_message_only(Command, InjectedState)
    from langgraph.prebuilt import InjectedState as TheirInjectedState
    from langgraph.types import Command as TheirCommand

    return _tool_message_only(TheirCommand, TheirInjectedState)


def _tool_message_only(command, injected):
    def transfer_to_writer(state, tool_call_id):
        """Hand the conversation to the writer."""
        answer = ToolMessage("Transferred.", tool_call_id=tool_call_id)
        return command(graph=command.PARENT, goto="writer", update={"messages": [answer]})

    transfer_to_writer.__annotations__ = {
        "state": Annotated[dict, injected],
        "tool_call_id": Annotated[str, InjectedToolCallId],
    }
    return tool(transfer_to_writer)


def stream_steps(app, given) -> dict[int, list[str]]:
    """The nodes each step of the parent ran, from step 0, as ``stream_mode="debug"``
    reports its task events (both libraries); START's task left out."""
    steps: dict[int, list[str]] = {}
    for event in app.stream(given, stream_mode="debug"):
        if event["type"] == "task":
            name = event["payload"]["name"]
            if name != "__start__":
                steps.setdefault(event["step"], []).append(name)
    return steps


def test_the_lessons_cells_print_what_the_lesson_says():
    printed, _ = run_lesson("graphkit")
    told = "".join(printed.values())
    assert "supervisor ran in steps [1, 3, 5]" in told
    assert "writer ran in the parent's step [2]\n5 messages when writer started" in told
    assert "writer ran at step 2 because researcher wrote branch:to:writer in step 1." in told
    assert "after step 1: [4 messages: …, ai calls transfer_without_answer({})]" in told
    # (why names the tool whose handoff wrote the route, as the text after the cell says)
    assert "its tools node, running the tool transfer_without_answer" in " ".join(told.split())
    assert "EXECUTE  supervisor            wrote nothing: it returned Command(goto=END)" in told
    assert "draft = 'A poem: Tides follow the Moon, twice a day.'" in told
    assert "the parent's keys: ['messages']" in told
    assert "__start__ → ping → pong → ping → pong → ping → pong → ping → pong\n9 messages" in told


def test_a_key_the_parent_lacks_is_dropped_on_langgraph_too():
    pytest.importorskip("langgraph.prebuilt")
    from langchain_core.messages import HumanMessage

    _, names = run_lesson("langgraph", until="from graphkit import GraphRecursionError")
    out = names["builder"].compile()  # (the draft cell's parent: the last builder so far)
    got = out.invoke({"messages": [HumanMessage("A poem about tides, please.")]})
    assert list(got) == ["messages"]
    assert got["messages"][-1].content == "Tides follow the Moon, twice a day."


def test_the_loop_stops_at_the_same_step_on_langgraph():
    pytest.importorskip("langgraph.prebuilt")
    from langchain_core.messages import HumanMessage
    from langgraph.errors import GraphRecursionError as TheirError

    _, names = run_lesson("langgraph")
    seen = []
    with pytest.raises(TheirError):
        for chunk in names["loop_app"].stream(
            {"messages": [HumanMessage("hi")]}, {"recursion_limit": 8}, stream_mode="values"
        ):
            seen.append(len(chunk["messages"]))
    assert seen[-1] == 9  # as the lesson's graphkit run printed


def test_the_notebooks_stubs_fail_their_checks():
    _, names = run_lesson("graphkit", until="lesson16.check_step_counts")
    assert_fails(lesson16.check_supervisor(names["supervisor"]), "the run never ended")
    assert_fails(lesson16.check_handoff(names["clean_handoff"]), "no AIMessage says")
    verdict = lesson16.check_step_counts(names["parent_steps"], names["researcher_steps"])
    assert_fails(verdict, "parent_steps is not 0; researcher_steps is not 0.")


# -- 16.1


def test_supervisor_passes_on_the_solution():
    assert "ended the run" in assert_passes(lesson16.check_supervisor(solutions.supervisor)).message


def _answered(state):
    return {m.name for m in state["messages"] if m.type == "ai"}


def test_supervisor_that_never_ends_or_stops_early_or_repeats():
    def writer_forever(state):
        return Command(goto="writer" if "researcher" in _answered(state) else "researcher")

    verdict = lesson16.check_supervisor(writer_forever)
    assert_fails(verdict, "sent it to researcher, writer, writer", hint="end the run")

    def stops_early(state):
        return Command(goto=END if "researcher" in _answered(state) else "researcher")

    verdict = lesson16.check_supervisor(stops_early)
    assert_fails(
        verdict, "called researcher (researcher at step 2); the work needed researcher, then writer"
    )

    def from_the_start(state):
        done = len([m for m in state["messages"] if m.type == "ai"])
        return Command(goto=["researcher", "writer", END][min(done, 2)] if done < 2 else END)

    # counting AI messages passed every conversation made of the workers' answers only
    verdict = lesson16.check_supervisor(from_the_start)
    assert_fails(
        verdict,
        "On a conversation that opened with a greeting, your supervisor called writer",
        hint="message.name",
    )

    def by_length(state):
        return Command(goto=["researcher", "writer", END][min(len(state["messages"]) - 1, 2)])

    assert_fails(lesson16.check_supervisor(by_length), "opened with a greeting")

    verdict = lesson16.check_supervisor(lambda state: Command(goto=END))
    assert_fails(verdict, "your supervisor called no worker", hint="message.name")
    assert_fails(lesson16.check_supervisor(None), "not a function")


def test_supervisor_that_reads_only_the_last_message():
    # passed every conversation while the last message was always a worker's or the ask
    def by_last_message(state):
        last = state["messages"][-1]
        if last.type == "ai" and last.name == "researcher":
            return Command(goto="writer")
        return Command(goto=END if last.type == "ai" and last.name == "writer" else "researcher")

    verdict = lesson16.check_supervisor(by_last_message)
    assert_fails(
        verdict,
        "On a conversation where the user spoke again after the researcher's answer, your "
        "supervisor called researcher, then writer",
        hint="message.name",
    )


def test_supervisor_returning_a_bare_name_is_told_to_return_a_command():
    def bare_end(state):
        for worker in lesson16.WORKERS:
            if worker not in _answered(state):
                return Command(goto=worker)
        return END  # (a router's return, not a node's)

    assert_fails(lesson16.check_supervisor(bare_end), "got '__end__'", hint="Command(goto=END)")
    assert_fails(lesson16.check_supervisor(lambda state: "researcher"), hint="Command(goto=")


def test_supervisor_returning_a_dict_with_goto_is_told_to_return_a_command():
    def goto_dict(state):
        for worker in lesson16.WORKERS:
            if worker not in _answered(state):
                return {"goto": worker}  # reads who answered right, returns no Command
        return {"goto": END}

    verdict = lesson16.check_supervisor(goto_dict)
    assert_fails(verdict, "returned {'goto': 'researcher'}", hint="Command(goto=")
    assert "message.name" not in verdict.hint  # the learner already reads the names


def _still_to_do(state):
    return [worker for worker in lesson16.WORKERS if worker not in _answered(state)]


def test_supervisor_that_sends_every_worker_at_once_is_told_the_writer_ran_too_soon():
    """Command(goto=[researcher, writer]) ran both in one step, the writer with no
    research to write from, and passed: the calls came in the right order."""

    def all_at_once(state):
        return Command(goto=_still_to_do(state) or END)

    assert_fails(
        lesson16.check_supervisor(all_at_once),
        "researcher and writer in one step",
        hint="one worker at a time",
    )


def test_supervisor_that_looks_for_names_in_the_text_fails():
    """The workers' answers named them in their text ("researcher on ..."): a supervisor
    that searched the text for a worker's name passed without reading message.name."""

    def by_text(state):
        said = " ".join(str(m.content) for m in state["messages"] if m.type == "ai")
        todo = [worker for worker in lesson16.WORKERS if worker not in said]
        return Command(goto=todo[0] if todo else END)

    assert_fails(lesson16.check_supervisor(by_text), hint="message.name")


# -- 16.2


def test_handoff_passes_on_the_solution():
    verdict = assert_passes(lesson16.check_handoff(solutions.clean_handoff))
    assert "none of the researcher's tool calls" in verdict.message


def handoff(update_of, parent=True):
    @tool
    def transfer_to_writer(
        state: Annotated[dict, InjectedState], tool_call_id: Annotated[str, InjectedToolCallId]
    ) -> Command:
        """Hand the conversation to the writer."""
        answer = ToolMessage("Transferred.", tool_call_id=tool_call_id)
        return Command(
            graph=Command.PARENT if parent else None, goto="writer", update=update_of(state, answer)
        )

    return transfer_to_writer


@pytest.mark.parametrize(
    ("update_of", "said", "hint"),
    [
        (
            lambda s, m: {"messages": [*s["messages"], m]},
            "3 of them the researcher's own steps (its tool calls and their results), and 1 "
            "the ToolMessage your tool made",
            "messages you make",
        ),
        (  # (the learner's own ToolMessage, not one of the researcher's steps)
            lambda s, m: {"messages": [m]},
            'the parent\'s messages were [human: "a poem about owls", tool: "Transferred."]: '
            "the ToolMessage is the one your tool made, answering the researcher's call to "
            "transfer_to_writer, a call the parent's messages do not hold.",
            "an AIMessage",
        ),
        (lambda s, m: {"messages": s["messages"]}, "raised ValueError in step 2", "ToolMessage"),
        (  # (the findings said twice: "one AIMessage")
            lambda s, m: {"messages": [AIMessage(s["messages"][2].content) for _ in "ab"]},
            "3 messages.",
            "one AIMessage",
        ),
        (
            lambda s, m: {"messages": [AIMessage("owls: 28 notes found")]},
            "On 'tides'",  # (hard-coded for owls)
            "InjectedState",
        ),
    ],
)
def test_handoff_wrong_answers(update_of, said, hint):
    assert_fails(lesson16.check_handoff(handoff(update_of)), said, hint=hint)


def test_handoff_with_the_findings_in_a_human_message_is_told_to_make_it_an_ai_one():
    """The findings were there, in a HumanMessage; the hint said they are in the
    researcher's state (InjectedState), which the tool had read."""

    @tool("transfer_to_writer")
    def as_human(state: Annotated[dict, InjectedState]) -> Command:
        """Hand the conversation to the writer."""
        found = "; ".join(m.content for m in state["messages"] if m.type == "tool")
        update = {"messages": [{"role": "user", "content": f"Found: {found}"}]}
        return Command(graph=Command.PARENT, goto="writer", update=update)

    verdict = assert_fails(lesson16.check_handoff(as_human), "in a HumanMessage")
    assert "InjectedState" not in verdict.hint


def test_handoff_with_one_message_not_in_a_list():
    # a node may return one message for add_messages; a tool's Command update may not
    found = lambda s, m: {"messages": AIMessage(s["messages"][2].content)}  # noqa: E731
    verdict = lesson16.check_handoff(handoff(found))
    assert_fails(verdict, "Unexpected message type", hint='{"messages": [AIMessage(...)]}')


def test_handoff_to_its_own_graph():
    verdict = lesson16.check_handoff(handoff(lambda s, m: {"messages": [m]}, parent=False))
    assert_fails(verdict, "the writer never ran", hint="names the parent graph")
    assert_fails(lesson16.check_handoff(lambda state: None), "not a tool")


def _findings(state):
    found = "; ".join(m.content for m in state["messages"] if m.type == "tool")
    return {"messages": [AIMessage(f"Found: {found}")]}


@tool
def clean_handoff(state: Annotated[dict, InjectedState]) -> Command:
    """Hand the conversation to the writer."""
    return Command(graph=Command.PARENT, goto="writer", update=_findings(state))


@tool("transfer_to_writer")
def answers_in_words(state: Annotated[dict, InjectedState]) -> str:
    """Hand the conversation to the writer."""
    return "Transferred to the writer."


@tool("transfer_to_writer")
def state_the_model_must_give(state: dict) -> Command:
    """Hand the conversation to the writer."""
    return Command(graph=Command.PARENT, goto="writer", update=_findings(state))


@tool("transfer_to_writer")
def to_the_parent_going_nowhere(state: Annotated[dict, InjectedState]) -> Command:
    """Hand the conversation to the writer."""
    return Command(graph=Command.PARENT, update=_findings(state))


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        # each was told the writer never ran, with the hint that a Command goes to the
        # researcher's own graph unless it names the parent: none of them was that
        (clean_handoff, "Your tool is named 'clean_handoff'", '@tool("transfer_to_writer")'),
        (answers_in_words, "answered with 'Transferred to the writer.'", "Return a Command"),
        (state_the_model_must_give, "answered with an error", "InjectedState"),
        (to_the_parent_going_nowhere, "the parent's run got your update", "goto="),
    ],
)
def test_handoff_that_never_reaches_the_writer_is_told_why(answer, said, hint):
    verdict = assert_fails(lesson16.check_handoff(answer), said, hint=hint)
    assert "names the parent graph" not in verdict.hint


def test_handoff_given_a_graph_is_told_it_is_not_a_tool():
    # a graph has .invoke and .name: it reached create_react_agent, whose tool()
    # said "The first argument must be a string or a callable with a __name__ for tool
    # decorator. Got <class 'graphkit.pregel.app.CompiledGraph'>"
    from graphkit import START, StateGraph

    app = StateGraph(dict).add_node("a", lambda s: {}).add_edge(START, "a").compile()
    verdict = lesson16.check_handoff(app)
    assert_fails(verdict, "transfer_to_writer is a CompiledGraph, not a tool.")
    assert verdict.hint == "Keep the @tool decorator on the function, and pass the tool itself."


# -- 16.3


def test_step_counts_pass_on_the_solution():
    verdict = assert_passes(lesson16.check_step_counts(**solutions.STEP_COUNTS))
    assert "With three topics the counts stay 7 and 5" in verdict.message


@pytest.mark.parametrize(
    ("parent", "researcher", "said", "hint"),
    [
        (11, 5, "parent_steps is not 11.", "its own steps are not the parent's"),
        (6, 5, "parent_steps is not 6.", "counts the input step"),
        (5, 5, "parent_steps is not 5.", "counts the input step"),  # (steps 1 to 5)
        (7, 6, "researcher_steps is not 6.", "side by side"),
        (7, 4, "researcher_steps is not 4.", "own input step"),
        (7, "5", "researcher_steps is '5'", "Count"),
    ],
)
def test_step_counts_wrong_answers(parent, researcher, said, hint):
    verdict = lesson16.check_step_counts(parent, researcher)
    assert_fails(verdict, said, hint=hint)


def test_relay_program_counts_on_langgraph():
    """The program's step counts, from LangGraph's checkpoints: the parent's and the
    researcher's (its own namespace), with the same scripted model."""
    pytest.importorskip("langgraph.prebuilt")
    import langgraph.graph
    import langgraph.prebuilt
    import langgraph.types
    from langgraph.checkpoint.memory import InMemorySaver

    import graphkit

    swaps = {
        (graphkit, "StateGraph"): langgraph.graph.StateGraph,
        (graphkit, "Command"): langgraph.types.Command,
    }
    import graphkit.prebuilt as ours_prebuilt

    swaps[(ours_prebuilt, "create_react_agent")] = langgraph.prebuilt.create_react_agent
    swaps[(ours_prebuilt, "MessagesState")] = langgraph.graph.MessagesState
    saved = {key: getattr(*key) for key in swaps}
    try:
        for (module, name), value in swaps.items():
            setattr(module, name, value)
        app, given = lesson16.relay_program()
    finally:
        for (module, name), value in saved.items():
            setattr(module, name, value)
    assert type(app).__module__.startswith("langgraph")
    app.checkpointer = InMemorySaver()
    config = {"configurable": {"thread_id": "relay"}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        app.invoke(given, config)
    parent = [s.metadata["step"] for s in app.get_state_history(config)]
    assert sorted(parent) == list(range(-1, 6))  # 7 steps, as graphkit counts
    # the researcher's own checkpoints (its namespace): 5 steps, the tool calls in one
    inner = {
        saved.metadata["step"]
        for saved in app.checkpointer.list(None)
        if saved.config["configurable"].get("checkpoint_ns", "").startswith("researcher:")
    }
    assert sorted(inner) == list(range(-1, 4))
    assert lesson16._counts(("owls", "bats")) == (7, 5)


def test_the_swarm_shows_the_same_when_run_again_after_the_exercises():
    """A learner re-runs section 2's swarm cells after 16.2's stub, and the earlier
    sections' reading cells after the later ones: they build, run and read each section's
    run still. (The stub once took the name ``transfer_to_writer``, so the rebuilt swarm
    handed off with the stub, and reading its run failed; and the swarm's run and section
    3's were named ``run`` too, so reading the supervisor's run read the swarm's, and the
    swarm's read section 3's.)"""
    run_cells(LESSON, again=("l16-c08", "l16-c10", "l16-c14", "l16-c17", "l16-c19", "l16-c20"))


def test_each_reveal_cell_shows_the_same_when_run_again_at_once():
    """A learner who fixes a guess runs its reveal cell again, and nothing else: the swarm's
    scripted models, built once, ran out of answers, and Q2's reveal raised
    ScriptExhaustedError."""
    run_cells(LESSON, until="from graphkit.course import lesson16", again=("l16-c06", "l16-c17"))
