"""Cases about how nodes are run: deferred nodes, retry policies and managed values
(`RemainingSteps`, `IsLastStep`).

A flaky node keeps its attempt counter in a closure made by `build(lib)`, so each library's
graph has its own; a `reset` node at the start of the graph zeroes it, so each of the
harness's runs (invoke, stream, values stream) sees the same failures.
"""

import asyncio
import operator
from typing import Annotated, TypedDict

from .harness import Case, Lib, Raised, appender


class Log(TypedDict):
    log: Annotated[list, operator.add]


class Counter(TypedDict):
    n: int
    log: Annotated[list, operator.add]


class Boom(Exception):
    """A user's own exception; it must come out of invoke/stream as itself."""


def _with_nodes(lib: Lib, names: list[str] | str, schema: type = Log):
    """A builder holding one `appender` node per name."""
    graph = lib.StateGraph(schema)
    for name in names:
        graph.add_node(name, appender(name))
    return graph


# --- defer=True ------------------------------------------------------------------------------


def defer_unequal_branches(lib: Lib):
    """Branches of length 1 and 3 both lead to "join"; deferred, it runs once, at the end."""
    graph = _with_nodes(lib, ["a", "b1", "b2", "b3"])
    graph.add_node("join", appender("join"), defer=True)
    graph.add_edge(lib.START, "a")
    graph.add_edge(lib.START, "b1")
    graph.add_edge("b1", "b2")
    graph.add_edge("b2", "b3")
    graph.add_edge("a", "join")
    graph.add_edge("b3", "join")
    return graph.compile()


def defer_waiting_edge(lib: Lib):
    """A waiting edge [a, b2] -> join into a deferred node: satisfied, then held to the end."""
    graph = _with_nodes(lib, ["a", "b1", "b2", "b3", "c"])
    graph.add_node("join", appender("join"), defer=True)
    graph.add_edge(lib.START, "a")
    graph.add_edge(lib.START, "b1")
    graph.add_edge("b1", "b2")
    graph.add_edge("b2", "b3")
    graph.add_edge("a", "c")
    graph.add_edge(["a", "b2"], "join")
    return graph.compile()


def defer_in_loop(lib: Lib):
    """Each round, "work" wakes "fast" (then "slow") and the deferred "review"; "review" runs
    once "slow" is done, then loops back to "work" until n reaches 3."""

    def work(state: Counter) -> dict:
        return {"n": state["n"] + 1, "log": [f"work {state['n']}"]}

    def again(state: Counter) -> str:
        return "work" if state["n"] < 3 else lib.END

    graph = _with_nodes(lib, ["fast", "slow"], Counter)
    graph.add_node("work", work)
    graph.add_node("review", lambda state: {"log": [f"review {state['n']}"]}, defer=True)
    graph.add_edge(lib.START, "work")
    graph.add_edge("work", "fast")
    graph.add_edge("fast", "slow")
    graph.add_edge("work", "review")
    graph.add_conditional_edges("review", again, ["work", lib.END])
    return graph.compile()


def _round(n: int) -> list[str]:
    """What one round of `defer_in_loop` logs."""
    return [f"work {n}", "fast", "slow", f"review {n + 1}"]


def defer_after_sends(lib: Lib):
    """Sent workers of depths 1-3 (each re-sends itself by Command) all go to a deferred
    "join": it runs once, after the deepest."""

    def fan_out(state: Counter) -> list:
        return [lib.Send("work", k) for k in range(3)]

    def work(k: int):
        goto = lib.Send("work", k - 1) if k > 0 else "join"
        return lib.Command(update={"log": [f"work {k}"]}, goto=goto)

    graph = lib.StateGraph(Counter)
    graph.add_node("work", work, destinations=("work", "join"))
    graph.add_node("join", lambda state: {"n": len(state["log"])}, defer=True)
    graph.add_conditional_edges(lib.START, fan_out)
    return graph.compile()


# --- RetryPolicy -----------------------------------------------------------------------------


def _flaky_graph(lib: Lib, error: Exception, fails: int, policy, *, use_async=False, beside=""):
    """reset -> flaky -> done; "flaky" raises `error` on its first `fails` attempts of a run.
    `beside` names a steady node that runs in the same step as "flaky"."""
    attempts = [0]

    def reset(state: Log) -> dict:
        attempts[0] = 0
        return {"log": ["reset"]}

    def flaky(state: Log) -> dict:
        attempts[0] += 1
        if attempts[0] <= fails:
            raise error
        return {"log": [f"flaky on attempt {attempts[0]}"]}

    async def flaky_async(state: Log) -> dict:
        await asyncio.sleep(0)
        return flaky(state)

    graph = _with_nodes(lib, ["done"])
    graph.add_node("reset", reset)
    graph.add_node("flaky", flaky_async if use_async else flaky, retry_policy=policy)
    graph.add_edge(lib.START, "reset")
    graph.add_edge("reset", "flaky")
    graph.add_edge("flaky", "done")
    if beside:
        graph.add_node(beside, appender(beside))
        graph.add_edge("reset", beside)
    return graph.compile()


def flaky(error: Exception, fails: int, *, use_async=False, beside="", **policy):
    def build(lib: Lib):
        retry = lib.RetryPolicy(initial_interval=0, jitter=False, **policy)
        return _flaky_graph(lib, error, fails, retry, use_async=use_async, beside=beside)

    return build


def flaky_with_policies(lib: Lib):
    """A list of policies: the first whose retry_on matches decides (here the second)."""
    policies = [
        lib.RetryPolicy(initial_interval=0, jitter=False, retry_on=KeyError, max_attempts=2),
        lib.RetryPolicy(initial_interval=0, jitter=False, retry_on=Boom, max_attempts=4),
    ]
    return _flaky_graph(lib, Boom("flaky"), 3, policies)


def _transient(error: Exception) -> bool:
    return "transient" in str(error)


# --- managed values --------------------------------------------------------------------------


def managed_loop(lib: Lib):
    """A loop that stops itself while two steps remain; its router reads the same value."""

    class State(TypedDict):
        log: Annotated[list, operator.add]
        remaining: lib.managed.RemainingSteps

    def step(state: State) -> dict:
        return {"log": [f"step sees {state['remaining']}"]}

    def again(state: State) -> str:
        return "step" if state["remaining"] > 2 else "stop"

    graph = lib.StateGraph(State)
    graph.add_node("step", step)
    graph.add_node("stop", lambda state: {"log": [f"stop sees {state['remaining']}"]})
    graph.add_edge(lib.START, "step")
    graph.add_conditional_edges("step", again, ["step", "stop"])
    return graph.compile()


def managed_last_step(lib: Lib):
    """A loop ended by its router on the last step the recursion limit allows."""

    class State(TypedDict):
        log: Annotated[list, operator.add]
        last: lib.managed.IsLastStep
        remaining: lib.managed.RemainingSteps

    def step(state: State) -> dict:
        return {"log": [(state["remaining"], state["last"])]}

    def again(state: State) -> str:
        return lib.END if state["last"] else "step"

    graph = lib.StateGraph(State)
    graph.add_node("step", step)
    graph.add_edge(lib.START, "step")
    graph.add_conditional_edges("step", again, ["step", lib.END])
    return graph.compile()


def managed_from_start(lib: Lib):
    """A router on START reads the managed values (the first loop step's), and a node that
    writes one has the write dropped."""

    class State(TypedDict):
        log: Annotated[list, operator.add]
        remaining: lib.managed.RemainingSteps
        last: lib.managed.IsLastStep

    def route(state: State) -> str:
        return "wide" if state["remaining"] > 3 else "narrow"

    def report(name: str):
        def node(state: State) -> dict:
            text = f"{name}: {state['remaining']} left, last={state['last']}"
            return {"log": [text], "remaining": 99}

        return node

    graph = lib.StateGraph(State)
    graph.add_node("wide", report("wide"))
    graph.add_node("narrow", report("narrow"))
    graph.add_conditional_edges(lib.START, route, ["wide", "narrow"])
    return graph.compile()


def managed_in_a_subgraphs_input(lib: Lib):
    """A subgraph whose state (shared with its parent) has a managed value: the parent's
    whole state is its input, managed key included, dropped without a word."""

    class State(TypedDict):
        log: Annotated[list, operator.add]
        remaining: lib.managed.RemainingSteps

    def inner(state: State) -> dict:
        return {"log": [f"inner sees {state['remaining']}"]}

    sub = lib.StateGraph(State).add_node("inner", inner).add_edge(lib.START, "inner")
    graph = lib.StateGraph(State).add_node("sub", sub.compile())
    graph.add_edge(lib.START, "sub")
    return graph.compile()


CASES = [
    Case(
        "defer-unequal-branches",
        defer_unequal_branches,
        inputs=({"log": []},),
        expected=({"log": ["a", "b1", "b2", "b3", "join"]},),
    ),
    Case(
        "defer-waiting-edge",
        defer_waiting_edge,
        inputs=({"log": []},),
        expected=({"log": ["a", "b1", "b2", "c", "b3", "join"]},),
    ),
    Case(
        "defer-in-loop",
        defer_in_loop,
        inputs=({"n": 0, "log": []},),
        expected=({"n": 3, "log": [*_round(0), *_round(1), *_round(2)]},),
    ),
    Case(
        "defer-after-sends",
        defer_after_sends,
        inputs=({"n": 0, "log": []},),
        expected=({"n": 6, "log": ["work 0", "work 1", "work 2", "work 0", "work 1", "work 0"]},),
    ),
    Case(
        "retry-default-retries-connection-error",
        flaky(ConnectionError("down"), 2, max_attempts=3),
        inputs=({"log": []},),
        expected=({"log": ["reset", "flaky on attempt 3", "done"]},),
    ),
    Case(
        "retry-default-not-on-value-error",
        flaky(ValueError("bad"), 1, max_attempts=3),
        inputs=({"log": []},),
        expected=(Raised("ValueError"),),
    ),
    Case(
        "retry-attempts-exhausted",
        flaky(ConnectionError("down"), 3, max_attempts=3),
        inputs=({"log": []},),
        expected=(Raised("ConnectionError"),),
    ),
    Case(
        "retry-on-class",
        flaky(ValueError("bad"), 1, retry_on=ValueError),
        inputs=({"log": []},),
        expected=({"log": ["reset", "flaky on attempt 2", "done"]},),
    ),
    Case(
        "retry-on-tuple",
        flaky(Boom("flaky"), 2, retry_on=(KeyError, Boom)),
        inputs=({"log": []},),
        expected=({"log": ["reset", "flaky on attempt 3", "done"]},),
    ),
    Case(
        "retry-on-tuple-not-matching",
        flaky(Boom("flaky"), 1, retry_on=(KeyError, ValueError)),
        inputs=({"log": []},),
        expected=(Raised("Boom"),),
    ),
    Case(
        "retry-on-predicate",
        flaky(Boom("transient glitch"), 2, retry_on=_transient),
        inputs=({"log": []},),
        expected=({"log": ["reset", "flaky on attempt 3", "done"]},),
    ),
    Case(
        "retry-on-predicate-refuses",
        flaky(Boom("fatal"), 1, retry_on=_transient),
        inputs=({"log": []},),
        expected=(Raised("Boom"),),
    ),
    Case(
        "retry-first-matching-policy-decides",
        flaky_with_policies,
        inputs=({"log": []},),
        expected=({"log": ["reset", "flaky on attempt 4", "done"]},),
    ),
    Case(
        "retry-beside-a-steady-node",
        flaky(ConnectionError("down"), 2, beside="steady"),
        inputs=({"log": []},),
        expected=({"log": ["reset", "flaky on attempt 3", "steady", "done"]},),
    ),
    Case(
        "retry-async-node",
        flaky(ConnectionError("down"), 1, use_async=True),
        inputs=({"log": []},),
        expected=({"log": ["reset", "flaky on attempt 2", "done"]},),
        run_async=True,
    ),
    Case(
        "managed-remaining-steps-limit-5",
        managed_loop,
        inputs=({"log": []},),
        expected=({"log": ["step sees 4", "step sees 3", "step sees 2", "stop sees 1"]},),
        config={"recursion_limit": 5},
    ),
    Case(
        "managed-remaining-steps-limit-8",
        managed_loop,
        inputs=({"log": []},),
        expected=({"log": [*(f"step sees {k}" for k in range(7, 1, -1)), "stop sees 1"]},),
        config={"recursion_limit": 8},
    ),
    Case(
        "managed-is-last-step-limit-4",
        managed_last_step,
        inputs=({"log": []},),
        expected=({"log": [(3, False), (2, False), (1, True)]},),
        config={"recursion_limit": 4},
    ),
    Case(
        "managed-is-last-step-limit-7",
        managed_last_step,
        inputs=({"log": []},),
        expected=({"log": [*((k, False) for k in range(6, 1, -1)), (1, True)]},),
        config={"recursion_limit": 7},
    ),
    Case(
        "managed-router-on-start-limit-3",
        managed_from_start,
        inputs=({"log": []},),
        expected=({"log": ["narrow: 2 left, last=False"]},),
        config={"recursion_limit": 3},
        warns=True,
    ),
    Case(
        "managed-router-on-start-limit-4",
        managed_from_start,
        inputs=({"log": []},),
        expected=({"log": ["wide: 3 left, last=False"]},),
        config={"recursion_limit": 4},
        warns=True,
    ),
    Case(
        "managed-in-a-subgraphs-input",
        managed_in_a_subgraphs_input,
        inputs=({"log": []}, {"log": [], "remaining": 3}),
        expected=({"log": ["inner sees 10006"]}, {"log": ["inner sees 10006"]}),
    ),
]
