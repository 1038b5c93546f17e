"""The exercise-check framework: verdicts, Wrong, and the learner's failures."""

from __future__ import annotations

import asyncio
import contextlib
import operator
import time
from typing import Annotated, TypedDict

import pytest

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


def test_a_failed_run_names_the_node_that_raised_not_a_sibling_cancelled_for_it():
    """When one async task raises, the step cancels the others still running: their
    CancelledError is the step's doing, and naming them sent the learner to the wrong
    node (lesson 18's check read "node forecast, heartbeat" on a fast machine)."""
    from graphkit.course.answers import failed_run

    class S(TypedDict):
        log: Annotated[list, operator.add]

    async def broken(state):
        await asyncio.sleep(0)
        raise KeyError("town")

    async def waits(state):
        await asyncio.Event().wait()  # (never set: only the cancel ends it)
        return {"log": ["never"]}

    builder = StateGraph(S).add_node("broken", broken).add_node("waits", waits)
    app = builder.add_edge(START, "broken").add_edge(START, "waits").compile()
    with pytest.raises(KeyError) as raised:
        asyncio.run(app.atrace({"log": []}))
    results = raised.value.run.steps[-1].execution.results
    assert {r.task.node: type(r.error).__name__ for r in results} == {
        "broken": "KeyError",
        "waits": "CancelledError",
    }
    assert (
        "raised KeyError in step 1 (node broken): 'town'" in failed_run(app, raised.value).message
    )


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


def test_the_environment_sets_the_time_limit_for_a_busy_machine(monkeypatch):
    """GRAPHKIT_CHECK_TIME_LIMIT replaces the 15 seconds (a loaded CI or classroom server
    ran the solutions' checks past them); a value that is no time is refused by name."""
    import graphkit.course.checking as checking

    monkeypatch.setattr(checking, "TIME_LIMIT", 60.0)
    monkeypatch.setenv("GRAPHKIT_CHECK_TIME_LIMIT", "0.2")

    def forever(x):
        while True:
            x += 1

    verdict = check_double(forever)
    assert verdict.message.startswith("Your code was still running after 0.2 seconds")
    for wrong in ("soon", "0", "-5", "nan"):
        monkeypatch.setenv("GRAPHKIT_CHECK_TIME_LIMIT", wrong)
        with pytest.raises(ValueError, match=f"GRAPHKIT_CHECK_TIME_LIMIT='{wrong}' is no"):
            check_double(lambda x: x * 2)
    monkeypatch.setenv("GRAPHKIT_CHECK_TIME_LIMIT", " ")
    assert check_double(lambda x: x * 2).passed


def test_a_time_out_swallowed_once_rings_again(monkeypatch):
    """The alarm's exception can be lost where it lands: in a learner's bare ``except:``,
    or in a weakref callback run by the garbage collector, where Python prints and drops
    it (a CI run lost it there, and the graph ran on to its recursion limit)."""
    import graphkit.course.checking as checking

    monkeypatch.setattr(checking, "TIME_LIMIT", 0.2)
    swallowed = []

    def stubborn(x):
        give_up = time.monotonic() + 60  # (so a lost alarm fails the test, not hangs it)
        while time.monotonic() < give_up:
            try:
                while time.monotonic() < give_up:
                    x += 1
            except BaseException as error:  # (the learner's bare except)
                swallowed.append(type(error).__name__)
                if len(swallowed) > 1:
                    raise
        return x

    verdict = check_double(stubborn)
    assert swallowed == ["_OutOfTime", "_OutOfTime"]
    assert verdict.message.startswith("Your code was still running after 0.2 seconds")


def test_a_time_out_on_its_way_out_is_not_cut_short_by_the_next_ring(monkeypatch):
    """Code that cleans up as the time-out passes through it (an ``except`` that
    re-raises, a ``finally``; the runtime's own, saving what a step finished) runs to
    its end: the alarm rings again only where the first was lost."""
    import graphkit.course.checking as checking

    monkeypatch.setattr(checking, "TIME_LIMIT", 0.2)
    monkeypatch.setattr(checking, "_RING_AGAIN", 0.05)
    cleaned = []

    def spin(seconds):  # (Python code throughout: a ring can land anywhere in it)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            pass

    def tidy(x):
        try:
            try:
                spin(60)
            except BaseException:
                spin(0.3)  # six rings' time
                cleaned.append("except")
                raise
        finally:
            spin(0.3)
            cleaned.append("finally")

    verdict = check_double(tidy)
    assert cleaned == ["except", "finally"]
    assert verdict.message.startswith("Your code was still running after 0.2 seconds")


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
    assert not verdict.passed
    # (named with its step and node: the run the runtime attached to the time-out says)
    assert verdict.message == (
        "Your graph was still running after 0.2 seconds, in step 1 (spin), so the check stopped it."
    )
    assert verdict.hint.startswith("Look for a loop that never ends in spin: a while")


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


def test_a_node_on_the_pool_is_told_once_and_cleans_up_in_peace(monkeypatch):
    """The alarm rings on until the check ends (here the first ring is lost in the
    main thread); a pool thread's task is told once, so the next ring does not land in
    the except block it is cleaning up in."""
    import threading

    import graphkit.course.checking as checking

    monkeypatch.setattr(checking, "TIME_LIMIT", 0.2)
    monkeypatch.setattr(checking, "_RING_AGAIN", 0.05)
    ended: list[str] = []
    release = threading.Event()  # (ends the loop if the check could not)

    class Tally(TypedDict):
        seen: Annotated[list, operator.add]

    def spin(state: Tally) -> dict:
        try:
            while not release.is_set():
                pass
        except BaseException as error:
            end = time.monotonic() + 0.3  # six rings' time, in Python code
            while time.monotonic() < end:
                pass
            ended.append(type(error).__name__)
            raise
        return {"seen": ["spin"]}

    def wait(state: Tally) -> dict:
        while not release.is_set():  # (the main thread's alarm ends this one)
            pass
        return {"seen": ["wait"]}

    @exercise("0.4 · Fan out")
    def check_fan_out(builder) -> str:
        # (the first ring lost, as a weakref callback can lose it)
        with contextlib.suppress(BaseException):
            trace(compiled(builder), {"seen": []})
        give_up = time.monotonic() + 5
        while not ended and time.monotonic() < give_up:  # till the next ring
            pass
        return "done"

    builder = StateGraph(Tally).add_node("spin", spin).add_node("wait", wait)
    builder.add_edge(START, "spin").add_edge(START, "wait")
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


def test_a_graph_that_loops_forever_says_so_rather_than_blame_a_while(monkeypatch):
    """A graph that never stops and meets the check's time limit before its recursion
    limit (a check's graph whose steps are slow, or one given a high limit): its verdict
    spoke of "a while whose condition never changes" to a learner who wrote no loop."""
    import graphkit.course.checking as checking

    monkeypatch.setattr(checking, "TIME_LIMIT", 0.5)
    # a loaded CI worker may run fewer than 100 steps in 0.5 s; what is tested is the verdict
    monkeypatch.setattr(checking, "_LOOPING_STEPS", 5)

    class Ball(TypedDict):
        hits: Annotated[int, operator.add]

    @exercise("0.15 · Rally")
    def check_rally(router) -> str:
        def hit(state: Ball) -> dict:
            time.sleep(0.001)  # (10,000 steps take 10 s at least: the limit is out of reach)
            return {"hits": 1}

        builder = StateGraph(Ball).add_node("ping", hit).add_node("pong", hit)
        builder.add_edge(START, "ping").add_edge("ping", "pong")
        builder.add_conditional_edges("pong", router, ["ping", END])
        run = trace(compiled(builder), {"hits": 0}, {"recursion_limit": 10_000})
        return f"{run.values['hits']} hits"

    verdict = check_rally(lambda state: "ping")
    assert verdict.message.startswith("Your graph was still running after 0.5 seconds, in step ")
    assert "(ping), so the check stopped it." in verdict.message or "(pong)" in verdict.message
    assert verdict.hint.startswith("It ran ") and "steps: its nodes keep waking" in verdict.hint
    assert "never reaches END" in verdict.hint and "'recursion_limit': 20" in verdict.hint
    assert check_rally(lambda state: END if state["hits"] >= 4 else "ping").passed


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


# -- whose mistake: the check's own code, or the answer ---------------------------------


@exercise("0.5 · Second word")
def check_second(first) -> str:
    words = first("the cat sat").split()
    return f"{words[3]!r} comes next."  # (the check's mistake: three words, no words[3])


def test_an_exception_in_the_checks_own_code_is_said_to_be_the_checks():
    # It read "Your code raised IndexError: list index out of range": the learner
    # looked for the mistake in their own answer, which had none.
    verdict = check_second(lambda text: text)
    line = check_second.__wrapped__.__code__.co_firstlineno + 3
    assert verdict.message == (
        "The check itself raised IndexError: list index out of range (at "
        f'test_checking.py, line {line}, in check_second: `return f"{{words[3]!r}} comes '
        "next.\"  # (the check's mistake: three words, no words[3])`). This is a mistake "
        "in the check, not in your code: it stopped before it could judge your answer."
    )
    assert verdict.hint == (
        "Show this to your instructor. (Instructor: "
        "`traceback.print_exception(verdict.check_error)` prints the traceback.)"
    )
    assert isinstance(verdict.check_error, IndexError) and not verdict.passed
    assert verdict.check_error.__traceback__ is not None
    html = verdict._repr_html_()
    assert "⚠ The check failed" in html and "Not yet" not in html and "#999999" in html
    assert check_double(lambda x: x + 1).check_error is None  # (a verdict on the answer)

    @exercise("0.6 · Typo")
    def check_typo(double) -> str:
        return f"{doubel(2)}"  # noqa: F821

    assert check_typo(lambda x: x * 2).message.startswith(
        "The check itself raised NameError: name 'doubel' is not defined (at test_checking.py"
    )


def _chain(node) -> StateGraph:
    return StateGraph(Pair).add_node("step", node).add_edge(START, "step")


def test_a_helper_or_a_record_the_check_misread_is_the_checks_mistake():
    @exercise("0.7 · Read the run")
    def check_read(node, misread) -> str:
        app = compiled(_chain(node))
        return str(misread(app, trace(app, {})))

    for misread, error in (
        (lambda app, run: ran_at(app, "step"), "AttributeError: 'CompiledGraph' object"),
        (lambda app, run: run.step(7), "KeyError: 'This run has no step 7; its steps"),
    ):
        verdict = check_read(lambda state: {"a": 1}, misread)
        # (misread is an argument here: the check's file is what names the mistake)
        assert verdict.message.startswith(f"Your code raised {error}"), verdict.message

    @exercise("0.7 · Read the run")
    def check_steps(node) -> str:
        app = compiled(_chain(node))
        return str(ran_at(app, "step"))

    verdict = check_steps(lambda state: {"a": 1})
    assert verdict.message.startswith(
        "The check itself raised AttributeError: 'CompiledGraph' object has no attribute"
    ), verdict.message

    @exercise("0.8 · Read step 7")
    def check_step_7(node) -> str:
        run = trace(compiled(_chain(node)), {})
        return str(run.step(7))

    verdict = check_step_7(lambda state: {"a": 1})
    assert verdict.message.startswith("The check itself raised KeyError: 'This run has no step 7")


def test_the_answers_own_failures_stay_the_learners():
    """The learner's function raising, called with the wrong arguments, or not a function
    at all; the runtime refusing the learner's graph (invoke in the check, not trace); a
    node of the check's own file failing inside the graph the check ran."""
    from graphkit import END, GraphRecursionError  # noqa: F401

    @exercise("0.9 · Call it")
    def check_call(double) -> str:
        return f"{double(2, 3)}"

    assert check_call(lambda x: x).message.startswith("Your code raised TypeError: test_the")
    assert check_call(lambda x: x).message.endswith("takes 1 positional argument but 2 were given")
    none = check_call(None)  # (the learner's None, named: not the check's mistake)
    assert none.check_error is None
    assert none.message == "check_call() got None as double, and calls double as a function."
    assert check_double(lambda x: [][x]).message.startswith("Your code raised IndexError")

    @exercise("0.10 · Invoke it")
    def check_invoke(node, limit=25) -> str:
        builder = _chain(node).add_conditional_edges("step", lambda s: "step", ["step", END])
        compiled(builder).invoke({}, {"recursion_limit": limit})
        return "ran"

    assert check_invoke(lambda state: {"a": 1}, 3).message.startswith(
        "Your code raised GraphRecursionError: Recursion limit of 3 reached"
    )

    @exercise("0.10 · Invoke it beside another")
    def check_beside(node) -> str:
        builder = _chain(node).add_node("other", lambda s: {"a": 2}).add_edge(START, "other")
        compiled(builder).invoke({})
        return "ran"

    assert check_beside(lambda state: {"a": 1}).message.startswith(
        "Your code raised InvalidUpdateError: "
    )

    def read_b(state):  # (the check's node, in the check's file, run by the graph)
        return {"a": state["b"]}

    @exercise("0.11 · Run my node")
    def check_node(node) -> str:
        builder = _chain(node).add_node("read_b", read_b).add_edge("step", "read_b")
        compiled(builder).invoke({})
        return "ran"

    verdict = check_node(lambda state: {"a": 1})
    assert verdict.message == "Your code raised KeyError: 'b'" and verdict.check_error is None


def test_an_assert_in_the_check_fails_the_answer_with_its_message(tmp_path, monkeypatch):
    # (in a module of its own: pytest rewrites the asserts of this one)
    (tmp_path / "asserting_checks.py").write_text(
        "from graphkit.course import exercise\n"
        "\n"
        "@exercise('0.12 · Assert it')\n"
        "def check_assert(double):\n"
        "    got = double(2)\n"
        "    assert isinstance(got, int)\n"
        "    assert got == 4, f'double(2) gave {got!r}, not 4.'\n"
        "    return 'double works.'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    from asserting_checks import check_assert

    verdict = check_assert(lambda x: x + 1)
    assert (verdict.passed, verdict.message, verdict.hint) == (
        False,
        "double(2) gave 3, not 4.",
        "",
    )
    assert verdict.check_error is None
    assert check_assert(lambda x: 2 * x).passed
    bare = check_assert(lambda x: "4").message
    assert bare == "Your answer failed the check's `assert isinstance(got, int)`."
    assert check_double(lambda x: exec("assert False, 'mine'")).message == (
        "Your code raised AssertionError: mine"  # (the learner's own assert)
    )


def test_an_assert_over_several_lines_fails_the_answer_too(tmp_path, monkeypatch):
    # (its traceback's line is the condition's, not the one starting with assert)
    (tmp_path / "long_asserts.py").write_text(
        "from graphkit.course import exercise\n"
        "\n"
        "@exercise('0.12 · Assert it')\n"
        "def check_long(double):\n"
        "    assert (\n"
        "        double(2) == 4\n"
        "    ), 'double(2) is not 4.'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    from long_asserts import check_long

    verdict = check_long(lambda x: x + 1)
    assert (verdict.message, verdict.check_error) == ("double(2) is not 4.", None)


class _Box:  # (an answer that is a class, in the check's own file, as in a test module)
    def __init__(self, value):
        self.value = value[0]


def test_a_class_given_as_the_answer_is_the_learners_code():
    @exercise("0.13 · Box it")
    def check_box(box) -> str:
        return f"{box(1).value}"

    verdict = check_box(_Box)
    assert verdict.check_error is None
    assert verdict.message == "Your code raised TypeError: 'int' object is not subscriptable"


def test_a_check_that_is_a_partial_or_a_callable_object_gives_a_verdict():
    # (they have no __code__: reading it raised inside the except, out of the verdict)
    import functools

    def check_words(words, split) -> str:
        return f"{split(words)} then {words[99]}"

    class CheckWords:
        def __call__(self, split) -> str:
            return check_words("a b", split)

    for check in (functools.partial(check_words, "a b"), CheckWords()):
        verdict = exercise("0.14 · Split it")(check)(str.split)
        assert type(verdict.check_error) is IndexError, verdict
        assert 'in check_words: `return f"{split(words)} then {words[99]}"`' in verdict.message


def test_a_check_may_have_a_time_limit_of_its_own(monkeypatch):
    import graphkit.course.checking as checking

    monkeypatch.setattr(checking, "TIME_LIMIT", 30)

    @exercise("0.14 · Quick", time_limit=0.2)
    def check_quick(function) -> str:
        function()
        return "done."

    def forever():
        while True:
            pass

    verdict = check_quick(forever)
    assert verdict.message.startswith("Your code was still running after 0.2 seconds")
    assert check_quick(lambda: None).passed


def test_a_check_stopped_inside_a_task_leaves_no_task_scope_behind():
    """The time limit's alarm can land in the learner's graph between a task entering
    its scope and the ``try`` that leaves it: the scope stayed set in the kernel, and
    every later run there took itself for that task's subgraph (CI saw 107 tests of one
    worker fail so, after the rally test above). What a check leaves set goes with it."""
    from graphkit.course.checking import _OutOfTime
    from graphkit.pregel.task_scope import _scope, current_scope

    @exercise("0.16 · Leaves a scope")
    def check_leaves_scope() -> str:
        _scope.set(object())  # (as the alarm leaves it: set, and never reset)
        raise _OutOfTime()

    assert check_leaves_scope().passed is False
    assert current_scope() is None
    app = StateGraph(TypedDict("N", {"n": int})).add_node("a", lambda s: {"n": 1})
    assert app.add_edge(START, "a").compile().invoke({"n": 0}) == {"n": 1}


# -- an answer that is no function, where the check calls one ---------------------------


@exercise("0.9 · Shout")
def check_shout(shout) -> str:
    if shout("hi") != "HI":
        raise Wrong("Not shouted.")
    return "Shouted."


def test_none_for_a_function_is_named_with_the_parameter_and_the_fix():
    # it said "Your code raised TypeError: 'NoneType' object is not callable"
    verdict = check_shout(None)
    assert not verdict and verdict.check_error is None
    assert verdict.message == ("check_shout() got None as shout, and calls shout as a function.")
    assert verdict.hint == (
        "Pass the function itself, check_shout(shout), not what it returns "
        "(check_shout(shout()) passes that); if shout is None, run the cell that defines it."
    )


def test_a_name_in_quotes_or_a_graph_for_a_function_is_named_too():
    verdict = check_shout("shout")
    assert verdict.message == (
        "check_shout() got the str 'shout' as shout, and calls shout as a function."
    )
    assert verdict.hint == "Pass the function itself, check_shout(shout), not its name in quotes."
    app = StateGraph(dict).add_node("a", lambda s: {}).add_edge(START, "a").compile()
    verdict = check_shout(app)
    assert verdict.message == (
        "check_shout() got a CompiledGraph as shout, and calls shout as a function."
    )
    assert verdict.hint == (
        "This exercise asks for a function, not a graph: define shout as the exercise "
        "says, then pass it, check_shout(shout)."
    )


def test_a_function_of_the_learner_that_calls_none_is_left_as_its_own_error():
    def shout(text):
        helper = None
        return helper(text)

    verdict = check_shout(shout)
    assert verdict.message == "Your code raised TypeError: 'NoneType' object is not callable"


def test_a_class_given_as_the_graph_is_named_as_the_class():
    # compiled() called it (a function that returns the graph is taken too):
    # "StateGraph.__init__() missing 1 required positional argument: 'state_schema'"
    with pytest.raises(Wrong) as caught:
        compiled(StateGraph)
    assert caught.value.message == (
        "Got the class StateGraph itself as your graph: pass the graph you built from it."
    )
    assert (
        caught.value.hint
        == "Pass the builder (or builder.compile(), or a function that returns it)."
    )


@exercise("0.17 · Pair up")
def check_pair(pair) -> str:
    if pair("a", "b", "c") != ("a", "b", "c"):
        raise Wrong("Not a triple.")
    return "Paired."


def test_a_library_class_for_a_function_is_named_as_the_class():
    # it said "Your code raised TypeError: StateGraph('hi'): a schema is a class ...",
    # StateGraph's own refusal of a call the learner never wrote
    verdict = check_shout(StateGraph)
    assert verdict.check_error is None
    assert verdict.message == (
        "check_shout() got the class StateGraph as shout, and calls shout as a function."
    )
    assert verdict.hint == (
        "Pass the function you wrote for this exercise, check_shout(shout): StateGraph "
        "is a class of graphkit, not your answer."
    )
    # and where the call does not even bind: "StateGraph.__init__() takes from 2 to 3
    # positional arguments but 4 were given"
    assert check_pair(StateGraph).message == (
        "check_pair() got the class StateGraph as pair, and calls pair as a function."
    )


@exercise("0.18 · Shout in a graph")
def check_shout_node(shout) -> str:
    builder = StateGraph(TypedDict("Said", {"text": str}))
    builder.add_node("shout", lambda state: {"text": shout(state["text"])})
    builder.add_edge(START, "shout")
    run = trace(builder.compile(), {"text": "hi"})
    if run.values["text"] != "HI":
        raise Wrong("Not shouted.")
    return "Shouted."


def test_an_answer_that_is_no_function_is_named_when_a_graph_run_calls_it():
    # it said "Running your graph raised TypeError in step 1 (node shout): 'NoneType'
    # object is not callable", or StateGraph's refusal of the state it was given
    assert check_shout_node(None).message == (
        "check_shout_node() got None as shout, and calls shout as a function."
    )
    assert check_shout_node(StateGraph).message == (
        "check_shout_node() got the class StateGraph as shout, and calls shout as a function."
    )
    builder = StateGraph(dict).add_node("a", lambda s: {}).add_edge(START, "a")
    assert check_shout_node(builder).message == (
        "check_shout_node() got a StateGraph as shout, and calls shout as a function."
    )
    assert check_shout_node(str.upper).passed


@exercise("0.19 · Shout, worded")
def check_shout_worded(shout) -> str:
    try:
        said = shout("hi")
    except Exception as error:
        raise Wrong(f"shout('hi') raised {type(error).__name__}: {error}.") from None
    return f"{said}."


def test_a_check_that_words_the_error_itself_still_names_the_answer():
    # the check wrote "shout('hi') raised TypeError: 'str' object is not callable."
    assert check_shout_worded("shout").message == (
        "check_shout_worded() got the str 'shout' as shout, and calls shout as a function."
    )
    assert check_shout_worded(StateGraph).message.startswith(
        "check_shout_worded() got the class StateGraph as shout"
    )


def test_an_answer_is_named_with_the_article_its_class_takes():
    # it said "check_shout_worded() got a int as shout"
    assert check_shout_worded(5).message == (
        "check_shout_worded() got an int as shout, and calls shout as a function."
    )
    assert check_shout_worded(2.5).message.startswith("check_shout_worded() got a float as")


def test_the_learners_own_failures_in_a_run_stay_theirs():
    def shout(text):
        helper = None
        return helper(text)

    class Shouter:  # (the learner's own class: calling it is their code)
        def __init__(self, text):
            raise ValueError(f"no {text}")

    assert check_shout_node(shout).message == (
        "Running your graph raised TypeError in step 1 (node shout): "
        "'NoneType' object is not callable"
    )
    cell: dict = {}  # (a notebook's cell run by exec: its classes' module is builtins)
    exec("class Cell:\n    def __init__(self, text):\n        raise ValueError(text)", cell)
    for learners, said in [(Shouter, ": no hi"), (cell["Cell"], ": hi")]:
        verdict = check_shout_node(learners)
        assert verdict.message.startswith("Running your graph raised ValueError in step 1")
        assert verdict.message.endswith(said)
    assert check_shout_worded(shout).message == (
        "shout('hi') raised TypeError: 'NoneType' object is not callable."
    )


def test_a_shown_verdict_carries_a_marker_a_program_can_read():
    """``graphkit progress`` reads saved verdicts from their output's metadata, not
    their prose; the boxes a learner sees stay as they were."""
    from IPython.core.formatters import DisplayFormatter

    formatter = DisplayFormatter()
    for verdict, outcome in [
        (Verdict("1.1 · A chain", True, "Your chain ran.\nThree steps."), "passed"),
        (Verdict("1.1 · A chain", False, "No node 'b'.", "Add it."), "not yet"),
        (
            Verdict("1.1 · A chain", False, "The check raised.", check_error=KeyError("k")),
            "check failed",
        ),
    ]:
        data, metadata = formatter.format(verdict)
        assert data == {"text/plain": repr(verdict), "text/html": verdict._repr_html_()}
        assert metadata == {
            "graphkit": {
                "verdict": {
                    "exercise": "1.1 · A chain",
                    "outcome": outcome,
                    "message": verdict.message,
                    "checked": verdict.checked,  # (when it ran: the last one counts)
                }
            }
        }
