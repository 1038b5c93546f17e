"""The notebook debugger: a ``DebugSession`` behind ipywidgets.

Each button calls one session method and then shows the session's ``View``; the
widgets hold no state of their own. Every widget has a stable ``gk-...`` CSS class
(``gk-step-button``, ``gk-graph``, ``gk-phase``, ...) so browser tests can find it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from graphkit.constants import START
from graphkit.extras import require
from graphkit.widgets.panels import STATE_CSS
from graphkit.widgets.predict_panel import PredictPanel
from graphkit.widgets.resume_box import RESUME_CSS, ResumeBox
from graphkit.widgets.session import DebugSession
from graphkit.widgets.view import TABLES, View, has_unsaved, legend_html

if TYPE_CHECKING:
    from graphkit.pregel.records import Run

W = require("ipywidgets", extra="notebook", feature="the Debugger")

__all__ = ["BUTTONS", "Debugger"]

BUTTONS = ("plan", "execute", "update", "step", "back", "run", "reset")
"""The control buttons, in order; each has the class ``gk-<name>-button``."""

_GROW = {"flex": "1 1 320px", "min_width": "0"}
"""The why column takes the room left by the breakpoints, and wraps under them when
the cell is narrow."""

_PHASE_TABLES = {"plan": "tasks", "execute": "writes", "update": "changes"}
"""The table each phase opens: the tasks planned, the pending writes, the changes."""

_ICONS = {
    "plan": "list",
    "execute": "play",
    "update": "check",
    "step": "step-forward",
    "back": "undo",
    "run": "forward",
    "reset": "refresh",
}

# JupyterLab's theme variables (with light fallbacks) keep the text readable in its dark
# theme. The graph brings its own light ground, the drawing's rounded card and margin
# (render.theme.card_rect), so its panel paints none and adds no padding: a white panel
# was a full-width white block in the dark theme, hiding the card's corners. The SVG is a
# block, as an inline one left a line's descent of the panel under the card. Wide
# tables scroll inside their box instead of widening the cell. The status and the
# message wrap: a Label cuts its text at the cell's edge, and an error's fix is at its end.
# The tabs wrap onto a second row where their labels do not fit one (a phone, a narrow
# output area): the Tab's bar shrank each tab to 35 px, cutting every label, and does not
# scroll. A tab's basis is 0 and its floor its label, so a row breaks only where the
# labels would not fit; in a row they grow alike up to the Tab's 144 px, as before.
# The interrupted status is the palette's purple, darkened on a light ground: #cc79a7 reads
# 3.1:1 on white, #a8457f 5.5:1; a dark ground (Lab's dark theme, the site's slate) keeps
# #cc79a7 (5.3:1 on #1e2129), where the darker one would read 2.9:1.
# An unselected tab's label is the widgets' --jp-ui-font-color2, black at 54% over the
# bar's #eeeeee: 4.43:1 on a light ground (Lab, Voila, the site's light scheme), under
# WCAG's 4.5:1. A light theme darkens it to #616161 (5.3:1, and 6.2:1 on the white of
# a hovered tab, whose own colour still wins). In a dark theme it is white at 54% over
# the bar's #424242, 4.23:1: Lab's dark theme lightens it to #bdbdbd (5.3:1). The site's
# slate keeps its own (its notebook says data-jp-theme-light="true" whatever the scheme,
# so the light rule is undone there).
# The slider's knob is white in every theme (the widgets' CSS writes #fff, not the
# handle variable it declares), with a #d9d9d9 rim. In a dark theme a glaring white dot:
# there it is Lab's #bdbdbd, 3.3:1 on the #616161 track and 8.5:1 on #212121 (WCAG
# 1.4.11 asks 3:1 of a control). In a light theme it vanished, 1.0:1 on the white page
# and 1.41:1 for its rim: the rim is #616161 there, 6.2:1 on the page and 3.3:1 on the
# #bdbdbd track. Hovered or focused, the widgets' brand colour. (The site's: extra.css.)
_CSS = (
    """<style>
.gk-debugger { max-width: 100%; }
.gk-debugger .gk-table-box { overflow-x: auto; max-width: 100%; }
.gk-debugger .gk-table { border-collapse: collapse; font: 12px ui-monospace, monospace; }
.gk-debugger .gk-table th, .gk-debugger .gk-table td {
  border: 1px solid rgba(127,127,127,.35); padding: 2px 6px; text-align: left; white-space: pre; }
.gk-debugger .gk-table th { white-space: normal; vertical-align: bottom; }
.gk-debugger .gk-graph svg { display: block; max-width: 100%; height: auto; }
.gk-debugger .gk-step { font-weight: 600; font-size: 15px; }
.gk-debugger .gk-status { color: var(--jp-ui-font-color1, #1f1f29); }
.gk-debugger .gk-status-error, .gk-debugger .gk-status-out_of_steps {
  color: var(--jp-error-color1, #d55e00); font-weight: 600; }
.gk-debugger .gk-status-interrupted, .gk-debugger .gk-status-drained {
  color: #a8457f; font-weight: 600; }
[data-jp-theme-light="false"] .gk-debugger .gk-status-interrupted,
[data-jp-theme-light="false"] .gk-debugger .gk-status-drained,
[data-md-color-scheme="slate"] .gk-debugger .gk-status-interrupted,
[data-md-color-scheme="slate"] .gk-debugger .gk-status-drained { color: #cc79a7; }
/* (Lab's warning orange read at 2.7:1 on white: mixed toward the text, 4.5:1 at least) */
.gk-debugger .gk-message {
  color: color-mix(in srgb, var(--jp-warn-color1, #b45309) 55%,
                   var(--jp-ui-font-color1, #1f1f29)); }
.gk-debugger .gk-status, .gk-debugger .gk-message {
  white-space: normal; overflow-wrap: anywhere; height: auto; line-height: 1.4; }
.gk-debugger .gk-legend { font-size: 12px; color: var(--jp-ui-font-color1, #1f1f29); }
.gk-debugger .gk-state, .gk-debugger .gk-why, .gk-debugger .gk-reveal { max-width: 100%;
  overflow-x: auto; color: var(--jp-ui-font-color1, #1f1f29); }
.gk-debugger .widget-html-content { max-width: 100%; }
.gk-debugger .gk-inspect, .gk-debugger .gk-controls { flex-wrap: wrap; }
.gk-debugger .gk-tables > .lm-TabBar { height: auto; max-height: none; min-height: 0; }
.gk-debugger .gk-tables > .lm-TabBar > .lm-TabBar-content { flex-wrap: wrap; }
.gk-debugger .gk-tables > .lm-TabBar .lm-TabBar-tab {
  flex: 1 1 0; max-width: var(--jp-widgets-horizontal-tab-width, 144px); min-width: max-content; }
[data-jp-theme-light="true"] .gk-debugger .gk-tables > .lm-TabBar
  .lm-TabBar-tab:not(.lm-mod-current):not(:hover),
[data-md-color-scheme="default"] .gk-debugger .gk-tables > .lm-TabBar
  .lm-TabBar-tab:not(.lm-mod-current):not(:hover) { color: #616161; }
[data-md-color-scheme="slate"] .gk-debugger .gk-tables > .lm-TabBar
  .lm-TabBar-tab:not(.lm-mod-current):not(:hover) { color: var(--jp-ui-font-color2); }
[data-jp-theme-light="false"] .gk-debugger .gk-tables > .lm-TabBar
  .lm-TabBar-tab:not(.lm-mod-current):not(:hover) { color: #bdbdbd; }
[data-jp-theme-light="false"] .gk-debugger .noUi-handle {
  background: #bdbdbd; border-color: #bdbdbd; }
[data-jp-theme-light="true"] .gk-debugger .noUi-handle { border-color: #616161; }
[data-md-color-scheme="slate"] .gk-debugger .noUi-handle {
  border-color: var(--jp-widgets-slider-handle-background-color); }
"""
    + STATE_CSS
    + RESUME_CSS
    + "</style>"
)


_NO_INPUT: Any = object()  # (None is an input: a run that goes on from its thread)


class Debugger:
    """Step a run phase by phase in a notebook: Plan · Execute · Update · Step ·
    Back · Run · Reset, a slider over the recorded supersteps, tables, breakpoints and
    "why did / didn't this node run". ``app`` may be a compiled LangGraph graph: the
    session converts it (``as_graphkit``).

    Back is real time travel: it restores the checkpoint the step started from (see
    ``DebugSession``). ``export_html(path)`` writes the recorded run as one standalone
    page. ``Debugger(session)`` shows a ``DebugSession`` made in code, and follows it.

    >>> from graphkit.inspect.examples import forecast_graph
    >>> debugger = Debugger(forecast_graph(), {"topic": "today", "tokens": 0})
    >>> debugger.click("step")   # what pressing Step does
    >>> debugger.phase.value, debugger.step_label.value
    ('after Update · next: Plan', 'input step')
    >>> debugger  # in a notebook, this shows the widgets  # doctest: +ELLIPSIS
    Debugger(thread=..., step=-1, phase='update', status='running')
    """

    def __init__(
        self,
        app: Any,
        input: Any = _NO_INPUT,
        config: Mapping[str, Any] | None = None,
        *,
        breakpoints: Iterable[str] = (),
        context: Any = None,
    ) -> None:
        if isinstance(app, DebugSession):  # Debugger(session): the widget on a session
            if (input, config, tuple(breakpoints), context) != (_NO_INPUT, None, (), None):
                raise TypeError(
                    "Debugger(session) shows a DebugSession as it is, with the input, "
                    "config and breakpoints it was made with: write Debugger(session), or "
                    "Debugger(app, input) for a new run."
                )
            self._show(app)
            return
        if isinstance(app, Debugger):  # (else "needs the run's input", or DebugSession's)
            raise TypeError(
                "Debugger() takes a graph and its input, or a DebugSession, got a Debugger: "
                "to show its session in a second widget, write Debugger(debugger.session)."
            )
        if input is _NO_INPUT:  # (Python said only "missing argument: 'input'")
            raise TypeError(
                "Debugger(app, input) needs the run's input, e.g. Debugger(app, {'topic': "
                "'today'}): the values the run starts from, as app.invoke takes them."
            )
        self._show(DebugSession(app, input, config, breakpoints=breakpoints, context=context))

    @classmethod
    def from_run(
        cls,
        app: Any,
        run: Run,
        config: Mapping[str, Any] | None = None,
        *,
        breakpoints: Iterable[str] = (),
        context: Any = None,
    ) -> Debugger:
        """The debugger on a recorded run, such as a thread LangGraph saved
        (``graphkit.open_langgraph_thread``): its supersteps show as already applied, and
        Step goes on from its last checkpoint, with ``context`` as the nodes'
        ``runtime.context`` (see ``DebugSession.from_run``).

        >>> from graphkit.inspect.examples import forecast_graph
        >>> app = forecast_graph()
        >>> run = app.trace({"topic": "today", "tokens": 0})
        >>> Debugger.from_run(app, run).slider.max
        3
        """
        debugger = cls.__new__(cls)
        session = DebugSession.from_run(app, run, config, breakpoints=breakpoints, context=context)
        debugger._show(session)
        return debugger

    def _show(self, session: DebugSession) -> None:
        """Build the widgets around ``session``."""
        self.session = session
        nodes = [name for name in self.session.app.spec.nodes if name != START]
        self.buttons = {name: _button(name) for name in BUTTONS}
        for name, button in self.buttons.items():
            button.on_click(self._handler(getattr(self.session, name)))
        self.step_label = W.Label().add_class("gk-step")
        self.phase = W.Label().add_class("gk-phase")
        self.status = W.Label().add_class("gk-status")
        self.message = W.Label().add_class("gk-message")
        self.graph = W.HTML().add_class("gk-graph")
        self.slider = W.IntSlider(
            min=-1, max=-1, value=-1, description="step", continuous_update=False
        ).add_class("gk-slider")
        self.slider.observe(self._slid, names="value")
        self.resume_box = ResumeBox(self.session, self._handler, self.refresh)
        self.answer, self.resume = self.resume_box.answer, self.resume_box.resume
        # A breakpoint compiled into the graph (interrupt_before/after) pauses the run
        # too, but the list showed no sign of it: it is named so beside its node.
        compiled = _compiled_breakpoints(self.session.app, nodes)
        self._breakpoint_nodes = nodes
        # (every option a (label, value) pair: ipywidgets reads a list mixing pairs and
        # names as values only, and showed the pair itself, "('tools (before, ...)', 'tools')")
        self.breakpoints = W.SelectMultiple(
            options=[(f"{n} ({compiled[n]}, compiled)" if n in compiled else n, n) for n in nodes],
            value=tuple(sorted(self.session.breakpoints)),
            description="break at",
        ).add_class("gk-breakpoints")
        self.breakpoints.observe(self._breakpoints_changed, names="value")
        self._node_options = [("(choose a node)", None), *[(n, n) for n in nodes]]
        self.node = W.Dropdown(
            options=self._node_options,
            index=0,  # else the None value shows as an empty menu
            description="why",
        ).add_class("gk-node-select")
        self.node.observe(self._node_changed, names="value")
        self.legend = W.HTML(legend_html()).add_class("gk-legend")
        self.why = W.HTML().add_class("gk-why")
        self.state = W.HTML().add_class("gk-state")
        self.predictor = PredictPanel(self.session, self._handler)
        self.tables = {kind: W.HTML().add_class(f"gk-table-{kind}") for kind in TABLES}
        self.tabs = W.Tab(children=list(self.tables.values())).add_class("gk-tables")
        self.tabs.titles = TABLES
        self.tabs.observe(self._tab_changed, names="selected_index")
        self._view: View | None = None
        self._phase_shown: tuple[int | None, str | None] | None = None
        self._updating = False
        self.widget = W.VBox(
            [
                W.HTML(_CSS),
                W.HBox(list(self.buttons.values())).add_class("gk-controls"),
                W.HBox([self.step_label, W.Label("·"), self.phase]).add_class("gk-labels"),
                self.status,
                self.message,
                self.resume_box.widget,
                self.predictor.widget,
                self.slider,
                self.legend,
                self.graph,
                self.state,
                W.HBox([self.breakpoints, W.VBox([self.node, self.why], layout=_GROW)]).add_class(
                    "gk-inspect"
                ),
                self.tabs,
            ]
        ).add_class("gk-debugger")
        self.predictor.toggle.observe(lambda _: self.refresh(), names="value")
        self.session.subscribe(self.refresh)  # whoever drives the session, this follows
        self.refresh()

    def click(self, name: str) -> None:
        """Do what pressing button ``name`` does (``"step"``, ``"back"``, ...)."""
        self.buttons[name].click()

    def refresh(self) -> View:
        """Show the session's current view in the widgets, and return it."""
        view = self.session.view()
        self._updating = True
        try:
            self.graph.value = view.svg
            self.legend.value = legend_html(has_unsaved(self.session.supersteps))
            self.step_label.value = view.step_label
            self.phase.value = view.phase_label
            self.status.value = view.status_text
            for status in ("running", "done", "interrupted", "drained", "error", "out_of_steps"):
                self.status.remove_class(f"gk-status-{status}")
            self.status.add_class(f"gk-status-{view.status}")
            # (an error the status already shows in full is not said twice)
            said = view.message and view.message in view.status_text
            self.message.value = "" if said else view.message
            self._slide_to(view)
            self.why.value = view.why_html
            self.state.value = view.state_html
            self._offer_called_tasks()
            self.node.value = self.session.selected  # code may have chosen them
            self.breakpoints.value = tuple(
                n for n in self._breakpoint_nodes if n in self.session.breakpoints
            )
            self._view = view
            self._follow_phase(view)
            self._show_table()
            self._enable(view)
            self.predictor.refresh()
        finally:
            self._updating = False
        return view

    def export_html(self, path: Any) -> Any:
        """Write the recorded run as one standalone HTML page (no kernel, no network);
        returns what was written (``Exported``: it says when the run is unfinished)."""
        return self.session.export_html(path)

    def to_html(self) -> str:
        """The recorded run as one standalone HTML page."""
        return self.session.to_html()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        view = self.session.view()
        return (
            f"Debugger(thread={self.session.thread_id!r}, step={view.step}, "
            f"phase={view.phase!r}, status={view.status!r})"
        )

    # -- wiring -------------------------------------------------------------------------

    def _handler(self, action: Callable[[], Any]) -> Callable[[Any], None]:
        # The session tells the widget when it changed (``refresh`` is its listener);
        # only an action that raised needs showing here.
        def handle(_: Any) -> None:
            try:
                action()
            except Exception as error:  # a click must never kill the widget
                self.session.message = f"{type(error).__name__}: {error}"
                self.refresh()

        return handle

    def _slide_to(self, view: View) -> None:
        """The slider counts steps as the labels do (the input step is -1)."""
        first = -1 if view.step is None or view.index is None else view.step - view.index
        # One message for the three: a browser that got a new max before the new value
        # would clamp the old one and send it back as if the learner had moved it.
        with self.slider.hold_sync(), self.slider.hold_trait_notifications():
            self.slider.min, self.slider.max = first, first + max(view.count - 1, 0)
            self.slider.value = first if view.step is None else view.step
            self.slider.disabled = view.count <= 1

    def _follow_phase(self, view: View) -> None:
        """Open the table of the phase just done (tasks, writes, changes), unless the
        learner chose another kind (state, checkpoints)."""
        shown = (view.index, view.phase)
        if shown == self._phase_shown or view.phase is None:
            return
        self._phase_shown = shown
        if TABLES[self.tabs.selected_index or 0] in _PHASE_TABLES.values():
            self.tabs.selected_index = TABLES.index(_PHASE_TABLES[view.phase])

    def _enable(self, view: View) -> None:
        over = view.next_phase is None
        guessing = self.predictor.on  # in predict mode the guess runs the phase
        for phase in ("plan", "execute", "update"):
            self.buttons[phase].disabled = guessing or view.next_phase != phase
        self.buttons["step"].disabled = self.buttons["run"].disabled = over or guessing
        self.buttons["back"].disabled = view.count == 0
        self.resume_box.refresh()

    def _show_table(self) -> None:
        # Only the open tab is built: a step stays cheap however many tables there are
        # (the checkpoints table reads the whole thread). The others wait for a click.
        if self._view is None:
            return
        kind = TABLES[self.tabs.selected_index or 0]
        for name, widget in self.tables.items():
            if name != kind:
                widget.value = ""
        self.tables[kind].value = self._view.table_html(kind)

    def _tab_changed(self, change: dict[str, Any]) -> None:
        self._show_table()

    def _slid(self, change: dict[str, Any]) -> None:
        if not self._updating:
            self._handler(lambda: self.session.goto(change["new"] - self.slider.min))(None)

    def _breakpoints_changed(self, change: dict[str, Any]) -> None:
        if not self._updating:
            self._handler(lambda: self.session.set_breakpoints(change["new"]))(None)

    def _offer_called_tasks(self) -> None:
        """The "why" menu: the graph's nodes, then each functional-API task called so far."""
        called = [(f"{name} (called)", name) for name in self.session.called()]
        options = [*self._node_options, *called]
        if list(self.node.options) != options:
            self.node.options = options

    def _node_changed(self, change: dict[str, Any]) -> None:
        if not self._updating:
            self._handler(lambda: self.session.select(change["new"]))(None)


def _compiled_breakpoints(app: Any, nodes: list[str]) -> dict[str, str]:
    """The nodes ``app`` was compiled to pause at: ``before``, ``after`` or both."""
    found: dict[str, list[str]] = {}
    for when in ("before", "after"):
        names = getattr(app, f"interrupt_{when}", ()) or ()
        names = nodes if names == "*" else [names] if isinstance(names, str) else names
        for name in names:
            found.setdefault(name, []).append(when)
    return {name: " and ".join(whens) for name, whens in found.items() if name in nodes}


def _button(name: str) -> W.Button:
    button = W.Button(description=name.capitalize(), icon=_ICONS[name], tooltip=name)
    return button.add_class(f"gk-{name}-button").add_class("gk-control")
