"""The public surface of a compiled graph, read the way LangChain's tools read it
(LangServe's ``add_routes``, a ``RunnableSequence`` the graph starts, ``as_tool``, a
schema reader): ``InputType`` / ``OutputType``, the pydantic models ``input_schema`` /
``output_schema`` / ``get_input_schema(config)`` / ``get_output_schema(config)``,
``config_specs``, LangChain's compositions (``pipe``, ``with_fallbacks``,
``with_listeners``, ``with_types``, ``bind``, ``pick``, ``assign``, ``as_tool``,
``transform``, ``graph | other_graph``), the attributes LangGraph reads back
(``stream_channels_asis`` / ``_list``, ``stream_eager``, ``cache_policy``, a
``with_config`` copy's ``config``), and ``output_keys=[]`` on the sync and async paths:
the same program on LangGraph and graphkit gives the same values, for StateGraphs of
each state kind, an ``@entrypoint``, a low-level ``Pregel`` and their ``copy()`` /
``with_config(...)``."""

import asyncio
import dataclasses
import operator
import warnings
from dataclasses import dataclass
from types import ModuleType
from typing import Annotated, Any, NotRequired

import pydantic
import pytest
from langchain_core.runnables import RunnableLambda
from typing_extensions import TypedDict  # (pydantic needs it for a TypedDict on 3.11)

LIBRARIES = ("langgraph", "graphkit")


@dataclass(frozen=True)
class Side:
    StateGraph: Any
    START: str
    entrypoint: Any
    Pregel: Any
    NodeBuilder: Any
    channels: ModuleType


def side(library: str) -> Side:
    if library == "langgraph":
        import langgraph.channels as channels
        from langgraph.func import entrypoint
        from langgraph.graph import START, StateGraph
        from langgraph.pregel import NodeBuilder, Pregel
    else:
        import graphkit.channels as channels
        from graphkit.func import entrypoint
        from graphkit.graph import START, StateGraph
        from graphkit.pregel import NodeBuilder, Pregel
    return Side(StateGraph, START, entrypoint, Pregel, NodeBuilder, channels)


class Typed(TypedDict):
    x: int
    items: Annotated[list, operator.add]
    note: NotRequired[str]


class TypedInput(TypedDict):
    x: int


class ModelInput(pydantic.BaseModel):
    x: int = 3


class ModelState(pydantic.BaseModel):
    x: int = 0
    note: str = "a"


@dataclasses.dataclass
class DataState:
    x: int = 0
    items: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class DataOutput:
    items: list = dataclasses.field(default_factory=list)


def _state_graph(lib: Side, state: Any, **options: Any) -> Any:
    builder = lib.StateGraph(state, **options).add_node("a", lambda s: None)
    return builder.add_edge(lib.START, "a")


def _graphs(lib: Side) -> dict[str, Any]:
    @lib.entrypoint()
    def typed(x: dict) -> list[int]:
        return [1]

    @lib.entrypoint()
    def untyped(x):  # (no annotations, on purpose)
        return x

    node = lib.NodeBuilder().subscribe_only("a").do(lambda x: x + 1).write_to("b")
    one = lib.Pregel(
        nodes={"n": node},
        channels={"a": lib.channels.EphemeralValue(int), "b": lib.channels.LastValue(int)},
        input_channels="a",
        output_channels="b",
    )
    several = lib.Pregel(
        nodes={"n": node},
        channels={"a": lib.channels.EphemeralValue(int), "b": lib.channels.LastValue(int)},
        input_channels=["a"],
        output_channels=["b"],
    )
    return {
        "typeddict": _state_graph(lib, Typed).compile(),
        "typeddict-in-out": _state_graph(
            lib, Typed, input_schema=TypedInput, output_schema=DataOutput
        ).compile(name="my_graph"),
        "model-input": _state_graph(lib, Typed, input_schema=ModelInput).compile(),
        "pydantic": _state_graph(lib, ModelState).compile(),
        "dataclass": _state_graph(lib, DataState).compile(),
        "single-value": _state_graph(lib, int).compile(),
        "single-list": _state_graph(lib, Annotated[list, operator.add]).compile(),
        "entrypoint": typed,
        "entrypoint-untyped": untyped,
        "pregel": one,
        "pregel-lists": several,
    }


def _model(model: Any) -> Any:
    """A pydantic model as compared: its name, whether it is the user's own class or a
    root model, and its JSON schema."""
    own = model in (ModelInput, ModelState)
    return (model.__name__, own, issubclass(model, pydantic.RootModel), model.model_json_schema())


def _type(typ: Any) -> str:
    return repr(typ).replace("langgraph", "LIB").replace("graphkit", "LIB")


def _surface(app: Any) -> dict[str, Any]:
    return {
        "InputType": _type(app.InputType),
        "OutputType": _type(app.OutputType),
        "input_schema": _model(app.input_schema),
        "output_schema": _model(app.output_schema),
        "get_input_schema": _model(app.get_input_schema({"configurable": {"user": "u"}})),
        "get_output_schema": _model(app.get_output_schema()),
        "same model each time": app.input_schema is app.input_schema,
        "config_specs": app.config_specs,
        "stream_channels_asis": app.stream_channels_asis,
        "stream_channels_list": app.stream_channels_list,
        "stream_eager": app.stream_eager,
        "cache_policy": app.cache_policy,
    }


def _both(read: Any) -> list[Any]:
    seen = []
    for library in LIBRARIES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            seen.append(read(side(library)))
    return seen


@pytest.mark.parametrize("kind", list(_graphs(side("langgraph"))))
def test_the_input_and_output_types_and_models_match_langgraph(kind: str) -> None:
    def read(lib: Side) -> Any:
        app = _graphs(lib)[kind]
        copies = [app, app.copy(), app.with_config({"tags": ["t"]})]
        return [_surface(each) for each in copies]

    langgraph, graphkit = _both(read)
    assert graphkit == langgraph


def test_the_models_validate_input_and_output_as_langgraphs() -> None:
    def read(lib: Side) -> Any:
        app = _state_graph(lib, Typed, input_schema=ModelInput).compile()
        return (
            repr(app.input_schema.model_validate({"x": "4"})),
            repr(app.output_schema.model_validate(app.invoke({"x": 1, "items": []}))),
            repr(_graphs(lib)["typeddict-in-out"].input_schema.model_validate({"x": 1})),
        )

    langgraph, graphkit = _both(read)
    assert graphkit == langgraph


def test_a_with_config_copy_has_a_configurable_as_langgraphs() -> None:
    def read(lib: Side) -> Any:
        app = _graphs(lib)["typeddict"]
        return (
            app.config,
            app.with_config(recursion_limit=5).config,
            app.with_config({"configurable": {"a": 1}}, tags=["x"]).config,
            app.with_config(None).with_config({"metadata": {"m": 1}}).config,
        )

    langgraph, graphkit = _both(read)
    assert graphkit == langgraph


def _composed(lib: Side) -> dict[str, Any]:
    def build(fail: bool = False) -> Any:
        def double(state: dict) -> dict:
            if fail:
                raise ValueError("boom")
            return {"items": [state["x"] * 2]}

        builder = lib.StateGraph(Typed, input_schema=ModelInput).add_node("a", double)
        return builder.add_edge(lib.START, "a").compile()

    app, events = build(), []
    sequence = app | RunnableLambda(lambda output: output["items"])
    listened = app.with_listeners(
        on_start=lambda run: events.append(("start", run.name)),
        on_end=lambda run: events.append(("end", run.name, run.outputs)),
    )
    tool = app.as_tool(name="doubler", description="Doubles x.")

    async def transformed() -> list[Any]:
        async def given() -> Any:
            yield {"x": 1}

        return [chunk async for chunk in app.atransform(given())]

    return {
        "sequence": sequence.invoke({"x": 2}),
        "sequence input": sequence.get_input_jsonschema(),
        "sequence InputType": sequence.InputType.__name__,
        "sequence config_specs": sequence.config_specs,
        "pipe": app.pipe(RunnableLambda(lambda output: output["items"])).invoke({"x": 3}),
        "graph | graph": (app | build()).invoke({"x": 1}),
        "graph | dict of graphs": (app | {"again": build(), "nested": {"g": build()}}).invoke(
            {"x": 1}
        ),
        "pipe a dict": app.pipe({"again": build()}).invoke({"x": 2}),
        "assign a graph": app.assign(again=build()).invoke({"x": 3}),
        "with_fallbacks": build(fail=True).with_fallbacks([app]).invoke({"x": 4}),
        "with_listeners": (listened.invoke({"x": 5}), events),
        "with_types": app.with_types(input_type=dict).input_schema.model_json_schema(),
        "bind": app.bind(stream_mode="updates").invoke({"x": 1}),
        "pick": app.pick("items").invoke({"x": 6}),
        "assign": app.assign(n=lambda output: len(output["items"])).invoke({"x": 6}),
        "as_tool": (tool.name, tool.args, tool.invoke({"x": 7})),
        "transform": list(app.transform(iter([{"x": 1}]))),
        "atransform": asyncio.run(transformed()),
    }


def test_langchains_compositions_of_a_graph_match_langgraph() -> None:
    langgraph, graphkit = _both(_composed)
    assert graphkit == langgraph


class Pair(TypedDict):
    x: int
    y: int


def _output_keys(lib: Side) -> dict[str, Any]:
    builder = lib.StateGraph(Pair).add_node("a", lambda s: {"x": s["x"] + 1})
    app = builder.add_node("b", lambda s: {"y": 5}).add_edge(lib.START, "a").add_edge("a", "b")
    app, given, seen = app.compile(), {"x": 1, "y": 0}, {}

    async def streamed(keys: Any, mode: str) -> list[Any]:
        return [c async for c in app.astream(given, stream_mode=mode, output_keys=keys)]

    for keys in ([], (), None, ["x"], "x"):
        for mode in ("values", "updates"):
            run = {"stream_mode": mode, "output_keys": keys}
            seen[f"invoke {keys!r} {mode}"] = app.invoke(given, **run)
            seen[f"ainvoke {keys!r} {mode}"] = asyncio.run(app.ainvoke(given, **run))
            seen[f"stream {keys!r} {mode}"] = list(app.stream(given, **run))
            seen[f"astream {keys!r} {mode}"] = asyncio.run(streamed(keys, mode))
        run = {"output_keys": keys, "version": "v2"}
        seen[f"invoke {keys!r} v2"] = app.invoke(given, **run).value
        seen[f"ainvoke {keys!r} v2"] = asyncio.run(app.ainvoke(given, **run)).value
    return seen


def test_empty_output_keys_mean_no_keys_on_the_sync_and_async_paths() -> None:
    """``output_keys=[]`` is "no keys" (``invoke`` returns None, "values" chunks none,
    updates ``{"a": None}``), not "the defaults", in ``invoke`` and ``ainvoke`` alike."""
    langgraph, graphkit = _both(_output_keys)
    assert langgraph["ainvoke [] values"] is None
    assert graphkit == langgraph


def _nested_events(lib: Side) -> dict[str, Any]:
    """The depth of each run's start in events v2 when a node calls the graph through
    LangChain (a composition of it, a ``RunnableLambda``): the runnable's run is the
    graph's parent, as for a graph a node calls itself."""
    sub = _state_graph(lib, Typed).compile()
    calls = {
        "pick": lambda state, config: {"items": sub.pick("items").invoke(state, config)},
        "sequence": lambda state, config: (sub | RunnableLambda(dict)).invoke(state, config),
        "lambda": RunnableLambda(lambda state, config: sub.invoke(state, config)),
        "lambda without config": RunnableLambda(lambda state: sub.invoke(state)),
        "itself": lambda state, config: sub.invoke(state, config),
    }

    async def depths(node: Any) -> list[Any]:
        builder = lib.StateGraph(Typed).add_node("p", node).add_edge(lib.START, "p")
        events = builder.compile().astream_events({"x": 1, "items": []}, version="v2")
        return [(e["name"], len(e["parent_ids"])) async for e in events if "start" in e["event"]]

    return {name: asyncio.run(depths(node)) for name, node in calls.items()}


def test_a_graph_called_through_langchain_in_a_node_is_its_runs_child() -> None:
    langgraph, graphkit = _both(_nested_events)
    assert langgraph["pick"][3] == ("LangGraph", 3)  # under p's RunnableSequence
    assert graphkit == langgraph


def _called_from_langchain(lib: Side) -> dict[str, Any]:
    """A graph called, outside any graph, from a ``RunnableLambda`` or a tool: its run is
    that runnable's child in events v2, and its nodes see the runnable's tags and
    metadata, as LangGraph's ``ensure_config`` reads the current runnable's config."""
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import tool

    def peek(state: Typed, config: RunnableConfig) -> dict[str, Any]:
        return {"items": [sorted(config.get("tags") or ()), config["metadata"].get("user")]}

    app = lib.StateGraph(Typed).add_node("peek", peek).add_edge(lib.START, "peek").compile()

    async def ainvoke(state: Any) -> Any:
        return await app.ainvoke(state)

    @tool
    def ask(x: int) -> str:
        """Run the graph."""
        return str(app.invoke({"x": x, "items": []}))

    async def starts(runnable: Any, value: Any) -> list[Any]:
        events = runnable.astream_events(value, version="v2")
        return [(e["name"], len(e["parent_ids"])) async for e in events if "start" in e["event"]]

    callers = {
        "lambda": RunnableLambda(lambda state: app.invoke(state)),
        "async lambda": RunnableLambda(ainvoke),
        "lambda with tags": RunnableLambda(lambda state: app.invoke(state, {"tags": ["own"]})),
    }
    seen: dict[str, Any] = {
        name: asyncio.run(starts(caller, {"x": 1, "items": []})) for name, caller in callers.items()
    }
    seen["tool"] = asyncio.run(starts(ask, {"x": 1}))
    config = {"tags": ["outer"], "metadata": {"user": "ada"}}
    seen["config"] = callers["lambda with tags"].invoke({"x": 1, "items": []}, config)["items"]
    return seen


def test_a_graph_called_from_langchain_outside_a_graph_is_its_runs_child() -> None:
    langgraph, graphkit = _both(_called_from_langchain)
    assert langgraph["lambda"][1:] == [("LangGraph", 1), ("peek", 2)]
    assert langgraph["config"] == [["outer", "own"], "ada"]
    assert graphkit == langgraph


def _limited_from_langchain(lib: Side) -> dict[str, Any]:
    """A looping graph called from a ``RunnableLambda`` outside any graph runs under the
    runnable's recursion limit (langchain-core's default of 25 when none is given), as
    LangGraph's ``ensure_config`` copies it; a limit the call gives wins."""

    def step(state: Typed) -> dict[str, Any]:
        return {"x": state["x"] + 1}

    builder = lib.StateGraph(Typed).add_node("step", step).add_edge(lib.START, "step")
    app = builder.add_conditional_edges("step", lambda s: "__end__" if s["x"] >= 30 else "step")
    app = app.compile()

    def outcome(caller: Any, config: Any = None) -> Any:
        try:
            return caller.invoke({"x": 0, "items": []}, config)["x"]
        except Exception as error:  # (GraphRecursionError: each library's own class)
            return type(error).__name__

    plain = RunnableLambda(lambda state: app.invoke(state))
    own = RunnableLambda(lambda state: app.invoke(state, {"recursion_limit": 100}))
    return {
        "default": outcome(plain),
        "given": outcome(plain, {"recursion_limit": 3}),
        "roomy": outcome(plain, {"recursion_limit": 100}),
        "own": outcome(own, {"recursion_limit": 3}),
    }


def test_a_graph_called_from_langchain_runs_under_the_runnables_recursion_limit() -> None:
    langgraph, graphkit = _both(_limited_from_langchain)
    assert langgraph == {"default": "GraphRecursionError", "given": "GraphRecursionError",
                         "roomy": 30, "own": 30}  # fmt: skip
    assert graphkit == langgraph
