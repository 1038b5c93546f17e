"""The exercise-check framework: verdicts, Wrong, and the learner's failures."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from graphkit import END, START, Send, StateGraph
from graphkit.course import Verdict, Wrong, compiled, exercise, ran_at, trace


@exercise("0.1 · Double it")
def check_double(function) -> str:
    if function(2) != 4:
        raise Wrong(f"double(2) gave {function(2)!r}, not 4.", hint="Multiply by two.")
    return "double works."


def test_a_right_answer_passes_with_praise():
    verdict = check_double(lambda x: x * 2)
    assert verdict and verdict.passed and verdict.message == "double works."
    assert repr(verdict) == "✓ 0.1 · Double it: double works."
    assert "gk-verdict-pass" in verdict._repr_html_()


def test_a_wrong_answer_says_what_and_hints():
    verdict = check_double(lambda x: x + 1)
    assert not verdict
    assert verdict.message == "double(2) gave 3, not 4." and verdict.hint == "Multiply by two."
    html = verdict._repr_html_()
    assert "gk-verdict-fail" in html and "Hint:" in html


def test_the_learners_exception_becomes_a_failed_verdict_not_a_traceback():
    def broken(x):
        raise KeyError("oops")

    verdict = check_double(broken)
    assert not verdict.passed
    assert verdict.message == "Your code raised KeyError: 'oops'"
    assert "fix it" in verdict.hint


def test_the_verdict_html_escapes_the_learners_text():
    html = Verdict("<t>", False, "<script>x</script>", "a<b")._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html and "a&lt;b" in html


def test_compiled_accepts_a_builder_an_app_or_a_function_and_refuses_the_rest():
    class S(TypedDict):
        n: int

    builder = StateGraph(S)
    builder.add_node("inc", lambda s: {"n": s["n"] + 1})
    builder.add_edge(START, "inc")
    app = builder.compile()
    assert compiled(app) is app
    for answer in (builder, lambda: builder, lambda: app):
        assert compiled(answer).invoke({"n": 1}) == {"n": 2}
    try:
        compiled(42)
    except Wrong as wrong:
        assert "got int" in wrong.message
    else:
        raise AssertionError("compiled(42) should be Wrong")


def test_compiled_names_a_langgraph_graph_and_the_import_to_change():
    # A learner who copies "from langgraph.graph import StateGraph" from a tutorial read
    # "Expected your graph to be a StateGraph or a compiled graph, got StateGraph."
    from langgraph.graph import START as LANGGRAPH_START
    from langgraph.graph import StateGraph as LangGraphStateGraph

    class S(TypedDict):
        n: int

    builder = LangGraphStateGraph(S)
    builder.add_node("inc", lambda s: {"n": s["n"] + 1})
    builder.add_edge(LANGGRAPH_START, "inc")
    for answer, name in (
        (builder, "StateGraph"),
        (lambda: builder.compile(), "CompiledStateGraph"),
    ):
        try:
            compiled(answer, "build_agent()")
        except Wrong as wrong:
            assert wrong.message == (
                f"Got LangGraph's {name} (from langgraph.graph.state) as build_agent(): the "
                "checks read the records graphkit makes of a run."
            )
            assert "from graphkit import StateGraph, START, END" in wrong.hint
        else:
            raise AssertionError("a LangGraph graph should be Wrong")


def test_trace_names_the_step_and_node_that_failed():
    class S(TypedDict):
        n: Annotated[int, operator.add]

    def boom(state):
        raise ValueError("no luck")

    builder = StateGraph(S)
    builder.add_node("boom", boom)
    builder.add_edge(START, "boom")
    try:
        trace(builder.compile(), {"n": 1})
    except Wrong as wrong:
        assert "ValueError in step 1 (node boom): no luck" in wrong.message
    else:
        raise AssertionError("a failing graph should be Wrong")


def test_a_failed_run_hints_at_tracing_only_when_the_message_gives_no_lead():
    class S(TypedDict):
        n: int

    def named(state):
        return {"n": int("x")}

    hints = []
    for node in (named, lambda state: {"n": int("x")}):
        builder = StateGraph(S).add_node("convert", node).add_edge(START, "convert")
        try:
            trace(builder.compile(), {"n": 1})
        except Wrong as wrong:
            hints.append(wrong.hint)
    # raised in the learner's function, named in the message: nothing to add; raised
    # in a lambda (no name to give), the records are where to look
    assert hints == ["", "Run it yourself with app.trace(...) and look at the last superstep."]


class Pair(TypedDict, total=False):
    a: int
    b: int


def test_python_s_own_error_in_graphkit_s_code_keeps_the_hint():
    # Only a raise of graphkit's says the fix: a waiting edge for a list inside the list
    # fails with "unhashable type: 'list'" inside graphkit, and lost "Run your answer on
    # its own" (add_edge(START, ["a", "b"]) did too, before graphkit named it).
    @exercise("0.2 · Build it")
    def check_build(build) -> str:
        compiled(build)
        return "built."

    def nested():
        builder = StateGraph(Pair).add_node("a", lambda state: {}).add_node("b", len)
        return builder.add_edge(["a", ["b"]], END)

    verdict = check_build(nested)
    assert verdict.message == "Your code raised TypeError: unhashable type: 'list'"
    assert verdict.hint.startswith("Run your answer on its own in a cell")

    def two_targets():
        builder = StateGraph(Pair).add_node("a", lambda state: {}).add_node("b", len)
        return builder.add_edge(START, ["a", "b"])

    two = check_build(two_targets)
    assert two.message.startswith("Your code raised TypeError: add_edge(START, ['a', 'b'])")
    assert two.hint == ""  # graphkit's own sentence says the fix
    duplicate = check_build(
        lambda: StateGraph(Pair).add_node("a", lambda state: {}).add_node("a", len)
    )
    assert duplicate.message.startswith("Your code raised ValueError: Node 'a' already present")
    assert duplicate.hint == ""  # graphkit's own sentence says the fix


def _wrong_of(builder) -> str:
    try:
        trace(builder.compile(), {})
    except Wrong as wrong:
        return wrong.message
    raise AssertionError("a failing graph should be Wrong")


def test_a_lambda_that_raised_is_known_by_its_node_or_router():
    """A lambda's code is named "<lambda>": the verdict names its node (or its node's
    router) instead, as the learner knows it."""
    builder = StateGraph(Pair).add_node("first", lambda s: {"a": 1})
    builder.add_node("second", lambda s: {"b": s["b"] + 1})
    message = _wrong_of(builder.add_edge(START, "first").add_edge("first", "second"))
    assert "(node second): 'b'" in message and "second read state['b']" in message
    assert "<lambda>" not in message

    builder = StateGraph(Pair).add_node("first", lambda s: {"a": 1})
    builder.add_node("second", lambda s: {"b": 1}).add_edge(START, "first")
    builder.add_conditional_edges("first", lambda s: s["b"], ["second"])
    message = _wrong_of(builder)
    assert "the router of first read state['b']" in message and "<lambda>" not in message


def test_a_lambda_router_from_start_is_named_as_such_and_told_to_read_the_input():
    """START's task is no node the learner added, and no node runs before it: the
    verdict names "the router from START" and says the input must give the key."""
    builder = StateGraph(Pair).add_node("first", lambda s: {"a": 1})
    builder.add_conditional_edges(START, lambda s: s["b"], ["first"])
    try:
        trace(builder.compile(), {})
    except Wrong as wrong:
        assert "the router from START read state['b']" in wrong.message
        assert "give 'b' in the input" in wrong.hint and "before __start__" not in wrong.hint
    else:
        raise AssertionError("a failing graph should be Wrong")


def test_backticks_in_a_verdict_show_as_code_and_stay_escaped():
    html = Verdict("9.1 · Wake up `report`", False, "`<b>` is `x`", "use `a<b`")._repr_html_()
    assert "Wake up <code>report</code>" in html
    assert "<code>&lt;b&gt;</code> is <code>x</code>" in html
    assert "<code>a&lt;b</code>" in html and "`" not in html


def test_an_answer_that_never_finishes_fails_once_the_time_limit_passes(monkeypatch):
    import signal

    import graphkit.course.checking as checking

    monkeypatch.setattr(checking, "TIME_LIMIT", 0.2)

    def forever(x):
        while True:
            x += 1

    verdict = check_double(forever)
    assert not verdict.passed
    assert verdict.message.startswith("Your code was still running after 0.2 seconds")
    assert "loop that never ends" in verdict.hint
    # the alarm is put back as it was: a later check runs unlimited by this one
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
    assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL
    assert check_double(lambda x: x * 2).passed


def test_a_graph_whose_node_never_finishes_fails_the_check_and_not_as_a_node_error(monkeypatch):
    import graphkit.course.checking as checking

    monkeypatch.setattr(checking, "TIME_LIMIT", 0.2)

    class Count(TypedDict):
        n: int

    def spin(state: Count) -> dict:
        while True:
            state = dict(state)

    @exercise("0.3 · Count once")
    def check_count(builder) -> str:
        run = trace(compiled(builder), {"n": 0})
        return f"ran {len(run.steps)} steps"

    builder = StateGraph(Count).add_node("spin", spin).add_edge(START, "spin")
    verdict = check_count(builder)
    assert not verdict.passed and "still running after 0.2 seconds" in verdict.message


def test_the_time_limit_stops_a_node_running_on_the_pool_too(monkeypatch):
    """A node beside another runs on graphkit's worker threads, where the alarm (the main
    thread's) does not reach: the check returned, but the loop kept a core busy (and a
    pool thread taken) until the kernel restarted."""
    import threading

    import graphkit.course.checking as checking

    monkeypatch.setattr(checking, "TIME_LIMIT", 0.2)
    ended: list[str] = []
    release = threading.Event()  # (ends the loop if the check could not)

    class Tally(TypedDict):
        seen: Annotated[list, operator.add]

    def spin(state: Tally) -> dict:
        try:
            while not release.is_set():
                pass
        except BaseException as error:
            ended.append(type(error).__name__)
            raise
        return {"seen": ["spin"]}

    @exercise("0.4 · Fan out")
    def check_fan_out(builder) -> str:
        trace(compiled(builder), {"seen": []})
        return "done"

    builder = StateGraph(Tally).add_node("spin", spin).add_node("ok", lambda s: {"seen": ["ok"]})
    builder.add_edge(START, "spin").add_edge(START, "ok")
    try:
        verdict = check_fan_out(builder)
        for _ in range(100):
            if ended:
                break
            threading.Event().wait(0.05)
    finally:
        release.set()
    assert not verdict.passed and "still running after 0.2 seconds" in verdict.message
    assert ended == ["_OutOfTime"]


def test_a_run_out_of_steps_is_said_to_stop_after_its_last_step():
    # The limit is checked when the next step is planned: the run's last step finished,
    # and "in step 5" beside the error's "Step 6 was about to run" read as a contradiction.
    class Loop(TypedDict):
        n: Annotated[int, operator.add]

    builder = StateGraph(Loop).add_node("again", lambda state: {"n": 1})
    builder.add_edge(START, "again").add_conditional_edges("again", lambda s: "again", ["again"])
    try:
        trace(builder.compile(), {"n": 0}, {"recursion_limit": 5})
    except Wrong as wrong:
        said = "Running your graph raised GraphRecursionError after step 5:"
        assert wrong.message.startswith(said)
        assert "Step 6 was about to run ['again']" in wrong.message
    else:
        raise AssertionError("a run past its recursion limit should be Wrong")


def test_ran_at_lists_each_step_a_node_ran_at_once():
    class Batch(TypedDict, total=False):
        items: list
        done: Annotated[list, operator.add]

    builder = StateGraph(Batch)
    builder.add_node("split", lambda state: {"items": [1, 2, 3]})
    builder.add_node("work", lambda packet: {"done": [packet]})
    builder.add_edge(START, "split")
    builder.add_conditional_edges("split", lambda s: [Send("work", i) for i in s["items"]])
    run = builder.compile().trace({})
    assert ran_at(run, "work") == [2] and ran_at(run, "split") == [1] and ran_at(run, "x") == []


def test_the_helpers_a_check_needs_are_exported_from_graphkit_course():
    import graphkit.course

    for name in ("counted", "failed_run", "ran_again", "ran_at"):
        assert name in graphkit.course.__all__ and hasattr(graphkit.course, name)
