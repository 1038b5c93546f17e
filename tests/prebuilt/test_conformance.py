"""graphkit's prebuilt agent and ToolNode against LangGraph's, on the same models and tools.

For every scenario (tests/prebuilt/scenarios.py): the same per-step task results (a
multiset per step), the same final history (ids normalised), the same other state keys,
the same model inputs, the same number of saved supersteps and the same error. The
number of supersteps graphkit runs is also counted from its records (``app.trace``).
"""

import dataclasses
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool

from graphkit.prebuilt import ScriptedChatModel

from .harness import (
    Scenario,
    Side,
    build,
    canonical,
    graphkit_side,
    langgraph_side,
    observe,
    run_config,
)
from .scenarios import SCENARIOS, TWO_CALLS, add, calls, counting, explode, multiply

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
# (LangGraph's create_react_agent is deprecated in favour of langchain's create_agent.)


@pytest.fixture(scope="module")
def langgraph_observations() -> dict[str, Any]:
    return {scenario.name: observe(langgraph_side(), scenario) for scenario in SCENARIOS}


def test_there_are_enough_scenarios() -> None:
    assert len(SCENARIOS) >= 10
    assert len({scenario.name for scenario in SCENARIOS}) == len(SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=repr)
def test_langgraph_side_is_pinned(scenario: Scenario, langgraph_observations: dict) -> None:
    """What LangGraph does on the scenario: it raises what the scenario says, or it runs
    to the end; a scenario that tests nothing (no model call) cannot pass unnoticed."""
    seen = langgraph_observations[scenario.name]
    assert seen.error == scenario.raises
    assert seen.model_calls or scenario.raises
    if scenario.error_facts:  # the facts are in LangGraph's error ToolMessage too
        mentioned = "error mentioning " + ", ".join(scenario.error_facts)
        assert any(mentioned in message for message in seen.history)


@pytest.mark.parametrize("saver", ["InMemorySaver", "SqliteSaver"])
@pytest.mark.parametrize("scenario", SCENARIOS, ids=repr)
def test_graphkit_matches_langgraph(
    scenario: Scenario, saver: str, langgraph_observations: dict
) -> None:
    """LangGraph's InMemorySaver serializes every value; graphkit's keeps them as they
    are, so each scenario also runs on graphkit's SqliteSaver."""
    expected = langgraph_observations[scenario.name]
    if saver == "SqliteSaver":
        scenario = dataclasses.replace(scenario, serializing=True)
    seen = observe(graphkit_side(), scenario)
    for part in scenario.compared:
        assert getattr(seen, part) == getattr(expected, part), part


@pytest.mark.parametrize("scenario", [s for s in SCENARIOS if not s.serializing], ids=repr)
def test_trace_counts_the_same_supersteps(scenario: Scenario, langgraph_observations: dict):
    """The recorded run has one superstep per LangGraph step: the input, START, then one
    per step in which tasks ran (LangGraph numbers them -1, 0, 1, ...)."""
    expected = max(langgraph_observations[scenario.name].steps, default=0) + 2
    app = build(graphkit_side(), scenario, ScriptedChatModel(responses=scenario.responses()))
    try:
        run = app.trace(scenario.input(), run_config(scenario, thread="trace"))
    except Exception as error:
        assert type(error).__name__ == scenario.raises
        run = error.run
    assert len(run.steps) == expected


def _tools_steps(version: str) -> list[Any]:
    scenario = next(s for s in SCENARIOS if s.name == f"two parallel calls ({version})")
    app = build(graphkit_side(), scenario, ScriptedChatModel(responses=scenario.responses()))
    run = app.trace(scenario.input(), run_config(scenario))
    return [step for step in run.steps if "tools" in step.plan.nodes]


def test_v2_tool_calls_are_parallel_push_tasks() -> None:
    (step,) = _tools_steps("v2")
    assert [(task.node, task.kind) for task in step.plan.tasks] == [
        ("tools", "push"),
        ("tools", "push"),
    ]
    assert [task.input["tool_call"]["id"] for task in step.plan.tasks] == ["c1", "c2"]
    assert all(task.triggers == ("__pregel_push",) for task in step.plan.tasks)


def test_v1_runs_every_call_in_one_pull_task() -> None:
    (step,) = _tools_steps("v1")
    assert [(task.node, task.kind) for task in step.plan.tasks] == [("tools", "pull")]
    (result,) = step.execution.results
    assert [m.tool_call_id for m in result.output["messages"]] == ["c1", "c2"]


def test_v1_and_v2_give_the_same_history() -> None:
    one, two = (
        observe(graphkit_side(), next(s for s in SCENARIOS if s.name == name))
        for name in ("two parallel calls (v1)", "two parallel calls (v2)")
    )
    assert one.history == two.history
    assert one.supersteps == two.supersteps
    assert Counter(len(v) for v in one.nodes.values()) != Counter(
        len(v) for v in two.nodes.values()
    )


# -- ToolNode on its own ------------------------------------------------------------------


def _asking(*tool_calls: dict[str, Any]) -> list[Any]:
    return [HumanMessage("hi", id="h"), AIMessage("", tool_calls=list(tool_calls), id="a")]


def _commanding(side: Side) -> Any:
    @tool
    def finish(tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """Finish with a Command."""
        done = ToolMessage("finished", tool_call_id=tool_call_id)
        return side.Command(update={"messages": [done], "status": "done"}, goto="review")

    return finish


def _silent(side: Side) -> Any:
    @tool
    def silent() -> Any:
        """Return a Command that does not answer the call."""
        return side.Command(update={"status": "done"})

    return silent


def _only_value_errors(error: ValueError) -> str:
    return f"caught {type(error).__name__}"


def _only_key_errors(error: KeyError) -> str:
    return "caught"


def _passing(request: Any, execute: Any) -> Any:
    return execute(request)


def _doubling_arguments(request: Any, execute: Any) -> Any:
    args = {key: value * 2 for key, value in request.tool_call["args"].items()}
    return execute(request.override(tool_call={**request.tool_call, "args": args}))


def _running_twice(request: Any, execute: Any) -> Any:
    first, second = execute(request), execute(request)
    content = f"{first.content} then {second.content}"
    return ToolMessage(content, tool_call_id=request.tool_call["id"], name=first.name)


def _answering_itself(request: Any, execute: Any) -> Any:
    if request.tool is None:  # a tool the node does not have: answered here
        return ToolMessage(f"no {request.tool_call['name']}", tool_call_id=request.tool_call["id"])
    return execute(request)


def _describing(request: Any, execute: Any) -> Any:
    seen = (
        len(request.state["messages"]),
        request.runtime.tool_call_id,
        request.tool.name,
        request.tool_call["args"],
    )
    return ToolMessage(repr(seen), tool_call_id=request.tool_call["id"])


def _more_messages(request: Any, execute: Any) -> Any:
    messages = [*request.state["messages"], HumanMessage("more", id="m")]
    return execute(request.override(state={"messages": messages}))


def _wrapper_raising(request: Any, execute: Any) -> Any:
    raise ValueError("wrapper broke")


def _routing(side: Side) -> Any:
    def wrap(request: Any, execute: Any) -> Any:
        answer = execute(request)
        return side.Command(update={"messages": [answer], "status": "wrapped"})

    return wrap


EXPLODE = {"name": "explode", "args": {"a": 1}, "id": "x1"}
TOOL_NODE_CASES = [
    (
        "state dict, two calls",
        lambda s: s.ToolNode([add, multiply]),
        lambda: {"messages": _asking(*TWO_CALLS)},
    ),
    ("list of messages", lambda s: s.ToolNode([add]), lambda: _asking(TWO_CALLS[0])),
    (
        "tool calls themselves",
        lambda s: s.ToolNode([add, multiply]),
        lambda: [{**call, "type": "tool_call"} for call in TWO_CALLS],
    ),
    (
        "call with its state",
        lambda s: s.ToolNode([add]),
        lambda: {"__type": "tool_call_with_context", "tool_call": TWO_CALLS[0], "state": {}},
    ),
    (
        "unknown tool",
        lambda s: s.ToolNode([add]),
        lambda: {"messages": _asking({"name": "nope", "args": {}, "id": "n1"})},
    ),
    ("raising, default", lambda s: s.ToolNode([explode]), lambda: _asking(EXPLODE)),
    (
        "raising, True",
        lambda s: s.ToolNode([explode], handle_tool_errors=True),
        lambda: _asking(EXPLODE),
    ),
    (
        "raising, text",
        lambda s: s.ToolNode([explode], handle_tool_errors="it broke"),
        lambda: _asking(EXPLODE),
    ),
    (
        "raising, handler for it",
        lambda s: s.ToolNode([explode], handle_tool_errors=_only_value_errors),
        lambda: _asking(EXPLODE),
    ),
    (
        "raising, handler for others",
        lambda s: s.ToolNode([explode], handle_tool_errors=_only_key_errors),
        lambda: _asking(EXPLODE),
    ),
    (
        "raising, its class",
        lambda s: s.ToolNode([explode], handle_tool_errors=ValueError),
        lambda: _asking(EXPLODE),
    ),
    (
        "raising, other classes",
        lambda s: s.ToolNode([explode], handle_tool_errors=(KeyError,)),
        lambda: _asking(EXPLODE),
    ),
    (
        "raising, False",
        lambda s: s.ToolNode([explode], handle_tool_errors=False),
        lambda: _asking(EXPLODE),
    ),
    (
        "bad arguments",
        lambda s: s.ToolNode([add]),
        lambda: _asking({"name": "add", "args": {"a": "x"}, "id": "b1"}),
    ),
    (
        "bad arguments, not handled",
        lambda s: s.ToolNode([add], handle_tool_errors=False),
        lambda: _asking({"name": "add", "args": {"a": "x"}, "id": "b1"}),
    ),
    (
        "Command from a state",
        lambda s: s.ToolNode([_commanding(s)]),
        lambda: {"messages": _asking({"name": "finish", "args": {}, "id": "f1"})},
    ),
    (
        "Command from a list",
        lambda s: s.ToolNode([_commanding(s)]),
        lambda: _asking({"name": "finish", "args": {}, "id": "f1"}),
    ),
    (
        "Command that answers nothing",
        lambda s: s.ToolNode([_silent(s)]),
        lambda: {"messages": _asking({"name": "silent", "args": {}, "id": "s1"})},
    ),
    (
        "InjectedState from a list",
        lambda s: s.ToolNode([counting(s)]),
        lambda: _asking({"name": "count_messages", "args": {}, "id": "c1"}),
    ),
    ("no AIMessage", lambda s: s.ToolNode([add]), lambda: {"messages": [HumanMessage("hi")]}),
    (
        "wrap: passing through, two calls",
        lambda s: s.ToolNode([add, multiply], wrap_tool_call=_passing),
        lambda: {"messages": _asking(*TWO_CALLS)},
    ),
    (
        "wrap: arguments changed",
        lambda s: s.ToolNode([add], wrap_tool_call=_doubling_arguments),
        lambda: _asking(TWO_CALLS[0]),
    ),
    (
        "wrap: run twice",
        lambda s: s.ToolNode([add], wrap_tool_call=_running_twice),
        lambda: _asking(TWO_CALLS[0]),
    ),
    (
        "wrap: unknown tool answered by the wrapper",
        lambda s: s.ToolNode([add], wrap_tool_call=_answering_itself),
        lambda: {"messages": _asking({"name": "nope", "args": {}, "id": "n1"})},
    ),
    (
        "wrap: unknown tool passed through",
        lambda s: s.ToolNode([add], wrap_tool_call=_passing),
        lambda: {"messages": _asking({"name": "nope", "args": {}, "id": "n1"})},
    ),
    (
        "wrap: what the request holds",
        lambda s: s.ToolNode([add], wrap_tool_call=_describing),
        lambda: {"messages": _asking(TWO_CALLS[0])},
    ),
    (
        "wrap: state overridden",
        lambda s: s.ToolNode([counting(s)], wrap_tool_call=_more_messages),
        lambda: {"messages": _asking({"name": "count_messages", "args": {}, "id": "c1"})},
    ),
    (
        "wrap: the wrapper raises, default",
        lambda s: s.ToolNode([add], wrap_tool_call=_wrapper_raising),
        lambda: _asking(TWO_CALLS[0]),
    ),
    (
        "wrap: the wrapper raises, other classes handled",
        lambda s: s.ToolNode(
            [add], wrap_tool_call=_wrapper_raising, handle_tool_errors=(KeyError,)
        ),
        lambda: _asking(TWO_CALLS[0]),
    ),
    (
        "wrap: the wrapper raises, False",
        lambda s: s.ToolNode([add], wrap_tool_call=_wrapper_raising, handle_tool_errors=False),
        lambda: _asking(TWO_CALLS[0]),
    ),
    (
        "wrap: the tool raises, True",
        lambda s: s.ToolNode([explode], wrap_tool_call=_passing, handle_tool_errors=True),
        lambda: _asking(EXPLODE),
    ),
    (
        "wrap: the tool raises, default",
        lambda s: s.ToolNode([explode], wrap_tool_call=_passing),
        lambda: _asking(EXPLODE),
    ),
    (
        "wrap: returns a Command",
        lambda s: s.ToolNode([add], wrap_tool_call=_routing(s)),
        lambda: {"messages": _asking(TWO_CALLS[0])},
    ),
    ("no messages", lambda s: s.ToolNode([add]), lambda: {"messages": []}),
    ("an AIMessage without calls", lambda s: s.ToolNode([add]), lambda: _asking()),
]
FACTS = (
    "nope",
    "add",
    "ValueError('cannot handle 1')",
    "it broke",
    "caught ValueError",
    "'a'",
    "'x'",
    "ValueError('wrapper broke')",
)


@pytest.mark.parametrize(
    ("name", "make", "given"), TOOL_NODE_CASES, ids=[c[0] for c in TOOL_NODE_CASES]
)
def test_tool_node_matches_langgraph(name: str, make: Any, given: Any) -> None:
    assert _outcome(graphkit_side(), make, given) == _outcome(langgraph_side(), make, given)


def _outcome(side: Side, make: Any, given: Any) -> str:
    """What a ToolNode invoked inside a running node returns, or the error it raises."""
    node = make(side)

    def invoke(config: Any) -> str:
        try:
            return canonical(node.invoke(given(), config), facts=FACTS)
        except Exception as error:
            return f"raised {type(error).__name__}"

    return side.inside_a_node(invoke)


def test_tool_node_cases_are_meaningful() -> None:
    """Each kind of outcome occurs: results, error ToolMessages, Commands and errors."""
    outcomes = [_outcome(langgraph_side(), make, given) for _, make, given in TOOL_NODE_CASES]
    text = "\n".join(outcomes)
    for expected in (
        "raised ValueError",
        "error mentioning nope, add",
        "Command{",
        "'3'",
        "caught ValueError",
        "it broke",
    ):
        assert expected in text


async def _apassing(request: Any, execute: Any) -> Any:
    return await execute(request)


async def _adoubling(request: Any, execute: Any) -> Any:
    args = {key: value * 2 for key, value in request.tool_call["args"].items()}
    return await execute(request.override(tool_call={**request.tool_call, "args": args}))


async def _aanswering(request: Any, execute: Any) -> Any:
    return ToolMessage(f"async {request.tool_call['name']}", tool_call_id=request.tool_call["id"])


async def _araising(request: Any, execute: Any) -> Any:
    raise ValueError("wrapper broke")


AWRAP_CASES = [
    ("passing through, two calls", {"awrap_tool_call": _apassing}, TWO_CALLS),
    ("arguments changed", {"awrap_tool_call": _adoubling}, TWO_CALLS[:1]),
    ("answering itself", {"awrap_tool_call": _aanswering}, TWO_CALLS[:1]),
    ("raising, True", {"awrap_tool_call": _araising, "handle_tool_errors": True}, TWO_CALLS[:1]),
    ("raising, default", {"awrap_tool_call": _araising}, TWO_CALLS[:1]),
    (
        "with wrap_tool_call too",
        {"awrap_tool_call": _adoubling, "wrap_tool_call": _running_twice},
        TWO_CALLS[:1],
    ),
]


@pytest.mark.parametrize(
    ("name", "options", "tool_calls"), AWRAP_CASES, ids=[c[0] for c in AWRAP_CASES]
)
def test_awrap_tool_call_matches_langgraph(name: str, options: dict, tool_calls: Any) -> None:
    """``ainvoke`` goes through ``awrap_tool_call``; ``invoke`` ignores it (and uses
    ``wrap_tool_call`` if given), on both libraries."""
    import asyncio

    def outcome(side: Side) -> Any:
        node = side.ToolNode([add, multiply], **options)

        def both(config: Any) -> Any:
            seen = []
            for run in (
                lambda: node.invoke({"messages": _asking(*tool_calls)}, config),
                lambda: asyncio.run(node.ainvoke({"messages": _asking(*tool_calls)}, config)),
            ):
                try:
                    seen.append(canonical(run(), facts=FACTS))
                except Exception as error:
                    seen.append(f"raised {type(error).__name__}")
            return seen

        return side.inside_a_node(both)

    assert outcome(graphkit_side()) == outcome(langgraph_side())


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("wrapping", ["wrap_tool_call", "awrap_tool_call"])
def test_a_wrapped_tool_node_in_an_async_agent_matches_langgraph(wrapping: str, version: str):
    """An async run goes through ``awrap_tool_call``, or else ``wrap_tool_call`` (as
    LangGraph does without the async one: its sync ``execute`` in a worker thread)."""
    import asyncio

    from .scenarios import doubling_arguments

    handler = doubling_arguments if wrapping == "wrap_tool_call" else _adoubling

    def answer(side: Side) -> list[str]:
        model = ScriptedChatModel(responses=[calls(*TWO_CALLS), "wrapped"])
        tools = side.ToolNode([add, multiply], **{wrapping: handler})
        agent = side.create_react_agent(model, tools, version=version)
        result = asyncio.run(agent.ainvoke({"messages": [("user", "hi")]}))
        return [str(message.content) for message in result["messages"]]

    assert answer(graphkit_side()) == answer(langgraph_side()) == ["hi", "", "6", "48", "wrapped"]


# -- an async def choosing the model, or making the prompt --------------------------------


def _async_agent_outcomes(side: Side, kind: str) -> list[str]:
    """Sync invoke, ainvoke and astream of an agent whose model chooser or prompt is an
    ``async def``: what each gives (the history's contents) or raises. (The chooser
    returns the scripted model as it is: it calls its scripted tools unbound.)"""

    from pydantic import BaseModel

    class Answer(BaseModel):
        text: str

    return [_async_agent_run(side, kind, run, Answer) for run in ("invoke", "ainvoke", "astream")]


def _async_agent_run(side: Side, kind: str, run: str, answer: type) -> str:
    import asyncio

    from langchain_core.messages import SystemMessage

    structured = calls({"name": "Answer", "args": {"text": "ok"}, "id": "s1"})
    model = ScriptedChatModel(responses=[calls(TWO_CALLS[0]), "done", structured])

    async def choose(state: Any, runtime: Any) -> Any:
        await asyncio.sleep(0)
        return model

    async def prompt(state: Any) -> list[Any]:
        await asyncio.sleep(0)
        return [SystemMessage("be brief"), *state["messages"]]

    if kind == "model":
        agent = side.create_react_agent(choose, [add])
    elif kind == "model and response_format":
        agent = side.create_react_agent(choose, [add], response_format=answer)
    else:
        agent = side.create_react_agent(model, [add], prompt=prompt)
    given = {"messages": [("user", "hi")]}

    async def streamed() -> Any:
        last = None
        async for chunk in agent.astream(given, stream_mode="values"):
            last = chunk
        return last

    try:
        if run == "invoke":
            result = agent.invoke(given)
        elif run == "ainvoke":
            result = asyncio.run(agent.ainvoke(given))
        else:
            result = asyncio.run(streamed())
    except Exception as error:
        return f"raised {type(error).__name__}"
    shown = [str(message.content) for message in result["messages"]]
    if "structured_response" in result:
        shown.append(repr(result["structured_response"]))
    sent = [[str(m.content) for m in call] for call in model.calls]
    return f"{shown} sent {sent}"


@pytest.mark.parametrize("kind", ["model", "model and response_format", "prompt"])
def test_an_async_model_chooser_or_prompt_matches_langgraph(kind: str) -> None:
    ours = _async_agent_outcomes(graphkit_side(), kind)
    assert ours == _async_agent_outcomes(langgraph_side(), kind)
    assert ours[0].startswith("raised ") and ours[1] == ours[2]


@pytest.mark.parametrize("chosen", [False, True], ids=["static model", "sync chooser"])
def test_an_async_run_calls_the_model_s_async_side(chosen: bool) -> None:
    """As LangGraph's agent node, graphkit's has both sides: ``ainvoke`` calls the
    model's ``ainvoke`` (a model whose two sides answer differently shows which ran)."""
    import asyncio

    from langchain_core.language_models import BaseChatModel
    from langchain_core.outputs import ChatGeneration, ChatResult

    class TwoSided(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "two-sided"

        def _generate(self, messages: Any, stop: Any = None, **kwargs: Any) -> ChatResult:
            return ChatResult(generations=[ChatGeneration(message=AIMessage("from invoke"))])

        async def _agenerate(self, messages: Any, stop: Any = None, **kwargs: Any) -> ChatResult:
            return ChatResult(generations=[ChatGeneration(message=AIMessage("from ainvoke"))])

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    def answers(side: Side) -> tuple[str, str]:
        model = TwoSided()
        agent = side.create_react_agent((lambda state, runtime: model) if chosen else model, [add])
        given = {"messages": [("user", "hi")]}
        synchronous = agent.invoke(given)["messages"][-1].content
        return synchronous, asyncio.run(agent.ainvoke(given))["messages"][-1].content

    assert answers(graphkit_side()) == answers(langgraph_side()) == ("from invoke", "from ainvoke")


def test_the_agents_page_counts_what_this_suite_runs() -> None:
    """docs/agents.md says how many scenarios and ToolNode cases this module compares; the
    counts drifted as cases were added (34 and 22 when there were 36 and 35)."""
    page = (Path(__file__).parents[2] / "docs" / "agents.md").read_text()
    page = " ".join(page.split())  # the sentence wraps
    assert f"runs {len(SCENARIOS)} agent scenarios" in page
    assert f"and {len(TOOL_NODE_CASES)} ToolNode cases" in page
