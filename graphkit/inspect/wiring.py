"""How nodes are wired, as far as a run's records (and, optionally, the graph) tell.

The records name channels, not edges: ``branch:to:weather`` written by ``planner``
may come from a static edge or from a router. Given the compiled graph, ``Wiring``
reads the builder's edges, routers and waiting edges and names them exactly; without
it, it infers a node's trigger channels from their names and says "an edge or
conditional edge of X".
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from graphkit.channels import EMPTY
from graphkit.constants import END, INPUT, INTERRUPT, START
from graphkit.inspect.history import stand_in, starts_unsaved
from graphkit.inspect.values import barrier_parts, branch_target, join_names

if TYPE_CHECKING:
    from graphkit.pregel.records import Run, Superstep, Update

__all__ = ["Wiring"]

EDIT_TASK = "__update__"
"""The task an ``update_state`` shows as in a thread read from LangGraph (the bridge's
``UPDATE_TASK``; the core never names one)."""


class Wiring:
    """Trigger channels, edges and routers of the nodes of ``run``.

    >>> from graphkit.inspect.examples import forecast_graph
    >>> app = forecast_graph()
    >>> run = app.trace({"topic": "today", "tokens": 0})
    >>> Wiring(run).via(("planner",), "weather", "branch:to:weather")
    'an edge or conditional edge of planner'
    >>> Wiring(run, app).via(("planner",), "weather", "branch:to:weather")
    "planner's router 'route'"
    >>> Wiring(run).triggers("summarize")
    ('branch:to:summarize', 'join:weather+news:summarize')
    """

    def __init__(self, run: Run, graph: Any = None) -> None:
        if graph is not None and hasattr(graph, "builder") and not hasattr(graph, "spec"):
            # a compiled LangGraph graph: its builder's branches are LangGraph's own
            from graphkit.bridge.convert import as_graphkit

            graph = as_graphkit(graph)
        self.graph = graph  # (its checkpointer holds the thread's history: woken_before)
        spec = getattr(graph, "spec", graph)
        builder = getattr(graph, "builder", None)
        self._spec_nodes = getattr(spec, "nodes", None)
        self._edges: set[tuple[str, str]] = set(getattr(builder, "edges", ()) or ())
        self._branches: dict[str, dict[str, Any]] = dict(getattr(builder, "branches", {}) or {})
        self._waiting = set(getattr(builder, "waiting_edges", ()) or ())
        self._declared = dict(getattr(builder, "nodes", {}) or {})
        self.exact = builder is not None
        self.context_schema = getattr(graph, "context_schema", None)
        self._cache = getattr(graph, "cache", None)
        self.has_graph = self._spec_nodes is not None  # (a low-level Pregel has no builder)
        self._channels: dict[str, None] = {}
        self._routed: dict[str, set[str]] = {}
        self._dropped: set[str] = set()  # routed names with no branch channel: no nodes
        self._planned: dict[str, None] = {}
        self._held: set[str] = set()
        self._woken_by: dict[str, dict[str, None]] = {}  # node -> channels that woke it
        # the channels that woke a task, and those the graph's nodes subscribe to
        self._triggers = {t for node in (self._spec_nodes or {}).values() for t in node.triggers}
        # the nodes that ran before the records begin (a resumed run, a thread whose
        # first steps were not saved): the state they start from has seen them run
        start = run.steps[0].checkpoint_before if run.steps else None
        if run.steps and starts_unsaved(run) and run.steps[0].update is not None:
            start = run.steps[0].update.checkpoint
        # (the bookkeeping entries, "__interrupt__" and "__input__", are no nodes)
        ran = set(start.versions_seen) if start is not None else set()
        self._ran_before = ran - {INTERRUPT, INPUT}
        for superstep in run.steps:
            if (gap := stand_in(superstep)) is not None:  # (the thread's first, or a later)
                self._ran_before.update(gap.ran)  # (the nodes its saved checkpoint says ran)
                continue  # (it only brings in the saved state: no task wrote or held it)
            if superstep is run.steps[0] and starts_unsaved(run):
                continue
            for task in superstep.plan.tasks:
                self._planned[task.node] = None
                self._channels.update(dict.fromkeys(task.triggers))
                if task.kind == "pull":
                    self._woken_by.setdefault(task.node, {}).update(dict.fromkeys(task.triggers))
                self._triggers.update(task.triggers)
            if superstep.execution is not None:
                for result in superstep.execution.results:
                    self._note_writes(result.task.node, [channel for channel, _ in result.writes])
                    if result.task.parent:  # started while the step ran
                        self._planned[result.task.node] = None
            if superstep.update is not None:
                self._note_held(superstep.update)
                self._note_dropped(superstep)

    def _note_held(self, update: Update) -> None:
        """Without the graph, a deferred node shows in the records: a write to its
        branch channel that did not wake it, or the runtime releasing its trigger."""
        for change in update.changes:
            channel, updated = change.channel, change.channel in update.updated_channels
            parts = self.barrier(channel)
            target = parts[1] if parts is not None else branch_target(channel)
            held = change.writers and not updated and parts is None
            released = not change.writers and updated and change.after is not EMPTY
            if target is not None and (held or released):
                self._held.add(target)

    def _note_dropped(self, superstep: Superstep) -> None:
        """A name a router or ``Command`` chose whose write the Update dropped: the
        graph has no branch channel for it, so no node has that name."""
        update, execution = superstep.update, superstep.execution
        for result in execution.results if execution is not None else ():
            for channel, _ in result.writes:
                target = branch_target(channel)
                if target is not None and update is not None and update.change(channel) is None:
                    self._dropped.add(target)

    def _note_writes(self, writer: str, channels: Sequence[str]) -> None:
        for channel in channels:
            self._channels[channel] = None
            target = branch_target(channel)
            if target is not None:
                self._routed.setdefault(target, set()).add(writer)

    # -- nodes and their triggers ----------------------------------------------------------

    def knows(self, node: str) -> bool:
        """True if ``node`` is in the graph, or the run planned it or wrote its trigger."""
        if self._spec_nodes is not None and node in self._spec_nodes:
            return True
        return (
            node in self._planned
            or node in self._ran_before
            or (node in self._routed and node not in self._dropped)
            or any(
                (parts := self.barrier(channel)) is not None and parts[1] == node
                for channel in self._channels
            )
        )

    def node_names(self) -> list[str]:
        """The nodes of the graph (or, without it, those the run planned)."""
        return sorted(set(self._spec_nodes or ()) | set(self._planned) | self._ran_before)

    def chosen_not_run(self) -> tuple[list[str], list[str]]:
        """The names a router or edge chose that are no node listed by ``node_names``:
        those no node has (the runtime dropped them), then nodes the run stopped before."""
        chosen = set(self._routed) - set(self.node_names())
        return sorted(chosen & self._dropped), sorted(chosen - self._dropped)

    def handled_by(self, node: str) -> str | None:
        """The node whose error handler ``node`` is, or None: it runs when that node
        raises, started by the failure, which wakes no channel a checkpoint records."""
        for name, spec in (self._spec_nodes or {}).items():
            if getattr(spec, "error_handler", None) == node:
                return str(name)
        return None

    def triggers(self, node: str) -> tuple[str, ...]:
        """The channels whose new version wakes ``node``."""
        if self._spec_nodes is not None and node in self._spec_nodes:
            return tuple(self._spec_nodes[node].triggers)
        if node == START:
            return (START,)
        joins = [
            channel
            for channel in self._channels
            if (parts := self.barrier(channel)) is not None and parts[1] == node
        ]
        # a low-level Pregel's node subscribes to channels of any name: the run recorded
        # those that woke it, and a StateGraph's branch:to:<node> would name none of them
        subscribed = [
            channel
            for channel in self._woken_by.get(node, ())
            if channel != START and branch_target(channel) is None and self.barrier(channel) is None
        ]
        return (*subscribed, *joins) if subscribed else (f"branch:to:{node}", *joins)

    def cacheable(self, node: str) -> bool:
        """Whether the graph may serve ``node``'s writes from its node cache: the node
        has a ``CachePolicy`` and the graph was compiled with a cache (False without
        the graph)."""
        spec = (self._spec_nodes or {}).get(node)
        return self._cache is not None and getattr(spec, "cache_policy", None) is not None

    def deferred(self, node: str) -> bool:
        """True for a node added with ``defer=True`` (without the graph: one whose
        trigger the records show held back or released at the run's end)."""
        if self.exact:
            declaration = self._declared.get(node)
            return bool(getattr(declaration, "defer", False))
        return node in self._held

    def reached_directly(self, node: str) -> bool:
        """True if an edge, a router's path_map or a declared Command destination leads
        to ``node`` (without the graph: if something wrote its branch channel)."""
        if not self.exact:
            return node in self._routed
        if any(end == node for _, end in self._edges):
            return True
        return any(self.declares(source, node) for source in {*self._branches, *self._declared})

    def declares(self, source: str, target: str) -> bool:
        """True if ``source`` names ``target`` in a router's path_map or its declared
        Command destinations (a router without a path_map names no node; without the
        graph: if ``source`` chose ``target`` at some step)."""
        if not self.exact:
            return source in self._routed.get(target, ())
        return target in self.destinations(source) or any(
            target in (branch.targets() or ()) for branch in self._branches.get(source, {}).values()
        )

    def is_trigger(self, channel: str) -> bool:
        """True for a channel that wakes a node: a StateGraph's edge channels, and (a
        low-level Pregel's nodes subscribe to any channel) one that woke a task of the
        run or that a node of the graph subscribes to."""
        if channel == START or branch_target(channel) is not None or channel.startswith("join:"):
            return True
        return channel in self._triggers

    def barrier(self, channel: str) -> tuple[tuple[str, ...], str] | None:
        """(sources, target) of a waiting edge's channel, or None for another channel."""
        for starts, end in self._waiting:
            if channel == f"join:{'+'.join(starts)}:{end}":
                return tuple(starts), end
        return barrier_parts(channel)

    # -- edges and routers --------------------------------------------------------------------

    def routers(self, source: str, target: str) -> list[str]:
        """Names of ``source``'s routers that can choose ``target`` (exact wiring only)."""
        return [
            name
            for name, branch in self._branches.get(source, {}).items()
            if (targets := branch.targets()) is None or target in targets
        ]

    def static_edge(self, source: str, target: str) -> bool:
        """True for a plain ``add_edge(source, target)`` (exact wiring only)."""
        return self.exact and (source, target) in self._edges

    def waiting_edges(self, target: str) -> list[tuple[str, ...]]:
        """The sources of each waiting edge into ``target`` (exact wiring only)."""
        return sorted(tuple(starts) for starts, end in self._waiting if end == target)

    def destinations(self, source: str) -> tuple[str, ...]:
        """Where ``source``'s ``Command(goto=...)`` may go, as declared (exact only)."""
        declaration = self._declared.get(source)
        destinations = getattr(declaration, "destinations", None) or ()
        return tuple(destinations)

    def via(
        self, writers: Sequence[str], target: str, channel: str, commanded: Sequence[str] = ()
    ) -> str:
        """How ``writers`` reached ``target`` through ``channel``, in words
        (``commanded``: the writers known to have returned ``Command(goto=target)``)."""
        parts = self.barrier(channel)
        if parts is not None:
            return f"the waiting edge [{', '.join(parts[0])}] → {target}"
        if tuple(writers) == (EDIT_TASK,) and branch_target(channel) == target:
            return self._edit_via(target)
        names = ["START" if writer == START else writer for writer in writers]
        if self.direct(channel, commanded):
            return join_names(names)
        if not self.exact and not set(writers) & set(commanded):
            return f"an edge or conditional edge of {join_names(names)}"
        return join_names(
            [
                f"{writer}'s Command(goto={target!r})"
                if writer in commanded
                else self._one_via(writer, target)
                for writer in writers
            ]
        )

    def _edit_via(self, target: str) -> str:
        """A route an ``update_state`` wrote: it is made as a node (``as_node``), and the
        routes it writes are that node's edges' and routers'. A LangGraph thread does not
        save which node, so the answer names the ones whose edge or router leads to
        ``target`` (it said "an edge or conditional edge of __update__", which has none)."""
        made_as = f"update_state ({EDIT_TASK}), made as a node"
        if not self.exact:
            return (
                f"{made_as}: it is a route that node's edge or router writes (pass the "
                "graph to name them)"
            )
        sources = [START, *self._declared]
        leads = [s for s in sources if (s, target) in self._edges or self.routers(s, target)]
        ways = " or ".join(self._one_via(source, target) for source in leads)
        return f"{made_as}: it is the route {ways} writes" if ways else made_as

    def direct(self, channel: str, commanded: Sequence[str] = ()) -> bool:
        """True for a channel nodes write themselves (a low-level Pregel's): no edge,
        router or Command stands between the writers and the node it wakes, so the way
        is the writers.

        >>> from graphkit.inspect.examples import forecast_graph
        >>> run = forecast_graph().trace({"topic": "today", "tokens": 0})
        >>> Wiring(run).direct("inbox:E"), Wiring(run).direct("branch:to:weather")
        (True, False)
        """
        return self.barrier(channel) is None and branch_target(channel) is None and not commanded

    def _one_via(self, writer: str, target: str) -> str:
        name = "START" if writer == START else writer
        if not self.exact:
            return f"an edge or conditional edge of {name}"
        static = (writer, target) in self._edges
        routers = ", ".join(
            self._router_name(writer, name) for name in self.routers(writer, target)
        )
        if static and routers:
            return f"the edge {name} → {target} and {name}'s router {routers}"
        if static:
            return f"the edge {name} → {target}"
        if not routers and target in self.destinations(writer):  # (its output not saved)
            return f"{name}'s Command(goto=...)"
        return f"{name}'s router {routers}" if routers else name

    def may_route(self, source: str, target: str) -> bool:
        """True if ``source`` has a router that can choose ``target`` (without the graph:
        if it chose ``target`` at some step of this run)."""
        if self.exact:
            return bool(self.routers(source, target)) or target in self.destinations(source)
        return source in self._routed.get(target, ())

    def router_words(self, source: str, target: str) -> str:
        """``router 'route'`` (or ``Command(goto=...)``) with the graph, ``conditional
        edge or Command`` without it."""
        if not self.exact:
            return "conditional edge or Command"
        routers = self.routers(source, target)
        if not routers:
            return "Command(goto=...)"
        return "router " + ", ".join(self._router_name(source, name) for name in routers)

    def _router_name(self, source: str, name: str) -> str:
        """``'tools_condition'``; a lambda, which has no name (its branch's ``'condition'``
        is none the user wrote), by the nodes its path_map names; a ``partial`` by its
        function (the branch's name, ``'condition'`` or a converted graph's ``'call'``,
        is none the user wrote either)."""
        branch = self._branches[source][name]
        path = inspect.unwrap(branch.path)  # (a converted graph's router wraps LangGraph's)
        while isinstance(path, functools.partial):
            path = inspect.unwrap(path.func)
        own = getattr(path, "__name__", None)
        if own != "<lambda>":
            return repr(own if path is not branch.path and isinstance(own, str) else name)
        targets = ["END" if target == END else target for target in branch.targets() or ()]
        return f"(a lambda, to {join_names(targets, 'or')})" if targets else "(a lambda)"
