"""Which graph a node runs as a subgraph, found as LangGraph finds it (its
``test_subgraph_detection.py``): the values a node's function reaches from outside its
scope (its closure, the globals its own code names, and every value along an attribute
path loaded from those, also in functions it defines; the steps of a LangChain chain
and the runnables a ``RunnableLambda``'s function names), shown by ``nodes[name].subgraphs``,
``get_subgraphs()`` and ``get_graph(xray=True)``. A closure cell never filled (a
variable assigned only on a branch not taken) is skipped, not an error, so the thread's
state and history can still be read."""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph


class State(TypedDict):
    log: Annotated[list, operator.add]


class Box:
    def __init__(self, payload: Any) -> None:
        self.payload = payload


class ListWithAttributes(list):
    pass


def leaf(lib: Lib, tag: str, **compiled: Any) -> Any:
    """A compiled graph named ``tag``."""
    graph = lib.StateGraph(State).add_node(tag, lambda state: {"log": [tag]})
    app = graph.add_edge(lib.START, tag).compile(**compiled)
    app.name = tag
    return app


# module globals a node may name, one per library
GLOBALS: dict[str, dict[str, Any]] = {}


def globals_of(lib: Lib) -> dict[str, Any]:
    if lib.name not in GLOBALS:
        GLOBALS[lib.name] = {
            "graph": leaf(lib, "module_global"),
            "chain": Box(Box(leaf(lib, "attr_chain"))),
            "in_list": [leaf(lib, "in_list")],
        }
    return GLOBALS[lib.name]


def closure(lib: Lib) -> Callable:
    sub = leaf(lib, "closure")
    return lambda state: sub.invoke(state)


def module_global(lib: Lib) -> Callable:
    global MODULE_GRAPH
    MODULE_GRAPH = globals_of(lib)["graph"]
    return lambda state: MODULE_GRAPH.invoke(state)


def attribute_path(lib: Lib) -> Callable:
    global CHAIN
    CHAIN = globals_of(lib)["chain"]
    return lambda state: CHAIN.payload.payload.invoke(state)


def attribute_path_in_an_inner_function(lib: Lib) -> Callable:
    holder = Box(leaf(lib, "nested"))

    def node(state: State) -> Any:
        def inner() -> Any:
            return holder.payload.invoke(state)

        return inner()

    return node


def attribute_of_a_list_subclass(lib: Lib) -> Callable:
    holder = ListWithAttributes()
    holder.payload = leaf(lib, "list_subclass")
    return lambda state: holder.payload.invoke(state)


def beside_an_empty_cell(lib: Lib) -> Callable:
    sub = leaf(lib, "beside_empty_cell")

    def node(state: State) -> Any:
        return unassigned, sub.invoke(state)

    return node
    unassigned = 1  # never runs: the cell stays empty


def behind_wrapped(lib: Lib) -> Callable:
    sub = leaf(lib, "via_wrapped")

    def wrapper(state: State) -> Any:
        return {"log": []}

    wrapper.__wrapped__ = lambda state: sub.invoke(state)
    return wrapper


def no_subgraph(lib: Lib) -> Callable:
    return lambda state: {"log": [len("abc")]}


def a_subscript(lib: Lib) -> Callable:
    global GRAPHS
    GRAPHS = globals_of(lib)["in_list"]
    return lambda state: GRAPHS[0].invoke(state)


def a_path_that_does_not_resolve(lib: Lib) -> Callable:
    holder = Box("a string")
    return lambda state: holder.payload.missing.invoke(state)


def a_global_named_only_in_an_inner_function(lib: Lib) -> Callable:
    global MODULE_GRAPH
    MODULE_GRAPH = globals_of(lib)["graph"]

    def node(state: State) -> Any:
        def inner() -> Any:
            return MODULE_GRAPH.invoke(state)

        return inner()

    return node


def a_path_the_compiler_dropped(lib: Lib) -> Callable:
    holder = Box(leaf(lib, "dropped"))

    def node(state: State) -> Any:
        if False:
            holder.payload.invoke(state)
        return {"log": []}

    return node


def a_partial(lib: Lib) -> Callable:
    return functools.partial(lambda state, extra: {"log": [extra]}, extra="x")


def stateless_subgraph(lib: Lib) -> Callable:
    sub = leaf(lib, "stateless", checkpointer=False)
    return lambda state: sub.invoke(state)


def a_chain_ending_in_a_graph(lib: Lib) -> Any:
    from langchain_core.runnables import RunnableLambda

    return RunnableLambda(lambda state: state) | leaf(lib, "chain_step")


def a_runnable_lambda_naming_a_graph(lib: Lib) -> Any:
    from langchain_core.runnables import RunnableLambda

    sub = leaf(lib, "lambda_dep")

    async def call(state: State) -> Any:  # (read from its source by langchain-core)
        return await sub.ainvoke(state)

    return RunnableLambda(call)


def a_chain_whose_step_names_the_chain(lib: Lib) -> Any:
    """A step that runs its own chain again (a retry): graphkit's search went round the
    chain's steps and the step's ``deps`` for ever."""
    from langchain_core.runnables import RunnableLambda

    def again(state: State) -> Any:
        return chain.invoke(state) if not state["log"] else state

    chain = RunnableLambda(lambda state: state) | RunnableLambda(again) | leaf(lib, "retried")
    return chain


SHAPES = [
    closure,
    module_global,
    attribute_path,
    attribute_path_in_an_inner_function,
    attribute_of_a_list_subclass,
    beside_an_empty_cell,
    behind_wrapped,
    no_subgraph,
    a_subscript,
    a_path_that_does_not_resolve,
    a_global_named_only_in_an_inner_function,
    a_path_the_compiler_dropped,
    a_partial,
    stateless_subgraph,
    a_chain_ending_in_a_graph,
    a_runnable_lambda_naming_a_graph,
    a_chain_whose_step_names_the_chain,
]


def detected(lib: Lib, shape: Callable) -> tuple:
    app = lib.StateGraph(State).add_node("n", shape(lib)).add_edge(lib.START, "n").compile()
    drawn = app.get_graph(xray=True).nodes
    drawn_ids = sorted(drawn) if isinstance(drawn, dict) else sorted(node.id for node in drawn)
    return (
        [graph.name for graph in app.nodes["n"].subgraphs],
        [(namespace, graph.name) for namespace, graph in app.get_subgraphs()],
        drawn_ids,
    )


@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.__name__)
def test_the_subgraph_a_node_reaches_is_found_as_in_langgraph(shape):
    expected = detected(load_langgraph(), shape)
    assert detected(load_graphkit(), shape) == expected


def test_a_node_added_as_a_graph_is_its_own_subgraph():
    def observed(lib: Lib) -> tuple:
        app = lib.StateGraph(State).add_node("sub", leaf(lib, "added"))
        app = app.add_edge(lib.START, "sub").compile()
        return [g.name for g in app.nodes["sub"].subgraphs], app.nodes["__start__"].subgraphs

    assert observed(load_graphkit()) == observed(load_langgraph()) == (["added"], [])


def test_an_empty_cell_leaves_the_threads_state_readable():
    def observed(lib: Lib) -> tuple:
        if lib.name == "langgraph":
            from langgraph.checkpoint.memory import InMemorySaver
        else:
            from graphkit.checkpoint.memory import InMemorySaver

        def build(use_cache: bool = False) -> Any:
            if use_cache:
                cache = {}

            def node(state: State) -> State:
                if use_cache:
                    cache["seen"] = True
                return {"log": ["ran"]}

            graph = lib.StateGraph(State).add_node("n", node).add_edge(lib.START, "n")
            return graph.compile(checkpointer=InMemorySaver())

        app, config = build(), {"configurable": {"thread_id": "t"}}
        app.invoke({"log": []}, config)
        state = app.get_state(config, subgraphs=True)
        history = [snapshot.next for snapshot in app.get_state_history(config)]
        return state.values, state.next, history, list(app.get_subgraphs())

    assert observed(load_graphkit()) == observed(load_langgraph())
