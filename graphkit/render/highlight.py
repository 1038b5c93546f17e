"""Show a phase, or the path a run took, on an SVG drawn once: add CSS classes to the
node and edge elements by id. No layout runs, so stepping through a run is cheap.

Only graphkit's own SVG (``draw_svg``) is understood: every node and edge is a
``<g id="..." class="...">`` whose id names it (see ``graphkit.render.text``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from graphkit.constants import BRANCH_CHANNEL_PREFIX, END, START, TASKS
from graphkit.pregel.stepper import INPUT_TASK
from graphkit.render.dot import VIA_CLASS_PREFIX
from graphkit.render.text import decode_name, parse_edge_element_id
from graphkit.render.theme import OVERLAY_CLASSES, PHASE_CLASSES, STYLE_ID, STYLESHEET
from graphkit.unsaved import not_saved

__all__ = ["PHASES", "highlight", "overlay_path"]

PHASES = ("plan", "execute", "update")

_GROUP = re.compile(r'<g id="([^"]*)" class="([^"]*)">')


class _Index:
    """The node and edge elements of an SVG, looked up by name."""

    def __init__(self, svg: str) -> None:
        self.nodes: dict[str, list[str]] = {}
        self.edges: dict[str, list[_EdgeElement]] = {}
        for match in _GROUP.finditer(svg):
            element_id, classes = match.group(1), match.group(2).split()
            if element_id.startswith("node-"):
                name = decode_name(element_id[len("node-") :])
                self.nodes.setdefault(name, []).append(element_id)
            elif (ends := parse_edge_element_id(element_id)) is not None:
                kind = next((c[len("gk-edge-") :] for c in classes if c.startswith("gk-edge-")), "")
                via = tuple(
                    decode_name(c[len(VIA_CLASS_PREFIX) :])
                    for c in classes
                    if c.startswith(VIA_CLASS_PREFIX)
                )
                element = _EdgeElement(element_id, *ends, kind, via)
                self.edges.setdefault(ends[0], []).append(element)

    def node_ids(self, names: Iterable[str]) -> list[str]:
        return [element_id for name in names for element_id in self.nodes.get(name, ())]

    def edges_from(self, source: str) -> list[_EdgeElement]:
        return self.edges.get(source, [])

    def edge_ids(self, source: str, target: str | None = None) -> list[str]:
        return [e.id for e in self.edges_from(source) if target in (None, e.target)]


@dataclass(frozen=True, slots=True)
class _EdgeElement:
    id: str
    source: str
    target: str
    kind: str
    channels: tuple[str, ...] = ()  # what travels along it, when the drawing says so


def highlight(svg: str, superstep: Any, phase: str, *, failed: Iterable[str] = ()) -> str:
    """Restyle ``svg`` to show ``phase`` (``"plan"``, ``"execute"`` or ``"update"``) of
    ``superstep``, replacing any phase shown before (``superstep=None`` clears it).

    * plan: the planned tasks' nodes are ``planned`` (and a join point that released
      one, with its edge out);
    * execute: while the step has no Execution yet, its nodes are ``running``; after,
      a task that raised is ``error``, one that paused in ``interrupt()`` is
      ``interrupted``, one served from the node cache ``cached``, one that wrote
      anything is ``wrote pending``, and so is each edge whose channel its source
      wrote (the router's choice, not applied); one that finished and wrote nothing
      is ``wrote-nothing``; one of a thread read from LangGraph whose writes were never
      saved (its process ended) is ``not-saved``, not ``wrote-nothing``, and so is each
      node that ran in the steps such a thread's first step stands in for (its
      beginning was not saved: ``durability="exit"``), not left looking unrun;
    * update: the same marks, now ``wrote applied``; a failed step has no Update,
      nothing of it is applied, and only its errors stay marked.

    ``failed`` names the nodes whose writes made the step's Update fail (two writes
    to a plain key): they are ``error``, not ``wrote pending``, though no task raised.

    >>> from graphkit.render.model import DrawableGraph, Node, Edge
    >>> graph = DrawableGraph("g", (Node("__start__", "__start__", "start"), Node("a", "a")),
    ...                       (Edge("__start__", "a"),))
    >>> from graphkit.pregel.records import Plan, Superstep, Task
    >>> step = Superstep(1, Plan(1, (Task("t", 1, "a", "pull", (), (), None),)), None, None, None)
    >>> '<g id="node-a" class="node gk-node gk-node-node planned">' in highlight(
    ...     graph.draw_svg(engine="python"), step, "plan")
    True
    """
    if phase not in PHASES:
        raise ValueError(f"Unknown phase {phase!r}; use one of {list(PHASES)}.")
    marks = {}
    if superstep is not None:
        marks = _phase_marks(_Index(svg), superstep, phase, set(failed))
    return _restyle(svg, marks, PHASE_CLASSES)


def overlay_path(svg: str, run: Any) -> str:
    """Mark the path ``run`` took on ``svg``: every node that ran is ``ran`` (and
    ``failed`` if its task raised; ``not-saved`` for a task of a LangGraph thread that
    stopped in its step with none of its writes saved, and for a node that ran in the
    steps a thread whose beginning was not saved did not keep, as ``highlight`` has it); an
    edge is ``traversed`` when its source wrote the edge's channel in step N, the write
    was applied, and its target ran in step N+1 woken by that channel (for a waiting
    edge, once the join released it).

    >>> from graphkit.pregel.records import Run
    >>> overlay_path('<svg><g id="node-a" class="gk-node"></g></svg>', Run((), {}, "done"))
    ... # doctest: +ELLIPSIS
    '<svg><style id="gk-style">...</style><g id="node-a" class="gk-node"></g></svg>'
    """
    index, marks = _Index(svg), {}
    steps = list(run.steps)
    for number, superstep in enumerate(steps):
        if superstep.execution is None:
            continue
        following = steps[number + 1].plan if number + 1 < len(steps) else None
        woken = _woken_by(following)
        applied = superstep.update is not None
        for result in superstep.execution.results:
            node = result.task.node
            unsaved = not_saved(result)
            # (a LangGraph task with nothing saved in the step the thread stopped in may
            # not have finished, and runs again: not-saved, as the debugger draws it)
            ran = "not-saved" if unsaved is not None and not unsaved.finished else "ran"
            _mark(marks, index.node_ids([node]), ran)
            if unsaved is not None and unsaved.start is not None:  # (as the debugger)
                _mark(marks, index.node_ids(unsaved.ran), "not-saved")
            if result.error is not None:
                _mark(marks, index.node_ids([node]), "failed")
            if applied:
                _mark(marks, _edges_taken(index, node, result, woken), "traversed")
                joins = [e.target for e in index.edges_from(node) if e.kind == "waiting"]
                for join in joins:
                    if any(channel == join for _, channel in woken):
                        _mark(marks, index.edge_ids(join), "traversed")
                        _mark(marks, index.node_ids([join]), "ran")
    return _restyle(svg, marks, OVERLAY_CLASSES)


# -- what a phase and a run mark ----------------------------------------------------------


def _phase_marks(
    index: _Index, superstep: Any, phase: str, failed: set[str]
) -> dict[str, set[str]]:
    marks: dict[str, set[str]] = {}
    tasks = superstep.plan.tasks
    _mark(marks, index.node_ids(t.node for t in tasks), "planned")
    for task in tasks:
        for channel in task.triggers:
            if channel.startswith("join:"):
                _mark(marks, index.node_ids([channel]), "planned")
                _mark(marks, index.edge_ids(channel, task.node), "planned")
    if phase == "plan":
        return marks
    execution = superstep.execution
    if execution is None:
        _mark(marks, index.node_ids(t.node for t in tasks), "running")
        return marks
    discarded = phase == "update" and superstep.update is None  # the step failed
    for result in execution.results:
        node_ids = index.node_ids([result.task.node])
        if result.error is not None:
            _mark(marks, node_ids, "error")
            if getattr(result, "handled", False) and not discarded:  # the hand-over
                state = "pending" if phase == "execute" else "applied"
                for other in execution.results:
                    if other.task.parent == result.task.id:
                        _mark(marks, index.edge_ids(result.task.node, other.task.node), state)
        if result.interrupts or result.paused:
            _mark(marks, node_ids, "interrupted")
        if getattr(result, "cached", False):  # not run: its writes came from the cache
            _mark(marks, node_ids, "cached")
        if result.task.node in failed:  # its write met another in an Update that failed
            _mark(marks, node_ids, "error")
            continue
        if result.error is not None or discarded:
            continue
        # Pending writes (after Execute) are drawn dashed; applied ones (after Update)
        # solid and heavier: the two phases must not look the same.
        state = "pending" if phase == "execute" else "applied"
        edges = _edges_taken(index, result.task.node, result, None)
        for name in ("wrote", state):
            if result.writes:
                _mark(marks, node_ids, name)
            _mark(marks, edges, name)
        # a task that finished and wrote nothing ran all the same (left "planned", it
        # looked unrun); with nothing pending or applied, both phases draw it alike (a
        # cached one did not run: "cached" says so)
        ran = not (getattr(result, "paused", False) or getattr(result, "cached", False))
        if (unsaved := not_saved(result)) is not None:  # what it wrote is not known
            _mark(marks, node_ids, "not-saved")
            if unsaved.start is not None:  # (it stands in for the steps not saved)
                _mark(marks, index.node_ids(unsaved.ran), "not-saved")
        elif ran and not (result.writes or result.interrupts):
            _mark(marks, node_ids, "wrote-nothing")
    return marks


def _edges_taken(
    index: _Index, node: str, result: Any, woken: set[tuple[str, str]] | None
) -> list[str]:
    """The edges out of ``node`` that its task's writes took (and, given ``woken``,
    that woke their target in the next step). A task that failed or paused in
    ``interrupt()`` took none: it did not finish."""
    if result.error is not None or result.interrupts or getattr(result, "paused", False):
        return []
    written = {channel for channel, _ in result.writes}
    taken = []
    edges = index.edges_from(node)
    if node == INPUT_TASK:  # a low-level Pregel's input travels along START's edges
        edges = [edge for edge in index.edges_from(START) if edge.channels]
    # a router's Send (a ReAct agent's tool calls) names its target on the Send itself
    sent_to = {getattr(value, "node", None) for channel, value in result.writes if channel == TASKS}
    # a router (or Command) that chose any node did not choose END, even one it has no
    # drawn edge to: a Send or goto outside its path map runs that node all the same
    static_targets = {e.target for e in edges if e.kind in ("edge", "waiting")}
    routed = bool(sent_to) or any(
        channel.startswith(BRANCH_CHANNEL_PREFIX)
        and channel[len(BRANCH_CHANNEL_PREFIX) :] not in static_targets
        for channel in written
    )
    # a Command(goto=END) writes nothing either; a node that went on along a static
    # edge did not end the run
    static = bool(static_targets - {END})
    for edge in edges:
        if edge.channels:  # a low-level Pregel's edge: taken by the messages it carries
            sent = [c for c in edge.channels if c in written]
            if END in edge.channels and not (sent_to or _woke_a_node(edges, written)):
                sent.append(END)  # its declared (static) edge to END: it woke no node
            if sent and (woken is None or edge.target == END or _woke(edge.target, sent, woken)):
                taken.append(edge.id)
            continue
        if edge.kind == "waiting":
            channel = edge.target  # the join point's id is its barrier channel
        elif edge.target == END:
            # Nothing is written for END: a static edge to END is taken whenever its
            # source finishes; a router chose END when it wrote none of its choices.
            chose_end = not routed and (edge.kind == "conditional" or not static)
            if edge.kind == "edge" or (edge.kind in ("conditional", "command") and chose_end):
                taken.append(edge.id)
            continue
        elif edge.kind in ("conditional", "command") and edge.target in sent_to:
            channel, written = TASKS, written | {TASKS}
        else:
            channel = BRANCH_CHANNEL_PREFIX + edge.target
        released = woken is None or edge.kind == "waiting" or (edge.target, channel) in woken
        if channel in written and released:
            taken.append(edge.id)
    return taken


def _woke_a_node(edges: list[_EdgeElement], written: set[str]) -> bool:
    """Whether a low-level node's writes travel along one of its drawn edges to a node.
    A node that declared an edge to END (``static=[("__end__", None, label)]``, drawn
    with END among its channels) took it when they do not and it sent no ``Send``: as
    a router chose END when it chose none of its targets."""
    return any(
        channel in written for edge in edges if edge.target != END for channel in edge.channels
    )


def _woken_by(plan: Any) -> set[tuple[str, str]]:
    """``(node, channel)`` for each task of ``plan`` and what woke it; a Send's task is
    woken by the channel the Sends were written to."""
    if plan is None:
        return set()
    return {(t.node, TASKS if t.kind == "push" else c) for t in plan.tasks for c in t.triggers}


def _woke(target: str, channels: list[str], woken: set[tuple[str, str]]) -> bool:
    return any((target, channel) in woken for channel in channels)


def _mark(marks: dict[str, set[str]], ids: Iterable[str], name: str) -> None:
    for element_id in ids:
        marks.setdefault(element_id, set()).add(name)


# -- rewriting the SVG -------------------------------------------------------------------------


def _restyle(svg: str, marks: dict[str, set[str]], owned: tuple[str, ...]) -> str:
    """Set the classes in ``owned`` to exactly ``marks``, keep every other class."""

    def replace(match: re.Match[str]) -> str:
        element_id, classes = match.group(1), match.group(2).split()
        kept = [c for c in classes if c not in owned]
        added = [c for c in owned if c in marks.get(element_id, ())]
        return f'<g id="{element_id}" class="{" ".join(kept + added)}">'

    restyled = _GROUP.sub(replace, svg)
    if f'id="{STYLE_ID}"' not in restyled:
        opening = re.search(r"<svg\b[^>]*>", restyled)
        at = opening.end() if opening else 0
        restyled = f'{restyled[:at]}<style id="{STYLE_ID}">{STYLESHEET}</style>{restyled[at:]}'
    return restyled
