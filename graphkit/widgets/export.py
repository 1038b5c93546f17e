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
    legend_keys,
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
        "keys": legend_keys(has_unsaved(steps)),  # (the drawing's words for a screen reader)
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
    path = Path(path).expanduser()  # (open() takes "~" for a name; a person means home)
    if path.is_dir():  # (Python said only "[Errno 21] Is a directory")
        raise IsADirectoryError(
            f"export_html() writes one HTML file, and {str(path)!r} is a folder: name the "
            f"file in it, e.g. export_html(folder / 'run.html')."
        )
    if not path.parent.is_dir():
        raise FileNotFoundError(
            f"export_html() cannot write {str(path)!r}: there is no folder "
            f"{str(path.parent)!r}. Make it first (Path(...).mkdir(parents=True)), or "
            "write the file into a folder that exists."
        )
    data = export_data(session)
    path.write_text(page_html(data), encoding="utf-8")
    return Exported(path, len(data["frames"]), data["unfinished"])


def page_html(data: dict[str, Any]) -> str:
    """The page for ``export_data``'s data: HTML, inline CSS and vanilla JavaScript."""
    payload = json.dumps(data, ensure_ascii=False)
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        payload = payload.replace(char, code)
    # (the tabs follow ARIA's tabs pattern: one Tab stop, the arrow keys move between them)
    tabs = "".join(
        f'<button class="gk-tab" role="tab" id="gk-tab-{kind}" data-kind="{kind}" '
        f'aria-controls="gk-table-view" aria-selected="{"true" if i == 0 else "false"}" '
        f'tabindex="{0 if i == 0 else -1}">{kind}</button>'
        for i, kind in enumerate(data["tables"])
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
        first=data["tables"][0],
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
# changes: every dark rule is inside the media query. Light, an error's status line is
# vermillion darkened to #b34d00 (5.3:1 on white; #d55e00 read at 3.9), and the focus ring
# is the planned blue #0072b2 (5.2:1), #56b4e9 in the dark (8.6:1 on #111111).
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
.gk-status.error, .gk-status.out_of_steps { color: #b34d00; font-weight: 600; }
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
:focus-visible { outline: 2px solid #0072b2; outline-offset: 2px; }
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
  :focus-visible { outline-color: #56b4e9; }
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
  // (the box is one image named in words below; the nodes' tooltips are not said apart)
  graph.querySelector("svg").setAttribute("aria-hidden", "true");
  var groups = [];
  graph.querySelectorAll("g[id]").forEach(function (g) {
    groups.push([g, g.getAttribute("class") || ""]);
  });
  var nodes = groups.filter(function (pair) {  // (a join's bar is said by its own nodes)
    return pair[0].id.indexOf("node-") === 0 && pair[1].indexOf("gk-join") < 0;
  })
    .map(function (pair) {
      var title = pair[0].querySelector("title");
      return [pair[0], title ? title.textContent : pair[0].id.slice(5)];
    });
  // The drawing said in words (a screen reader reads no colours): its nodes, and which
  // of them this frame highlights, by the legend's names; a node under its last key that
  // fits (a node that wrote is still "planned" too: its line is drawn over it).
  function describe(frame) {
    var named = data.keys.map(function () { return []; });
    nodes.forEach(function (node) {
      var classes = (node[0].getAttribute("class") || "").split(" "), at = -1;
      data.keys.forEach(function (key, index) {
        if (key[0].split(" ").every(function (c) { return classes.indexOf(c) >= 0; })) {
          at = index;
        }
      });
      if (at >= 0) { named[at].push(node[1]); }
    });
    var said = [];
    named.forEach(function (names, index) {
      if (names.length) { said.push(data.keys[index][1] + ": " + names.join(", ")); }
    });
    graph.setAttribute("aria-label", "The graph, " + frame.step + " " + frame.phase + ". "
      + (said.length ? said.join("; ") : "nothing highlighted") + ". Its nodes: "
      + nodes.map(function (node) { return node[1]; }).join(", ") + ".");
  }
  slider.max = Math.max(frames.length - 1, 0);
  function table() {
    var frame = frames[current];
    var html = kind === "checkpoints" ? data.checkpoints : (frame ? frame.tables[kind] : "");
    $(".gk-table-view").innerHTML = html;
    document.querySelectorAll(".gk-tab").forEach(function (tab) {
      var open = tab.dataset.kind === kind;
      tab.classList.toggle("active", open);
      tab.setAttribute("aria-selected", open ? "true" : "false");
      tab.tabIndex = open ? 0 : -1;
      if (open) { $(".gk-table-view").setAttribute("aria-labelledby", tab.id); }
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
    slider.setAttribute("aria-valuetext", frame.step + " · " + frame.phase + ", "
      + (current + 1) + " of " + frames.length);
    var focused = document.activeElement;
    $(".gk-prev").disabled = current === 0;
    $(".gk-next").disabled = current === frames.length - 1;
    // (a button that disables itself under the keyboard dropped the focus to the page's
    // start: Next pressed on to the last step, the next Tab went back to the top. The
    // slider takes it, not Prev: Enter pressed once too often must not walk back.)
    if (focused && focused.disabled) { slider.focus(); }
    describe(frame);
    table();
  }
  $(".gk-prev").addEventListener("click", function () { show(current - 1); });
  $(".gk-next").addEventListener("click", function () { show(current + 1); });
  slider.addEventListener("input", function () { show(Number(slider.value)); });
  var tabs = Array.prototype.slice.call(document.querySelectorAll(".gk-tab"));
  tabs.forEach(function (tab) {
    tab.addEventListener("click", function () { kind = tab.dataset.kind; table(); });
  });
  // In the tab bar the arrow keys, Home and End open the next, previous, first or last tab.
  $(".gk-tabs").addEventListener("keydown", function (event) {
    var at = tabs.indexOf(document.activeElement), to = null;
    if (at < 0) { return; }
    if (event.key === "ArrowRight") { to = (at + 1) % tabs.length; }
    if (event.key === "ArrowLeft") { to = (at - 1 + tabs.length) % tabs.length; }
    if (event.key === "Home") { to = 0; }
    if (event.key === "End") { to = tabs.length - 1; }
    if (to === null) { return; }
    event.preventDefault();
    kind = tabs[to].dataset.kind;
    table();
    tabs[to].focus();
  });
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) { return; }
    // the slider moves itself, the tab bar has its own keys, a scrolled box scrolls
    if (event.target.closest && event.target.closest(".gk-slider, .gk-tabs, [role=region]")) {
      return;
    }
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
<main>
<h1 class="gk-title">{title}</h1>
{banner}
<div class="gk-controls">
  <button class="gk-prev"><span aria-hidden="true">&#9664;</span> Prev</button>
  <input class="gk-slider" type="range" min="0" max="0" value="0" aria-label="step and phase">
  <button class="gk-next">Next <span aria-hidden="true">&#9654;</span></button>
  <span class="gk-position"></span>
</div>
<div class="gk-labels" aria-live="polite"><span class="gk-step"></span> ·
  <span class="gk-phase"></span></div>
<div class="gk-status" role="status"></div>
{legend}
<div class="gk-graph" role="img" aria-label="the graph"></div>
<div class="gk-state" tabindex="0" role="region" aria-label="the state"></div>
<div class="gk-why"></div>
<div class="gk-tabs" role="tablist" aria-label="tables">{tabs}</div>
<div class="gk-table-view" id="gk-table-view" role="tabpanel"
  aria-labelledby="gk-tab-{first}"></div>
</main>
<script type="application/json" id="gk-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""
