"""``run.messages``: one langchain-core ``ChatModelStream`` per AI message of the scope.

Two kinds of ``messages`` events reach it. A chat model called in a node of a v3 run
sends content-block protocol events (``message-start`` ... ``message-finish``, each with
the call's ``run_id`` in its metadata): they open a stream and feed it as they come, so
``stream.text`` reads the model live. A message a node returns whole is replayed through
langchain-core's own converter into an already finished stream: any message but a tool's
(a human or system message a node returns too, as in LangGraph), and not a chunk (what a
model's ``stream()`` sends on the old path: LangGraph leaves those out)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphkit.stream._protocol import ProtocolEvent, StreamTransformer
from graphkit.stream.stream_channel import StreamChannel

__all__ = ["MessagesTransformer"]


class MessagesTransformer(StreamTransformer):
    """``run.messages``: a ``ChatModelStream`` (``AsyncChatModelStream`` in an async run)
    per message at the scope, in order; tool messages are not chat messages here."""

    _native = True
    required_stream_modes = ("messages",)

    def _join(self, router: Any) -> None:
        self.pump = router.pump  # (a stream read on its own moves the run on)

    def init(self) -> dict[str, Any]:
        self.channel: StreamChannel[Any] = StreamChannel()
        self.live: dict[Any, Any] = {}  # a model call's run_id -> its unfinished stream
        return {"messages": self.channel}

    def process(self, event: ProtocolEvent) -> bool:
        params = event["params"]
        if event["method"] != "messages" or tuple(params["namespace"]) != self.scope:
            return True
        message, metadata = params["data"]
        if isinstance(message, Mapping) and "event" in message:
            self._follow(message, metadata)
        elif _whole(message):
            self._replay(message, metadata)
        return True

    def _stream(self, metadata: Mapping[str, Any], message_id: str | None) -> Any:
        from langchain_core.language_models.chat_model_stream import (
            AsyncChatModelStream,
            ChatModelStream,
        )

        kind = AsyncChatModelStream if self.pump.is_async else ChatModelStream
        where = {"namespace": list(self.scope), "node": metadata.get("langgraph_node")}
        stream = kind(**where, message_id=message_id)
        if self.pump.is_async:
            stream.set_arequest_more(self.pump.apull)
        else:
            stream.set_request_more(self.pump.pull)
        return stream

    def _follow(self, content_event: Mapping[str, Any], metadata: Mapping[str, Any]) -> None:
        call = metadata.get("run_id")
        if content_event["event"] == "message-start" and content_event.get("role") != "tool":
            self.live[call] = self._stream(metadata, content_event.get("id"))
            self.channel.push(self.live[call])
        stream = self.live.get(call)
        if stream is None:
            return  # (a call that started before this run's scope began watching)
        stream.dispatch(content_event)
        if content_event["event"] == "message-finish":
            del self.live[call]

    def _replay(self, message: Any, metadata: Mapping[str, Any]) -> None:
        from langchain_core.language_models._compat_bridge import message_to_events

        stream = self._stream(metadata, message.id)
        for content_event in message_to_events(message):
            stream.dispatch(content_event)
        self.channel.push(stream)

    def finalize(self) -> None:
        self.fail(RuntimeError("the run ended before this chat message finished"))

    def fail(self, err: BaseException) -> None:
        for stream in self.live.values():
            stream.fail(err)
        self.live.clear()


def _whole(message: Any) -> bool:
    """Whether ``message`` is one to replay: a whole message, not a tool's answer."""
    from langchain_core.messages import BaseMessage, BaseMessageChunk

    if not isinstance(message, BaseMessage) or isinstance(message, BaseMessageChunk):
        return False
    return message.type != "tool"
