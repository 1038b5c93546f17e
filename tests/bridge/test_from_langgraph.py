"""`from_langgraph`: every conformance graph, built with LangGraph and converted, records
the same supersteps as the same graph built with graphkit; what cannot convert is refused
by name; `as_graphkit`, the version warning and the debugger's entry point."""

from __future__ import annotations

import asyncio
import dataclasses
import operator
import subprocess
import sys
import warnings
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.prebuilt.chat_agent_executor import AgentStatePydantic

from graphkit import CompiledGraph, GraphkitWarning, Run
from graphkit.bridge.convert import as_graphkit, from_langgraph
from tests.conformance.harness import (
    Case,
    canonical,
    compare,
    load_graphkit,
    load_langgraph,
    observe,
)
from tests.conformance.test_conformance import CASES

BUILDABLE = [case for case in CASES if case.build_raises is None]

REFUSED: dict[str, str] = {}
"""Corpus cases from_langgraph refuses, with the words the refusal must contain (none:
every corpus graph converts)."""


# --- the records of a run, without what must differ (task ids) -----------------------------


def _label(ids: dict[str, str], value: Any) -> Any:
    """Task ids (in paths) become "task-1", "task-2"... in order of first appearance."""
    if isinstance(value, str) and value in ids:
        return ids[value]
    if isinstance(value, tuple):
        return tuple(_label(ids, item) for item in value)
    return value


def records(run: Run) -> list[Any]:
    """Per superstep: its number, the tasks (node, kind, triggers, path, input), each
    task's writes, error and subgraph runs, the channel changes; then values and status."""
    ids: dict[str, str] = {}
    for step in run.steps:
        for task in step.plan.tasks:
            ids.setdefault(task.id, f"task-{len(ids) + 1}")
    seen: list[Any] = []
    for step in run.steps:
        tasks = [
            (t.node, t.kind, t.triggers, _label(ids, t.path), canonical(t.input))
            for t in step.plan.tasks
        ]
        results = []
        for result in step.execution.results if step.execution else ():
            results.append(
                (
                    result.task.node,
                    _label(ids, result.task.path),
                    canonical(list(result.writes)),
                    type(result.error).__name__ if result.error else None,
                    canonical([getattr(i, "value", i) for i in result.interrupts]),
                    [records(sub) for sub in result.subruns],
                )
            )
        changes = [
            (c.channel, canonical(c.before), canonical(c.after), c.writers, c.reducer)
            for c in (step.update.changes if step.update else ())
        ]
        seen.append((step.step, tasks, sorted(results, key=repr), changes))
    error = type(run.error).__name__ if run.error else None
    return [*seen, ("end", canonical(dict(run.values)), run.status, error)]


def traced(app: CompiledGraph, case: Case, given: Any) -> list[Any]:
    """The records of one traced run (a failed run's records end with its error)."""
    config = dict(case.config or {})
    kwargs = {k: v for k, v in (case.run_kwargs or {}).items() if k == "context"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            run = app.trace(given, config, **kwargs)
        except Exception as error:
            partial = getattr(error, "run", None)  # none when the run could not start
            return [*(records(partial) if partial else ()), ("raised", type(error).__name__)]
    return records(run)


def converted(case: Case) -> CompiledGraph:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        return from_langgraph(case.build(load_langgraph()))


@pytest.mark.parametrize("case", BUILDABLE, ids=lambda case: case.name)
def test_converted_graph_records_the_same_supersteps(case: Case) -> None:
    if case.name in REFUSED:
        with pytest.raises(NotImplementedError, match=REFUSED[case.name]):
            converted(case)
        return
    app = converted(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        native = case.build(load_graphkit())
    for given in case.inputs:
        assert traced(app, case, given) == traced(native, case, given), f"input {given!r}"


@pytest.mark.parametrize("case", BUILDABLE, ids=lambda case: case.name)
def test_converted_graph_streams_as_langgraph_does(case: Case) -> None:
    """The harness's observation (invoke, the case's stream modes, the async path for
    async cases) of the converted graph equals LangGraph's own."""
    if case.name in REFUSED:
        return
    as_converted = dataclasses.replace(case, build=lambda lib: converted(case))
    expected = observe(case, load_langgraph())
    actual = observe(as_converted, load_graphkit())
    actual = dataclasses.replace(actual, warnings=None)  # graphkit warned when converting
    problems = compare(case, expected, actual)
    assert not problems, "\n\n".join(problems)


def test_the_corpus_is_covered() -> None:
    assert len(BUILDABLE) >= 150
    assert set(REFUSED) <= {case.name for case in BUILDABLE}


def test_the_records_tell_different_graphs_apart() -> None:
    """The comparison above is not vacuous: two different corpus graphs, same input."""
    first, second = [c for c in BUILDABLE if c.inputs and c.inputs[0] == {"log": []}][:2]
    given = first.inputs[0]
    mine, other = traced(converted(first), first, given), traced(converted(second), first, given)
    assert len(mine) >= 3 and mine != other


# --- checkpointed threads: the persistence scenarios, node code calling LangGraph's interrupt


def _scenarios() -> list[Any]:
    from tests.conformance.test_scenarios import SCENARIOS

    return SCENARIOS


def play_converted(scenario: Any, saver: str, asynchronous: bool = False) -> Any:
    """Play a scenario on its LangGraph graph converted with a graphkit saver of kind
    `saver`: node code calls LangGraph's `interrupt`, resumes are LangGraph's `Command`."""
    from tests.conformance.scenarios import SAVERS, Session, Tools, Transcript, load_tools

    langgraph = load_langgraph()
    with (
        load_tools(langgraph, "memory") as tools,
        SAVERS[saver]("graphkit") as graphkit_saver,
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore", GraphkitWarning)
        try:
            app = from_langgraph(scenario.build(tools), checkpointer=graphkit_saver)
        except Exception as error:
            return Transcript("converted", saver, (f"build raised {type(error).__name__}",))
        session = Session(Tools(langgraph, graphkit_saver, tools.interrupt, tools.calls), app)
        session.asynchronous = asynchronous
        lines = [line for step in scenario.steps for line in step.play(session)]
    return Transcript("converted", saver, tuple(lines))


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
@pytest.mark.parametrize("scenario", _scenarios(), ids=lambda scenario: scenario.name)
def test_converted_threads_play_as_langgraph_s(scenario: Any, saver: str) -> None:
    """Interrupts, resumes, breakpoints, get_state/update_state and time travel on a
    converted graph show what LangGraph shows (its transcript, pinned in the scenario)."""
    from tests.conformance.scenarios import compare_transcripts, play

    expected = play(scenario, load_langgraph(), "memory")
    actual = play_converted(scenario, saver)
    assert compare_transcripts(scenario.name, expected, actual) == []


@pytest.mark.parametrize("scenario", _scenarios(), ids=lambda scenario: scenario.name)
def test_converted_threads_play_as_langgraph_s_through_the_async_api(scenario: Any) -> None:
    from tests.conformance.scenarios import compare_transcripts, play

    expected = play(scenario, load_langgraph(), "memory", asynchronous=True)
    actual = play_converted(scenario, "memory", asynchronous=True)
    assert compare_transcripts(scenario.name, expected, actual) == []


# --- schemas in every form, with LangGraph's channels and managed values -----------------


def _fan_out(lib: Any, kind: str) -> Any:
    """START -> a, b; both multiply `product` (a channel from `lib`) and log to a Topic."""
    import operator

    import pydantic

    product = Annotated[int, lib.channels.BinaryOperatorAggregate(int, operator.mul)]
    seen = Annotated[list, lib.channels.Topic(int, accumulate=True)]
    if kind == "pydantic":
        state: Any = pydantic.create_model(
            "State", product=(product, 1), seen=(seen, []), left=(lib.managed.RemainingSteps, 0)
        )
    elif kind == "dataclass":
        fields = [("product", product, 1), ("seen", seen, dataclasses.field(default_factory=list))]
        fields.append(("left", lib.managed.RemainingSteps, 0))
        state = dataclasses.make_dataclass("State", fields)
    else:
        state = TypedDict(  # noqa: UP013 - built per library, so not a class statement
            "State", {"product": product, "seen": seen, "left": lib.managed.RemainingSteps}
        )

    def times(factor: int) -> Any:
        def node(values: Any) -> dict:
            left = values["left"] if isinstance(values, dict) else values.left
            return {"product": factor, "seen": left}

        return node

    graph = lib.StateGraph(state)
    graph.add_node("a", times(2))
    graph.add_node("b", times(3))
    graph.add_edge(lib.START, "a")
    graph.add_edge(lib.START, "b")
    return graph.compile()


@pytest.mark.parametrize("kind", ["typeddict", "dataclass", "pydantic"])
def test_langgraph_channels_in_any_schema_become_graphkit_s(kind: str) -> None:
    oracle = _fan_out(load_langgraph(), kind)
    native = _fan_out(load_graphkit(), kind)
    app = from_langgraph(oracle)
    case = Case(kind, build=lambda lib: None)
    given = {"product": 5, "seen": []}
    assert app.invoke(given) == oracle.invoke(given)
    assert traced(app, case, given) == traced(native, case, given)


def test_a_delta_channel_becomes_graphkit_s_with_its_reducer_and_field_type() -> None:
    from langgraph.channels import DeltaChannel
    from langgraph.graph import START, StateGraph

    calls: list[int] = []

    def union(value: set, writes: list) -> set:
        calls.append(len(writes))
        return value.union(*writes)

    tags = Annotated[set, DeltaChannel(union, snapshot_frequency=5)]
    builder = StateGraph(TypedDict("State", {"tags": tags}))
    for name in ("a", "b"):
        builder.add_node(name, lambda state, name=name: {"tags": {name}})
        builder.add_edge(START, name)
    oracle = builder.compile()
    app = from_langgraph(oracle)
    channel = app.spec.channels["tags"]
    assert (type(channel).__module__, channel.snapshot_frequency) == ("graphkit.channels.delta", 5)
    assert (
        app.invoke({"tags": {"in"}})
        == oracle.invoke({"tags": {"in"}})
        == {"tags": {"in", "a", "b"}}
    )
    assert calls == [1, 2, 1, 2]  # per library: the input, then both writes of step 1 at once


def test_a_send_s_timeout_carries_over() -> None:
    from langgraph.graph import START, StateGraph
    from langgraph.types import Send

    async def slow(state: dict) -> dict:
        await asyncio.sleep(state["d"])
        return {"n": state["d"]}

    builder = StateGraph(TypedDict("State", {"n": float}))
    builder.add_node("slow", slow)
    builder.add_conditional_edges(START, lambda state: [Send("slow", {"d": 0.5}, timeout=0.05)])
    app = from_langgraph(builder.compile())
    with pytest.raises(Exception) as raised:
        asyncio.run(app.ainvoke({"n": 0}))
    assert type(raised.value).__name__ == "NodeTimeoutError"


def test_node_defaults_retry_policy_carries_over() -> None:
    from langgraph.graph import START, StateGraph
    from langgraph.types import RetryPolicy

    class State(TypedDict):
        n: int

    builder = StateGraph(State).set_node_defaults(retry_policy=RetryPolicy(max_attempts=5))
    oracle = builder.add_node("a", lambda s: {}).add_edge(START, "a").compile()
    [policy] = from_langgraph(oracle).spec.nodes["a"].retry_policies
    assert (type(policy).__module__, policy.max_attempts) == ("graphkit.types", 5)


# --- what is refused, and how ------------------------------------------------------------


def _one_node_graph(**options: Any) -> Any:
    from langgraph.graph import START, StateGraph

    class State(TypedDict):
        n: int

    builder = StateGraph(State).add_node("inc", lambda s: {"n": s["n"] + 1}, **options)
    return builder.add_edge(START, "inc").compile()


def test_a_cached_node_and_its_cache_are_carried_over() -> None:
    """LangGraph's CachePolicy and cache work as graphkit's (same interface): the second
    run of the converted graph is served from LangGraph's cache object."""
    from langgraph.cache.memory import InMemoryCache
    from langgraph.types import CachePolicy

    source = _one_node_graph(cache_policy=CachePolicy())
    cache = InMemoryCache()
    source.cache = cache
    app = from_langgraph(source)
    assert app.cache is cache
    first = app.trace({"n": 1})
    second = app.trace({"n": 1})
    assert first.values == second.values
    assert [r.cached for s in second.steps for r in s.execution.results][-1] is True


def test_a_custom_channel_is_refused_by_name() -> None:
    from langgraph.channels import LastValue
    from langgraph.graph import START, StateGraph

    class Doubling(LastValue):
        pass

    # the functional form: a string annotation could not find the local class
    State = TypedDict("State", {"n": Annotated[int, Doubling(int)]})  # noqa: UP013
    app = StateGraph(State).add_node("a", lambda s: {}).add_edge(START, "a").compile()
    with pytest.raises(NotImplementedError, match=r"field 'n' uses the channel .*Doubling"):
        from_langgraph(app)


def test_a_langgraph_saver_is_refused_and_a_graphkit_one_taken() -> None:
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver

    from graphkit import InMemorySaver

    with pytest.raises(TypeError, match=r"from_langgraph\(checkpointer=\.\.\.\) got LangGraph's"):
        from_langgraph(_one_node_graph(), checkpointer=LangGraphSaver())

    class OwnSaver(LangGraphSaver):  # (its module is the user's, its format LangGraph's)
        pass

    # it was let through to compile(), whose refusal named a call the user never made
    with pytest.raises(
        TypeError, match=r"from_langgraph\(checkpointer=\.\.\.\) .*through OwnSaver"
    ):
        from_langgraph(_one_node_graph(), checkpointer=OwnSaver())
    saver = InMemorySaver()
    assert from_langgraph(_one_node_graph(), checkpointer=saver).checkpointer is saver


def test_compile_options_carry_over_and_a_saver_becomes_graphkit_s() -> None:
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver

    from graphkit import InMemorySaver

    plain = from_langgraph(_one_node_graph())
    assert plain.checkpointer is None
    oracle = _one_node_graph().builder.compile(
        checkpointer=LangGraphSaver(), interrupt_before=["inc"], name="counter"
    )
    app = from_langgraph(oracle)
    assert isinstance(app.checkpointer, InMemorySaver)
    assert (app.name, tuple(app.interrupt_before)) == ("counter", ("inc",))
    config = {"configurable": {"thread_id": "t"}}
    for graph in (oracle, app):  # paused before "inc", then resumed with None
        assert graph.invoke({"n": 1}, config) == {"n": 1}
        assert graph.invoke(None, config) == {"n": 2}


def test_with_config_defaults_are_carried_over() -> None:
    app = from_langgraph(_one_node_graph().with_config(recursion_limit=5, tags=["demo"]))
    assert app.config["recursion_limit"] == 5 and app.config["tags"] == ["demo"]
    assert app.invoke({"n": 1}) == {"n": 2}


@pytest.mark.filterwarnings("ignore:The v3 streaming protocol")
def test_langgraph_stream_transformers_are_left_out_with_a_warning() -> None:
    """compile(transformers=[...]) of LangGraph's cannot run in graphkit's v3 router: the
    converted graph streams what LangGraph's does without them, and says so once."""
    from langgraph.stream import StreamChannel, StreamTransformer

    class Steps(StreamTransformer):
        def init(self) -> dict[str, Any]:
            self.channel = StreamChannel("steps")
            return {"steps": self.channel}

        def process(self, event: Any) -> bool:
            if event["method"] == "values":
                self.channel.push(event["params"]["data"]["n"])
            return True

    oracle = _one_node_graph().builder.compile(transformers=[Steps])
    with pytest.warns(GraphkitWarning, match=r"transformers=\['Steps'\], which the converted"):
        app = from_langgraph(oracle)

    def events(graph: Any) -> list[Any]:
        run = graph.stream_events({"n": 1}, version="v3")
        return [(event["method"], event["params"]["data"]) for event in run]

    expected = events(oracle)
    assert ("custom:steps", 1) in expected
    assert events(app) == [event for event in expected if event[0] != "custom:steps"]


@pytest.mark.parametrize("thing", [42, "graph", object(), None])
def test_anything_but_a_graph_is_a_type_error(thing: Any) -> None:
    with pytest.raises(TypeError, match=f"got {type(thing).__name__}"):
        as_graphkit(thing)
    with pytest.raises(TypeError, match="compiled LangGraph StateGraph"):
        from_langgraph(thing)


def test_a_builder_is_refused_with_the_fix() -> None:
    from langgraph.graph import StateGraph

    class State(TypedDict):
        n: int

    with pytest.raises(TypeError, match=r"call \.compile\(\) first"):
        as_graphkit(StateGraph(State))


def test_an_entrypoint_is_refused_with_the_graphkit_import_to_use() -> None:
    """A LangGraph @entrypoint is a Pregel: the refusal says so and what to import,
    not "call .compile() first", which does not apply."""
    from langgraph.func import entrypoint

    @entrypoint()
    def flow(number: int) -> int:
        return number

    with pytest.raises(TypeError, match="@entrypoint") as raised:
        from_langgraph(flow)
    assert "graphkit.func" in str(raised.value) and "compile()" not in str(raised.value)


def test_a_graphkit_graph_given_to_from_langgraph_is_told_to_be_used_as_it_is() -> None:
    """from_langgraph converts LangGraph's graphs only: a graphkit graph was refused by a
    message expecting "a graphkit CompiledGraph" and saying to call .compile()."""
    from graphkit.func import entrypoint

    @entrypoint()
    def flow(number: int) -> int:
        return number

    for graph in (BUILDABLE[0].build(load_graphkit()), flow):
        with pytest.raises(TypeError, match="graphkit's already: use it as it is") as raised:
            from_langgraph(graph)
        assert "compile()" not in str(raised.value)


def test_as_graphkit_passes_graphkit_graphs_through_and_converts_langgraph() -> None:
    native = BUILDABLE[0].build(load_graphkit())
    assert as_graphkit(native) is native
    app = as_graphkit(_one_node_graph())
    assert isinstance(app, CompiledGraph)
    assert app.invoke({"n": 1}) == {"n": 2}


def test_an_untested_langgraph_version_warns_naming_the_range(monkeypatch) -> None:
    from graphkit.bridge import convert

    monkeypatch.setattr(convert.metadata, "version", lambda name: "1.3.0")
    with pytest.warns(GraphkitWarning, match=r"tested with langgraph>=1\.2,<1\.3.*1\.3\.0"):
        from_langgraph(_one_node_graph())


def test_the_tested_version_is_silent() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphkitWarning)
        from_langgraph(_one_node_graph())


def test_import_graphkit_does_not_import_langgraph() -> None:
    code = (
        "import sys, graphkit, graphkit.bridge, graphkit.widgets.session, graphkit.render.methods;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'langgraph'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- LangGraph's functions inside node code ----------------------------------------------


def test_langgraph_interrupt_pauses_and_resumes_on_graphkit() -> None:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from langgraph.types import Command, interrupt

    class State(TypedDict):
        log: Annotated[list, lambda a, b: a + b]

    def ask(state: State) -> dict:
        return {"log": [interrupt("first?"), interrupt("second?")]}

    builder = StateGraph(State).add_node("ask", ask).add_edge(START, "ask")
    oracle = builder.compile(checkpointer=InMemorySaver())
    app = from_langgraph(oracle)
    config = {"configurable": {"thread_id": "t"}}
    outcomes = []
    for graph in (oracle, app):
        paused = graph.invoke({"log": []}, config)  # LangGraph's Command as input, both
        again = graph.invoke(Command(resume="one"), config)
        done = graph.invoke(Command(resume="two"), config)
        interrupts = [[i.value for i in out["__interrupt__"]] for out in (paused, again)]
        outcomes.append((interrupts, done))
    assert outcomes[0] == outcomes[1]
    assert outcomes[1] == ([["first?"], ["second?"]], {"log": ["one", "two"]})


def test_langgraph_interrupt_in_an_async_node() -> None:
    import asyncio

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from langgraph.types import Command, interrupt

    class State(TypedDict):
        answer: str

    async def ask(state: State) -> dict:
        await asyncio.sleep(0)
        return {"answer": interrupt("name?")}

    builder = StateGraph(State).add_node("ask", ask).add_edge(START, "ask")
    oracle = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}

    async def play(graph: Any) -> Any:
        paused = await graph.ainvoke({"answer": ""}, config)
        return [i.value for i in paused["__interrupt__"]], await graph.ainvoke(
            Command(resume="ada"), config
        )

    expected = asyncio.run(play(oracle))
    assert asyncio.run(play(from_langgraph(oracle))) == expected == (["name?"], {"answer": "ada"})


def test_langgraph_interrupt_with_a_response_schema() -> None:
    """LangGraph's own interrupt() validates the answer; graphkit shows its schema and
    treats a bad answer as LangGraph does (the run fails, the interrupt waits)."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.errors import is_invalid_resume
    from langgraph.graph import START, StateGraph
    from langgraph.types import Command, interrupt

    class State(TypedDict):
        answer: int

    def ask(state: State) -> dict:
        return {"answer": interrupt("age?", response_schema=int)}

    builder = StateGraph(State).add_node("ask", ask).add_edge(START, "ask")
    oracle = builder.compile(checkpointer=InMemorySaver())

    def play(graph: Any, thread: str) -> list[Any]:
        config = {"configurable": {"thread_id": thread}}
        paused = graph.invoke({"answer": 0}, config)["__interrupt__"]
        seen = [[(i.value, i.response_schema) for i in paused]]
        try:
            graph.invoke(Command(resume="old"), config)
        except Exception as error:
            seen.append((type(error).__name__, is_invalid_resume(error)))
        seen.append([i.value for i in graph.get_state(config).interrupts])
        seen.append(graph.invoke(Command(resume="42"), config))
        return seen

    expected = play(oracle, "a")
    assert expected[0] == [("age?", {"type": "integer"})]
    assert expected[1:] == [("ValidationError", True), ["age?"], {"answer": 42}]
    assert play(from_langgraph(oracle), "b") == expected


def test_get_config_get_runtime_and_the_stream_writer_reach_graphkit() -> None:
    from langgraph.config import get_config, get_stream_writer
    from langgraph.graph import START, StateGraph
    from langgraph.runtime import get_runtime

    class State(TypedDict):
        log: Annotated[list, lambda a, b: a + b]

    def look(state: State) -> dict:
        get_stream_writer()({"seen": get_runtime().context})
        return {"log": [get_config()["metadata"]["langgraph_node"]]}

    oracle = StateGraph(State).add_node("look", look).add_edge(START, "look").compile()
    app = from_langgraph(oracle)
    for graph in (oracle, app):
        chunks = list(graph.stream({"log": []}, stream_mode=["custom", "values"], context="ctx"))
        assert chunks[-2:] == [("custom", {"seen": "ctx"}), ("values", {"log": ["look"]})]


def test_a_langgraph_graph_out_of_reach_runs_on_langgraph_as_one_call() -> None:
    """A LangGraph graph the node finds elsewhere than in its closure (here a dict) is
    not converted: it runs on LangGraph inside the node, and graphkit records no subrun."""
    from langgraph.graph import START, StateGraph

    class State(TypedDict):
        n: int

    registry = {"inner": _one_node_graph()}

    def outer(state: State) -> dict:
        return registry["inner"].invoke(state)

    app = from_langgraph(
        StateGraph(State).add_node("outer", outer).add_edge(START, "outer").compile()
    )
    run = app.trace({"n": 1})
    assert run.values == {"n": 2}
    [result] = run.steps[-1].execution.results
    assert (result.task.node, result.subruns) == ("outer", ())


def test_a_langgraph_graph_in_the_closure_becomes_a_graphkit_subrun() -> None:
    from langgraph.graph import START, StateGraph

    class State(TypedDict):
        n: int

    inner = _one_node_graph()

    def outer(state: State) -> dict:
        return inner.invoke(state)

    app = from_langgraph(
        StateGraph(State).add_node("outer", outer).add_edge(START, "outer").compile()
    )
    run = app.trace({"n": 1})
    [result] = run.steps[-1].execution.results
    [subrun] = result.subruns
    assert [step.plan.nodes for step in subrun.steps][-1] == ["inc"]
    assert run.values == {"n": 2}


def test_scratchpad_use_beyond_interrupt_is_explained() -> None:
    from langgraph._internal._constants import CONFIG_KEY_SCRATCHPAD
    from langgraph.config import get_config
    from langgraph.graph import START, StateGraph

    class State(TypedDict):
        n: int

    def peek(state: State) -> dict:
        get_config()["configurable"][CONFIG_KEY_SCRATCHPAD].subgraph_counter()
        return {}

    app = from_langgraph(StateGraph(State).add_node("peek", peek).add_edge(START, "peek").compile())
    with pytest.raises(RuntimeError, match=r"node 'peek' asked for LangGraph's task scratchpad"):
        app.invoke({"n": 1})


# --- the debugger and drawing take a LangGraph graph -------------------------------------


def test_debug_session_takes_a_langgraph_graph() -> None:
    from graphkit.widgets.session import DebugSession

    session = DebugSession(_one_node_graph(), {"n": 1})
    session.run()
    assert session.status == "done"
    assert session.values["n"] == 2


def test_the_debugger_takes_a_langgraph_graph() -> None:
    pytest.importorskip("ipywidgets")
    from graphkit.widgets.debugger import Debugger

    debugger = Debugger(_one_node_graph(), {"n": 1})
    debugger.click("run")
    assert (debugger.session.status, debugger.session.values["n"]) == ("done", 2)
    assert ("inc", "inc") in debugger.breakpoints.options  # (label, node) pairs


def test_drawing_takes_a_langgraph_graph() -> None:
    from graphkit.render.display import mimebundle
    from graphkit.render.methods import get_graph

    drawn = get_graph(_one_node_graph()).draw_mermaid()
    assert "__start__ --> inc" in drawn
    text = mimebundle(_one_node_graph(), include=["text/plain"])["text/plain"]
    assert "__start__ --> inc" in text


def test_langgraphs_prebuilt_agent_runs_converted() -> None:
    """LangGraph's create_react_agent (its ToolNode reads runtime.server_info; its state
    has NotRequired[RemainingSteps]) runs on graphkit as on LangGraph."""
    import warnings

    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool
    from langgraph.prebuilt import create_react_agent

    from graphkit.prebuilt import ScriptedChatModel

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    def answer(messages):
        if messages[-1].type == "human":
            call = {"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}
            return AIMessage("", tool_calls=[call])
        return f"the sum is {messages[-1].content}"

    def agent():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # create_react_agent's own deprecation
            return create_react_agent(ScriptedChatModel(responses=[answer] * 4), [add])

    def shown(result):
        return [(m.type, m.content) for m in result["messages"]]

    expected = shown(agent().invoke({"messages": [("user", "hi")]}))
    converted = from_langgraph(agent())
    assert shown(converted.invoke({"messages": [("user", "hi")]})) == expected
    run = converted.trace({"messages": [("user", "hi")]})
    assert [s.plan.nodes for s in run.steps][1:] == [["__start__"], ["agent"], ["tools"], ["agent"]]


GLOBAL_SUBGRAPH: Any = None  # set by the test below: a LangGraph graph a node names


def test_a_module_global_graph_called_in_a_node_is_converted_too() -> None:
    """A node calling a LangGraph graph it names as a module global: converted with it,
    so an interrupt() inside pauses the run and the answer resumes it, as in LangGraph."""
    from typing import TypedDict

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from langgraph.types import Command, interrupt

    import graphkit

    global GLOBAL_SUBGRAPH

    class Answer(TypedDict):
        x: str

    inner = StateGraph(Answer).add_node("ask", lambda s: {"x": interrupt("q")})
    GLOBAL_SUBGRAPH = inner.add_edge(START, "ask").compile()

    def call(state):
        return {"x": GLOBAL_SUBGRAPH.invoke({"x": "a"})["x"]}

    outer = StateGraph(Answer).add_node("call", call).add_edge(START, "call")
    app = outer.compile(checkpointer=InMemorySaver())
    converted = from_langgraph(app)
    for graph, command in ((app, Command), (converted, graphkit.Command)):
        config = {"configurable": {"thread_id": "t"}}
        paused = graph.invoke({"x": ""}, config)
        assert [item.value for item in paused["__interrupt__"]] == ["q"]
        assert graph.invoke(command(resume="R"), config) == {"x": "R"}
    run = converted.trace({"x": ""}, {"configurable": {"thread_id": "u"}})
    assert run.steps[-1].execution.results[0].subruns  # recorded as graphkit's subgraph


def test_error_handlers_and_timeouts_are_carried_over() -> None:
    """Own and default error handlers (LangGraph's NodeError parameter injected as
    graphkit's) and a node timeout give the converted graph LangGraph's result."""
    from langgraph.errors import NodeError
    from langgraph.graph import START, StateGraph

    class State(TypedDict):
        log: Annotated[list, operator.add]

    def broken(state: State) -> dict:
        raise ValueError("boom")

    def own(state: State, error: NodeError) -> dict:
        return {"log": [f"own {error.node}: {error.error}"]}

    def fallback(state: State, error: NodeError) -> dict:
        return {"log": [f"default {error.node}"]}

    async def slow(state: State) -> dict:
        await asyncio.sleep(1)
        return {"log": ["slow"]}

    builder = StateGraph(State).set_node_defaults(error_handler=fallback)
    builder.add_node("bad", broken, error_handler=own)
    builder.add_node("bad2", broken)
    builder.add_node("slow", slow, timeout=0.05)
    for node in ("bad", "bad2", "slow"):
        builder.add_edge(START, node)
    source = builder.compile()
    expected = asyncio.run(source.ainvoke({"log": []}))
    got = asyncio.run(from_langgraph(source).ainvoke({"log": []}))
    assert sorted(got["log"]) == sorted(expected["log"]) == [
        "default bad2", "default slow", "own bad: boom",
    ]  # fmt: skip

    async def updated(app: Any) -> list[str]:  # which nodes sent updates: the handlers'
        return sorted([name async for chunk in app.astream({"log": []}) for name in chunk])

    assert asyncio.run(updated(from_langgraph(source))) == asyncio.run(updated(source)) == [
        "__default_error_handler__", "__default_error_handler__", "__error_handler__bad",
    ]  # fmt: skip


def test_a_compiled_graphs_own_retry_policy_serves_nodes_without_one() -> None:
    from langgraph.types import RetryPolicy

    source = _one_node_graph()
    source.retry_policy = (RetryPolicy(max_attempts=4),)
    app = from_langgraph(source)
    assert app.spec.nodes["inc"].retry_policies[0].max_attempts == 4


def test_a_subgraph_a_node_invokes_is_found_through_the_conversion() -> None:
    """A node's function holds a LangGraph graph it invokes; the conversion runs it as a
    graphkit subgraph, and get_subgraphs / get_state(subgraphs=True) find it, as they
    do on LangGraph."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from langgraph.types import interrupt

    class Asked(TypedDict):
        answer: str

    inner = StateGraph(Asked).add_node("ask", lambda state: {"answer": interrupt("which?")})
    sub = inner.add_edge(START, "ask").compile()

    def call(state: Asked) -> dict:
        return sub.invoke(state)

    outer = StateGraph(Asked).add_node("call", call).add_edge(START, "call")
    original = outer.compile(checkpointer=InMemorySaver())
    converted = from_langgraph(outer.compile(checkpointer=InMemorySaver()))
    config = {"configurable": {"thread_id": "t"}}
    seen = []
    for app in (original, converted):
        app.invoke({"answer": ""}, config)
        task = app.get_state(config, subgraphs=True).tasks[0]
        seen.append(([name for name, _ in app.get_subgraphs()], task.state.next))
    assert seen[1] == seen[0] == (["call"], ("ask",))


def test_a_tool_node_runs_its_async_tools_in_an_async_run() -> None:
    """LangGraph's ToolNode (a RunnableCallable subclass) is awaited in an async run, so
    a tool with only an async implementation runs, as on LangGraph."""
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode

    @tool
    async def double(x: int) -> int:
        """Double a number (async only)."""
        return 2 * x

    call = {"name": "double", "args": {"x": 21}, "id": "c1", "type": "tool_call"}
    given = {"messages": [AIMessage("", tool_calls=[call])]}
    builder = StateGraph(MessagesState).add_node("tools", ToolNode([double]))
    app = builder.add_edge(START, "tools").compile()
    outputs = [
        asyncio.run(graph.ainvoke(given))["messages"][-1].content
        for graph in (app, from_langgraph(app))
    ]
    assert outputs == ["42", "42"]


def test_a_node_with_a_sync_and_an_async_function_runs_the_async_one_in_async_runs() -> None:
    """create_react_agent's model node has both; an async prompt only works through the
    async one, which LangGraph's ainvoke runs."""
    import warnings

    from langchain_core.messages import HumanMessage
    from langgraph.prebuilt import create_react_agent

    from graphkit.prebuilt import ScriptedChatModel

    async def prompt(state):
        return [HumanMessage(f"Bar {state['messages'][-1].content}")]

    def answer(messages):
        return " / ".join(message.content for message in messages)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_react_agent's own deprecation
        app = create_react_agent(ScriptedChatModel(responses=[answer] * 2), [], prompt=prompt)
    given = {"messages": [("user", "hi")]}
    outputs = [
        asyncio.run(graph.ainvoke(given))["messages"][-1].content
        for graph in (app, from_langgraph(app))
    ]
    assert outputs == ["Bar hi", "Bar hi"]


class _AskingState(AgentStatePydantic):  # (at module level: a checkpoint names its class)
    user_name: str = "nobody"


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_an_agent_with_a_pydantic_state_subclass_pauses_and_resumes(saver: str, tmp_path) -> None:
    """create_react_agent sends its (pydantic) state to the tools in a Send; the bridge's
    copy of that state class is saved as the user's class, as LangGraph saves it (it was
    refused: its module and name led back to the user's class, not to the copy)."""
    import sqlite3

    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.prebuilt import create_react_agent
    from langgraph.types import Command, interrupt

    from graphkit.checkpoint import InMemorySaver, SqliteSaver
    from graphkit.prebuilt import ScriptedChatModel

    @tool
    def ask(question: str) -> str:
        """Ask the human."""
        return interrupt(question)

    def outcome(app: Any) -> tuple[Any, ...]:
        config = {"configurable": {"thread_id": "t"}}
        paused = app.invoke({"messages": [HumanMessage("hi")]}, config)["__interrupt__"]
        done = app.invoke(Command(resume="yes"), config)
        return [i.value for i in paused], [m.content for m in done["messages"]]

    def agent() -> Any:
        call = {"name": "ask", "args": {"question": "ok?"}, "id": "1"}
        model = ScriptedChatModel(responses=[AIMessage("", tool_calls=[call]), AIMessage("done")])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return create_react_agent(
                model, [ask], state_schema=_AskingState, checkpointer=LangGraphSaver()
            )

    ours = InMemorySaver() if saver == "memory" else SqliteSaver(sqlite3.connect(tmp_path / "a.db"))
    assert outcome(from_langgraph(agent(), checkpointer=ours)) == outcome(agent())


def _looping_graph() -> Any:
    from langgraph.graph import START, StateGraph

    class State(TypedDict):
        n: int

    builder = StateGraph(State).add_node("inc", lambda s: {"n": s["n"] + 1})
    return builder.add_edge(START, "inc").add_edge("inc", "inc").compile()


@pytest.mark.parametrize("call", ["invoke", "stream", "trace", "ainvoke", "astream"])
def test_langgraphs_except_clause_catches_the_converted_graphs_errors(call: str) -> None:
    """Code written for LangGraph catches ``langgraph.errors.GraphRecursionError`` around
    its ``invoke``; on the converted graph the same clause catches it (it raised graphkit's
    class, which LangGraph's clause let through). It stays graphkit's, with its run."""
    from langgraph import errors

    from graphkit.errors import GraphRecursionError

    app = from_langgraph(_looping_graph())

    async def drain() -> list[Any]:
        return [chunk async for chunk in app.astream({"n": 0}, {"recursion_limit": 3})]

    runs = {
        "invoke": lambda: app.invoke({"n": 0}, {"recursion_limit": 3}),
        "stream": lambda: list(app.stream({"n": 0}, {"recursion_limit": 3})),
        "trace": lambda: app.trace({"n": 0}, {"recursion_limit": 3}),
        "ainvoke": lambda: asyncio.run(app.ainvoke({"n": 0}, {"recursion_limit": 3})),
        "astream": lambda: asyncio.run(drain()),
    }
    with pytest.raises(errors.GraphRecursionError) as caught:
        runs[call]()
    assert isinstance(caught.value, GraphRecursionError)
    assert type(caught.value).__name__ == "GraphRecursionError"
    assert "Recursion limit of 3 reached" in str(caught.value)
    if call == "trace":
        assert caught.value.run.status == "out_of_steps"


def test_an_update_error_of_the_converted_graph_is_langgraphs_class_too() -> None:
    """``update_state`` as a node the graph does not have: LangGraph's InvalidUpdateError,
    and graphkit's; pickled, it comes back as graphkit's class."""
    import pickle

    from langgraph import errors

    from graphkit.checkpoint import InMemorySaver
    from graphkit.errors import InvalidUpdateError

    app = from_langgraph(_one_node_graph(), checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"n": 0}, config)
    with pytest.raises(errors.InvalidUpdateError) as caught:
        app.update_state(config, {"n": 5}, as_node="nope")
    assert isinstance(caught.value, InvalidUpdateError)
    again = pickle.loads(pickle.dumps(caught.value))
    assert type(again) is InvalidUpdateError and again.args == caught.value.args


def test_a_converted_graph_reads_as_one() -> None:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph

    class State(TypedDict):
        n: int

    builder = StateGraph(State).add_node("inc", lambda s: {"n": s["n"] + 1})
    app = builder.add_edge(START, "inc").compile(checkpointer=InMemorySaver(), name="counter")
    assert repr(from_langgraph(app)) == (
        "ConvertedGraph(name='counter', nodes=['inc'], saver=InMemorySaver)"
    )
