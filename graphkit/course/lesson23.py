"""Checks for lesson 23 · Testing a graph: a node alone, a slice, the path, a pause.

In each exercise the learner writes a *test*. The check runs it on routers or desks
with a bug of the check's own, where it must fail, then on the right router or desk,
where it must pass (last, so that a test passing on whatever it sees first fails); a
test that passes on a bug has let it through, and the verdict names that bug. The desks
are the lesson's refund desk, built here again (graphkit's runtime, a new
``InMemorySaver`` for each run of the test).

- ``check_route_test(test_route)``: ``test_route(route)`` on ``route_ticket`` and on
  routers off by one at the limit, or reading the amount before the category.
- ``check_path_test(test_refund_path)``: ``test_refund_path(app)`` on desks whose
  approved big refund ends in the same state by another path (a node twice, while the
  desk waits or once approved; a node that never runs), and whose small refund is right.
- ``check_approval_test(test_approval)``: ``test_approval(app)`` on desks whose approval
  never pauses, ignores the answer, refuses a yes, or books a refused refund.

>>> from graphkit.course.solutions import lesson23 as solutions
>>> bool(check_route_test(solutions.test_route))
True
>>> bool(check_path_test(solutions.test_refund_path))
True
>>> bool(check_approval_test(solutions.test_approval))
True
"""

from __future__ import annotations

import functools
import operator
import warnings
from collections import Counter
from collections.abc import Callable
from typing import Annotated, Any, NamedTuple, TypedDict

from graphkit.course import lesson23_running as running
from graphkit.course.checking import Wrong, _OutOfTime, exercise
from graphkit.errors import GraphkitWarning

__all__ = [
    "LIMIT",
    "Ticket",
    "build_desk",
    "check_approval_test",
    "check_path_test",
    "check_route_test",
    "route_ticket",
]

LIMIT = 100
"""Euros: a refund above it waits for a human."""


class Ticket(TypedDict, total=False):
    text: str
    amount: int
    category: str
    approved: bool
    reply: str
    status: str
    ledger: Annotated[list[int], operator.add]


# -- the lesson's desk, and its bugs ----------------------------------------------------------


def route_ticket(state: Ticket) -> str:
    if state["category"] != "refund":
        return "answer"
    return "approve" if state["amount"] > LIMIT else "refund"


def _closing_while_waiting(state: Ticket) -> Any:
    way = route_ticket(state)
    return ["approve", "close"] if way == "approve" else way


def _classify(state: Ticket) -> dict[str, Any]:
    return {"category": "refund" if "refund" in state["text"].lower() else "question"}


def _refund(state: Ticket) -> dict[str, Any]:
    return {"reply": f"Refunded {state['amount']} euros."}


def _book(state: Ticket) -> dict[str, Any]:
    return {"ledger": [state["amount"]]}


def _answer(state: Ticket) -> dict[str, Any]:
    return {"reply": "Our FAQ answers that."}


def _close(state: Ticket) -> dict[str, Any]:
    return {"status": "closed"}


def _approve(bug: str | None, interrupt: Callable[[Any], Any]) -> Callable[[Ticket], dict]:
    def approve(state: Ticket) -> dict[str, Any]:
        if bug == "never pauses":
            return {"approved": True}
        said = interrupt(f"Refund {state['amount']} euros?")
        approved = {"ignores the answer": True, "refuses a yes": False}.get(bug, said == "yes")
        if approved and bug == "replies in approve":
            return {"approved": True, "reply": f"Refunded {state['amount']} euros."}
        if approved:
            return {"approved": True}
        return {"approved": False, "reply": "Your refund was refused."}

    return approve


def _after_approval(bug: str | None) -> Callable[[Ticket], Any]:
    def after_approval(state: Ticket) -> Any:
        if state["approved"]:
            return {
                "closes on approval": ["refund", "close"],
                "replies in approve": ["book", "close"],
            }.get(bug, "refund")
        return ["book", "close"] if bug == "books a refusal" else "close"

    return after_approval


def wire(builder: Any, bug: str | None = None, interrupt: Any = None) -> Any:
    """The lesson's desk on ``builder`` (a ``StateGraph(Ticket)`` of graphkit or of
    LangGraph), with ``bug`` (a key of ``PATH_BUGS`` or ``APPROVAL_BUGS``) if given;
    ``interrupt``: the library's (graphkit's by default)."""
    if interrupt is None:
        from graphkit import interrupt
    for name, node in (
        ("classify", _classify),
        ("approve", _approve(bug, interrupt)),
        ("refund", _refund),
        ("book", _book),
        ("answer", _answer),
        ("close", _close),
    ):
        builder.add_node(name, node)
    builder.add_edge("__start__", "classify")
    if bug == "closes while waiting":
        builder.add_conditional_edges(
            "classify", _closing_while_waiting, ["answer", "approve", "refund", "close"]
        )
    else:
        builder.add_conditional_edges("classify", route_ticket, ["answer", "approve", "refund"])
    builder.add_conditional_edges("approve", _after_approval(bug), ["refund", "book", "close"])
    builder.add_edge("refund", "book")
    builder.add_edge("refund", "close")
    builder.add_edge("answer", "close")
    builder.add_edge("close", "__end__")
    return builder


def build_desk(bug: str | None = None) -> Any:
    """A new graphkit desk with its own checkpointer (``bug``: see ``wire``)."""
    from graphkit import InMemorySaver, StateGraph

    return wire(StateGraph(Ticket), bug).compile(checkpointer=InMemorySaver())


# -- running the learner's test: graphkit/course/lesson23_running.py ----------------------


class _Outcome(NamedTuple):
    """One test (a function, or one method of a class) run on a new wrong {what} of each
    bug, then on the right one."""

    test: Callable[..., Any]
    wrongs: dict[str, Any]
    ran: dict[str, tuple[BaseException | None, Any]]
    right: Any
    error: BaseException | None


def _outcome(test: Callable[..., Any], right: Callable[[], Any], bugs: dict[str, Any]) -> _Outcome:
    wrongs = {bug: wrong() for bug, wrong in bugs.items()}
    with warnings.catch_warnings():  # (a bug's warning, say a resume of a run that never
        warnings.simplefilter("ignore", GraphkitWarning)  # paused: the verdict names the bug)
        ran = {bug: running.run(test, wrong) for bug, wrong in wrongs.items()}
    right_one = right()
    return _Outcome(test, wrongs, ran, right_one, running.run(test, right_one)[0])


def _on_the_whole(outcomes: list[_Outcome], bug: str) -> tuple[BaseException | None, Any]:
    """How a class of tests did on ``bug``, as pytest reports it: failed if one of its
    tests failed, else skipped if one skipped, else passed (with what the first test
    that returned a comparison returned)."""
    ran = [outcome.ran[bug] for outcome in outcomes]
    failed = [r for r in ran if r[0] is not None and not running.skipped(r[0])]
    skipped = [r for r in ran if running.skipped(r[0])]
    returned = [r for r in ran if _comparisons(r[1])]
    return (failed or skipped or returned or ran)[0]


def _slow(tests: list[Callable[..., Any]], what: str, bugs: int) -> Wrong:
    """The verdict for tests the time limit stopped: they run once on each of ``bugs``
    {what}s with a bug and on the right one, a class's methods each."""
    from graphkit.course import checking

    runs = len(tests) * (bugs + 1)
    each = f"each of your class's {len(tests)} test methods" if len(tests) > 1 else "your test"
    return Wrong(
        f"Your test was still running after {checking.TIME_LIMIT:g} seconds, so the check "
        f"stopped it: it runs {each} on {bugs} {what}s with a bug, then on the right one, "
        f"{runs} runs in all.",
        f"A run of the {what} takes milliseconds: look for a sleep, a wait or a loop that "
        "never ends in your test, and time it on the lesson's "
        f"{what} in a cell of its own (%time).",
    )


def _judge(
    tests: list[Callable[..., Any]],
    what: str,
    right: Callable[[], Any],
    bugs: dict[str, Any],
    described: dict[str, str],
) -> list[str]:
    """The bugs the learner's ``tests`` (``running.runnable_tests``'s: one function, or a class's
    methods) let through, after checking they pass on the right one (``bugs``: a new
    wrong one of each, ``described``: what each does). The bugs run first, so that a test
    passing on whatever it is given first (comparing each app with the first it saw)
    fails on the right one. Each of a class's tests runs on {what}s of its own, as
    pytest gives each a fixture of its own; the class lets a bug through when all pass."""
    try:
        outcomes = [_outcome(test, right, bugs) for test in tests]
    except _OutOfTime:
        raise _slow(tests, what, len(bugs)) from None
    ran = {bug: _on_the_whole(outcomes, bug) for bug in bugs}
    wrongs = [app for outcome in outcomes for app in outcome.wrongs.values()]
    # (on the right {what}: a skip is told first, as it is on the bugs, then a failure)
    told = next(
        (o for o in outcomes if running.skipped(o.error)),
        next((o for o in outcomes if o.error is not None), outcomes[0]),
    )
    test, right_one, error = told.test, told.right, told.error
    skipped = [bug for bug, (failed, _) in ran.items() if running.skipped(failed)]
    on_the_right = running.skipped(error) is not None
    if on_the_right or skipped:
        stopped = error if on_the_right else ran[skipped[0]][0]
        kind = running.skipped(stopped)
        did, a_test, it = running.SKIPPED[kind]
        if on_the_right:
            on = f"the right {what}"
            why = f"{a_test} neither passes nor fails, whatever it asserted before the {kind}."
        else:
            on = f"a {what} that {described[skipped[0]]}"
            why = f"{it} is no failure: that bug went through unseen."
        raise Wrong(
            f"Your test {did} on {on}: {running.said(test, stopped)}. {why}",
            f"A test here must pass or fail: take the {kind} out, and assert what the {what} does.",
        )
    again = _threads_run_again(right_one) if error is not None else []
    if again and running.run(test, _OnFreshThreads(right()))[0] is None:
        thread, runs = again[0]
        raise Wrong(
            f"Your test fails on the right {what}: {running.said(test, error)}. It started {runs} "
            f"runs on the thread {thread!r}: each run after the first began from the state "
            "the one before left there (its ledger too), as in section 3's Q2.",
            "Give each run a thread of its own; only a resume goes on the thread that paused.",
        )
    around = (
        test.around(error)
        if error is not None and isinstance(test, running.ClassTestMethod)
        else None
    )
    if around:
        part = around.partition(",")[0]
        raise Wrong(
            f"Your test fails on the right {what}: {running.said(test, error)}.",
            f"Its {part} raised, not an assert: the test is not at fault. Fix {part} (or "
            "take it out, and set up inside the test).",
        )
    if error is not None:
        raise Wrong(
            f"Your test fails on the right {what}: {running.said(test, error)}.",
            f"A test must pass when the {what} is right: run it on the lesson's {what} "
            "in a cell of its own, and read what it asserts there.",
        )
    missed = [bug for bug, (error, _) in ran.items() if error is None]
    if len(missed) == len(bugs) and not any(map(_ran, wrongs)):
        raise Wrong(
            f"Your test passed on every {what} with a bug, and never ran the {what} it was given.",
            f"Run the {what} your test takes as its argument, not one of the notebook's, "
            "and assert on what it did.",
        )
    returned = [(bug, ran[bug][1]) for bug in missed if _comparisons(ran[bug][1])]
    if returned:
        bug, value = returned[0]
        raise Wrong(
            f"Your test returned {value} on a {what} that {described[bug]}, and so passed: a test "
            "that returns passes, whatever it returns.",
            "A test fails only by raising: write assert before each comparison.",
        )
    return missed


def _comparisons(value: Any) -> bool:
    """Whether a test returned what its asserts should have checked: a bool, or a list
    or tuple of them (pytest ignores what a test returns)."""
    if isinstance(value, (list, tuple)):
        return bool(value) and all(isinstance(item, bool) for item in value)
    return isinstance(value, bool)


def _threads_run_again(app: Any) -> list[tuple[str, int]]:
    """The threads of ``app``'s checkpointer on which more than one run started from an
    input, with how many did (a resume starts none: it goes on from the pause)."""
    saver = getattr(app, "checkpointer", None)
    if saver is None:
        return []
    inputs = Counter(
        saved.config["configurable"]["thread_id"]
        for saved in saver.list(None)
        if saved.metadata.get("source") == "input"
    )
    return [(thread, runs) for thread, runs in inputs.items() if runs > 1]


class _OnFreshThreads:
    """``app``, on which each run from an input starts on an empty thread: if a test
    passes there, the runs it started on a used thread are why it failed."""

    def __init__(self, app: Any) -> None:
        self._app = app

    def __getattr__(self, name: str) -> Any:
        return getattr(self._app, name)

    def _forget(self, input: Any, config: Any) -> None:
        from graphkit import Command

        thread = ((config or {}).get("configurable") or {}).get("thread_id")
        if input is not None and not isinstance(input, Command) and thread is not None:
            self._app.checkpointer.delete_thread(thread)

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        self._forget(input, config)
        return self._app.invoke(input, config, **kwargs)

    def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        self._forget(input, config)
        return self._app.stream(input, config, **kwargs)

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        self._forget(input, config)
        return await self._app.ainvoke(input, config, **kwargs)

    def astream(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        self._forget(input, config)
        return self._app.astream(input, config, **kwargs)


def _ran(app: Any) -> bool:
    """Whether a test ran ``app``: a router given by ``_watched`` that was called, a desk
    whose checkpointer saved a checkpoint."""
    if (calls := getattr(app, "calls", None)) is not None:
        return bool(calls)
    saver = getattr(app, "checkpointer", None)
    return saver is None or next(iter(saver.list(None)), None) is not None


def _watched(route: Callable[[Ticket], str]) -> Callable[[Ticket], str]:
    """``route``, keeping in ``.calls`` the states it was called with (a call leaves no
    other trace)."""

    @functools.wraps(route)
    def watched(state: Ticket) -> str:
        watched.calls.append(state)  # type: ignore[attr-defined]
        return route(state)

    watched.calls = []  # type: ignore[attr-defined]
    return watched


def _let_through(what: str, missed: list[str], described: dict[str, str], tail: str = "") -> str:
    first, *others = missed
    more = (
        f" It let {len(others)} other bug{'s' if len(others) > 1 else ''} through too."
        if others
        else ""
    )
    return f"Your test passed on a {what} that {described[first]}{tail}.{more}"


# -- 23.1 · a router's limit ---------------------------------------------------------------------


def _asks_at_the_limit(state: Ticket) -> str:
    if state["category"] != "refund":
        return "answer"
    return "approve" if state["amount"] >= LIMIT else "refund"


def _asks_one_euro_late(state: Ticket) -> str:
    if state["category"] != "refund":
        return "answer"
    return "approve" if state["amount"] > LIMIT + 1 else "refund"


def _amount_first(state: Ticket) -> str:
    if state["amount"] > LIMIT:
        return "approve"
    return "refund" if state["category"] == "refund" else "answer"


def _refunds_questions(state: Ticket) -> str:
    return "approve" if state["amount"] > LIMIT else "refund"


ROUTER_BUGS = {
    "asks a human about a refund of exactly the limit": _asks_at_the_limit,
    "pays a refund of one euro over the limit without asking": _asks_one_euro_late,
    "sends a question with a large amount to a human": _amount_first,
    "refunds every small ticket, questions too": _refunds_questions,
}


@exercise("23.1 · A router's limit")
def check_route_test(test_route: Callable[[Any], Any]) -> str:
    """``test_route(route)`` must pass on ``route_ticket`` and fail on each router of
    ``ROUTER_BUGS``."""
    bugs = {bug: lambda bug=bug: _watched(ROUTER_BUGS[bug]) for bug in ROUTER_BUGS}
    missed = _judge(
        running.runnable_tests(test_route, "test_route(route)"),
        "router",
        lambda: route_ticket,
        bugs,
        {bug: bug for bug in bugs},
    )
    if missed:
        raise Wrong(
            _let_through("router", missed, {bug: bug for bug in ROUTER_BUGS}),
            "A router's bugs hide at its edges: test each way out, and for a limit the "
            "amounts on both sides of it, as near as they can be.",
        )
    return (
        f"Your test passed on route_ticket and failed on each of {len(ROUTER_BUGS)} routers "
        "with a bug, off by one at the limit or reading the category wrong."
    )


# -- 23.2 · the path of an approved refund -------------------------------------------------------

PATH_BUGS = {
    "closes while waiting": "closes the ticket while it waits for the human, and again after "
    "the refund",
    "closes on approval": "closes the ticket as soon as the refund is approved, and again after "
    "the refund",
    "replies in approve": "writes the refund's reply in approve itself, and never runs refund",
}


def _approved(app: Any) -> bool:
    """Whether a test got a big refund approved on ``app``: a checkpoint of one of its
    threads holds ``approved``, which only the resumed ``approve`` writes."""
    return any(
        "approved" in saved.checkpoint.channel_values for saved in app.checkpointer.list(None)
    )


@exercise("23.2 · The path of an approved refund")
def check_path_test(test_refund_path: Callable[[Any], Any]) -> str:
    """``test_refund_path(app)`` must pass on the lesson's desk and fail on each desk of
    ``PATH_BUGS``, whose approved big refund ends in the same state by another path (their
    small refund takes the right one)."""
    wrongs: list[Any] = []

    def build_wrong(bug: str) -> Any:
        wrongs.append(build_desk(bug))
        return wrongs[-1]

    bugs = {bug: lambda bug=bug: build_wrong(bug) for bug in PATH_BUGS}
    missed = _judge(
        running.runnable_tests(test_refund_path, "test_refund_path(app)"),
        "desk",
        build_desk,
        bugs,
        PATH_BUGS,
    )
    if missed and not any(map(_approved, wrongs)):
        raise Wrong(
            _let_through("desk", missed, PATH_BUGS),
            "These desks differ only once a human approves a big refund, and your test "
            'approved none: run a refund over the limit, then resume it with "yes".',
        )
    if missed:
        raise Wrong(
            _let_through("desk", missed, PATH_BUGS, ", and ends the refund in the right state"),
            "The state cannot tell these desks apart; the run's records can: which nodes each "
            "superstep ran, in the run that pauses and in the one that resumes (sections 4 "
            "and 5).",
        )
    return (
        f"Your test failed on each of {len(PATH_BUGS)} desks that reach the right state by "
        "another path once the refund is approved: a node run twice, a node that never runs."
    )


# -- 23.3 · approve or refuse ------------------------------------------------------------------

APPROVAL_BUGS = {
    "never pauses": "never pauses, and refunds every large refund",
    "ignores the answer": "refunds whatever the human answers",
    "books a refusal": "refuses when told, but books the refund in the ledger all the same",
    "refuses a yes": "refuses the refund even when the human says yes",
}


@exercise("23.3 · Approve or refuse")
def check_approval_test(test_approval: Callable[[Any], Any]) -> str:
    """``test_approval(app)`` must pass on the lesson's desk and fail on each desk of
    ``APPROVAL_BUGS``."""
    bugs = {bug: lambda bug=bug: build_desk(bug) for bug in APPROVAL_BUGS}
    missed = _judge(
        running.runnable_tests(test_approval, "test_approval(app)"),
        "desk",
        build_desk,
        bugs,
        APPROVAL_BUGS,
    )
    if missed:
        raise Wrong(
            _let_through("desk", missed, APPROVAL_BUGS),
            "Test the pause, then each answer that leads somewhere else, each on a thread "
            "of its own, and assert what must not have happened as well as what must.",
        )
    return (
        f"Your test failed on each of {len(APPROVAL_BUGS)} desks with a bug in their "
        "approval, and passed on the right one."
    )
