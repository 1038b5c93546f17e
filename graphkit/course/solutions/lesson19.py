"""Solutions to lesson 19 · How Plan chooses: channel versions and what each node has seen.

>>> from graphkit.course import lesson19
>>> bool(lesson19.check_plan_rule(nodes_to_run)), bool(lesson19.check_alert_on_change(feed))
(True, True)
>>> bool(lesson19.check_woke(woke))
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["feed", "nodes_to_run", "woke"]


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


def feed(x: dict) -> dict:
    """19.2: a write moves price's version even when the value is the same, and alert
    wakes on a version it has not seen: so write price only when the quote differs from
    what price holds (nothing before the first write). The quotes still to come are
    written back, whatever the price did: that write wakes feed next step."""
    quote, *rest = x["quotes"]
    writes = {"quotes": rest} if rest else {}
    if quote != x.get("price"):
        writes["price"] = quote
    return writes


def whole(version: Any) -> int:
    """A version's integer part (LangGraph's InMemorySaver adds a random fraction)."""
    return int(str(version).split(".")[0])


def woke(checkpoints: Mapping[int, Any], triggers: Mapping[str, Any], node: str, step: int) -> Any:
    """19.3: Plan of ``step`` read the checkpoint of ``step - 1``: what woke ``node`` is a
    trigger that holds a value there at a version newer than the one ``node`` had seen (a
    waiting edge's barrier, saved as the sources heard so far, once it has them all)."""
    before = checkpoints[step - 1]
    saw = before["versions_seen"].get(node, {})
    for channel in triggers[node]:
        version = before["channel_versions"].get(channel)
        if channel not in before["channel_values"] or version is None:
            continue
        sources = channel.split(":")[1].split("+") if channel.startswith("join:") else None
        if sources and set(before["channel_values"][channel]) != set(sources):
            continue  # a barrier still waiting for a source
        if whole(version) > whole(saw.get(channel, 0)):
            return channel, whole(version)
    return None
