"""Solutions to lesson 10 · BSP beyond agents (kept apart from the lesson).

>>> from graphkit.course import lesson10
>>> bool(lesson10.check_min_combiner(min_combine))
True
>>> bool(lesson10.check_superstep_count(answer))
True
>>> bool(lesson10.check_pagerank_update(pagerank_update))
True
"""

from __future__ import annotations

import math

DAMPING = 0.85


def min_combine(left: dict, right: dict) -> dict:
    """10.1: every vertex of either table, with the smaller distance; a new dict."""
    merged = dict(left)
    for vertex, distance in right.items():
        merged[vertex] = min(distance, merged.get(vertex, math.inf))
    return merged


# 10.2: step 1 S offers A=1, B=6, T=10; step 2 A, B, T run: A offers B=2, B offers
# C=7; step 3 B (now 2) offers C=3, C (7) offers T=8; step 4 C (3) offers T=4, T runs;
# step 5 T runs, has no edges, wakes no one. The next Plan is empty.
answer = 5


def pagerank_update(state: dict) -> dict:
    """10.3: one synchronous PageRank update, reading only the previous ranks."""
    links, rank = state["links"], state["rank"]
    n = len(links)
    incoming = dict.fromkeys(links, 0.0)
    for page, outs in links.items():
        for target in outs:
            incoming[target] += rank[page] / len(outs)
    return {"rank": {page: (1 - DAMPING) / n + DAMPING * incoming[page] for page in links}}
