"""A run's config is carried as LangGraph carries it (issue 14, item 5): its metadata and
its primitive ``configurable`` keys go into every checkpoint's metadata (not ``thread_id``,
``checkpoint_ns``..., not keys starting with "__", not lists or dicts); ``thread_id`` (and
the other run coordinates) go into the metadata nodes and the "messages" stream see; the
debug stream's checkpoint metadata is the run's own (source, step, parents)."""

from __future__ import annotations

import asyncio
import operator
from decimal import Decimal
from fractions import Fraction
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS

CONFIG = {
    "configurable": {
        "thread_id": "t1",
        "user_id": "u7",
        "__private": 1,
        "a_list": [1],
        "ratio": 1.5,
        "flag": True,
        "api_key": "k",
    },
    "metadata": {"tag": "mine", "step": 99, "a_dict": {"x": 1}},
    "tags": ["t1"],
}


class State(TypedDict, total=False):
    x: int
    messages: list


def _build(lib: Lib, saver, seen: list):
    from langchain_core.messages import AIMessage

    def node(state, config):
        metadata = config["metadata"]
        seen.append({k: _ns(v) for k, v in metadata.items() if not k.startswith("langgraph_")})
        return {"x": 1, "messages": [AIMessage("hey", id=f"m{len(seen)}")]}

    inner = lib.StateGraph(State)
    inner.add_node("inner", node)
    inner.add_edge(lib.START, "inner")
    graph = lib.StateGraph(State)
    graph.add_node("n", node)
    graph.add_node("sub", inner.compile())
    graph.add_edge(lib.START, "n")
    graph.add_edge("n", "sub")
    return graph.compile(checkpointer=saver)


def _ns(value):
    """A namespace without its task ids."""
    if isinstance(value, str) and ":" in value:
        return "|".join(part.split(":")[0] for part in value.split("|"))
    return value


def _metadata(metadata: dict, steps: dict) -> dict:
    """Checkpoint metadata with each parent checkpoint known by its step."""
    parents = {ns: steps.get(parent) for ns, parent in (metadata.get("parents") or {}).items()}
    return {**metadata, "parents": parents}


def _observe(lib: Lib, saver_kind: str, use_async: bool = False) -> dict:
    seen: list = []
    with SAVERS[saver_kind](lib.name) as saver:
        app = _build(lib, saver, seen)
        options = {"stream_mode": ["messages", "debug"], "subgraphs": True}

        async def collect():
            return [chunk async for chunk in app.astream({"x": 0}, CONFIG, **options)]

        if use_async:
            chunks = asyncio.run(collect())
        else:
            chunks = list(app.stream({"x": 0}, CONFIG, **options))
        chunks = [(mode, chunk) for _, mode, chunk in chunks]
        saved = list(saver.list(None))
        steps = {s.config["configurable"]["checkpoint_id"]: s.metadata["step"] for s in saved}
        debug = [chunk for mode, chunk in chunks if mode == "debug"]
        observed = {
            "node_metadata": seen,
            "saved": sorted(
                (
                    _ns(s.config["configurable"]["checkpoint_ns"]),
                    sorted(_metadata(s.metadata, steps).items(), key=str),
                )
                for s in saved
            ),
            "debug_checkpoints": [
                _metadata(chunk["payload"]["metadata"], steps)
                for chunk in debug
                if chunk["type"] == "checkpoint"
            ],
            # each distinct metadata once: which messages are sent is item 4's business
            "messages": sorted(
                {
                    repr(sorted((k, _ns(v)) for k, v in chunk[1].items() if k[:10] != "langgraph_"))
                    for mode, chunk in chunks
                    if mode == "messages"
                }
            ),
        }
        update = {"configurable": {"thread_id": "t1", "who": "u8", "__x": 1}, "metadata": {"m2": 1}}
        app.update_state(update, {"x": 5}, as_node="sub")
        latest = app.get_state({"configurable": {"thread_id": "t1"}})
        observed["update"] = _metadata(latest.metadata, steps)
        return observed


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_config_is_carried_as_langgraph_carries_it(saver):
    expected = _observe(load_langgraph(), saver)
    observed = _observe(load_graphkit(), saver)
    for key in expected:
        assert observed[key] == expected[key], key


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_async_config_is_carried_as_langgraph_carries_it(saver):
    """astream; LangGraph's sync SqliteSaver has no async methods, so it runs in memory."""
    expected = _observe(load_langgraph(), "memory", use_async=True)
    observed = _observe(load_graphkit(), saver, use_async=True)
    for key in expected:
        assert observed[key] == expected[key], key


def test_the_case_shows_what_langgraph_copies():
    saved = dict(_observe(load_langgraph(), "memory")["saved"][-1][1])
    assert {"tag", "user_id", "ratio", "flag", "api_key"} <= set(saved)
    assert not {"thread_id", "__private", "a_list", "a_dict"} & set(saved)
    assert saved["step"] != 99


def _debug_task_metadata(lib: Lib) -> list:
    with SAVERS["memory"](lib.name) as saver:
        app = _build(lib, saver, [])
        chunks = app.stream({"x": 0}, CONFIG, stream_mode="debug", subgraphs=True)
        return [
            {k: _ns(v) for k, v in chunk["payload"].get("metadata", {}).items()}
            for _, chunk in chunks
            if chunk["type"] == "task"
        ]


def test_debug_task_metadata_leaves_out_the_run_coordinates():
    assert _debug_task_metadata(load_graphkit()) == _debug_task_metadata(load_langgraph())


def _inherited(lib: Lib, run_async: bool) -> list:
    """What a LangChain runnable called inside a node (and a router) without a config
    sees through ``ensure_config()``: the task's metadata, tags and configurable."""
    from langchain_core.runnables import RunnableLambda
    from langchain_core.runnables.config import ensure_config

    def look(_: object) -> tuple:
        config = ensure_config()
        meta = config["metadata"]
        seen = (meta.get("langgraph_node"), meta.get("langgraph_step"), meta.get("tag"))
        return (*seen, config["tags"], config["configurable"].get("user_id"))

    probe = RunnableLambda(look)
    seen: list = []

    def node(state):  # asks for nothing: the config comes from the context
        seen.append(probe.invoke(None))
        return {"x": 1}

    async def anode(state):
        seen.append(await probe.ainvoke(None))
        return {"x": 1}

    def route(state):
        seen.append(probe.invoke(None))
        return lib.END

    graph = lib.StateGraph(State).add_node("a", anode if run_async else node)
    graph.add_edge(lib.START, "a").add_conditional_edges("a", route)
    app = graph.compile()
    config = {"configurable": {"user_id": "u7"}, "metadata": {"tag": "mine"}, "tags": ["t1"]}
    if run_async:
        asyncio.run(app.ainvoke({}, config))
    else:
        app.invoke({}, config)
    return seen


@pytest.mark.parametrize("run_async", [False, True], ids=["sync", "async"])
def test_a_runnable_called_in_a_node_inherits_the_task_s_config(run_async):
    expected = _inherited(load_langgraph(), run_async)
    got = _inherited(load_graphkit(), run_async)
    assert got == expected
    assert got[0] == ("a", 1, "mine", ["t1"], "u7")


@pytest.mark.parametrize(
    "given",
    [
        None,
        {"tags": ["t"], "recursion_limit": 50},
        {"tags": None, "recursion_limit": None},
        {"tags": []},
    ],
    ids=["nothing", "tags-and-limit", "given-as-none", "no-tags"],
)
def test_a_node_s_config_has_tags_and_a_limit_only_when_given(given):
    def keys(lib: Lib) -> dict:
        seen: dict = {}

        def node(state, config):
            seen.update({k: config[k] for k in ("tags", "recursion_limit") if k in config})
            return {"x": 1}

        graph = lib.StateGraph(State).add_node("a", node).add_edge(lib.START, "a")
        graph.compile().invoke({}, given)
        return seen

    assert keys(load_graphkit()) == keys(load_langgraph())


def _model_starts(lib: Lib) -> int:
    """How often a handler given in the run's config hears a bound model called with the
    node's config (a RunnableBinding merges that config with the current one), and one
    called inside a chain (which reports to the handlers it inherits)."""
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.messages import AIMessage

    from graphkit.prebuilt import ScriptedChatModel

    class Counter(BaseCallbackHandler):
        starts = 0

        def on_chat_model_start(self, *args, **kwargs):
            Counter.starts += 1

    from langchain_core.runnables import RunnableLambda

    model = ScriptedChatModel(responses=["ok", "ok"]).bind(stop=["."])
    chain = RunnableLambda(lambda messages: messages) | model  # (the handler is inherited)

    def node(state, config):
        model.invoke([AIMessage("hi")], config)
        chain.invoke([AIMessage("again")], config)
        return {"x": 1}

    graph = lib.StateGraph(State).add_node("a", node).add_edge(lib.START, "a")
    graph.compile().invoke({}, {"callbacks": [Counter()]})
    return Counter.starts


def test_a_handler_hears_each_model_call_once_as_in_langgraph():
    assert _model_starts(load_graphkit()) == _model_starts(load_langgraph()) == 2


def _bound_handler_heard(lib: Lib) -> dict[str, bool]:
    """Whether a handler bound with ``with_config(callbacks=...)`` hears the graph's run
    when the call brings handlers of its own: a list in its config, or the one
    ``astream_events`` adds."""
    from langchain_core.callbacks import BaseCallbackHandler

    class Heard(BaseCallbackHandler):
        def __init__(self) -> None:
            self.chains = 0

        def on_chain_start(self, *args, **kwargs) -> None:
            self.chains += 1

    bound, given = Heard(), Heard()
    graph = lib.StateGraph(State).add_node("a", lambda state: {"x": 1}).add_edge(lib.START, "a")
    app = graph.compile().with_config({"callbacks": [bound]})
    app.invoke({}, {"callbacks": [given]})
    heard = {"bound, with a call's handler": bound.chains > 0, "the call's": given.chains > 0}
    bound.chains = 0

    async def events() -> int:
        return len([event async for event in app.astream_events({}, version="v2")])

    heard["events streamed"] = asyncio.run(events()) > 0
    heard["bound, under astream_events"] = bound.chains > 0
    return heard


def test_a_handler_bound_with_with_config_is_kept_beside_the_calls():
    expected = _bound_handler_heard(load_langgraph())
    assert all(expected.values())
    assert _bound_handler_heard(load_graphkit()) == expected


def _nested_config_seen(lib: Lib) -> dict[str, Any]:
    """What a graph a node invokes with a config of its own gets of the run's: whose
    handlers hear it, its tags (the run's given twice with ``with_config``), and its
    metadata's ``lc_versions`` (merged one level deeper, as LangChain does)."""
    from langchain_core.callbacks import BaseCallbackHandler

    class Heard(BaseCallbackHandler):
        def __init__(self) -> None:
            self.names: list[str] = []

        def on_chain_start(self, serialized, inputs, **kwargs) -> None:
            self.names.append(kwargs.get("name"))

    seen: list = []

    def leaf(state, config):
        versions = config["metadata"].get("lc_versions")
        seen.append((list(config.get("tags") or []), versions))
        return {"x": 1}

    inner = lib.StateGraph(State).add_node("leaf", leaf).add_edge(lib.START, "leaf")
    inner = inner.compile(name="inner")
    own = Heard()

    def caller(state):
        inner.invoke({}, {"callbacks": [own], "tags": ["t", "extra"]})
        inner.invoke({}, {"metadata": {"lc_versions": {"b": "2"}}})
        return {"x": 2}

    app = lib.StateGraph(State).add_node("caller", caller).add_edge(lib.START, "caller").compile()
    app = app.with_config({"tags": ["t"], "metadata": {"lc_versions": {"a": "1"}}})
    run = Heard()
    app.invoke({}, {"callbacks": [run], "tags": ["t"], "metadata": {"lc_versions": {"c": "3"}}})
    return {"run's handler": run.names, "own handler": own.names, "leaf saw": seen}


def test_a_graph_invoked_with_its_own_config_keeps_the_runs_handlers_and_tags():
    expected = _nested_config_seen(load_langgraph())
    assert "leaf" in expected["run's handler"]
    assert _nested_config_seen(load_graphkit()) == expected


class Log(TypedDict, total=False):
    log: Annotated[list, operator.add]


def _nested_loop(lib: Lib, limit: int | None, given: dict | None) -> list[str]:
    """A looping graph invoked inside a node, with no config or its own: as in LangGraph,
    one of its own, or else the run's recursion limit, stops it."""
    ran: list[str] = []

    def step(state: Log) -> Log:
        ran.append("a")
        return {"log": ["a"]}

    inner = lib.StateGraph(Log).add_node("a", step).add_edge(lib.START, "a").add_edge("a", "a")
    inner = inner.compile()
    outer = lib.StateGraph(Log).add_node("sub", lambda state: inner.invoke(state, given))
    outer = outer.add_edge(lib.START, "sub").compile()
    config = {"recursion_limit": limit} if limit is not None else None
    try:
        outer.invoke({"log": []}, config)
    except lib.errors.GraphRecursionError:
        return ["GraphRecursionError", str(len(ran))]
    return ["finished", str(len(ran))]


@pytest.mark.parametrize(
    ("limit", "given"), [(4, None), (6, {"recursion_limit": 3}), (5, {"tags": ["x"]})]
)
def test_a_graph_invoked_in_a_node_inherits_the_recursion_limit(limit, given):
    expected = _nested_loop(load_langgraph(), limit, given)
    assert expected[0] == "GraphRecursionError"
    assert _nested_loop(load_graphkit(), limit, given) == expected


def _run_name_and_id(lib: Lib) -> list:
    """What a node's config holds of the run's ``run_name`` / ``run_id``, and the name
    and id a runnable the node calls with that config reports under."""
    import uuid

    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.runnables import RunnableLambda

    given_id = uuid.UUID(int=42)
    runs: list = []

    class Heard(BaseCallbackHandler):
        def on_chain_start(self, serialized, inputs, *, run_id, name=None, **kwargs):
            runs.append((name, run_id == given_id))

    inner = RunnableLambda(lambda value: value + 1, name="inner")
    seen: list = []

    def node(state, config):
        seen.append((config.get("run_name"), config.get("run_id")))
        return {"x": inner.invoke(state["x"], config)}

    app = lib.StateGraph(State).add_node("a", node).add_edge(lib.START, "a").compile()
    app.invoke({"x": 1}, {"run_name": "MyRun", "run_id": given_id, "callbacks": [Heard()]})
    return [seen, [run for run in runs if run[0] == "inner"]]


def test_a_nodes_config_drops_the_runs_name_and_id():
    assert _run_name_and_id(load_graphkit()) == _run_name_and_id(load_langgraph())


def _context_seen(lib: Lib, schema_kind: str, given: object) -> object:
    import dataclasses

    from typing_extensions import TypedDict as ContextDict

    class Typed(ContextDict, total=False):
        user: str

    @dataclasses.dataclass
    class Data:
        user: str = "anon"

    schema = {"none": None, "typed": Typed, "dataclass": Data}[schema_kind]
    seen: list = []

    def node(state, runtime):
        seen.append(runtime.context)
        return {"x": 1}

    builder = lib.StateGraph(State, context_schema=schema).add_node("a", node)
    builder.add_edge(lib.START, "a").compile().invoke({}, context=given)
    return dataclasses.asdict(seen[0]) if dataclasses.is_dataclass(seen[0]) else seen[0]


@pytest.mark.parametrize(
    "given", [{}, None, {"user": "u"}, [], ""], ids=["empty", "none", "given", "list", "text"]
)
@pytest.mark.parametrize("schema_kind", ["none", "typed", "dataclass"])
def test_a_runs_context_reaches_nodes_as_in_langgraph(schema_kind, given):
    ours = _context_seen(load_graphkit(), schema_kind, given)
    assert ours == _context_seen(load_langgraph(), schema_kind, given)


def _limited_runs(lib: Lib) -> list[Any]:
    """A 2-node chain under NumPy's ints as the recursion limit (read from an array, a
    DataFrame): what each run returns, or the class of what it raises."""
    numpy = pytest.importorskip("numpy")

    class Count(TypedDict):
        n: int

    builder = lib.StateGraph(Count).add_node("a", lambda s: {"n": s["n"] + 1})
    builder.add_node("b", lambda s: {"n": s["n"] + 1}).add_edge(lib.START, "a").add_edge("a", "b")
    app = builder.compile()
    seen: list[Any] = []
    for limit in (numpy.int64(5), numpy.int32(3), numpy.int64(1)):
        try:
            seen.append(app.invoke({"n": 0}, {"recursion_limit": limit}))
        except Exception as error:
            seen.append(type(error).__name__)
    return seen


def test_a_numpy_int_is_a_recursion_limit():
    expected = _limited_runs(load_langgraph())
    assert expected == [{"n": 2}, {"n": 2}, "GraphRecursionError"]
    assert _limited_runs(load_graphkit()) == expected


def _concurrency_limited_runs(lib: Lib) -> list[Any]:
    """Two branches under NumPy's ints, a Fraction and a Decimal as ``max_concurrency``
    (every number LangGraph takes): what invoke, batch and abatch return, or the class
    of what they raise."""
    numpy = pytest.importorskip("numpy")

    class Count(TypedDict):
        n: Annotated[int, operator.add]

    builder = lib.StateGraph(Count).add_node("a", lambda s: {"n": 1})
    builder.add_node("b", lambda s: {"n": 10}).add_edge(lib.START, "a").add_edge(lib.START, "b")
    app = builder.compile()
    seen: list[Any] = []
    for limit in (numpy.int64(1), numpy.int32(2), Fraction(2, 1), Decimal(2)):
        config = {"max_concurrency": limit}
        try:
            seen.append(app.invoke({"n": 0}, config))
            seen.append(app.batch([{"n": 0}, {"n": 100}], config))
            seen.append(asyncio.run(app.abatch([{"n": 0}, {"n": 100}], config)))
        except Exception as error:
            seen.append(type(error).__name__)
    return seen


def test_a_numpy_int_fraction_or_decimal_is_a_max_concurrency():
    # (max_concurrency took Python's ints and floats only: np.int64(2) was "not a number")
    expected = _concurrency_limited_runs(load_langgraph())
    assert expected == [{"n": 11}, [{"n": 11}, {"n": 111}], [{"n": 11}, {"n": 111}]] * 4
    assert _concurrency_limited_runs(load_graphkit()) == expected


def _loose_keys_seen(lib: Lib, run_async: bool) -> dict:
    """A config with keys beside its known ones (``thread_id``, ``user`` at the top level,
    as some LangGraph examples write it): LangGraph moves each into ``configurable``
    (winning over a key of the same name there; ``None`` and empty lists left out), for
    every way of running and for ``get_state_history``, in a graph's ``with_config``
    too, where the call's own ``configurable`` then wins."""
    from langgraph.checkpoint.memory import InMemorySaver

    seen: list = []

    def node(state, config):
        configurable = config["configurable"]
        top = sorted(key for key in config if key in ("thread_id", "user", "n", "empty"))
        kept = ("thread_id", "user", "n", "tags_like", "empty", "gone")
        seen.append([top, {key: configurable[key] for key in kept if key in configurable}])
        return {"x": state["x"] + 1}

    saver = InMemorySaver() if lib.name == "langgraph" else _graphkit_memory_saver()
    app = (
        lib.StateGraph(State)
        .add_node("a", node)
        .add_edge(lib.START, "a")
        .compile(checkpointer=saver)
    )
    loose = {
        "thread_id": "loose-1",
        "user": "ann",
        "n": 3,
        "tags_like": ["x"],
        "empty": [],
        "gone": None,
        "configurable": {"user": "bob"},
    }
    if run_async:
        asyncio.run(app.ainvoke({"x": 0}, loose))
        asyncio.run(_drain(app.astream({"x": 0}, {"thread_id": "loose-1"})))
    else:
        app.invoke({"x": 0}, loose)
        list(app.stream({"x": 0}, {"thread_id": "loose-1"}))
    bound = app.with_config({"user": "bound", "thread_id": "loose-2"})
    bound.invoke({"x": 0}, {"configurable": {"user": "call"}})
    history = [len(list(app.get_state_history({"thread_id": t}))) for t in ("loose-1", "loose-2")]
    return {"seen": seen, "history": history}


def _graphkit_memory_saver():
    from graphkit.checkpoint.memory import InMemorySaver

    return InMemorySaver()


async def _drain(stream) -> None:
    async for _ in stream:
        pass


@pytest.mark.parametrize("run_async", [False, True], ids=["sync", "async"])
def test_keys_beside_the_config_keys_go_under_configurable(run_async):
    expected = _loose_keys_seen(load_langgraph(), run_async)
    assert expected["seen"][0] == [[], {"thread_id": "loose-1", "user": "ann", "n": 3,
                                        "tags_like": ["x"]}]  # fmt: skip
    assert _loose_keys_seen(load_graphkit(), run_async) == expected
