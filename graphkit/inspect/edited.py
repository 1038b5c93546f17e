"""Why a state edit (``update_state``) woke no node.

An edit is made as a node (``as_node``): its values are that node's writes, and that
node's edges and routers run on the edited state, waking what they lead to. Without
``as_node``, LangGraph (and graphkit) take the node that ran last. So a chat thread
edited after its turn (a new question written into ``messages``) is an edit made as
the chatbot, whose edge goes to END: ``invoke(None, config)`` then runs nothing, and
the answer never comes. ``why`` said only that the Update "changed no trigger channel".
An edit made while a node was due (a thread paused before it) takes that step's place
and clears the node's route; a node that only a ``Command(goto=...)`` reaches then has
no node to make the edit as, and the edit must be that Command (langgraph#3003).

And which edit (or fork) a step ran after (``edited_before``): the steps after an edit
ran from the edited state, which ``why`` says of a node that ran there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphkit.constants import END, START
from graphkit.inspect.explanation import Reason
from graphkit.inspect.values import join_names
from graphkit.pregel.thread_edits import last_writers

if TYPE_CHECKING:
    from graphkit.checkpoint import Checkpoint
    from graphkit.inspect.history import History
    from graphkit.inspect.wiring import Wiring
    from graphkit.pregel.records import Superstep

__all__ = ["cleared_by_edit", "edit_cleared", "edit_woke_nothing", "edited_before", "ran_last"]


def ran_last(checkpoint: Checkpoint, nodes: list[str]) -> str | None:
    """The node an edit of ``checkpoint`` without ``as_node`` is made as: the one that
    saw the newest channel versions (None when two saw them at once: LangGraph refuses
    such an edit).

    >>> from graphkit.checkpoint import Checkpoint
    >>> from graphkit.checkpoint.delta_map import DeltaMap
    >>> seen = DeltaMap({"__start__": {"__start__": 1}, "chatbot": {"branch:to:chatbot": 2}})
    >>> ran_last(Checkpoint("c", 1, "loop", None, DeltaMap(), DeltaMap(), seen), ["chatbot"])
    'chatbot'
    """
    found = last_writers(checkpoint.versions_seen, {START, *nodes})
    return found[0] if len(found) == 1 else None


def cleared_by_edit(edit: Superstep, node: str, wiring: Wiring) -> list[str]:
    """``node``'s triggers the step before the edit ``edit`` had written (it was due:
    the thread had stopped before it) and the edit's Update cleared (langgraph#3003)."""
    if edit.update is None:
        return []
    due = [c for c in wiring.triggers(node) if c in edit.checkpoint_before.updated_channels]
    return [
        channel
        for channel in due
        if (change := edit.update.change(channel)) is not None and not change.writers
    ]


def edit_cleared(edit: Superstep, node: str, wiring: Wiring, cleared: list[str]) -> str:
    """Why ``node``, due when the thread stopped, did not run at the edit's step: the
    edit took that step's place, and its Update cleared ``cleared``."""
    n, names = edit.step, join_names(cleared)
    return (
        f"Step {n} is a state edit (update_state): it runs no node, only the edit's "
        f"writes. Step {n - 1}'s Update had written {names}, so {node} was due at "
        f"step {n} (the thread had stopped before it); the edit took that step's place, "
        f"and its Update cleared {names}. {_made_as(edit, wiring)}. "
        f"{_fix(node, wiring)}"
    )


def edit_woke_nothing(edit: Superstep, node: str, wiring: Wiring) -> str:
    """What ``why`` adds when the run finished right after the state edit ``edit``: how
    an edit wakes nodes, which node it was likely made as, and how to run ``node``."""
    n = edit.step
    said = (
        f"Step {n} is a state edit (update_state), and it woke no node. An edit is made as a "
        "node (as_node): that node's edges and routers run on the edited state and wake what "
        "they lead to. Without as_node, the edit is made as the node that ran last"
    )
    made_as = ran_last(edit.checkpoint_before, wiring.node_names())
    if made_as is not None:
        said += f", here {made_as}"
        if wiring.static_edge(made_as, END):
            said += ", whose edge goes to END"
    if cleared := cleared_by_edit(edit, node, wiring):
        names = join_names(cleared)
        said += (
            f". Step {n - 1}'s Update had written {names}, so {node} was due at step {n}; "
            f"the edit took that step's place, and its Update cleared {names}"
        )
    return f"{said}. {_fix(node, wiring)}"


def _made_as(edit: Superstep, wiring: Wiring) -> str:
    made_as = ran_last(edit.checkpoint_before, wiring.node_names())
    said = "Without as_node, an edit is made as the node that ran last"
    if made_as is None:
        return said + ", and wakes only what its edges and routers lead to"
    return f"{said}, here {made_as}, and wakes only what {made_as}'s edges and routers lead to"


def _fix(node: str, wiring: Wiring) -> str:
    """How to run ``node`` on the edited state: the edit made as a node whose edge or
    router leads to it; a node only a ``Command(goto=...)`` reaches needs the edit to be
    that Command, for an edit runs no node's code."""
    nodes = [START, *wiring.node_names()]
    sources = [s for s in nodes if wiring.static_edge(s, node)]
    if sources or not wiring.exact or any(wiring.routers(s, node) for s in nodes):
        fix = f"as_node={sources[0]!r}, whose edge leads to {node}" if sources else "as_node="
        if not sources:
            fix += f"a node whose edge or router leads to {node}"
        return (
            f"To run {node} on the edited state, make the edit as a node that leads to it "
            f"(update_state(config, values, {fix})), or give the new input on the "
            "checkpoint before the edit: app.invoke(input, config_of_that_checkpoint)."
        )
    commanders = [s for s in nodes if node in wiring.destinations(s)]
    by = ""
    if commanders:
        its = "its" if len(commanders) == 1 else "their"
        by = f": {join_names(commanders)} reach{'es' if len(commanders) == 1 else ''} it "
        by += f"by {its} Command(goto=...), which an edit does not run"
    return (
        f"No edge or router leads to {node}{by}. To run {node} on the edited state, make "
        f"the edit a Command that goes there: update_state(config, Command(update=values, "
        f"goto={node!r}))."
    )


def edited_before(history: History, n: int) -> tuple[str, Reason] | None:
    """The last state edit (``update_state``: a checkpoint of source ``update``) or fork
    (source ``fork``) the run's lineage went through before step ``n``: the steps after
    it ran on from the edited state, which a fork of an older checkpoint runs again."""
    steps = history.run.steps
    # the checkpoint the records begin with (a run resumed from an edit), an edit a later
    # step planned from (made while the run was paused: the debugger's), then each step's
    checkpoints = [(steps[0].step, steps[0].checkpoint_before)] if steps else []
    checkpoints += [
        (s.step, s.checkpoint_before)
        for s in steps[1:]
        if s.step <= n and s.checkpoint_before.source == "update"
    ]
    checkpoints += [(s.step + 1, s.update.checkpoint) for s in steps if s.update is not None]
    edits = [
        (planned, c)
        for planned, c in checkpoints
        if planned <= n and getattr(c, "source", None) in ("update", "fork")
    ]
    if not edits:
        return None
    planned, checkpoint = max(edits, key=lambda edit: edit[0])
    m, source = checkpoint.step, checkpoint.source
    edit = "a state edit (update_state, checkpoint source 'update')"
    if source == "fork":
        edit = "a fork (source 'fork')"
    if m < planned:
        at, on = f"in step {m}", f"made on step {m - 1}'s checkpoint"
        what = f"step {m} is {edit}" if source == "update" else f"step {m}'s checkpoint is {edit}"
    else:  # (the debugger numbers the steps it ran in order, so the edit has no number)
        at, on = f"before step {planned}", f"made after step {planned - 1}"
        what = f"step {planned} ran from {edit}"
    phrase = f"update_state edited the state {at}"
    if source == "fork":
        phrase = f"the thread was forked {at}"
    text = (
        f"The run went on from a changed state: {what}, {on}, "
        f"and the steps after it ran from there. If that checkpoint was not the thread's "
        f"latest, they ran again on a new branch (checkpoints_frame's fork_of names it)."
    )
    return phrase, Reason("edited", text, m if m < planned else None)
