"""stream_mode="messages": a langchain-core callback handler, added to every task's
config, turns a model's tokens (or final message) into ``(message, metadata)`` chunks as
the task runs; messages a node returns that no model streamed follow when it finishes.
langchain-core is imported only when this mode is used."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["MessagesSink", "messages_in"]


def messages_in(value: Any) -> list[Any]:
    """The langchain-core messages in a write's value (a message or a list of them)."""
    from langchain_core.messages import BaseMessage

    values = value if isinstance(value, (list, tuple)) else (value,)
    return [item for item in values if isinstance(item, BaseMessage)]


class MessagesSink:
    """Turns one run's chat-model output into "messages" chunks, once per message id,
    from any thread; ``send`` hands each on while the task still runs."""

    def __init__(self, send: Callable[[tuple[Any, dict[str, Any]]], None]) -> None:
        self.send = send
        self.seen: set[str] = set()
        self._lock = threading.Lock()
        self.handler = _handler(self)

    def emit(self, message: Any, metadata: dict[str, Any]) -> None:
        """Send ``(message, metadata)`` unless that message was sent already (a streamed
        message's chunks share its id)."""
        if self._first(message) or type(message).__name__.endswith("Chunk"):
            self.send((message, metadata))

    def _first(self, message: Any) -> bool:
        """Whether ``message`` is new (and from now on seen); one without id always is."""
        if message.id is None:
            return True
        with self._lock:
            new = message.id not in self.seen
            self.seen.add(message.id)
        return new

    def saw(self, value: Any) -> None:
        """Remember the messages a task was given, so they are not streamed back."""
        with self._lock:
            self.seen.update(m.id for m in messages_in(value) if m.id is not None)

    def node_output(self, writes: Any, metadata: dict[str, Any]) -> list[tuple[Any, Any]]:
        """The chunks of the messages a finished task wrote that no model streamed."""
        return [
            (message, metadata)
            for _, value in writes
            for message in messages_in(value)
            if self._first(message)
        ]


def _handler(sink: MessagesSink) -> Any:
    from graphkit.extras import require

    require("langchain_core", extra="agents", feature='stream_mode="messages"')
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.messages import BaseMessage

    class StreamMessages(BaseCallbackHandler):
        """Having ``tap_output_iter`` makes ``model.invoke`` stream (as in LangGraph)."""

        run_inline = True  # called in the model's thread, in token order

        def tap_output_iter(self, run_id, output):
            return output

        async def tap_output_aiter(self, run_id, output):
            async for item in output:
                yield item

        def __init__(self) -> None:
            self.metadata: dict[Any, dict[str, Any]] = {}
            self.streamed: set[Any] = set()

        def on_chat_model_start(self, serialized, messages, *, run_id, metadata=None, **kwargs):
            # the task's metadata (langgraph_node, langgraph_step, ...) and the model's own
            self.metadata[run_id] = dict(metadata or {})

        def on_llm_new_token(self, token, *, chunk=None, run_id, **kwargs):
            metadata = self.metadata.get(run_id)
            message = getattr(chunk, "message", None)
            if metadata is None or not isinstance(message, BaseMessage):
                return
            self.streamed.add(run_id)
            sink.emit(message, metadata)

        def on_llm_end(self, response, *, run_id, **kwargs):
            metadata = self.metadata.pop(run_id, None)
            if metadata is None or run_id in self.streamed:
                self.streamed.discard(run_id)
                return
            for generations in response.generations:
                for generation in generations:
                    message = getattr(generation, "message", None)
                    if isinstance(message, BaseMessage):
                        sink.emit(message, metadata)

        def on_llm_error(self, error, *, run_id, **kwargs):
            self.metadata.pop(run_id, None)
            self.streamed.discard(run_id)

    return StreamMessages()
