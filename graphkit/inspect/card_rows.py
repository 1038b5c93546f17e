"""The rows of a card's columns: a planned task, an executed task's writes or error, a
channel change, each as HTML, and the spans they are made of.

A row says what its record holds and nothing of where it is shown: ``inspect.cards``
stacks them into a phase's column, a step's card and a run's page. Every text a run
produced is escaped (``markup.escape``); a long value is shortened as a readable
table's cell is, with its longer text in a tooltip.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphkit.channels import EMPTY
from graphkit.inspect.dropped import dropped_keys
from graphkit.inspect.markup import CODE_STYLE, ERROR, ERROR_TEXT, MUTED, escape
from graphkit.inspect.mutated import mutated_keys
from graphkit.inspect.resumed import again
from graphkit.inspect.retried import retried_text
from graphkit.inspect.store_rows import store_ops_text
from graphkit.inspect.timeline import duration_text
from graphkit.inspect.unsaved import not_saved, writers_text
from graphkit.inspect.values import ENDED, ended_text, ends_the_run, handoff_text, show, show_error

if TYPE_CHECKING:
    from graphkit.pregel.records import ChannelChange, Task, TaskResult

__all__ = [
    "change_items",
    "code",
    "error_box",
    "muted",
    "result_items",
    "row",
    "task_items",
    "value",
]

CODE = CODE_STYLE
_TITLE_WIDTH = 400


def code(text: str) -> str:
    """``text`` escaped, in a monospace span.

    >>> code("<b>")
    '<span style="font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px">&lt;b&gt;</span>'
    """  # noqa: E501
    return f'<span style="{CODE}">{escape(text)}</span>'


def value(item: Any) -> str:
    """A run value, shortened as a readable table's cell is (``show``'s width, on two
    lines of a column), with the longer text as a tooltip: at 40 characters, two
    ``Send`` packets to one node read alike.

    >>> value("<b>").endswith('title="&#x27;&lt;b&gt;&#x27;">&#x27;&lt;b&gt;&#x27;</span>')
    True
    """
    short, long = show(item), show(item, _TITLE_WIDTH)
    return f'<span style="{CODE}" title="{escape(long)}">{escape(short)}</span>'


def muted(text: str) -> str:
    """``text`` escaped, in grey.

    >>> muted("a<b") == f'<span style="color:{MUTED}">a&lt;b</span>'
    True
    """
    return f'<span style="color:{MUTED}">{escape(text)}</span>'


def error_box(error: BaseException | None) -> str:
    """An error as ``Type: message`` in the error colours, its lines kept."""
    background, accent = ERROR
    return (
        f'<div style="background:{background};border-left:3px solid {accent};color:{ERROR_TEXT};'
        f'padding:2px 6px;margin:2px 0;white-space:pre-wrap;{CODE}">'
        f"{escape(show_error(error))}</div>"
    )


def row(inner: str) -> str:
    """One row of a column, ``inner`` its HTML (a long name or value wraps anywhere)."""
    return f'<div style="margin:2px 0;overflow-wrap:anywhere">{inner}</div>'


def task_items(task: Task) -> str:
    """One planned task: its node, and the trigger channels (and versions) that woke it.

    >>> from graphkit.inspect.examples import counter_run
    >>> "<b>inc</b>" in task_items(counter_run().step(1).plan.tasks[0])
    True
    """
    if not task.triggers:
        why = muted(f" ({task.kind} task)")
    else:
        woke = [
            code(channel) + muted(f" v{task.trigger_versions[channel]}")
            if channel in task.trigger_versions
            else code(channel)
            for channel in task.triggers
        ]
        why = muted(" ← ") + ", ".join(woke)
    if task.kind == "push":  # (a node's Send tasks wake on one channel: packets tell them apart)
        why += f'<div style="margin:1px 0 1px 12px">{muted("packet")} {value(task.input)}</div>'
    return row(f"<b>{escape(task.node)}</b>{why}")


def result_items(
    result: TaskResult,
    state_keys: tuple[str, ...] = (),
    *,
    handed_off: Any = None,
    read: Mapping[str, Any] | None = None,
    results: Sequence[TaskResult] = (),
) -> str:
    """One executed task: its node, time and worker, then each write or its error
    (``handed_off``: the ``Command`` a subgraph's run handed its parent, see ``handoff``;
    ``read``: the values its step planned from, to tell a key it set and lost;
    ``results``: its step's, to tell the tasks it called that a resume did not rerun).

    >>> from graphkit.inspect.examples import counter_run
    >>> "wrote nothing" in result_items(counter_run().step(1).execution.results[0])
    False
    """
    head = f"<b>{escape(result.task.node)}</b> " + muted(
        f"{duration_text(result.duration)} · {result.worker}" if result.worker else ""
    )
    lines = [row(head)]
    if result.answers:  # what each interrupt() of the task was answered, in order
        answers = ", ".join(value(answer) for answer in result.answers)
        note = muted(f"({again(result, results)})")
        lines.append(
            f'<div style="margin:1px 0 1px 12px">{muted("resumed with")} {answers} {note}</div>'
        )
    for channel, written in result.writes:
        lines.append(
            f'<div style="margin:1px 0 1px 12px;overflow-wrap:anywhere">'
            f"{code(channel)} {muted('=')} {value(written)}</div>"
        )
    if handed_off is not None and getattr(result.error, "command", None) is handed_off:
        said = f"{muted('handed off to the parent graph:')} {escape(handoff_text(handed_off))}"
        lines.append(f'<div style="margin:1px 0 1px 12px;overflow-wrap:anywhere">{said}</div>')
    elif result.error is not None:
        lines.append(error_box(result.error))
    elif result.interrupts:  # what it waits on now (the answers above were to earlier asks)
        # (a subgraph's task may wait on several: each its own call, not one's arguments)
        asked = ", ".join(f"interrupt({value(getattr(i, 'value', i))})" for i in result.interrupts)
        lines.append(f'<div style="margin:1px 0 1px 12px">{muted("paused in")} {asked}</div>')
    elif not result.writes:
        unsaved = not_saved(result)
        did = unsaved.text() if unsaved is not None else ended_text(result.output, "wrote nothing")
        lines.append(f'<div style="margin-left:12px">{muted(did)}</div>')
    elif ends_the_run(result.output):  # (its writes are listed: the route it took is not)
        lines.append(f'<div style="margin-left:12px">{muted(ENDED)}</div>')
    if (store := store_ops_text(result)) is not None:  # (the store is no channel: say it)
        lines.append(
            f'<div style="margin:1px 0 1px 12px;overflow-wrap:anywhere">{escape(store)}</div>'
        )
    if (dropped := dropped_keys(result, state_keys)) is not None:  # (no write shows them missing)
        lines.append(f'<div style="margin:1px 0 1px 12px">{escape(dropped.text())}</div>')
    if read is not None and (mutated := mutated_keys(result, read)) is not None:
        lines.append(f'<div style="margin:1px 0 1px 12px">{escape(mutated.text())}</div>')
    if (retried := retried_text(result)) is not None:  # (what it did first, done again)
        lines.append(f'<div style="margin:1px 0 1px 12px">{muted(retried)}</div>')
    return "".join(lines)


def change_items(change: ChannelChange) -> str:
    """One channel change: before → after, who wrote it and which reducer ran (when it
    is a function; the channel kind and versions are in the tooltip). A change of the
    state a thread whose beginning was not saved starts from (``change.unsaved``) was
    written in those steps ("writers not saved"), not by the runtime.

    >>> from graphkit.inspect.examples import counter_run
    >>> "(inc)" in change_items(counter_run().step(1).update.changes[0])
    True
    """
    versions = f"{change.reducer}, version {change.version_before or 0} → {change.version_after}"
    channel = f'<span style="{CODE}" title="{escape(versions)}">{escape(change.channel)}</span>'
    if not change.writers and change.after is EMPTY:
        return row(f"{channel} {muted('cleared')}")
    who = writers_text(change) or ("writers not saved" if change.unsaved else "runtime")
    # a reducer function (add, add_messages) is worth showing; a channel kind is not
    if not change.reducer[:1].isupper():
        who = f"{who} · {change.reducer}"
    return row(
        f"{channel} {value(change.before)} {muted('→')} {value(change.after)} {muted(f'({who})')}"
    )
