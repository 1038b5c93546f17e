"""``DeltaChannel`` (LangGraph 1.2, beta): a reducer field whose reducer takes the current
value and *all* of a step's writes in one call, ``reducer(value, [w1, w2, ...])``. What a
program sees of it: the batches its reducer gets, the values a run returns, streams and
saves (on both savers, through a fork), ``Overwrite``, the value type it takes from its
annotation, its errors, and the ids it gives the messages written to it.

LangGraph saves such a field as the writes that built it and replays them on reading;
graphkit's savers already store only what a step changed, so graphkit keeps the value
and nothing of that storage shows to a program.
"""

import asyncio
from collections.abc import Sequence
from typing import Annotated, Any, NotRequired, TypedDict

import pytest

from .harness import Lib, Raised, canonical, load_graphkit, load_langgraph
from .scenarios import SAVERS

LIBS = {"langgraph": load_langgraph, "graphkit": load_graphkit}


def _overwrite(lib: Lib) -> type:
    if lib.name == "langgraph":
        from langgraph.types import Overwrite
    else:
        from graphkit.types import Overwrite
    return Overwrite


def _batches(log: list) -> Any:
    """A batch reducer that notes how many writes each call got."""

    def extend(value: list, writes: Sequence[list]) -> list:
        log.append(len(writes))
        return [*value, *(item for write in writes for item in write)]

    return extend


def _graph(lib: Lib, nodes: dict, reducer: Any, **channel: Any) -> Any:
    """``items`` is a DeltaChannel; every node runs in step 1, then ``last`` alone."""

    class State(TypedDict):
        items: Annotated[list, lib.channels.DeltaChannel(reducer, **channel)]
        seen: int

    graph = lib.StateGraph(State)
    for name, node in nodes.items():
        graph.add_node(name, node)
        graph.add_edge(lib.START, name)
    graph.add_node("last", lambda state: {"items": ["last"], "seen": len(state["items"])})
    graph.add_edge(list(nodes), "last")
    return graph


def _nodes(lib: Lib, case: str) -> dict:
    Overwrite = _overwrite(lib)
    a, b = (lambda state: {"items": ["a"]}), (lambda state: {"items": ["b"]})
    return {
        "parallel": {"a": a, "b": b},
        "one": {"a": a},
        "none": {"a": lambda state: {"seen": 0}},
        "overwrite": {"a": a, "b": lambda state: {"items": Overwrite(["fresh"])}},
        "overwrite-none": {"a": lambda state: {"items": Overwrite(None)}},
        "two-overwrites": {
            "a": lambda state: {"items": Overwrite(["a"])},
            "b": lambda state: {"items": Overwrite(["b"])},
        },
        "reducer-sees": {"a": lambda state: {"items": [len(state["items"])]}},
    }[case]


CASES = ["parallel", "one", "none", "overwrite", "overwrite-none", "two-overwrites", "reducer-sees"]


def _observe(lib: Lib, case: str, given: dict, run_async: bool) -> list[str]:
    log: list = []
    app = _graph(lib, _nodes(lib, case), _batches(log)).compile()
    seen = []
    try:
        result = asyncio.run(app.ainvoke(given)) if run_async else app.invoke(given)
    except Exception as error:
        result = Raised(type(error).__name__)
    seen += [canonical(result), canonical(log)]
    try:
        chunks = sorted(canonical(c) for c in app.stream(given, stream_mode=["updates", "values"]))
    except Exception as error:
        chunks = [canonical(Raised(type(error).__name__))]
    return [*seen, *chunks]


@pytest.mark.parametrize("run_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("given", [{"seen": 0}, {"items": ["in"], "seen": 0}], ids=["no", "in"])
@pytest.mark.parametrize("case", CASES)
def test_a_delta_channel_folds_each_step_in_one_call_as_in_langgraph(case, given, run_async):
    expected = _observe(load_langgraph(), case, given, run_async)
    assert _observe(load_graphkit(), case, given, run_async) == expected


def test_the_oracle_batches_a_step_and_lets_one_overwrite_win():
    """What the cases above pin down, stated once against LangGraph."""
    lib = load_langgraph()
    result, batches = _observe(lib, "parallel", {"seen": 0}, False)[:2]
    assert result == canonical({"items": ["a", "b", "last"], "seen": 2})
    assert batches == canonical([2, 1])  # one call per step, with both writes of step 1
    assert "fresh" in _observe(lib, "overwrite", {"seen": 0}, False)[0]
    two = _observe(lib, "two-overwrites", {"seen": 0}, False)[0]
    assert two == canonical(Raised("InvalidUpdateError"))


def _thread(lib: Lib, saver: Any) -> list[str]:
    """A run, its history, update_state, a fork from step 1, and the thread after it."""
    Overwrite = _overwrite(lib)
    app = _graph(lib, _nodes(lib, "parallel"), _batches([])).compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}}
    seen = [canonical(app.invoke({"items": ["in"], "seen": 0}, config))]
    history = list(app.get_state_history(config))
    seen.append(canonical([(s.metadata["step"], s.values, s.next) for s in history]))
    app.update_state(config, {"items": ["set"]}, as_node="last")
    app.update_state(config, {"items": Overwrite(["reset"])}, as_node="last")
    seen.append(canonical(app.get_state(config).values))
    step_one = next(s for s in history if s.metadata["step"] == 1)
    seen.append(canonical(app.invoke(None, step_one.config)))
    seen.append(canonical([s.values for s in app.get_state_history(config)]))
    return seen


@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_a_delta_channel_is_saved_and_forked_as_in_langgraph(saver):
    with SAVERS[saver]("langgraph") as theirs, SAVERS[saver]("graphkit") as ours:
        assert _thread(load_graphkit(), ours) == _thread(load_langgraph(), theirs)


class _Hints:
    """Annotations whose DeltaChannel takes its value type from around it."""

    @staticmethod
    def reducers() -> dict[str, Any]:
        return {
            "set": (set, lambda value, writes: value.union(*writes), [{"x"}]),
            "dict": (
                dict,
                lambda value, writes: {**value, **{k: v for w in writes for k, v in w.items()}},
                [{"k": 1}],
            ),
            "sequence": (Sequence[str], lambda value, writes: [*value, *writes], ["x"]),
        }


def _typed(lib: Lib, kind: str, required: bool) -> list[str]:
    typ, reducer, writes = _Hints.reducers()[kind]
    hint = typ if required else NotRequired[typ]
    State = TypedDict("State", {"field": Annotated[hint, lib.channels.DeltaChannel(reducer)]})  # type: ignore[misc]  # noqa: UP013
    graph = lib.StateGraph(State)
    graph.add_node("n", lambda state: {"field": writes[0]})
    graph.add_edge(lib.START, "n")
    app = graph.compile()
    return [canonical(app.invoke({})), canonical(app.invoke({"field": writes[0]}))]


@pytest.mark.parametrize("required", [True, False], ids=["plain", "not-required"])
@pytest.mark.parametrize("kind", ["set", "dict", "sequence"])
def test_a_delta_channel_starts_from_its_annotated_type_as_in_langgraph(kind, required):
    assert _typed(load_graphkit(), kind, required) == _typed(load_langgraph(), kind, required)


def _made(lib: Lib) -> list[str]:
    DeltaChannel = lib.channels.DeltaChannel
    seen = []
    channel = DeltaChannel(sorted, dict, snapshot_frequency=7)
    seen.append(canonical([channel.reducer is sorted, channel.typ, channel.snapshot_frequency]))
    seen.append(canonical([DeltaChannel(sorted).typ, DeltaChannel(sorted).snapshot_frequency]))
    for frequency in (0, -3):
        try:
            DeltaChannel(sorted, snapshot_frequency=frequency)
            seen.append("made")
        except Exception as error:
            seen.append(canonical(Raised(f"{type(error).__name__}: {error}")))
    return seen


def test_a_delta_channel_is_made_and_refused_as_in_langgraph():
    assert _made(load_graphkit()) == _made(load_langgraph())


def _failing(lib: Lib) -> list[str]:
    def refuse(value: list, writes: Sequence[Any]) -> list:
        if "bad" in writes:
            raise ValueError("bad write")
        return [*value, *writes]

    class State(TypedDict):
        items: Annotated[list, lib.channels.DeltaChannel(refuse)]

    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"items": "ok"})
    graph.add_node("b", lambda state: {"items": "bad"})
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "b")
    return _saved_after_error(graph)


def _saved_after_error(graph: Any) -> list[str]:
    from langgraph.checkpoint.memory import InMemorySaver as TheirSaver

    from graphkit.checkpoint import InMemorySaver as OurSaver

    saver = TheirSaver() if type(graph).__module__.startswith("langgraph") else OurSaver()
    app = graph.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}}
    try:
        app.invoke({"items": ["in"]}, config)
        seen = ["finished"]
    except Exception as error:
        seen = [canonical(Raised(type(error).__name__))]
    try:  # LangGraph applies the step's saved writes again here, so it raises again
        state = app.get_state(config)
        return [*seen, canonical(state.values), canonical(state.next)]
    except Exception as error:
        return [*seen, canonical(Raised(type(error).__name__))]


def test_a_reducer_that_raises_keeps_the_saved_state_as_in_langgraph():
    assert _failing(load_graphkit()) == _failing(load_langgraph())


# --- messages written to a DeltaChannel get ids ------------------------------------------


def _messages(lib: Lib) -> list[str]:
    from langchain_core.messages import AIMessage, HumanMessage

    Overwrite = _overwrite(lib)

    def keep(value: list, writes: Sequence[Any]) -> list:
        out = list(value)
        for write in writes:
            out.extend(write if isinstance(write, list) else [write])
        return out

    class State(TypedDict):
        log: Annotated[list, lib.channels.DeltaChannel(keep)]

    writes = {
        "objects": lambda state: {"log": [AIMessage("hi"), "plain", 3]},
        "one-object": lambda state: {"log": HumanMessage("alone")},
        "dict-in-list": lambda state: {"log": [{"role": "user", "content": "d"}]},
        "dict-alone": lambda state: {"log": {"role": "user", "content": "d"}},
        "not-a-message-dict": lambda state: {"log": [{"x": 1}]},
        "overwrite": lambda state: {"log": Overwrite([AIMessage("o")])},
        "has-id": lambda state: {"log": [AIMessage("k", id="kept")]},
    }
    seen = []
    for name, node in writes.items():
        graph = lib.StateGraph(State)
        graph.add_node("n", node)
        graph.add_edge(lib.START, "n")
        try:
            result = graph.compile().invoke({"log": []})["log"]
            seen.append(f"{name}: {_shape(result)}")
        except Exception as error:
            seen.append(f"{name}: {type(error).__name__}")
    return seen


def _shape(items: list) -> list[str]:
    """Each item's type, and for a message whether it has an id (and which, if given)."""
    shapes = []
    for item in items:
        item_id = getattr(item, "id", None) if not isinstance(item, dict) else item.get("id")
        given = item_id if item_id == "kept" else ("id" if item_id else "no id")
        shapes.append(f"{type(item).__name__}({given})")
    return shapes


def test_messages_written_to_a_delta_channel_get_ids_as_in_langgraph():
    pytest.importorskip("langchain_core")
    assert _messages(load_graphkit()) == _messages(load_langgraph())


# --- copies: what a reducer or a node changes in place later -----------------------------


def _in_place(lib: Lib) -> list[str]:
    """A reducer that extends its value in place (of a type graphkit's plain reducer
    fields do not copy), and a node that changes the list it wrote with an Overwrite."""
    import collections

    from langgraph.checkpoint.memory import InMemorySaver as TheirSaver

    from graphkit.checkpoint import InMemorySaver as OurSaver

    Overwrite = _overwrite(lib)

    def extend(value: Any, writes: Sequence[Any]) -> Any:
        value.extend(writes)
        return value

    kept: list = ["o"]

    class State(TypedDict):
        items: Annotated[collections.deque, lib.channels.DeltaChannel(extend)]
        log: Annotated[list, lib.channels.DeltaChannel(lambda value, writes: value + writes)]

    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"items": "a", "log": Overwrite(kept)})
    graph.add_node("b", lambda state: kept.append("changed") or {"items": "b"})
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "b")
    saver = TheirSaver() if lib.name == "langgraph" else OurSaver()
    app = graph.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"items": "in", "log": []}, config)
    history = app.get_state_history(config)
    return [
        canonical((s.metadata["step"], list(s.values["items"]), s.values.get("log")))
        for s in history
    ]


def test_a_delta_channel_keeps_copies_as_in_langgraph():
    assert _in_place(load_graphkit()) == _in_place(load_langgraph())


def _unbuildable(lib: Lib) -> str:
    class State(TypedDict):
        items: Annotated[list | None, lib.channels.DeltaChannel(lambda value, writes: writes)]

    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"items": ["a"]})
    graph.add_edge(lib.START, "a")
    try:
        return canonical(graph.compile().invoke({"items": ["in"]}))
    except Exception as error:
        return canonical(Raised(type(error).__name__))


def test_a_delta_channel_of_a_type_that_cannot_start_empty_fails_as_in_langgraph():
    assert _unbuildable(load_graphkit()) == _unbuildable(load_langgraph())
    with pytest.raises(TypeError, match="Annotated\\[list, DeltaChannel"):
        lib = load_graphkit()

        class State(TypedDict):
            items: Annotated[list | None, lib.channels.DeltaChannel(lambda v, w: w)]

        graph = lib.StateGraph(State).add_node("a", lambda state: {"items": ["a"]})
        graph.add_edge(lib.START, "a").compile().invoke({"items": ["in"]})


def _message_paths(lib: Lib) -> list[str]:
    """Messages reach a DeltaChannel by other ways than a node's return: a Command as
    the input (new, or resuming), a low-level Pregel's node, and LangGraph's own batch
    reducer of messages, which makes every message-like a message."""
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver as TheirSaver
    from langgraph.graph.message import _messages_delta_reducer

    from graphkit.checkpoint import InMemorySaver as OurSaver

    def keep(value: list, writes: Sequence[Any]) -> list:
        return [*value, *(m for w in writes for m in (w if isinstance(w, list) else [w]))]

    types, NodeBuilder, Pregel = _low_level(lib)
    seen = []
    for reducer in (keep, _messages_delta_reducer):

        class State(TypedDict):
            log: Annotated[list, lib.channels.DeltaChannel(reducer)]

        graph = lib.StateGraph(State)
        graph.add_node("ask", lambda state: {"log": [types.interrupt("?")]})
        # (a tuple in a plain reducer's list comes back a list from LangGraph's saved
        # writes: its serializer's doing, not the ids')
        tuples = [("ai", "tuple")] if reducer is _messages_delta_reducer else []
        graph.add_node("n", lambda state, tuples=tuples: {"log": ["text", *tuples]})
        graph.add_edge(lib.START, "n").add_edge("n", "ask")
        saver = TheirSaver() if lib.name == "langgraph" else OurSaver()
        app = graph.compile(checkpointer=saver, interrupt_before=["n"])
        config = {"configurable": {"thread_id": "t"}}
        app.invoke({"log": ["input"]}, config)
        app.invoke(types.Command(update={"log": [{"role": "user", "content": "c"}]}), config)
        update = {"log": [{"role": "user", "content": "r"}, "s"]}
        result = app.invoke(types.Command(resume="yes", update=update), config)
        seen.append(_shape(result["log"]))
    node = (
        NodeBuilder()
        .subscribe_only("a")
        .do(lambda x: [HumanMessage("m"), {"role": "user", "content": "d"}])
    )
    app = Pregel(
        nodes={"n": node.write_to("log")},
        channels={"a": lib.channels.EphemeralValue(int), "log": lib.channels.DeltaChannel(keep)},
        input_channels="a",
        output_channels="log",
    )
    seen.append(_shape(app.invoke(1)))
    return [canonical(shapes) for shapes in seen]


def _low_level(lib: Lib) -> tuple[Any, Any, Any]:
    if lib.name == "langgraph":
        import langgraph.types as types
        from langgraph.pregel import NodeBuilder, Pregel
    else:
        import graphkit.types as types
        from graphkit.pregel import NodeBuilder, Pregel
    return types, NodeBuilder, Pregel


def test_messages_reaching_a_delta_channel_any_way_get_ids_as_in_langgraph():
    pytest.importorskip("langchain_core")
    assert _message_paths(load_graphkit()) == _message_paths(load_langgraph())


def _redeclared(lib: Lib, frequencies: tuple[int, int], where: str) -> str:
    """``items`` declared by the state and again by an input schema or a node's input
    schema, each with a DeltaChannel of one reducer and the given snapshot frequencies."""

    def keep(value: list, writes: Sequence[list]) -> list:
        return [*value, *(item for write in writes for item in write)]

    first, second = (lib.channels.DeltaChannel(keep, snapshot_frequency=f) for f in frequencies)

    class State(TypedDict):
        items: Annotated[list, first]

    class Given(TypedDict):
        items: Annotated[list, second]

    def node(state: Given) -> dict:
        return {"items": ["a"]}

    try:
        graph = lib.StateGraph(State, input_schema=Given if where == "input" else None)
        graph.add_node("a", node if where == "node" else (lambda state: {"items": ["a"]}))
        graph.add_edge(lib.START, "a")
        return canonical(graph.compile().invoke({"items": ["in"]}))
    except Exception as error:
        return canonical(Raised(type(error).__name__))


@pytest.mark.parametrize("where", ["input", "node"])
@pytest.mark.parametrize("frequencies", [(100, 100), (100, 5)], ids=["same", "other"])
def test_a_key_redeclared_with_another_snapshot_frequency_is_refused_as_in_langgraph(
    frequencies, where
):
    expected = _redeclared(load_langgraph(), frequencies, where)
    assert _redeclared(load_graphkit(), frequencies, where) == expected
