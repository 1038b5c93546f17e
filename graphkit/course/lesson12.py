"""Checks for lesson 12 · When a node fails: retries, handlers and what is saved.

Each check runs the learner's answer on the real runtime and reads the records: how many
attempts a task took and what each raised (12.1), which step an error handler ran in and
where it sent the run (12.2), and which nodes' code really ran when a failed thread was
resumed (12.3), counted by the nodes themselves, as any side effect would be.

>>> from graphkit.course.solutions import lesson12 as solutions
>>> bool(check_retry_policy(solutions.policy))
True
"""

from __future__ import annotations

import contextlib
import inspect
import operator
import warnings
from collections import Counter
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from graphkit.course.checking import Wrong, compiled, exercise, trace
from graphkit.diagnostics.building import as_graphkit_retry_policy
from graphkit.errors import GraphkitWarning, InvalidUpdateError
from graphkit.inspect.values import show
from graphkit.types import RetryPolicy

__all__ = [
    "BadRequest",
    "RateLimited",
    "check_fallback",
    "check_resume_prediction",
    "check_retry_policy",
    "quote_graph",
    "resume_quiz",
]


class RateLimited(Exception):
    """The API's "429 Too Many Requests": try again in a moment and it answers."""


class BadRequest(Exception):
    """The API's "400 Bad Request": the same call fails the same way every time."""


def _names(lib: Any) -> tuple[Any, Any, Any, Any]:
    """``END, START, StateGraph, InMemorySaver`` from ``lib``, or graphkit's."""
    if lib is None:
        import graphkit as lib
    return lib.END, lib.START, lib.StateGraph, lib.InMemorySaver


# -- 12.1 · Retry the right errors ------------------------------------------------------

_STATUS = {RateLimited: "429 Too Many Requests", BadRequest: "400 Bad Request"}


class Fetch(TypedDict, total=False):
    symbol: str
    price: float


def fetch_graph(policy: Any, errors: list[type[Exception]]) -> Any:
    """``START → fetch → END``; ``fetch`` has the retry policy ``policy`` and raises the
    ``errors`` in order, one per attempt, then answers."""
    from graphkit import END, START, StateGraph

    left = list(errors)

    def fetch(state: Fetch) -> dict:
        if left:
            error = left.pop(0)
            raise error(f"{_STATUS[error]} (asked for {state['symbol']})")
        return {"price": 41.5}

    builder = StateGraph(Fetch)
    builder.add_node("fetch", fetch, retry_policy=policy)
    builder.add_edge(START, "fetch")
    builder.add_edge("fetch", END)
    return builder.compile()


def _fetch_result(policy: Any, errors: list[type[Exception]]) -> Any:
    """The ``fetch`` task's result (attempts, errors) of one run, failed or not."""
    app = fetch_graph(policy, errors)
    try:
        run = app.trace({"symbol": "ACME"})
    except Exception as error:  # the run's records come with its error
        run = error.run
    return next(r for s in run.steps for r in s.execution.results if r.task.node == "fetch")


def _is_policy(answer: Any) -> bool:
    if isinstance(answer, RetryPolicy):  # (a NamedTuple: a tuple too)
        return True
    return isinstance(answer, (list, tuple)) and all(isinstance(p, RetryPolicy) for p in answer)


def _from_langgraph(answer: Any) -> Any:
    """``answer`` with each of LangGraph's RetryPolicy in it (alone or in a list) made
    graphkit's, field for field: the same policy, for the check's graphkit graph."""

    one = as_graphkit_retry_policy
    if one(answer) is answer and isinstance(answer, (list, tuple)):  # (policies: tuples too)
        return answer if isinstance(answer, RetryPolicy) else [one(p) for p in answer]
    return one(answer)


def _not_a_policy(policy: Any) -> Wrong:
    """What is wrong with an answer that is no graphkit ``RetryPolicy``."""
    if policy is RetryPolicy:
        return Wrong(
            "policy is the class RetryPolicy itself, not a policy made with it.",
            "Call it with the fields you need: RetryPolicy(retry_on=..., max_attempts=..., "
            "initial_interval=0.01).",
        )
    return Wrong(
        f"policy is {show(policy, 60)}, not a RetryPolicy.",
        "Build one: RetryPolicy(retry_on=..., max_attempts=..., initial_interval=0.01).",
    )


def _policies(policy: Any) -> list[Any]:
    return [policy] if isinstance(policy, RetryPolicy) else list(policy)


def _deciding(policies: list[Any], error: Exception) -> tuple[int, Any] | None:
    """The (place, policy) that decides whether ``error`` is tried again: as in
    LangGraph, the first whose ``retry_on`` takes it; None when none does."""
    for place, policy in enumerate(policies):
        with contextlib.suppress(Exception):  # (a retry_on that raises: the run says so)
            if policy.should_retry(error):
                return place, policy
    return None


_SLOW = 5.0
"""Seconds of waiting between fetch's tries past which a policy is told to wait less
before the check runs it: the check runs every retry for real, within its time limit
(15 s), and a longer wait would be told it never finished."""


def _waits(policy: Any) -> float:
    """The least seconds ``policy`` waits before fetch's second and third tries (jitter
    only adds to it)."""
    attempts = range(2, min(policy.max_attempts, 3) + 1)
    return sum(policy.interval(attempt, jitter=0.0) for attempt in attempts)


def _which(place: int, policies: list[Any]) -> str:
    """``your policy``, or which of a list's: ``your second policy``."""
    if len(policies) == 1:
        return "your policy"
    ordinals = ("first", "second", "third", "fourth", "fifth")
    return f"your {ordinals[place]} policy" if place < 5 else f"your policy number {place + 1}"


def _not_retried(policy: Any) -> str:
    """The hint for a policy whose retry_on does not take RateLimited."""
    retry_on = policy.retry_on
    if isinstance(retry_on, type):
        return (
            f"Your retry_on, {retry_on.__name__}, tries again only errors of that class "
            "and its subclasses, and RateLimited is not one of them."
        )
    if isinstance(retry_on, (list, tuple)):
        names = ", ".join(getattr(c, "__name__", repr(c)) for c in retry_on)
        return (
            f"Your retry_on, ({names}), tries again only errors of those classes and "
            "their subclasses, and RateLimited is not one of them."
        )
    with contextlib.suppress(Exception):
        if retry_on(RateLimited("429")) is None:
            return (
                "Your retry_on returned None for fetch's RateLimited, and None counts as "
                "False: a function returns None when no return statement runs. Return "
                "True for the errors to try again."
            )
    return (
        "Your retry_on returned False for fetch's RateLimited: it is called with the "
        "exception itself (an instance of the class, not the class or its name) and "
        "returns True to try again."
    )


@exercise("12.1 · Retry the right errors")
def check_retry_policy(policy: Any) -> str:
    """``policy`` must let ``fetch`` through two ``RateLimited`` errors (it answers on
    its third try) and must not try a ``BadRequest`` again."""
    policy = _from_langgraph(policy)
    if not _is_policy(policy):
        raise _not_a_policy(policy)
    policies = _policies(policy)
    if not policies:
        raise Wrong(
            "policy is an empty list: no policy, so no error is tried again, and fetch's "
            "first RateLimited would fail the run.",
            "Put your RetryPolicy in the list, or pass it alone.",
        )
    deciding = _deciding(policies, RateLimited("429"))
    if deciding is not None and (waits := _waits(deciding[1])) > _SLOW:
        raise Wrong(
            f"{_which(deciding[0], policies).capitalize()} waits {waits:g} seconds before "
            "fetch's second and third tries (initial_interval="
            f"{deciding[1].initial_interval:g}, times backoff_factor at each retry), so "
            f"the check would wait that long, or more, for a call rate-limited twice.",
            "Keep initial_interval tiny, as the exercise asks: the check runs each retry "
            "for real, waits included.",
        )
    limited = _fetch_result(policy, [RateLimited, RateLimited])
    if limited.error is not None and not isinstance(limited.error, RateLimited):
        # (a retry_on function that raised: the run fails with its error, not fetch's)
        raise Wrong(
            f"fetch raised RateLimited, and asked whether to try again, your retry_on "
            f"raised {type(limited.error).__name__}: {limited.error}. The run failed at "
            "step 1 with that error.",
            "retry_on(error) is called with the exception itself, a RateLimited instance: "
            "test its class, or give retry_on the exception classes to retry in place of "
            "a function.",
        )
    if limited.error is not None:
        tries = limited.attempts
        if tries == 1 and deciding is not None:
            raise Wrong(
                "fetch raised RateLimited on its first try and your policy did not try it "
                "again, so the run failed at step 1. The API would have answered on the "
                "third try.",
                f"max_attempts={deciding[1].max_attempts} allows the first try alone: "
                "max_attempts counts every try, the first one included.",
            )
        if tries == 1:
            raise Wrong(
                "fetch raised RateLimited on its first try and your policy did not try it "
                "again, so the run failed at step 1. The API would have answered on the "
                "third try.",
                _not_retried(policies[0]),
            )
        raise Wrong(
            f"fetch raised RateLimited {tries} times and your policy gave up after attempt "
            f"{tries}, so the run failed at step 1. The API would have answered on the "
            "third try.",
            "max_attempts counts every try, the first one included.",
        )
    bad = _fetch_result(policy, [BadRequest] * 5)
    if bad.attempts > 1:
        place, retrying = _deciding(policies, BadRequest("400")) or (0, policies[0])
        which = "" if len(policies) == 1 else f" ({_which(place, policies)}'s)"
        raise Wrong(
            f"fetch raised BadRequest and your policy tried it {bad.attempts} times: a bad "
            "request fails the same way every time, so each retry is one more wasted call "
            "(and one more wait). RateLimited passed.",
            f"Your retry_on{which} accepts BadRequest too: let it accept only the errors "
            "worth trying again."
            if retrying.retry_on is not RetryPolicy().retry_on
            else f"The default retry_on{which} tries again any "
            "error but a few built-in ones that say the code is wrong (ValueError, "
            "TypeError, LookupError, ...), and BadRequest, an exception class of the "
            "API's own, is none of them. Name the errors to retry instead.",
        )
    return (
        f"fetch answered on attempt {limited.attempts} after two RateLimited errors, and a "
        "BadRequest failed the step at once, on attempt 1."
    )


# -- 12.2 · A fallback that finishes the run --------------------------------------------


class Quote(TypedDict, total=False):
    symbol: str
    price: str
    answer: str
    log: Annotated[list, operator.add]


def quote_graph(handler: Callable[..., Any] | None, lib: Any = None) -> Any:
    """``START → live_price → reply`` and ``cached_price → reply``: ``live_price`` calls
    a quotes API that is down (it always raises ``ConnectionError``) and has the error
    handler ``handler``; ``cached_price`` reads yesterday's price. ``lib``: a namespace
    with ``StateGraph``, ``START``, ``END`` and ``InMemorySaver`` (the tests pass
    LangGraph's); graphkit's by default."""
    END, START, StateGraph, _ = _names(lib)

    def live_price(state: Quote) -> dict:
        raise ConnectionError(f"quotes API is down (asked for {state['symbol']})")

    def cached_price(state: Quote) -> dict:
        return {"price": "41.50 (yesterday's close)", "log": ["cached_price"]}

    def reply(state: Quote) -> dict:
        return {"answer": f"{state['symbol']}: {state.get('price', 'no price')}"}

    builder = StateGraph(Quote)
    builder.add_node("live_price", live_price, error_handler=handler)
    builder.add_node("cached_price", cached_price)
    builder.add_node("reply", reply)
    builder.add_edge(START, "live_price")
    builder.add_edge("live_price", "reply")
    builder.add_edge("cached_price", "reply")
    builder.add_edge("reply", END)
    with warnings.catch_warnings():  # (only a Command from the handler leads to cached_price)
        warnings.simplefilter("ignore", GraphkitWarning)
        return builder.compile()


EXPECTED_ANSWER = "ACME: 41.50 (yesterday's close)"


@exercise("12.2 · A fallback that finishes the run")
def check_fallback(handler: Callable[..., Any]) -> str:
    """``handler``, the error handler of ``live_price``, must send the run to
    ``cached_price``, so that ``reply`` answers with yesterday's price."""
    if not callable(handler):
        raise Wrong(
            f"handler is {show(handler, 60)}, not a function.",
            "Write def handler(state, error: NodeError): ... and pass the function.",
        )
    if inspect.iscoroutinefunction(handler):
        # (trace would await it; invoke refuses it, as LangGraph's invoke does)
        raise Wrong(
            "Your handler is an async def, and the graph runs synchronously "
            "(app.invoke): the run refuses an async node or handler, as LangGraph's does.",
            "Make the handler a plain def; an async one needs await app.ainvoke(...).",
        )
    app = compiled(quote_graph(handler))
    try:
        run = app.trace({"symbol": "ACME", "log": []})
    except TypeError as error:
        if "concatenate list" in str(error):  # (log's reducer, operator.add, got no list)
            raise Wrong(
                f"The run failed: TypeError: {error}: your handler's update for log is no "
                "list, and log adds each write to its list (operator.add).",
                "Write log's entry in a list: update={'log': ['...']}.",
            ) from None
        if "error" not in str(error):
            raise
        raise Wrong(  # (graphkit's message says why: the annotation is missing)
            f"Running your handler raised TypeError: {error}",
            "Write the parameter as error: NodeError (from graphkit.errors import NodeError).",
        ) from None
    except InvalidUpdateError as error:  # (the handler returned; the run refused its value)
        raise Wrong(
            f"The run refused what your handler returned: {str(error).rstrip('.')}.",
            "Return graphkit's Command, or a dict of state keys, from the handler.",
        ) from None
    except Exception as error:
        raise Wrong(
            f"The run failed: {type(error).__name__}: {error}. When an error handler raises, "
            "the run fails with the handler's error.",
            "Return a Command (or a dict) from the handler; do not raise.",
        ) from None
    results = {r.task.node: r for s in run.steps for r in s.execution.results}
    mine = results.get("__error_handler__live_price")
    ran = [s.step for s in run.steps for r in s.execution.results if r.task.node == "cached_price"]
    output = getattr(mine, "output", None) if mine is not None else None
    if not ran:
        nodes = sorted(n for n in app.spec.nodes if not n.startswith("__"))
        goto = getattr(output, "goto", None)
        targets = [goto] if isinstance(goto, str) else list(goto or ())
        strays = [t for t in targets if isinstance(t, str) and t not in nodes]
        if strays:
            raise Wrong(
                f"Your handler ran at step 1 and returned a Command going to {strays[0]!r}, "
                f"which is not a node (the nodes are {', '.join(n for n in nodes)}): nothing "
                "ran for it, and the run ended after step 1 with no answer.",
                "goto takes the node's name as add_node gave it.",
            )
        replied = [s.step for s in run.steps for r in s.execution.results if r.task.node == "reply"]
        if replied:
            raise Wrong(
                f"Your handler ran at step 1 (where live_price failed) and sent the run to "
                f"reply (step {replied[0]}), which answered "
                f"{show(run.values.get('answer'), 40)}: cached_price, which writes yesterday's "
                "price, never ran.",
                "Send the run to the node that writes the fallback price, cached_price: its "
                "own edge leads on to reply.",
            )
        raise Wrong(
            f"Your handler ran at step 1 (where live_price failed) and returned "
            f"{show(output, 80)}; cached_price never ran, nor did reply: when a handler "
            "takes over, the failed node's edges are not taken, so the run ended after step "
            f"1 with answer {show(run.values.get('answer'), 40)}.",
            "Send the run on from the handler: return a Command whose goto is the node to "
            "run next.",
        )
    replies = [s.step for s in run.steps for r in s.execution.results if r.task.node == "reply"]
    early = [step for step in replies if step <= ran[0]]
    if early:
        answers = [
            c.after
            for s in run.steps
            if s.step == early[0] and s.update is not None
            for c in [s.update.change("answer")]
            if c is not None
        ]
        said = f", and answered {show(answers[0], 40)}" if answers else ""
        raise Wrong(
            f"reply ran at step {early[0]} too, beside cached_price{said}: your handler "
            f"sent the run to reply as well as to cached_price, so reply answered before "
            f"any price was there (and again at step {replies[-1]}).",
            "Send the run to cached_price alone: its own edge leads on to reply.",
        )
    answer = run.values.get("answer")
    if answer != EXPECTED_ANSWER:
        raise Wrong(
            f"cached_price ran at step {ran[0]}, but the run ended with answer "
            f"{show(answer, 60)}, not {EXPECTED_ANSWER!r}.",
            "Let cached_price write the price, and reply answer from it: route, do not write.",
        )
    _leaves_the_price(run)
    _same_for_another_symbol(handler)
    return (
        "live_price failed at step 1; your handler ran in that same step and sent the run to "
        f"cached_price (step {ran[0]}), then reply answered {EXPECTED_ANSWER!r}."
    )


def _leaves_the_price(run: Any) -> None:
    """The handler routes and leaves ``price`` to ``cached_price``, as the exercise asks:
    a price it wrote is in the state for a step, then ``cached_price`` writes over it, so
    the answer alone cannot show it."""
    for superstep in run.steps:
        change = superstep.update.change("price") if superstep.update else None
        if change is not None and "__error_handler__live_price" in change.writers:
            raise Wrong(
                f"Your handler wrote price ({show(change.after, 40)}) at step "
                f"{superstep.step}, and cached_price wrote over it at step "
                f"{superstep.step + 1}: the answer is right, but for one step the state held "
                "a price nobody fetched, and price has two writers.",
                "Leave price out of the handler's update: cached_price writes it. The "
                "handler only decides where the run goes (its update may add to log).",
            )


def _same_for_another_symbol(handler: Callable[..., Any]) -> None:
    """The handler, run again for another symbol: a fallback that works for ACME alone
    (it tests the symbol) is no fallback."""
    symbol = "GLOBEX"
    app = compiled(quote_graph(handler))
    try:
        answer = app.invoke({"symbol": symbol, "log": []}).get("answer")
    except Exception as error:
        answer = f"{type(error).__name__}: {error}"
    if answer != f"{symbol}: 41.50 (yesterday's close)":
        raise Wrong(
            f"For ACME your handler sent the run to cached_price, but asked for {symbol} the "
            f"run ended with answer {show(answer, 60)}.",
            "live_price fails the same way whatever the symbol: route every failure of it "
            "to cached_price, without looking at the state.",
        )


# -- 12.3 · Which nodes run when you resume? ---------------------------------------------


class Article(TypedDict, total=False):
    topic: str
    notes: Annotated[list, operator.add]
    draft: str
    post: str


def resume_quiz(
    fail: dict[str, bool] | None = None, calls: Counter[str] | None = None, lib: Any = None
) -> Any:
    """``plan → search, translate, summarize``; ``search → compose``, ``translate →
    compose``, ``summarize → publish``. ``summarize`` raises while ``fail["on"]``;
    ``calls`` counts each node's runs. Compiled with an ``InMemorySaver`` (``lib``: as
    for ``quote_graph``)."""
    fail = {"on": False} if fail is None else fail
    calls = Counter() if calls is None else calls
    END, START, StateGraph, InMemorySaver = _names(lib)

    def node(name: str, update: Callable[[Article], dict]) -> Callable[[Article], dict]:
        def run(state: Article) -> dict:
            calls[name] += 1
            if name == "summarize" and fail["on"]:
                raise ConnectionError("the summary model timed out")
            return update(state)

        run.__name__ = name
        return run

    builder = StateGraph(Article)
    builder.add_node("plan", node("plan", lambda s: {"notes": [f"plan {s['topic']}"]}))
    builder.add_node("search", node("search", lambda s: {"notes": ["3 sources"]}))
    builder.add_node("translate", node("translate", lambda s: {"notes": ["in French"]}))
    builder.add_node("summarize", node("summarize", lambda s: {"notes": ["a summary"]}))
    builder.add_node("compose", node("compose", lambda s: {"draft": "; ".join(s["notes"])}))
    builder.add_node("publish", node("publish", lambda s: {"post": f"posted: {s['topic']}"}))
    builder.add_edge(START, "plan")
    for source, target in [
        ("plan", "search"),
        ("plan", "translate"),
        ("plan", "summarize"),
        ("search", "compose"),
        ("translate", "compose"),
        ("summarize", "publish"),
        ("compose", END),
        ("publish", END),
    ]:
        builder.add_edge(source, target)
    return builder.compile(checkpointer=InMemorySaver())


def resumed_nodes() -> tuple[set[str], Any, Any]:
    """Run the quiz's graph until ``summarize`` fails, fix it, resume: the nodes whose
    code ran during the resume, the resumed run's records, and the app."""
    fail, calls = {"on": True}, Counter[str]()
    app = resume_quiz(fail, calls)
    config = {"configurable": {"thread_id": "quiz"}}
    with contextlib.suppress(ConnectionError):  # (summarize raises: the run fails)
        app.invoke({"topic": "tea", "notes": []}, config)
    fail["on"], before = False, Counter(calls)
    run = trace(app, None, config)
    return {n for n in calls if calls[n] > before[n]}, run, app


@exercise("12.3 · Which nodes run when you resume?")
def check_resume_prediction(will_run: Any) -> str:
    """``will_run``: the set of nodes whose code runs when the failed thread of
    ``resume_quiz`` is resumed with ``invoke(None, config)``."""
    if isinstance(will_run, str) or not isinstance(will_run, (set, frozenset, list, tuple)):
        raise Wrong(
            f"will_run is {show(will_run, 60)}; give a set of node names, like {{'a', 'b'}}.",
            "Write the names as strings in a set.",
        )
    guess = set(will_run)
    truth, run, app = resumed_nodes()
    nodes = {n for n in app.spec.nodes if not n.startswith("__")}
    unknown = sorted(guess - nodes)
    if unknown:
        raise Wrong(
            f"{', '.join(map(repr, unknown))} is not a node of the graph; its nodes are "
            f"{', '.join(sorted(nodes))}.",
            "Use the names the drawing shows.",
        )
    extra, missing = sorted(guess - truth), sorted(truth - guess)
    if not extra and not missing:
        return (
            f"Resuming ran {', '.join(sorted(truth))}: step 2 again, where only summarize had "
            "not finished (the saved writes of search and translate were applied), then "
            "step 3."
        )
    if not guess:  # (the stub: neither which nodes nor how many, so the drawing is read)
        raise Wrong(
            "You predicted no node, but the resume runs some.",
            "A resume plans the failed step again, and runs there only what had not "
            "finished; then the run goes on, step after step, as usual. Follow the edges on "
            "the drawing.",
        )
    lines = []
    for node in extra:
        if node == "plan":
            lines.append(
                "plan did not run again: it ran in step 1, whose checkpoint was saved, and a "
                "resume starts from the last checkpoint, not from the beginning."
            )
        else:
            lines.append(f"You listed {node}, but its code did not run: {_reused(run, node)}")
    if "summarize" in missing:
        lines.append(
            "summarize, the node that raised, ran again: nothing of a failed task is saved, "
            "so the resume runs it from its start."
        )
        missing.remove("summarize")
    if missing:
        lines.append(
            f"Your set misses {len(missing)} node{'s' if len(missing) > 1 else ''} that ran "
            "after step 2 was done: a resume does not stop after the step it re-plans."
        )
    hint = (
        "A resume plans the failed step again, and runs there only what had not finished; "
        "then the run goes on, step after step, as usual. Follow the edges on the drawing."
    )
    raise Wrong(" ".join(lines), hint)


def _reused(run: Any, node: str) -> str:
    """Why a node of the resumed step did not run, from the records."""
    step = run.steps[0]
    if any(r.task.node == node and r.reused for r in step.execution.results):
        return (
            f"it had finished in step {step.step} before summarize raised, so its writes "
            "were saved with the thread (pending writes), and the resume applied them."
        )
    return str(run.why(node).answers[0].summary)
