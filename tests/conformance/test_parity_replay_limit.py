"""The recursion limit of a replay, against LangGraph: a run from an older checkpoint
(`invoke(None, config)` with its `checkpoint_id`) counts its steps from the step after
that checkpoint, so the "fork" checkpoint it saves first takes one of them, and
`RemainingSteps` reads the same in each step."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS


def _loop(lib: Lib, saver: Any) -> Any:
    """START -> a -> a -> ... until the recursion limit: each step logs what
    `RemainingSteps` says."""

    fields = {"log": Annotated[list, operator.add], "left": lib.managed.RemainingSteps}
    Counted = TypedDict("Counted", fields, total=False)  # type: ignore[misc]
    graph = lib.StateGraph(Counted)
    graph.add_node("a", lambda state: {"log": [state["left"]]})
    graph.add_edge(lib.START, "a").add_edge("a", "a")
    return graph.compile(checkpointer=saver)


def _replayed(lib: Lib, saver_kind: str, pick: int) -> list:
    """What a replay from the `pick`-th newest checkpoint of a looping thread ran: its
    error, the last step saved and the log it left."""
    with SAVERS[saver_kind](lib.name) as saver:
        app = _loop(lib, saver)
        config = {"configurable": {"thread_id": "1"}, "recursion_limit": 5}
        with pytest.raises(lib.errors.GraphRecursionError):
            app.invoke({"log": []}, config)
        past = list(app.get_state_history(config))[pick].config
        try:
            app.invoke(None, {**past, "recursion_limit": 5})
            error = None
        except lib.errors.GraphRecursionError as raised:
            error = type(raised).__name__
        head = app.get_state(config)
        return [error, head.metadata["step"], head.values["log"]]


@pytest.mark.parametrize("saver", sorted(SAVERS))
@pytest.mark.parametrize("pick", [0, 2, 4])
def test_a_replay_counts_its_fork_among_its_steps(saver: str, pick: int) -> None:
    expected = _replayed(load_langgraph(), saver, pick)
    assert _replayed(load_graphkit(), saver, pick) == expected
