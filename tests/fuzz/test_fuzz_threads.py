"""Fuzzing graphkit against LangGraph on what users do to a thread between runs.

8. A random sequence of thread operations (`threads.py`: invoke, resume with None or a
   `Command(resume=...)`, `update_state` as any node or None, `bulk_update_state`,
   `get_state`, `get_state_history` with `limit`/`before`/`filter`, a replay, a re-run or
   a fork from an earlier checkpoint) on one thread, with `InMemorySaver` or
   `SqliteSaver`: every returned value, the state after each operation and the history
   at the end agree, ids aside.

Found by it and fixed: a replay's recursion limit (its fork took a step), a `Command`
on a thread whose checkpoint holds nothing, `update_state` without `as_node` after a
node woken by two channels at once, the `Send`s of an `update_state` answering an
interrupted task (saved on the checkpoint it builds on). K5 stands where a node's error
ended a run: LangGraph may drop a sibling's saved writes (compatibility.md), so such a
sequence is compared up to there. Not drawn yet: `durability="exit"`, where the long
run found differences not settled: K8 (a failed Update; compatibility.md, pinned
below), and others seen only in longer sequences. Also open: one
`Command(resume=value)` while two tasks of a step may ask (which one takes it is a
race between threads, in LangGraph at least).
"""

from __future__ import annotations

import dataclasses
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conformance.harness import load_graphkit, load_langgraph
from tests.fuzz.graphs import START, Blueprint, Node, blueprints
from tests.fuzz.tally import TALLY
from tests.fuzz.test_fuzz import saved_less, shares_a_subgraph_thread, tally_agreement
from tests.fuzz.threads import Op, observe_operations, operations

LIBS = (load_langgraph(), load_graphkit())


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
    if blueprint.waits and durability is None:
        # LangGraph's default durability may save a join's barrier after the next step
        # added to it, so an older snapshot's `next` differs (compatibility.md, "Known
        # differences": the history of a waiting edge); the sync saves show the run
        TALLY["8 waits run with durability='sync' (documented)"] += 1
        durability = "sync"
    expected = observe_operations(blueprint, ops, load_langgraph(), saver, durability)
    actual = observe_operations(blueprint, ops, load_graphkit(), saver, durability)
    for op in ops:
        TALLY[f"8 operation {op.kind}"] += 1
    pairs = enumerate(zip(expected, actual, strict=False))
    at = next((i for i, (theirs, ours) in pairs if theirs != ours), 0)
    if at and saved_less(expected[at - 1 : at + 1] + actual[at : at + 1]):
        # K5: a run a node's error ended, whose sibling's writes LangGraph dropped
        TALLY["8 agreed until K5 (the failed step's other tasks: LangGraph saved less)"] += 1
        return
    heading = f"{blueprint!r}\n{ops!r}\nsaver={saver!r} durability={durability!r}"
    tally_agreement("8 thread operations", expected, actual, heading)


@ci_examples(60)
@given(
    st.one_of(blueprints(), blueprints(interrupts=True)),
    operations(),
    st.sampled_from(["memory", "memory", "sqlite"]),
    st.sampled_from([None, "sync"]),  # ("exit": see the module's docstring)
)
def test_thread_operations_agree_with_langgraph(
    blueprint: Blueprint, ops: list[Op], saver: str, durability: str | None
) -> None:
    compare_operations(blueprint, ops, saver, durability)


K8 = Blueprint(
    (Node("p"), Node("a", ("last",)), Node("b", ("last",))),
    ((START, "p"), ("p", "a"), ("p", "b")),
    checkpointer=True,
)


def test_known_an_exit_run_whose_update_fails() -> None:
    """K8: under `durability="exit"` a step whose Update fails ('a' and 'b' both write
    the plain 'last'): LangGraph saves the checkpoint before it with nothing next and
    without the step's writes; graphkit saves the writes too, as both do under "sync",
    so its `get_state` raises the run's error (compatibility.md, "Known differences").
    The rest agrees, and under "sync" all of it."""
    ops = [Op("invoke"), Op("state"), Op("update")]
    expected = observe_operations(K8, ops, load_langgraph(), "memory", "exit")
    actual = observe_operations(K8, ops, load_graphkit(), "memory", "exit")
    assert expected != actual  # fixed? then pin the agreement, as test_fuzz's K4 does
    assert expected[0] == actual[0] == "invoke: raised InvalidUpdateError"
    assert actual[1:3] == ["  then raised InvalidUpdateError", "state: raised InvalidUpdateError"]
    synced = [observe_operations(K8, ops, lib, "memory", "sync") for lib in LIBS]
    assert synced[0] == synced[1]
