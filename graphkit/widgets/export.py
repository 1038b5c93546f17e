"""A debugging session as ONE standalone HTML file: no kernel, no network, no CDN.

The page holds the graph's SVG once, and per recorded (step, phase) the CSS classes
``render.highlight`` gave its nodes and edges, the labels and the tables, all as
JSON in a ``<script type="application/json">``. About fifty lines of vanilla
JavaScript restyle the SVG and swap the tables as you press Prev / Next, drag the
slider or use the arrow keys. Every text the run produced is escaped: labels are
set with ``textContent``, tables are escaped by pandas, and the JSON has every
``<``, ``>`` and ``&`` written as a ``\\u`` escape, so no value can close the script.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphkit.inspect.markup import escape
from graphkit.render import highlight
from graphkit.widgets.panels import STATE_CSS
from graphkit.widgets.story import story_number
from graphkit.widgets.tabs import _PHASE_NAMES
from graphkit.widgets.view import (
    TABLES,
    has_unsaved,
    legend_html,
    phases_of,
    status_text,
    view_at,
)

if TYPE_CHECKING:
    from graphkit.widgets.session import DebugSession

__all__ = ["Exported", "export_data", "page_html", "session_html", "unfinished"]

_GROUP = re.compile(r'<g id="([^"]*)" class="([^"]*)">')
_NAMESPACES = re.compile(r'\s+xmlns(?::\w+)?="[^"]*"')


def session_html(session: DebugSession) -> str:
    """The session's recorded run as a standalone HTML page.

    >>> from graphkit.inspect.examples import forecast_graph
    >>> from graphkit.widgets import DebugSession
    >>> session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    >>> _ = session.run()
    >>> page = session_html(session)
    >>> page.startswith("<!DOCTYPE html>"), "http" in page
    (True, False)
    """
    return page_html(export_data(session))


def export_data(session: DebugSession) -> dict[str, Any]:
    """What the page shows, as JSON-ready data: the base SVG, and one frame per
    recorded (step, phase) with the classes that differ from the base."""
    base = _NAMESPACES.sub("", highlight(session.graph_svg, None, "plan"), count=2)
    base_classes = dict(_GROUP.findall(base))
    frames = []
    steps = session.supersteps
    for index, superstep in enumerate(steps):
        for phase in phases_of(superstep):
            view = view_at(session, index, phase, checkpoints=False)
            classes = {
                element_id: cls
                for element_id, cls in _GROUP.findall(view.svg)
                if base_classes.get(element_id) != cls
            }
            frames.append(
                {
                    "step": view.step_label,  # the learner's numbers, not the forks'
                    "phase": f"after {_PHASE_NAMES[phase]}",
                    "state": view.state_html,
                    "classes": classes,
                    "tables": {
                        kind: view.table_html(kind) for kind in TABLES if kind != "checkpoints"
                    },
                    "why": view.why_text,
                }
            )
    if frames:
        frames[-1]["status"] = status_text(session)
        frames[-1]["run_status"] = session.status  # colours the status line
    final = session.view()
    return {
        "title": f"{session.app.name} · thread {session.thread_id}",
        "svg": base,
        "frames": frames,
        "tables": list(TABLES),
        "checkpoints": final.table_html("checkpoints"),
        "unfinished": unfinished(session),
        "unsaved": has_unsaved(steps),  # (keys "writes not saved" only then)
    }


def unfinished(session: DebugSession) -> str | None:
    """Why the recorded run is not finished (a breakpoint, an interrupt, an error, a
    step left in the middle), or None when it is done.

    >>> from graphkit.inspect.examples import forecast_graph
    >>> from graphkit.widgets import DebugSession
    >>> session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
    >>> _ = session.step(); unfinished(session)
    'stopped between steps: step 0 is next'
    """
    status, phase = session.status, session.next_phase
    if status == "done":
        return None
    if status != "running":
        return status_text(session)  # interrupted, an error, out of steps: where and why
    number = story_number(session, session.stepper.step_number)
    if not session.supersteps:
        return (
            "not started: nothing was recorded; run it first (session.run(), or the Run "
            "button of a Debugger), then export it"
        )
    if session.at_breakpoint:
        return f"paused at a breakpoint after the Plan of step {number}; nothing of it ran"
    if phase == "plan":
        return f"stopped between steps: step {number} is next"
    return f"stopped in the middle of step {number}: its {_PHASE_NAMES[str(phase)]} has not run"


@dataclass(frozen=True)
class Exported:
    """What ``export_html`` wrote: the file, its frames, and why the run is unfinished
    (None when it is done). A notebook cell shows it, so a cell that exports a paused
    run says so."""

    path: Path
    frames: int
    unfinished: str | None

    def __repr__(self) -> str:
        what = f"Exported {self.path.name}: {self.frames} frames"
        if self.unfinished is None:
            return f"{what}, the run is done."
        # (the reason on a line of its own: one long line breaks mid-word in a notebook)
        return f"{what}; the run is unfinished:\n  {self.unfinished}."


def write_html(session: DebugSession, path: Any) -> Exported:
    """Write the session's page to ``path``; say what was written."""
    data = export_data(session)
    Path(path).write_text(page_html(data), encoding="utf-8")
    return Exported(Path(path), len(data["frames"]), data["unfinished"])


def page_html(data: dict[str, Any]) -> str:
    """The page for ``export_data``'s data: HTML, inline CSS and vanilla JavaScript."""
    payload = json.dumps(data, ensure_ascii=False)
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        payload = payload.replace(char, code)
    tabs = "".join(
        f'<button class="gk-tab" data-kind="{kind}">{kind}</button>' for kind in data["tables"]
    )
    banner = ""
    if data.get("unfinished"):
        banner = (
            '<div class="gk-unfinished" role="status">&#9888; Unfinished run: '
            f"{escape(data['unfinished'])}. This page shows the steps recorded so far.</div>"
        )
    return _PAGE.format(
        banner=banner,
        title=escape(data["title"]),
        tabs=tabs,
        legend=legend_html(bool(data.get("unsaved"))),
        data=payload,
        css=_CSS,
        script=_SCRIPT,
    )


# The page follows the reader's system scheme. Dark, it takes the colours the debugger
# has in JupyterLab's dark theme: the ground #111111, text white at 87% (13.9:1), errors
# #f44336 (5.1:1), the interrupted purple #cc79a7 (6.4:1), controls #424242 with white
# text at 87% (8.4:1), the open tab on #212121 as the open tab of the widgets' bar, and
# the slider's knob the widgets' knob grey #bdbdbd there (3.3:1 on its track). The
# drawing keeps its white card (docs/drawing.md "Light and dark themes"). Light, nothing
# changes: every dark rule is inside the media query.
_CSS = (
    """
body { font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', sans-serif;
       color: #1f1f29; margin: 16px; }
h1 { font-size: 18px; margin: 0 0 8px; }
.gk-controls { display: flex; gap: 8px; align-items: center; margin: 8px 0; }
.gk-slider { width: 280px; }
.gk-labels { font-size: 16px; margin: 4px 0; }
.gk-step { font-weight: 600; }
.gk-status { color: #374151; min-height: 1.4em; white-space: pre-wrap; }
.gk-status.error, .gk-status.out_of_steps { color: #d55e00; font-weight: 600; }
.gk-status.interrupted { color: #a8457f; font-weight: 600; }
.gk-graph svg { max-width: 100%; height: auto; }
.gk-legend { font-size: 12px; color: #4b5563; margin: 4px 0; }
.gk-tabs { margin-top: 12px; }
.gk-tab { margin-right: 4px; }
.gk-tab.active { font-weight: 700; border-bottom: 2px solid #7b6fd0; }
.gk-table { border-collapse: collapse; font: 12px ui-monospace, 'DejaVu Sans Mono', monospace; }
.gk-table th, .gk-table td { border: 1px solid #e5e7eb; padding: 2px 6px; text-align: left;
                             white-space: pre; }
.gk-table th { white-space: normal; vertical-align: bottom; }
.gk-why { white-space: pre-wrap; color: #374151; }
.gk-table-box, .gk-state { overflow-x: auto; max-width: 100%; }
.gk-unfinished { border: 2px dashed #d55e00; border-radius: 6px; padding: 6px 10px;
                 margin: 8px 0; font-weight: 600; }
h1, .gk-labels, .gk-status, .gk-why, .gk-unfinished { overflow-wrap: anywhere; }
"""
    + STATE_CSS
    + """
@media (prefers-color-scheme: dark) {
  :root { color-scheme: dark; }
  body { background: #111111; color: rgba(255,255,255,.87); }
  .gk-status, .gk-why, .gk-legend { color: rgba(255,255,255,.87); }
  .gk-status.error, .gk-status.out_of_steps { color: #f44336; }
  .gk-status.interrupted { color: #cc79a7; }
  .gk-table th, .gk-table td { border-color: rgba(127,127,127,.35); }
  button { background: #424242; color: rgba(255,255,255,.87); border: 1px solid #616161;
           border-radius: 2px; }
  button:disabled { color: rgba(255,255,255,.38); }
  .gk-tab.active { background: #212121; color: #ffffff; }
  .gk-slider { accent-color: #bdbdbd; }
}
"""
)

_SCRIPT = """
(function () {
  var data = JSON.parse(document.getElementById("gk-data").textContent);
  var $ = function (selector) { return document.querySelector(selector); };
  var frames = data.frames, current = 0, kind = data.tables[0];
  var graph = $(".gk-graph"), slider = $(".gk-slider");
  graph.innerHTML = data.svg;
  var groups = [];
  graph.querySelectorAll("g[id]").forEach(function (g) {
    groups.push([g, g.getAttribute("class") || ""]);
  });
  slider.max = Math.max(frames.length - 1, 0);
  function table() {
    var frame = frames[current];
    var html = kind === "checkpoints" ? data.checkpoints : (frame ? frame.tables[kind] : "");
    $(".gk-table-view").innerHTML = html;
    document.querySelectorAll(".gk-tab").forEach(function (tab) {
      tab.classList.toggle("active", tab.dataset.kind === kind);
    });
  }
  function show(index) {
    if (!frames.length) { $(".gk-step").textContent = "nothing recorded"; return; }
    current = Math.max(0, Math.min(frames.length - 1, index));
    var frame = frames[current];
    groups.forEach(function (pair) {
      var cls = frame.classes[pair[0].id];
      pair[0].setAttribute("class", cls === undefined ? pair[1] : cls);
    });
    $(".gk-step").textContent = frame.step;
    $(".gk-phase").textContent = frame.phase;
    $(".gk-status").textContent = frame.status || "";
    $(".gk-status").className = "gk-status " + (frame.run_status || "");
    $(".gk-why").textContent = frame.why || "";
    $(".gk-state").innerHTML = frame.state || "";
    $(".gk-position").textContent = (current + 1) + " / " + frames.length;
    slider.value = current;
    $(".gk-prev").disabled = current === 0;
    $(".gk-next").disabled = current === frames.length - 1;
    table();
  }
  $(".gk-prev").addEventListener("click", function () { show(current - 1); });
  $(".gk-next").addEventListener("click", function () { show(current + 1); });
  slider.addEventListener("input", function () { show(Number(slider.value)); });
  document.querySelectorAll(".gk-tab").forEach(function (tab) {
    tab.addEventListener("click", function () { kind = tab.dataset.kind; table(); });
  });
  document.addEventListener("keydown", function (event) {
    if (event.target === slider) { return; }  // the slider moves itself
    if (event.key === "ArrowLeft") { show(current - 1); }
    if (event.key === "ArrowRight") { show(current + 1); }
  });
  show(0);
})();
"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<h1 class="gk-title">{title}</h1>
{banner}
<div class="gk-controls">
  <button class="gk-prev">&#9664; Prev</button>
  <input class="gk-slider" type="range" min="0" max="0" value="0">
  <button class="gk-next">Next &#9654;</button>
  <span class="gk-position"></span>
</div>
<div class="gk-labels"><span class="gk-step"></span> · <span class="gk-phase"></span></div>
<div class="gk-status"></div>
{legend}
<div class="gk-graph"></div>
<div class="gk-state"></div>
<div class="gk-why"></div>
<div class="gk-tabs">{tabs}</div>
<div class="gk-table-view"></div>
<script type="application/json" id="gk-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""
