"""Predict, then reveal, in the ``Debugger``: a toggle turns on predict mode, the learner
commits to a guess for the next phase, one button runs it through
``DebugSession.predict`` and the verdict appears with the score.

Before Plan the guess is which nodes the step runs (a multiple choice of the graph's
nodes, ``__start__`` included, which runs the step after the input; ``__input__`` in the
input step, whose one task it is; and "no node" for a Plan that ends the run; Reveal with
nothing chosen asks for a choice and counts nothing); after Plan or Execute it is the
value a channel holds after the Update (a channel menu and a text box, read as a Python
literal, else as a string; ``none`` is None, ``true`` and ``false`` the booleans).
While predict mode is on, the Plan, Execute, Update, Step and Run buttons are off: the
guess runs the phase. Back and Reset stay on, and the score is the session's (kept across them).
A verdict stays while the run stands where it was revealed: the next guess, a Back, a Reset
or a phase run with predict mode off clears it. Turning predict mode back on clears the
choice.
"""

from __future__ import annotations

import ast
import json
from typing import TYPE_CHECKING, Any

from graphkit.extras import require
from graphkit.pregel.stepper import INPUT_TASK
from graphkit.widgets.reveal import prediction_html
from graphkit.widgets.story import story_label

W = require("ipywidgets", extra="notebook", feature="the Debugger")

if TYPE_CHECKING:
    from graphkit.widgets.session import DebugSession

__all__ = ["PredictPanel", "parse_value"]

_WORDS = {"none": None, "true": True, "false": False}  # Python's constants, typed in any case
NO_NODE = "no node: the run ends"  # the chooser's option for an empty Plan (its value: None)
_ASK = {
    "nothing": f"Choose the nodes first (Ctrl- or ⌘-click for several), or “{NO_NODE}”; "
    "nothing was counted.",
    "both": f"“{NO_NODE}” and a node cannot both be right: choose one or the other; "
    "nothing was counted.",
}


def parse_value(text: str) -> Any:
    """The value a learner typed: a Python literal if it is one, else the text; ``none``
    in any case is None, as the prompt's "None: it has no value" means, and ``true`` /
    ``false`` in any case are the booleans (quote them for the text).

    >>> parse_value("[1, 2]"), parse_value("sunny"), parse_value(" 'x' ")
    ([1, 2], 'sunny', 'x')
    >>> parse_value("none"), parse_value("'none'"), parse_value("true"), parse_value("FALSE")
    (None, 'none', True, False)
    >>> parse_value('[true, null]'), parse_value('{"done": false}')  # JSON inside, too
    ([True, None], {'done': False})
    """
    word = text.strip().lower()
    if word in _WORDS:
        return _WORDS[word]
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    if word[:1] in ("[", "{"):  # (a list or dict written as JSON: [true], {"a": null})
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            pass
    return text.strip()


class PredictPanel:
    """The predict-mode widgets of one session; ``refresh()`` shows the chooser the
    next phase needs. Classes: ``gk-predict`` (the toggle), ``gk-predict-box``,
    ``gk-predict-prompt``, ``gk-predict-nodes``, ``gk-predict-channel``,
    ``gk-predict-value``, ``gk-predict-button``, ``gk-reveal`` (the verdict) and
    ``gk-score``."""

    def __init__(self, session: DebugSession, report: Any) -> None:
        self.session = session
        self._report = report  # the Debugger's handler: shows what a failed guess raised
        # __start__ too: it is the task of the step after the input step (the drawing's START)
        self._node_names = list(session.app.spec.nodes)
        channels = list(session.app.spec.state_keys)
        self.toggle = W.ToggleButton(
            description="Predict", icon="question", tooltip="predict, then reveal"
        ).add_class("gk-predict")
        self.score = W.Label().add_class("gk-score")
        self.prompt = W.Label().add_class("gk-predict-prompt")
        self.nodes = W.SelectMultiple(description="will run").add_class("gk-predict-nodes")
        self._offer_nodes()
        # why Reveal did not reveal (see _ASK), and where the run stood: asked until a
        # choice, or until the run moves (Back, Reset)
        self._asked: tuple[str, Any] | None = None
        self._revealed_at: Any = None  # where the run stood right after the last reveal
        self._question_at: Any = session.position  # where the run stood for the open question
        self.channel = W.Dropdown(options=channels, description="channel").add_class(
            "gk-predict-channel"
        )
        self.value = W.Text(placeholder="e.g. 3, 'sunny', ['a']", description="will hold")
        self.value.add_class("gk-predict-value")
        self.button = W.Button(description="Reveal", icon="eye").add_class("gk-predict-button")
        self.button.on_click(self._report(self._predict))
        self.reveal = W.HTML().add_class("gk-reveal")
        self.box = W.VBox(
            [self.prompt, self.nodes, W.HBox([self.channel, self.value]), self.button]
        ).add_class("gk-predict-box")
        self.widget = W.VBox([W.HBox([self.toggle, self.score]), self.box, self.reveal]).add_class(
            "gk-predict-panel"
        )
        self.toggle.observe(self._toggled, names="value")
        self.nodes.observe(self._chosen, names="value")
        self.refresh()

    @property
    def on(self) -> bool:
        """True in predict mode."""
        return bool(self.toggle.value)

    def refresh(self) -> None:
        """Show the chooser the next phase needs (or none), and the score."""
        session, channel_row = self.session, self.box.children[2]
        self.score.value = str(session.score) if session.predictions else ""
        self.box.layout.display = None if self.on else "none"
        # A verdict is about where the run stood when it was revealed: once the run moves
        # (Back, Reset, a phase run with predict mode off) it would read as this step's.
        if self._revealed_at != session.position:
            self.reveal.value, self._revealed_at = "", None
        if self._question_at != session.position:  # a new question: the last answer is not it
            self.nodes.value, self.value.value = (), ""
            self._question_at = session.position
        self.reveal.layout.display = None if self.reveal.value else "none"
        phase = session.next_phase
        guess_nodes = phase == "plan"
        guess_value = phase in ("execute", "update")
        self.nodes.layout.display = None if guess_nodes else "none"
        self.channel.layout.display = None if guess_value else "none"
        channel_row.layout.display = None if guess_value else "none"
        self.button.disabled = not (guess_nodes or guess_value)
        if not guess_nodes or (self._asked and self._asked[1] != session.position):
            self._asked = None
        if guess_nodes:
            self._offer_nodes()
        step = story_label(session, session.stepper.step_number)
        step = "the input step" if step == "input step" else step
        if guess_nodes and self._asked:
            self.prompt.value = _ASK[self._asked[0]]
        elif guess_nodes:
            self.prompt.value = f"Which nodes will {step} run? Choose them, then Reveal."
        elif guess_value:
            self.prompt.value = (
                f"What will the channel hold after the Update of {step}? "
                "(None: it has no value.) Type it, then Reveal."
            )
        else:
            self.prompt.value = f"Nothing to predict: the run is {session.status}."

    def _offer_nodes(self) -> None:
        """The graph's nodes, ``__input__`` first while the input step is next (it runs
        only there), and "no node"."""
        first = [INPUT_TASK] if self.session.stepper.at_input_step else []
        options = [*((name, name) for name in (*first, *self._node_names)), (NO_NODE, None)]
        if list(self.nodes.options) != options:  # (a new list clears the choice)
            self.nodes.options = options
            # never one row: a browser draws a one-row multiple choice as a "0 selected" menu
            self.nodes.rows = min(len(options), 7)

    def _toggled(self, change: Any) -> None:
        if change["new"]:
            # Back on, the last choice would read as a guess already made.
            self.nodes.value, self.value.value, self._asked = (), "", None
        self.refresh()

    def _chosen(self, _: Any) -> None:
        self._asked = None
        self.refresh()

    def _predict(self) -> None:
        if self.session.next_phase == "plan":
            chosen = list(self.nodes.value)
            if not chosen or (None in chosen and len(chosen) > 1):
                # a guess the learner did not make is not a wrong guess: ask, count nothing
                self._asked = ("nothing" if not chosen else "both", self.session.position)
                self.refresh()
                return
            prediction = self.session.predict(nodes=[n for n in chosen if n is not None])
        else:
            value = parse_value(self.value.value)
            prediction = self.session.predict(channel=self.channel.value, value=value)
        self.reveal.value = prediction_html(prediction)
        self._revealed_at = self.session.position
        self.refresh()
