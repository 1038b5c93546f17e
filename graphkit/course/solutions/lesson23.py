"""Solutions to lesson 23 · Testing a graph: a node alone, a slice, the path, a pause.

>>> from graphkit.course import lesson23
>>> bool(lesson23.check_route_test(test_route))
True
>>> bool(lesson23.check_path_test(test_refund_path))
True
>>> bool(lesson23.check_approval_test(test_approval))
True
"""

from __future__ import annotations

from typing import Any

from graphkit.bridge import trace
from graphkit.types import Command

__all__ = ["test_approval", "test_refund_path", "test_route"]

BIG_REFUND = {"text": "Refund my TV", "amount": 300}


def _thread(name: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}


def _path(run: Any) -> dict[int, list[str]]:
    return {step.step: step.plan.nodes for step in run.steps if step.step >= 1}


def test_route(route: Any) -> None:
    """23.1: each way out, and the limit (100) from both sides, as near as they can be."""
    assert route({"category": "question", "amount": 30}) == "answer"
    assert route({"category": "question", "amount": 500}) == "answer"
    assert route({"category": "refund", "amount": 100}) == "refund"
    assert route({"category": "refund", "amount": 101}) == "approve"


def test_refund_path(app: Any) -> None:
    """23.2: the nodes of each superstep, in the run that pauses and in the resume."""
    config = _thread("23.2")
    paused = trace(app, BIG_REFUND, config)
    assert _path(paused) == {1: ["classify"], 2: ["approve"]}, _path(paused)
    resumed = trace(app, Command(resume="yes"), config)
    right = {2: ["approve"], 3: ["refund"], 4: ["book", "close"]}
    assert _path(resumed) == right, _path(resumed)


def test_approval(app: Any) -> None:
    """23.3: the pause, then each answer on a thread of its own, asserting what must not
    have been written as well as what must."""
    for answer, reply, ledger in [
        ("yes", "Refunded 300 euros.", [300]),
        ("no", "Your refund was refused.", []),
    ]:
        config = _thread(f"23.3 {answer}")
        paused = app.invoke(BIG_REFUND, config)
        assert "__interrupt__" in paused and paused["ledger"] == []
        assert app.get_state(config).next == ("approve",)
        done = app.invoke(Command(resume=answer), config)
        assert done["reply"] == reply and done["ledger"] == ledger, done
        assert done["status"] == "closed"
