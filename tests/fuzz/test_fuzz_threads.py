"""Fuzzing graphkit against LangGraph on what users do to a thread between runs.

8. A random sequence of thread operations (`threads.py`: invoke, resume with None or a
   `Command(resume=...)`, `update_state` as any node or None, `bulk_update_state`,
   `get_state`, `get_state_history` with `limit`/`before`/`filter`, a replay, a re-run or
   a fork from an earlier checkpoint) on one thread, with `InMemorySaver` or
   `SqliteSaver`: every returned value, the state after each operation and the history
   at the end agree, ids aside.
"""

from __future__ import annotations

import dataclasses
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conformance.harness import load_graphkit, load_langgraph
from tests.fuzz.graphs import Blueprint, blueprints
from tests.fuzz.tally import TALLY
from tests.fuzz.test_fuzz import shares_a_subgraph_thread, tally_agreement
from tests.fuzz.threads import Op, observe_operations, operations


def ci_examples(count: int) -> settings:
    """`count` examples in the "ci" profile (a property's share of the suite's time); the
    "long" profile's own number otherwise."""
    return (
        settings(max_examples=count)
        if os.environ.get("GRAPHKIT_FUZZ", "ci") == "ci"
        else settings()
    )


def compare_operations(
    blueprint: Blueprint, ops: list[Op], saver: str, durability: str | None
) -> None:
    blueprint = dataclasses.replace(blueprint, checkpointer=True)
    if shares_a_subgraph_thread(blueprint, "8"):
        return
    expected = observe_operations(blueprint, ops, load_langgraph(), saver, durability)
    actual = observe_operations(blueprint, ops, load_graphkit(), saver, durability)
    for op in ops:
        TALLY[f"8 operation {op.kind}"] += 1
    heading = f"{blueprint!r}\n{ops!r}\nsaver={saver!r} durability={durability!r}"
    tally_agreement("8 thread operations", expected, actual, heading)


@ci_examples(60)
@given(
    st.one_of(blueprints(), blueprints(interrupts=True)),
    operations(),
    st.sampled_from(["memory", "memory", "sqlite"]),
    st.sampled_from([None, "sync", "exit"]),
)
def test_thread_operations_agree_with_langgraph(
    blueprint: Blueprint, ops: list[Op], saver: str, durability: str | None
) -> None:
    compare_operations(blueprint, ops, saver, durability)
