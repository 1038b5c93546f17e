"""Checks for lesson 10 · BSP beyond agents: Pregel's vertex programs, written with
LangGraph's low-level API.

The lesson writes each algorithm as the Pregel paper does, with ``Pregel`` and
``NodeBuilder``: one node per vertex, woken by its inbox (a ``Topic`` channel: every
message sent to it in the last superstep), keeping its value in a ``LastValue`` channel,
and sending messages by writing to its neighbours' inboxes. A vertex that writes nothing
votes to halt; when no inbox changes, the next Plan is empty and the run is over.

The checks run the learner's pieces inside such programs and compare with plain Python:
Dijkstra for shortest paths, the smallest label per component for connected components.

>>> def relax(offers, known):
...     return min(offers) if known is None or min(offers) < known else None
>>> sssp_app(GRAPHS["fork"], "S", relax).invoke(0)
{'distance:S': 0, 'distance:A': 1, 'distance:B': 1, 'distance:X': 2}
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from graphkit.channels import LastValue, Topic
from graphkit.course import Wrong, exercise
from graphkit.errors import GraphRecursionError
from graphkit.pregel import ChannelWriteEntry, NodeBuilder, Pregel
from graphkit.pregel.node_builder import PregelNode

__all__ = [
    "COUNT_GRAPH",
    "DAMPING",
    "FRIENDS",
    "GRAPHS",
    "LINKS",
    "check_component_vertex",
    "check_relax",
    "check_superstep_count",
    "components_app",
    "components_reference",
    "dijkstra",
    "pagerank_reference",
    "sssp_app",
]

DAMPING = 0.85

# Generous for these graphs (the longest run takes 8 supersteps); a vertex program that
# never votes to halt reaches it within a fraction of a second.
RECURSION_LIMIT = 40

GRAPHS: dict[str, dict[str, dict[str, int]]] = {
    "lesson": {"A": {"B": 4, "C": 1}, "B": {"D": 1}, "C": {"B": 2, "D": 5}, "D": {"E": 3}, "E": {}},
    "ring": {"A": {"B": 1}, "B": {"C": 1}, "C": {"D": 1}, "D": {"A": 1, "E": 10}, "E": {"A": 1}},
    "fork": {"S": {"A": 1, "B": 1}, "A": {"X": 1}, "B": {"X": 5}, "X": {}},
    "shortcut": {
        "S": {"A": 1, "T": 10, "B": 6},
        "A": {"B": 1},
        "B": {"C": 1, "S": 1},
        "C": {"T": 1},
        "T": {},
    },
}
"""Small weighted directed graphs: vertex -> {neighbour: weight}; the source is the
first vertex."""

COUNT_GRAPH = GRAPHS["shortcut"]
"""The graph of exercise 10.2: in how many supersteps do vertices run, SSSP from "S"?"""

LINKS: dict[str, dict[str, list[str]]] = {
    "lesson": {"A": ["B", "C"], "B": ["C"], "C": ["A"], "D": ["C"]},
    "web": {
        "home": ["blog", "shop"],
        "blog": ["home", "shop", "about"],
        "shop": ["home"],
        "about": ["home", "blog"],
    },
}
"""Small link graphs for PageRank: page -> the pages it links to (each has a link)."""

FRIENDS: dict[str, list[tuple[str, str]]] = {
    "lesson": [("a", "b"), ("b", "c"), ("d", "e"), ("f", "f")],
    "path": [("e", "d"), ("d", "c"), ("c", "b"), ("b", "a")],
    "cycle": [("d", "b"), ("b", "c"), ("c", "d"), ("e", "f"), ("f", "a")],
    "star": [("m", "x"), ("m", "k"), ("m", "b"), ("z", "y")],
}
"""Small undirected graphs for connected components, as lists of edges."""


# -- the references: plain Python ------------------------------------------------------------


def dijkstra(edges: Mapping[str, Mapping[str, float]], source: str) -> dict[str, float]:
    """Shortest distances from ``source`` in plain Python: the reference.

    >>> dijkstra(GRAPHS["fork"], "S")
    {'S': 0, 'A': 1, 'B': 1, 'X': 2}
    """
    dist = {source: 0}
    queue = [(0, source)]
    while queue:
        d, vertex = heapq.heappop(queue)
        if d > dist[vertex]:
            continue
        for neighbour, weight in edges[vertex].items():
            if d + weight < dist.get(neighbour, math.inf):
                dist[neighbour] = d + weight
                heapq.heappush(queue, (d + weight, neighbour))
    return dist


def pagerank_reference(
    links: Mapping[str, list[str]], rounds: int, damping: float = DAMPING
) -> dict[str, float]:
    """``rounds`` synchronous PageRank updates from the uniform rank, in plain Python."""
    n = len(links)
    rank = dict.fromkeys(links, 1 / n)
    for _ in range(rounds):
        incoming = dict.fromkeys(links, 0.0)
        for page, outs in links.items():
            for target in outs:
                incoming[target] += rank[page] / len(outs)
        rank = {page: (1 - damping) / n + damping * incoming[page] for page in links}
    return rank


def neighbours_of(edges: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """Each vertex of an undirected edge list and its neighbours (sorted, not itself).

    >>> neighbours_of([("a", "b"), ("f", "f")])
    {'a': ['b'], 'b': ['a'], 'f': []}
    """
    found: dict[str, set[str]] = {}
    for one, other in edges:
        found.setdefault(one, set()).add(other)
        found.setdefault(other, set()).add(one)
    return {v: sorted(found[v] - {v}) for v in sorted(found)}


def components_reference(edges: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Each vertex's component, named by its smallest vertex: plain Python.

    >>> components_reference(FRIENDS["lesson"])
    {'a': 'a', 'b': 'a', 'c': 'a', 'd': 'd', 'e': 'd', 'f': 'f'}
    """
    neighbours = neighbours_of(edges)
    label: dict[str, str] = {}
    for start in neighbours:  # sorted: the first vertex met names its component
        if start in label:
            continue
        label[start], stack = start, [start]
        while stack:
            for n in neighbours[stack.pop()]:
                if n not in label:
                    label[n] = start
                    stack.append(n)
    return label


# -- the programs the checks run --------------------------------------------------------------


def sssp_app(
    edges: Mapping[str, Mapping[str, float]],
    source: str,
    relax: Callable[[list, Any], Any],
) -> Pregel:
    """The lesson's single-source shortest paths: one node per vertex, woken by its
    inbox ``inbox:<v>`` (a ``Topic`` of offers), keeping ``distance:<v>`` (a
    ``LastValue``). ``relax(offers, known)`` returns the vertex's new distance, or None
    to send nothing. Run it with ``app.invoke(0)``: the source's inbox gets the offer 0.
    """
    nodes, channels = {}, {}
    for vertex in edges:
        channels[f"inbox:{vertex}"] = Topic(int)
        channels[f"distance:{vertex}"] = LastValue(int)
    for vertex, out in edges.items():

        def program(x: dict[str, Any], vertex: str = vertex) -> Any:
            return relax(x[f"inbox:{vertex}"], x.get(f"distance:{vertex}"))

        writes = [ChannelWriteEntry(f"distance:{vertex}", skip_none=True)]
        writes += [
            ChannelWriteEntry(
                f"inbox:{neighbour}",
                mapper=lambda d, w=weight: None if d is None else d + w,
                skip_none=True,
            )
            for neighbour, weight in out.items()
        ]
        nodes[vertex] = (
            NodeBuilder()
            .subscribe_to(f"inbox:{vertex}")
            .read_from(f"distance:{vertex}")
            .do(program)
            .write_to(*writes)
            .meta(edge_labels=out)  # the drawing writes each edge's weight on it
        )
    return Pregel(
        nodes=nodes,
        channels=channels,
        input_channels=f"inbox:{source}",
        output_channels=[f"distance:{vertex}" for vertex in edges],
    )


def components_app(
    edges: Iterable[tuple[str, str]], vertex: Callable[[str, list[str]], Any]
) -> Pregel:
    """Connected components with the node ``vertex(name, neighbours)`` builds for each
    vertex, on the channels ``heard:<v>`` (a ``Topic`` of labels) and ``label:<v>`` (a
    ``LastValue``). The input tells every vertex its own name:
    ``app.invoke({f"heard:{v}": v for v in vertices})``."""
    neighbours = neighbours_of(edges)
    channels: dict[str, Any] = {}
    for name in neighbours:
        channels[f"heard:{name}"] = Topic(str)
        channels[f"label:{name}"] = LastValue(str)
    nodes = {name: vertex(name, list(near)) for name, near in neighbours.items()}
    return Pregel(
        nodes=nodes,
        channels=channels,
        input_channels=[f"heard:{name}" for name in neighbours],
        output_channels=[f"label:{name}" for name in neighbours],
    )


def _run(app: Pregel, given: Any, what: str, halting_hint: str) -> Any:
    """``app.trace(given)`` with a low recursion limit; a program that never stops, or
    fails, becomes ``Wrong`` naming the step and what to look at."""
    try:
        return app.trace(given, {"recursion_limit": RECURSION_LIMIT})
    except GraphRecursionError as error:
        run = getattr(error, "run", None)
        busy = run.steps[-1].plan.nodes if run is not None and run.steps else []
        raise Wrong(
            f"On {what} the run did not end: after {RECURSION_LIMIT} supersteps vertices "
            f"{busy} were still being woken. Some vertex keeps sending messages, so the "
            "next Plan is never empty.",
            halting_hint,
        ) from error
    except Exception as error:
        run = getattr(error, "run", None)
        where = f" in step {run.steps[-1].step}" if run is not None and run.steps else ""
        raised = f"On {what} running your vertex program raised {type(error).__name__}{where}"
        key = error.args[0] if isinstance(error, KeyError) and error.args else None
        if isinstance(key, str) and key in app.channels:
            raise Wrong(
                f"{raised}: {key!r}. A channel no node has written yet is absent from the "
                "dict a node receives (why the lesson's vertices read their distance with "
                "x.get).",
                f"Read it with x.get({key!r}), which gives None while {key} is empty.",
            ) from error
        odd = _odd_write(app, run)
        if odd is not None:
            raise Wrong(f"{raised}: {error}. Before that, {odd[0]}", odd[1]) from error
        raise Wrong(
            f"{raised}: {error}",
            "Build the app yourself and run app.trace(...); the last superstep's tasks "
            "table shows which vertex failed.",
        ) from error


def _odd_write(app: Pregel, run: Any) -> tuple[str, str] | None:
    """The first write of ``run`` whose value is not of its channel's type (a None a
    write without ``skip_none`` sent on, a dict of writes sent whole), said and hinted;
    None when every write fits."""
    for superstep in run.steps if run is not None else ():
        results = superstep.execution.results if superstep.execution is not None else ()
        for result in results:
            for name, value in result.writes:
                typ = getattr(app.channels.get(name), "typ", None)
                spread = isinstance(app.channels.get(name), Topic) and isinstance(value, list)
                if not isinstance(typ, type) or all(
                    isinstance(v, typ) for v in (value if spread else [value])
                ):
                    continue
                return (
                    f"{result.task.node!r} wrote {value!r} to {name} in step "
                    f"{superstep.step}, a channel of {typ.__name__} values.",
                    f"write_to({name!r}) sends the channel what your function returns, "
                    "whole, and None too: return the value alone, and write it with one "
                    f"ChannelWriteEntry(channel, skip_none=True) per channel ({name!r} "
                    "among them), so that None sends nothing.",
                )
    return None


# -- 10.1 ------------------------------------------------------------------------------------

RELAX_CASES: list[tuple[list[int], int | None, int | None, str]] = [
    ([5], None, 5, "a first offer to a vertex that knows no distance yet"),
    ([5, 6], None, 5, "two offers in one step"),
    ([6, 5], None, 5, "the same two offers, arrived in the other order"),
    ([2, 9, 4], 3, 2, "an offer that beats what the vertex knows"),
    ([4], 3, None, "an offer worse than what the vertex knows"),
    ([3, 7], 3, None, "an offer no better than what the vertex knows"),
    ([4], 0, None, "a vertex whose known distance is 0 (the source)"),
]


@exercise("10.1 · The vertex program: combine, then keep or halt")
def check_relax(relax: Callable[[list, Any], Any]) -> str:
    """``relax(offers, known)`` returns the smallest offer when it beats ``known`` (or
    ``known`` is None), else None, without changing ``offers``; SSSP built on it
    matches Dijkstra on several graphs and halts."""
    for offers, known, expected, case in RELAX_CASES:
        given = list(offers)
        got = relax(given, known)
        if given != offers:
            raise Wrong(
                f"relax({offers}, {known}) changed its offers to {given}. The list is the "
                "inbox channel's value: the records of the run keep it, so changing it "
                "rewrites history.",
                "Read the offers without sorting or popping them: min(offers) makes no change.",
            )
        if got != expected or type(got) is bool:
            if known == 0:  # `not known` takes the source's 0 for "no distance yet"
                hint = (
                    "0 is a distance the vertex knows, yet it is falsy: a test that treats "
                    "a falsy known like None lets any offer beat the source. Only None "
                    "means no distance yet."
                )
            elif expected is None:
                hint = (
                    "When the best offer does not beat the distance the vertex knows, return "
                    "None: nothing is written, no neighbour is woken. That is the vote to halt."
                )
            elif offers == [6, 5]:
                hint = (
                    "The offers come in the order the senders' tasks were applied; a "
                    "combiner must give the same answer in any order (min does)."
                )
            else:
                hint = "Combine the offers into the best one, then compare it with known."
            raise Wrong(
                f"relax({offers}, {known}) returned {got!r}; for {case} it should return "
                f"{expected!r}.",
                hint,
            )
    for name, edges in GRAPHS.items():
        source = next(iter(edges))
        what = f"the graph {name!r} from {source}"
        run = _run(
            sssp_app(edges, source, relax),
            0,
            what,
            "Return None unless the best offer is strictly smaller than what the vertex knows.",
        )
        got = {k.removeprefix("distance:"): v for k, v in run.values.items() if v is not None}
        want = dijkstra(edges, source)
        if got != want:
            wrong = sorted(v for v in want if got.get(v) != want[v])
            raise Wrong(
                f"On {what}, SSSP ended with distances {got}; Dijkstra says {want} (wrong at "
                f"{wrong}).",
                "Look at that run's changes table: which vertex kept an offer that was not "
                "the smallest in its inbox?",
            )
    return (
        "Your vertex keeps the smallest offer, whatever order the messages came in, and "
        f"votes to halt when nothing improves: SSSP matches Dijkstra on {len(GRAPHS)} graphs."
    )


# -- 10.2 ------------------------------------------------------------------------------------


def _smallest(offers: list[int], known: int | None) -> int | None:
    best = min(offers)
    return best if known is None or best < known else None


def _vertex_steps(run: Any) -> list[int]:
    """The supersteps in which at least one vertex ran (not the input step)."""
    return [step.step for step in run.steps if step.step >= 0 and step.plan.tasks]


@exercise("10.2 · Count the supersteps")
def check_superstep_count(answer: int) -> str:
    """``answer`` is the number of supersteps in which vertices run, SSSP from ``S`` on
    the exercise's graph (the input step, -1, not counted)."""
    if not isinstance(answer, int) or isinstance(answer, bool):
        raise Wrong(f"Give a whole number of supersteps, not {answer!r}.", "e.g. answer = 4")
    run = sssp_app(COUNT_GRAPH, "S", _smallest).trace(0)
    steps = _vertex_steps(run)
    if answer == len(steps):
        tasks = sum(len(step.plan.tasks) for step in run.steps if step.step >= 0)
        return (
            f"{answer} supersteps (steps {steps[0]} to {steps[-1]}), {tasks} vertex tasks in "
            f"all: after step {steps[-1]} no inbox held a message, the next Plan was empty "
            "and the run ended."
        )
    if answer == len(steps) + 1:
        hint = (
            "Count only the steps that run a vertex: the run ends with a Plan that finds "
            "no task, and that step runs nothing. And step -1 is the input's."
        )
    elif answer == steps[-1] and steps[0] == 0:
        hint = (
            "That is the number of the last step that runs a vertex, not how many steps "
            "ran: steps are numbered from step 0, where S runs, and step 0 counts too."
        )
    elif answer > len(steps):
        hint = (
            "Fewer than you think: a message travels one edge per superstep, and a vertex "
            "woken by two messages in one step runs once."
        )
    else:
        hint = (
            "More than the number of edges on the shortest path to the farthest vertex: a "
            "long cheap path keeps improving distances after a short expensive one, and a "
            "vertex woken by an offer that does not improve still runs that step."
        )
    more = "fewer" if answer > len(steps) else "more"
    raise Wrong(
        f"You said {answer}; vertices run in {more} supersteps than that. Follow the offers "
        "step by step: which inboxes does each step fill, and does a later, cheaper offer "
        "wake a vertex again?",
        hint,
    )


# -- 10.3 ------------------------------------------------------------------------------------


_IMPORT_GRAPHKITS = (
    "Import graphkit's classes, with the same names: from graphkit.pregel import "
    "ChannelWriteEntry, NodeBuilder."
)


def _built(node: Any, name: str) -> PregelNode:
    if type(node).__module__.partition(".")[0] == "langgraph":
        # (its class is named NodeBuilder too: "returned NodeBuilder; return a NodeBuilder")
        raise Wrong(
            f"component_vertex({name!r}, ...) returned LangGraph's {type(node).__name__} "
            f"(from {type(node).__module__}): the check runs your vertices on graphkit.",
            _IMPORT_GRAPHKITS,
        )
    if isinstance(node, NodeBuilder):
        node = node.build()
    if not isinstance(node, PregelNode):
        raise Wrong(
            f"component_vertex({name!r}, ...) returned {type(node).__name__}; it should "
            "return a node: NodeBuilder().subscribe_to(...)...write_to(...).",
            "Return the NodeBuilder itself (Pregel builds it).",
        )
    return node


def _check_writes_known(node: PregelNode, name: str, vertices: Iterable[str]) -> None:
    """A write to a misspelt channel is dropped at run time (with a warning only): the
    run would end with wrong labels, and the verdict would blame the neighbours untold.
    A write to a neighbour's label is refused here too."""
    foreign = [w for w in node.writes if type(w).__module__.partition(".")[0] == "langgraph"]
    if foreign:  # (the run failed later, on the odd value such an entry writes)
        raise Wrong(
            f"The vertex {name!r} writes with LangGraph's {type(foreign[0]).__name__} "
            f"(from {type(foreign[0]).__module__}), which graphkit's NodeBuilder does not "
            "understand.",
            _IMPORT_GRAPHKITS,
        )
    known = {f"{kind}:{v}" for v in vertices for kind in ("heard", "label")}
    written = [w.channel for w in node.writes if isinstance(w, ChannelWriteEntry)]
    unknown = [channel for channel in written if channel not in known]
    if unknown:
        raise Wrong(
            f"The vertex {name!r} writes {unknown}, which the program has no channel for: "
            "the run drops such a write (with a warning), so nobody hears it.",
            "The channels are heard:<vertex> and label:<vertex>; check the spelling of "
            "each channel your node writes.",
        )
    # (run, two such vertices fail together, and the runtime's advice is to change a
    # channel the check builds, which the learner cannot)
    others = [c for c in written if c.startswith("label:") and c != f"label:{name}"]
    if others:
        raise Wrong(
            f"The vertex {name!r} writes {others}: another vertex's label is that vertex's "
            f"own value, which only it writes; {name!r} keeps its label in label:{name}.",
            "Tell a neighbour n by writing to its inbox, ChannelWriteEntry('heard:n', "
            "skip_none=True): the neighbour then decides whether the label beats its own.",
        )


def _check_tells_all(app: Pregel, neighbours: Mapping[str, list[str]], what: str) -> None:
    """A vertex whose node writes the inbox of some neighbours only: the labels still
    travel, but not past it toward the others."""
    for name, near in neighbours.items():
        written = {w.channel for w in app.nodes[name].writes if isinstance(w, ChannelWriteEntry)}
        skipped = [n for n in near if f"heard:{n}" not in written]
        if skipped:
            inboxes = " or ".join(f"heard:{n}" for n in skipped)
            raise Wrong(
                f"On {what} the vertices ended with wrong labels, and the vertex {name!r} "
                f"does not write {inboxes}: its neighbours {skipped} never hear its label.",
                "A vertex that lowers its label must tell every neighbour, whatever its "
                "name: write to heard:<neighbour> for each vertex in neighbours.",
            )


def _check_inbox_order(component_vertex: Callable[[str, list[str]], Any]) -> None:
    """One vertex, ``z``, whose inbox holds ``["q", "b", "k"]`` while its label is ``m``:
    it must keep ``b``. (On the four graphs the first label a vertex hears is often its
    smallest too, so a vertex keeping the first one would pass them.)"""
    channels: dict[str, Any] = {name: Topic(str) for name in ("heard:z", "heard:b", "heard:m")}
    channels["label:z"] = LastValue(str)
    try:
        app = Pregel(
            nodes={"z": _built(component_vertex("z", ["b", "m"]), "z")},
            channels=channels,
            input_channels=["heard:z", "label:z"],
            output_channels=["label:z"],
        )
    except (ValueError, TypeError):  # (refused nodes: the graph runs said why)
        return
    inbox = ["q", "b", "k"]
    label = _run(
        app,
        {"heard:z": inbox, "label:z": "m"},
        "a vertex z labelled 'm'",
        "Return None unless the smallest label heard is below the vertex's own.",
    ).values.get("label:z")
    if label != "b":
        raise Wrong(
            f"A vertex z labelled 'm' that heard {inbox} ended with the label {label!r}; it "
            "should keep 'b', the smallest label it heard, since 'b' < 'm'.",
            "An inbox holds the labels in the order their senders' tasks were applied, not "
            "sorted: combine them all (min), not only the first or the last.",
        )


def _tells_neighbours(run: Any) -> bool:
    """Whether a vertex of ``run`` wrote a neighbour's inbox (``heard:<n>``); the input
    step's writes are not a vertex's."""
    return any(
        name.startswith("heard:")
        for superstep in run.steps
        if superstep.step >= 0 and superstep.execution is not None
        for result in superstep.execution.results
        for name, _ in result.writes
    )


@exercise("10.3 · Connected components, one vertex at a time")
def check_component_vertex(component_vertex: Callable[[str, list[str]], Any]) -> str:
    """``component_vertex(name, neighbours)`` returns the node of one vertex: woken by
    ``heard:<name>``, it keeps the smallest label it heard in ``label:<name>`` when that
    beats its label, and then tells its neighbours; run on four graphs, every vertex
    ends with the smallest vertex of its component; and a vertex whose inbox's smallest
    label is not its first keeps that smallest one."""
    for edges in FRIENDS.values():
        vertices = neighbours_of(edges)
        for name, near in vertices.items():
            node = _built(component_vertex(name, list(near)), name)
            _check_writes_known(node, name, vertices)
            if tuple(node.triggers) != (f"heard:{name}",):
                raise Wrong(
                    f"The vertex {name!r} wakes on {list(node.triggers)}; a vertex program "
                    f"wakes on its inbox alone, heard:{name}: the labels its neighbours sent "
                    "in the last superstep.",
                    f"subscribe_to('heard:{name}'), and read_from('label:{name}') to see "
                    "its own label without waking on it.",
                )
    for graph, edges in FRIENDS.items():
        neighbours = neighbours_of(edges)
        try:
            app = components_app(edges, component_vertex)
        except (ValueError, TypeError) as error:
            raise Wrong(
                f"Pregel(...) refused your nodes on the graph {graph!r}: {error}",
                "The channels are heard:<vertex> and label:<vertex>; a node may read and "
                "write only those.",
            ) from error
        what = f"the graph {graph!r}"
        run = _run(
            app,
            {f"heard:{v}": v for v in neighbours},
            what,
            "Tell the neighbours only when the vertex's label went down: otherwise return "
            "None, and skip_none=True writes nothing anywhere.",
        )
        got = {k.removeprefix("label:"): v for k, v in run.values.items()}
        want = components_reference(edges)
        empty = sorted(v for v in want if got.get(v) is None)
        if empty:
            raise Wrong(
                f"On {what} the label of {empty} is empty after the run: those vertices "
                "never wrote label:<vertex>.",
                "On its first step a vertex knows no label yet (label:<vertex> is absent "
                "from its input): the smallest label it heard is its label.",
            )
        wrong = {v: got[v] for v in want if got[v] != want[v]}
        raised = sorted(v for v in wrong if isinstance(got[v], str) and got[v] > v)
        if raised:
            raise Wrong(
                f"On {what} the vertices ended with labels {got}: {raised} hold a label "
                "above their own name. Each should hold the smallest vertex of its "
                f"component, {want}.",
                "A vertex first hears its own name; after that its label only goes down. "
                "Keep the smallest label heard, and only when it is below the label the "
                "vertex has.",
            )
        odd = _odd_write(app, run) if wrong else None
        if odd is not None:  # (a dict of writes sent whole to the label: no neighbour heard)
            raise Wrong(
                f"On {what} the run ended with labels that are not labels: {odd[0]}", odd[1]
            )
        if wrong:
            hint = (
                "A vertex that lowers its label must tell every neighbour, by writing it "
                "to heard:<neighbour>; the label then travels one edge per superstep."
            )
            if _tells_neighbours(run):  # the labels travel: what a vertex keeps is wrong
                _check_tells_all(app, neighbours, what)
                _check_inbox_order(component_vertex)
                hint = (
                    "Your vertices do tell their neighbours. Trace that graph and read the "
                    "changes table of the vertices named: which labels reached each, and "
                    "which did it keep?"
                )
            raise Wrong(
                f"On {what} the vertices ended with labels {got}; each should hold the "
                f"smallest vertex of its component, {want} (wrong at {sorted(wrong)}).",
                hint,
            )
    _check_inbox_order(component_vertex)  # (last: the graphs' verdicts come first)
    return (
        f"On {len(FRIENDS)} graphs every vertex ends with the smallest vertex of its "
        "component, and the run ends by itself: a vertex speaks only when its label went down."
    )
