"""The ipywidgets Debugger without a browser: buttons drive the session, widgets follow."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

from graphkit.widgets import Debugger
from tests.widgets.graphs import asking_app, chain_app, failing_app

INPUT = {"n": 1, "log": []}


def test_buttons_step_through_the_phases():
    debugger = Debugger(chain_app(), INPUT)
    assert debugger.buttons["plan"].disabled is False
    assert debugger.buttons["execute"].disabled is True
    debugger.click("plan")
    assert debugger.phase.value == "after Plan · next: Execute"
    assert debugger.buttons["plan"].disabled and not debugger.buttons["execute"].disabled
    debugger.click("execute")
    debugger.click("update")
    debugger.click("step")
    assert (debugger.step_label.value, debugger.slider.max) == ("step 0", 0)  # step numbers
    debugger.click("back")
    assert debugger.step_label.value == "input step"


def test_every_widget_has_its_class():
    debugger = Debugger(chain_app(), INPUT)
    classes = {name: button._dom_classes for name, button in debugger.buttons.items()}
    assert all(f"gk-{name}-button" in dom for name, dom in classes.items())
    for widget, name in [
        (debugger.graph, "gk-graph"),
        (debugger.phase, "gk-phase"),
        (debugger.step_label, "gk-step"),
        (debugger.slider, "gk-slider"),
        (debugger.breakpoints, "gk-breakpoints"),
        (debugger.node, "gk-node-select"),
        (debugger.tabs, "gk-tables"),
        (debugger.widget, "gk-debugger"),
    ]:
        assert name in widget._dom_classes


def test_a_compiled_breakpoint_is_named_in_the_breakpoints_list():
    """A graph compiled with interrupt_before=["c"] pauses before c, but the "break at"
    list showed c like any other node: nothing said where the pause came from."""
    app = chain_app()
    app.interrupt_before, app.interrupt_after = ("c",), "*"
    debugger = Debugger(app, INPUT)
    assert dict(debugger.breakpoints.options) == {
        "a (after, compiled)": "a",
        "b (after, compiled)": "b",
        "c (before and after, compiled)": "c",
    }
    assert dict(Debugger(chain_app(), INPUT).breakpoints.options) == {"a": "a", "b": "b", "c": "c"}
    debugger.breakpoints.value = ("b",)  # a breakpoint of the session's own still works
    assert debugger.session.breakpoints == {"b"}
    debugger.refresh()
    assert debugger.breakpoints.value == ("b",)


def test_a_compiled_breakpoint_on_some_nodes_reads_as_its_name():
    """interrupt_before=["tools"] (a ReAct agent's) gave the list a pair among names,
    which ipywidgets took for one value: the list read ('tools (before, compiled)', 'tools')
    and ticking it made the tuple a breakpoint."""
    app = chain_app()
    app.interrupt_before = ("c",)
    debugger = Debugger(app, INPUT)
    # (the labels the browser shows)
    assert debugger.breakpoints._options_labels == ("a", "b", "c (before, compiled)")
    debugger.breakpoints.value = ("c",)
    assert debugger.session.breakpoints == {"c"}


def test_slider_breakpoints_and_why():
    debugger = Debugger(chain_app(), INPUT)
    debugger.breakpoints.value = ("c",)
    debugger.click("run")
    assert debugger.message.value == "Breakpoint: step 3 would run c."
    debugger.slider.value = 0  # the slider counts steps: 0 is step 0
    assert debugger.phase.value == "after Update · looking back"
    debugger.node.value = "a"
    assert "a did not run at step 0" in debugger.why.value
    debugger.click("run")
    assert debugger.status.value.startswith("done")
    assert debugger.buttons["step"].disabled and debugger.buttons["run"].disabled


def test_errors_and_interrupts_show_in_the_widget():
    debugger = Debugger(failing_app(), INPUT)
    debugger.click("run")
    assert debugger.status.value.startswith("error in node 'broken'")
    assert 'planned error"' in debugger.graph.value
    asking = Debugger(asking_app(), {"n": 1})
    asking.click("run")
    assert asking.resume.layout.display is None
    asking.answer.value = "yes"
    asking.resume.click()
    asking.click("run")
    assert asking.session.values == {"n": 20, "answer": "yes"}
    assert asking.resume.layout.display == "none"


def test_resume_with_an_empty_answer_box_is_refused_and_the_box_stays():
    # it resumed with '' and the box went away: a click before typing was an answer
    asking = Debugger(asking_app(), {"n": 1})
    asking.click("run")
    for empty in ("", "   "):
        asking.answer.value = empty
        asking.resume.click()
        assert asking.session.status == "interrupted"
        assert asking.resume.layout.display is None and asking.answer.layout.display is None
        assert asking.message.value.startswith("Type an answer first: Resume passes it")
        assert 'For an empty answer, type "".' in asking.message.value
    asking.answer.value = '""'  # the empty string, typed on purpose
    asking.resume.click()
    asking.click("run")
    assert asking.session.values == {"n": 20, "answer": ""}


def test_an_answer_typed_in_quotes_is_the_string_inside_them():
    # the message's 'type ""' invites the Python habit: "yes" resumed with '"yes"', and
    # lesson 08's approve (answer == "yes") did not send the mail, without a word
    asking = Debugger(asking_app(), {"n": 1})
    asking.click("run")
    asking.answer.value = '"yes"'
    asking.resume.click()
    assert "Resumed with 'yes'" in asking.session.message
    asking.click("run")
    assert asking.session.values == {"n": 20, "answer": "yes"}


@pytest.mark.parametrize(
    ("typed", "answer"),
    [('"a" "b"', "ab"), ('"\\u00e9"', "é"), ('"it\\"s"', 'it"s'), ('"', '"'), ("b'x'", "b'x'")],
)
def test_an_answer_typed_as_a_string_literal_is_the_string_python_reads(typed, answer):
    # its first and last quote dropped, '"a" "b"' was 'a" "b' and '"\u00e9"' kept the
    # backslash: a string literal is read as Python reads it, other text kept as typed
    asking = Debugger(asking_app(), {"n": 1})
    asking.click("run")
    asking.answer.value = typed
    asking.resume.click()
    asking.click("run")
    assert asking.session.values == {"n": 20, "answer": answer}


def test_an_answer_with_an_invalid_escape_is_read_without_a_warning():
    # ast.literal_eval warned of the \d (a SyntaxWarning from Python 3.12) under the
    # debugger's cell, and under -W error kept the quotes: the answer hung on the filters
    asking = Debugger(asking_app(), {"n": 1})
    asking.click("run")
    asking.answer.value = '"C:\\data"'
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        asking.resume.click()
    asking.click("run")
    assert [str(warning.message) for warning in said] == []
    assert asking.session.values == {"n": 20, "answer": "C:\\data"}


def test_an_error_is_said_once_and_wraps_instead_of_being_cut():
    debugger = Debugger(failing_app(), INPUT)
    debugger.click("run")
    assert "ValueError: boom" in debugger.status.value
    assert debugger.session.message.startswith("ValueError: boom")  # the session keeps it
    assert debugger.message.value == ""  # the widget does not repeat the status
    debugger.click("back")
    assert debugger.message.value.startswith("Back: ")
    css = debugger.widget.children[0].value
    assert ".gk-debugger .gk-status, .gk-debugger .gk-message {" in css
    assert "white-space: normal;" in css.split(".gk-debugger .gk-status, ")[1]


def test_display_delegates_to_the_widget():
    debugger = Debugger(chain_app(), INPUT)
    bundle = debugger._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_ipywidgets_is_imported_only_for_the_widget():
    code = (
        "import sys, graphkit, graphkit.widgets\n"
        "assert 'ipywidgets' not in sys.modules, 'graphkit.widgets imported ipywidgets'\n"
        "from graphkit.widgets import Debugger\n"
        "assert 'ipywidgets' in sys.modules\n"
    )
    check = "import sys, graphkit; assert 'graphkit.widgets' not in sys.modules"
    for source in (code, check):
        subprocess.run([sys.executable, "-c", source], check=True)


def test_only_the_open_table_is_built_and_a_tab_click_builds_its_own():
    debugger = Debugger(chain_app(), INPUT)
    debugger.click("step")
    debugger.click("step")  # a whole step ends after Update: its changes tab is open
    assert "<table" in debugger.tables["changes"].value
    assert debugger.tables["state"].value == debugger.tables["checkpoints"].value == ""
    debugger.tabs.selected_index = list(debugger.tables).index("checkpoints")
    assert "<table" in debugger.tables["checkpoints"].value
    assert debugger.tables["changes"].value == ""
    debugger.click("step")  # stepping keeps the open tab, now showing the new step
    assert "<table" in debugger.tables["checkpoints"].value


def test_a_thread_langgraph_saved_opens_in_the_widget():
    """``Debugger.from_run``: the widget on an imported thread, its steps already applied;
    the slider looks back at them and Step goes on from the last checkpoint."""
    import pytest

    pytest.importorskip("langgraph")
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph

    from graphkit import open_langgraph_thread
    from tests.widgets.graphs import State

    builder = StateGraph(State).add_node("a", lambda state: {"n": state["n"] + 1})
    builder = builder.add_node("b", lambda state: {"log": ["b"]}).add_edge(START, "a")
    app = builder.add_edge("a", "b").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke(INPUT, config, interrupt_before=["b"])
    debugger = Debugger.from_run(app, open_langgraph_thread(app, config), config)
    assert (debugger.slider.max, debugger.step_label.value) == (1, "step 1")
    debugger.slider.value = 0
    assert debugger.step_label.value.startswith("step 0")
    debugger.click("run")
    assert debugger.session.status == "done" and debugger.session.values["log"] == ["b"]


def test_a_langgraph_thread_given_as_a_config_is_refused_with_the_way_to_open_it():
    import pytest

    pytest.importorskip("langgraph")
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph

    from tests.widgets.graphs import State

    builder = StateGraph(State).add_node("a", lambda state: {"n": state["n"] + 1})
    app = builder.add_edge(START, "a").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke(INPUT, config)
    with pytest.raises(ValueError, match=r"Thread 't' was saved by LangGraph.*Debugger\.from_run"):
        Debugger(app, None, config)
    assert Debugger(app, INPUT, config).session.status == "running"  # a new run: fine
    # the same thread written beside configurable, as LangGraph's runs take it (it said
    # "Received no input and there is nothing to resume")
    with pytest.raises(ValueError, match=r"Thread 't' was saved by LangGraph.*Debugger\.from_run"):
        Debugger(app, None, {"thread_id": "t"})


def test_the_legend_keys_writes_not_saved_only_where_a_task_can_have_them(tmp_path):
    """Lessons 08 and 10 and the debugger tour showed "writes not saved" in the key of a
    run made in the notebook, where no task's writes can be unsaved (only a thread read
    from LangGraph's saver, whose process ended, has such a task): a key for nothing on
    the page. The debugger and its exported page key it only when a task has it."""
    debugger = Debugger(chain_app(), INPUT)
    debugger.session.run()
    legend = _legend(debugger)
    assert "writes not saved" not in legend.value and "not-saved" not in legend.value
    assert "ran, wrote nothing" in legend.value and "error" in legend.value
    page = debugger.session.export_html(tmp_path / "run.html").path.read_text()
    assert "writes not saved" not in page and "ran, wrote nothing" in page


def _legend(debugger: Debugger):
    return next(w for w in debugger.widget.children if "gk-legend" in w._dom_classes)


def _contrast(colour: str, ground: str) -> float:
    def luminance(hex_colour: str) -> float:
        channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(colour), luminance(ground)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_interrupted_status_reads_on_a_light_and_a_dark_ground():
    """The interrupted status line (lesson 08) was the palette's #cc79a7 on white: 3.1:1,
    under WCAG's 4.5:1 for text. Each theme's rule must clear 4.5:1 on its ground."""
    import re

    from graphkit.widgets.debugger import _CSS
    from graphkit.widgets.export import _CSS as PAGE_CSS

    light = re.search(r"\n\.gk-debugger \.gk-status-interrupted[^{]*\{\s*color: (#\w{6})", _CSS)
    dark = re.search(r'\[data-jp-theme-light="false"\][^{]*\{ color: (#\w{6})', _CSS)
    slate = re.search(r'\[data-md-color-scheme="slate"\][^{]*\{ color: (#\w{6})', _CSS)
    exported = re.search(r"\.gk-status\.interrupted \{ color: (#\w{6})", PAGE_CSS)
    assert light and dark and slate and exported
    assert _contrast(light.group(1), "#ffffff") >= 4.5
    assert _contrast(exported.group(1), "#ffffff") >= 4.5
    for rule in (dark, slate):
        assert _contrast(rule.group(1), "#1e2129") >= 4.5  # (the site's slate ground)
        assert _contrast(rule.group(1), "#111111") >= 4.5  # (Lab's dark ground)


def test_unselected_tabs_read_on_a_light_ground():
    """An unselected tab's label was the widgets' grey (black at 54%) on the bar's
    #eeeeee: 4.43:1, under WCAG's 4.5:1. A light theme (JupyterLab's, the site's) gives it
    a colour that clears 4.5:1 on the bar and on a hovered tab's white; a dark one keeps its
    own (no rule names it)."""
    import re

    from graphkit.widgets.debugger import _CSS

    rule = re.search(
        r'\[data-jp-theme-light="true"\][^{]*lm-TabBar-tab:not\(\.lm-mod-current\)'
        r'[^{]*\[data-md-color-scheme="default"\][^{]*\{ color: (#\w{6})',
        _CSS,
    )
    assert rule, "no light-theme colour for the unselected tabs"
    assert _contrast(rule.group(1), "#eeeeee") >= 4.5  # (the tab bar's ground)
    assert _contrast(rule.group(1), "#ffffff") >= 4.5
    # (the site's notebook says data-jp-theme-light="true" in its dark scheme too)
    slate = re.search(
        r'\[data-md-color-scheme="slate"\][^{]*lm-TabBar-tab[^{]*\{ color: ([^;]+);', _CSS
    )
    assert slate and slate.group(1) == "var(--jp-ui-font-color2)"
    assert _CSS.index(slate.group(0)) > _CSS.index(rule.group(0))


def test_unselected_tabs_read_on_a_dark_ground():
    """In JupyterLab's dark theme an unselected tab's label was white at 54% on the bar's
    #424242: 4.23:1, under WCAG's 4.5:1. The dark theme gives it a grey that clears 4.5:1
    there; the open tab and a hovered one keep their own (the rule leaves them out)."""
    import re

    from graphkit.widgets.debugger import _CSS

    rule = re.search(
        r'\[data-jp-theme-light="false"\][^{]*'
        r"lm-TabBar-tab:not\(\.lm-mod-current\):not\(:hover\) \{ color: (#\w{6})",
        _CSS,
    )
    assert rule, "no dark-theme colour for the unselected tabs"
    assert _contrast(rule.group(1), "#424242") >= 4.5  # (the tab bar's ground)


def test_the_slider_knob_has_a_rim_on_a_light_ground():
    """The widgets paint the knob #fff with a #d9d9d9 rim: on a light theme's white page
    1.0:1 and 1.41:1, under the 3:1 WCAG 1.4.11 asks of a control. A light theme gives it
    a rim that clears 3:1 on the page and on the #bdbdbd track; the site's slate (whose
    notebook says light too) keeps its own, restored by a later rule."""
    import re

    from graphkit.widgets.debugger import _CSS

    rule = re.search(
        r'\[data-jp-theme-light="true"\] \.gk-debugger \.noUi-handle \{ border-color: (#\w{6})',
        _CSS,
    )
    assert rule, "no light-theme rim for the slider's knob"
    assert _contrast(rule.group(1), "#ffffff") >= 3  # (the page)
    assert _contrast(rule.group(1), "#bdbdbd") >= 3  # (the track)
    slate = re.search(r'\[data-md-color-scheme="slate"\] \.gk-debugger \.noUi-handle \{', _CSS)
    assert slate and _CSS.index(slate.group(0)) > _CSS.index(rule.group(0))


def test_the_breakpoint_message_reads_at_4_5_in_every_theme():
    # (axe-core under Voila: "Breakpoint: step 3 would run summarize." was JupyterLab's
    # warning orange #f57c00 at 2.7:1 on white)
    import re

    from graphkit.widgets.debugger import _CSS
    from tests.inspect.test_markup import THEMES, _contrast

    found = re.search(r"\.gk-debugger \.gk-message \{\s*color: (.*?); \}", _CSS, re.S)
    colour = " ".join(found.group(1).split())
    warn = {"light": (245, 124, 0, 1), "dark": (255, 152, 0, 1)}  # Lab's --jp-warn-color1
    ui = {"light": (0, 0, 0, 0.87), "dark": (255, 255, 255, 0.87)}  # --jp-ui-font-color1
    for name, theme in THEMES.items():
        theme = dict(theme)
        if name in warn:
            theme |= {"--jp-warn-color1": warn[name], "--jp-ui-font-color1": ui[name]}
        ratio = _contrast(colour, "var(--jp-layout-color0, #ffffff)", theme)
        assert ratio >= 4.5, (name, colour, round(ratio, 2))


def test_a_debugger_shows_a_session_made_in_code():
    """Appendix A1 calls the widget "a thin face on DebugSession"; a learner who made
    ``quiz = DebugSession(...)`` and wrote ``Debugger(quiz)`` was told a positional
    argument 'input' was missing, then (given one) to call ``.compile()`` on it."""
    from graphkit.widgets import DebugSession

    quiz = DebugSession(chain_app(), INPUT)
    quiz.step()
    debugger = Debugger(quiz)
    assert debugger.session is quiz and debugger.step_label.value == "input step"
    quiz.step()  # the widget follows the session it shows
    assert debugger.step_label.value == "step 0"
    with pytest.raises(TypeError) as caught:
        Debugger(quiz, INPUT)
    assert str(caught.value) == (
        "Debugger(session) shows a DebugSession as it is, with the input, config and "
        "breakpoints it was made with: write Debugger(session), or Debugger(app, input) "
        "for a new run."
    )
    with pytest.raises(TypeError) as caught:
        Debugger(chain_app())
    assert str(caught.value) == (
        "Debugger(app, input) needs the run's input, e.g. Debugger(app, {'topic': "
        "'today'}): the values the run starts from, as app.invoke takes them."
    )
    with pytest.raises(TypeError, match=r"got a Debugger .*its session is debugger\.session"):
        DebugSession(debugger, INPUT)


def test_a_debugger_given_a_debugger_is_told_to_pass_its_session():
    """review11: ``Debugger(debugger)`` was told it needs the run's input, and
    ``Debugger(debugger, input)`` that "DebugSession() takes a graph"; the call was
    Debugger's, and what it can show is the debugger's session."""
    first = Debugger(chain_app(), INPUT)
    said = (
        "Debugger() takes a graph and its input, or a DebugSession, got a Debugger: to "
        "show its session in a second widget, write Debugger(debugger.session)."
    )
    for call in (lambda: Debugger(first), lambda: Debugger(first, INPUT)):
        with pytest.raises(TypeError) as caught:
            call()
        assert str(caught.value) == said
    assert Debugger(first.session).session is first.session
