"""What callbacks and LangSmith hear of a ``create_react_agent`` run, on both libraries:
the program of LangGraph's "pass custom run ID or set tags and metadata" guide
(docs.langchain.com, ``src/oss/run-id-langsmith.mdx``) and the agent's other shapes.

LangGraph's agent node is heard as a ``call_model`` run beside a ``Prompt | model``
sequence (a ``Prompt`` run, then the model), and its routers by their names
(``should_continue``, ``post_model_hook_router``, ``route_tool_responses``). The chat
model is a scripted one.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import uuid
import warnings
from typing import Any, Literal
from unittest.mock import MagicMock

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, SystemMessage
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.tools import tool
from pydantic import BaseModel

from graphkit.prebuilt.fake import ScriptedChatModel

RUN_ID = uuid.UUID("12345678-1234-5678-1234-567812345678")
INPUTS = {"messages": [("user", "what is the weather in sf")]}


def _create_react_agent(library: str) -> Any:
    return importlib.import_module(f"{library}.prebuilt").create_react_agent


@tool
def get_weather(city: Literal["nyc", "sf"]):
    """Use this to get weather information."""
    if city == "nyc":
        return "It might be cloudy in nyc"
    elif city == "sf":
        return "It's always sunny in sf"
    else:
        raise AssertionError("Unknown city")


@tool(return_direct=True)
def final_answer(text: str) -> str:
    """Answer the user, ending the run."""
    return text


class Weather(BaseModel):
    conditions: str


def _answers() -> list[Any]:
    call = {"name": "get_weather", "args": {"city": "sf"}, "id": "call_9Zud"}
    structured = {"name": "Weather", "args": {"conditions": "sunny"}, "id": "s1"}
    return [
        AIMessage("", tool_calls=[call], id="a1"),
        AIMessage("The weather in San Francisco is currently sunny.", id="a2"),
        AIMessage("", tool_calls=[structured], id="a3"),
    ]


def _model() -> ScriptedChatModel:
    return ScriptedChatModel(responses=_answers())


class _Runs(BaseCallbackHandler):
    """Each run a handler hears start: kind, name, parent (by order heard), sorted tags,
    the given metadata and the node's, the given run id recognised."""

    def __init__(self) -> None:
        self.runs: list[tuple[Any, ...]] = []
        self.order: dict[Any, int] = {}

    def _heard(self, kind: str, serialized: Any, run_id: Any, kwargs: dict[str, Any]) -> None:
        self.order[run_id] = len(self.order)
        metadata = kwargs.get("metadata") or {}
        self.runs.append(
            (
                kind,
                kwargs.get("name") or (serialized or {}).get("name"),
                "given" if run_id == RUN_ID else self.order[run_id],
                self.order.get(kwargs.get("parent_run_id")),
                sorted(kwargs.get("tags") or []),
                metadata.get("a"),
                metadata.get("langgraph_node"),
            )
        )

    def on_chain_start(self, serialized, inputs, *, run_id, **kwargs):
        self._heard("chain", serialized, run_id, kwargs)

    def on_chat_model_start(self, serialized, messages, *, run_id, **kwargs):
        self._heard("chat model", serialized, run_id, kwargs)

    def on_tool_start(self, serialized, input_str, *, run_id, **kwargs):
        self._heard("tool", serialized, run_id, kwargs)


def _heard(library: str, run: str) -> list[tuple[Any, ...]]:
    """The guide's program (its config with a run id and metadata added), heard."""
    graph = _create_react_agent(library)(_model(), tools=[get_weather])
    runs = _Runs()
    config = {
        "run_name": "agent_007",
        "tags": ["cats are awesome"],
        "metadata": {"a": 5},
        "run_id": RUN_ID,
        "callbacks": [runs],
    }
    if run == "stream":
        for chunk in graph.stream(INPUTS, config, stream_mode="values"):
            chunk["messages"][-1].pretty_repr()
    elif run == "ainvoke":
        asyncio.run(graph.ainvoke(INPUTS, config))
    else:
        graph.invoke(INPUTS, config)
    return runs.runs


@pytest.mark.parametrize("run", ["stream", "invoke", "ainvoke"])
def test_the_guides_agent_is_heard_as_in_langgraph(run):
    expected = _heard("langgraph", run)
    names = [heard[1] for heard in expected]
    assert names[:6] == [
        "agent_007",
        "agent",
        "call_model",
        "RunnableSequence",
        "Prompt",
        "ScriptedChatModel",
    ]
    assert "should_continue" in names
    assert _heard("graphkit", run) == expected


def _pre_model_hook(state: dict[str, Any]) -> dict[str, Any]:
    return {"llm_input_messages": state["messages"][-3:]}


def _dynamic_model(state: dict[str, Any], runtime: Any) -> Any:
    return ScriptedChatModel(responses=_answers()[len(state["messages"]) // 2 :]).bind_tools(
        [get_weather]
    )


AGENTS = {
    "hooks": lambda create: create(
        _model(), [get_weather], pre_model_hook=_pre_model_hook, post_model_hook=lambda s: {}
    ),
    "return_direct": lambda create: create(
        ScriptedChatModel(
            responses=[
                AIMessage(
                    "", tool_calls=[{"name": "final_answer", "args": {"text": "hi"}, "id": "f"}]
                )
            ]
        ),
        [get_weather, final_answer],
    ),
    "response_format": lambda create: create(_model(), [get_weather], response_format=Weather),
    "a prompt template": lambda create: create(
        _model(),
        [get_weather],
        prompt=ChatPromptTemplate.from_messages(
            [("system", "Be brief."), ("placeholder", "{messages}")]
        ),
    ),
    "a prompt function returning a template": lambda create: create(
        _model(), [get_weather], prompt=lambda state: SystemMessage("Be brief.") + state["messages"]
    ),
    "a model chosen per call": lambda create: create(_dynamic_model, [get_weather]),
    "v1": lambda create: create(_model(), [get_weather], version="v1"),
    "no tools": lambda create: create(ScriptedChatModel(responses=["hi"]), []),
    "a model that fails": lambda create: create(ScriptedChatModel(responses=[]), []),
}


def _agent_heard(library: str, shape: str, run_async: bool) -> list[tuple[Any, ...]]:
    agent = AGENTS[shape](_create_react_agent(library))
    runs = _Runs()
    config = {"callbacks": [runs]}
    try:
        if run_async:
            asyncio.run(agent.ainvoke(INPUTS, config))
        else:
            agent.invoke(INPUTS, config)
    except Exception as error:  # (the failing model's run is heard up to its error)
        runs.runs.append(("raised", type(error).__name__))
    return runs.runs


@pytest.mark.parametrize("run_async", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("shape", list(AGENTS))
def test_each_agent_shape_is_heard_as_in_langgraph(shape, run_async):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangGraph's deprecation of create_react_agent
        expected = _agent_heard("langgraph", shape, run_async)
        assert _agent_heard("graphkit", shape, run_async) == expected


def _traced(library: str, run_async: bool) -> list[tuple[Any, ...]]:
    """The guide's view in LangSmith: the runs a ``LangChainTracer`` posts (to a mock),
    as (depth, name, parent's name, tags), the root's id the one given."""
    import langsmith
    from langchain_core.tracers import LangChainTracer

    client = langsmith.Client(session=MagicMock(), api_key="test", auto_batch_tracing=False)
    tracer = LangChainTracer(client=client)
    graph = _create_react_agent(library)(_model(), tools=[get_weather])
    config = {"run_name": "agent_007", "tags": ["cats are awesome"], "run_id": RUN_ID}
    config["callbacks"] = [tracer]
    if run_async:
        asyncio.run(graph.ainvoke(INPUTS, config))
    else:
        graph.invoke(INPUTS, config)
    tracer.wait_for_futures()
    posted = [
        json.loads(call.kwargs["data"])
        for call in client.session.request.mock_calls
        if call.args and call.args[0] == "POST" and "data" in call.kwargs
    ]
    names = {run["id"]: run["name"] for run in posted}
    root = next(run for run in posted if run.get("parent_run_id") is None)
    assert root["id"] == str(RUN_ID)
    return sorted(
        (
            run["dotted_order"].count("."),
            run["name"],
            names.get(run.get("parent_run_id")),
            sorted(run.get("tags") or []),
        )
        for run in posted
    )


@pytest.mark.parametrize("run_async", [False, True], ids=["invoke", "ainvoke"])
def test_the_guides_trace_in_langsmith_is_langgraphs(run_async):
    """A traced run's tree: the model's sequence is ``call_model``'s child there."""
    pytest.importorskip("langsmith")
    assert _traced("graphkit", run_async) == _traced("langgraph", run_async)
