"""Mistaken input refused as LangGraph refuses it, with graphkit's errors saying what
was wrong, where, and how to fix it."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph


class State(TypedDict):
    a: int


def _app(lib: Lib) -> Any:
    builder = lib.StateGraph(State).add_node("n", lambda state: {"a": 1})
    return builder.add_edge(lib.START, "n").compile()


@pytest.mark.parametrize(
    "how",
    ["invoke", "stream", "one key alone", "a known key beside it"],
)
def test_output_keys_naming_no_state_key_are_refused(how):
    def observe(lib: Lib) -> Any:
        app = _app(lib)
        runs = {
            "invoke": lambda: app.invoke({"a": 0}, output_keys=["ghost"]),
            "stream": lambda: list(app.stream({"a": 0}, output_keys=["ghost"])),
            "one key alone": lambda: app.invoke({"a": 0}, output_keys="ghost"),
            "a known key beside it": lambda: app.invoke({"a": 0}, output_keys=["a", "ghost"]),
        }
        try:
            return runs[how]()
        except ValueError as error:
            return "ValueError", str(error)

    expected, got = observe(load_langgraph()), observe(load_graphkit())
    assert got[0] == expected[0] == "ValueError"
    assert "'ghost', not a key of this graph's state (its keys: 'a')" in got[1]


def test_update_state_values_that_are_no_update_say_they_came_from_update_state():
    def observe(lib: Lib) -> Any:
        from .scenarios import SAVERS

        with SAVERS["memory"](lib.name) as saver:
            builder = lib.StateGraph(State).add_node("n", lambda state: {"a": 1})
            app = builder.add_edge(lib.START, "n").compile(checkpointer=saver)
            config = {"configurable": {"thread_id": "t"}}
            app.invoke({"a": 0}, config)
            try:
                app.update_state(config, [1, 2, 3], as_node="n")
            except Exception as error:
                notes = getattr(error, "__notes__", [])
                return type(error).__name__, "\n".join([str(error), *notes])
            return None

    expected, got = observe(load_langgraph()), observe(load_graphkit())
    assert got[0] == expected[0] == "InvalidUpdateError"
    assert "update_state's values are read as what node 'n' returned" in got[1]


@pytest.mark.parametrize("key", ["__start__", "branch:to:a"])
def test_a_state_key_named_like_a_runtime_channel_is_refused_at_compile(key):
    """LangGraph accepts it and then misreads the input or loops; graphkit refuses it."""
    from graphkit import START, StateGraph

    builder = StateGraph(TypedDict("Clash", {key: int, "y": int}))  # type: ignore[misc]
    builder.add_node("a", lambda state: {"y": 1}).add_edge(START, "a")
    with pytest.raises(ValueError, match=rf"State key '{key}' has the name of a channel.*Rename"):
        builder.compile()


@pytest.mark.parametrize("what", ["node", "edge", "conditional edge"])
def test_building_on_after_compile_warns_that_the_compiled_graph_lacks_it(what):
    """LangGraph logs it; graphkit warns (a ``GraphkitWarning``), naming what was added."""
    from graphkit import START, StateGraph
    from graphkit.errors import GraphkitWarning

    first = StateGraph(State).add_node("first", lambda state: {"a": 1})
    builder = first.add_edge(START, "first")
    builder.compile()
    additions = {
        "node": lambda: builder.add_node("second", lambda state: {"a": 2}),
        "edge": lambda: builder.add_edge("first", "second"),
        "conditional edge": lambda: builder.add_conditional_edges("first", lambda state: "first"),
    }
    told = r"added after compile\(\).*Call compile\(\) again"
    with pytest.warns(GraphkitWarning, match=told) as got:
        additions[what]()
    said = {"node": "Node 'second'", "edge": "Edge 'first' → 'second'"}
    assert str(got[0].message).startswith(said.get(what, "The conditional edge from 'first'"))


def test_a_history_filter_that_is_not_a_dict_says_what_a_filter_is():
    from graphkit import START, StateGraph
    from graphkit.checkpoint.memory import InMemorySaver

    builder = StateGraph(State).add_node("first", lambda state: {"a": 1})
    app = builder.add_edge(START, "first").compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"a": 0}, config)
    with pytest.raises(TypeError, match=r"filter must be a dict.*got str 'source'.*'loop'"):
        list(app.get_state_history(config, filter="source"))


def test_an_xray_that_is_no_level_says_what_xray_takes():
    from graphkit import START, StateGraph

    app = StateGraph(State).add_node("first", lambda state: {"a": 1}).add_edge(START, "first")
    with pytest.raises(TypeError, match=r"xray=.*True, False or a number.*got str 'yes'"):
        app.compile().get_graph(xray="yes")
    for taken in (None, 1.0, 0, True):  # (LangGraph takes these too)
        assert app.compile().get_graph(xray=taken).nodes


def _nested(levels: int) -> list:
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


class Anything(TypedDict):
    v: Any


@pytest.mark.parametrize("levels", [255, 256, 500])
def test_a_value_nested_too_deep_for_in_memory_saver_is_refused_when_written(levels):
    """graphkit's InMemorySaver kept a 500-level list (Python's recursion limit allowed
    its check), then every read of the thread (get_state, history, update_state, a
    resume) raised RecursionError copying it: the thread was lost. LangGraph refuses
    more than 255 levels when the node writes it."""

    def observe(lib: Lib) -> Any:
        import importlib

        saver = importlib.import_module(f"{lib.name}.checkpoint.memory").InMemorySaver()
        builder = lib.StateGraph(Anything).add_node("n", lambda state: {"v": _nested(levels)})
        app = builder.add_edge(lib.START, "n").compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "1"}}
        try:
            app.invoke({"v": None}, config)
        except TypeError as error:
            return "TypeError", app.get_state(config).next, str(error)
        return "saved", app.get_state(config).values["v"] == _nested(levels)

    expected, got = observe(load_langgraph()), observe(load_graphkit())
    assert got[:2] == expected[:2]
    if got[0] == "TypeError":
        assert "channel 'v'" in got[2] and "255 levels" in got[2]


@pytest.mark.parametrize(
    ("node", "langgraph_run"),
    [({"item": 1}, "TypeError"), (3, "dropped")],
    ids=["unhashable", "hashable"],
)
def test_a_send_whose_node_is_no_string_is_refused_when_made(node, langgraph_run):
    """Differs on purpose (docs/compatibility.md): LangGraph makes ``Send(node, "n")``
    and fails the next Plan if ``node`` is unhashable (the arguments swapped), or drops
    the packet with a log line; graphkit refuses it when made, saying how to write it."""

    def observe(lib: Lib) -> str:
        builder = lib.StateGraph(State).add_node("fan", lambda state: {}).add_node("n", _one)
        builder.add_edge(lib.START, "fan").add_conditional_edges(
            "fan", lambda state: [lib.Send(node, "n")], ["n"]
        )
        try:
            output = builder.compile().invoke({"a": 0})
        except TypeError as error:
            return f"TypeError: {error}"
        return "dropped" if output == {"a": 0} else f"ran: {output}"

    assert observe(load_langgraph()).startswith(langgraph_run)
    made = observe(load_graphkit())
    assert made.startswith("TypeError: Send(node, arg) takes the node's name first, a str")
    assert f"got {node!r} ({type(node).__name__})" in made  # (not "got a int")
    assert f"write Send('n', {node!r})" in made


def _one(state: State) -> dict[str, int]:
    return {"a": 1}
