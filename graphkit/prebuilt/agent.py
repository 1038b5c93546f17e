"""create_react_agent: a chat model and its tools, looping as a graph.

The agent is an ordinary StateGraph, the same one LangGraph builds: ``agent`` calls the
model; if the answer has tool calls, ``tools`` runs them in the next superstep and
wakes ``agent`` again; otherwise the run ends. With ``version="v2"`` (the default) each
tool call is its own PUSH task (a ``Send``), so parallel calls run as parallel tasks.

>>> from langchain_core.messages import AIMessage
>>> from graphkit.prebuilt.fake import ScriptedChatModel
>>> def add(a: int, b: int) -> int:
...     '''Add two numbers.'''
...     return a + b
>>> model = ScriptedChatModel(responses=[
...     AIMessage("", tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}, "id": "c1"}]),
...     "2 + 3 = 5",
... ])
>>> agent = create_react_agent(model, [add])
>>> run = agent.trace({"messages": [("user", "what is 2 + 3?")]})
>>> [m.content for m in run.values["messages"]]
['what is 2 + 3?', '', '5', '2 + 3 = 5']
>>> [step.plan.nodes for step in run.steps[2:]]
[['agent'], ['tools'], ['agent']]
"""

from __future__ import annotations

import difflib
import inspect
import warnings
from collections.abc import Sequence
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,  # (pydantic reads it: see messages.py)
    get_type_hints,
)

from langchain_core.messages import AnyMessage, BaseMessage
from pydantic import BaseModel
from typing_extensions import TypedDict

from graphkit.constants import END
from graphkit.errors import LangGraphDeprecatedSinceV10
from graphkit.graph import StateGraph
from graphkit.managed import RemainingSteps
from graphkit.prebuilt.agent_nodes import NEED_MORE_STEPS, Agent, TwoSidedNode
from graphkit.prebuilt.chat_model import prompt_runnable, with_tools
from graphkit.prebuilt.messages import add_messages
from graphkit.prebuilt.tool_node import ToolNode

__all__ = [
    "NEED_MORE_STEPS",
    "AgentState",
    "AgentStateWithStructuredResponse",
    "create_react_agent",
]


class AgentState(TypedDict):
    """The agent's state: the history, and the steps left before the recursion limit."""

    messages: Annotated[Sequence[BaseMessage], add_messages]
    remaining_steps: NotRequired[RemainingSteps]


StructuredResponse = dict | BaseModel
"""The structured answer of an agent asked for one: a dict, or the pydantic model."""


class AgentStateWithStructuredResponse(AgentState):
    """AgentState plus the structured answer asked for with ``response_format``."""

    structured_response: StructuredResponse


def create_react_agent(
    model: Any,
    tools: Sequence[Any] | ToolNode,
    *,
    prompt: Any = None,
    response_format: Any = None,
    pre_model_hook: Any = None,
    post_model_hook: Any = None,
    state_schema: Any = None,
    context_schema: Any = None,
    checkpointer: Any = None,
    store: Any = None,
    interrupt_before: list[str] | None = None,
    interrupt_after: list[str] | None = None,
    debug: bool = False,
    version: Literal["v1", "v2"] = "v2",
    name: str | None = None,
    **deprecated: Any,
) -> Any:
    """Build and compile a ReAct agent graph (LangGraph's, argument for argument).

    ``model`` is a chat model (tools are bound with ``bind_tools`` when it can), a
    ``"provider:model"`` string (needs the ``langchain`` package), or a function
    ``(state, runtime) -> model`` choosing one per call. ``prompt`` is None, a string
    or SystemMessage put before the history, or a function / Runnable of the state.
    ``pre_model_hook`` runs before each model call (return ``llm_input_messages`` to
    change what the model sees without changing the history); ``post_model_hook``
    after it. ``response_format`` adds a last model call that fills
    ``structured_response``. See docs/agents.md.
    """
    if "config_schema" in deprecated:
        warnings.warn(
            "`config_schema` is deprecated and will be removed. Please use `context_schema` "
            "instead: write create_react_agent(..., context_schema=...).",
            LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        config_schema = deprecated.pop("config_schema")  # (context_schema wins, as in LangGraph)
        context_schema = config_schema if context_schema is None else context_schema
    if deprecated:
        raise TypeError(_unknown_keywords(deprecated))
    if version not in ("v1", "v2"):
        raise ValueError(f"create_react_agent(version={version!r}): use 'v1' or 'v2'.")
    state_schema = _checked_schema(state_schema, response_format)
    if isinstance(tools, ToolNode):
        tool_node, builtin = tools, []
    else:
        builtin = [tool for tool in tools if isinstance(tool, dict)]
        tool_node = ToolNode([tool for tool in tools if not isinstance(tool, dict)])
    tool_list = list(tool_node.tools_by_name.values())
    agent = Agent(
        *_models(model, tool_list, builtin),
        prompt=prompt_runnable(prompt),
        response_format=response_format,
        pre_model_hook=pre_model_hook,
        post_model_hook=post_model_hook,
        return_direct=frozenset(tool.name for tool in tool_list if tool.return_direct),
        version=version,
        name=name,
    )
    builder = StateGraph(state_schema, context_schema)
    _add_nodes(builder, agent, tool_node if tool_list else None)
    return builder.compile(
        checkpointer=checkpointer,
        store=store,
        interrupt_before=interrupt_before,
        interrupt_after=interrupt_after,
        debug=debug,
        name=name,
    )


def _unknown_keywords(given: dict[str, Any]) -> str:
    """Keywords ``create_react_agent`` does not take: LangGraph's words first (its tests
    match them), then the fix: the keyword each one is probably a slip for, and them all.

    >>> _unknown_keywords({"promt": "Be brief."})[:86]
    "create_react_agent() got unexpected keyword arguments: {'promt': 'Be brief.'}. Did you"
    """
    keywords = [
        parameter.name
        for parameter in inspect.signature(create_react_agent).parameters.values()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    meant = [
        f"{close[0]}="
        for name in given
        if (close := difflib.get_close_matches(name, keywords, n=1, cutoff=0.75))
    ]
    hint = f" Did you mean {', '.join(meant)}?" if meant else ""
    return (
        f"create_react_agent() got unexpected keyword arguments: {given}.{hint} Its "
        f"keywords are {', '.join(keywords)}."
    )


def _add_nodes(builder: StateGraph, agent: Agent, tool_node: ToolNode | None) -> None:
    """LangGraph's agent graph: its nodes, then its edges."""
    schema = _model_input_schema(builder.state_schema, agent.pre_model_hook)
    # both sides, as LangGraph's: an async run awaits the chooser and prompt and calls the
    # model's ainvoke
    agent_node = TwoSidedNode(agent.call_model, agent.acall_model)
    builder.add_node("agent", agent_node, input_schema=schema)
    if tool_node is not None:
        builder.add_node("tools", tool_node)
    if agent.pre_model_hook is not None:
        builder.add_node("pre_model_hook", agent.pre_model_hook)
        builder.add_edge("pre_model_hook", "agent")
    builder.set_entry_point(agent.entry)
    if agent.post_model_hook is not None:
        builder.add_node("post_model_hook", agent.post_model_hook)
        builder.add_edge("agent", "post_model_hook")
    if agent.response_format is not None:
        answer = TwoSidedNode(
            agent.generate_structured_response, agent.agenerate_structured_response
        )
        builder.add_node("generate_structured_response", answer)
    if tool_node is not None:
        _wire_tool_loop(builder, agent)
    elif agent.response_format is not None:  # no tools: straight to the structured answer
        last = "post_model_hook" if agent.post_model_hook is not None else "agent"
        builder.add_edge(last, "generate_structured_response")


def _wire_tool_loop(builder: StateGraph, agent: Agent) -> None:
    """The edges of an agent with tools, as LangGraph draws them."""
    finish = "generate_structured_response" if agent.response_format is not None else END
    if agent.post_model_hook is not None:
        agent_paths = ["post_model_hook"]
        post_paths = [agent.entry, "tools", finish]
        builder.add_conditional_edges("post_model_hook", agent.post_model_hook_router, post_paths)
    else:
        agent_paths = ["tools", finish]
    builder.add_conditional_edges("agent", agent.should_continue, agent_paths)
    if agent.return_direct:
        builder.add_conditional_edges("tools", agent.route_tool_responses, [agent.entry, END])
    else:
        builder.add_edge("tools", agent.entry)


def _models(model: Any, tools: list[Any], builtin: list[dict[str, Any]]) -> tuple[Any, Any]:
    """The static model with tools bound, or a function choosing the model per call."""
    is_runnable = callable(getattr(model, "invoke", None))
    if callable(model) and not isinstance(model, str) and not is_runnable:
        return None, model
    if isinstance(model, str):
        try:
            from langchain.chat_models import init_chat_model
        except ImportError:
            raise ImportError(
                f"create_react_agent({model!r}): a 'provider:model' string needs the "
                "`langchain` package (pip install langchain); or pass a chat model object."
            ) from None
        model = init_chat_model(model)
    return with_tools(model, tools, builtin), None


def _checked_schema(state_schema: Any, response_format: Any) -> Any:
    if state_schema is None:
        return AgentState if response_format is None else AgentStateWithStructuredResponse
    required = {"messages", "remaining_steps"}
    if response_format is not None:
        required.add("structured_response")
    missing = required - set(get_type_hints(state_schema))
    if missing:
        raise ValueError(
            f"state_schema {state_schema.__name__} lacks key(s) {sorted(missing)}; subclass "
            "graphkit.prebuilt.AgentState (or AgentStateWithStructuredResponse) to add yours."
        )
    return state_schema


def _model_input_schema(state_schema: Any, pre_model_hook: Any) -> Any:
    """With a pre-model hook, the agent node also reads ``llm_input_messages``."""
    if pre_model_hook is None:
        return state_schema
    if hasattr(state_schema, "model_fields"):
        from pydantic import create_model

        return create_model(
            "CallModelInputSchema",
            llm_input_messages=(list[AnyMessage], ...),
            __base__=state_schema,
        )

    class CallModelInputSchema(state_schema):  # type: ignore[misc,valid-type]
        llm_input_messages: list[AnyMessage]

    return CallModelInputSchema
