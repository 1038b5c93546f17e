"""``Overwrite`` as LangGraph has it (issue 14, item 11): a write that replaces a reducer
field's value instead of being folded into it — from a node, in the input, with
``update_state``, next to plain writes in one step, twice in one step (an error), on a
plain field (stored as is), kept as a pending write across an interrupt on both savers —
and what the "updates" stream and graphkit's records show for it."""

from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from .harness import Lib, Raised, canonical, load_graphkit, load_langgraph
from .scenarios import SAVERS, _interrupt

LIBS = {"langgraph": load_langgraph, "graphkit": load_graphkit}


def _overwrite(lib: Lib) -> type:
    if lib.name == "langgraph":
        from langgraph.types import Overwrite
    else:
        from graphkit.types import Overwrite
    return Overwrite


class State(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def _fan_out(lib: Lib, nodes: dict) -> object:
    """Every node runs in step 1, in parallel, straight from START."""
    graph = lib.StateGraph(State)
    for name, node in nodes.items():
        graph.add_node(name, node)
        graph.add_edge(lib.START, name)
    return graph


def _writes(lib: Lib, case: str) -> dict:
    Overwrite = _overwrite(lib)
    plain = {"a": lambda state: {"log": ["a"]}}
    return {
        "one-node": {"a": lambda state: {"log": Overwrite(["fresh"])}},
        "dict-form": {"a": lambda state: {"log": {"__overwrite__": ["fresh"]}}},
        "typed-dict-form": {
            "a": lambda state: {"log": {"type": "__overwrite__", "value": ["fresh"]}}
        },
        "plain-then-overwrite": {**plain, "b": lambda state: {"log": Overwrite(["b"])}},
        "overwrite-then-plain": {
            "a": lambda state: {"log": Overwrite(["a"])},
            "b": lambda state: {"log": ["b"]},
        },
        "two-overwrites": {
            "a": lambda state: {"log": Overwrite(["a"])},
            "b": lambda state: {"log": Overwrite(["b"])},
        },
        "plain-field": {"a": lambda state: {"x": Overwrite(5)}},
        "empty-overwrite": {"a": lambda state: {"log": Overwrite([])}},
    }[case]


CASES = [
    "one-node",
    "dict-form",
    "typed-dict-form",
    "plain-then-overwrite",
    "overwrite-then-plain",
    "two-overwrites",
    "plain-field",
    "empty-overwrite",
]


def _observe(lib: Lib, case: str, run_async: bool) -> list[str]:
    """invoke's result and the updates+values stream, as canonical text (an error by
    its class name)."""
    app = _fan_out(lib, _writes(lib, case)).compile()
    given = {"x": 0, "log": ["start"]}

    async def collect_async() -> list:
        return [chunk async for chunk in app.astream(given, stream_mode=["updates", "values"])]

    seen = []
    for run in ("invoke", "stream"):
        try:
            if run == "invoke":
                result = asyncio.run(app.ainvoke(given)) if run_async else app.invoke(given)
            else:
                chunks = (
                    asyncio.run(collect_async())
                    if run_async
                    else list(app.stream(given, stream_mode=["updates", "values"]))
                )
                # tasks of one step finish in any order: sort the step's updates
                result = sorted(canonical(chunk) for chunk in chunks)
        except Exception as error:
            result = Raised(type(error).__name__)
        seen.append(canonical(result))
    return seen


@pytest.mark.parametrize("run_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("case", CASES)
def test_an_overwrite_write_behaves_as_in_langgraph(case, run_async):
    expected = _observe(load_langgraph(), case, run_async)
    assert _observe(load_graphkit(), case, run_async) == expected


def test_the_oracle_replaces_the_value_and_refuses_two_overwrites():
    """What the cases above pin down, stated once against LangGraph."""
    lib = load_langgraph()
    assert "['fresh']" in _observe(lib, "one-node", False)[0]
    assert _observe(lib, "two-overwrites", False)[0] == canonical(Raised("InvalidUpdateError"))


def test_two_overwrites_name_the_channel_the_step_and_the_writers():
    lib = load_graphkit()
    app = _fan_out(lib, _writes(lib, "two-overwrites")).compile()
    with pytest.raises(lib.errors.InvalidUpdateError) as raised:
        app.invoke({"x": 0, "log": []})
    message = str(raised.value)
    assert "'log'" in message and "Step 1" in message and "'a' and 'b'" in message
    assert "Overwrite" in message


def _input_and_update_state(lib: Lib, saver) -> list[str]:
    Overwrite = _overwrite(lib)
    graph = lib.StateGraph(State)
    graph.add_node("a", lambda state: {"log": ["a"]})
    graph.add_edge(lib.START, "a")
    app = graph.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}}
    seen = [canonical(app.invoke({"x": 0, "log": Overwrite(["in"])}, config))]
    app.update_state(config, {"log": Overwrite(["set"])}, as_node="a")
    seen.append(canonical(app.get_state(config).values))
    seen.append(canonical(app.invoke({"x": 1, "log": ["more"]}, config)))
    return seen


@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_overwrite_in_the_input_and_in_update_state(saver):
    observed = {}
    for name, load in LIBS.items():
        with SAVERS[saver](name) as checkpointer:
            observed[name] = _input_and_update_state(load(), checkpointer)
    assert observed["graphkit"] == observed["langgraph"]


def _pending_overwrite(lib: Lib, saver) -> list[str]:
    """'a' overwrites while its sibling 'b' pauses: the Overwrite is saved as a pending
    write, and resuming applies it (after reading it back from the saver)."""
    Overwrite, interrupt = _overwrite(lib), _interrupt(lib.name)
    nodes = {
        "a": lambda state: {"log": Overwrite(["a"])},
        "b": lambda state: {"log": [interrupt("go on?")]},
    }
    app = _fan_out(lib, nodes).compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}}
    first = app.invoke({"x": 0, "log": ["start"]}, config)
    seen = [canonical(first.get("log")), canonical(app.get_state(config).values)]
    seen.append(canonical(app.invoke(lib.Command(resume="yes"), config)))
    return seen


@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_a_pending_overwrite_survives_an_interrupt(saver):
    observed = {}
    for name, load in LIBS.items():
        with SAVERS[saver](name) as checkpointer:
            observed[name] = _pending_overwrite(load(), checkpointer)
    assert observed["graphkit"] == observed["langgraph"]


class Broke(Exception):
    """What the failing node of `_unreadable_after_a_failure` raises."""


def _unreadable_after_a_failure(lib: Lib, key: str) -> list[str]:
    """'f' fails at once beside 'a' and 'b', which both write `key` ('log' as an
    Overwrite, or the plain 'x'): the step saves their writes, which cannot be applied
    together, so `get_state` raises. Async nodes: under `invoke` LangGraph may drop one
    of them first (compatibility.md, "Known differences")."""
    Overwrite = _overwrite(lib)
    value = {"log": lambda name: Overwrite([name]), "x": len}[key]

    def writes(name: str):
        async def node(state: dict) -> dict:
            return {key: value(name)}

        return node

    async def fails(state: dict) -> dict:
        raise Broke("f fails")

    app = _fan_out(lib, {"a": writes("a"), "b": writes("b"), "f": fails}).compile(
        checkpointer=_memory(lib)
    )
    config = {"configurable": {"thread_id": "t"}}
    seen = []
    for read in (lambda: asyncio.run(app.ainvoke({"x": 0, "log": []}, config)),
                 lambda: app.get_state(config)):  # fmt: skip
        try:
            seen.append(canonical(read()))
        except Exception as error:
            seen.append(canonical(Raised(type(error).__name__)))
            last = error
    seen.append(f"'{key}' named" if f"'{key}'" in str(last) else f"'{key}' not named")
    return seen


def _memory(lib: Lib):
    if lib.name == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
    else:
        from graphkit import InMemorySaver
    return InMemorySaver()


@pytest.mark.parametrize("key", ["log", "x"])
def test_get_state_raises_where_a_failed_steps_saved_writes_conflict(key):
    """Found by the fuzz suite (property 9's long run, seed 31337): both libraries raise
    the `InvalidUpdateError` of applying the saved writes, and graphkit's names the key
    (LangGraph's names a plain key, not an Overwritten one)."""
    expected = _unreadable_after_a_failure(load_langgraph(), key)
    actual = _unreadable_after_a_failure(load_graphkit(), key)
    assert expected[:2] == ["raised Broke", "raised InvalidUpdateError"]
    assert actual == [*expected[:2], f"'{key}' named"]


# -- graphkit's records show the Overwrite ---------------------------------------------


def _traced_overwrite():
    lib = load_graphkit()
    return (
        _fan_out(lib, _writes(lib, "plain-then-overwrite"))
        .compile()
        .trace({"x": 0, "log": ["start"]})
    )


def test_the_writes_and_changes_tables_show_the_overwrite():
    from graphkit.types import Overwrite

    run = _traced_overwrite()
    writes = run.to_frame("writes")
    logged = writes[(writes["channel"] == "log") & (writes["step"] == 1)]
    assert sorted(map(repr, logged["value"])) == sorted([repr(["a"]), repr(Overwrite(["b"]))])
    changes = run.to_frame("changes")
    change = changes[(changes["channel"] == "log") & (changes["step"] == 1)].iloc[0]
    assert (change["before"], change["after"]) == (["start"], ["b"])
    assert Overwrite(["b"]) in change["values"]


def test_the_timeline_says_which_writer_overwrote():
    text = str(_traced_overwrite())
    assert "['start'] -> ['b']  (from a, b; Overwrite by b)" in text


def test_a_plain_field_holding_an_overwrite_is_not_called_overwritten():
    lib = load_graphkit()
    run = _fan_out(lib, _writes(lib, "plain-field")).compile().trace({"x": 0, "log": []})
    line = next(
        line for line in str(run).splitlines() if "UPDATE   x" in line and "(from a" in line
    )
    assert line.endswith("-> Overwrite(5)  (from a)")


def _add_to(total, more):
    return (total or 0) + more


class Maybe(TypedDict):
    total: Annotated[int | None, _add_to]


def test_an_overwrite_into_a_reducer_field_that_starts_empty_stores_its_value():
    """A deliberate difference: a reducer field whose type cannot build a start value
    (``int | None``) is empty until written, and LangGraph then stores the Overwrite
    object itself (the next plain write makes its reducer fail); graphkit stores the
    value, as it does for every other Overwrite."""
    results = {}
    for name, load in LIBS.items():
        lib = load()
        Overwrite = _overwrite(lib)
        graph = lib.StateGraph(Maybe)
        graph.add_node("a", lambda state, Overwrite=Overwrite: {"total": Overwrite(3)})
        graph.add_node("b", lambda state: {"total": 4})
        graph.add_edge(lib.START, "a")
        graph.add_edge("a", "b")
        results[name] = _caught_result(lambda graph=graph: graph.compile().invoke({}))
    assert results["langgraph"] == "raised TypeError"
    assert results["graphkit"] == canonical({"total": 7})


def _caught_result(call) -> str:
    try:
        return canonical(call())
    except Exception as error:
        return canonical(Raised(type(error).__name__))
