"""Opening a recorded run in a ``DebugSession`` (``from_run``): a thread read from
LangGraph, stepped on from a copy in graphkit's saver, and the checks that refuse a
run, config or thread the session cannot open.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from graphkit.diagnostics import some_names
from graphkit.pregel.config import loose_keys_configurable
from graphkit.pregel.records import Run

if TYPE_CHECKING:
    from graphkit.widgets.session import DebugSession

__all__ = ["FromRun"]


class FromRun:
    """Mixed into ``DebugSession``: ``from_run`` makes one and sets the supersteps it
    keeps and the status the run ended with."""

    @classmethod
    def from_run(
        cls,
        app: Any,
        run: Run,
        config: Mapping[str, Any] | None = None,
        *,
        breakpoints: Iterable[str] = (),
        context: Any = None,
    ) -> DebugSession:
        """Open a recorded run in the debugger: a thread read from LangGraph
        (``graphkit.open_langgraph_thread``), with ``app`` the graph that made it (a
        LangGraph graph is converted). Its supersteps show as already applied, and the
        session reads as the run ended: done, failed (Back discards the failed step) or
        paused (``resume`` answers the question). Step goes on from its last checkpoint on
        a copy of the thread (``app``'s saver is not used), with ``context`` as the nodes'
        ``runtime.context`` (for a graph with a ``context_schema``: neither a run record
        nor a LangGraph checkpoint keeps the context a run was given, so pass it again).

        >>> from langgraph.checkpoint.memory import InMemorySaver
        >>> from langgraph.graph import START, StateGraph
        >>> from typing import TypedDict
        >>> from graphkit import open_langgraph_thread
        >>> from graphkit.widgets import DebugSession
        >>> class State(TypedDict):
        ...     n: int
        >>> builder = StateGraph(State)
        >>> builder = builder.add_node("double", lambda state: {"n": state["n"] * 2})
        >>> app = builder.add_edge(START, "double").compile(checkpointer=InMemorySaver())
        >>> config = {"configurable": {"thread_id": "1"}}
        >>> _ = app.invoke({"n": 3}, config)
        >>> thread = open_langgraph_thread(app, config)
        >>> session = DebugSession.from_run(app, thread, config)
        >>> [superstep.step for superstep in session.supersteps], session.values
        ([-1, 0, 1], {'n': 6})
        >>> session.status, session.view().status_text
        ('done', 'done: no node was triggered by the last Update')
        """
        from graphkit.bridge.convert import graph_for
        from graphkit.bridge.threads import interrupt_ids, save_thread
        from graphkit.checkpoint import InMemorySaver
        from graphkit.checkpoint.saver import config_key

        _check_recorded(run, config)
        config = loose_keys_configurable(config)  # {'thread_id': ...}, as a run takes it
        app = copy.copy(graph_for(app, "DebugSession.from_run"))
        _check_made_by(app, run)
        app.checkpointer = InMemorySaver()  # the run's thread, copied: stepping on saves here
        thread_id = str(config_key(config, "thread_id") or f"imported-{uuid.uuid4().hex[:8]}")
        thread = save_thread(run, app.checkpointer, thread_id)
        renamed = interrupt_ids(run, thread["configurable"]["checkpoint_id"])
        # resumed, not named: a named checkpoint is replayed, on a fork of its own
        del thread["configurable"]["checkpoint_id"]
        session = cls(app, None, thread, breakpoints=breakpoints, context=context)
        session._kept = list(run.steps)
        session._renamed = renamed  # (the run's question ids, as the copy asks them)
        if run.status != "running":
            # The stepper would plan the next step: what LangGraph reached is the run's own
            # status instead, until Back, Reset or Resume starts a stepper from the thread.
            session._ended = run
        return session


def _refuse_a_langgraph_thread(app: Any, config: Mapping[str, Any] | None) -> None:
    """Raise when ``config`` names a thread a LangGraph graph saved in its own saver: the
    session converts the graph and steps on graphkit's saver, so it would not see it."""
    from graphkit.bridge.convert import _is_langgraph_graph

    saver = getattr(app, "checkpointer", None)
    if not _is_langgraph_graph(app) or not hasattr(saver, "get_tuple") or not config:
        return
    try:
        saved = saver.get_tuple(dict(config))
    except Exception:  # no thread_id, or a saver that cannot say: not a saved thread
        return
    if saved is not None:
        thread = config.get("configurable", {}).get("thread_id")
        raise ValueError(
            f"Thread {thread!r} was saved by LangGraph, in the graph's own checkpointer; "
            "the debugger runs the graph converted to graphkit and does not step on "
            "LangGraph's saver. Open the thread with Debugger.from_run(app, "
            "open_langgraph_thread(app, config), config) (DebugSession.from_run without "
            "the widget), or pass an input to start a new run."
        )


def _check_recorded(run: Any, config: Any) -> None:
    """``from_run``'s ``run`` and ``config`` are what it reads (not, say, swapped)."""
    if not isinstance(run, Run):
        raise TypeError(
            f"from_run(app, run, config) opens a Run, got {type(run).__name__}: pass what "
            "graphkit.open_langgraph_thread(app, config) or app.trace(...) returned"
        )
    if config is not None and not isinstance(config, Mapping):
        raise TypeError(
            f"from_run()'s config is a dict, got {type(config).__name__}: pass "
            '{"configurable": {"thread_id": ...}}, the thread the run was read from'
        )


def _check_made_by(app: Any, run: Run) -> None:
    """Refuse a run whose steps ran nodes ``app`` does not have (another graph's run):
    stepping on would plan ``app``'s graph from a state it never made."""
    ran = {node for step in run.steps if step.plan for node in step.plan.nodes}
    missing = sorted(node for node in ran - set(app.spec.nodes) if not node.startswith("__"))
    if missing:
        raise ValueError(
            f"This run ran nodes {missing} that the graph given to from_run() does not "
            f"have (its nodes: {some_names(app.spec.nodes)}); pass the graph that made the run."
        )
