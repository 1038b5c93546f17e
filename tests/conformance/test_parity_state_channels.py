"""State schemas and channels, found by a differential hunt (about 470 small programs run
on both libraries, 210 of them also through ainvoke / astream): what differed, pinned
against LangGraph.

- A low-level ``Pregel`` with a list of input channels, given a dict naming none of them,
  is refused with ``EmptyInputError`` before anything is saved (graphkit used to run
  nothing and save an empty input step); ``update_state(..., as_node="__input__")`` with
  such values is an ``InvalidUpdateError``.
- Every channel tells its ``ValueType`` and ``UpdateType``, as LangGraph's do.
- A node returning something that is no update says what it returned.
- A channel written for LangGraph (a ``BaseChannel`` subclass from ``channels.base``, with
  ``MISSING`` for "no value" and no ``checkpoint()`` of its own) runs in a ``StateGraph``
  and a ``Pregel`` as LangGraph runs it.
- A task that wrote one key several times (a ``Command`` whose update is pairs, a list of
  Commands) shows ``{"key": {"$writes": [...]}}`` as its result in ``get_state`` and the
  history, as its "tasks" and "debug" results already did.
"""

from __future__ import annotations

import importlib
import operator
import warnings
from collections.abc import Sequence
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph


def _saver(lib: Lib):
    if lib.name == "langgraph":
        from langgraph.checkpoint.memory import InMemorySaver
    else:
        from graphkit.checkpoint import InMemorySaver
    return InMemorySaver()


def _pregel(lib: Lib, checkpointer=None):
    """One node copying channel ``a`` to ``out``; input channels given as a list."""
    if lib.name == "langgraph":
        from langgraph.pregel import NodeBuilder, Pregel
    else:
        from graphkit.pregel import NodeBuilder, Pregel
    copy = NodeBuilder().subscribe_only("a").do(lambda value: value).write_to("out")
    channels = {"a": lib.channels.LastValue(int), "out": lib.channels.LastValue(int)}
    return Pregel(
        nodes={"copy": copy},
        channels=channels,
        input_channels=["a"],
        output_channels="out",
        checkpointer=checkpointer,
    )


def _outcome(call) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # graphkit warns of the unknown key
        try:
            return repr(call())
        except Exception as error:
            return type(error).__name__


@pytest.mark.parametrize("given", [{}, {"other": 3}], ids=["empty", "unknown-key"])
def test_a_pregel_input_naming_none_of_its_input_channels_is_empty_input(given):
    def observe(lib: Lib) -> list[str]:
        app = _pregel(lib, _saver(lib))
        config = {"configurable": {"thread_id": "t"}}
        seen = [_outcome(lambda: app.invoke({"a": 1}, config))]
        seen.append(_outcome(lambda: app.invoke(dict(given), config)))
        seen.append(_outcome(lambda: list(app.stream(dict(given), config))))
        seen.append(_outcome(lambda: _pregel(lib).invoke(dict(given))))
        seen.append(str(len(list(app.get_state_history(config)))))  # nothing more saved
        return seen

    expected = observe(load_langgraph())
    assert expected[1:4] == ["EmptyInputError"] * 3
    assert observe(load_graphkit()) == expected


def test_graphkit_says_which_input_channels_it_takes():
    app = _pregel(load_graphkit())
    with pytest.raises(load_graphkit().errors.EmptyInputError) as excinfo:
        app.invoke({})
    assert str(excinfo.value) == (
        "Received no input for ['a']: the input {} names none of the input channels, so "
        "the run has nothing to start from. Pass e.g. {'a': ...}."
    )


@pytest.mark.parametrize("given", [{}, {"other": 3}], ids=["empty", "unknown-key"])
def test_an_input_update_naming_no_input_channel_is_an_invalid_update(given):
    def observe(lib: Lib) -> list[str]:
        app = _pregel(lib, _saver(lib))
        config = {"configurable": {"thread_id": "t"}}
        app.invoke({"a": 1}, config)
        seen = [_outcome(lambda: app.update_state(config, dict(given), as_node="__input__"))]
        seen.append(str(len(list(app.get_state_history(config)))))
        return seen

    expected = observe(load_langgraph())
    assert expected[0] == "InvalidUpdateError"
    assert observe(load_graphkit()) == expected


def _channels(lib: Lib) -> list:
    kinds = lib.channels
    return [
        kinds.LastValue(int),
        kinds.Topic(int),
        kinds.Topic(str, accumulate=True),
        kinds.BinaryOperatorAggregate(list, operator.add),
        kinds.EphemeralValue(str),
        kinds.AnyValue(int),
        kinds.UntrackedValue(dict),
        kinds.NamedBarrierValue(str, {"a", "b"}),
        kinds.LastValueAfterFinish(int),
        kinds.NamedBarrierValueAfterFinish(str, {"a"}),
    ]


def test_channels_tell_their_value_and_update_types():
    def types(lib: Lib) -> list:
        return [(type(c).__name__, c.ValueType, c.UpdateType) for c in _channels(lib)]

    assert types(load_graphkit()) == types(load_langgraph())


class State(TypedDict):
    x: int


@pytest.mark.parametrize("returned", [5, "text", [("x", 1)]], ids=["int", "str", "pairs"])
def test_a_node_returning_no_update_says_what_it_returned(returned):
    def run(lib: Lib):
        graph = lib.StateGraph(State)
        graph.add_node("shout", lambda state: returned)
        graph.add_edge(lib.START, "shout")
        return graph.compile().invoke({"x": 0})

    with pytest.raises(load_langgraph().errors.InvalidUpdateError):
        run(load_langgraph())
    with pytest.raises(load_graphkit().errors.InvalidUpdateError) as excinfo:
        run(load_graphkit())
    assert str(excinfo.value) == (
        f"Expected dict, got {returned!r}: node 'shout' returned a value of type "
        f"{type(returned).__name__}, and a node must return a dict of state keys (or a "
        "state object, a Command, or None). Return e.g. {'key': value}.\nFor "
        "troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/"
        "INVALID_GRAPH_NODE_RETURN_VALUE"
    )


def _largest_value(lib: Lib) -> type:
    """A custom channel as LangGraph's docs write one: it keeps the largest value."""
    base = importlib.import_module(f"{lib.name}.channels.base")
    BaseChannel, MISSING = base.BaseChannel, base.MISSING

    class LargestValue(BaseChannel):
        __slots__ = ("value",)

        def __init__(self, typ: Any, key: str = "") -> None:
            super().__init__(typ, key)
            self.value = MISSING

        @property
        def ValueType(self) -> Any:
            return self.typ

        @property
        def UpdateType(self) -> Any:
            return self.typ

        def from_checkpoint(self, checkpoint: Any) -> LargestValue:
            channel = type(self)(self.typ, self.key)
            if checkpoint is not MISSING:
                channel.value = checkpoint
            return channel

        def update(self, values: Sequence[Any]) -> bool:
            if not values:
                return False
            largest = max(values if self.value is MISSING else [self.value, *values])
            changed, self.value = largest != self.value, largest
            return changed

        def get(self) -> Any:
            if self.value is MISSING:
                raise lib.errors.EmptyChannelError()
            return self.value

    return LargestValue


def _in_a_pregel(lib: Lib, channel: Any) -> list[Any]:
    """Two nodes write the channel in one step; the stream shows what it kept."""
    if lib.name == "langgraph":
        from langgraph.pregel import NodeBuilder, Pregel
    else:
        from graphkit.pregel import NodeBuilder, Pregel
    nodes = {
        "once": NodeBuilder().subscribe_only("a").do(lambda x: x).write_to("best"),
        "thrice": NodeBuilder().subscribe_only("a").do(lambda x: 3 * x).write_to("best"),
    }
    channels = {"a": lib.channels.EphemeralValue(int), "best": channel}
    app = Pregel(nodes=nodes, channels=channels, input_channels="a", output_channels="best")
    return list(app.stream(2, stream_mode="values"))


def test_a_channel_written_for_langgraph_runs_as_in_langgraph():
    def observe(lib: Lib) -> list[Any]:
        LargestValue = _largest_value(lib)

        # (built by call: this module's annotations are strings, and LargestValue is local)
        fields = {"best": Annotated[int, LargestValue(int)], "seen": int}
        Scores = TypedDict("Scores", fields)

        graph = lib.StateGraph(Scores)
        graph.add_node("low", lambda state: {"best": 3})
        graph.add_node("high", lambda state: {"best": 7})
        graph.add_node("read", lambda state: {"seen": state["best"], "best": 1})
        graph.add_edge(lib.START, "low")
        graph.add_edge(lib.START, "high")
        graph.add_edge("low", "read")
        app = graph.compile(checkpointer=_saver(lib))
        config = {"configurable": {"thread_id": "t"}}
        seen: list[Any] = [app.invoke({"seen": 0}, config)]
        seen.append([s.values for s in app.get_state_history(config)])
        seen.append(_in_a_pregel(lib, LargestValue(int)))
        channel = LargestValue(int)
        seen.append(channel.checkpoint() is channel.from_checkpoint(channel.checkpoint()).value)
        channel.update([4, 2])
        seen.append((channel.checkpoint(), channel.copy().get(), channel.is_available()))
        return seen

    assert observe(load_graphkit()) == observe(load_langgraph())


def _extend(current: list, update: list | None) -> list:
    return current + (update or [])


class Logged(TypedDict):
    log: Annotated[list, _extend]
    count: int


def _writes_twice(lib: Lib) -> Any:
    """Nodes writing one key twice in one task, in each way a node can; one writes None
    first (LangGraph then keeps only the later write)."""
    command = lib.Command
    nodes = {
        "pairs": lambda state: command(update=[("log", ["a"]), ("log", ["b"]), ("count", 1)]),
        "commands": lambda state: [command(update={"log": ["c"]}), command(update={"log": ["d"]})],
        "none_first": lambda state: command(update=[("log", None), ("log", ["h"])]),
        "three": lambda state: command(update=[("log", ["e"]), ("log", ["f"]), ("log", ["g"])]),
    }
    graph = lib.StateGraph(Logged)
    previous = lib.START
    for name, node in nodes.items():
        graph.add_node(name, node)
        graph.add_edge(previous, name)
        previous = name
    return graph.compile(checkpointer=_saver(lib))


def test_a_task_that_wrote_a_key_twice_shows_every_write_in_the_history():
    def observe(lib: Lib) -> list[Any]:
        app = _writes_twice(lib)
        config = {"configurable": {"thread_id": "t"}}
        app.invoke({"count": 0}, config)
        history = [[(t.name, t.result) for t in s.tasks] for s in app.get_state_history(config)]
        again = {"configurable": {"thread_id": "again"}}
        tasks = [c.get("result") for c in app.stream({"count": 0}, again, stream_mode="tasks")]
        return [history, tasks]

    expected = observe(load_langgraph())
    assert ("pairs", {"log": {"$writes": [["a"], ["b"]]}, "count": 1}) in expected[0][-2]
    assert observe(load_graphkit()) == expected
