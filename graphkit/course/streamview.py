"""Lesson 11's views of a stream: each chunk beside the phase of the superstep that sent
it (``by_phase``), and a predict-then-reveal for a stream's chunks (``predict``).

A stream hands over chunks, not records, so ``by_phase`` runs the graph twice on the
same input: once streamed, with ``"debug"`` added to the modes (its ``task`` events
mark each step's Plan, and say which step the chunks after them belong to), and once
traced, for the records of what each phase did, each on a thread of its own when the
graph has a checkpointer. The lesson's graphs are deterministic, so both runs take the
same steps.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphkit.bridge.convert import graph_for
from graphkit.inspect.values import show

__all__ = ["Reveal", "by_phase", "chunk_rows", "predict"]

EXECUTE_MODES = ("updates", "custom", "messages")


def _modes(stream_mode: str | Sequence[str]) -> list[str]:
    return [stream_mode] if isinstance(stream_mode, str) else list(stream_mode)


def _changes(superstep: Any) -> str:
    """What a step's Update did to the state keys, as ``key: before → after``."""
    update = superstep.update
    if update is None:
        return "no Update (the step failed or paused)"
    changed = [c for c in update.changes if c.writers and c.channel in (update.state_keys or ())]
    if not changed:
        return "changed no state key"
    return "; ".join(f"{c.channel}: {show(c.before, 28)} → {show(c.after, 60)}" for c in changed)


def _record(run: Any, step: int, mode: str, chunk: Any) -> str:
    """What the run's records say happened where ``chunk`` was sent."""
    superstep = next((s for s in run.steps if s.step == step), None)
    if superstep is None:
        return ""
    if mode == "values":
        if superstep.update is None and isinstance(chunk, Mapping) and "__interrupt__" in chunk:
            return f"the state as step {step} paused, without its Update"
        return f"Update: {_changes(superstep)}"
    if mode == "updates" and isinstance(chunk, Mapping):
        node = next(iter(chunk), "")
        if node == "__interrupt__":
            return f"the run paused in step {step}: {', '.join(superstep.plan.nodes)} ran"
        results = [r for r in superstep.execution.results if r.task.node == node]
        if results:
            # (the state keys: a route is the runtime's own channel, branch:to:...)
            keys = [c for c, _ in results[0].writes if not c.startswith(("branch:", "__"))]
            writes = ", ".join(keys) or "no state key"
            return f"Execute: {node} finished, writing {writes}"
        return f"Execute: {node}"
    if mode == "messages":
        node = chunk[1].get("langgraph_node", "?") if isinstance(chunk, tuple) else "?"
        return f"Execute: {node} is running"
    if mode == "custom":
        return f"Execute: step {step}'s tasks are running ({', '.join(superstep.plan.nodes)})"
    return ""


def chunk_rows(app: Any, input: Any, stream_mode: str | Sequence[str]) -> list[dict[str, Any]]:
    """One row per chunk ``app.stream(input, stream_mode=...)`` sends: the step and phase
    that sent it, its mode, the chunk as text, what the records of a traced run say, and
    (under ``"sent"``, not shown by ``by_phase``) the chunk itself."""
    modes = _modes(stream_mode)
    app = graph_for(app, "chunk_rows")  # (a compiled LangGraph graph is converted)
    run = app.trace(copy.deepcopy(input), _fresh_thread(app))
    rows: list[dict[str, Any]] = []
    step, phase = 0, "Update"  # the first values chunk: step 0 copied the input in
    config = _fresh_thread(app)
    for mode, chunk in app.stream(copy.deepcopy(input), config, stream_mode=[*modes, "debug"]):
        if mode == "debug" and isinstance(chunk, Mapping):
            kind = chunk.get("type")
            if kind == "task" and (chunk["step"] != step or phase != "Plan"):
                step, phase = chunk["step"], "Plan"
                nodes = ", ".join(next(s for s in run.steps if s.step == step).plan.nodes)
                rows.append({"step": step, "phase": "Plan", "mode": "", "chunk": "",
                             "records": f"Plan: {nodes}"})  # fmt: skip
            if "debug" not in modes:
                continue
        elif isinstance(chunk, Mapping) and "__interrupt__" in chunk:
            phase = "Paused"  # sent once the step's tasks are done: no task, no Update
        elif mode in EXECUTE_MODES:
            phase = "Execute"
        elif mode == "values":
            phase = "Update"
        text = _chunk_text(mode, chunk)
        rows.append({"step": step, "phase": phase, "mode": mode, "chunk": text,
                     "records": _record(run, step, mode, chunk), "sent": chunk})  # fmt: skip
    return rows


def _fresh_thread(app: Any) -> dict[str, Any] | None:
    """A thread no run has used, for a graph with a checkpointer (else no config): the
    streamed and the traced run must each start from the input, not resume the other."""
    if getattr(app, "checkpointer", None) in (None, False):
        return None
    return {"configurable": {"thread_id": f"by-phase-{uuid.uuid4().hex}"}}


def _chunk_text(mode: str, chunk: Any) -> str:
    if mode == "messages" and isinstance(chunk, tuple):
        message, metadata = chunk
        return (
            f"{type(message).__name__}({message.content!r}), node="
            f"{metadata.get('langgraph_node')!r}, step={metadata.get('langgraph_step')}"
        )
    if mode == "debug" and isinstance(chunk, Mapping):
        payload = chunk.get("payload") or {}
        return f"{chunk.get('type')} {payload.get('name', '')} (step {chunk.get('step')})"
    return show(chunk, 90)


def by_phase(app: Any, input: Any, stream_mode: str | Sequence[str] = "values") -> Any:
    """The chunks of ``app.stream(input, stream_mode=...)``, one row each, beside the
    step and phase that sent them and what the run's records say that phase did (a Plan
    row, which sends nothing in these modes, marks each step's start; a ``Paused`` row
    is the ``__interrupt__`` chunk of a run that paused). A graph with a checkpointer
    runs on a new thread each time. A readable DataFrame."""
    from graphkit.inspect.readable_frame import readable_frame
    from graphkit.inspect.tables import data_frame

    columns = ["step", "phase", "mode", "chunk", "records"]
    frame = data_frame(chunk_rows(graph_for(app, "by_phase"), input, stream_mode), columns)
    return readable_frame(frame.set_index(["step", "phase"]))


@dataclass(frozen=True)
class Reveal:
    """A guess about a stream, and the truth: ``correct``, ``expected``, ``explanation``."""

    guess: Any
    expected: Any
    correct: bool
    explanation: str

    def __bool__(self) -> bool:
        return self.correct

    def __str__(self) -> str:
        mark = "✓ Right" if self.correct else "✗ Not quite"
        return f"{mark}: {self.explanation}"

    def _repr_html_(self) -> str:
        from graphkit.widgets.reveal import reveal_card

        return reveal_card(self.correct, self.explanation)


def _is_a_graph(value: Any) -> bool:
    return hasattr(value, "get_graph") and hasattr(value, "stream")


def predict(guess: Any, app: Any, input: Any, stream_mode: str = "values") -> Reveal:
    """Stream ``app`` on ``input`` in one mode and compare ``guess`` with what it sent:
    for ``"values"`` the number of chunks, for ``"updates"`` the nodes the chunks name,
    in the order they came. The reveal lists every chunk with the step that sent it."""
    if _is_a_graph(guess) and not _is_a_graph(app):
        raise TypeError(
            "predict(guess, app, input) takes your guess first, then the graph: this call "
            "gave the graph first."
        )
    rows = chunk_rows(graph_for(app, "predict"), input, stream_mode)
    sent = [row for row in rows if row["mode"] == stream_mode]
    if stream_mode == "values":
        expected: Any = len(sent)
        said = f"The stream sent {len(sent)} values chunks:"
    elif stream_mode == "updates":
        expected = [next(iter(row["sent"])) for row in sent]
        said = f"The updates chunks came in this order: {', '.join(expected)}."
    else:
        raise ValueError(f"predict asks about 'values' or 'updates', not {stream_mode!r}")
    if guess is None or guess == [] or guess == "":
        correct, head = False, "No guess yet: write it in the cell, then run it again."
    else:
        correct = guess == expected or (isinstance(guess, tuple) and list(guess) == expected)
        head = f"You said {show(guess)}. {said}"
        if isinstance(guess, str) and not correct:  # ('4' looks like 4 but is text)
            head += (
                " Your guess is text: write the number without quotes."
                if stream_mode == "values"
                else " Your guess is one string: write a list of node names, one per "
                'chunk, each in quotes: ["first", "second", ...].'
            )
    lines = [head]
    if guess not in (None, [], ""):
        lines += [f"- step {row['step']} ({row['records']}): {row['chunk']}" for row in sent]
    return Reveal(guess, expected, correct, "\n".join(lines))
