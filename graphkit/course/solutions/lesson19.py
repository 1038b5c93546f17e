"""Solutions to lesson 19 · How Plan chooses: channel versions and what each node has seen.

>>> from graphkit.course import lesson19
>>> bool(lesson19.check_plan_rule(nodes_to_run)), bool(lesson19.check_run_once(wire))
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["nodes_to_run", "wire"]


def nodes_to_run(
    versions: Mapping[str, int],
    seen: Mapping[str, Mapping[str, int]],
    triggers: Mapping[str, Any],
    ready: set[str],
) -> set[str]:
    """19.1: a node runs when one of its triggers holds a value at a version newer than
    the one the node saw (a version it never saw counts as 0)."""
    return {
        node
        for node, channels in triggers.items()
        if any(
            channel in ready and versions.get(channel, 0) > seen.get(node, {}).get(channel, 0)
            for channel in channels
        )
    }


def wire(builder: Any, sources: list[str]) -> None:
    """19.2: one waiting edge: its barrier holds a value once every source has written."""
    builder.add_edge(sources, "report")
