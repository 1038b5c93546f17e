"""``StateGraph.set_node_defaults`` (issue 14, item 14): a retry policy for every node that
does not name its own, as in LangGraph 1.2. graphkit refuses the defaults it cannot honour
yet (error_handler, timeout) the way ``add_node`` refuses them (cache_policy: see
test_parity_cache.py)."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph

LIBS = {"langgraph": load_langgraph, "graphkit": load_graphkit}


class State(TypedDict):
    log: list


def policy(lib: Lib, attempts: int) -> Any:
    return lib.RetryPolicy(max_attempts=attempts, initial_interval=0.0, jitter=False)


def flaky(calls: list[str], name: str, failures: int) -> Any:
    """A node that raises ConnectionError ``failures`` times, then succeeds."""

    def node(state: State) -> dict:
        calls.append(name)
        if calls.count(name) <= failures:
            raise ConnectionError(f"{name} failed")
        return {"log": [*state["log"], name]}

    return node


def run(app: Any, how: str = "sync") -> Any:
    """The final state, or the class name of what the run raised."""
    try:
        if how == "async":
            return asyncio.run(app.ainvoke({"log": []}))
        return app.invoke({"log": []})
    except Exception as error:
        return type(error).__name__


def observe(library: str, arrange: Any, how: str = "sync") -> tuple[Any, list[str]]:
    """Build a graph with ``arrange(lib, builder, calls)`` and run it: (result, calls)."""
    lib = LIBS[library]()
    calls: list[str] = []
    builder = lib.StateGraph(State)
    arrange(lib, builder, calls)
    return run(builder.compile(), how), calls


def same(arrange: Any, how: str = "sync") -> tuple[Any, list[str]]:
    expected = observe("langgraph", arrange, how)
    assert observe("graphkit", arrange, how) == expected
    return expected


# -- retries ------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["sync", "async"])
def test_the_default_retries_every_node(how):
    def arrange(lib, builder, calls):
        builder.set_node_defaults(retry_policy=policy(lib, 3))
        builder.add_node("a", flaky(calls, "a", 2)).add_node("b", flaky(calls, "b", 1))
        builder.add_edge(lib.START, "a").add_edge("a", "b")

    result, calls = same(arrange, how)
    assert result == {"log": ["a", "b"]}
    assert calls == ["a", "a", "a", "b", "b"]


def test_set_after_add_node_applies_too():
    def arrange(lib, builder, calls):
        builder.add_node("a", flaky(calls, "a", 1)).add_edge(lib.START, "a")
        builder.set_node_defaults(retry_policy=policy(lib, 2))

    assert same(arrange) == ({"log": ["a"]}, ["a", "a"])


def test_the_default_gives_up_after_max_attempts():
    def arrange(lib, builder, calls):
        builder.set_node_defaults(retry_policy=policy(lib, 2))
        builder.add_node("a", flaky(calls, "a", 5)).add_edge(lib.START, "a")

    assert same(arrange) == ("ConnectionError", ["a", "a"])


def test_add_nodes_own_policy_wins():
    def arrange(lib, builder, calls):
        builder.set_node_defaults(retry_policy=policy(lib, 5))
        builder.add_node("a", flaky(calls, "a", 5), retry_policy=policy(lib, 2))
        builder.add_node("b", flaky(calls, "b", 0))
        builder.add_edge(lib.START, "a").add_edge(lib.START, "b")

    # a and b run in one step, so in any order: compare how often each ran
    (result, calls), (ours, our_calls) = observe("langgraph", arrange), observe("graphkit", arrange)
    assert (ours, sorted(our_calls)) == (result, sorted(calls))
    assert result == "ConnectionError"
    assert (calls.count("a"), calls.count("b")) == (2, 1)


def test_without_defaults_nothing_is_retried():
    def arrange(lib, builder, calls):
        builder.add_node("a", flaky(calls, "a", 1)).add_edge(lib.START, "a")

    assert same(arrange) == ("ConnectionError", ["a"])


def test_a_list_of_policies_as_the_default():
    def arrange(lib, builder, calls):
        only_value = lib.RetryPolicy(max_attempts=4, initial_interval=0.0, retry_on=ValueError)
        builder.set_node_defaults(retry_policy=[only_value, policy(lib, 3)])
        builder.add_node("a", flaky(calls, "a", 2)).add_edge(lib.START, "a")

    assert same(arrange) == ({"log": ["a"]}, ["a", "a", "a"])


def test_a_later_call_replaces_and_none_keeps():
    def arrange(lib, builder, calls):
        builder.set_node_defaults(retry_policy=policy(lib, 1))
        builder.set_node_defaults(retry_policy=policy(lib, 3))
        builder.set_node_defaults(retry_policy=None)
        builder.set_node_defaults()
        builder.add_node("a", flaky(calls, "a", 2)).add_edge(lib.START, "a")

    assert same(arrange) == ({"log": ["a"]}, ["a", "a", "a"])


@pytest.mark.parametrize("library", LIBS)
def test_it_chains_and_is_keyword_only(library):
    lib = LIBS[library]()
    builder = lib.StateGraph(State)
    assert builder.set_node_defaults(retry_policy=policy(lib, 2)) is builder
    assert builder.set_node_defaults() is builder
    with pytest.raises(TypeError):
        builder.set_node_defaults(policy(lib, 2))
    with pytest.raises(TypeError):
        builder.set_node_defaults(retries=policy(lib, 2))


def test_chained_in_one_expression():
    def arrange(lib, builder, calls):
        (
            builder.set_node_defaults(retry_policy=policy(lib, 2))
            .add_node("a", flaky(calls, "a", 1))
            .add_edge(lib.START, "a")
        )

    assert same(arrange) == ({"log": ["a"]}, ["a", "a"])


def test_a_subgraph_node_is_retried_as_a_whole():
    def arrange(lib, builder, calls):
        inner = lib.StateGraph(State).add_node("i", flaky(calls, "i", 1))
        sub = inner.add_edge(lib.START, "i").compile()
        builder.set_node_defaults(retry_policy=policy(lib, 2))
        builder.add_node("sub", sub).add_edge(lib.START, "sub")

    assert same(arrange) == ({"log": ["i"]}, ["i", "i"])


def test_the_parents_defaults_are_not_the_subgraphs():
    """A subgraph compiled on its own keeps its own (no) defaults: its node fails once, and
    the parent's default retries the subgraph node as a whole."""

    def arrange(lib, builder, calls):
        inner = lib.StateGraph(State).add_node("i", flaky(calls, "i", 2))
        sub = inner.add_edge(lib.START, "i").compile()
        builder.set_node_defaults(retry_policy=policy(lib, 2))
        builder.add_node("sub", sub).add_edge(lib.START, "sub")

    assert same(arrange) == ("ConnectionError", ["i", "i"])


# -- where graphkit and LangGraph differ ----------------------------------------------------


def test_graphkit_recompiles_with_the_defaults_of_the_moment():
    """LangGraph writes the defaults into the builder's nodes at the first compile(), so a
    later change does not reach them; graphkit leaves the builder as declared and applies
    the defaults current at each compile() (docs/compatibility.md)."""

    def second_compile(library: str) -> list[str]:
        lib = LIBS[library]()
        calls: list[str] = []
        builder = lib.StateGraph(State).set_node_defaults(retry_policy=policy(lib, 2))
        builder.add_node("a", flaky(calls, "a", 5)).add_edge(lib.START, "a")
        builder.compile()
        builder.set_node_defaults(retry_policy=policy(lib, 4))
        run(builder.compile())
        return calls

    assert second_compile("langgraph") == ["a", "a"]
    assert second_compile("graphkit") == ["a", "a", "a", "a"]


def test_graphkit_keeps_the_declarations_unchanged():
    lib = load_graphkit()
    builder = lib.StateGraph(State).set_node_defaults(retry_policy=policy(lib, 3))
    builder.add_node("a", lambda s: {}).add_edge(lib.START, "a")
    app = builder.compile()
    assert builder.nodes["a"].retry_policies is None  # as declared: no policy named
    assert app.spec.nodes["a"].retry_policies == (policy(lib, 3),)


# -- error handlers and timeouts (their behaviour: test_parity_node_policies.py) -------------


def test_both_accept_an_error_handler_and_a_timeout():
    for lib in (load_langgraph(), load_graphkit()):
        builder = lib.StateGraph(State)
        given = builder.set_node_defaults(error_handler=lambda state: {}, timeout=1.0)
        assert given is builder


def test_a_bad_default_timeout_is_refused_by_both():
    for lib in (load_langgraph(), load_graphkit()):
        with pytest.raises(ValueError, match="greater than 0"):
            lib.StateGraph(State).set_node_defaults(timeout=0)


def test_a_bad_default_retry_policy_is_refused_with_the_fix():
    lib = load_graphkit()
    with pytest.raises(TypeError, match=r"set_node_defaults\(retry_policy=.*RetryPolicy\("):
        lib.StateGraph(State).set_node_defaults(retry_policy=3)


def test_an_empty_policy_list_opts_a_node_out_of_the_default():
    """``add_node(..., retry_policy=[])`` names a policy (none), so the default does not apply."""

    def arrange(lib, builder, calls):
        builder.set_node_defaults(retry_policy=policy(lib, 3))
        builder.add_node("a", flaky(calls, "a", 1), retry_policy=[]).add_edge(lib.START, "a")

    result, calls = same(arrange)
    assert result == "ConnectionError" and calls == ["a"]


def _a_slow_handler_under_the_default_timeout(lib: Lib) -> Any:
    async def broken(state: State) -> dict:
        raise ValueError("broken")

    async def slow_handler(state: State) -> dict:
        await asyncio.sleep(1.0)
        return {"log": ["handled"]}

    builder = lib.StateGraph(State).set_node_defaults(timeout=0.1)
    builder.add_node("broken", broken, error_handler=slow_handler)
    app = builder.add_edge(lib.START, "broken").compile()
    try:
        return asyncio.run(app.ainvoke({"log": []}))
    except Exception as error:
        return type(error).__name__


def test_graphkit_times_an_error_handler_by_the_default_timeout_as_langgraph_documents():
    """``set_node_defaults(timeout=...)`` "also applies to error-handler nodes", LangGraph's
    docstring says, and its ``compile()`` refuses a sync handler for it; but its runtime
    never gives the handler's task the timeout. graphkit times the handler."""
    assert _a_slow_handler_under_the_default_timeout(load_langgraph()) == {"log": ["handled"]}
    assert _a_slow_handler_under_the_default_timeout(load_graphkit()) == "NodeTimeoutError"
