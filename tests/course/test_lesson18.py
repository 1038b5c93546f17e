"""Lesson 18's checks on their solutions, on typical wrong answers and on the notebook's
stubs; and the lesson's graph cells run on LangGraph too, where each claim about async
nodes, the order of a step's writes, blocking calls, ``max_concurrency`` and changes in
place must hold."""

from __future__ import annotations

import asyncio
import concurrent.futures
import operator
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from graphkit.course import assert_fails, assert_passes, lesson18
from graphkit.course.answers import run_apart
from graphkit.course.checking import exercise
from graphkit.course.solutions import lesson18 as solutions
from tests.course.cells import code_cells, run_cells

LESSON = Path(__file__).parents[2] / "notebooks" / "18-async-and-concurrency.ipynb"
EXERCISES = "from graphkit.course import lesson18"

LANGGRAPH_IMPORTS = {
    "from graphkit import START, StateGraph": "from langgraph.graph import START, StateGraph",
    "from graphkit import Send": "from langgraph.types import Send",
    "from graphkit import InMemorySaver": ("from langgraph.checkpoint.memory import InMemorySaver"),
}


RECORDS = {"l18-c13a", "l18-c27a"}
"""The cells that print graphkit's records of a run (``atrace``): LangGraph keeps none, so
they are left out on LangGraph, and what they say is checked on graphkit alone."""

ON_LANGGRAPH = {
    "l18-c24": """service = InFlight(5)
steps = set()
async for chunk in calls.astream(five, {"max_concurrency": 2}, stream_mode="debug"):
    if chunk["type"] == "task" and chunk["payload"]["name"] == "fetch":
        steps.add(chunk["step"])
print(f"You guessed {my_most_at_once} at once, in {my_fetch_steps} step(s).")
print("at most", service.most, "calls in flight; fetch ran in steps", sorted(steps))"""
}
"""Cells that read graphkit's records, as LangGraph reads the same: from its debug stream."""


def _on(library: str) -> Callable[[str, str], str | None]:
    """A cell's code as it runs on ``library``: on LangGraph, with its imports and its
    reading of records (``None`` for the cells that print graphkit's records)."""

    def source_of(cell: str, source: str) -> str | None:
        if library == "graphkit":
            return source
        if cell in RECORDS:
            return None
        source = ON_LANGGRAPH.get(cell, source)
        for ours, theirs in LANGGRAPH_IMPORTS.items():
            source = source.replace(ours, theirs)
        return source

    return source_of


def run_lesson(
    library: str, until: str = EXERCISES, again: tuple[str, ...] = (), names: dict | None = None
) -> dict:
    """The code cells before the exercises, run on ``library`` as a kernel runs them (one
    event loop, top-level ``await``): what each printed and showed; then the cells
    ``again``, in that order, run once more, which must show the same. ``names``: the
    cells' globals."""
    return run_cells(LESSON, until, again, names, _on(library))


def test_the_lessons_claims_hold_on_langgraph():
    pytest.importorskip("langgraph")
    ours, theirs = run_lesson("graphkit"), run_lesson("langgraph")
    assert set(ours) - set(theirs) == RECORDS
    assert {cell: shown for cell, shown in ours.items() if cell in theirs} == theirs
    said = "".join(printed + str(shown) for printed, shown in ours.values())
    assert "left met the other at the barrier" in said  # section 1: at once, on the loop
    assert "left met the other in another thread" in said  # sync nodes: in threads
    assert "the calls finished: ['Oslo', 'Lima']" in said  # Q1: finished Oslo first ...
    assert "reports: ['Lima: rain', 'Oslo: rain']" in said  # ... applied in task order
    assert "'heartbeat saw lookup done'" in said  # Q2: the blocking call held the loop
    assert "'heartbeat saw lookup waiting for the service'" in said  # to_thread freed it
    assert "at most 5 calls in flight" in said
    assert "at most 2 calls in flight; fetch ran in steps [1]" in said  # Q3
    assert "saved:            {'notes': ['start'], 'seen': \"b saw ['start', 'a']\"}" in said
    assert "saved:            {'notes': ['start', 'a', 'b'], 'seen': \"b saw ['start']\"}" in said


def test_the_runs_of_the_lesson_show_the_same_when_run_again():
    """A learner runs a question's cell twice, or a section's cells again after a later
    one: each shows what it showed the first time. (``l18-c27a`` run again after
    ``l18-c28`` once built section 5's graph with ``l18-c28``'s nodes, which took the
    names ``a`` and ``b`` too, and failed on their other schema.)"""
    run_lesson(
        "graphkit",
        again=(
            *("l18-c03", "l18-c07", "l18-c12", "l18-c13a", "l18-c17", "l18-c19", "l18-c24"),
            *("l18-c27a", "l18-c26", "l18-c27a", "l18-c28", "l18-c26", "l18-c28"),
        ),
    )


def test_q2s_heartbeat_waits_for_lookup_to_start_when_run_again():
    """Q2's graphs run again: ``heartbeat`` waits for this run's ``lookup`` to start, and
    reads the status it sets. (``started`` once stayed set from the first run, so a second
    run read the status the first run left; here each run starts from a stale one.)"""
    stale = 'status["lookup"] = "stale"\n'

    def stale_first(cell: str, source: str) -> str:
        return stale + source if cell in ("l18-c17", "l18-c19") else source

    seen = run_cells(LESSON, EXERCISES, ("l18-c17", "l18-c19", "l18-c17"), None, stale_first)
    assert "'heartbeat saw lookup done'" in seen["l18-c17"][1]


def test_the_records_show_task_order_and_no_write_of_a_change_in_place():
    """Q1's records: the tasks and their writes in task order, the Update's change in that
    order. Section 5's: no task wrote notes, yet every record of notes shows the changed
    list (records keep the state's own objects), while the saved checkpoint holds the input."""
    said = " ".join("".join(printed for printed, _ in run_lesson("graphkit").values()).split())
    assert (
        "the calls finished: ['Oslo', 'Lima'] step 1's tasks: [{'city': 'Lima'}, "
        "{'city': 'Oslo'}] Lima wrote {'reports': ['Lima: rain']} Oslo wrote {'reports': "
        "['Oslo: rain']} the Update: ChannelChange('reports': [] -> ['Lima: rain', 'Oslo: rain'])"
    ) in said
    assert "UPDATE __start__ <empty> -> {'notes': ['start', 'a', 'b']} (from __input__)" in said
    assert "UPDATE notes <empty> -> ['start', 'a', 'b'] (from __start__)" in said
    assert "EXECUTE a wrote nothing EXECUTE b wrote seen UPDATE seen <empty>" in said
    assert "saved: {'notes': ['start'], 'seen': \"b saw ['start', 'a']\"}" in said


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_every_saved_checkpoint_holds_the_notes_given(library):
    """Section 5: a checkpoint is a copy made when it was saved, on both libraries, so none
    holds the notes changed in place (unlike graphkit's records, which keep the list)."""
    if library == "langgraph":
        pytest.importorskip("langgraph")
    names: dict = {}
    run_lesson(library, names=names)
    history = list(names["mutating"].get_state_history(names["thread"]))
    assert len(history) >= 3
    assert [snapshot.values.get("notes") for snapshot in history[:2]] == [["start"]] * 2
    assert all(snapshot.values.get("notes") in (None, ["start"]) for snapshot in history)


def test_the_notebooks_stubs_fail_their_checks():
    names: dict = {"lesson18": lesson18}
    for _, source in code_cells(LESSON):
        if source.startswith(("from graphkit.course.lesson18 import", "def config_for(")):
            exec(source, names)
    assert_fails(lesson18.check_no_stall(names["forecast"]), "event loop's own thread")
    assert_fails(lesson18.check_in_order(names["report"]), "reports ended as []")
    assert_fails(lesson18.check_limit(names["config_for"]), "429 Too Many Requests")


# -- 18.1 · Wait without stalling the step


def test_no_stall_passes_on_the_solution():
    assert (
        "off the event loop" in assert_passes(lesson18.check_no_stall(solutions.forecast)).message
    )


def test_no_stall_a_sync_node_runs_in_a_thread_and_passes():
    def forecast(state):
        return {"weather": lesson18.slow_forecast(state["city"])}

    assert_passes(lesson18.check_no_stall(forecast))


def test_no_stall_wrong_answers():
    async def still_blocking(state):
        await asyncio.sleep(0)  # an await before the call does not help
        return {"weather": lesson18.slow_forecast(state["city"])}

    async def not_awaited(state):
        call = asyncio.to_thread(lesson18.slow_forecast, state["city"])
        call.close()  # (the answer forgot the await; closed here to keep the test quiet)
        return {"weather": call}

    async def fixed_answer(state):
        return {"weather": "Lima: sunny"}

    assert_fails(lesson18.check_no_stall(still_blocking), "own thread", hint="await that")
    assert_fails(lesson18.check_no_stall(not_awaited), "never waited for", hint="awaited")
    assert_fails(lesson18.check_no_stall(fixed_answer), "expected 'Quito: ", hint="city")
    assert_fails(lesson18.check_no_stall(None), "not a function")


@pytest.mark.filterwarnings("ignore:Node 'forecast' returned key 'forecast'")
def test_no_stall_a_node_that_writes_no_weather_is_told_so():
    """A node without ``return`` (or one writing a key the schema lacks) was told it
    "wrote weather = None"."""

    async def no_return(state):
        await asyncio.to_thread(lesson18.slow_forecast, state["city"])

    async def other_key(state):
        return {"forecast": await asyncio.to_thread(lesson18.slow_forecast, state["city"])}

    for forecast in (no_return, other_key):
        verdict = assert_fails(
            lesson18.check_no_stall(forecast), "wrote nothing to weather", hint="'weather'"
        )
        assert "wrote weather = None" not in verdict.message


def test_no_stall_the_state_given_for_the_city_is_told_so():
    """slow_forecast(state) failed inside the check's service with "ord() expected a
    character": the service now names what it takes."""

    async def forecast(state):
        return {"weather": await asyncio.to_thread(lesson18.slow_forecast, state)}

    verdict = assert_fails(
        lesson18.check_no_stall(forecast),
        "slow_forecast takes the city, a str; it was given a dict",
    )
    assert "ord()" not in verdict.message


def test_no_stall_to_thread_read_with_result_is_told_to_await_it():
    async def forecast(state):
        call = asyncio.to_thread(lesson18.slow_forecast, state["city"])
        call.close()  # (closed here to keep the test quiet: .result() fails all the same)
        return {"weather": call.result()}

    assert_fails(
        lesson18.check_no_stall(forecast),
        "'coroutine' object has no attribute 'result'",
        hint="await",
    )


def test_no_stall_a_blocking_call_awaited_is_told_it_ran_on_the_loop():
    async def forecast(state):
        return {"weather": await lesson18.slow_forecast(state["city"])}

    assert_fails(
        lesson18.check_no_stall(forecast), "on the event loop's own thread", hint="to_thread"
    )


def test_no_stall_a_call_handed_to_to_thread_is_told_it_ran_first():
    """``to_thread(slow_forecast(city))`` calls slow_forecast on the loop and hands its
    answer on: the verdict was the run's TypeError ('str' object is not callable)."""

    async def called_first(state):
        return {"weather": await asyncio.to_thread(lesson18.slow_forecast(state["city"]))}

    async def executor_called_first(state):
        loop = asyncio.get_running_loop()
        return {"weather": await loop.run_in_executor(None, lesson18.slow_forecast(state["city"]))}

    for answer in (called_first, executor_called_first):
        verdict = assert_fails(
            lesson18.check_no_stall(answer),
            "called slow_forecast('Quito') itself, on the event loop's thread, then "
            "handed its answer, a str, to be run in a thread",
            hint="to_thread(f, x) calls f(x)",
        )
        assert "'str' object is not callable" in verdict.message


def test_no_stall_the_city_handed_to_to_thread_is_not_told_it_was_the_answer():
    """A node that called slow_forecast on the loop, dropped its answer and handed the
    city to the thread was told it had handed on the answer."""

    async def to_thread_city(state):
        lesson18.slow_forecast(state["city"])
        return {"weather": await asyncio.to_thread(state["city"])}

    async def executor_city(state):
        lesson18.slow_forecast(state["city"])
        loop = asyncio.get_running_loop()
        return {"weather": await loop.run_in_executor(None, state["city"])}

    for answer in (to_thread_city, executor_city):
        verdict = assert_fails(
            lesson18.check_no_stall(answer),
            "called slow_forecast('Quito') itself, on the event loop's thread, then handed "
            "'Quito', the city, to be run in a thread",
            hint="to_thread(f, x) calls f(x)",
        )
        assert "answer" not in verdict.message


def test_no_stall_a_str_handed_to_a_pool_of_its_own_is_named_as_a_str():
    """A pool the check cannot see: what the thread was handed is not guessed at."""

    async def own_pool(state):
        lesson18.slow_forecast(state["city"])
        loop = asyncio.get_running_loop()
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return {"weather": await loop.run_in_executor(pool, state["city"])}

    verdict = assert_fails(
        lesson18.check_no_stall(own_pool),
        "itself, on the event loop's thread, then handed a str to be run in a thread",
    )
    assert "answer" not in verdict.message


def test_no_stall_a_str_called_in_the_node_is_not_told_a_thread_was_asked():
    """A node that called slow_forecast on the loop, then its answer, raised the same
    TypeError in the node itself: it was told it handed the answer to a thread."""

    async def calls_the_answer(state):
        weather = lesson18.slow_forecast(state["city"])
        return {"weather": weather()}

    verdict = assert_fails(
        lesson18.check_no_stall(calls_the_answer),
        "raised TypeError in step 1 (node forecast, in calls_the_answer): 'str' object is not",
    )
    assert "thread" not in verdict.message


def test_a_failed_async_run_names_its_step_and_node():
    """The checks record the run (``atrace``), so a node that raised is named with its step;
    a reducer that cannot add what the node wrote is told what it adds."""

    async def wrong_key(state):
        return {"weather": lesson18.slow_forecast(state["town"])}

    async def a_string(job):
        return {"reports": await lesson18.fetch_report(job["city"])}

    assert_fails(
        lesson18.check_no_stall(wrong_key),
        "raised KeyError in step 1 (node forecast, in wrong_key)",
    )
    verdict = assert_fails(lesson18.check_in_order(a_string), "TypeError in step 1: can only")
    assert "operator.add joins two lists" in verdict.hint


def test_no_stall_a_thread_waited_for_without_await_fails(monkeypatch):
    """The call runs in another thread, but the node holds the loop until it returns: the
    loop is as stalled as with the call made on it."""
    monkeypatch.setattr(lesson18, "LOOP_ANSWERS", 0.5)  # (the held loop's wait, shortened)

    async def held_by_result(state):
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return {"weather": pool.submit(lesson18.slow_forecast, state["city"]).result()}

    async def held_by_join(state):
        answer = []
        worker = threading.Thread(
            target=lambda: answer.append(lesson18.slow_forecast(state["city"]))
        )
        worker.start()
        worker.join()
        return {"weather": answer[0]}

    for held in (held_by_result, held_by_join):
        assert_fails(lesson18.check_no_stall(held), "without an await", hint="Await")


def test_a_check_stopped_by_its_time_limit_cancels_its_run():
    """A check that runs out of time stops the run on its loop too, not only its wait."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getitimer(signal.ITIMER_REAL)[0]
    ):
        pytest.skip("no time limit here: checks set theirs only in the main thread, unalarmed")
    stopped = threading.Event()

    async def forever():
        try:
            await asyncio.Event().wait()
        finally:
            stopped.set()

    @exercise("0 · Never ends", time_limit=0.5)
    def check(answer):
        run_apart(forever)

    assert_fails(check(None), "still running")
    assert stopped.wait(10)


# -- 18.2 · Reports in the order asked


def test_in_order_passes_on_the_solution():
    verdict = assert_passes(lesson18.check_in_order(solutions.report))
    assert "last-first" in verdict.message


def test_in_order_wrong_answers():
    collected: list = []

    async def shared_list(job):  # collects in finishing order, and keeps it between runs
        collected.append(await lesson18.fetch_report(job["city"]))
        return {"reports": collected}

    async def a_string(job):
        return {"reports": await lesson18.fetch_report(job["city"])}

    async def the_city(job):
        return {"reports": [job["city"]]}

    said = "the calls finished as ['Cairo', 'Oslo', 'Lima'], and reports ended as ['Cairo"
    assert_fails(lesson18.check_in_order(shared_list), said, hint="task order")
    assert_fails(lesson18.check_in_order(a_string), "its reducer add raised")
    assert_fails(lesson18.check_in_order(the_city), "reports ended as ['Lima', 'Oslo'")


def test_in_order_a_coroutine_or_a_string_is_told_so_not_about_task_order():
    async def not_awaited(job):
        return {"reports": [lesson18.fetch_report(job["city"])]}

    verdict = assert_fails(lesson18.check_in_order(not_awaited), "coroutine", hint="await")
    assert "task order" not in verdict.hint

    async def a_string(job):
        return {"reports": await lesson18.fetch_report(job["city"])}

    assert_fails(lesson18.check_in_order(a_string), "its reducer add raised", hint="a list")


def test_in_order_a_node_that_writes_no_report_is_told_so_not_about_task_order():
    """The stub (and a node that returns an empty list) leaves reports empty: the hint says
    to write the report, not how the Update orders writes the node never made."""

    async def stub(job):
        await lesson18.fetch_report(job["city"])
        return {}

    async def empty(job):
        await lesson18.fetch_report(job["city"])
        return {"reports": []}

    for report in (stub, empty):
        verdict = assert_fails(
            lesson18.check_in_order(report), "reports ended as []", hint="nothing for reports"
        )
        assert "task order" not in verdict.hint


def test_in_order_the_job_given_for_the_city_is_told_so():
    """fetch_report(job) failed in the check's service with "unhashable type: 'dict'"."""

    async def report(job):
        return {"reports": [await lesson18.fetch_report(job)]}

    assert_fails(
        lesson18.check_in_order(report), "fetch_report takes the city, a str; it was given a dict"
    )


def test_in_order_a_sync_node_running_its_own_loop_is_told_so_not_to_look_for_a_loop():
    """A sync ``report`` that runs ``asyncio.run(fetch_report(city))`` in its worker thread
    hung on the check's service until the time limit, and was told to look for a loop
    that never ends."""

    def report(job):
        return {"reports": [asyncio.run(lesson18.fetch_report(job["city"]))]}

    verdict = assert_fails(
        lesson18.check_in_order(report), "an event loop of its own", hint="async def"
    )
    assert "15 seconds" not in verdict.message


def test_in_order_reports_in_the_right_order_but_not_the_services_are_told_so():
    async def the_city(job):
        await lesson18.fetch_report(job["city"])
        return {"reports": [job["city"]]}

    verdict = assert_fails(
        lesson18.check_in_order(the_city),
        "in the right order, but they are not what fetch_report returned",
        hint="what fetch_report returned",
    )
    assert "task order" not in verdict.hint


# -- 18.3 · Respect the service's limit


def test_limit_passes_on_the_solution():
    verdict = assert_passes(lesson18.check_limit(solutions.config_for))
    assert "exactly as many" in verdict.message


@pytest.mark.parametrize(
    ("config_for", "said", "hint"),
    [
        (lambda capacity: {"max_concurrency": 3}, "allows 2", "cap"),  # right for one
        (lambda capacity: {"max_concurrency": 1}, "never had more than 1", "not less"),
        (
            lambda capacity: {"configurable": {"max_concurrency": capacity}},
            "429",
            "beside recursion_limit, not inside configurable",
        ),
        (lambda capacity: {"max_concurrency": capacity + 1}, "429", "more calls run at once than"),
        (lambda capacity: capacity, "not a dict", "config dict"),
    ],
)
def test_limit_wrong_answers(config_for, said, hint):
    assert_fails(lesson18.check_limit(config_for), said, hint=hint)


def test_limit_a_cap_that_is_not_a_number_is_told_to_give_a_number():
    verdict = assert_fails(
        lesson18.check_limit(lambda capacity: {"max_concurrency": str(capacity)}),
        "max_concurrency must be a number",
        hint="a whole number",
    )
    assert "setting that caps" not in verdict.hint


# -- the exercises' graphs, on LangGraph


def test_limit_does_not_depend_on_how_fast_tasks_start():
    """A run that respects the limit but starts its calls slowly (each a while after the
    last, longer than a full service holds its calls) still fills the service: the
    verdict reads what the run starts, not the machine's speed."""

    async def slow_start(capacity: int) -> int:
        gate = lesson18._Gate(capacity, 5)
        limit = asyncio.Semaphore(capacity)

        async def one(index: int) -> None:
            async with limit:
                await asyncio.sleep(0.3 * index if index < capacity else 0)
                await gate.call(str(index))

        await asyncio.gather(*(one(index) for index in range(5)))
        return gate.peak

    assert asyncio.run(slow_start(3)) == 3


def test_max_concurrency_caps_a_steps_tasks_on_langgraph_too():
    """18.3's service, run by LangGraph with the solution's config: the same peak."""
    pytest.importorskip("langgraph")
    from langgraph.graph import START, StateGraph
    from langgraph.types import Send

    async def peak(capacity: int, config: dict) -> int:
        gate = lesson18._Gate(capacity, 5)

        async def call(job: dict) -> dict:
            return {"answers": [await gate.call(job["city"])]}

        builder = StateGraph(lesson18.Calls)
        builder.add_node("call", call)
        builder.add_conditional_edges(
            START, lambda s: [Send("call", {"city": c}) for c in s["cities"]], ["call"]
        )
        await builder.compile().ainvoke({"cities": list("ABCDE")}, config)
        return gate.peak

    for capacity in (2, 3):
        assert asyncio.run(peak(capacity, solutions.config_for(capacity))) == capacity
    with pytest.raises(lesson18.TooManyRequests):
        asyncio.run(peak(2, {}))


class _Log(TypedDict, total=False):
    log: Annotated[list, operator.add]


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_edge_woken_writes_come_before_the_sends_whoever_finishes_first(library):
    """Q1's answer: the Update applies the nodes woken by edges first, by name, then the
    tasks of the Sends in their order, whatever order they finished in."""
    if library == "langgraph":
        pytest.importorskip("langgraph")
        from langgraph.graph import START, StateGraph
        from langgraph.types import Send
    else:
        from graphkit import START, Send, StateGraph

    order = ["send1", "zeta", "send0", "alpha"]  # the order the tasks finish in

    async def run() -> tuple[list, list]:
        finished: list = []
        turn = {name: asyncio.Event() for name in order}

        async def finish(name: str) -> dict:
            if order.index(name):
                await turn[order[order.index(name) - 1]].wait()
            finished.append(name)
            turn[name].set()
            return {"log": [name]}

        def node(name: str):
            async def run_node(state: dict) -> dict:
                return await finish(name)

            return run_node

        async def sent(job: dict) -> dict:
            return await finish(f"send{job['i']}")

        builder = StateGraph(_Log)
        builder.add_node("zeta", node("zeta"))
        builder.add_node("alpha", node("alpha"))
        builder.add_node("sent", sent)
        builder.add_edge(START, "zeta")
        builder.add_edge(START, "alpha")
        builder.add_conditional_edges(
            START, lambda state: [Send("sent", {"i": i}) for i in range(2)], ["sent"]
        )
        out = await builder.compile().ainvoke({"log": []})
        return finished, out["log"]

    finished, log = asyncio.run(run())
    assert finished == order
    assert log == ["alpha", "zeta", "send0", "send1"]
