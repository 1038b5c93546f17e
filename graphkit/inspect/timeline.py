"""The timeline: each superstep's tasks as bars on one time axis, with the barrier drawn.

A superstep ends at its *barrier*: Update runs only once every task has finished, so
the slowest sibling decides when the next step can start. ``timeline_rows`` (pure)
turns a run into one row per executed task, times in seconds from the first task's
start; ``timeline_svg`` (pure) draws those rows as SVG text, no plotting library
needed. ``run.to_frame("timeline")`` is the same rows as a DataFrame.

Times come from ``TaskResult.started`` (a ``perf_counter`` reading) and ``duration``;
the input step has no task to time and is left out, as are the results a resumed run
reused and those served from the node cache (they did not run).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from graphkit.diagnostics.reading import check_width
from graphkit.inspect.markup import ERROR, EXECUTE, GROUND, LIGHT, MUTED, TEXT, UPDATE, escape
from graphkit.render.theme import CARD_PAD, card_rect

if TYPE_CHECKING:
    from graphkit.pregel.records import Run

__all__ = ["TIMELINE_COLUMNS", "duration_text", "run_timeline_svg", "timeline_rows", "timeline_svg"]

TIMELINE_COLUMNS = (
    "step",
    "node",
    "task_id",
    "worker",
    "start",
    "end",
    "duration",
    "barrier",
    "wait",
    "error",
)
"""Columns of the timeline table; ``wait`` is how long a task's result waited for the
barrier (the step's last task to finish), ``error`` whether the task raised."""

_ROW = 22  # px per task
_BAR = 14
_TOP = 24  # legend
_AXIS = 22  # the axis and its labels
_RIGHT = 20  # room for the last tick's label, centred on the plot's end
_CHAR = 7  # rough width of one label character at 12px
_STEP_LABEL = 64  # the "step N" column


def timeline_rows(run: Run) -> list[dict[str, Any]]:
    """One row per executed task; times in seconds since the run's first task started.

    >>> from graphkit.inspect.examples import forecast_run
    >>> rows = timeline_rows(forecast_run())
    >>> [(row["step"], row["node"]) for row in rows]
    [(0, '__start__'), (1, 'planner'), (2, 'news'), (2, 'weather'), (3, 'summarize')]
    >>> all(row["end"] <= row["barrier"] and row["wait"] >= 0 for row in rows)
    True
    """
    timed = [
        (superstep.step, result)
        for superstep in run.steps
        if superstep.execution is not None
        for result in superstep.execution.results
        # an input step takes no time; a thread read from LangGraph's saver has no times;
        # a result reused on resume or served from the cache did not run now (its start
        # of 0.0 stretched the axis to the machine's uptime)
        if result.task.kind != "input"
        and not (result.reused or result.cached)
        and result.started is not None
        and result.duration is not None
    ]
    if not timed:
        return []
    origin = min(result.started for _, result in timed)
    barriers: dict[int, float] = {}
    for step, result in timed:
        end = result.started + result.duration - origin
        barriers[step] = max(barriers.get(step, 0.0), end)
    rows = []
    for step, result in timed:
        start = result.started - origin
        end = start + result.duration
        rows.append(
            {
                "step": step,
                "node": result.task.node,
                "task_id": result.task.id,
                "worker": result.worker,
                "start": start,
                "end": end,
                "duration": result.duration,
                "barrier": barriers[step],
                "wait": barriers[step] - end,
                "error": result.error is not None,
            }
        )
    return rows


def run_timeline_svg(run: Run, width: int = 720) -> str:
    """The timeline of ``run`` as SVG text (what ``Run.timeline_svg()`` returns).

    >>> from graphkit.inspect.examples import forecast_run
    >>> run_timeline_svg(forecast_run()).startswith("<svg")
    True
    """
    check_width(width, "run.timeline_svg(width=...)", whole=False)
    return timeline_svg(timeline_rows(run), width)


def timeline_svg(rows: Sequence[dict[str, Any]], width: int = 720) -> str:
    """Draw timeline rows as a standalone SVG document (a string).

    On a card with rounded corners and a margin, the graph drawings' (``render.theme``),
    in the notebook's ground where the SVG is inline (JupyterLab's theme) and white where
    no theme reaches (an ``<img>``, as Lab shows ``SVG(...)``, or a file), each task is an
    orange bar (vermillion if it raised) in its step's band; a dashed grey tail shows how
    long its result waited for the step's slowest task; the green line at the end of each
    band is the barrier, where the step's Update runs.
    Elements carry stable ids (``step-2``, ``task-2-0``, ``barrier-2``).

    >>> rows = [
    ...     dict(step=1, node="fast", start=0.0, end=0.001, barrier=0.004, error=False),
    ...     dict(step=1, node="slow", start=0.0, end=0.004, barrier=0.004, error=False),
    ...     dict(step=2, node="next", start=0.005, end=0.006, barrier=0.006, error=False),
    ... ]
    >>> svg = timeline_svg(rows)
    >>> svg.count('class="gk-bar"'), svg.count('class="gk-barrier"')
    (3, 2)
    """
    inner = width - 2 * CARD_PAD  # the content's width, inside the card's margin
    longest = max((len(str(row["node"])) for row in rows), default=0)
    label_width = _STEP_LABEL + min(200, max(40, _CHAR * longest + 16))
    plot = max(120, inner - label_width - _RIGHT)
    span = max((row["barrier"] for row in rows), default=0.0) or 1e-9
    height = _TOP + _ROW * len(rows) + _AXIS + 2 * CARD_PAD

    def x(seconds: float) -> float:
        return round(label_width + seconds / span * plot, 2)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="system-ui, sans-serif" font-size="12" '
        # Scale down, never overflow, in a narrow notebook column (the viewBox keeps it sharp).
        'style="max-width:100%;height:auto" class="gk-timeline">',
        "<title>Superstep timeline</title>",
        # The graph drawings' card: opaque (the legend and axis are drawn for this ground,
        # whatever lies under it), rounded, and white in an <img>, where no theme reaches.
        _card(width, height),
        f'<g class="gk-content" transform="translate({CARD_PAD},{CARD_PAD})">',
    ]
    out.extend(_legend(0))
    by_step: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_step.setdefault(row["step"], []).append(row)
    top = _TOP
    for band, (step, members) in enumerate(by_step.items()):
        out.extend(_step_group(step, members, band, top, inner, x))
        top += _ROW * len(members)
    out.extend(_axis(span, top, label_width, plot, x))
    out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)


def _card(width: int, height: int) -> str:
    """The render layer's card, in the notebook's ground where the SVG is inline."""
    plain, themed = _THEMED["ground"]
    return card_rect(width, height, fill=plain, style=f"fill:{themed}")


def _legend(left: int) -> list[str]:
    y = 10
    return [
        f'<g class="gk-legend" {_paint("fill", "muted")}>',
        f'<rect x="{left}" y="{y - 9}" width="18" height="10" rx="2" fill="{EXECUTE[1]}"/>',
        f'<text x="{left + 24}" y="{y}">task running</text>',
        f'<line x1="{left + 112}" y1="{y - 4}" x2="{left + 130}" y2="{y - 4}" '
        f'{_paint("stroke", "muted")} stroke-dasharray="3 2" stroke-width="2"/>',
        f'<text x="{left + 136}" y="{y}">waiting for the slowest sibling</text>',
        f'<line x1="{left + 336}" y1="{y - 10}" x2="{left + 336}" y2="{y + 2}" '
        f'stroke="{UPDATE[1]}" stroke-width="2"/>',
        f'<text x="{left + 342}" y="{y}">barrier: the step\'s Update</text>',
        "</g>",
    ]


def _step_group(step: int, rows: list[dict[str, Any]], band: int, top: int, width: int, x):
    height = _ROW * len(rows)
    fill = _paint("fill", "band" if band % 2 == 0 else "ground")
    barrier = x(rows[0]["barrier"])
    out = [
        f'<g id="step-{step}" class="gk-step" data-step="{step}">',
        f'<rect x="0" y="{top}" width="{width}" height="{height}" {fill}/>',
        f'<text x="8" y="{top + 15}" font-weight="600" {_paint("fill", "text")}>step {step}</text>',
    ]
    for index, row in enumerate(rows):
        y = top + index * _ROW + (_ROW - _BAR) / 2
        start, end = x(row["start"]), x(row["end"])
        node = escape(row["node"])
        colour = ERROR[1] if row.get("error") else EXECUTE[1]
        took = duration_text(row["end"] - row["start"])
        left = round(x(0) - 8, 2)
        label = f'x="{left}" y="{y + 11}" text-anchor="end" {_paint("fill", "text")}'
        out.append(f"<text {label}>{node}</text>")
        out.append(
            f'<rect id="task-{step}-{index}" class="gk-bar" data-node="{node}" x="{start}" '
            f'y="{y}" width="{max(2.0, round(end - start, 2))}" height="{_BAR}" rx="2" '
            f'fill="{colour}"><title>{node}: {took}'
            f"{' (raised)' if row.get('error') else ''}</title></rect>"
        )
        if barrier - end > 1:
            waited = duration_text(row["barrier"] - row["end"])
            out.append(
                f'<line class="gk-wait" x1="{end}" y1="{y + _BAR / 2}" x2="{barrier}" '
                f'y2="{y + _BAR / 2}" {_paint("stroke", "muted")} stroke-dasharray="3 2" '
                'stroke-width="2">'
                f"<title>{node} waited {waited} for its siblings</title></line>"
            )
    failed = any(row.get("error") for row in rows)
    then = "a task failed, so no Update ran" if failed else "Update runs once every task finished"
    out.append(
        f'<line id="barrier-{step}" class="gk-barrier" x1="{barrier}" y1="{top}" '
        f'x2="{barrier}" y2="{top + height}" stroke="{ERROR[1] if failed else UPDATE[1]}" '
        f'stroke-width="2"><title>step {step} barrier at {duration_text(rows[0]["barrier"])}: '
        f"{then}</title></line>"
    )
    out.append("</g>")
    return out


def _axis(span: float, top: int, left: int, plot: float, x) -> list[str]:
    tick = _nice_tick(span)
    out = [
        f'<g class="gk-axis" {_paint("fill", "muted")}>',
        f'<line x1="{left}" y1="{top}" x2="{left + plot}" y2="{top}" {_paint("stroke", "muted")}/>',
    ]
    count = int(span / tick + 1e-9)
    for number in range(count + 1):
        at = x(number * tick)
        out.append(
            f'<line x1="{at}" y1="{top}" x2="{at}" y2="{top + 4}" {_paint("stroke", "muted")}/>'
        )
        label = duration_text(number * tick) if number else "0"
        out.append(f'<text x="{at}" y="{top + 17}" text-anchor="middle">{label}</text>')
    out.append("</g>")
    return out


_THEMED = {
    "ground": (LIGHT["ground"], GROUND),
    "band": ("#f3f4f6", f"color-mix(in srgb, {TEXT} 5%, {GROUND})"),
    "text": (LIGHT["text"], TEXT),
    "muted": (LIGHT["muted"], MUTED),
}
"""Each colour of the drawing that follows the notebook's theme: (plain, themed)."""


def _paint(kind: str, colour: str) -> str:
    """``fill`` or ``stroke`` as an attribute, the plain colour (what an ``<img>``, a
    file or a renderer without CSS variables draws), and as a style that follows
    JupyterLab's theme where the SVG is inline in the page.

    >>> _paint("fill", "text")
    'fill="#111827" style="fill:var(--jp-content-font-color1, #111827)"'
    """
    plain, themed = _THEMED[colour]
    return f'{kind}="{plain}" style="{kind}:{themed}"'


def _nice_tick(span: float, ticks: int = 6) -> float:
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def duration_text(seconds: float) -> str:
    """A duration for people: ``1.5 s``, ``12 ms``, ``0.3 ms``, ``40 µs``.

    >>> duration_text(1.5), duration_text(0.012), duration_text(0.0003), duration_text(4e-5)
    ('1.5 s', '12 ms', '0.3 ms', '40 µs')
    """
    if seconds >= 1:
        return f"{seconds:.3g} s"
    if seconds >= 1e-4:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"
