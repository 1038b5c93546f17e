"""The model side of the ReAct agent: prompts, binding tools, finding the chat model.

``prompt`` turns the agent's state into what the model is sent, in one of LangGraph's
four shapes:

>>> from langchain_core.messages import HumanMessage, SystemMessage
>>> state = {"messages": [HumanMessage("hi")]}
>>> [m.type for m in prompt_runnable(None).invoke(state)]
['human']
>>> [m.content for m in prompt_runnable("Be brief.").invoke(state)]
['Be brief.', 'hi']
>>> [m.type for m in prompt_runnable(SystemMessage("Be kind.")).invoke(state)]
['system', 'human']
>>> prompt_runnable(lambda state: "just text").invoke(state)
'just text'
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable, RunnableBinding, RunnableSequence
from langchain_core.runnables.config import ensure_config

from graphkit.errors import ErrorCode, create_error_message
from graphkit.prebuilt.runs import atraced, traced
from graphkit.pregel.runtime import task_values
from graphkit.pregel.spec import injectable_parameters

__all__ = [
    "PromptStep",
    "chat_model_of",
    "check_history",
    "prompt_runnable",
    "state_value",
    "with_tools",
]

Prompt = Callable[[Any, Any], Any]
"""``prompt(state, config)`` -> the model's input."""


def state_value(state: Any, key: str, default: Any = None) -> Any:
    """``state[key]`` for a dict state, ``state.key`` for a dataclass or pydantic one."""
    if isinstance(state, dict):
        return state.get(key, default)
    return getattr(state, key, default)


def prompt_runnable(prompt: Any) -> Runnable[Any, Any]:
    """The prompt as the first step of the agent's ``prompt | model`` pipeline, as
    LangGraph builds it: a Runnable prompt as it is, any other a ``PromptStep``."""
    made = _made_input(prompt)
    return prompt if made is None else PromptStep(made)


def _made_input(prompt: Any) -> Prompt | None:
    """``(state, config) -> what the prompt made`` (None for a Runnable prompt): a
    function prompt's answer as it is, which may be an awaitable or a Runnable."""
    if prompt is None:
        return lambda state, config: state_value(state, "messages")
    if isinstance(prompt, str):
        system = SystemMessage(content=prompt)
        return lambda state, config: [system, *state_value(state, "messages")]
    if isinstance(prompt, SystemMessage):
        return lambda state, config: [prompt, *state_value(state, "messages")]
    if callable(prompt):  # given the config, store, runtime, writer it asks for, as a node
        wanted = [name for name in injectable_parameters(prompt) if name != "error"]
        if wanted:
            return lambda state, config: prompt(state, **task_values(wanted, config))
        return lambda state, config: prompt(state)
    if callable(getattr(prompt, "invoke", None)):
        return None
    raise ValueError(
        f"create_react_agent(prompt=...) got {type(prompt).__name__}; use None, a string, a "
        "SystemMessage, a function (state) -> messages, or a Runnable."
    )


class PromptStep(Runnable[Any, Any]):
    """A prompt that is no Runnable, run as LangGraph runs it: heard by callbacks as a
    run named ``Prompt``; a Runnable it returns then runs on the same state."""

    name = "Prompt"

    def __init__(self, made: Prompt) -> None:
        self.made = made

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        config = ensure_config(config)
        made_input = traced(self.name, self.made, input, config)
        if inspect.isawaitable(made_input):
            made_input.close()  # type: ignore[attr-defined]
            raise TypeError(_ONLY_ASYNC_PROMPT)
        return _run_if_runnable(made_input, input, config)

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        config = ensure_config(config)
        awaited = []

        async def made(state: Any, config: Any) -> Any:
            made_input = self.made(state, config)
            if not inspect.isawaitable(made_input):
                return made_input
            awaited.append(True)
            return await made_input

        made_input = await atraced(self.name, made, input, config)
        # an async def's Runnable runs with ainvoke, a plain function's with invoke, as
        # LangGraph runs a function without an async side
        if awaited and isinstance(made_input, Runnable):
            return await made_input.ainvoke(input, config)
        return _run_if_runnable(made_input, input, config)


_ONLY_ASYNC_PROMPT = (
    "create_react_agent(prompt=<async function>) makes the prompt with an async def, so the "
    "agent runs only with ainvoke() or astream() (as in LangGraph); or use a plain def."
)


def _run_if_runnable(made_input: Any, state: Any, config: Any) -> Any:
    """A prompt function may return a Runnable (``SystemMessage("...") + messages`` is a
    ``ChatPromptTemplate``): LangGraph invokes it on the same state, as a RunnableLambda does."""
    if isinstance(made_input, Runnable):
        return made_input.invoke(state, config)
    return made_input


def _model_step(model: Any) -> Any:
    """In a ``prompt | model`` pipeline, the model step; otherwise the model itself."""
    if isinstance(model, RunnableSequence):
        return next(
            (s for s in model.steps if isinstance(s, (RunnableBinding, BaseChatModel))), model
        )
    return model


def with_tools(model: Any, tools: Sequence[Any], builtin: Sequence[dict[str, Any]]) -> Any:
    """``model.bind_tools(tools + builtin)`` unless tools are already bound (then check
    they are the same tools) or the model cannot bind tools (then the model as it is:
    a scripted model needs no schemas to call a tool)."""
    step = _model_step(model)
    if isinstance(step, RunnableBinding) and "tools" in step.kwargs:
        _check_bound(tools, step.kwargs["tools"], len(builtin))
        return model
    if not (tools or builtin):
        return model
    bind = getattr(model, "bind_tools", None)
    if bind is None:
        return model
    try:
        return bind([*tools, *builtin])
    except NotImplementedError:  # BaseChatModel's default: this model has no tool calling
        return model


def _check_bound(tools: Sequence[Any], bound: Sequence[Any], builtin: int) -> None:
    if len(tools) != len(bound) - builtin:
        raise ValueError(
            f"The model has {len(bound) - builtin} tools bound (model.bind_tools(...)) but "
            f"create_react_agent was given {len(tools)}; bind the same tools, or pass the "
            "model without bind_tools and let the agent bind them."
        )
    names = set()
    for schema in bound:
        if schema.get("type") == "function":
            names.add(schema["function"]["name"])
        elif schema.get("name"):
            names.add(schema["name"])
    missing = {tool.name for tool in tools} - names
    if missing:
        raise ValueError(
            f"Tools {sorted(missing)} are not bound to the model; add them to "
            "model.bind_tools([...]) or leave the binding to create_react_agent."
        )


def chat_model_of(model: Any) -> BaseChatModel:
    """The chat model inside a model, a bound model, or a ``prompt | model`` pipeline
    (the structured response is asked of it with ``with_structured_output``)."""
    step = _model_step(model)
    if isinstance(step, RunnableBinding):
        step = step.bound
    if not isinstance(step, BaseChatModel):
        raise TypeError(
            f"response_format needs a chat model (a BaseChatModel, possibly with "
            f"bind_tools), got {type(step).__name__}."
        )
    return step


def check_history(messages: Sequence[BaseMessage]) -> None:
    """Every tool call in the history must have its ToolMessage, or providers refuse it."""
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    unanswered = [
        call
        for message in messages
        if isinstance(message, AIMessage)
        for call in message.tool_calls
        if call["id"] not in answered
    ]
    if unanswered:
        message = (
            f"The history has tool calls without a ToolMessage answering them (first few: "
            f"{unanswered[:3]}); chat models refuse such a history. Add a ToolMessage for "
            "each call (tool_call_id=...), or remove the AIMessage that made it."
        )
        code = ErrorCode.INVALID_CHAT_HISTORY
        raise ValueError(create_error_message(message=message, error_code=code))
