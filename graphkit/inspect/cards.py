"""HTML for notebooks: a compact card per superstep, its three phases side by side.

Plan is blue, Execute orange, Update bluish green, errors vermillion: the graph's
colours (Okabe and Ito's colour-blind-safe set, ``render.theme.PALETTE``), tinted into
the notebook's ground, so a card follows JupyterLab's light or dark theme
(``inspect.markup``); a column's title is the text's colour under its accent. Each
record's ``_repr_html_`` is a one-line delegate to a function here; every function is
pure (records in, an HTML string out) and every text a run produced is escaped.
Styles are inline, so a card looks the same wherever the HTML is pasted. The rows a
column lists (a task, its writes, a channel change) are built in ``inspect.card_rows``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from graphkit.inspect.card_rows import (
    change_items,
    error_box,
    muted,
    result_items,
    row,
    task_items,
    value,
)
from graphkit.inspect.card_rows import (
    code as code,  # (re-exported: callers import it from cards)
)
from graphkit.inspect.markup import (
    BORDER,
    ERROR,
    ERROR_TEXT,
    EXECUTE,
    FONT_STYLE,
    GROUND,
    MUTED,
    PLAN,
    TEXT,
    UPDATE,
    UPDATE_TEXT,
    escape,
)
from graphkit.inspect.store_rows import store_op_where
from graphkit.inspect.timeline import run_timeline_svg
from graphkit.inspect.values import handoff, handoff_text, step_failure, was_cancelled

if TYPE_CHECKING:
    from graphkit.pregel.records import (
        ChannelChange,
        Execution,
        Plan,
        Run,
        StoreOp,
        Superstep,
        Task,
        TaskResult,
        Update,
    )

__all__ = [
    "change_html",
    "execution_html",
    "plan_html",
    "result_html",
    "run_html",
    "store_op_html",
    "superstep_html",
    "task_html",
    "update_html",
]

FONT = FONT_STYLE
CARD = (
    f"{FONT};color:{TEXT};background:{GROUND};border:1px solid {BORDER};border-radius:8px;"
    "margin:6px 0;max-width:1000px"
)


def _column(title: str, colours: tuple[str, str], items: list[str], empty: str) -> str:
    background, accent = colours
    body = "".join(items) or row(muted(empty))
    return (
        f'<div style="background:{background};border-top:3px solid {accent};'
        f'border-radius:6px;padding:6px 8px;min-width:0">'
        f'<div style="color:{TEXT};font-weight:600;font-size:11px;'
        f'text-transform:uppercase;letter-spacing:.05em;margin-bottom:4px">{escape(title)}</div>'
        f"{body}</div>"
    )


# -- one phase ---------------------------------------------------------------------------


def task_html(task: Task) -> str:
    """A planned task as a small card (``Task._repr_html_``).

    >>> from graphkit.inspect.examples import counter_run
    >>> "Plan · step 1" in task_html(counter_run().step(1).plan.tasks[0])
    True
    """
    return (
        f'<div style="{CARD};padding:4px">'
        + _column(f"Plan · step {task.step}", PLAN, [task_items(task)], "")
        + "</div>"
    )


def plan_html(plan: Plan, *, card: bool = True) -> str:
    """The Plan column (``Plan._repr_html_``): each task and why it was planned.

    >>> from graphkit.inspect.examples import counter_run
    >>> "branch:to:inc" in plan_html(counter_run().step(1).plan)
    True
    """
    column = _column(
        f"Plan · step {plan.step}",
        PLAN,
        [task_items(task) for task in plan.tasks],
        "no task is triggered: the run is done",
    )
    return f'<div style="{CARD};padding:4px">{column}</div>' if card else column


def result_html(result: TaskResult) -> str:
    """One task's result as a small card (``TaskResult._repr_html_``).

    >>> from graphkit.inspect.examples import counter_run
    >>> "Execute · step 1" in result_html(counter_run().step(1).execution.results[0])
    True
    """
    colours = ERROR if result.error is not None else EXECUTE
    column = _column(f"Execute · step {result.task.step}", colours, [result_items(result)], "")
    return f'<div style="{CARD};padding:4px">{column}</div>'


def execution_html(
    execution: Execution | None,
    *,
    card: bool = True,
    step: int = 0,
    keys: tuple[str, ...] = (),
    handed_off: Any = None,
    read: Mapping[str, Any] | None = None,
) -> str:
    """The Execute column (``Execution._repr_html_``): each task's writes or error.

    >>> from graphkit.inspect.examples import counter_run
    >>> "Execute · step 1" in execution_html(counter_run().step(1).execution)
    True
    """
    if execution is None:
        column = _column(f"Execute · step {step}", EXECUTE, [], "not executed")
    else:
        items = [
            result_items(r, keys, handed_off=handed_off, read=read, results=execution.results)
            for r in execution.results
        ]
        colours = ERROR if execution.error is not None and handed_off is None else EXECUTE
        column = _column(f"Execute · step {execution.step}", colours, items, "no task ran")
    return f'<div style="{CARD};padding:4px">{column}</div>' if card else column


def store_op_html(op: StoreOp) -> str:
    """One store operation as a small card (``StoreOp._repr_html_``).

    >>> from graphkit.pregel.records import StoreOp
    >>> "users/ada" in store_op_html(StoreOp("put", ("users", "ada"), "prefs", {"n": 1}))
    True
    """
    parts = [f"<b>{op.kind}</b> {value(store_op_where(op))}"]
    if op.given is not None:
        parts.append(f"{muted('given')} {value(op.given)}")
    if op.returned is not None:
        parts.append(f"{muted('returned')} {value(op.returned)}")
    column = _column("Store", EXECUTE, [row(" ".join(parts))], "")
    return f'<div style="{CARD};padding:4px">{column}</div>'


def change_html(change: ChannelChange) -> str:
    """One channel change as a small card (``ChannelChange._repr_html_``).

    >>> from graphkit.inspect.examples import counter_run
    >>> "→" in change_html(counter_run().step(1).update.changes[0])
    True
    """
    column = _column("Update", UPDATE, [change_items(change)], "")
    return f'<div style="{CARD};padding:4px">{column}</div>'


def update_html(
    update: Update | None,
    *,
    card: bool = True,
    step: int = 0,
    why: str = "",
    failed: bool = False,
) -> str:
    """The Update column (``Update._repr_html_``): every channel change of the step; in
    the error colours when the Update itself ``failed``.

    >>> from graphkit.inspect.examples import counter_run
    >>> "cleared" in update_html(counter_run().step(1).update)
    True
    """
    if update is None:
        colours = ERROR if failed else UPDATE
        column = _column(f"Update · step {step}", colours, [], why or "not applied yet")
    else:
        items = [change_items(change) for change in update.changes]
        column = _column(f"Update · step {update.step}", UPDATE, items, "nothing changed")
    return f'<div style="{CARD};padding:4px">{column}</div>' if card else column


# -- a step, a run -------------------------------------------------------------------------


def superstep_html(
    superstep: Superstep, *, update_error: BaseException | None = None, handed_off: Any = None
) -> str:
    """A superstep as one card: Plan, Execute and Update side by side. ``update_error``
    is what its Update raised, if it did (a step's record cannot tell that from an
    Update still to come; its run can); ``handed_off``, the ``Command`` its subgraph's
    run handed its parent when it ended with it (``handoff``), not a failure.

    >>> from graphkit.inspect.examples import forecast_run
    >>> card = superstep_html(forecast_run().step(2))
    >>> card.count("Plan · step 2"), card.count("Update · step 2"), "weather" in card
    (1, 1, True)
    """
    step = superstep.step
    failed = superstep.execution is not None and superstep.execution.error is not None
    failure = step_failure(superstep.execution.results) if failed else None  # type: ignore[union-attr]
    cancelled = failure is not None and was_cancelled(failure.error)
    why = "skipped: a task failed, so no channel changed" if failed else ""
    if cancelled:
        why = "skipped: the run was cancelled, so no channel changed"
    update_failed = update_error is not None and superstep.phase == "execute" and not failed
    if update_failed:
        failed = True
        why = f"failed: {type(update_error).__name__}, so no channel changed"
    # (the accents darkened as texts: vermillion and green read at 3.9 and 3.4:1 on white)
    outcome, colour = ("cancelled" if cancelled else "failed"), ERROR_TEXT
    if failed and handed_off is not None:
        outcome, colour = "handed off", UPDATE_TEXT
        why = "skipped: the subgraph handed off, so no channel changed"
    title = "input step" if step == -1 else f"step {step}"
    tasks = len(superstep.plan.tasks)
    changed = len(superstep.update.changes) if superstep.update is not None else 0
    summary = f"{tasks} task{'s' * (tasks != 1)} · {changed} channel change{'s' * (changed != 1)}"
    header = (
        f'<div style="padding:5px 10px;border-bottom:1px solid {BORDER};display:flex;'
        f'gap:10px;align-items:baseline"><b>{escape(title)}</b>{muted(summary)}'
        + (f'<span style="color:{colour};font-weight:600">{outcome}</span>' if failed else "")
        + "</div>"
    )
    keys = superstep.update.state_keys if superstep.update is not None else ()
    columns = (
        plan_html(superstep.plan, card=False),
        execution_html(
            superstep.execution,
            card=False,
            step=step,
            keys=keys,
            handed_off=handed_off,
            read=superstep.checkpoint_before.channel_values,
        ),
        update_html(superstep.update, card=False, step=step, why=why, failed=update_failed),
    )
    grid = "display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:8px;padding:8px"
    return f'<div style="{CARD}">{header}<div style="{grid}">{"".join(columns)}</div></div>'


def run_html(run: Run, *, max_steps: int = 40) -> str:
    """A run (``Run._repr_html_``): its status, a timeline to unfold, and a card per
    step (the first and last ``max_steps // 2`` of a longer run).

    >>> from graphkit.inspect.examples import counter_run
    >>> page = run_html(counter_run())
    >>> page.count("Plan · step"), "<svg" in page
    (3, True)
    """
    texts = {"done": UPDATE_TEXT, "error": ERROR_TEXT, "out_of_steps": ERROR_TEXT}
    colour = texts.get(run.status, MUTED)
    status, error = run.status, error_box(run.error) if run.error is not None else ""
    if (sent := handoff(run)) is not None:  # a subgraph's Command.PARENT: not a failure
        colour, status = UPDATE_TEXT, "handed off"
        said = muted("to its parent graph: Command(graph=Command.PARENT),")
        said = f"{said} {escape(handoff_text(sent))}"
        error = f'<div style="{FONT};margin:2px 0;overflow-wrap:anywhere">{said}</div>'
    header = (
        f'<div style="{FONT};margin:4px 0"><b>Run</b> {muted(f"{len(run.steps)} supersteps ·")} '
        f'<span style="color:{colour};font-weight:600">{escape(status)}</span></div>'
    )
    steps = list(run.steps)
    # A run that ended in an error after its last step's Execute failed in that Update.
    update_error = run.error if run.status == "error" else None
    last = steps[-1].step if steps else None

    def card(superstep: Superstep) -> str:
        failed_here = update_error if superstep.step == last else None
        handed = sent if superstep.step == last else None
        return superstep_html(superstep, update_error=failed_here, handed_off=handed)

    if len(steps) <= max_steps:
        cards = [card(superstep) for superstep in steps]
        timeline = (
            f'<details style="{FONT};margin:4px 0"><summary>timeline</summary>'
            f"{run_timeline_svg(run)}</details>"
        )
    else:
        half = max_steps // 2
        hidden = f"… {len(steps) - 2 * half} more steps: run.step(n) shows one"
        note = f'<div style="{FONT};margin:6px 0">{muted(hidden)}</div>'
        cards = [
            *(card(superstep) for superstep in steps[:half]),
            note,
            *(card(superstep) for superstep in steps[-half:]),
        ]
        timeline = f'<div style="{FONT}">{muted("run.timeline_svg() draws every step")}</div>'
    return f"<div>{header}{error}{timeline}{''.join(cards)}</div>"
