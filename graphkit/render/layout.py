"""A layered ("Sugiyama-style") graph layout in pure Python, used when graphviz's
``dot`` is not installed. It takes node sizes and edges, and returns boxes and
routes; it knows nothing of SVG.

The four classic steps, one function each:

1. **Break cycles**: a depth-first search in node order; an edge back to a node still
   on the search stack is laid out reversed (it is still drawn pointing the right way).
2. **Layers**: longest path from the sources. Each layer is followed by a thin layer
   for edge labels, and an edge crossing layers gets a *dummy* vertex in each layer
   it crosses; the dummy just below the edge's source carries its label, so labels
   take part in ordering and spacing and never overlap.
3. **Order**: barycenter sweeps down and up; the order with the fewest crossings wins.
4. **Coordinates**: layers are stacked top-down; within a layer, each vertex goes as
   close as it can to the mean x of its neighbours while keeping the order and the
   spacing, an isotonic regression solved with pool-adjacent-violators.

Edges come out as polylines through their dummies, from a port on the bottom of the
upper end to a port on the top of the lower end.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Box", "Layout", "LayoutEdge", "Route", "layered_layout"]

Point = tuple[float, float]

MARGIN = 12.0
RANK_GAP = 14.0  # between a layer and the label layer next to it
NODE_GAP = 28.0  # horizontal space between two boxes in a layer
DUMMY_GAP = 10.0
LOOP_WIDTH = 26.0
OPPOSED_GAP = 30.0  # between the ends of a -> b and b -> a on one side of a box
DUMMY_WEIGHT = 4.0


@dataclass(frozen=True, slots=True)
class Box:
    """A node's box: its centre, width and height."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True, slots=True)
class LayoutEdge:
    """An edge to lay out; ``label_size`` is its label's (width, height), if any."""

    source: str
    target: str
    label_size: tuple[float, float] | None = None


@dataclass(frozen=True, slots=True)
class Route:
    """Where an edge goes: ``points`` from its source to its target (a self-loop has
    four: start, two control points, end), and the centre of its label (the label
    sits on the edge; a self-loop's label beside it, ``label_at`` its left-middle)."""

    points: tuple[Point, ...]
    label_at: Point | None = None
    loop: bool = False


@dataclass(frozen=True, slots=True)
class Layout:
    """Boxes by node, routes in edge order, and the size of the drawing."""

    width: float
    height: float
    boxes: Mapping[str, Box]
    routes: tuple[Route, ...]


def layered_layout(sizes: Mapping[str, tuple[float, float]], edges: Sequence[LayoutEdge]) -> Layout:
    """Lay out nodes of the given (width, height) and the edges between them.

    >>> layout = layered_layout({"a": (40, 20), "b": (40, 20)}, [LayoutEdge("a", "b")])
    >>> layout.boxes["a"].y < layout.boxes["b"].y, layout.boxes["a"].x == layout.boxes["b"].x
    (True, True)
    """
    graph = _Graph(list(sizes), sizes)
    loops = [i for i, e in enumerate(edges) if e.source == e.target]
    for i in loops:
        label_width = (edges[i].label_size or (0.0, 0.0))[0]
        graph.right[graph.index[edges[i].source]] += LOOP_WIDTH + label_width + 4
    pairs = [(graph.index[e.source], graph.index[e.target]) for e in edges]
    back = _back_edges(len(sizes), [p for p in pairs if p[0] != p[1]])
    dag = [(v, u) if (u, v) in back else (u, v) for u, v in pairs]
    rank = graph.rank = [2 * layer for layer in _longest_path_layers(len(sizes), dag)]
    chains = {}
    for i, (upper, lower) in enumerate(dag):
        if upper != lower:
            label = edges[i].label_size
            chains[i] = graph.chain(
                upper, lower, rank, label, label_at_end=(upper, lower) != pairs[i]
            )
    rows = _order(graph, rank)
    _assign_y(graph, rows)
    _assign_x(graph, rows)
    return _finish(graph, edges, chains, pairs, loops)


class _Graph:
    """Vertices (nodes, then dummies) with their extents, and the segments of chains."""

    def __init__(self, names: list[str], sizes: Mapping[str, tuple[float, float]]) -> None:
        self.names = names
        self.index = {name: i for i, name in enumerate(names)}
        self.left = [sizes[n][0] / 2 for n in names]
        self.right = [sizes[n][0] / 2 for n in names]
        self.height = [sizes[n][1] for n in names]
        self.is_dummy = [False] * len(names)
        self.rank: list[int] = []
        self.up: list[list[int]] = [[] for _ in names]
        self.down: list[list[int]] = [[] for _ in names]
        self.x: list[float] = []
        self.y: list[float] = []

    def add_dummy(self, label: tuple[float, float] | None) -> int:
        self.left.append(label[0] / 2 + 3 if label else 1.0)
        self.right.append(label[0] / 2 + 3 if label else 1.0)
        self.height.append(label[1] if label else 0.0)
        self.is_dummy.append(True)
        self.up.append([])
        self.down.append([])
        return len(self.left) - 1

    def chain(
        self,
        upper: int,
        lower: int,
        rank: list[int],
        label: tuple[float, float] | None,
        *,
        label_at_end: bool,
    ) -> list[int]:
        """The vertices from ``upper`` to ``lower``, one dummy per rank between."""
        span = rank[lower] - rank[upper]
        label_step = span - 1 if label_at_end else 1
        vertices = [upper]
        for step in range(1, span):
            vertices.append(self.add_dummy(label if step == label_step else None))
            rank.append(rank[upper] + step)
        vertices.append(lower)
        for a, b in itertools.pairwise(vertices):
            self.down[a].append(b)
            self.up[b].append(a)
        return vertices


# -- 1. cycles and 2. layers -------------------------------------------------------------


def _back_edges(count: int, pairs: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """Edges that point back to a vertex on the DFS stack (iterative: no recursion limit)."""
    successors: list[list[int]] = [[] for _ in range(count)]
    for u, v in pairs:
        successors[u].append(v)
    state = [0] * count  # 0 new, 1 on the stack, 2 done
    back = set()
    for root in range(count):
        if state[root]:
            continue
        state[root] = 1
        stack = [(root, iter(successors[root]))]
        while stack:
            vertex, pending = stack[-1]
            successor = next(pending, None)
            if successor is None:
                state[vertex] = 2
                stack.pop()
            elif state[successor] == 1:
                back.add((vertex, successor))
            elif state[successor] == 0:
                state[successor] = 1
                stack.append((successor, iter(successors[successor])))
    return back


def _longest_path_layers(count: int, dag: list[tuple[int, int]]) -> list[int]:
    successors: list[list[int]] = [[] for _ in range(count)]
    indegree = [0] * count
    for u, v in dag:
        if u != v:
            successors[u].append(v)
            indegree[v] += 1
    order = [v for v in range(count) if indegree[v] == 0]
    for vertex in order:  # Kahn's algorithm; `order` grows while we walk it
        for successor in successors[vertex]:
            indegree[successor] -= 1
            if indegree[successor] == 0:
                order.append(successor)
    layer = [0] * count
    for vertex in order:
        for successor in successors[vertex]:
            layer[successor] = max(layer[successor], layer[vertex] + 1)
    # A source other than the first node sits just above its first successor, not at
    # the top with a long edge down.
    has_predecessor = {v for _, v in dag}
    for vertex in reversed(order):
        if vertex and vertex not in has_predecessor and successors[vertex]:
            layer[vertex] = min(layer[s] for s in successors[vertex]) - 1
    return layer


# -- 3. order -----------------------------------------------------------------------------


def _order(graph: _Graph, rank: list[int]) -> list[list[int]]:
    rows: list[list[int]] = [[] for _ in range(max(rank, default=0) + 1)]
    for vertex, r in enumerate(rank):
        rows[r].append(vertex)
    position = {v: i for row in rows for i, v in enumerate(row)}
    best, best_crossings = [list(row) for row in rows], _crossings(graph, rows, position)
    for sweep in range(24):
        if best_crossings == 0:
            break
        downward = sweep % 2 == 0
        ranks = range(1, len(rows)) if downward else range(len(rows) - 2, -1, -1)
        for r in ranks:
            neighbours = graph.up if downward else graph.down
            rows[r].sort(key=lambda v, n=neighbours: _barycenter(v, n[v], position))
            position.update((v, i) for i, v in enumerate(rows[r]))
        crossings = _crossings(graph, rows, position)
        if crossings < best_crossings:
            best, best_crossings = [list(row) for row in rows], crossings
    return best


def _barycenter(vertex: int, neighbours: list[int], position: dict[int, int]) -> float:
    if not neighbours:
        return position[vertex]
    return sum(position[n] for n in neighbours) / len(neighbours)


def _crossings(graph: _Graph, rows: list[list[int]], position: dict[int, int]) -> int:
    """Crossings between consecutive rows: inversions of the lower ends of the
    segments sorted by their upper ends, counted with a Fenwick tree."""
    total = 0
    for row in rows[:-1]:
        segments = sorted((position[a], position[b]) for a in row for b in graph.down[a])
        tree = [0] * (max((b for _, b in segments), default=0) + 2)
        for seen, (_, b) in enumerate(segments):
            index, not_greater = b + 1, 0
            while index > 0:
                not_greater += tree[index]
                index -= index & -index
            total += seen - not_greater
            index = b + 1
            while index < len(tree):
                tree[index] += 1
                index += index & -index
    return total


# -- 4. coordinates --------------------------------------------------------------------------


def _assign_y(graph: _Graph, rows: list[list[int]]) -> None:
    graph.y = [0.0] * len(graph.left)
    top = MARGIN
    for row in rows:
        height = max((graph.height[v] for v in row), default=0.0)
        for vertex in row:
            graph.y[vertex] = top + height / 2
        top += height + RANK_GAP


def _assign_x(graph: _Graph, rows: list[list[int]]) -> None:
    graph.x = [0.0] * len(graph.left)
    for row in rows:
        _place(graph, row, [0.0] * len(row))
    passes = [graph.up, graph.down] * 8 + [None] * 4
    for neighbours in passes:
        ordered = rows if neighbours is not graph.down else rows[::-1]
        for row in ordered:
            desired = []
            for vertex in row:
                near = (
                    neighbours[vertex]
                    if neighbours is not None
                    else graph.up[vertex] + graph.down[vertex]
                )
                desired.append(_median([graph.x[n] for n in near]) if near else graph.x[vertex])
            _place(graph, row, desired)


def _median(values: list[float]) -> float:
    values = sorted(values)
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


def _place(graph: _Graph, row: list[int], desired: list[float]) -> None:
    """Put ``row``'s vertices as close to ``desired`` as their order and spacing allow:
    with offsets o_i (the least distance from the first vertex), minimise
    sum w_i (x_i - d_i)^2 subject to x_i - o_i non-decreasing (pool adjacent
    violators). Dummies weigh more, so long edges stay straight and boxes give way."""
    offsets = [0.0]
    for a, b in itertools.pairwise(row):
        gap = DUMMY_GAP if graph.is_dummy[a] or graph.is_dummy[b] else NODE_GAP
        offsets.append(offsets[-1] + graph.right[a] + gap + graph.left[b])
    blocks: list[list[float]] = []  # [weighted sum of targets, total weight, count]
    for vertex, target in zip(
        row, (d - o for d, o in zip(desired, offsets, strict=True)), strict=True
    ):
        weight = DUMMY_WEIGHT if graph.is_dummy[vertex] else 1.0
        blocks.append([target * weight, weight, 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            total, weight, count = blocks.pop()
            blocks[-1][0] += total
            blocks[-1][1] += weight
            blocks[-1][2] += count
    index = 0
    for total, weight, count in blocks:
        for _ in range(int(count)):
            graph.x[row[index]] = total / weight + offsets[index]
            index += 1


# -- routes -----------------------------------------------------------------------------------


def _finish(
    graph: _Graph,
    edges: Sequence[LayoutEdge],
    chains: dict[int, list[int]],
    pairs: list[tuple[int, int]],
    loops: list[int],
) -> Layout:
    shift = MARGIN - min(x - left for x, left in zip(graph.x, graph.left, strict=True))
    graph.x = [x + shift for x in graph.x]
    ports = _ports(graph, chains, _opposed(pairs))
    routes = []
    for i, edge in enumerate(edges):
        if i in loops:
            routes.append(_loop(graph, graph.index[edge.source], edge.label_size))
            continue
        routes.append(_route(graph, chains[i], ports[i, 0], ports[i, 1], pairs[i][0]))
    boxes = {
        name: Box(graph.x[i], graph.y[i], graph.left[i] * 2, graph.height[i])
        for i, name in enumerate(graph.names)
    }
    width = max(x + right for x, right in zip(graph.x, graph.right, strict=True)) + MARGIN
    height = max((y + h / 2 for y, h in zip(graph.y, graph.height, strict=True)), default=0)
    return Layout(width, height + MARGIN, boxes, tuple(routes))


def _route(graph: _Graph, chain: list[int], start: Point, end: Point, source: int) -> Route:
    """Through the chain's dummies in node layers (they keep the edge clear of boxes)
    and its label's dummy; dummies in other label layers would only add bends."""
    label = next((v for v in chain[1:-1] if graph.left[v] > 1.0), None)
    kept = [v for v in chain[1:-1] if graph.rank[v] % 2 == 0 or v == label]
    points = [start, *((graph.x[v], graph.y[v]) for v in kept), end]
    if source != chain[0]:  # laid out reversed: draw it from its real source
        points.reverse()
    label_at = (graph.x[label], graph.y[label]) if label is not None else None
    return Route(tuple(points), label_at)


def _opposed(pairs: list[tuple[int, int]]) -> set[int]:
    """The edges ``a -> b`` that have an edge ``b -> a`` too (an agent loop): laid out
    along the same chain, they need more room between them than parallel edges."""
    present = set(pairs)
    return {i for i, (u, v) in enumerate(pairs) if u != v and (v, u) in present}


def _ports(
    graph: _Graph, chains: dict[int, list[int]], opposed: set[int]
) -> dict[tuple[int, int], Point]:
    """Spread the ends of the edges meeting one side of a box, ordered by where the
    edges go, so that parallel edges stay apart and do not cross at the box; a side
    where two opposite edges meet spreads them wider, so the two arrows read apart."""
    sides: dict[tuple[int, str], list[tuple[float, int, int]]] = {}
    for i, chain in chains.items():
        sides.setdefault((chain[0], "bottom"), []).append((graph.x[chain[1]], i, 0))
        sides.setdefault((chain[-1], "top"), []).append((graph.x[chain[-2]], i, 1))
    ports = {}
    for (vertex, side), ends in sides.items():
        ends.sort()
        width = graph.left[vertex] * 2
        wanted = OPPOSED_GAP if sum(i in opposed for _, i, _ in ends) > 1 else 12.0
        step = min(wanted, width * 0.6 / max(len(ends) - 1, 1))
        y = graph.y[vertex] + (graph.height[vertex] / 2) * (1 if side == "bottom" else -1)
        for k, (_, i, end) in enumerate(ends):
            ports[i, end] = (graph.x[vertex] + (k - (len(ends) - 1) / 2) * step, y)
    return ports


def _loop(graph: _Graph, vertex: int, label: tuple[float, float] | None) -> Route:
    x, y = graph.x[vertex] + graph.left[vertex], graph.y[vertex]
    h = graph.height[vertex]
    reach = h / 2 + 6  # control points just outside the box: inside the margin
    points = (
        (x, y - h / 4),
        (x + LOOP_WIDTH, y - reach),
        (x + LOOP_WIDTH, y + reach),
        (x, y + h / 4),
    )
    label_at = (x + LOOP_WIDTH * 0.8 + 4, y) if label else None
    return Route(points, label_at, loop=True)
