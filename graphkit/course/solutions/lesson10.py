"""Solutions to lesson 10 · BSP beyond agents (kept apart from the lesson).

>>> from graphkit.course import lesson10
>>> bool(lesson10.check_relax(relax))
True
>>> bool(lesson10.check_superstep_count(answer))
True
>>> bool(lesson10.check_component_vertex(component_vertex))
True
"""

from __future__ import annotations

from typing import Any

from graphkit.pregel import ChannelWriteEntry, NodeBuilder


def relax(offers: list[int], known: int | None) -> int | None:
    """10.1: the best offer if it beats what the vertex knows; else None (vote to halt)."""
    best = min(offers)  # the combiner: any order of the offers gives the same answer
    return best if known is None or best < known else None


# 10.2: step 0 S runs (offer 0) and offers A=1, T=10, B=6; step 1 A, B, T run: A offers
# B=2, B offers C=7 and S=7; step 2 B (now 2), C (7) and S (7, no better: halts) run: B
# offers C=3 and S=3, C offers T=8; step 3 C (3), S (3, halts) and T (8) run: C offers
# T=4; step 4 T (4) runs and has no edges. No inbox holds a message: the next Plan is empty.
answer = 5


def component_vertex(name: str, neighbours: list[str]) -> NodeBuilder:
    """10.3: keep the smallest label heard when it beats the vertex's own, and pass it on."""

    def smallest(x: dict[str, Any]) -> str | None:
        label = min(x[f"heard:{name}"])
        known = x.get(f"label:{name}")
        return label if known is None or label < known else None

    writes = [ChannelWriteEntry(f"label:{name}", skip_none=True)]
    writes += [ChannelWriteEntry(f"heard:{n}", skip_none=True) for n in neighbours]
    return (
        NodeBuilder()
        .subscribe_to(f"heard:{name}")
        .read_from(f"label:{name}")
        .do(smallest)
        .write_to(*writes)
    )
