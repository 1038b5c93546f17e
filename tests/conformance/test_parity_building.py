"""Building a graph as LangGraph reads it, on both libraries: a router's ``-> Literal[...]``
return annotation is its path_map (a function's, a bound method's, a RunnableLambda's; not
a callable object's, a partial's or a lambda's), and how each is drawn; an empty path_map
is none, and a ``None`` key maps; one key may not take two reducers across schemas, nor
managed values in the input or output schema; a managed value is read from an annotation
by LangGraph's rule; declared destinations must be nodes; ``__pregel_tasks`` is no state
key; a cached node that writes nothing is served from the cache; a generator function
node returns what it yields, added up."""

import asyncio
import functools
import operator
import warnings
from typing import Annotated, Any, Literal, NotRequired, Optional, Required, TypedDict, Union

import pytest
from typing_extensions import TypedDict as ExtTypedDict

from .harness import Lib, load_graphkit, load_langgraph

LIBS = [load_langgraph, load_graphkit]


class Log(TypedDict):
    log: Annotated[list, operator.add]


class Plain(TypedDict):
    a: int


class Adds(TypedDict):
    a: Annotated[int, operator.add]


def _multiply(left: int, right: int) -> int:
    return left * right


class Multiplies(TypedDict):
    a: Annotated[int, _multiply]


def _outcome(build: Any, given: Any, *, run: Any = None) -> list[Any]:
    """Per library: what ``build(lib)`` then ``invoke(given)`` gave, or the error class
    and the phase (build or run) that raised it."""
    seen = []
    for load in LIBS:
        lib = load()
        try:
            app = build(lib).compile()
        except Exception as error:
            seen.append(("build", type(error).__name__))
            continue
        try:
            seen.append(run(app) if run else app.invoke(given))
        except Exception as error:
            seen.append(("run", type(error).__name__))
    return seen


def _logging(name: str) -> Any:
    return lambda state: {"log": [name]}


def _chain(lib: Lib, *names: str) -> Any:
    builder = lib.StateGraph(Log)
    for name in names:
        builder.add_node(name, _logging(name))
    return builder.add_edge(lib.START, names[0])


def to_b_or_zz(state: Any) -> Literal["b", "zz"]:
    return "b"


def to_outside(state: Any) -> Literal["b", "c"]:
    return "elsewhere"


def to_c(state: Any) -> Literal["b", "c"]:
    return "c"


def to_end(state: Any) -> Literal["b", "c"]:
    return "__end__"


@pytest.mark.parametrize(
    ("router", "expected"),
    [
        (to_b_or_zz, ("build", "ValueError")),
        (to_outside, ("run", "KeyError")),
        (to_c, {"log": ["a", "c"]}),
        (to_end, ("run", "KeyError")),
    ],
    ids=["names-no-node", "returns-outside", "returns-one", "end-not-listed"],
)
def test_a_routers_literal_annotation_is_its_path_map(router: Any, expected: Any) -> None:
    def build(lib: Lib) -> Any:
        return _chain(lib, "a", "b", "c").add_conditional_edges("a", router)

    assert _outcome(build, {"log": []}) == [expected, expected]


@pytest.mark.parametrize(
    ("path_map", "choice"), [({}, "b"), ([], "b"), ({None: "b"}, None)], ids=["{}", "[]", "None"]
)
def test_an_empty_path_map_is_none_and_a_none_key_maps(path_map: Any, choice: Any) -> None:
    def build(lib: Lib) -> Any:
        return _chain(lib, "a", "b").add_conditional_edges("a", lambda s: choice, path_map)

    assert _outcome(build, {"log": []}) == [{"log": ["a", "b"]}] * 2


def test_a_path_map_value_of_none_is_refused_when_building() -> None:
    # A learner's {"empty": None} for "go nowhere" (lesson 04): both refuse the graph with
    # ValueError; graphkit's message names the key and END (tests/graph/test_state.py).
    def build(lib: Lib) -> Any:
        path_map = {"go": "b", "empty": None}
        return _chain(lib, "a", "b").add_conditional_edges("a", lambda s: "empty", path_map)

    assert _outcome(build, {"log": []}) == [("build", "ValueError")] * 2


def _one_node(lib: Lib, state: Any, **schemas: Any) -> Any:
    builder = lib.StateGraph(state, **schemas)
    return builder.add_node("n", lambda s: {"a": 1}).add_edge(lib.START, "n")


def _node_reading(schema: Any) -> Any:
    def read(state: Any) -> dict[str, int]:
        return {"a": 1}

    read.__annotations__["state"] = schema
    return read


@pytest.mark.parametrize(
    "build",
    [
        lambda lib: _one_node(lib, Plain, input_schema=Adds),
        lambda lib: _one_node(lib, Plain, output_schema=Adds),
        lambda lib: _one_node(lib, Adds, input_schema=Multiplies),
        lambda lib: lib.StateGraph(Plain).add_node("n", _node_reading(Adds)),
        lambda lib: lib.StateGraph(Plain).add_node("n", lambda s: {}, input_schema=Adds),
    ],
    ids=["input-schema", "output-schema", "two-reducers", "node-annotation", "node-schema"],
)
def test_one_key_takes_one_reducer_across_schemas(build: Any) -> None:
    raised = []
    for load in LIBS:
        with pytest.raises(ValueError):
            build(load())
        raised.append(True)
    assert raised == [True, True]


def test_a_plain_key_in_another_schema_keeps_the_reducer() -> None:
    assert _outcome(lambda lib: _one_node(lib, Adds, input_schema=Plain), {"a": 5}) == [
        {"a": 6},
        {"a": 6},
    ]


def _managed_schema(lib: Lib, kind: str) -> Any:
    return TypedDict("Steps", {"a": int, "steps": getattr(lib.managed, kind)})  # type: ignore[misc]


@pytest.mark.parametrize("where", ["input_schema", "output_schema", "two-kinds"])
def test_managed_values_live_in_the_state_only(where: str) -> None:
    raised = []
    for load in LIBS:
        lib = load()
        steps = _managed_schema(lib, "RemainingSteps")
        other = _managed_schema(lib, "IsLastStep" if where == "two-kinds" else "RemainingSteps")
        with pytest.raises(ValueError):
            if where == "two-kinds":
                lib.StateGraph(steps).add_node("n", lambda s: {}, input_schema=other)
            else:
                lib.StateGraph(steps, **{where: other})
        raised.append(where)
    assert len(raised) == 2


def _keys_read(lib: Lib) -> list[list[str]]:
    """The keys a node, then its router, read from a state with a managed value declared
    between two keys."""
    keys: list[list[str]] = []

    def node(values: Any) -> dict:
        keys.append(list(values))
        return {}

    def route(values: Any) -> str:
        keys.append(list(values))
        return lib.END

    class State(TypedDict):
        a: int
        steps: lib.managed.RemainingSteps  # type: ignore[name-defined]
        b: int

    builder = lib.StateGraph(State).add_node("n", node).add_edge(lib.START, "n")
    builder.add_conditional_edges("n", route, [lib.END]).compile().invoke({"a": 1, "b": 2})
    return keys


def test_a_node_and_a_router_read_managed_values_last() -> None:
    """Managed values come after the other keys in what a node and a router read (a
    user printing the state sees the keys in the same order)."""
    assert [_keys_read(load()) for load in LIBS] == [[["a", "b", "steps"]] * 2] * 2


def _managed_keys_and_what_a_node_reads(lib: Lib) -> tuple[list[str], list[str], Any]:
    """LangGraph's rule for a managed value: the last item of an ``Annotated``, else the
    first argument of a generic, with ``Required`` / ``NotRequired`` unwrapped."""
    steps, last = lib.managed.RemainingSteps, lib.managed.IsLastStep  # type: ignore[union-attr]
    fields = {
        "x": int,
        "optional": Optional[steps],  # noqa: UP045
        "none_first": Union[None, steps],  # noqa: UP007
        "noted": Annotated[steps, "a note"],
        "required_noted": Required[Annotated[last, "a note"]],
        "note_first": Annotated[int, "a note", steps.__metadata__[-1]],
        "not_required": NotRequired[last],
    }
    seen: list[Any] = []
    builder = lib.StateGraph(TypedDict("State", fields))  # type: ignore[misc]
    builder.add_node("n", lambda s: seen.append(sorted(s.items())) or {})
    builder.add_edge(lib.START, "n").compile().invoke({"x": 1, "noted": 7})
    return sorted(builder.managed), sorted(builder.channels), seen


def test_a_managed_value_is_read_from_an_annotation_as_langgraph_reads_it() -> None:
    read = [("not_required", False), ("note_first", 10006), ("noted", 7), ("optional", 10006)]
    assert [_managed_keys_and_what_a_node_reads(load()) for load in LIBS] == [
        (
            ["not_required", "note_first", "optional"],
            ["none_first", "noted", "required_noted", "x"],
            [[*read, ("x", 1)]],
        )
    ] * 2


def test_declared_destinations_must_be_nodes() -> None:
    def build(lib: Lib) -> Any:
        builder = lib.StateGraph(Log)
        builder.add_node("a", lambda s: lib.Command(goto="zz"), destinations=("zz",))
        return builder.add_edge(lib.START, "a")

    assert _outcome(build, {"log": []}) == [("build", "ValueError")] * 2


def test_a_callable_objects_command_annotation_declares_its_destinations() -> None:
    # (as a function's does: LangGraph reads the hints of the object's __call__)
    def build(lib: Lib) -> Any:
        class Goes:
            def __call__(self, state: Log) -> lib.Command[Literal["zz"]]:
                return lib.Command(goto="zz")

        return lib.StateGraph(Log).add_node("a", Goes()).add_edge(lib.START, "a")

    assert _outcome(build, {"log": []}) == [("build", "ValueError")] * 2


def test_the_send_channel_is_no_state_key() -> None:
    def build(lib: Lib) -> Any:
        state = TypedDict("State", {"__pregel_tasks": int})  # type: ignore[misc]
        return lib.StateGraph(state).add_node("a", lambda s: {}).add_edge(lib.START, "a")

    assert _outcome(build, {"__pregel_tasks": 1}) == [("build", "ValueError")] * 2


def _cached(lib: Lib, returned: Any, calls: list[Any]) -> Any:
    def node(state: Any) -> Any:
        calls.append(state)
        return returned

    if lib.name == "langgraph":
        from langgraph.cache.memory import InMemoryCache
        from langgraph.types import CachePolicy
    else:
        from graphkit.cache.memory import InMemoryCache
        from graphkit.types import CachePolicy
    builder = lib.StateGraph(Plain).add_node("n", node, cache_policy=CachePolicy())
    return builder.add_edge(lib.START, "n").compile(cache=InMemoryCache())


@pytest.mark.parametrize("returned", [None, {}])
def test_a_cached_node_that_writes_nothing_is_served_from_the_cache(returned: Any) -> None:
    seen = []
    for load in LIBS:
        lib = load()
        calls: list[Any] = []
        app = _cached(lib, returned, calls)
        chunks = [list(app.stream({"a": 1}, stream_mode="updates")) for _ in range(3)]
        seen.append((chunks, len(calls)))
    assert seen[0] == seen[1]
    assert seen[1][1] == 1


def _yielding_list(state: Any) -> Any:
    yield {"log": ["first"]}
    yield {"log": ["second"]}


def _yielding_pieces(state: Any) -> Any:
    yield ["x"]
    yield ["y"]


async def _yielding_async(state: Any) -> Any:
    yield {"log": ["only"]}


class _YieldsWhenCalled:
    """An object whose ``__call__`` is an async generator (LangGraph folds it too)."""

    async def __call__(self, state: Any) -> Any:
        yield {"log": ["first"]}
        yield {"log": ["only"]}


@pytest.mark.parametrize("shape", ["dicts", "lists", "async", "async object"])
def test_a_generator_function_node_returns_what_it_yields_added_up(shape: str) -> None:
    """Dicts do not add up: the last one counts; lists join (in a single-value state)."""
    seen = []
    for load in LIBS:
        lib = load()
        if shape == "lists":
            builder = lib.StateGraph(Annotated[list, operator.add])
            builder.add_node("gen", _yielding_pieces)
            given: Any = ["start"]
        else:
            actions = {"async": _yielding_async, "async object": _YieldsWhenCalled()}
            action = actions.get(shape, _yielding_list)
            builder = lib.StateGraph(Log).add_node("gen", action)
            given = {"log": []}
        app = builder.add_edge(lib.START, "gen").compile()
        run_async = shape.startswith("async")
        seen.append(asyncio.run(app.ainvoke(given)) if run_async else app.invoke(given))
    assert seen[0] == seen[1]
    assert seen[1] in ({"log": ["second"]}, ["start", "x", "y"], {"log": ["only"]})


def _router(kind: str) -> Any:
    from langchain_core.runnables import RunnableLambda

    def route(state: dict) -> str:
        return "b"

    class Router:
        def __call__(self, state: dict) -> str:
            return "b"

    return {
        "function": route,
        "lambda": lambda state: "b",
        "callable-object": Router(),
        "runnable-lambda": RunnableLambda(route),
        "named-runnable": RunnableLambda(route, name="triage"),
        "runnable-sequence": RunnableLambda(lambda s: s) | RunnableLambda(route),
    }[kind]


@pytest.mark.parametrize(
    "kind",
    ["function", "lambda", "callable-object", "runnable-lambda", "named-runnable",
     "runnable-sequence"],
)  # fmt: skip
def test_a_router_s_branch_is_named_as_in_langgraph(kind: str) -> None:
    """The branch's name keys ``builder.branches`` and names the router in traces: a
    Runnable's own name, a function's name, else "condition"."""

    def names(lib: Lib) -> list[Any]:
        builder = lib.StateGraph(TypedDict("State", {"x": int}))
        builder.add_node("a", lambda state: {}).add_node("b", lambda state: {})
        builder.add_edge(lib.START, "a").add_conditional_edges("a", _router(kind), ["b"])
        return [list(builder.branches["a"]), builder.compile().invoke({"x": 1})]

    assert names(load_graphkit()) == names(load_langgraph())


class NoKeys(ExtTypedDict):  # (pydantic reads only typing_extensions' before 3.12)
    pass


class PlainForSchemas(ExtTypedDict):
    a: int


def _without_keys(lib: Lib) -> list[Any]:
    """An input or output schema that declares no key (a node's or the graph's): the node
    reads ``{}``, the graph takes no input keys or returns None; a state schema without
    keys stays refused (see ``tests/graph/test_schema.py``)."""
    seen: list[Any] = []

    def note(state: Any) -> dict:
        seen.append(state)
        return {"a": 8}

    graph = lib.StateGraph
    node_reads_nothing = graph(PlainForSchemas).add_node("n", note, input_schema=NoKeys)
    takes_nothing = graph(PlainForSchemas, input_schema=NoKeys).add_node("n", note)
    gives_nothing = graph(PlainForSchemas, output_schema=NoKeys).add_node("n", note)
    for graph in (node_reads_nothing, takes_nothing, gives_nothing):
        app = graph.add_edge(lib.START, "n").compile()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (graphkit warns of the input key it drops)
            seen.append(app.invoke({"a": 1}))
            seen.append(list(app.stream({"a": 2}, stream_mode=["values", "updates"])))
        seen.append((app.get_input_jsonschema(), app.get_output_jsonschema()))
    return seen


def test_an_input_or_output_schema_may_declare_no_key() -> None:
    expected = _without_keys(load_langgraph())
    assert expected[0] == {} and expected[1] == {"a": 8}
    assert _without_keys(load_graphkit()) == expected


# -- which routers' -> Literal[...] annotation is read: runtime and drawing ---------------


def _to_b_or_c(state: Any) -> Literal["b", "c"]:
    return state["log"][0]


class _RouterObject:
    def __call__(self, state: Any) -> Literal["b", "c"]:
        return state["log"][0]


class _RouterHolder:
    def route(self, state: Any) -> Literal["b", "c"]:
        return state["log"][0]


def _to_b_or_c_with(state: Any, extra: Any) -> Literal["b", "c"]:
    return state["log"][0]


def _annotated_router(kind: str) -> Any:
    from langchain_core.runnables import RunnableLambda

    return {
        "function": lambda: _to_b_or_c,
        "callable-object": _RouterObject,
        "bound-method": lambda: _RouterHolder().route,
        "partial": lambda: functools.partial(_to_b_or_c_with, extra=1),
        "lambda": lambda: lambda state: state["log"][0],
        "runnable-lambda": lambda: RunnableLambda(_to_b_or_c),
    }[kind]()


ROUTER_KINDS = [
    "function", "callable-object", "bound-method", "partial", "lambda", "runnable-lambda",
]  # fmt: skip


def _routed(lib: Lib, kind: str, path_map: Any) -> Any:
    builder = lib.StateGraph(Log)
    for name in ("a", "b", "c", "z"):
        builder.add_node(name, _logging(name))
    builder.add_edge(lib.START, "a")
    if path_map is None:
        return builder.add_conditional_edges("a", _annotated_router(kind))
    return builder.add_conditional_edges("a", _annotated_router(kind), path_map)


def _read_and_run(lib: Lib, kind: str, path_map: Any) -> list[Any]:
    """The branch's stored map (LangGraph's ``ends``, graphkit's ``path_map``), then what
    a run gives for a choice the annotation names, a node it does not name, and a name
    that is no node (the error class, if any)."""
    builder = _routed(lib, kind, path_map)
    (branch,) = builder.branches["a"].values()
    seen: list[Any] = [getattr(branch, "ends", getattr(branch, "path_map", None))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (graphkit warns of z, unreachable, and of q)
        app = builder.compile()
        for choice in ("c", "z", "q"):
            try:
                seen.append(app.invoke({"log": [choice]}))
            except Exception as error:
                seen.append(type(error).__name__)
    return seen


@pytest.mark.parametrize("path_map", [None, ["b", "c"]], ids=["no-path-map", "path-map"])
@pytest.mark.parametrize("kind", ROUTER_KINDS)
def test_a_routers_annotation_is_read_at_runtime_as_langgraph_reads_it(
    kind: str, path_map: Any
) -> None:
    """LangGraph 1.2 reads ``-> Literal[...]`` as the path_map of a function, a bound
    method and a RunnableLambda; not of a callable object's ``__call__``, a partial or a
    lambda, whose choice then runs any node (z) and drops a name that is no node (q)."""
    expected = _read_and_run(load_langgraph(), kind, path_map)
    assert _read_and_run(load_graphkit(), kind, path_map) == expected
    read = path_map is not None or kind in ("function", "bound-method", "runnable-lambda")
    assert expected[0] == ({"b": "b", "c": "c"} if read else None)
    assert expected[1] == {"log": ["c", "a", "c"]}
    unread = [{"log": ["z", "a", "z"]}, {"log": ["q", "a"]}]
    assert expected[2:] == (["KeyError", "KeyError"] if read else unread)


def _drawn_from_a(lib: Lib, kind: str, path_map: Any) -> list[tuple[str, str]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = _routed(lib, kind, path_map).compile().get_graph()
    return sorted((e.source, e.target) for e in graph.edges if e.source == "a")


@pytest.mark.parametrize("path_map", [None, ["b", "c"]], ids=["no-path-map", "path-map"])
@pytest.mark.parametrize("kind", ROUTER_KINDS)
def test_a_routers_annotation_is_drawn_as_langgraph_draws_it_or_as_its_docs_say(
    kind: str, path_map: Any
) -> None:
    """Where LangGraph reads the annotation (or a path_map is given) both draw a → b and
    a → c. Where it does not, LangGraph 1.2 draws a plain a → END alone, though its
    add_conditional_edges docs say such a router is drawn as going to any node: graphkit
    draws the choices a callable object's ``__call__`` names, and every node and END for a
    partial or a lambda (docs/compatibility.md, "The drawing")."""
    drawn = _drawn_from_a(load_graphkit(), kind, path_map)
    langgraph_drawn = _drawn_from_a(load_langgraph(), kind, path_map)
    if path_map is not None or kind in ("function", "bound-method", "runnable-lambda"):
        assert drawn == langgraph_drawn == [("a", "b"), ("a", "c")]
        return
    assert langgraph_drawn == [("a", "__end__")]
    if kind == "callable-object":
        assert drawn == [("a", "b"), ("a", "c")]
    else:
        assert drawn == [("a", n) for n in ("__end__", "a", "b", "c", "z")]


def test_destinations_given_as_one_string_are_its_letters_on_both() -> None:
    """destinations=("orders") is a string, not a tuple: both libraries read its letters,
    and refuse 'o'. graphkit says where the letters came from."""

    def build(lib: Lib) -> Any:
        builder = lib.StateGraph(Log)
        builder.add_node("a", lambda s: lib.Command(goto="orders"), destinations=("orders"))
        builder.add_node("orders", lambda s: {})
        return builder.add_edge(lib.START, "a")

    assert _outcome(build, {"log": []}) == [("build", "ValueError")] * 2
    with pytest.raises(ValueError, match=r"the string 'orders', letter by letter.*\('orders',\)"):
        build(load_graphkit()).compile()


def test_a_tuple_of_one_letter_names_is_not_told_it_was_a_string() -> None:
    """("b", "c") with no node "c" is a tuple that names a missing node, not the string
    "bc" read letter by letter: the letters are said to be a string only when, joined,
    they name a node."""
    graphkit = load_graphkit()
    builder = graphkit.StateGraph(Log)
    builder.add_node("a", lambda s: {}, destinations=("b", "c"))
    builder.add_node("b", lambda s: {})
    builder.add_edge(graphkit.START, "a")
    with pytest.raises(ValueError, match="destination 'c', which is not a node") as caught:
        builder.compile()
    assert "letter by letter" not in str(caught.value)
