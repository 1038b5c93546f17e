"""stream_mode="messages": a langchain-core callback handler, added to every task's
config, turns a model's tokens (or final message) into ``(message, metadata)`` chunks as
the task runs; messages a node returns that no model streamed follow when it finishes.
langchain-core is imported only when this mode is used.

LangGraph's rule for what is new: a message is sent once per id, and the messages a
task is given (its input's fields, or the messages in a list field) count as sent, so a
node returning the state, or echoing its input, sends nothing again. A subgraph's run
shares the ids seen with its parent's; a message without an id is given one.

Each run's handler streams only the models its own tasks call: a model called inside a
subgraph reaches every handler up the chain (langchain-core hands callbacks down), and
the subgraph's own run streams it, under its namespace, when its caller asked for
subgraphs. A model call tagged ``nostream`` is not streamed token by token (its message
still comes when the node returns it), and the call's tags are in the chunk's metadata,
as in LangGraph."""

from __future__ import annotations

import dataclasses
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from graphkit.constants import END, PUSH, RETURN, TAG_NOSTREAM

__all__ = ["MessagesSink", "messages_in"]

WHOLE_VALUE_CHANNELS = (RETURN, END)
"""Channels a task writes its whole return value to (a called task's, an entrypoint's)."""


def messages_in(value: Any) -> list[Any]:
    """The langchain-core messages in a write's value (a message or a list of them)."""
    from langchain_core.messages import BaseMessage

    values = value if isinstance(value, (list, tuple)) else (value,)
    return [item for item in values if isinstance(item, BaseMessage)]


def _returned_messages(value: Any) -> list[Any]:
    """The messages in what a task returned as a whole (a called task's return value, an
    entrypoint's): a message, a sequence of them, or the fields of a state, as LangGraph
    reads a node's output."""
    found = messages_in(value)
    return found if found or isinstance(value, (list, tuple)) else list(_input_messages(value))


def _input_messages(task_input: Any) -> Iterator[Any]:
    """The messages in a task's input: its fields (of a dict, pydantic model or
    dataclass) that are a message or a sequence holding messages, as LangGraph reads them."""
    from langchain_core.messages import BaseMessage

    if isinstance(task_input, dict):
        fields: Sequence[Any] = list(task_input.values())
    elif hasattr(type(task_input), "model_fields"):  # a pydantic model
        fields = [getattr(task_input, name) for name in type(task_input).model_fields]
    elif dataclasses.is_dataclass(task_input) and not isinstance(task_input, type):
        fields = [getattr(task_input, f.name) for f in dataclasses.fields(task_input)]
    else:
        return
    for field in fields:
        if isinstance(field, BaseMessage):
            yield field
        elif isinstance(field, Sequence) and not isinstance(field, str):
            yield from (item for item in field if isinstance(item, BaseMessage))


class MessagesSink:
    """Turns one run's chat-model output into "messages" chunks, once per message id,
    from any thread; ``send`` hands each on while the task still runs. A subgraph's
    sink ``shares`` its parent's ids, so a message is sent once in the whole run."""

    def __init__(
        self,
        send: Callable[[tuple[Any, dict[str, Any]]], None],
        shares: MessagesSink | None = None,
        namespace: tuple[str, ...] = (),
        content_events: bool = False,
    ) -> None:
        self.send, self.namespace = send, namespace
        self.seen: set[str] = shares.seen if shares is not None else set()
        self._lock = shares._lock if shares is not None else threading.Lock()
        # a v3 run asks for content-block events; its subgraphs' sinks inherit that
        self.content_events = shares.content_events if shares is not None else content_events
        self.handler = _handler_class(self, self.content_events)()

    def __repr__(self) -> str:
        return f"MessagesSink(seen={len(self.seen)})"

    def emit(self, message: Any, metadata: dict[str, Any], dedupe: bool = True) -> None:
        """Send ``(message, metadata)`` unless ``dedupe`` and it was sent or seen already
        (a streamed message's chunks share an id, so they are sent with ``dedupe=False``)."""
        if self._first(message, dedupe):
            self.send((message, metadata))

    def _first(self, message: Any, dedupe: bool) -> bool:
        """Whether to send ``message`` (from now on seen); one without id is given one."""
        with self._lock:
            if dedupe and message.id in self.seen:
                return False
            if message.id is None:
                message.id = str(uuid.uuid4())
            self.seen.add(message.id)
        return True

    def mark_sent(self, message: Any) -> None:
        """Count ``message`` as sent (giving it an id if it has none)."""
        self._first(message, dedupe=False)

    def saw(self, task_input: Any) -> None:
        """Remember the messages a task was given, so they are not streamed back."""
        self.saw_values(list(_input_messages(task_input)))

    def saw_values(self, values: Sequence[Any]) -> None:
        """Remember the messages among ``values`` (or in sequences among them)."""
        with self._lock:
            self.seen.update(m.id for value in values for m in messages_in(value) if m.id)

    def node_output(self, writes: Any, metadata: dict[str, Any]) -> list[tuple[Any, Any]]:
        """The chunks of the messages a finished task wrote that were not sent already."""
        found = [
            _returned_messages(value) if channel in WHOLE_VALUE_CHANNELS else messages_in(value)
            for channel, value in writes
        ]
        if self.content_events:  # a v3 run streams chat messages; a tool's answer is none
            found = [[m for m in ms if m.type != "tool"] for ms in found]
        return [(m, metadata) for ms in found for m in ms if self._first(m, dedupe=True)]


def _handler_class(sink: MessagesSink, content_events: bool) -> Any:
    from graphkit.extras import require

    require("langchain_core", extra="agents", feature='stream_mode="messages"')
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.messages import BaseMessage

    class StreamMessages(BaseCallbackHandler):
        """Having ``tap_output_iter`` makes ``model.invoke`` stream (as in LangGraph)."""

        run_inline = True  # called in the model's thread, in token order
        graphkit_messages = True  # (it needs no chain runs: graphkit.pregel.tracing)

        def tap_output_iter(self, run_id, output):
            return output

        async def tap_output_aiter(self, run_id, output):
            async for item in output:
                yield item

        def __init__(self) -> None:
            self.metadata: dict[Any, dict[str, Any]] = {}
            self.streamed: set[Any] = set()

        def on_chat_model_start(
            self, serialized, messages, *, run_id, tags=None, metadata=None, **kwargs
        ):
            # the task's metadata (langgraph_node, langgraph_step, ...) and the model's own
            metadata = dict(metadata or {})
            if _graph_namespace(metadata) != sink.namespace or (tags and TAG_NOSTREAM in tags):
                return
            # the call's own tags, without a chain's bookkeeping (as LangGraph shows them)
            tags = [tag for tag in tags or () if not tag.startswith("seq:step")]
            self.metadata[run_id] = {**metadata, "tags": tags} if tags else metadata

        def on_llm_new_token(self, token, *, chunk=None, run_id, **kwargs):
            metadata = self.metadata.get(run_id)
            message = getattr(chunk, "message", None)
            if metadata is None or not isinstance(message, BaseMessage):
                return
            self.streamed.add(run_id)
            sink.emit(message, metadata, dedupe=False)

        def on_llm_end(self, response, *, run_id, **kwargs):
            metadata = self.metadata.pop(run_id, None)
            if metadata is None or run_id in self.streamed:
                self.streamed.discard(run_id)
                return
            if (message := _final_message(response)) is not None:
                sink.emit(message, metadata)

        def on_llm_error(self, error, *, run_id, **kwargs):
            self.metadata.pop(run_id, None)
            self.streamed.discard(run_id)

    return _content_events_handler(sink, StreamMessages) if content_events else StreamMessages


def _content_events_handler(sink: MessagesSink, base: type) -> Any:
    from langchain_core.tracers._streaming import _V2StreamingCallbackHandler

    class StreamContentEvents(base, _V2StreamingCallbackHandler):
        """A v3 run's handler. Being a ``_V2StreamingCallbackHandler`` is what makes
        langchain-core run a model's ``invoke`` as content-block events, each handed to
        ``on_stream_event``; they are sent with the call's ``run_id``, which is how the v3
        run tells one call's events from another's."""

        of_a_v3_run = True  # (what ``without_content_events`` looks for)

        def on_llm_new_token(self, token, **kwargs):
            return None  # (``.stream()`` still gives tokens; a v3 run sends no tokens)

        def on_stream_event(self, event, *, run_id, **kwargs):
            if (metadata := self.metadata.get(run_id)) is not None:
                self.streamed.add(run_id)
                sink.send((event, {**metadata, "run_id": str(run_id)}))

        def on_llm_end(self, response, *, run_id, **kwargs):
            if run_id not in self.streamed:  # (no events: sent whole, as without v3)
                return super().on_llm_end(response, run_id=run_id, **kwargs)
            self.metadata.pop(run_id, None)
            self.streamed.discard(run_id)
            # its events were the message: the node returning it must not send it again
            if (message := _final_message(response)) is not None:
                sink.mark_sent(message)

    return StreamContentEvents


def without_content_events(config: Any) -> Any:
    """``config`` without the handlers v3 runs added to its callbacks: a run inside a v3
    run's task that streams "messages" to its caller the old way (as tokens) must not
    have its models run as content-block events (nor heard by the v3 run), as in
    LangGraph. The caller's handlers are copied, not changed."""
    from langchain_core.callbacks import BaseCallbackManager

    callbacks = config.get("callbacks") if isinstance(config, Mapping) else None
    if isinstance(callbacks, BaseCallbackManager):
        kept = callbacks.copy()
        for handler in [*kept.handlers, *kept.inheritable_handlers]:
            if getattr(handler, "of_a_v3_run", False):
                kept.remove_handler(handler)
    elif isinstance(callbacks, list):
        kept = [handler for handler in callbacks if not getattr(handler, "of_a_v3_run", False)]
    else:
        return config
    return {**config, "callbacks": kept}


def _final_message(response: Any) -> Any:
    """What a model call answered: the first generation of the first prompt only, as
    LangGraph streams it."""
    from langchain_core.messages import BaseMessage

    first = response.generations[0][:1] if response.generations else []
    message = getattr(first[0], "message", None) if first else None
    return message if isinstance(message, BaseMessage) else None


def _graph_namespace(metadata: Mapping[str, Any]) -> tuple[str, ...]:
    """The namespace of the graph run a task belongs to: its checkpoint_ns without its
    own part, nor one part per call it is nested in (a called task's namespace is
    nested under its caller's, yet the call is part of its caller's run)."""
    task_namespace = metadata.get("langgraph_checkpoint_ns")
    parts = tuple(task_namespace.split("|")) if task_namespace else ()
    path, own = metadata.get("langgraph_path", ()), 1
    while len(path) == 4 and path[0] == PUSH and path[3] is True:  # (a call's path)
        path, own = path[1], own + 1
    return parts[:-own] if parts else ()
