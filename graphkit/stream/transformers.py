"""The built-in transformers of a v3 run. Every run has ``ValuesTransformer``,
``MessagesTransformer``, ``LifecycleTransformer`` and ``SubgraphTransformer``; the
others (``UpdatesTransformer``...) are added with ``transformers=[...]``. Each projects
what happens at its own scope: a subgraph's events reach the subgraph's handle."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

from graphkit.stream._chat import MessagesTransformer
from graphkit.stream._protocol import ProtocolEvent, StreamTransformer
from graphkit.stream.stream_channel import StreamChannel

__all__ = [
    "CheckpointsTransformer",
    "CustomTransformer",
    "DebugTransformer",
    "LifecyclePayload",
    "LifecycleTransformer",
    "MessagesTransformer",
    "SubgraphStatus",
    "SubgraphTransformer",
    "TasksTransformer",
    "UpdatesTransformer",
    "ValuesTransformer",
]

SubgraphStatus = Literal["started", "completed", "failed", "interrupted", "drained"]


class LifecyclePayload(TypedDict):
    """What ``run.lifecycle`` gives (and ``lifecycle`` events carry) for a subgraph."""

    event: SubgraphStatus
    namespace: list[str]
    graph_name: NotRequired[str]
    trigger_call_id: NotRequired[str]
    cause: NotRequired[Any]
    error: NotRequired[str]


def _at(scope: tuple[str, ...], event: ProtocolEvent) -> bool:
    return tuple(event["params"]["namespace"]) == scope


# -- one stream mode, at the transformer's own scope -----------------------------------------


class _OwnScopeMode(StreamTransformer):
    """Puts the data of its stream mode's events at its own scope on ``run.<mode>``."""

    _native = True
    mode = ""

    def init(self) -> dict[str, Any]:
        self.channel: StreamChannel[Any] = StreamChannel()
        return {self.mode: self.channel}

    def process(self, event: ProtocolEvent) -> bool:
        if event["method"] == self.mode and _at(self.scope, event):
            self.channel.push(event["params"]["data"])
        return True


class ValuesTransformer(_OwnScopeMode):
    """``run.values``: the run's own states, as its ``values`` events carry them."""

    mode, required_stream_modes = "values", ("values",)


class UpdatesTransformer(_OwnScopeMode):
    """``run.updates``: ``{node: update}`` after each task, as ``stream_mode="updates"``."""

    mode, required_stream_modes = "updates", ("updates",)


class CustomTransformer(_OwnScopeMode):
    """``run.custom``: what nodes wrote with ``get_stream_writer()``."""

    mode, required_stream_modes = "custom", ("custom",)


class CheckpointsTransformer(_OwnScopeMode):
    """``run.checkpoints``: each checkpoint saved (none without a checkpointer)."""

    mode, required_stream_modes = "checkpoints", ("checkpoints",)


class DebugTransformer(_OwnScopeMode):
    """``run.debug``: the ``debug`` stream mode's checkpoint, task and result events."""

    mode, required_stream_modes = "debug", ("debug",)


class TasksTransformer(_OwnScopeMode):
    """``run.tasks``: each task's start and result payloads (which the log leaves out)."""

    mode, required_stream_modes = "tasks", ("tasks",)


# -- subgraphs: when each starts and how it ends ---------------------------------------------


class _SubgraphWatch:
    """Reads subgraph runs below ``scope`` off the ``tasks`` events: a subgraph's run shows
    itself with its first task event under a new namespace (``"name:task_id"`` appended
    to its caller's), and ends with its calling task's result, one level up."""

    def __init__(self, scope: tuple[str, ...], children_only: bool) -> None:
        self.scope, self.children_only = scope, children_only
        self.running: dict[tuple[str, ...], None] = {}  # (an ordered set)
        self.inputs: dict[tuple[tuple[str, ...], str], Any] = {}  # running tasks' inputs

    def started(self, event: ProtocolEvent) -> LifecyclePayload | None:
        namespace, task = tuple(event["params"]["namespace"]), event["params"]["data"]
        if "input" in task:  # (a subagent's cause is in the input of the task running it)
            self.inputs[namespace, task["id"]] = task["input"]
        below = len(namespace) - len(self.scope)
        if below < 1 or namespace[: len(self.scope)] != self.scope or namespace in self.running:
            return None
        if self.children_only and below > 1:
            return None  # (a grandchild: its parent's handle watches it)
        if ":" not in namespace[-1]:
            return None  # ("1", "2"...: a graph run again by the same task is no subgraph)
        self.running[namespace] = None
        graph_name, _, call_id = namespace[-1].partition(":")
        payload: LifecyclePayload = {"event": "started", "namespace": list(namespace)}
        agent_name = (task.get("metadata") or {}).get("lc_agent_name")
        if agent_name is None:
            return {**payload, "graph_name": graph_name, "trigger_call_id": call_id}
        # an agent (langchain's create_agent(name=...)): known by its name, and by the tool
        # call that asked for it, as LangGraph reports it
        if agent_name:
            payload["graph_name"] = agent_name
        payload["trigger_call_id"] = call_id
        if tool_call_id := _tool_call_id(self.inputs.get((namespace[:-1], call_id))):
            payload["cause"] = {"type": "toolCall", "tool_call_id": tool_call_id}
        return payload

    def ended(self, event: ProtocolEvent) -> LifecyclePayload | None:
        result = event["params"]["data"]
        if "result" not in result:
            return None  # (a task starting)
        caller = tuple(event["params"]["namespace"])
        self.inputs.pop((caller, result["id"]), None)
        for namespace in self.running:
            if namespace[:-1] == caller and namespace[-1].partition(":")[2] == result["id"]:
                del self.running[namespace]
                if result.get("error"):
                    failed = {"event": "failed", "namespace": list(namespace)}
                    return {**failed, "error": str(result["error"])}  # type: ignore[typeddict-item]
                status = "interrupted" if result.get("interrupts") else "completed"
                return {"event": status, "namespace": list(namespace)}
        return None

    def unfinished(self, error: BaseException | None) -> list[LifecyclePayload]:
        """How the subgraphs still running end when the run does: ``completed`` (the run
        finished or was aborted), or ``failed`` with the run's ``error``, outermost first."""
        ended: list[LifecyclePayload] = []
        for namespace in self.running:
            if error is None:
                ended.append({"event": "completed", "namespace": list(namespace)})
            else:
                ended.append({"event": "failed", "namespace": list(namespace), "error": str(error)})
        self.running.clear()
        return ended


def _tool_call_id(task_input: Any) -> str | None:
    """The id of the tool call a task runs: a prebuilt ``ToolNode``'s task is given one
    call with its context (``{"tool_call": {...}, "state": ...}``), an older one a list
    of calls (the first with an id); None for any other input."""
    if isinstance(task_input, dict):
        calls = [task_input.get("tool_call")]
    elif isinstance(task_input, list):
        calls = task_input
    else:
        return None
    for call in calls:
        if isinstance(call, dict) and isinstance(call.get("id"), str) and call["id"]:
            return call["id"]
    return None


class _ReadsTasks(StreamTransformer):
    """What watches subgraphs needs: the ``tasks`` stream mode."""

    _native = True
    required_stream_modes = ("tasks",)


class LifecycleTransformer(_ReadsTasks):
    """``run.lifecycle`` (and ``lifecycle`` events): each subgraph below the scope, at any
    depth, ``started`` then ``completed`` / ``failed`` / ``interrupted``. The ``tasks``
    events it reads them from are left out of the log."""

    def init(self) -> dict[str, Any]:
        self.channel: StreamChannel[LifecyclePayload] = StreamChannel("lifecycle")
        self.watch = _SubgraphWatch(self.scope, children_only=False)
        return {"lifecycle": self.channel}

    def process(self, event: ProtocolEvent) -> bool:
        is_task_event = event["method"] == "tasks"
        if is_task_event:
            for payload in (self.watch.started(event), self.watch.ended(event)):
                if payload is not None:
                    self.channel.push(payload)
        return not is_task_event  # (folded into lifecycle events)

    def finalize(self) -> None:
        for payload in self.watch.unfinished(None):
            self.channel.push(payload)

    def fail(self, err: BaseException) -> None:
        for payload in self.watch.unfinished(err):
            self.channel.push(payload)


class SubgraphTransformer(_ReadsTasks):
    """``run.subgraphs``: a handle (``SubgraphRunStream``) per direct child subgraph, with
    projections of its own at the child's scope; the child's events are handed to it, and
    its status set when it ends (its channels fail with its error if it failed)."""

    supports_sync = True  # (its async hooks only await the children's)

    def _join(self, router: Any) -> None:
        self.router = router  # (its factories and pump make the children's routers)

    def init(self) -> dict[str, Any]:
        self.channel: StreamChannel[Any] = StreamChannel()
        self.watch = _SubgraphWatch(self.scope, children_only=True)
        self.children: dict[tuple[str, ...], Any] = {}  # namespace -> running handle
        return {"subgraphs": self.channel}

    def _route(self, event: ProtocolEvent) -> tuple[Any, Any]:
        """(the child whose scope the event is in, the child it ends) — either may be None;
        a child's first event only announces it, so it is not handed to it."""
        if event["method"] == "tasks" and (started := self.watch.started(event)) is not None:
            return self._open(started), None  # (the child sees its first task start too)
        namespace = tuple(event["params"]["namespace"])
        inside = self.children.get(namespace[: len(self.scope) + 1])
        if len(namespace) <= len(self.scope):
            inside = None
        ended = self.watch.ended(event) if event["method"] == "tasks" else None
        return inside, ended and self._close(ended)

    def _open(self, started: LifecyclePayload) -> Any:
        from graphkit.stream._router import EventRouter
        from graphkit.stream.run_stream import AsyncSubgraphRunStream, SubgraphRunStream

        path, pump = tuple(started["namespace"]), self.router.pump
        child = EventRouter(path, self.router.factories, pump)
        kind = AsyncSubgraphRunStream if pump.is_async else SubgraphRunStream
        self.children[path] = handle = kind(child, pump, started)
        self.channel.push(handle)
        return handle

    def _close(self, ended: LifecyclePayload) -> tuple[Any, BaseException | None]:
        handle = self.children.pop(tuple(ended["namespace"]))
        handle.status, handle.error = ended["event"], ended.get("error")
        return handle, RuntimeError(handle.error) if handle.error is not None else None

    def process(self, event: ProtocolEvent) -> bool:
        inside, ended = self._route(event)
        if inside is not None and not inside._router.finished:  # (finished: aborted)
            inside._router.feed(event)
        if ended:
            ended[0]._router.finish(ended[1])
        return True

    async def aprocess(self, event: ProtocolEvent) -> bool:
        inside, ended = self._route(event)
        if inside is not None and not inside._router.finished:
            await inside._router.afeed(event)
        if ended:
            await ended[0]._router.afinish(ended[1])
        return True

    def _unfinished(self, error: BaseException | None) -> list[Any]:
        """The handles still running when the run stopped, ended as ``run.lifecycle``
        says (``LifecycleTransformer``)."""
        for ended in self.watch.unfinished(error):
            handle = self.children[tuple(ended["namespace"])]
            handle.status, handle.error = ended["event"], ended.get("error")
        handles, self.children = list(self.children.values()), {}
        return handles

    def finalize(self) -> None:
        for handle in self._unfinished(None):
            handle._router.finish(None)

    async def afinalize(self) -> None:
        for handle in self._unfinished(None):
            await handle._router.afinish(None)

    def fail(self, err: BaseException) -> None:
        for handle in self._unfinished(err):
            handle._router.finish(err)

    async def afail(self, err: BaseException) -> None:
        for handle in self._unfinished(err):
            await handle._router.afinish(err)
