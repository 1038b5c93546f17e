"""Checks for lesson 16 · Several agents: a supervisor and handoffs, superstep by superstep.

Each check runs the learner's supervisor, handoff tool or prediction on the real runtime,
with conversations and agents of its own, and reads the records: which node each step of
the parent ran, which subgraph run handed off, and what the handoff's update put in the
parent's ``messages``.

>>> from graphkit.course.solutions import lesson16 as solutions
>>> bool(check_supervisor(solutions.supervisor))
True
"""

from __future__ import annotations

import warnings
from typing import Any

from graphkit.constants import END, START
from graphkit.course.answers import failed_run
from graphkit.course.checking import Wrong, exercise, what_was_given
from graphkit.errors import GraphkitWarning, GraphRecursionError
from graphkit.extras import require

__all__ = [
    "WORKERS",
    "check_handoff",
    "check_step_counts",
    "relay_program",
    "supervisor_graph",
    "swarm_graph",
]

WORKERS = ("researcher", "writer")
"""The workers of exercise 16.1's supervisor, in the order the work needs them."""

LOOP_LIMIT = 20
"""The recursion limit the checks run a supervisor with: its loop ends well before."""


def _messages(*names: str) -> tuple[Any, ...]:
    module = require("langchain_core.messages", extra="agents", feature="lesson 16's checks")
    return tuple(getattr(module, name) for name in names)


def _quiet(app: Any, input: Any, config: dict | None = None) -> Any:
    """``app.trace``, its warnings off (a node reached only by a Command is no news here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        return app.trace(input, config)


def _nodes(run: Any) -> list[str]:
    """The nodes the run's steps ran, in order (START's task left out)."""
    return [
        task.node
        for step in run.steps
        if step.step >= 0
        for task in step.plan.tasks
        if task.node != START
    ]


# -- 16.1 · a supervisor that knows when the work is done --------------------------------


# (what each worker's answer says: not its name, which only message.name carries, so a
# supervisor that looks for "researcher" in the text finds nothing)
_WORK = {"researcher": "Notes on", "writer": "A draft on"}


def _worker(name: str) -> Any:
    (AIMessage,) = _messages("AIMessage")

    def work(state: dict) -> dict:
        asked = state["messages"][0].content
        return {"messages": [AIMessage(f"{_WORK[name]} {asked!r}", name=name)]}

    return work


def supervisor_graph(supervisor: Any) -> Any:
    """``supervisor`` (a node returning ``Command(goto=...)``) and the workers of
    ``WORKERS``, each of which answers with an AIMessage named after itself and hands
    control back to the supervisor (an edge)."""
    from graphkit import StateGraph
    from graphkit.prebuilt import MessagesState

    builder = StateGraph(MessagesState)
    builder.add_node("supervisor", supervisor, destinations=(*WORKERS, END))
    for name in WORKERS:
        builder.add_node(name, _worker(name))
        builder.add_edge(name, "supervisor")
    builder.add_edge(START, "supervisor")
    return builder.compile()


def _conversations() -> list[tuple[str, list[Any], list[str]]]:
    """(what it is, the conversation, the workers the supervisor must still call)."""
    AIMessage, HumanMessage = _messages("AIMessage", "HumanMessage")
    ask = HumanMessage("a story about owls")
    found = AIMessage("Notes on 'a story about owls'", name="researcher")
    wrote = AIMessage("A draft on 'a story about owls'", name="writer")
    # (an assistant's greeting, from no worker: counting AI messages is not reading names)
    hello = [HumanMessage("hi"), AIMessage("Hello! What shall we write?"), ask]
    # (the user spoke after the researcher: reading only the last message is not reading
    # who has answered)
    more = [ask, found, HumanMessage("Make it rhyme, please.")]
    return [
        ("a new conversation", [ask], ["researcher", "writer"]),
        ("a conversation that opened with a greeting", hello, ["researcher", "writer"]),
        ("a conversation the researcher has answered", [ask, found], ["writer"]),
        (
            "a conversation where the user spoke again after the researcher's answer",
            more,
            ["writer"],
        ),
        ("a conversation both workers have answered", [ask, found, wrote], []),
    ]


@exercise("16.1 · A supervisor that knows when the work is done")
def check_supervisor(supervisor: Any) -> str:
    """``supervisor(state)`` returns ``Command(goto=...)``: the first worker of
    ``WORKERS`` that has not answered yet, or ``END`` when all have. Tried on five
    conversations, at different points of the work (one opened with a greeting from no
    worker, one where the user spoke after the researcher's answer)."""
    if not callable(supervisor):
        raise Wrong(
            f"supervisor is {supervisor!r}, not a function: give the node itself.",
            "Pass the function you wrote, supervisor, without calling it.",
        )
    app = supervisor_graph(supervisor)
    for what, conversation, expected in _conversations():
        config = {"recursion_limit": LOOP_LIMIT}
        try:
            run = _quiet(app, {"messages": conversation}, config)
        except GraphRecursionError as error:
            called = [n for n in _nodes(error.run) if n != "supervisor"]
            raise Wrong(
                f"On {what}, the run never ended: the supervisor sent it to "
                f"{', '.join(called[:4])}… until the recursion limit ({LOOP_LIMIT}) stopped "
                "it.",
                "Each worker hands control back to the supervisor. The supervisor must "
                "see in the messages what is already done (each worker's AIMessage carries "
                "its name, message.name), and end the run when nothing is left to do.",
            ) from None
        except Exception as error:
            wrong = failed_run(app, error)
            if "returned a value of type str" in str(error):  # (a router's return)
                wrong.hint = (
                    "A router returns a node's name; a node returns its writes or a "
                    "Command. Return Command(goto=...), for the end too: Command(goto=END)."
                )
            raise wrong from error
        together = [s for s in run.steps if sum(n in WORKERS for n in s.plan.nodes) > 1]
        if together:
            both = [n for n in together[0].plan.nodes if n in WORKERS]
            raise Wrong(
                f"On {what}, your supervisor sent the run to {' and '.join(both)} in one "
                f"step (step {together[0].step}): each ran on the messages of the step "
                f"before, so {both[-1]} started with no answer from {both[0]}.",
                "The work goes one worker at a time: Command(goto=...) with the first "
                "worker still needed, and the next one when control comes back.",
            )
        called = [n for n in _nodes(run) if n != "supervisor"]
        if called != expected:
            said = ", then ".join(called) if called else "no worker"
            steps = ", ".join(
                f"{n} at step {s.step}" for s in run.steps for n in s.plan.nodes if n in WORKERS
            )
            hint = (
                "Read who has answered: each worker's AIMessage carries its name "
                "(message.name). Call the first worker of lesson16.WORKERS not among them."
            )
            if not expected and called:
                hint = "When every worker has answered, there is nothing left: end the run."
            returned = _not_a_command(run)
            if returned:
                said += f": it returned {returned}, not a Command, so no route was written"
                hint = (
                    "A node's dict holds writes to the state's keys and routes nowhere: "
                    "return Command(goto=...), for the end too: Command(goto=END)."
                )
            raise Wrong(
                f"On {what}, your supervisor called {said}"
                f"{f' ({steps})' if steps else ''}; the work needed "
                f"{', then '.join(expected) if expected else 'no worker: it was done'}.",
                hint,
            )
    return (
        "On each conversation the supervisor called only the workers still needed, "
        "getting control back after each, and ended the run when the work was done."
    )


def _not_a_command(run: Any) -> str:
    """What a supervisor task returned that was not a Command, shown; '' if each returned
    a Command."""
    from graphkit.inspect.values import show
    from graphkit.types import Command

    for step in run.steps:
        for result in step.execution.results if step.execution else ():
            output = result.output
            if result.task.node == "supervisor" and not isinstance(output, Command):
                return show(output)
    return ""


# -- 16.2 · a handoff that carries the conversation --------------------------------------


def _look_up_tool() -> Any:
    from langchain_core.tools import tool

    @tool
    def look_up(topic: str) -> str:
        """Look a topic up."""
        return f"{topic}: {len(topic) * 7} notes found"

    return look_up


HANDOFF_CALL = "c2"
"""The id of the researcher's call to ``transfer_to_writer``: a ToolMessage answering it
is the handoff's own, made by the learner's tool."""


def swarm_graph(transfer_to_writer: Any, topic: str = "owls") -> tuple[Any, Any]:
    """A parent graph of two agents, ``researcher`` (looks ``topic`` up, then calls
    ``transfer_to_writer``) and ``writer``, each a ``create_react_agent`` subgraph; and
    the writer's model (its ``calls`` say what it was sent)."""
    from graphkit import StateGraph
    from graphkit.prebuilt import MessagesState, ScriptedChatModel, create_react_agent

    (AIMessage,) = _messages("AIMessage")
    researcher_model = ScriptedChatModel(
        responses=[
            AIMessage("", tool_calls=[{"name": "look_up", "args": {"topic": topic}, "id": "c1"}]),
            AIMessage(
                "", tool_calls=[{"name": "transfer_to_writer", "args": {}, "id": HANDOFF_CALL}]
            ),
            "(the researcher kept the conversation: no handoff)",
        ]
    )
    writer_model = ScriptedChatModel(
        responses=[lambda sent: f"A poem, sent {len(sent)} message(s)"]
    )
    builder = StateGraph(MessagesState)
    researcher = create_react_agent(researcher_model, [_look_up_tool(), transfer_to_writer])
    builder.add_node("researcher", researcher, destinations=("writer",))
    builder.add_node("writer", create_react_agent(writer_model, []))
    builder.add_edge(START, "researcher")
    return builder.compile(), writer_model


def _never_handed_off(transfer_to_writer: Any, run: Any, topic: str) -> None:
    """Say why the researcher's call to the tool did not reach the writer, when the
    records tell: its answer was an error, or text, or a Command to the parent going
    nowhere. (A Command to the researcher's own graph is said by the caller.)"""
    from graphkit.prebuilt.tool_args import injected_args

    messages = run.values["messages"]
    reply = next((m for m in messages if getattr(m, "tool_call_id", None) == HANDOFF_CALL), None)
    where = f"On {topic!r}, the writer never ran: the researcher's call to transfer_to_writer"
    if reply is not None and reply.status == "error":
        raise Wrong(
            f"{where} was answered with an error: {' '.join(str(reply.content).split())}",
            "The researcher's model calls your tool with no arguments: each argument must "
            "be one the graph fills in, annotated InjectedState or InjectedToolCallId.",
        )
    state = {"messages": messages[: messages.index(reply)] if reply else messages}
    args = {
        name: state if key is None else state.get(key)
        for name, key in injected_args(transfer_to_writer).state.items()
    }
    call = {"name": "transfer_to_writer", "args": args, "id": HANDOFF_CALL, "type": "tool_call"}
    try:
        returned = transfer_to_writer.invoke(call)
    except Exception:
        return
    if type(returned).__name__ != "Command" and reply is not None:
        raise Wrong(
            f"{where} was answered with {reply.content!r}: what a tool returns is the text "
            "of its ToolMessage, read by the researcher's own model, and the researcher "
            "went on.",
            "Return a Command: it is what takes the run to another node.",
        )
    if type(returned).__name__ == "Command" and returned.graph == "__parent__":
        goto = returned.goto
        said = f"its goto is {goto!r}, no node of the parent" if goto else "it has no goto"
        raise Wrong(
            f"{where} ended the researcher's run, and the parent's run got your update, "
            f"but your Command went nowhere: {said}, so the run ended after step "
            f"{run.steps[-1].step}.",
            "Name the parent's node the run goes to, in goto=.",
        )


def _kinds(messages: Any) -> str:
    from graphkit.inspect.values import show

    return show(list(messages), width=200)


@exercise("16.2 · A handoff with a clean history")
def check_handoff(transfer_to_writer: Any) -> str:
    """``transfer_to_writer`` is a tool whose ``Command`` goes to the parent graph's
    ``writer`` and gives the parent's ``messages`` the user's question and one AIMessage
    saying what the researcher found, with no tool call and no ToolMessage. Tried on two
    topics."""
    graph = hasattr(transfer_to_writer, "get_state")  # (it has .invoke and .name too)
    if (
        graph
        or not hasattr(transfer_to_writer, "invoke")
        or not hasattr(transfer_to_writer, "name")
    ):
        shown = what_was_given(transfer_to_writer) if graph else repr(transfer_to_writer)
        raise Wrong(
            f"transfer_to_writer is {shown}, not a tool.",
            "Keep the @tool decorator on the function, and pass the tool itself.",
        )
    if transfer_to_writer.name != "transfer_to_writer":
        raise Wrong(
            f"Your tool is named {transfer_to_writer.name!r}: the researcher calls "
            "transfer_to_writer, a tool it does not have.",
            "A tool is called by its name, the function's unless given: keep "
            '@tool("transfer_to_writer") above the function.',
        )
    for topic in ("owls", "tides"):
        app, _ = swarm_graph(transfer_to_writer, topic)
        try:
            run = _quiet(app, {"messages": [("user", f"a poem about {topic}")]})
        except Exception as error:
            last = error.run.steps[-1] if getattr(error, "run", None) else None
            failed = [r.task.node for r in last.execution.results if r.error] if last else []
            if isinstance(error, ValueError) and failed == ["writer"]:
                step = last.step
                raise Wrong(
                    f"On {topic!r}, the writer's agent raised ValueError in step {step}: "
                    "the parent's messages held a tool call that no ToolMessage answered, "
                    "which the handoff's update gave it.",
                    "A tool call in a history needs the ToolMessage that answers it; the "
                    "writer needs neither. Hand it messages of your own.",
                ) from None
            wrong = failed_run(app, error)
            if "Unexpected message type" in str(error):  # (one message, read as a list)
                wrong.hint = (
                    "A tool's Command must give messages as a list, even of one: "
                    '{"messages": [AIMessage(...)]}. (A node may return one message; the '
                    "tools node reads the update of a tool's Command as a list.)"
                )
            raise wrong from error
        writer_steps = [s.step for s in run.steps for n in s.plan.nodes if n == "writer"]
        if not writer_steps:
            _never_handed_off(transfer_to_writer, run, topic)
            final = run.values["messages"][-1].content
            raise Wrong(
                f"On {topic!r}, the writer never ran: the parent's run ended after step "
                f"{run.steps[-1].step} with {final!r}.",
                "A Command the tool returns goes to the graph that runs the tool, the "
                "researcher's own, unless it names the parent graph.",
            )
        given = run.step(writer_steps[0] - 1).checkpoint.channel_values["messages"]
        where = (
            f"On {topic!r}, when the writer started (step {writer_steps[0]}), the parent's "
            f"messages were {_kinds(given)}"
        )
        chatter = [m for m in given if m.type == "tool" or getattr(m, "tool_calls", None)]
        replies = [m for m in chatter if getattr(m, "tool_call_id", None) == HANDOFF_CALL]
        steps = len(chatter) - len(replies)
        if steps:
            also = f", and {len(replies)} the ToolMessage your tool made" if replies else ""
            raise Wrong(
                f"{where}: {steps} of them the researcher's own steps (its tool calls and "
                f"their results){also}.",
                "Hand over what the writer needs, in messages you make: the question, and "
                "what was found in the words of an AIMessage.",
            )
        if replies:
            raise Wrong(
                f"{where}: the ToolMessage is the one your tool made, answering the "
                "researcher's call to transfer_to_writer, a call the parent's messages do "
                "not hold.",
                "The writer needs no reply to a call it never saw: hand it what was found "
                "in the words of an AIMessage.",
            )
        found = _look_up_tool().invoke({"topic": topic})
        if not any(m.type == "ai" and found in str(m.content) for m in given):
            carriers = [m for m in given if found in str(m.content)]
            if carriers:  # (the findings are there, in another kind of message)
                kind = type(carriers[0]).__name__
                raise Wrong(
                    f"{where}: the findings are there, in a {kind}, as if someone else "
                    "had said them.",
                    "Put them in the words of an AIMessage (the researcher speaking): "
                    'AIMessage("Found: ...", name="researcher").',
                )
            raise Wrong(
                f"{where}: no AIMessage says what the researcher found ({found!r}).",
                "The parent gets only what the handoff's update carries: the researcher's "
                "findings are in its own state (InjectedState), not in the parent's.",
            )
        if not given or given[0].type != "human":
            raise Wrong(f"{where}: the user's question is gone.", "Keep the question first.")
        if len(given) != 2:
            raise Wrong(
                f"{where}: {len(given)} messages.",
                "The writer needs two: the question, and one AIMessage with the findings.",
            )
    return (
        "The researcher's run handed off; the parent's next step ran writer, whose model "
        "was sent the question and the findings, with none of the researcher's tool calls."
    )


# -- 16.3 · how many supersteps? ---------------------------------------------------------


def relay_program(topics: tuple[str, ...] = ("owls", "bats")) -> tuple[Any, Any]:
    """A supervisor, a ``researcher`` agent (a ``create_react_agent`` subgraph whose model
    looks up every topic at once, in one answer, then answers) and a ``writer`` node; and
    the input to run it with."""
    from graphkit import Command, StateGraph
    from graphkit.prebuilt import MessagesState, ScriptedChatModel, create_react_agent

    AIMessage, HumanMessage = _messages("AIMessage", "HumanMessage")
    calls = [{"name": "look_up", "args": {"topic": t}, "id": f"c{n}"} for n, t in enumerate(topics)]
    model = ScriptedChatModel(responses=[AIMessage("", tool_calls=calls), "Here is what I found."])

    def supervisor(state: dict) -> Command:
        done = {m.name for m in state["messages"] if m.type == "ai"}
        todo = [name for name in ("researcher", "writer") if name not in done]
        return Command(goto=todo[0] if todo else END)

    def writer(state: dict) -> dict:
        return {"messages": [AIMessage("A poem.", name="writer")]}

    builder = StateGraph(MessagesState)
    builder.add_node("supervisor", supervisor, destinations=("researcher", "writer", END))
    agent = create_react_agent(model, [_look_up_tool()], name="researcher")
    builder.add_node("researcher", agent)
    builder.add_node("writer", writer)
    builder.add_edge(START, "supervisor")
    builder.add_edge("researcher", "supervisor")
    builder.add_edge("writer", "supervisor")
    return builder.compile(), {"messages": [HumanMessage("a poem about night animals")]}


def _counts(topics: tuple[str, ...]) -> tuple[int, int]:
    """What ``print(run)`` says of the parent's run and of the researcher's subgraph run."""
    app, given = relay_program(topics)
    run = _quiet(app, given)
    (subrun,) = [r for s in run.steps for t in s.execution.results for r in t.subruns]
    return len(run.steps), len(subrun.steps)


@exercise("16.3 · How many supersteps?")
def check_step_counts(parent_steps: Any, researcher_steps: Any) -> str:
    """``parent_steps`` and ``researcher_steps``: the supersteps ``print(run)`` counts
    for the parent's run of ``relay_program()`` and for the researcher's subgraph run.
    Judged against the runtime, which runs the program (with two topics, then three)."""
    for name, value in (("parent_steps", parent_steps), ("researcher_steps", researcher_steps)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise Wrong(f"{name} is {value!r}; give a whole number.", "Count the supersteps.")
    parent, researcher = _counts(("owls", "bats"))
    wrong, hints = [], []
    if parent_steps != parent:
        wrong.append(f"parent_steps is not {parent_steps}")
        hints.append(_parent_hint(parent_steps, parent, researcher))
    if researcher_steps != researcher:
        wrong.append(f"researcher_steps is not {researcher_steps}")
        hints.append(_researcher_hint(researcher_steps, researcher))
    if wrong:
        raise Wrong("; ".join(wrong) + ".", " ".join(hints))
    more = _counts(("owls", "bats", "moths"))
    return (
        f"The parent counts {parent} supersteps, the researcher's own run {researcher}: "
        f"a subgraph is one task of one parent step, and its tool calls share one step. "
        f"With three topics the counts stay {more[0]} and {more[1]}."
    )


def _parent_hint(said: int, truth: int, researcher: int) -> str:
    """Why ``said`` is a tempting wrong count of the parent's supersteps."""
    if said > truth and said - truth >= researcher - 2:  # the subgraph's steps added
        return (
            "The researcher's subgraph runs inside one task of one parent step: its own "
            "steps are not the parent's."
        )
    if said in (truth - 1, truth - 2):  # the nodes' steps only, or START's left out
        return "print(run) counts the input step (-1) and step 0, START's, too."
    return (
        "The supervisor runs before each worker and once more at the end; each run of a "
        "node is one step of its own, one step after the write that woke it."
    )


def _researcher_hint(said: int, truth: int) -> str:
    """Why ``said`` is a tempting wrong count of the subgraph's supersteps."""
    if said == truth + 1:  # the tool calls counted one step each
        return (
            "The tool calls of one answer run side by side, as push tasks of one step (lesson 06)."
        )
    if said == truth - 1:
        return "The subgraph's run has its own input step (-1) and step 0, counted too."
    return (
        "The researcher's agent is a ReAct loop: model, tools, model; count its input step "
        "and START's step too."
    )
