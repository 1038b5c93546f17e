"""A run's reading methods given the wrong kind of argument, as a notebook user types
them: each is refused at the call, naming the argument and what to write
(graphkit.diagnostics.reading), and the run answers right calls as before."""

from __future__ import annotations

import pytest

from graphkit import GraphkitWarning
from graphkit.inspect.examples import forecast_run


@pytest.fixture(scope="module")
def run():
    return forecast_run()


# -- step numbers ------------------------------------------------------------------------


def test_a_step_number_typed_as_text_is_not_called_missing(run):
    # it said "This run has no step 1; its steps are [-1, 0, 1, 2, 3]"
    with pytest.raises(TypeError) as caught:
        run.step("1")
    assert str(caught.value) == (
        "run.step(...) takes a step number, an int, got the str '1': write 1."
    )


@pytest.mark.parametrize(
    ("given", "said"),
    [
        (None, "the NoneType None (steps are numbered from -1, the input step)"),
        (True, "the bool True (steps are numbered from -1, the input step)"),
        (2.0, "the float 2.0: write 2"),
        (2.5, "the float 2.5"),
    ],
)
def test_run_step_names_what_it_got(run, given, said):
    with pytest.raises(TypeError, match=r"^run\.step") as caught:
        run.step(given)
    assert str(caught.value) == f"run.step(...) takes a step number, an int, got {said}."


def test_why_and_diff_take_step_numbers_too(run):
    # a str met `step < -1` inside why (a TypeError comparing str and int), a float a
    # range() three modules down, and True was read as step 1
    for step in ("2", 2.0, True):
        with pytest.raises(TypeError, match=r"^run.why\(node, step\) takes a step number"):
            run.why("weather", step)
    with pytest.raises(TypeError, match=r"^run.diff\(step_a, step_b\) takes a step number"):
        run.diff("1", 2)


def test_right_step_calls_answer_as_before(run):
    import numpy

    assert run.step(numpy.int64(1)) is run.step(1) is run.steps[2]
    assert run.why("weather", 2).ran and not run.why("weather", -1).ran
    with pytest.raises(KeyError, match="no step 99"):
        run.step(99)


# -- node names --------------------------------------------------------------------------


def test_why_of_a_list_of_nodes_says_to_ask_one_at_a_time(run):
    with pytest.raises(TypeError) as caught:
        run.why(["weather", "news"])
    assert str(caught.value) == (
        "run.why(node) takes one node's name, a str, got the list ['weather', 'news']: ask "
        "about each node in turn, e.g. run.why('weather'). The nodes are ['news', "
        "'planner', 'summarize', 'weather']."
    )


def test_why_of_a_node_function_names_the_node():
    from graphkit import START, StateGraph

    def shout(state: dict) -> dict:
        return {}

    app = StateGraph(dict).add_node(shout).add_edge(START, "shout").compile()
    with pytest.raises(TypeError) as caught:
        app.trace({}).why(shout)
    assert str(caught.value) == (
        "run.why(node) takes one node's name, a str, got the function shout: write "
        "'shout', the node's name, not the function itself. The nodes are ['shout']."
    )


def test_why_of_none_is_refused_as_no_name(run):
    # it said "Node None is not in this run ... pass the graph: run.why(node, graph=app)"
    said = r"^run.why\(node\) takes one node's name, a str, got the NoneType None\."
    with pytest.raises(TypeError, match=said):
        run.why(None)


def test_why_of_end_says_end_is_where_a_run_stops(run):
    with pytest.raises(ValueError) as caught:
        run.why("__end__")
    assert "END is where a run stops, not a node that runs" in str(caught.value)


# -- tables and widths ---------------------------------------------------------------------


def test_a_table_kind_that_is_no_str_is_refused_by_name(run):
    with pytest.raises(ValueError) as caught:
        run.to_frame(["tasks"])  # (it raised "unhashable type: 'list'")
    assert str(caught.value).startswith("Unknown table ['tasks']; use one of 'tasks',")


@pytest.mark.parametrize(("typed", "meant"), [("task", "tasks"), ("State", "state")])
def test_a_misspelt_table_kind_suggests_the_kind(run, typed, meant):
    with pytest.raises(ValueError) as caught:
        run.to_frame(typed)
    assert str(caught.value).endswith(f"Did you mean {meant!r}?")


@pytest.mark.parametrize("width", [0, -5])
def test_a_timeline_width_below_one_is_refused_at_the_call(run, width):
    # textwrap said "invalid width 0 (must be > 0)", from three calls down
    with pytest.raises(ValueError) as caught:
        run.timeline(width=width)
    assert str(caught.value) == (
        f"run.timeline(width=...) needs a width above 0, got {width} (width=None does not wrap)."
    )


def test_a_timeline_width_typed_as_text_is_refused_at_the_call(run):
    with pytest.raises(TypeError) as caught:
        run.timeline(width="80")
    assert str(caught.value) == (
        "run.timeline(width=...) takes a whole number of characters, got the str '80'."
    )
    assert run.timeline(width=None) == run.timeline(width=None)  # (None: one line each)


def test_a_timeline_svg_width_is_a_number_above_0(run):
    with pytest.raises(TypeError, match="takes a number of pixels, got the str 'x'"):
        run.timeline_svg(width="x")
    with pytest.raises(ValueError, match="needs a width above 0, got 0"):
        run.timeline_svg(width=0)
    svg = run.timeline_svg(width=600.0)
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" width="600')


def test_text_that_only_looks_like_a_number_is_refused_in_graphkit_s_words(run):
    # '--1' met int() inside the refusal: "invalid literal for int() with base 10"
    with pytest.raises(TypeError) as caught:
        run.step("--1")
    assert str(caught.value) == "run.step(...) takes a step number, an int, got the str '--1'."


def test_a_width_from_numpy_is_a_right_call(run):
    """A width worked out with NumPy (np.int64, np.float32) drew as before the checks:
    they refused it as no int or float."""
    numpy = pytest.importorskip("numpy")
    assert run.timeline(width=numpy.int64(60)) == run.timeline(width=60)
    assert run.timeline_svg(width=numpy.int64(600)) == run.timeline_svg(width=600)
    assert run.timeline_svg(width=numpy.float32(600.0)).startswith(
        '<svg xmlns="http://www.w3.org/2000/svg" width="600'
    )
    with pytest.raises(TypeError, match="whole number of characters, got the float64"):
        run.timeline(width=numpy.float64(60.5))


# -- the graph a why is asked with ---------------------------------------------------------


def _never_run():
    from graphkit import START, StateGraph

    builder = StateGraph(dict).add_node("a", lambda state: {}).add_node("never", lambda s: {})
    return builder, builder.add_edge(START, "a")


@pytest.mark.parametrize("graph", [42, "app"])
def test_why_with_a_graph_that_is_no_graph_is_refused(graph):
    # it was ignored, and the answer then said "pass the graph: run.why(node, graph=app)"
    builder, _ = _never_run()
    with pytest.warns(GraphkitWarning):  # (nothing leads to 'never')
        run = builder.compile().trace({})
    with pytest.raises(TypeError) as caught:
        run.why("never", graph=graph)
    assert str(caught.value) == (
        f"run.why(node, graph=...) takes the compiled graph the run ran, got the "
        f"{type(graph).__name__} {graph!r}: pass graph=app."
    )


def test_why_with_the_builder_says_to_compile_it():
    # it raised "'NodeDeclaration' object has no attribute 'triggers'" from inside
    builder, _ = _never_run()
    with pytest.warns(GraphkitWarning):
        app = builder.compile()
    with pytest.raises(TypeError, match=r"got the StateGraph: pass graph=builder\.compile\(\)\.$"):
        app.trace({}).why("never", graph=builder)
    assert not app.trace({}).why("never", graph=app).ran


def test_print_of_a_run_of_one_step_says_superstep():
    # a stepper's run after its first Plan printed "1 supersteps, running"
    from graphkit.inspect.examples import forecast_graph

    stepper = forecast_graph().stepper({"topic": "today", "tokens": 0})
    stepper.plan()
    assert str(stepper.run_so_far).splitlines()[0] == "1 superstep, running"
