"""ScriptedChatModel: a langchain-core chat model that answers from a script.

Agent lessons need a model that calls tools on cue, streams tokens and never touches
the network. Give it the answers in order; each call to the model takes the next one.

>>> from langchain_core.messages import AIMessage
>>> model = ScriptedChatModel(responses=[
...     AIMessage("", tool_calls=[{"name": "add", "args": {"a": 1, "b": 2}, "id": "call-1"}]),
...     "1 + 2 = 3",
... ])
>>> model.invoke("what is 1 + 2?").tool_calls[0]["args"]
{'a': 1, 'b': 2}
>>> model.invoke("...").content
'1 + 2 = 3'
>>> [chunk.content for chunk in ScriptedChatModel(responses=["sunny in Paris"]).stream("hi")]
['sunny', ' ', 'in', ' ', 'Paris']
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr

__all__ = ["ScriptExhaustedError", "ScriptedChatModel"]

Response = AIMessage | str | Callable[[list[BaseMessage]], AIMessage | str]


class ScriptExhaustedError(IndexError):
    """The model was called more often than its script has answers."""


class ScriptedChatModel(BaseChatModel):
    """Answers each call with the next scripted response, offline and deterministically.

    A response is an ``AIMessage`` (with ``tool_calls`` to make the agent call tools), a
    string (a plain answer), or a function ``(messages) -> AIMessage | str`` that sees
    what the model was sent. Messages are copied, so one script can serve many runs of
    fresh models. ``bind_tools`` works (the tools are recorded, as a provider would
    receive them) and so does langchain-core's ``with_structured_output``: script a tool
    call named after the schema. ``calls`` keeps the messages of every call.

    >>> model = ScriptedChatModel(responses=["hello"]).bind_tools([])
    >>> model.invoke("hi").content
    'hello'
    """

    responses: list[Any] = Field(default_factory=list)
    """The scripted answers, in the order the model gives them."""
    streaming: bool = False
    """Stream tokens to callbacks on ``invoke`` too, as providers' ``streaming=True``
    (a streaming callback handler, e.g. ``stream_mode="messages"``, also turns it on)."""

    _position: int = PrivateAttr(default=0)
    _calls: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "graphkit-scripted"

    @property
    def calls(self) -> list[list[BaseMessage]]:
        """The messages the model received, one list per call."""
        return list(self._calls)

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Any:
        """Bind tools as a provider's model does (OpenAI's tool format); the script
        decides which tools get called."""
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        with self._lock:
            position = self._position
            if position >= len(self.responses):
                calls, answers = position + 1, len(self.responses)
                raise ScriptExhaustedError(
                    f"ScriptedChatModel was called {calls} time{'s' * (calls != 1)} but its "
                    f"script has {answers} response{'s' * (answers != 1)}; add the answer for "
                    f"call {calls} to responses=[...]."
                )
            self._position += 1
            self._calls.append(list(messages))
        response = self.responses[position]
        if callable(response) and not isinstance(response, BaseMessage):
            response = response(list(messages))
        if isinstance(response, str):
            return AIMessage(content=response)
        if isinstance(response, AIMessage):
            return response.model_copy(deep=True)
        raise TypeError(
            f"ScriptedChatModel response {position + 1} is {type(response).__name__}; "
            "script an AIMessage, a string or a function returning one of them."
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next(messages))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        message = self._next(messages)
        chunks = list(_chunks_of(message))
        for index, chunk in enumerate(chunks):
            if index == len(chunks) - 1:
                chunk.chunk_position = "last"
            yield ChatGenerationChunk(message=chunk)  # the base class reports each token


def _chunks_of(message: AIMessage) -> Iterator[AIMessageChunk]:
    """Split an answer into the chunks a provider would stream: words and the spaces
    between them, then the tool calls (arguments as JSON text, as providers send them)."""
    content = message.content
    tokens: list[Any] = [content] if not isinstance(content, str) else re.split(r"(\s)", content)
    tokens = [token for token in tokens if token != ""] or [""]
    for token in tokens:
        yield AIMessageChunk(content=token, id=message.id)
    calls = [(call["name"], json.dumps(call["args"]), call["id"]) for call in message.tool_calls]
    calls += [(call["name"], call["args"], call["id"]) for call in message.invalid_tool_calls]
    for index, (name, arguments, call_id) in enumerate(calls):
        yield AIMessageChunk(
            content="",
            id=message.id,
            tool_call_chunks=[tool_call_chunk(name=name, args=arguments, id=call_id, index=index)],
        )
    if message.name or message.response_metadata or message.usage_metadata:
        yield AIMessageChunk(
            content="",
            id=message.id,
            name=message.name,
            response_metadata=message.response_metadata,
            usage_metadata=message.usage_metadata,
        )
