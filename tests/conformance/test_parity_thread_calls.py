"""Thread calls that failed (or answered for every thread) where LangGraph answers, run on
both libraries: the history of a config naming a checkpoint (on both savers), an input
``Command(update=...)`` in a single-value state, ``update_state(..., task_id=...)``, and
``get_state_history`` without a ``thread_id``."""

import dataclasses
import importlib
import operator
import warnings
from typing import Annotated, Any, TypedDict

import pytest
from pydantic import BaseModel

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS, _interrupt

LIBS = [load_langgraph, load_graphkit]


class State(TypedDict):
    x: int


class Items(TypedDict):
    items: Annotated[list, operator.add]


def _thread(name: str = "t") -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}


def _chain(lib: Lib, saver: Any) -> Any:
    builder = lib.StateGraph(State)
    builder.add_node("a", lambda state: {"x": state["x"] + 1})
    builder.add_node("b", lambda state: {"x": state["x"] * 10})
    builder.add_edge(lib.START, "a").add_edge("a", "b")
    return builder.compile(checkpointer=saver)


def _run(lib: Lib, app: Any, *args: Any) -> Any:
    kwargs = {"durability": "sync"} if lib.name == "langgraph" else {}
    return app.invoke(*args, **kwargs)


@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_the_history_of_a_config_naming_a_checkpoint_is_that_checkpoint(saver: str) -> None:
    seen = []
    for load in LIBS:
        lib = load()
        with SAVERS[saver](lib.name) as checkpointer:
            app = _chain(lib, checkpointer)
            _run(lib, app, {"x": 1}, _thread())
            history = list(app.get_state_history(_thread()))
            found = []
            for snapshot in history:  # each one, with and without its namespace
                named = snapshot.config["configurable"]["checkpoint_id"]
                bare = {"configurable": {"thread_id": "t", "checkpoint_id": named}}
                for config in (snapshot.config, bare):
                    steps = [s.metadata["step"] for s in app.get_state_history(config)]
                    listed = [t.metadata["step"] for t in checkpointer.list(config)]
                    found.append((steps, listed))
            seen.append(found)
    assert seen[0] == seen[1]
    assert seen[1][0] == ([2], [2]) and len(seen[1]) == 8


def _counter(lib: Lib, saver: Any, schema: Any, node: Any) -> Any:
    builder = lib.StateGraph(schema)
    builder.add_node("a", node)
    builder.add_edge(lib.START, "a")
    return builder.compile(checkpointer=saver)


@pytest.mark.parametrize("update", [5, [("__root__", 3)]])  # (0: LangGraph 1.2 crashes)
def test_an_input_commands_update_is_a_single_value_states_new_value(update: Any) -> None:
    seen = []
    for load in LIBS:
        lib = load()
        with SAVERS["memory"](lib.name) as saver:
            app = _counter(lib, saver, int, lambda state: state + 1)
            _run(lib, app, 0, _thread())
            result = _run(lib, app, lib.Command(update=update), _thread())
            snapshot = app.get_state(_thread())
            seen.append((result, snapshot.values, snapshot.metadata["source"], snapshot.next))
    assert seen[0] == seen[1]


@pytest.mark.parametrize(
    ("schema", "given", "update"),
    [(int, 0, 10), (Annotated[list, operator.add], [0], [7])],
    ids=["int", "reducer-list"],
)
def test_a_resume_with_a_single_value_update(schema: Any, given: Any, update: Any) -> None:
    seen = []
    for load in LIBS:
        lib = load()
        interrupt = _interrupt(lib.name)
        with SAVERS["memory"](lib.name) as saver:
            app = _counter(lib, saver, schema, lambda state, ask=interrupt: ask("q") and state)
            _run(lib, app, given, _thread())
            seen.append(_run(lib, app, lib.Command(resume=True, update=update), _thread()))
    assert seen[0] == seen[1]
    assert seen[1] in (10, [0, 7, 0, 7])


def test_graphkit_refuses_an_input_update_that_is_not_a_mapping_in_a_dict_state() -> None:
    """LangGraph writes it to a ``__root__`` key the state does not have and drops it;
    graphkit says what to pass instead (as it does for a node's Command)."""
    lib = load_graphkit()
    with SAVERS["memory"](lib.name) as saver:
        app = _counter(lib, saver, State, lambda state: {"x": 1})
        app.invoke({"x": 0}, _thread())
        with pytest.raises(lib.errors.InvalidUpdateError, match=r"Command\(update=\{'key'"):
            app.invoke(lib.Command(update=5), _thread())


def _parallel_pause(lib: Lib, saver: Any) -> Any:
    interrupt = _interrupt(lib.name)
    builder = lib.StateGraph(Items)
    builder.add_node("a", lambda state: {"items": [interrupt("a?")]})
    builder.add_node("b", lambda state: {"items": [interrupt("b?")]})
    builder.add_edge(lib.START, "a").add_edge(lib.START, "b")
    return builder.compile(checkpointer=saver)


@pytest.mark.parametrize(
    ("saver", "call"), [("memory", "sync"), ("sqlite", "sync"), ("memory", "async")]
)  # (LangGraph's SqliteSaver has no async methods)
def test_update_state_takes_the_task_id_of_the_pending_task_it_answers(
    saver: str, call: str
) -> None:
    import asyncio

    seen = []
    for load in LIBS:
        lib = load()
        with SAVERS[saver](lib.name) as checkpointer:
            app = _parallel_pause(lib, checkpointer)
            _run(lib, app, {"items": ["in"]}, _thread())
            task = next(t for t in app.get_state(_thread()).tasks if t.name == "b")
            if call == "sync":
                app.update_state(_thread(), {"items": ["B"]}, as_node="b", task_id=task.id)
            else:
                update = app.aupdate_state(_thread(), {"items": ["B"]}, "b", task.id)
                asyncio.run(update)
            snapshot = app.get_state(_thread())
            pending = [(t.name, bool(t.interrupts)) for t in snapshot.tasks]
            seen.append((snapshot.values, snapshot.next, pending))
    assert seen[0] == seen[1]
    assert seen[1][0] == {"items": ["in", "B"]}


@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_get_state_history_needs_a_thread(saver: str) -> None:
    """LangGraph raises ``KeyError('thread_id')``; graphkit the ``ValueError`` every
    checkpointed call without a thread raises, saying how to pass one. Neither lists
    every thread's checkpoints."""
    raised = []
    for load in LIBS:
        lib = load()
        with SAVERS[saver](lib.name) as checkpointer:
            app = _chain(lib, checkpointer)
            _run(lib, app, {"x": 1}, _thread("one"))
            with pytest.raises((KeyError, ValueError)) as error:
                list(app.get_state_history({"configurable": {}}))
            raised.append(error.type)
    assert raised == [KeyError, ValueError]


def test_a_thread_holding_nothing_has_nothing_to_resume() -> None:
    """``update_state(config, None, as_node=...)`` on a new thread saves a checkpoint
    with no values; ``invoke(None)`` then has no input and nothing to resume."""
    raised = []
    for load in LIBS:
        lib = load()
        with SAVERS["memory"](lib.name) as saver:
            app = _chain(lib, saver)
            app.update_state(_thread(), None, as_node="b")
            with pytest.raises(lib.errors.EmptyInputError):
                app.invoke(None, _thread())
            raised.append(app.get_state(_thread()).values)
    assert raised == [{}, {}]


@pytest.mark.parametrize("saver", sorted(SAVERS))
@pytest.mark.parametrize("update", [None, {}])
def test_a_command_on_a_thread_holding_nothing_runs_as_a_new_input(saver: str, update: Any) -> None:
    """``Command(resume=...)`` (with an update or not) on such a thread (updated as
    'b', which has no edge out, so nothing was written) has nothing to resume: the graph
    runs from START, after the empty checkpoint, as in LangGraph."""
    seen = []
    for load in LIBS:
        lib = load()
        with SAVERS[saver](lib.name) as saver_, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (graphkit's: nothing to resume)
            app = _counting(lib, saver_)
            app.update_state(_thread(), update, as_node="b")
            results = [
                app.invoke(lib.Command(resume="yes"), _thread("t")),
                app.update_state(_thread("u"), update, as_node="b") and None,
                app.invoke(lib.Command(resume="yes", update={"items": ["u"]}), _thread("u")),
            ]
            history = [
                (s.values, s.next, s.metadata["source"], s.metadata["step"])
                for name in ("t", "u")
                for s in app.get_state_history(_thread(name))
            ]
            seen.append((results, history))
    assert seen[1] == seen[0]


@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_an_update_after_a_node_woken_twice_at_once_needs_as_node(saver: str) -> None:
    """'d' ran last, woken in one step by its edge from 'b' and by the join of 'b' and
    'c': LangGraph ranks what each node saw channel by channel, so the two channels tie
    and `update_state` without `as_node` is ambiguous; with it, both agree."""
    seen = []
    for load in LIBS:
        lib = load()
        with SAVERS[saver](lib.name) as saver_, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            builder = lib.StateGraph(Items)
            for name in "abcd":
                builder.add_node(name, lambda state, name=name: {"items": [name]})
            builder.add_edge(lib.START, "a").add_edge("a", "b").add_edge("a", "c")
            builder.add_edge(["b", "c"], "d").add_edge("b", "d")
            app = builder.compile(checkpointer=saver_)
            app.invoke({"items": []}, _thread())
            with pytest.raises(lib.errors.InvalidUpdateError):
                app.update_state(_thread(), {"items": ["e"]})
            app.update_state(_thread(), {"items": ["e"]}, as_node="d")
            seen.append(app.get_state(_thread()).values)
    assert seen[1] == seen[0]


@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_an_update_on_a_replays_fork_before_any_node_needs_as_node(saver: str) -> None:
    """A replay of the input checkpoint saves a "fork" on which no node has run yet, but
    which a resumed run made: LangGraph finds no node to make an edit of it as and
    raises InvalidUpdateError (in `bulk_update_state` too; graphkit made it START's);
    the input checkpoint itself, never resumed, is START's in both."""
    seen = []
    for load in LIBS:
        lib = load()
        with SAVERS[saver](lib.name) as saver_, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            app = _chain(lib, saver_)
            app.invoke({"x": 1}, _thread())
            first = list(app.get_state_history(_thread()))[-1].config
            app.invoke(None, first)
            fork = next(
                s for s in app.get_state_history(_thread()) if s.metadata["source"] == "fork"
            )
            with pytest.raises(lib.errors.InvalidUpdateError):
                app.update_state(fork.config, {"x": 5})
            update = importlib.import_module(f"{lib.name}.types").StateUpdate
            with pytest.raises(lib.errors.InvalidUpdateError):
                app.bulk_update_state(fork.config, [[update({"x": 5}, None)]])
            edited = app.update_state(first, {"x": 7})
            seen.append((app.get_state(edited).next, app.invoke(None, edited)))
    assert seen == [(("a",), {"x": 80})] * 2


def _counting(lib: Lib, saver: Any) -> Any:
    builder = lib.StateGraph(Items)
    builder.add_node("a", lambda state: {"items": ["a"]})
    builder.add_node("b", lambda state: {"items": ["b"]})
    builder.add_edge(lib.START, "a").add_edge("a", "b")
    return builder.compile(checkpointer=saver)


def _nested(lib: Lib, saver: Any) -> Any:
    inner = lib.StateGraph(Items)
    inner.add_node("inner", lambda state: {"items": ["i"]})
    inner.add_edge(lib.START, "inner")
    builder = lib.StateGraph(Items)
    builder.add_node("sub", inner.compile())
    builder.add_edge(lib.START, "sub")
    return builder.compile(checkpointer=saver)


@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_a_savers_list_order_and_negative_limits(saver: str) -> None:
    """In-memory: thread by thread, then namespace by namespace, newest first in each;
    SQLite: newest first overall. A negative ``limit`` lists nothing in memory and
    everything in SQLite (SQL's ``LIMIT -1``), as LangGraph's savers do."""
    seen = []
    for load in LIBS:
        lib = load()
        with SAVERS[saver](lib.name) as checkpointer:
            app = _nested(lib, checkpointer)
            for thread in ("t1", "t2"):
                _run(lib, app, {"items": []}, _thread(thread))

            def rows(listed: Any) -> list[tuple[str, str, int]]:
                return [
                    (
                        t.config["configurable"]["thread_id"],
                        t.config["configurable"]["checkpoint_ns"].split(":")[0],
                        t.metadata["step"],
                    )
                    for t in listed
                ]

            seen.append(
                (
                    rows(checkpointer.list(None)),
                    rows(checkpointer.list(None, limit=2)),
                    rows(checkpointer.list(_thread("t1"), limit=-1)),
                )
            )
    assert seen[0] == seen[1]
    assert len(seen[1][0]) == 12


def test_an_in_memory_list_names_namespaces_in_the_order_first_read() -> None:
    """Under ``durability="exit"`` a subgraph compiled with ``checkpointer=True`` saves
    before its parent, which saves only when the run ends; LangGraph's in-memory saver
    still lists the root namespace first, as it made the root's entry at the run's first
    read. graphkit listed the subgraph's checkpoints first."""
    seen = []
    for load in LIBS:
        lib = load()
        inner = lib.StateGraph(Items)
        inner.add_node("inner", lambda state: {"items": ["i"]})
        inner.add_edge(lib.START, "inner")
        builder = lib.StateGraph(Items)
        builder.add_node("sub", inner.compile(checkpointer=True))
        builder.add_edge(lib.START, "sub")
        with SAVERS["memory"](lib.name) as checkpointer:
            app = builder.compile(checkpointer=checkpointer)
            app.invoke({"items": []}, _thread(), durability="exit")
            seen.append(
                [
                    (t.config["configurable"]["checkpoint_ns"].split(":")[0], t.metadata["step"])
                    for t in checkpointer.list(_thread())
                ]
            )
    assert seen[0] == seen[1]
    assert seen[1][0] == ("", 1)


def test_graphkit_applies_an_input_update_given_as_list_pairs() -> None:
    """LangGraph reads only tuples as pairs and drops ``[["x", 2]]`` with a warning;
    graphkit applies it (as it always did). In a single-value state only tuples are
    pairs in both, so a list state can be given such a list as its value."""
    lib = load_graphkit()
    with SAVERS["memory"](lib.name) as saver:
        app = _counter(lib, saver, State, lambda state: {})
        app.invoke({"x": 0}, _thread())
        assert app.invoke(lib.Command(update=[["x", 2]]), _thread()) == {"x": 2}
    seen = []
    for load in LIBS:
        lib = load()
        with SAVERS["memory"](lib.name) as saver:
            app = _counter(lib, saver, Annotated[list, operator.add], lambda state: [])
            _run(lib, app, [], _thread())
            seen.append(_run(lib, app, lib.Command(update=[["x", 2]]), _thread()))
    assert seen[0] == seen[1] == [["x", 2]]


class Model(BaseModel):
    x: int = 0
    y: int | None = None


@dataclasses.dataclass(slots=True)
class Slotted:
    x: int = 0
    y: int | None = None


@pytest.mark.parametrize(
    ("schema", "update"),
    [(Model, Model(x=2)), (Slotted, Slotted(x=2, y=3))],
    ids=["pydantic-unset-none", "slots-dataclass"],
)
def test_an_input_update_given_as_a_state_object_writes_its_set_fields(
    schema: Any, update: Any
) -> None:
    """As a node's ``Command(update=...)``: a pydantic field left at its None default
    is not written; a slots dataclass (no ``__dict__``) is read by its annotations."""
    seen = []
    for load in LIBS:
        lib = load()
        with SAVERS["memory"](lib.name) as saver:
            app = _counter(lib, saver, schema, lambda state: {})
            _run(lib, app, {"x": 1, "y": 5}, _thread())
            result = _run(lib, app, lib.Command(update=update), _thread())
            seen.append(
                (result.x, result.y) if hasattr(result, "x") else (result["x"], result["y"])
            )
    assert seen[0] == seen[1]
    assert seen[1] == ((2, 5) if schema is Model else (2, 3))
