"""Fuzzing graphkit's recording paths on graphs with async nodes.

10. A random blueprint whose nodes are `async def` (`made_async`) is recorded four ways:
    `stepper` stepped phase by phase and `trace` (both on graphkit's background loop),
    `await atrace` and `await ainvoke` (each under `asyncio.run`). They agree: the same
    error class, status, steps' reprs, values and, per step, the order the tasks
    finished in (inspecting.md, "Graphs with async nodes": the records are the same as
    `atrace`'s; decisions.md: a step's async results come in the order their coroutines
    ended on the loop); `ainvoke` returns the traced values. That order is LangGraph's:
    the node names of LangGraph's `astream(stream_mode="updates")` chunks, in order.
    The same blueprint with sync nodes, traced, has the same error class, status, steps'
    reprs (which nodes ran per step, which channels changed) and values: only the finish
    order of a step's tasks may differ between the sync and async runs (a sync step's
    threads finish in any order; decisions.md, "Async nodes").

Known disagreement, counted, not failed: K10, where a task whose node has a conditional
edge finishes among its async step's tasks (compatibility.md "Known differences").
A race, compared around: K5, where a task's error ended a step, the siblings that end
after it (`settled`: they end, are cancelled, or start a retry as their pool threads
race the stop).

Its long runs with seeds 4711 and 90210 (400 examples each: 300 and 287 graphs
recorded, K10 8 and 1 times; then 2,000: 1,423 and 1,435, K10 29 and 10) passed but
once: seed 4711 at 2,000 stopped on "finish order: trace differs from atrace" in a
step a node's error ended (the race above, now compared with `settled`). Seeds 2718
and 16180 (400 examples: 298 and 249 graphs recorded, K10 11 times and none) passed,
and at 2,000 (1,513 and 1,441 recorded, K10 16 and 9 times). Seeds 8675309 (1,000
examples: 766 graphs recorded, K10 8 times) and 1618033 (3,000: 2,241 recorded, K10 25
times) passed, and so did 141421 (1,000 examples: 783 recorded, K10 8 times) and 662607
(1,500: 1,134 recorded, K10 15 times). Seeds 1729, 299792458 and 6022 (1,000 examples:
734, 730 and 765 recorded, K10 15, 2 and 3 times) passed, and 1729 at 2,000 (1,409
recorded, K10 18 times).
"""

from __future__ import annotations

import asyncio
import copy
import warnings
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from tests.conformance.harness import canonical, load_graphkit, load_langgraph
from tests.fuzz.graphs import START, Blueprint, Node, Way, blueprints, build, scrub
from tests.fuzz.tally import TALLY
from tests.fuzz.test_fuzz import COUNTING, _config, _steps, finding, save_tally
from tests.fuzz.test_fuzz_threads import ci_examples

ASYNC = Way(run_async=True)

INTERRUPT = "__interrupt__"


def _stepped(app: Any, blueprint: Blueprint) -> tuple[Any, BaseException | None, int]:
    """Step the run phase by phase: the run so far, the error that ended it, the phases."""
    stepper = app.stepper(copy.deepcopy(blueprint.input), _config(blueprint, "s"))
    phases = 0
    while not stepper.done:
        phases += 1
        try:
            getattr(stepper, stepper.next_phase)()
        except Exception as error:
            return stepper.run_so_far, error, phases
    return stepper.run_so_far, None, phases


def _traced(start: Any) -> tuple[Any, BaseException | None]:
    """The run `start()` records, and the error that ended it (which carries the run)."""
    try:
        return start(), None
    except Exception as error:
        return error.run, error


def _invoked(app: Any, blueprint: Blueprint) -> Any:
    """What `ainvoke` returns, or the exception it raises."""
    try:
        return asyncio.run(app.ainvoke(copy.deepcopy(blueprint.input), _config(blueprint, "i")))
    except Exception as error:
        return error


def _sync_tasks(blueprint: Blueprint) -> set[str]:
    """The nodes that run as sync tasks in an async run: a compiled subgraph added as a
    node is called through its `invoke` on a pool thread, so where it finishes among its
    step's async tasks is not numbered on the loop (decisions.md, "Async nodes": sync
    tasks are not numbered), where LangGraph awaits it and it mostly ends last."""
    return {node.name for node in blueprint.nodes if node.kind == "subgraph"}


def finished(run: Any, unordered: set[str] = frozenset()) -> list[list[str]]:
    """Per step, the nodes of its tasks in the order they finished (`unordered` left out)."""
    orders = []
    for step in run.steps:
        execution = step.execution
        if execution is None:
            orders.append([])
            continue
        node = {result.task.id: result.task.node for result in execution.results}
        names = [node.get(task, task) for task in execution.finish_order]
        orders.append([name for name in names if name not in unordered])
    return orders


def settled(run: Any, unordered: set[str] = frozenset()) -> list[list[str]]:
    """`finished`, but where a task's error ended its step, the tasks that end after it
    as a sorted list (K5): the step stops, and whether each sibling still running ends,
    is cancelled, or starts its retry before the stop reaches it is a race between the
    pool threads that run them (a flaky node beside a "call" node and two retried ones:
    two orders, 52 and 48 of 100 `atrace` runs; found by the long run with seed 4711)."""
    orders = finished(run, unordered)
    for at, step in enumerate(run.steps):
        first = _failed_at(step.execution, unordered)
        if first is not None:
            orders[at] = orders[at][: first + 1] + sorted(orders[at][first + 1 :])
    return orders


def _failed_at(execution: Any, unordered: set[str]) -> int | None:
    """Where, in the step's finish order (`unordered` left out), the first task whose
    error ended the step is (not one handled, nor one cancelled); None if none is."""
    if execution is None:
        return None
    node = {result.task.id: result.task.node for result in execution.results}
    failed = {
        result.task.id
        for result in execution.results
        if result.error is not None
        and not result.handled
        and not isinstance(result.error, asyncio.CancelledError)
    }
    ended = [task for task in execution.finish_order if node.get(task, task) not in unordered]
    return next((place for place, task in enumerate(ended) if task in failed), None)


def _sorted_after_a_failure(run: Any, unordered: set[str]) -> bool:
    """True when `settled` compares two or more of a step's tasks as a set."""
    orders = finished(run, unordered)
    return any(
        (first := _failed_at(step.execution, unordered)) is not None and len(orders[at]) - first > 2
        for at, step in enumerate(run.steps)
    )


def streamed(run: Any, unordered: set[str]) -> list[str]:
    """The nodes whose update an "updates" stream shows, in the order the run finished
    them: every task of a step that ran, finished without an error or an interrupt, and
    is a node of the graph (not the input); a node whose subgraph sent it a
    `Command(graph=PARENT)` (`routed_up`) too, as LangGraph streams its update."""
    names = []
    for step in run.steps:
        execution = step.execution
        if execution is None or step.step < 0:
            continue
        results = {result.task.id: result for result in execution.results}
        for task in execution.finish_order:
            result = results[task]
            if result.task.node in unordered or result.task.node == "__start__":
                continue
            if result.ok:
                names.append(result.task.node)
    return names


def langgraph_order(
    blueprint: Blueprint, unordered: set[str]
) -> tuple[list[str], BaseException | None] | None:
    """The nodes of LangGraph's `astream(stream_mode="updates")` chunks in order (an
    interrupt's chunk left out), and its error; None if LangGraph refuses the graph."""
    lib = load_langgraph()
    try:
        app = build(blueprint, lib, ASYNC)
    except Exception:
        return None

    async def drain() -> tuple[list[str], BaseException | None]:
        names: list[str] = []
        try:
            config = _config(blueprint, "l")
            async for chunk in app.astream(copy.deepcopy(blueprint.input), config):
                names += [name for name in chunk if name not in {INTERRUPT, *unordered}]
        except Exception as error:
            return names, error
        return names, None

    return asyncio.run(drain())


def _sync_invoked(app: Any, blueprint: Blueprint) -> Any:
    """What the sync blueprint's `invoke` returns, or the exception it raises."""
    try:
        return app.invoke(copy.deepcopy(blueprint.input), _config(blueprint, "i"))
    except Exception as error:
        return error


def _shown(result: Any) -> str:
    """A result by value: an exception by its class, an interrupt by its value."""
    if isinstance(result, BaseException):
        return type(result).__name__
    return canonical(scrub(result))


def finding_or_count(kind: str, text: str) -> None:
    """A known open disagreement: counted once (and, when counting, written down by
    `finding`, which counts it), not failed."""
    if COUNTING:
        finding(kind, text)
    else:
        TALLY[kind] += 1


def _compare(what: str, runs: dict[str, Any], key: Any) -> None:
    """Every run's `key` equals the first's."""
    (first, run), *others = runs.items()
    for name, other in others:
        assert key(other) == key(run), f"{what}: {name} differs from {first}"


@ci_examples(25)
@given(st.one_of(blueprints(), blueprints(interrupts=True)))
def test_async_recordings_agree(blueprint: Blueprint) -> None:
    lib = load_graphkit()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        try:
            build(blueprint, lib, ASYNC)
        except Exception:
            TALLY["10 refused at compile"] += 1
            return
        # each run on a fresh build: a "flaky" node fails once per build
        stepped, stepped_error, phases = _stepped(build(blueprint, lib, ASYNC), blueprint)
        config = _config(blueprint, "t")
        traced, traced_error = _traced(
            lambda: build(blueprint, lib, ASYNC).trace(copy.deepcopy(blueprint.input), config)
        )
        atraced, atraced_error = _traced(
            lambda: asyncio.run(
                build(blueprint, lib, ASYNC).atrace(copy.deepcopy(blueprint.input), config)
            )
        )
        invoked = _invoked(build(blueprint, lib, ASYNC), blueprint)
        sync_invoked = _sync_invoked(build(blueprint, lib), blueprint)
        synced, synced_error = _traced(
            lambda: build(blueprint, lib).trace(copy.deepcopy(blueprint.input), config)
        )
        unordered = _sync_tasks(blueprint)
        theirs = langgraph_order(blueprint, unordered)
    TALLY["10 graphs recorded"] += 1
    TALLY["10 phases stepped"] += phases
    save_tally()
    errors = {"stepper": stepped_error, "trace": traced_error, "atrace": atraced_error}
    _compare("error class", errors, type)
    if traced_error is None and traced.status != "interrupted":
        assert not isinstance(invoked, BaseException), f"ainvoke raised {invoked!r}"
    elif traced_error is None:
        # an interrupted step's finished writes make `ainvoke`'s result, as in LangGraph,
        # where the Run stops before that step's Update: applying them may fail (the
        # sync invoke, compared below, must fail alike)
        TALLY["10 interrupted runs whose ainvoke raised"] += isinstance(invoked, Exception)
    else:
        assert type(invoked) is type(traced_error), f"ainvoke: {invoked!r}"
    runs = {"atrace": atraced, "stepper": stepped, "trace": traced}
    _compare("status", runs, lambda run: run.status)
    _compare("steps", runs, _steps)
    _compare("values", runs, lambda run: dict(run.values))
    # where a task's error ended a step, its siblings that end after it race (K5)
    TALLY["10 finish orders compared as a set after a failed task (K5)"] += _sorted_after_a_failure(
        atraced, unordered
    )
    _compare("finish order", runs, lambda run: settled(run, unordered))
    if traced.status == "done" and invoked is not None:  # None: no key was ever written
        assert invoked == dict(traced.values)
    # (an interrupted run's result holds the step's finished writes, as LangGraph's
    # does, where the Run's values are the state the step started from: both compared
    # with the sync invoke's)
    assert _shown(invoked) == _shown(sync_invoked), "ainvoke and the sync invoke differ"
    # the sync blueprint: the same run, its tasks finishing in any order
    assert type(synced_error) is type(traced_error), f"sync trace: {synced_error!r}"
    _compare("sync", {"atrace": atraced, "sync trace": synced}, lambda run: run.status)
    _compare("sync", {"atrace": atraced, "sync trace": synced}, _steps)
    _compare("sync", {"atrace": atraced, "sync trace": synced}, lambda run: dict(run.values))
    if theirs is not None and theirs[1] is None and atraced_error is None:
        TALLY["10 finish orders compared with LangGraph"] += 1
        if streamed(atraced, unordered) != theirs[0]:
            # K10, open (compatibility.md "Known differences"; K8 is another: see
            # test_fuzz_threads.py): a task whose node has a conditional edge ends, in
            # LangGraph, behind its step's tasks that await nothing (its routers run in
            # the task: test_parity_async_routed_order.py); graphkit's in plan order.
            # Counted, and each written to the GRAPHKIT_FUZZ_COUNT file, not failed
            lines = [
                repr(blueprint),
                f"langgraph {theirs[0]}",
                f"graphkit {streamed(atraced, unordered)}",
            ]
            finding_or_count("10 finish order not LangGraph's (K10, open)", "\n".join(lines))


FAILED_BESIDE_RETRIES = Blueprint(
    (
        Node("c", ("log",), kind="call"),
        Node("d", (), kind="flaky"),
        Node("q", ("tags",), kind="flaky", retry=True),
        Node("r", ("tags",), kind="flaky", retry=True),
    ),
    ((START, "c"), (START, "d"), (START, "q"), (START, "r")),
)
"""'d' fails the step; 'q' and 'r' fail their first attempts and retry with no back-off."""


def test_a_failed_steps_siblings_finish_order_is_compared_up_to_the_failure() -> None:
    """K5 in property 10: once 'd' failed the step, whether 'q' and 'r' start their
    retries, end, or are cancelled first is a race between their pool threads (two
    orders of them in 52 and 48 of 100 `atrace` runs), so the recordings were compared
    on a random order (the long run with seed 4711, 2,000 examples: `trace` and `atrace`
    differed). `settled` keeps the order up to the failed task, which is stable, and
    sorts the tasks after it."""
    lib = load_graphkit()
    config = _config(FAILED_BESIDE_RETRIES, "t")
    orders = set()
    for _ in range(20):
        app = build(FAILED_BESIDE_RETRIES, lib, ASYNC)
        run, error = _traced(lambda app=app: asyncio.run(app.atrace({}, config)))
        assert type(error).__name__ == "Flaky"
        orders.add(repr(settled(run)))
    assert orders == {repr([["__input__"], ["__start__"], ["c", "d", "q", "r"]])}
