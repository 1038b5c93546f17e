"""graphkit's functional API on its own: what the decorators build, what a function is
given, and how calls show in the records (the LangGraph comparisons are in
tests/conformance/test_parity_func.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.runnables import RunnableConfig
from typing_extensions import TypedDict

from graphkit import InMemorySaver, StateGraph
from graphkit.constants import END, START
from graphkit.errors import NodeTimeoutError
from graphkit.func import TaskFunction, entrypoint, task
from graphkit.pregel import Pregel
from graphkit.store.memory import InMemoryStore
from graphkit.types import RetryPolicy

THREAD = {"configurable": {"thread_id": "1"}}


@task
def inc(x: int) -> int:
    return x + 1


def test_an_entrypoint_is_a_one_node_pregel_graph():
    @entrypoint()
    def flow(x: int) -> int:
        return inc(x).result()

    assert type(flow) is Pregel  # (isinstance(..., Pregel) holds for every compiled graph)
    assert list(flow.nodes) == ["flow"]
    assert list(flow.channels) == [START, END, "__previous__", "__pregel_tasks"]
    assert flow.stream_mode == "updates"
    assert [step.plan.nodes for step in flow.trace(1).steps] == [["__input__"], ["flow"]]


def test_a_task_keeps_its_function_and_takes_a_name():
    @task(name="renamed")
    def original(x: int) -> int:
        return x

    assert isinstance(original, TaskFunction)
    assert (original.name, original.__name__, original.func(3)) == ("renamed", "renamed", 3)
    assert repr(original) == "task('renamed')"

    @entrypoint()
    def flow(x: int) -> int:
        return original(x).result()

    assert list(flow.stream(2)) == [{"renamed": 2}, {"flow": 2}]


def test_calls_are_tasks_of_the_callers_step_with_fixed_paths():
    @task
    def outer(x: int) -> int:
        return inc(x).result() * 10

    @entrypoint()
    def flow(x: int) -> list:
        return [outer(x).result(), inc(x).result()]

    step = flow.trace(1).step(0)
    calls = [r for r in step.execution.results if r.task.kind == "call"]
    results = {(r.task.node, r.task.path[2]): r for r in calls}
    entry = step.plan.tasks[0]
    first_outer = results[("outer", 0)].task
    assert first_outer.kind == "call" and first_outer.parent == entry.id
    assert first_outer.path[:2] == ("__pregel_push", entry.path)
    nested = next(r.task for r in step.execution.results if r.task.parent == first_outer.id)
    assert (nested.node, nested.path[1]) == ("inc", first_outer.path)  # a call of the call
    assert results[("inc", 1)].writes == (("__return__", 2),)  # the entrypoint's 2nd call
    assert flow.invoke(1) == [20, 2]


def test_a_retried_call_records_its_attempts():
    failures = iter([ConnectionError("a"), ConnectionError("b")])

    @task(retry_policy=RetryPolicy(max_attempts=3, initial_interval=0, jitter=False))
    def fetch(x: int) -> int:
        error = next(failures, None)
        if error is not None:
            raise error
        return x

    @entrypoint()
    def flow(x: int) -> int:
        return fetch(x).result()

    call = flow.trace(7).step(0).execution.results[1]
    assert (call.task.node, call.attempts, call.writes) == ("fetch", 3, (("__return__", 7),))
    assert [str(error) for error in call.failed_attempts] == ["a", "b"]


def test_an_entrypoint_is_given_what_it_asks_for():
    store = InMemoryStore()
    store.put(("users",), "ada", {"name": "Ada"})
    seen: dict[str, Any] = {}

    @entrypoint(checkpointer=InMemorySaver(), store=store)
    def flow(
        x: int, *, previous: Any, config: RunnableConfig, runtime: Any, store: Any, writer: Any
    ) -> int:
        seen.update(previous=previous, runtime_previous=runtime.previous, store=store)
        seen["thread"] = config["configurable"]["thread_id"]
        seen["context"] = runtime.context
        writer("hello")
        return x

    assert list(flow.stream(5, THREAD, stream_mode="custom", context={"u": 1})) == ["hello"]
    assert seen["previous"] is None and seen["thread"] == "1" and seen["context"] == {"u": 1}
    flow.invoke(6, THREAD)
    assert (seen["previous"], seen["runtime_previous"]) == (5, 5)
    assert seen["store"].get(("users",), "ada").value == {"name": "Ada"}


def test_a_task_is_given_what_it_asks_for():
    @task
    def tagged(x: int, config: RunnableConfig, writer: Any) -> str:
        writer(f"in {config['metadata']['langgraph_node']}")
        return f"{x}"

    @entrypoint()
    def flow(x: int) -> str:
        return tagged(x).result()

    assert list(flow.stream(1, stream_mode=["custom", "updates"])) == [
        ("custom", "in tagged"),
        ("updates", {"tagged": "1"}),
        ("updates", {"flow": "1"}),
    ]


def test_final_returns_one_value_and_saves_another():
    @entrypoint(checkpointer=InMemorySaver())
    def flow(x: int, previous: Any = None) -> entrypoint.final[list, int]:
        return entrypoint.final(value=[previous, x], save=x * 100)

    assert flow.invoke(1, THREAD) == [None, 1]
    assert flow.invoke(2, THREAD) == [100, 2]
    assert flow.get_state(THREAD).values == [100, 2]
    with pytest.raises(TypeError, match=r"Too few arguments|needs two types"):

        @entrypoint()
        def bad(x: int) -> entrypoint.final[int]:  # type: ignore[type-arg]
            return entrypoint.final(value=x, save=x)


def test_a_graph_node_may_call_tasks():
    def node(state: dict) -> dict:
        futures = [inc(n) for n in state["numbers"]]
        return {"numbers": [future.result() for future in futures]}

    builder = StateGraph(dict).add_node("node", node).add_edge(START, "node")
    app = builder.compile()
    step = app.trace({"numbers": [1, 2]}).step(1)
    assert [(r.task.node, r.task.kind) for r in step.execution.results] == [
        ("node", "pull"),
        ("inc", "call"),
        ("inc", "call"),
    ]
    assert [r.task.path[2] for r in step.execution.results[1:]] == [0, 1]
    assert app.invoke({"numbers": [1, 2]}) == {"numbers": [2, 3]}


def test_an_async_task_times_out_and_the_caller_sees_it():
    @task(timeout=0.01)
    async def slow(x: int) -> int:
        await asyncio.sleep(1)
        return x

    @entrypoint()
    async def flow(x: int) -> str:
        try:
            return str(await slow(x))
        except NodeTimeoutError as error:
            return f"timed out: {error.kind}"

    assert asyncio.run(flow.ainvoke(1)) == "timed out: run"


def test_a_call_future_is_awaitable_and_gatherable():
    @task
    async def square(x: int) -> int:
        return x * x

    @entrypoint()
    async def flow(numbers: list) -> list:
        first = await square(numbers[0])
        return [first, *await asyncio.gather(*(square(n) for n in numbers[1:]))]

    assert asyncio.run(flow.ainvoke([1, 2, 3])) == [1, 4, 9]


def test_decorating_something_else_says_so():
    with pytest.raises(TypeError, match=r"@task decorates a function, got int"):
        task(3)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"@entrypoint decorates a function, got str"):
        entrypoint()("nope")  # type: ignore[arg-type]
    with pytest.raises(NotImplementedError, match="Return the result instead"):

        @entrypoint()
        def gen(x: int) -> Any:
            yield x


def test_calls_made_by_gathered_coroutines_get_distinct_ids():
    @task
    async def echo(x: int) -> int:
        return x

    async def helper(x: int) -> int:
        return await echo(x)

    @entrypoint()
    async def flow(xs: list) -> list:
        return list(await asyncio.gather(*(helper(x) for x in xs)))

    async def run() -> Any:  # the stepper of an async run: on a worker thread
        loop = asyncio.get_running_loop()
        return await asyncio.to_thread(lambda: flow.stepper([1, 2, 3], loop=loop).run())

    run_ = asyncio.run(run())
    calls = [r.task for r in run_.step(0).execution.results if r.task.kind == "call"]
    assert sorted(task.path[2] for task in calls) == [0, 1, 2]
    assert len({task.id for task in calls}) == 3
    assert run_.values == {"__end__": [1, 2, 3]}


def test_a_sync_run_inside_a_running_event_loop_waits_for_its_calls():
    """A notebook or a test tool may run a loop in the thread that invokes a sync
    entrypoint: .result() then waits, as in LangGraph (only the run's own loop forbids it)."""
    import asyncio

    from graphkit.func import entrypoint, task

    @task
    def double(n: int) -> int:
        return n * 2

    @entrypoint()
    def fan(n: int) -> int:
        return sum(future.result() for future in [double(i) for i in range(n)])

    async def inside_a_loop() -> int:
        return fan.invoke(3)

    assert asyncio.run(inside_a_loop()) == 6


def test_a_step_timeout_cancels_an_awaited_call_quietly(caplog):
    """The call's future is cancelled with its caller; the call's late outcome must not
    be set on it (asyncio would log an InvalidStateError from the callback)."""
    import asyncio
    import logging

    from graphkit import InMemorySaver

    @task
    async def slow(x: int) -> int:
        await asyncio.sleep(1.0)
        return x

    @entrypoint(checkpointer=InMemorySaver())
    async def program(x: int) -> int:
        return await slow(x)

    program.step_timeout = 0.1
    with caplog.at_level(logging.ERROR), pytest.raises(TimeoutError):
        asyncio.run(program.ainvoke(1, {"configurable": {"thread_id": "t"}}))
    logged = [record.getMessage() + str(record.exc_info) for record in caplog.records]
    assert not [text for text in logged if "InvalidStateError" in text]


class Question(TypedDict):
    """An input class of this module, named by string annotations (this module's
    ``from __future__ import annotations``)."""

    q: int


def test_an_entrypoints_annotations_written_as_strings_are_its_types():
    """Its input annotation is evaluated as its return annotation is, so its schemas
    name the class (LangGraph keeps the string ``'Question'``, and its input schema then
    fails: pydantic cannot find the class from LangGraph's module)."""

    @entrypoint()
    def ask(question: Question) -> list[int]:
        return [len(question)]

    assert (ask.InputType, ask.OutputType) == (Question, list[int])
    assert ask.get_input_schema().model_validate({"q": 1}).root == {"q": 1}
    assert ask.get_input_jsonschema()["$ref"] == "#/$defs/Question"
