"""Why a waiting edge (``add_edge([a, b], c)``) has not run its node: which of its
sources have written their part of its barrier, and when, which one wrote it in a
step whose Update has not applied it yet (the debugger after Execute, a thread
stopped or failed in the step), and which are still missing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from graphkit.inspect.explanation import Reason
from graphkit.inspect.values import barrier_seen, join_names
from graphkit.inspect.wording import who_when

if TYPE_CHECKING:
    from graphkit.inspect.history import History

__all__ = ["still_waiting"]


def still_waiting(
    history: History,
    edge_of: tuple[str, str, Sequence[str]],
    seen: Any,
    upto: int,
    when: str,
    unapplied: tuple[str, ...] = (),
) -> tuple[str, Reason] | None:
    """The phrase and reason of the waiting edge ``edge_of`` (its node, barrier channel
    and sources) still missing some sources, or None when it is not: ``seen`` is the
    barrier's value after step ``upto`` (``when`` in words: a step's writes come later),
    ``unapplied`` the sources whose part the last step wrote, its Update not run."""
    node, channel, sources = edge_of
    seen = barrier_seen(seen)
    missing = [source for source in sources if source not in seen]
    if not missing:
        return None
    wrote = history.writes_since_reset(channel, upto) if seen else {}
    edge = f"[{', '.join(sources)}] → {node}"
    pending = [source for source in missing if source in unapplied]
    missing = [source for source in missing if source not in pending]
    said = f"{when}, {who_when(tuple(wrote), wrote)}"
    if pending:  # ("none has written yet" is no longer true of them)
        said = f"{said}; " if wrote else f"{when}, "
        said += _unapplied_parts(history, pending)
    text = (
        f"The waiting edge {edge} ({channel}) runs {node} only once all of its sources "
        f"have written; {said}, so it is still waiting for {join_names(missing)}."
    )
    if pending and not missing:  # (all written: the Update not run is all it waits for)
        text = (
            f"The waiting edge {edge} ({channel}) runs {node} only once all of its "
            f"sources have written; {said}, so it waits only for that Update."
        )
    reason = Reason("still_waiting", text, upto, channel, tuple(wrote))
    waits = join_names(missing) if missing else f"step {history.last}'s Update"
    failed = history.run.status == "error"
    unapplied_words = "not applied: the step failed" if failed else "not yet applied"
    written = (
        f"{pending[0]}'s part is written"
        if len(pending) == 1
        else f"the parts of {join_names(pending)} are written"
    )
    also = f" ({written}, {unapplied_words})" if pending else ""
    return f"the waiting edge {edge} is still waiting for {waits}{also}", reason


def _unapplied_parts(history: History, pending: list[str]) -> str:
    """That ``pending`` wrote their parts in the last step, whose Update has not run
    (or never will: the step failed), and whether the writes are saved."""
    last, run = history.last, history.run
    parts = "its part" if len(pending) == 1 else "their parts"
    it = "it" if len(pending) == 1 else "them"
    if run.status == "error":
        return (
            f"{join_names(pending)} wrote {parts} in step {last}, but the step failed "
            f"before its Update applied {it}"
        )
    saved = f" (saved: going on applies {it})" if run.saved_in is not None else ""
    return (
        f"{join_names(pending)} wrote {parts} in step {last}, not applied yet: step "
        f"{last}'s Update has not run{saved}"
    )
