"""Checks for lesson 10 · BSP beyond agents: Pregel's ideas on graph algorithms.

The lesson writes single-source shortest paths with one graphkit node per vertex: a
vertex offers ``distance + weight`` to its neighbours by writing ``{neighbour: offer}`` to
a ``dist`` channel, and wakes the neighbours its offer improves (``Command(goto=...)``);
the ``dist`` reducer is Pregel's min-combiner. PageRank runs one update per superstep.
The checks run the learner's pieces inside these graphs and compare with plain Python.
"""

from __future__ import annotations

import heapq
import math
import operator
from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypedDict

from graphkit import END, START, Command, StateGraph
from graphkit.course import Wrong, exercise, trace

__all__ = [
    "DAMPING",
    "GRAPHS",
    "LINKS",
    "check_min_combiner",
    "check_pagerank_update",
    "check_superstep_count",
    "dijkstra",
    "pagerank_reference",
    "sssp_graph",
]

DAMPING = 0.85

GRAPHS: dict[str, dict[str, dict[str, float]]] = {
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
"""Small weighted directed graphs: vertex -> {neighbour: weight}."""

# The graph of exercise 10.2: how many supersteps does SSSP from "S" take?
COUNT_GRAPH = GRAPHS["shortcut"]

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


def dijkstra(edges: Mapping[str, Mapping[str, float]], source: str) -> dict[str, float]:
    """Shortest distances from ``source`` in plain Python: the reference."""
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


def sssp_graph(
    edges: Mapping[str, Mapping[str, float]], source: str, combine: Callable[..., Any]
) -> Any:
    """The lesson's SSSP graph: one node per vertex, ``dist`` combined by ``combine``."""

    # the functional form: the reducer is a local name, which a class body under
    # ``from __future__ import annotations`` could not resolve
    paths = TypedDict("Paths", {"dist": Annotated[dict, combine]})  # noqa: UP013

    def vertex(name: str, out: Mapping[str, float]) -> Callable[[Any], Command]:
        def program(state: Any) -> Command:
            mine = state["dist"][name]
            offers = {n: mine + w for n, w in out.items()}
            better = [n for n, d in offers.items() if d < state["dist"].get(n, math.inf)]
            return Command(update={"dist": {n: offers[n] for n in better}}, goto=better)

        return program

    builder = StateGraph(paths)
    for name, out in edges.items():
        builder.add_node(name, vertex(name, out), destinations=tuple(out))
    builder.add_edge(START, source)
    return builder.compile()


def _vertex_steps(run: Any) -> list[int]:
    return [step.step for step in run.steps if step.step > 0 and step.plan.tasks]


@exercise("10.1 · The min-combiner")
def check_min_combiner(min_combine: Callable[[dict, dict], dict]) -> str:
    """``min_combine(old, new)`` merges two distance tables keeping the smaller
    distance per vertex, without changing its arguments; SSSP built on it matches
    Dijkstra on several graphs."""
    cases = [
        ({"A": 0, "B": 4, "C": 1}, {"B": 3, "D": 5}, {"A": 0, "B": 3, "C": 1, "D": 5}),
        ({"A": 0, "B": 4}, {"B": 9, "C": 2}, {"A": 0, "B": 4, "C": 2}),
    ]
    for left, right, expected in cases:
        kept_left, kept_right = dict(left), dict(right)
        merged = min_combine(left, right)
        if left != kept_left or right != kept_right:
            raise Wrong(
                f"min_combine changed its arguments: old is now {left}, new {right}. "
                "The runtime's records keep references to channel values, so a reducer "
                "that mutates rewrites history.",
                "Build a new dict (dict(old), then update it) and return it.",
            )
        if merged != expected:
            raise Wrong(
                f"min_combine({kept_left}, {kept_right}) returned {merged!r}; combining "
                f"should give {expected}: every vertex of either side, with the smaller "
                "distance where both have one.",
                "Start from a copy of old; for each vertex of new keep the smaller distance.",
            )
    for name, edges in GRAPHS.items():
        source = next(iter(edges))
        run = trace(sssp_graph(edges, source, min_combine), {"dist": {source: 0}})
        got, want = run.values["dist"], dijkstra(edges, source)
        if got != want:
            wrong = sorted(v for v in want if got.get(v) != want[v])
            raise Wrong(
                f"On the graph {name!r} from {source}, SSSP ended with dist = {got}; "
                f"Dijkstra says {want} (wrong at {wrong}).",
                "Look at the changes table of that run: which step's combine lost the "
                "smaller offer?",
            )
    return (
        "Your combiner keeps the smallest offer per vertex: SSSP matches Dijkstra on "
        f"{len(GRAPHS)} graphs, and two offers to one vertex in one step meet in it."
    )


@exercise("10.2 · Count the supersteps")
def check_superstep_count(answer: int) -> str:
    """``answer`` is the number of supersteps in which vertex tasks run, SSSP from
    ``S`` on the exercise's graph (step 0, where ``__start__`` runs, not counted)."""

    def min_combine(left: dict, right: dict) -> dict:
        merged = dict(left)
        for vertex, d in right.items():
            merged[vertex] = min(d, merged.get(vertex, math.inf))
        return merged

    run = trace(sssp_graph(COUNT_GRAPH, "S", min_combine), {"dist": {"S": 0}})
    steps = _vertex_steps(run)
    if not isinstance(answer, int) or isinstance(answer, bool):
        raise Wrong(f"Give a whole number of supersteps, not {answer!r}.", "e.g. answer = 4")
    if answer != len(steps):
        hint = (
            "Fewer than you think: offers travel one edge per superstep, but a vertex "
            "woken twice in one step runs once."
            if answer > len(steps)
            else "More than the number of edges on the shortest path to the farthest "
            "vertex: a long cheap path keeps improving distances after a short "
            "expensive one."
        )
        raise Wrong(
            f"You said {answer}; vertex tasks run in {'fewer' if answer > len(steps) else 'more'}"
            " supersteps than that. Follow the offers step by step: which vertices does "
            "each step wake, and does a later, cheaper offer wake a vertex again?",
            hint,
        )
    return (
        f"{answer} supersteps: the distances kept improving until step {steps[-1]}, "
        "when no vertex woke a neighbour and the run ended."
    )


class Ranks(TypedDict):
    links: dict
    rank: dict
    rounds: Annotated[int, operator.add]


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


def _pagerank_graph(update: Callable[[dict], dict], rounds: int) -> Any:
    def superstep(state: Ranks) -> dict:
        return {**update(state), "rounds": 1}

    def again(state: Ranks) -> str:
        return "pagerank" if state["rounds"] < rounds else END

    builder = StateGraph(Ranks)
    builder.add_node("pagerank", superstep)
    builder.add_edge(START, "pagerank")
    builder.add_conditional_edges("pagerank", again, ["pagerank", END])
    return builder.compile()


@exercise("10.3 · One PageRank superstep")
def check_pagerank_update(pagerank_update: Callable[[dict], dict]) -> str:
    """``pagerank_update(state)`` returns ``{"rank": new}``, one synchronous PageRank
    update of ``state["rank"]`` over ``state["links"]``; run for 1, 3 and 20 supersteps
    on two link graphs it matches plain Python within 1e-9."""
    for name, links in LINKS.items():
        for rounds in (1, 3, 20):
            start = dict.fromkeys(links, 1 / len(links))
            run = trace(
                _pagerank_graph(pagerank_update, rounds),
                {"links": links, "rank": dict(start), "rounds": 0},
            )
            got = run.values.get("rank")
            want = pagerank_reference(links, rounds)
            if not isinstance(got, dict) or set(got) != set(want):
                raise Wrong(
                    f"After {rounds} superstep(s) on {name!r}, rank = {got!r}; it should "
                    f"have one value per page {sorted(want)}.",
                    "Return {'rank': {page: new_rank, ...}} with every page.",
                )
            off = {
                p: (round(got[p], 4), round(want[p], 4))
                for p in want
                if abs(got[p] - want[p]) > 1e-9
            }
            if off:
                total = sum(got.values())
                first = run.to_frame("state")
                first = first[first.step == 1]["rank"].iloc[0]
                detail = ", ".join(f"{p}: {g} (expected {w})" for p, (g, w) in off.items())
                total_note = (
                    f" Your ranks sum to {total:.4f}, but PageRank keeps the sum at 1."
                    if abs(total - 1) > 1e-6
                    else ""
                )
                raise Wrong(
                    f"On {name!r} after {rounds} superstep(s): {detail}.{total_note} After "
                    f"your first superstep the state table shows rank = "
                    f"{ {p: round(v, 4) for p, v in first.items()} }.",
                    "new[p] = (1 - d)/N + d · Σ rank[q]/len(links[q]) over the pages q "
                    "linking to p, all read from the previous superstep's rank.",
                )
    return (
        "Your update matches plain Python on two link graphs after 1, 3 and 20 "
        "supersteps: each superstep reads only the previous one's ranks."
    )
