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

import dataclasses
import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal, NotRequired, TypedDict, get_type_hints

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, SystemMessage, ToolMessage

from graphkit.constants import END
from graphkit.graph import StateGraph
from graphkit.managed import RemainingSteps
from graphkit.prebuilt.chat_model import (
    chat_model_of,
    check_history,
    prompt_function,
    state_value,
    with_tools,
)
from graphkit.prebuilt.messages import add_messages
from graphkit.prebuilt.tool_node import ToolNode
from graphkit.types import Send

__all__ = [
    "NEED_MORE_STEPS",
    "AgentState",
    "AgentStateWithStructuredResponse",
    "create_react_agent",
]

NEED_MORE_STEPS = "Sorry, need more steps to process this request."
"""The agent's answer when the recursion limit leaves no room for another tool round."""


class AgentState(TypedDict):
    """The agent's state: the history, and the steps left before the recursion limit."""

    messages: Annotated[Sequence[BaseMessage], add_messages]
    remaining_steps: NotRequired[RemainingSteps]


class AgentStateWithStructuredResponse(AgentState):
    """AgentState plus the structured answer asked for with ``response_format``."""

    structured_response: Any


@dataclasses.dataclass(frozen=True)
class _Agent:
    """What the agent's nodes and routers share, fixed when the agent is built."""

    model: Any  # the model with its tools bound, or None for a model chosen per call
    choose_model: Callable[[Any, Any], Any] | None
    prompt: Callable[[Any, Any], Any]
    response_format: Any
    pre_model_hook: Any
    post_model_hook: Any
    return_direct: frozenset[str]
    version: str
    name: str | None

    @property
    def entry(self) -> str:
        """The node each round starts at."""
        return "pre_model_hook" if self.pre_model_hook is not None else "agent"

    def resolve(self, state: Any, runtime: Any) -> Any:
        """The model for this call."""
        if self.choose_model is None:
            return self.model
        return self.choose_model(state, runtime)

    # -- nodes --------------------------------------------------------------------------

    def call_model(self, state: Any, config: Any, runtime: Any) -> dict[str, Any]:
        """The ``agent`` node: one model call on the (prompted) history."""
        hooked = self.pre_model_hook is not None
        messages = state_value(state, "messages")
        if hooked:
            messages = state_value(state, "llm_input_messages") or messages
        if messages is None:
            keys = "'llm_input_messages' or 'messages'" if hooked else "'messages'"
            raise ValueError(f"The agent node needs {keys} in its input, got {state!r}.")
        check_history(messages)
        model_state = _replaced(state, messages=messages)
        response = self.resolve(state, runtime).invoke(self.prompt(model_state, config), config)
        response.name = self.name
        if self.needs_more_steps(state, response):
            return {"messages": [AIMessage(id=response.id, content=NEED_MORE_STEPS)]}
        return {"messages": [response]}

    def needs_more_steps(self, state: Any, response: BaseMessage) -> bool:
        """LangGraph's rule: stop with NEED_MORE_STEPS when fewer than 2 steps remain
        and the model wants tools (or fewer than 1 and every call returns directly)."""
        remaining = state_value(state, "remaining_steps")
        if remaining is None:
            return False
        is_ai = isinstance(response, AIMessage)
        calls = response.tool_calls if is_ai else []
        all_direct = is_ai and all(call["name"] in self.return_direct for call in calls)
        return (remaining < 1 and all_direct) or (remaining < 2 and bool(calls))

    def structured_response(self, state: Any, config: Any, runtime: Any) -> dict[str, Any]:
        """The ``generate_structured_response`` node: one more call, for the schema."""
        messages = state_value(state, "messages")
        schema = self.response_format
        if isinstance(schema, tuple):
            system, schema = schema
            messages = [SystemMessage(content=system), *messages]
        model = chat_model_of(self.resolve(state, runtime)).with_structured_output(schema)
        return {"structured_response": model.invoke(messages, config)}

    # -- routers ------------------------------------------------------------------------

    def after_model(self, state: Any) -> str | list[Send]:
        """Tools if the answer has calls (v2: one Send per call), else the end."""
        last = state_value(state, "messages")[-1]
        if not isinstance(last, AIMessage) or not last.tool_calls:
            if self.post_model_hook is not None:
                return "post_model_hook"
            return "generate_structured_response" if self.response_format is not None else END
        if self.version == "v1":
            return "tools"
        if self.post_model_hook is not None:
            return "post_model_hook"
        return [self.send(call, state) for call in last.tool_calls]

    def after_post_hook(self, state: Any) -> str | list[Send]:
        """Run the calls not answered yet, or go on as ``after_model`` would."""
        messages = state_value(state, "messages")
        answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        last_ai = next(m for m in reversed(messages) if isinstance(m, AIMessage))
        pending = [call for call in last_ai.tool_calls if call["id"] not in answered]
        if pending:
            return [self.send(call, state) for call in pending]
        if isinstance(messages[-1], ToolMessage):
            return self.entry
        return "generate_structured_response" if self.response_format is not None else END

    def after_tools(self, state: Any) -> str:
        """The end if a ``return_direct`` tool just answered, else the next round."""
        message = None
        for message in reversed(state_value(state, "messages")):
            if not isinstance(message, ToolMessage):
                break
            if message.name in self.return_direct:
                return END
        # with v2, a return_direct call may have run in another task of the same step
        if isinstance(message, AIMessage) and any(
            call["name"] in self.return_direct for call in message.tool_calls
        ):
            return END
        return self.entry

    @staticmethod
    def send(call: dict[str, Any], state: Any) -> Send:
        payload = {"__type": "tool_call_with_context", "tool_call": call, "state": state}
        return Send("tools", payload)


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
            "create_react_agent(config_schema=...) is deprecated; use context_schema=...",
            DeprecationWarning,
            stacklevel=2,
        )
        context_schema = context_schema or deprecated.pop("config_schema")
    if deprecated:
        raise TypeError(f"create_react_agent() got unexpected arguments {sorted(deprecated)}.")
    if version not in ("v1", "v2"):
        raise ValueError(f"create_react_agent(version={version!r}): use 'v1' or 'v2'.")
    state_schema = _checked_schema(state_schema, response_format)
    if isinstance(tools, ToolNode):
        tool_node, builtin = tools, []
    else:
        builtin = [tool for tool in tools if isinstance(tool, dict)]
        tool_node = ToolNode([tool for tool in tools if not isinstance(tool, dict)])
    tool_list = list(tool_node.tools_by_name.values())
    agent = _Agent(
        *_models(model, tool_list, builtin),
        prompt=prompt_function(prompt),
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


def _add_nodes(builder: StateGraph, agent: _Agent, tool_node: ToolNode | None) -> None:
    """LangGraph's agent graph: its nodes, then its edges."""
    schema = _model_input_schema(builder.state_schema, agent.pre_model_hook)
    builder.add_node("agent", agent.call_model, input_schema=schema)
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
        builder.add_node("generate_structured_response", agent.structured_response)
    if tool_node is not None:
        _wire_tool_loop(builder, agent)
    elif agent.response_format is not None:  # no tools: straight to the structured answer
        last = "post_model_hook" if agent.post_model_hook is not None else "agent"
        builder.add_edge(last, "generate_structured_response")


def _wire_tool_loop(builder: StateGraph, agent: _Agent) -> None:
    """The edges of an agent with tools, as LangGraph draws them."""
    finish = "generate_structured_response" if agent.response_format is not None else END
    if agent.post_model_hook is not None:
        agent_paths = ["post_model_hook"]
        post_paths = [agent.entry, "tools", finish]
        builder.add_conditional_edges("post_model_hook", agent.after_post_hook, post_paths)
    else:
        agent_paths = ["tools", finish]
    builder.add_conditional_edges("agent", agent.after_model, agent_paths)
    if agent.return_direct:
        builder.add_conditional_edges("tools", agent.after_tools, [agent.entry, END])
    else:
        builder.add_edge("tools", agent.entry)


def _models(model: Any, tools: list[Any], builtin: list[dict[str, Any]]) -> tuple[Any, Any]:
    """The static model with tools bound, or a function choosing the model per call."""
    is_runnable = callable(getattr(model, "invoke", None))
    if callable(model) and not isinstance(model, str) and not is_runnable:
        if inspect.iscoroutinefunction(model):
            raise NotImplementedError(
                "create_react_agent(model=<async function>) is not supported by graphkit "
                "yet; choose the model with a plain def (state, runtime) -> model."
            )
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


def _replaced(state: Any, **values: Any) -> Any:
    """A copy of the state with some keys replaced (the task's input stays as it was)."""
    if isinstance(state, dict):
        return {**state, **values}
    if hasattr(state, "model_copy"):
        return state.model_copy(update=values)
    return dataclasses.replace(state, **values)
