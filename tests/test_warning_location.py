"""A GraphkitWarning points at the user's line (their compile/invoke), never into
graphkit's own files: a learner reading the warning sees where *their* call was."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import TypedDict

from graphkit import START, Send, StateGraph


class State(TypedDict):
    text: str


def _caught(action):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return caught


def test_a_compile_warning_points_at_the_compile_call():
    builder = StateGraph(State)
    builder.add_node("text", lambda s: {})  # same name as a state key: a warning
    builder.add_edge(START, "text")
    [warning] = _caught(builder.compile)
    assert warning.filename == __file__, warning.filename
    assert "same name as a state key" in str(warning.message)


def test_a_runtime_warning_points_at_the_invoke_call():
    builder = StateGraph(State)
    builder.add_node("fan", lambda s: {})
    builder.add_node("work", lambda s: {})
    builder.add_edge(START, "fan")
    builder.add_conditional_edges("fan", lambda s: [Send("nope", {})], ["work"])
    app = builder.compile()
    caught = _caught(lambda: app.invoke({"text": "t"}))
    assert [w.filename for w in caught] == [__file__], [str(w.message) for w in caught]
    assert "a Send targets 'nope'" in str(caught[0].message)


def test_a_shown_warning_is_wrapped_at_words_on_lines_of_its_own(capsys):
    # JupyterLab broke the one long stderr line mid-word ("r / eturned"); what the
    # warning records (str(), a filter's regex) stays as given
    builder = StateGraph(State)
    builder.add_node("triage", lambda s: {})
    builder.add_node("billing", lambda s: {})
    builder.add_edge(START, "triage")
    builder.add_conditional_edges("triage", lambda s: "Billing")
    app = builder.compile()
    shown = warnings.formatwarning
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = _to_stderr  # (not pytest's record: shown, as in a notebook)
        app.invoke({"text": "t"})
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == f"{__file__}:{_line_of('app.invoke')}: GraphkitWarning:"
    assert lines[1].startswith("Step 1: the router or Command(goto=...) of 'triage' returned")
    assert lines[-1] == '  app.invoke({"text": "t"})'
    assert all(len(line) <= 80 for line in lines[1:-1]), lines
    assert " ".join(lines[1:-1]) == str(_caught(lambda: app.invoke({"text": "t"}))[0].message)
    assert warnings.formatwarning is shown  # (only while graphkit warns)


def _to_stderr(message, category, filename, lineno, file=None, line=None):
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def _line_of(text: str) -> int:
    source = Path(__file__).read_text().splitlines()
    return next(n for n, line in enumerate(source, 1) if line.strip().startswith(text))
