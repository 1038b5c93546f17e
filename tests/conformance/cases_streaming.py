"""Cases about what a node can ask for (`config`, `runtime`, `writer`, `store`), async nodes
under `ainvoke`/`astream` (with subgraphs: cases_subgraphs.py), and what the run shows of
itself: the "custom", "tasks" and "debug" stream modes, `print_mode` and
`compile(debug=True)`.

Payloads are compared after `harness.tidy`: task ids become "task-1", "task-2"... in order
of first appearance, timestamps are dropped and errors are known by class name.
"""

import asyncio
import dataclasses
import operator
from typing import Annotated, Any, TypedDict

from .harness import Case, Lib, Raised, appender


class Log(TypedDict):
    log: Annotated[list, operator.add]


class Counter(TypedDict):
    n: int
    log: Annotated[list, operator.add]


class Boom(Exception):
    """A user's own exception; it must come out of invoke/stream as itself."""


@dataclasses.dataclass
class Context:
    user: str
    shout: bool = False


def _chain(lib: Lib, *nodes: tuple[str, object], schema: type = Log, **options):
    """START -> each node in turn -> END, compiled."""
    graph = lib.StateGraph(schema, **options.pop("graph_options", {}))
    previous = lib.START
    for name, node in nodes:
        graph.add_node(name, node)
        graph.add_edge(previous, name)
        previous = name
    return graph.compile(**options)


# --- what a node can ask for -----------------------------------------------------------------


def reads_config(lib: Lib):
    """A node and a router read the run's configurable values and the task's metadata."""

    def look(state: Log, config) -> dict:
        meta = config["metadata"]
        seen = (meta["langgraph_step"], meta["langgraph_node"], meta["langgraph_triggers"])
        return {"log": [config["configurable"]["user"], seen, meta.get("team")]}

    def route(state: Log, config) -> str:
        return "b" if config["configurable"]["user"] == "ada" else lib.END

    graph = lib.StateGraph(Log)
    graph.add_node("a", appender("a"))
    graph.add_node("look", look)
    graph.add_node("b", look)
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "look")
    graph.add_conditional_edges("look", route, ["b", lib.END])
    return graph.compile()


def routes_with_parameters(lib: Lib):
    """A router asks for ``config``, ``runtime`` and ``writer`` though its node asks for
    nothing: it is given the task's, as a node would be."""

    def route(state: Log, config, runtime, writer) -> str:
        writer({"routing": config["metadata"]["langgraph_node"]})
        same = config["configurable"]["user"] == runtime.context.user
        return "b" if same and len(state["log"]) < 3 else lib.END

    graph = lib.StateGraph(Log, context_schema=Context)
    graph.add_node("a", appender("a"))
    graph.add_node("b", appender("b"))
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route, ["b", lib.END])
    graph.add_conditional_edges("b", route, ["b", lib.END])
    return graph.compile()


def calls_get_config(lib: Lib):
    """``get_config()`` in a node, a router and a Send task: the task's config, as the
    node's ``config`` parameter has it."""

    def look(state: Log) -> dict:
        config = lib.get_config()
        meta = config["metadata"]
        seen = (meta["langgraph_step"], meta["langgraph_node"], meta["langgraph_triggers"])
        path = meta["langgraph_path"]  # (a Send's: (PUSH, index, False))
        user, tags = config["configurable"]["user"], config["tags"]
        return {"log": [user, seen, path, meta.get("team"), tags, config["recursion_limit"]]}

    def route(state: Log) -> Any:
        if lib.get_config()["configurable"]["user"] != "ada" or len(state["log"]) > 8:
            return lib.END
        return [lib.Send("look", state)]

    graph = lib.StateGraph(Log)
    graph.add_node("look", look)
    graph.add_edge(lib.START, "look")
    graph.add_conditional_edges("look", route, ["look", lib.END])
    return graph.compile()


def reads_triggers(lib: Lib):
    """What `langgraph_triggers` says for a waiting edge's node and for a PUSH task."""

    def look(state, config) -> dict:
        meta = config["metadata"]
        return {"log": [(meta["langgraph_node"], meta["langgraph_triggers"])]}

    graph = lib.StateGraph(Log)
    graph.add_node("a", look, destinations=("sent",))
    graph.add_node("b", look)
    graph.add_node("join", look)
    graph.add_node("sent", look)
    graph.add_edge(lib.START, "a")
    graph.add_edge(lib.START, "b")
    graph.add_conditional_edges("a", lambda state: [lib.Send("sent", {"log": []})])
    graph.add_edge(["a", "b"], "join")
    return graph.compile()


def reads_context(lib: Lib):
    """`runtime.context` is what `invoke(..., context=...)` was given, in a subgraph too."""

    def greet(state: Log, runtime) -> dict:
        text = f"hello {runtime.context.user}"
        return {"log": [text.upper() if runtime.context.shout else text]}

    child = _chain(lib, ("greet", greet), graph_options={"context_schema": Context})
    options = {"context_schema": Context}
    return _chain(lib, ("greet", greet), ("child", child), graph_options=options)


def writes_custom(lib: Lib, *, use_async: bool = False):
    """One node sends chunks through its `writer` parameter, the next through
    `get_stream_writer()`."""

    def first(state: Log, writer) -> dict:
        writer({"progress": 1})
        writer("halfway")
        return {"log": ["first"]}

    async def first_async(state: Log, writer) -> dict:
        await asyncio.sleep(0)
        return first(state, writer)

    def second(state: Log) -> dict:
        lib.get_stream_writer()({"progress": 2, "log": state["log"]})
        return {"log": ["second"]}

    return _chain(lib, ("first", first_async if use_async else first), ("second", second))


def uses_store(lib: Lib):
    """Nodes share a store given to `compile(store=...)` (LangGraph's InMemoryStore on both
    sides), through a `store` parameter and through `runtime.store`."""
    from langgraph.store.memory import InMemoryStore

    def put(state: Log, store) -> dict:
        store.put(("notes",), "size", {"n": len(state["log"])})
        return {"log": ["put"]}

    def get(state: Log, runtime) -> dict:
        return {"log": [runtime.store.get(("notes",), "size").value]}

    return _chain(lib, ("put", put), ("get", get), store=InMemoryStore())


# --- async -----------------------------------------------------------------------------------


def async_nodes(lib: Lib):
    """Two async nodes share a step, and a sync one joins them."""

    async def fetch(state: Counter) -> dict:
        await asyncio.sleep(0)
        return {"log": ["fetch"]}

    async def parse(state: Counter, config) -> dict:
        await asyncio.sleep(0)
        return {
            "n": state["n"] + 1,
            "log": [f"parse in step {config['metadata']['langgraph_step']}"],
        }

    graph = lib.StateGraph(Counter)
    graph.add_node("fetch", fetch)
    graph.add_node("parse", parse)
    graph.add_node("done", appender("done"))
    graph.add_edge(lib.START, "fetch")
    graph.add_edge(lib.START, "parse")
    graph.add_edge(["fetch", "parse"], "done")
    return graph.compile()


def async_node_raises(lib: Lib):
    async def explode(state: Counter) -> dict:
        await asyncio.sleep(0)
        if state["n"] > 0:
            raise Boom("n must be zero")
        return {"log": ["fine"]}

    return _chain(lib, ("first", appender("first")), ("explode", explode), schema=Counter)


# --- stream payloads -------------------------------------------------------------------------


def branching(lib: Lib):
    """START -> a -> (router) b; b raises when the log holds "boom"."""

    def b(state: Log) -> dict:
        if "boom" in state["log"]:
            raise Boom("asked to")
        return {"log": ["b"]}

    graph = lib.StateGraph(Log)
    graph.add_node("a", appender("a"))
    graph.add_node("b", b)
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", lambda state: "b", ["b"])
    return graph.compile()


def fan_out(lib: Lib):
    """A static fan-out, a Send (a PUSH task) and a join: several tasks per step."""

    def route(state: Log) -> list:
        return ["b", lib.Send("sent", {"log": ["arg"]})]

    graph = lib.StateGraph(Log)
    for name in "bcd":
        graph.add_node(name, appender(name))
    graph.add_node("a", appender("a"), destinations=("b", "sent"))
    graph.add_node("sent", lambda arg: {"log": [f"sent {arg['log']}"]})
    graph.add_edge(lib.START, "a")
    graph.add_edge(lib.START, "c")
    graph.add_conditional_edges("a", route, ["b"])
    graph.add_edge(["b", "c"], "d")
    return graph.compile()


def chain(lib: Lib, **options):
    return _chain(lib, ("a", appender("a")), ("b", appender("b")), **options)


def debug_chain(lib: Lib):
    return chain(lib, debug=True)


def chain_with_node_metadata(lib: Lib):
    graph = lib.StateGraph(Log)
    graph.add_node("a", appender("a"), metadata={"kind": "first"})
    graph.add_node("b", appender("b"))
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "b")
    return graph.compile()


IN = {"log": []}
FAN_OUT_OUT = {"log": ["a", "c", "b", "sent ['arg']", "d"]}
READ_CONFIG = {"configurable": {"user": "ada"}, "metadata": {"team": "red"}}

CASES = [
    Case(
        "node-reads-config",
        reads_config,
        inputs=(IN,),
        expected=(
            {
                "log": [
                    *("a", "ada", (2, "look", ("branch:to:look",)), "red"),
                    *("ada", (3, "b", ("branch:to:b",)), "red"),
                ]
            },
        ),
        config=READ_CONFIG,
    ),
    Case(
        "router-asks-for-config-runtime-and-writer",
        routes_with_parameters,
        inputs=(IN,),
        expected=({"log": ["a", "b", "b"]},),
        config=READ_CONFIG,
        run_kwargs={"context": Context("ada")},
        stream_mode=("updates", "custom"),
    ),
    Case(
        "node-calls-get-config",
        calls_get_config,
        inputs=(IN,),
        expected=(
            {
                "log": [
                    *("ada", (1, "look", ("branch:to:look",)), ("__pregel_pull", "look")),
                    *("red", ["fast"], 30),
                    *("ada", (2, "look", ("__pregel_push",)), ("__pregel_push", 0, False)),
                    *("red", ["fast"], 30),
                ]
            },
        ),
        config={**READ_CONFIG, "tags": ["fast"], "recursion_limit": 30},
    ),
    Case(
        "node-reads-config-triggers",
        reads_triggers,
        inputs=(IN,),
        expected=(
            {
                "log": [
                    ("a", ("branch:to:a",)),
                    ("b", ("branch:to:b",)),
                    ("join", ("branch:to:join", "join:a+b:join")),
                    ("sent", ("__pregel_push",)),
                ]
            },
        ),
    ),
    Case(
        "node-reads-runtime-context",
        reads_context,
        inputs=(IN,),
        expected=({"log": ["hello ada"] * 3},),
        run_kwargs={"context": Context("ada")},
    ),
    Case(
        "node-reads-runtime-context-shout",
        reads_context,
        inputs=(IN,),
        expected=({"log": ["HELLO BOB"] * 3},),
        run_kwargs={"context": Context("bob", shout=True)},
    ),
    Case(
        "node-reads-runtime-context-given-as-dict",
        reads_context,
        inputs=(IN,),
        expected=({"log": ["HELLO CY"] * 3},),
        run_kwargs={"context": {"user": "cy", "shout": True}},
    ),
    Case(
        "context-dict-that-does-not-fit-the-schema",
        reads_context,
        inputs=(IN,),
        expected=(Raised("TypeError"),),
        run_kwargs={"context": {"user": "cy", "volume": 11}},
    ),
    Case(
        "custom-stream-writer",
        writes_custom,
        inputs=(IN,),
        expected=({"log": ["first", "second"]},),
        stream_mode="custom",
    ),
    Case(
        "custom-with-updates-and-values",
        writes_custom,
        inputs=(IN,),
        expected=({"log": ["first", "second"]},),
        stream_mode=("custom", "updates", "values"),
    ),
    Case(
        "custom-stream-writer-async",
        lambda lib: writes_custom(lib, use_async=True),
        inputs=(IN,),
        expected=({"log": ["first", "second"]},),
        stream_mode=("updates", "custom"),
        run_async=True,
    ),
    Case(
        "node-uses-store",
        uses_store,
        inputs=({"log": ["x"]},),
        expected=({"log": ["x", "put", {"n": 1}]},),
    ),
    Case(
        "tasks-stream",
        branching,
        inputs=(IN, {"log": ["boom"]}),
        expected=({"log": ["a", "b"]}, Raised("Boom")),
        stream_mode="tasks",
    ),
    Case(
        "tasks-stream-node-metadata",
        chain_with_node_metadata,
        inputs=(IN,),
        expected=({"log": ["a", "b"]},),
        stream_mode="tasks",
    ),
    Case(
        "tasks-stream-run-metadata",
        chain,
        inputs=(IN,),
        expected=({"log": ["a", "b"]},),
        stream_mode="tasks",
        config={"metadata": {"team": "red"}},
    ),
    Case(
        "tasks-stream-run-tags",
        chain,
        inputs=(IN,),
        expected=({"log": ["a", "b"]},),
        stream_mode="tasks",
        config={"tags": ["mine"]},
    ),
    Case(
        "tasks-and-updates-fan-out",
        fan_out,
        inputs=(IN,),
        expected=(FAN_OUT_OUT,),
        stream_mode=("tasks", "updates"),
    ),
    Case(
        "debug-stream",
        branching,
        inputs=(IN, {"log": ["boom"]}),
        expected=({"log": ["a", "b"]}, Raised("Boom")),
        stream_mode="debug",
    ),
    Case(
        "debug-stream-fan-out-async",
        fan_out,
        inputs=(IN,),
        expected=(FAN_OUT_OUT,),
        stream_mode=("debug", "values"),
        run_async=True,
    ),
    Case(
        "print-mode-updates",
        chain,
        inputs=(IN,),
        expected=({"log": ["a", "b"]},),
        run_kwargs={"print_mode": "updates"},
    ),
    Case(
        "print-mode-list-with-stream-mode-values",
        chain,
        inputs=(IN,),
        expected=({"log": ["a", "b"]},),
        stream_mode="values",
        run_kwargs={"print_mode": ["values", "updates"]},
    ),
    Case(
        "compile-debug-prints",
        debug_chain,
        inputs=(IN,),
        expected=({"log": ["a", "b"]},),
    ),
    Case(
        "async-nodes-ainvoke-astream",
        async_nodes,
        inputs=({"n": 0, "log": []},),
        expected=({"n": 1, "log": ["fetch", "parse in step 1", "done"]},),
        run_async=True,
    ),
    Case(
        "async-node-raises",
        async_node_raises,
        inputs=({"n": 1, "log": []}, {"n": 0, "log": []}),
        expected=(Raised("Boom"), {"n": 0, "log": ["first", "fine"]}),
        run_async=True,
    ),
    Case(
        "async-node-under-sync-invoke",
        async_nodes,
        inputs=({"n": 0, "log": []},),
        expected=(Raised("TypeError"),),
    ),
]
