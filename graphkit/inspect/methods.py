"""The methods the records get from this layer: tables, "why", diffs, text, cards.

The runtime never imports ``graphkit.inspect``; records are plain data. Instead
``import graphkit`` calls :func:`attach`, which makes each view function a method of
the record it reads: ``Run.to_frame`` *is* ``run_frame``, so ``run.to_frame("state")``
calls ``run_frame(run, "state")`` and ``help(Run.to_frame)`` shows that function.

| method | the function it is |
|---|---|
| `Run.to_frame(kind="tasks", *, readable=False, internal=False)` | `tables.run_frame` |
| `Superstep.to_frame(*, readable=False)` | `tables.superstep_frame` |
| `Run.why(node, step=None, *, graph=None)` | `why.why` |
| `Run.diff(step_a, step_b)` | `diff.diff` |
| `Run.timeline(*, durations=False, width=100)` and `str(run)` | `text.run_text` |
| `Run.timeline_svg(width=720)` | `timeline.run_timeline_svg` |
| `_repr_html_()` of all nine records | `cards.task_html` … `cards.run_html` |

>>> from graphkit.inspect.examples import counter_run
>>> run = counter_run()
>>> run.to_frame("state")["n"].tolist()
[<empty>, 1, 2]
>>> print(run.diff(0, 1))
From step 0 to step 1, 1 state key changed:
  n  1 -> 2
>>> from graphkit import Run
>>> Run.to_frame is run_frame, Run.__str__ is run_text
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphkit.inspect.cards import (
    change_html,
    execution_html,
    plan_html,
    result_html,
    run_html,
    store_op_html,
    superstep_html,
    task_html,
    update_html,
)
from graphkit.inspect.diff import diff
from graphkit.inspect.tables import run_frame, superstep_frame
from graphkit.inspect.text import run_text
from graphkit.inspect.timeline import run_timeline_svg
from graphkit.inspect.why import why
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

__all__ = ["METHODS", "attach"]

METHODS: dict[type, dict[str, Callable[..., Any]]] = {
    Task: {"_repr_html_": task_html},
    Plan: {"_repr_html_": plan_html},
    TaskResult: {"_repr_html_": result_html},
    Execution: {"_repr_html_": execution_html},
    ChannelChange: {"_repr_html_": change_html},
    StoreOp: {"_repr_html_": store_op_html},
    Update: {"_repr_html_": update_html},
    Superstep: {"_repr_html_": superstep_html, "to_frame": superstep_frame},
    Run: {
        "_repr_html_": run_html,
        "to_frame": run_frame,
        "why": why,
        "diff": diff,
        "timeline": run_text,
        "__str__": run_text,
        "timeline_svg": run_timeline_svg,
    },
}
"""Each record class, and the view functions that become its methods (by name)."""


def attach() -> None:
    """Make the functions in :data:`METHODS` methods of their records (``import
    graphkit`` does this; doing it again changes nothing)."""
    for record, methods in METHODS.items():
        for name, function in methods.items():
            setattr(record, name, function)
