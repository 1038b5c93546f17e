"""The agent's nodes and routers (what ``create_react_agent`` wires into its graph):
``Agent`` holds what they share, fixed when the agent is built."""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import Any, NoReturn

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.runnables import Runnable

from graphkit.constants import END
from graphkit.prebuilt.chat_model import (
    chat_model_of,
    check_history,
    state_value,
)
from graphkit.prebuilt.runs import atraced, traced
from graphkit.types import Send

__all__ = ["NEED_MORE_STEPS", "Agent", "TwoSidedNode"]

NEED_MORE_STEPS = "Sorry, need more steps to process this request."
"""The agent's answer when the recursion limit leaves no room for another tool round."""


@dataclasses.dataclass(frozen=True)
class Agent:
    """What the agent's nodes and routers share, fixed when the agent is built."""

    model: Any  # the model with its tools bound, or None for a model chosen per call
    choose_model: Callable[[Any, Any], Any] | None
    prompt: Runnable[Any, Any]  # the first step of each model call (``prompt | model``)
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

    @functools.cached_property
    def pipeline(self) -> Any:
        """``prompt | model``, as LangGraph calls a model it was given (not chosen)."""
        return self.prompt | self.model

    def resolve(self, state: Any, runtime: Any) -> Any:
        """The model for this call."""
        if self.choose_model is None:
            return self.model
        chosen = self.choose_model(state, runtime)
        if inspect.isawaitable(chosen):
            _refuse(
                chosen, RuntimeError(_ONLY_ASYNC.format(what="model", does="chooses the model"))
            )
        return chosen

    async def aresolve(self, state: Any, runtime: Any) -> Any:
        """The model for this call, in an async run (an async chooser awaited)."""
        if self.choose_model is None:
            return self.model
        chosen = self.choose_model(state, runtime)
        return await chosen if inspect.isawaitable(chosen) else chosen

    # -- nodes --------------------------------------------------------------------------

    def call_model(self, state: Any, config: Any, runtime: Any) -> dict[str, Any]:
        """The ``agent`` node: one model call on the (prompted) history."""
        model_state = self._model_state(state)
        if self.choose_model is None:
            pipeline = self.pipeline
        else:  # the model is chosen first, as in LangGraph
            pipeline = self.prompt | self.resolve(state, runtime)
        return self._answered(state, pipeline.invoke(model_state, config))

    async def acall_model(self, state: Any, config: Any, runtime: Any) -> dict[str, Any]:
        """``call_model`` in an async run: the chooser and prompt awaited, and the model's
        ``ainvoke``, as LangGraph's agent node does."""
        model_state = self._model_state(state)
        if self.choose_model is None:
            pipeline = self.pipeline
        else:
            pipeline = self.prompt | await self.aresolve(state, runtime)
        return self._answered(state, await pipeline.ainvoke(model_state, config))

    def _model_state(self, state: Any) -> Any:
        """The state the prompt is made from: its history checked (with a pre-model hook,
        the hook's ``llm_input_messages`` when it gave them)."""
        hooked = self.pre_model_hook is not None
        messages = state_value(state, "messages")
        if hooked:
            messages = state_value(state, "llm_input_messages") or messages
        if messages is None:
            keys = "'llm_input_messages' or 'messages'" if hooked else "'messages'"
            raise ValueError(f"The agent node needs {keys} in its input, got {state!r}.")
        check_history(messages)
        return _replaced(state, messages=messages)

    def _answered(self, state: Any, response: BaseMessage) -> dict[str, Any]:
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

    def generate_structured_response(self, state: Any, config: Any, runtime: Any) -> dict[str, Any]:
        """The ``generate_structured_response`` node: one more call, for the schema."""
        messages, schema = self._structured_input(state)
        model = chat_model_of(self.resolve(state, runtime)).with_structured_output(schema)
        return {"structured_response": model.invoke(messages, config)}

    async def agenerate_structured_response(
        self, state: Any, config: Any, runtime: Any
    ) -> dict[str, Any]:
        """``generate_structured_response`` in an async run (an async chooser awaited)."""
        messages, schema = self._structured_input(state)
        chosen = await self.aresolve(state, runtime)
        model = chat_model_of(chosen).with_structured_output(schema)
        return {"structured_response": await model.ainvoke(messages, config)}

    def _structured_input(self, state: Any) -> tuple[list[Any], Any]:
        """The messages of the structured call (after the system text given with
        ``response_format=(text, schema)``) and its schema."""
        messages, schema = state_value(state, "messages"), self.response_format
        if isinstance(schema, tuple):
            system, schema = schema
            messages = [SystemMessage(content=system), *messages]
        return messages, schema

    # -- routers (named as LangGraph's: callbacks hear each as a run of that name) -------

    def should_continue(self, state: Any) -> str | list[Send]:
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

    def post_model_hook_router(self, state: Any) -> str | list[Send]:
        """Run the calls not answered yet, or go on as ``should_continue`` would."""
        messages = state_value(state, "messages")
        answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        last_ai = next(m for m in reversed(messages) if isinstance(m, AIMessage))
        pending = [call for call in last_ai.tool_calls if call["id"] not in answered]
        if pending:
            return [self.send(call, state) for call in pending]
        if isinstance(messages[-1], ToolMessage):
            return self.entry
        return "generate_structured_response" if self.response_format is not None else END

    def route_tool_responses(self, state: Any) -> str:
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


_ONLY_ASYNC = (
    "create_react_agent({what}=<async function>) {does} with an async def, so the agent "
    "runs only with ainvoke() or astream() (as in LangGraph); or use a plain def."
)


def _refuse(awaitable: Any, error: Exception) -> NoReturn:
    """A sync run met an async model chooser: drop what it started, say so."""
    awaitable.close()
    raise error


class TwoSidedNode:
    """A node that has both sides, as LangGraph's agent nodes: a sync run calls
    ``invoke`` (which refuses an async chooser or prompt), an async run ``ainvoke``.
    Callbacks hear it as a run named after its function (``call_model``) inside the
    task, as LangGraph's ``RunnableCallable`` makes one."""

    def __init__(self, sync: Callable[..., Any], asynchronous: Callable[..., Any]) -> None:
        self.sync, self.asynchronous = sync, asynchronous
        self.name = sync.__name__

    def invoke(self, state: Any, config: Any, runtime: Any) -> Any:
        return traced(
            self.name, lambda state, config: self.sync(state, config, runtime), state, config
        )

    async def ainvoke(self, state: Any, config: Any, runtime: Any) -> Any:
        async def call(state: Any, config: Any) -> Any:
            return await self.asynchronous(state, config, runtime)

        return await atraced(self.name, call, state, config)


def _replaced(state: Any, **values: Any) -> Any:
    """A copy of the state with some keys replaced (the task's input stays as it was)."""
    if isinstance(state, dict):
        return {**state, **values}
    if hasattr(state, "model_copy"):
        return state.model_copy(update=values)
    return dataclasses.replace(state, **values)
