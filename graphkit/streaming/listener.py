"""Where running tasks send chunks while a step runs (custom chunks, chat-model
messages, the chunks of the subgraphs they start), and how ``StreamRun`` takes them
out of the queue in order (``_drain``) when it streams a task's result."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from graphkit.pregel.runtime import current_scope

if TYPE_CHECKING:
    from graphkit.pregel.records import TaskResult

__all__ = ["CallNamespace", "Item", "Listener"]


Item = tuple[tuple[str, ...], str, Any]  # (namespace, mode, chunk)


class Listener:
    """Where running tasks send chunks while they run: custom chunks, chat-model
    messages, and the chunks of subgraphs they start. ``modes`` are the modes those
    subgraphs forward; ``wake`` (when set) wakes Execute as a chunk comes
    (``StepWork.results``), so that the stream hands it on at once."""

    def __init__(self, modes: tuple[str, ...], wake: threading.Event | None) -> None:
        self.modes, self.wake = modes, wake
        self.queue: deque[Item] = deque()
        self.callbacks: tuple[Any, ...] = ()
        self.messages_sink: Any = None  # the run's MessagesSink, when "messages" is streamed
        self.call_started: Callable[[Any], None] | None = None
        """Told of each task started while a step runs (a called task; an error handler
        on resume)."""

    def send(self, item: Item) -> None:
        self.queue.append(item)
        if self.wake is not None:
            self.wake.set()

    def finished(self, task_id: str) -> None:
        """Mark where, among the chunks sent so far, a called task finished."""
        self.queue.append(((), _FINISHED, task_id))

    def take_messages(
        self, namespace: tuple[str, ...], parent: Listener | None, content_events: bool = False
    ) -> None:
        """Stream the chat-model messages of this run's tasks (from ``namespace``),
        through a sink shared with the ``parent`` run's: one set of message ids seen
        (``content_events``: a v3 run's, see ``graphkit.streaming.messages``)."""
        from graphkit.streaming.messages import MessagesSink

        shared = parent.messages_sink if parent is not None else None
        send = self.sender(namespace, "messages")
        sink = MessagesSink(send, shared, namespace, content_events)
        self.callbacks, self.messages_sink = (sink.handler,), sink

    def sender(self, namespace: tuple[str, ...], mode: str) -> Callable[[Any], None]:
        """A function sending its chunk here, in ``mode``, from ``namespace`` (a custom
        chunk from a called task of this run: see ``CallNamespace``)."""

        def send(chunk: Any) -> None:
            self.send((namespace, mode, chunk))

        def send_custom(chunk: Any) -> None:
            scope = current_scope()
            caller = scope.task.caller_namespace if scope is not None else None
            if caller is not None and scope.run.namespace == namespace:  # type: ignore[union-attr]
                self.send((CallNamespace(caller, namespace), mode, chunk))
            else:
                self.send((namespace, mode, chunk))

        return send_custom if mode == "custom" else send


class CallNamespace(tuple):  # type: ignore[type-arg]
    """The namespace a called task's chunk shows, as in LangGraph: its caller's (so a
    call inside a call shows both). The chunk still belongs to the run the task is part
    of, at namespace ``run``: it is streamed without ``subgraphs=True``."""

    run: tuple[str, ...]

    def __new__(cls, shown: tuple[str, ...], run: tuple[str, ...]) -> CallNamespace:
        namespace = super().__new__(cls, shown)
        namespace.run = run
        return namespace


def _drain(queue: deque[Item], result: TaskResult | None, heard: set[str]) -> Iterator[Item]:
    """The chunks waiting in ``queue`` before ``result`` is streamed: all, or if it is a
    called task's, those sent before it finished (its ``Listener.finished`` mark), so
    that they keep their order. The mark of a called task whose result is not streamed
    yet (not in ``heard``) stops it too: what its caller sent after it (the start of its
    next call) follows that result."""
    until = None
    if result is not None and result.task.kind == "call":
        until = result.task.id
        heard.add(until)
    while queue:
        item = queue.popleft()
        namespace, mode, chunk = item
        if mode is _FINISHED:
            if chunk == until:
                return
            if chunk not in heard:
                queue.appendleft(item)
                return
            continue
        yield namespace, mode, chunk


_FINISHED: Any = object()  # the mode of the mark a finished called task leaves in the queue
