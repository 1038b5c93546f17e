"""A task its retry policy ran again says so where the run is read: each attempt ran the
node from its start, so what it did before it raised (a chat message sent) was done each
time, while a run that succeeded on its third try read like any other in ``print(run)``,
on its card and in ``why`` (agentpass: an order bot's customer got "order received"
three times, and only the tasks table's ``attempts`` column hinted at why)."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

langgraph = pytest.importorskip("langgraph")


class Order(TypedDict, total=False):
    order: str
    summary: str


class RateLimitError(Exception):
    """Not one of the errors a retry policy leaves alone: retried by default."""


def order_bot(kit: Any, sent: list[str], failures: int) -> Any:
    """``confirm`` tells the customer, then calls a rate-limited model."""
    left = [failures]

    def confirm(state: Order) -> dict:
        sent.append(f"order received: {state['order']}")
        if left[0]:
            left[0] -= 1
            raise RateLimitError("429 Too Many Requests")
        return {"summary": state["order"].upper()}

    builder = kit.StateGraph(Order)
    policy = kit.RetryPolicy(max_attempts=3, initial_interval=0.0, jitter=False)
    builder.add_node("confirm", confirm, retry_policy=policy)
    return builder.add_edge(kit.START, "confirm").compile()


def kits() -> tuple[Any, Any]:
    import langgraph.graph
    import langgraph.types

    import graphkit

    return type("kit", (), {**vars(langgraph.graph), **vars(langgraph.types)}), graphkit


def test_a_retried_task_says_it_ran_again_from_its_start_as_langgraph_ran_it():
    lang, kit = kits()
    on_langgraph: list[str] = []
    assert order_bot(lang, on_langgraph, 2).invoke({"order": "tea"}) == {
        "order": "tea",
        "summary": "TEA",
    }
    on_graphkit: list[str] = []
    run = order_bot(kit, on_graphkit, 2).trace({"order": "tea"})
    assert on_graphkit == on_langgraph == ["order received: tea"] * 3  # one per attempt
    said = (
        "on attempt 3, after RateLimitError: 429 Too Many Requests ×2 "
        "(each attempt ran the node from its start)"
    )
    lines = [" ".join(line.split()) for line in run.timeline(width=None).splitlines()]
    assert [line for line in lines if line.startswith("EXECUTE confirm")] == [
        f"EXECUTE confirm wrote summary; {said}"
    ]
    assert said in run.step(1)._repr_html_()
    answer = run.why("confirm")
    assert answer.answers[0].summary.startswith("confirm ran at step 1 (3 attempts) because")
    assert "retried" in answer.kinds
    retried = next(r for r in answer.answers[0].reasons if r.kind == "retried")
    assert retried.text.startswith(
        "confirm ran 3 times in step 1: its retry policy ran it again from its start after "
        "RateLimitError: 429 Too Many Requests ×2, and attempt 3 finished."
    )


def test_a_task_that_ran_once_says_nothing_of_attempts():
    _, kit = kits()
    run = order_bot(kit, [], 0).trace({"order": "tea"})
    assert "attempt" not in str(run) and "attempt" not in run.step(1)._repr_html_()
    assert "retried" not in run.why("confirm").kinds


def test_a_task_that_failed_after_its_retries_says_both():
    _, kit = kits()
    with pytest.raises(RateLimitError) as raised:
        order_bot(kit, [], 5).trace({"order": "tea"})
    run = raised.value.run  # type: ignore[attr-defined]
    lines = [" ".join(x.split()) for x in run.timeline(width=None).splitlines()]
    assert (
        "EXECUTE confirm raised RateLimitError: 429 Too Many Requests; on attempt 3, after "
        "RateLimitError: 429 Too Many Requests ×2 (each attempt ran the node from its start)"
    ) in lines
    assert "attempt 3 raised again" in str(run.why("confirm", step=1))
