"""Graph lifecycle callbacks (``langgraph.callbacks``, LangGraph's test_graph_callbacks.py):
a ``GraphCallbackHandler`` in the config hears ``on_interrupt`` when a root run pauses and
``on_resume`` when a run (or a subgraph) resumes a saved checkpoint; the same events, in
the same order, with the same fields, on both libraries."""

from __future__ import annotations

import asyncio
import importlib
import re
from typing import Any, TypedDict

import pytest

pytest.importorskip("langchain_core")

from langchain_core.callbacks.base import BaseCallbackHandler
from langchain_core.callbacks.manager import CallbackManager

from .harness import Lib, load_graphkit, load_langgraph
from .scenarios import SAVERS


class State(TypedDict):
    answer: Any


class Plain(BaseCallbackHandler):
    """A LangChain handler that is no graph handler: it must hear no lifecycle event."""

    run_inline = True

    def __init__(self) -> None:
        self.events: list[str] = []

    def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
        self.events.append(name)


class RunIds(BaseCallbackHandler):
    """The graph runs' own chain run ids, to check the events' ``run_id``."""

    run_inline = True

    def __init__(self) -> None:
        self.root: list[str] = []

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: Any, **kwargs: Any) -> None:
        if kwargs.get("parent_run_id") is None:
            self.root.append(str(run_id))


def names(lib: Lib) -> Any:
    """The library's callbacks module, and the handler classes a test needs from it."""
    module = importlib.import_module(f"{lib.name}.callbacks")
    types = importlib.import_module(f"{lib.name}.types")

    class Heard(module.GraphCallbackHandler):
        def __init__(self) -> None:
            self.events: list[Any] = []

        def on_interrupt(self, event: Any) -> None:
            self.events.append(event)

        def on_resume(self, event: Any) -> None:
            self.events.append(event)

    class Raising(module.GraphCallbackHandler):
        def __init__(self, raise_error: bool) -> None:
            self.raise_error = raise_error

        def on_interrupt(self, event: Any) -> None:
            raise ValueError("boom-interrupt")

        def on_resume(self, event: Any) -> None:
            raise ValueError("boom-resume")

    class AsyncRaising(module.GraphCallbackHandler):
        def __init__(self, raise_error: bool) -> None:
            self.raise_error = raise_error

        async def on_interrupt(self, event: Any) -> None:
            raise ValueError("boom-interrupt")

        async def on_resume(self, event: Any) -> None:
            raise ValueError("boom-resume")

    Raising.async_twin = AsyncRaising

    class AsyncHeard(module.GraphCallbackHandler):
        def __init__(self) -> None:
            self.events: list[Any] = []

        async def on_interrupt(self, event: Any) -> None:
            self.events.append(event)

        async def on_resume(self, event: Any) -> None:
            self.events.append(event)

    return module, types, Heard, Raising, AsyncHeard


def shown(events: list[Any], run_ids: RunIds, checkpoints: dict[str, str]) -> list[Any]:
    """Events without ids: the run id as "root", "own" (a subgraph's run) or None, the
    checkpoint as its step and source, a namespace without task ids."""
    rows = []
    for event in events:
        run = "root" if str(event.run_id) in run_ids.root else "own" if event.run_id else None
        row = [type(event).__name__, event.status, run, checkpoints.get(event.checkpoint_id, "?")]
        row.append(tuple(re.sub(r":.*", ":<id>", part) for part in event.checkpoint_ns))
        if hasattr(event, "interrupts"):
            row.append([(type(i).__name__, i.value) for i in event.interrupts])
        rows.append(row)
    return rows


def interrupt_graph(lib: Lib, saver: Any, *, subgraph: bool = False, **compiled: Any) -> Any:
    interrupt = importlib.import_module(f"{lib.name}.types").interrupt
    ask = lib.StateGraph(State).add_node("ask", lambda state: {"answer": interrupt("value?")})
    ask = ask.add_edge(lib.START, "ask")
    if not subgraph:
        return ask.compile(checkpointer=saver, **compiled)
    builder = lib.StateGraph(State).add_node("pre", lambda state: {"answer": "pre"})
    builder = builder.add_node("sub", ask.compile()).add_edge(lib.START, "pre")
    return builder.add_edge("pre", "sub").compile(checkpointer=saver, **compiled)


def lifecycle(lib: Lib, run: str, saver_kind: str) -> list[Any]:
    """A pause and its resume, heard by a graph handler beside a plain one."""
    _module, types, Heard, _, AsyncHeard = names(lib)
    seen: list[Any] = []
    with SAVERS[saver_kind](lib.name) as saver:
        app = interrupt_graph(lib, saver, subgraph=run == "subgraph")
        handler = AsyncHeard() if run == "async handler" else Heard()
        plain, run_ids = Plain(), RunIds()
        config = {"configurable": {"thread_id": "t"}, "callbacks": [plain, handler, run_ids]}
        for given in ({"answer": None}, types.Command(resume="done"), {"answer": "x"}, None):
            if run in ("ainvoke", "async handler"):
                result = asyncio.run(app.ainvoke(given, config))
            elif run == "stream":
                result = list(app.stream(given, config, stream_mode="updates"))
            else:
                result = app.invoke(given, config)
            seen.append(re.sub(r"id='\w+'", "id=…", repr(result)))
        history = app.get_state_history({"configurable": {"thread_id": "t"}})
        checkpoints = {
            h.config["configurable"][
                "checkpoint_id"
            ]: f"{h.metadata['step']} {h.metadata['source']}"
            for h in history
        }
        return [*seen, shown(handler.events, run_ids, checkpoints), plain.events]


@pytest.mark.parametrize(
    ("run", "saver"),
    [
        *[(run, saver) for run in ("invoke", "stream", "subgraph") for saver in SAVERS],
        ("ainvoke", "memory"),  # (LangGraph's SqliteSaver has no async methods)
        ("async handler", "memory"),
    ],
)
def test_a_pause_and_its_resume_are_heard_as_in_langgraph(run, saver):
    assert lifecycle(load_graphkit(), run, saver) == lifecycle(load_langgraph(), run, saver)


def breakpoints(lib: Lib) -> list[Any]:
    """A breakpoint's pause says which one (no interrupts); an update then a resume."""
    _, _, Heard, _, _ = names(lib)
    with SAVERS["memory"](lib.name) as saver:
        builder = lib.StateGraph(State).add_node("a", lambda state: {"answer": 1})
        builder = builder.add_node("b", lambda state: {"answer": 2}).add_edge(lib.START, "a")
        builder = builder.add_edge("a", "b")
        rows = []
        for where in ("interrupt_before", "interrupt_after"):
            app = builder.compile(
                checkpointer=saver, **{where: ["b" if "before" in where else "a"]}
            )
            handler, run_ids = Heard(), RunIds()
            config = {"configurable": {"thread_id": where}, "callbacks": [handler, run_ids]}
            app.invoke({"answer": 0}, config)
            app.update_state(config, {"answer": 7})
            rows.append(app.invoke(None, config))
            history = app.get_state_history(config)
            checkpoints = {
                h.config["configurable"][
                    "checkpoint_id"
                ]: f"{h.metadata['step']} {h.metadata['source']}"
                for h in history
            }
            rows.append(shown(handler.events, run_ids, checkpoints))
        return rows


def test_a_breakpoint_is_heard_with_its_status():
    assert breakpoints(load_graphkit()) == breakpoints(load_langgraph())


def raising(lib: Lib, raise_error: bool, handler: str, run: str) -> list[Any]:
    """A handler that raises: logged and the run goes on, unless it sets raise_error
    (then the run raises, a resume before its task runs). An ``async def`` handler's
    error reaches only an async run (langchain-core's sync dispatch logs it)."""
    _, types, Heard, Raising, _ = names(lib)
    with SAVERS["memory"](lib.name) as saver:
        app = interrupt_graph(lib, saver)
        after = Heard()
        # (inline: a handler beside one that raises runs in an executor thread in an async
        # run, in both libraries, and the run may end before that thread starts it)
        after.run_inline = True
        raiser = (Raising if handler == "sync" else Raising.async_twin)(raise_error)
        config = {"configurable": {"thread_id": "t"}, "callbacks": [raiser, after]}
        rows = []
        for given in ({"answer": None}, types.Command(resume="done")):
            try:
                if run == "ainvoke":
                    rows.append(sorted(asyncio.run(app.ainvoke(given, config))))
                else:
                    rows.append(sorted(app.invoke(given, config)))
            except ValueError as error:
                rows.append(("ValueError", str(error)))
        rows.append(app.get_state(config).values)
        rows.append([type(event).__name__ for event in after.events])
        return rows


@pytest.mark.parametrize("run", ["invoke", "ainvoke"])
@pytest.mark.parametrize("handler", ["sync", "async"])
@pytest.mark.parametrize("raise_error", [False, True])
def test_a_handler_that_raises_is_logged_unless_it_asks_to_raise(raise_error, handler, run):
    assert raising(load_graphkit(), raise_error, handler, run) == raising(
        load_langgraph(), raise_error, handler, run
    )


def managers(lib: Lib) -> list[Any]:
    """Callbacks given as a LangChain CallbackManager; the module's own managers."""
    module, _, Heard, _, _ = names(lib)
    with SAVERS["memory"](lib.name) as saver:
        app = interrupt_graph(lib, saver)
        handler = Heard()
        manager = CallbackManager.configure(inheritable_callbacks=[Plain()])
        manager.add_handler(handler)
        app.invoke({"answer": None}, {"configurable": {"thread_id": "t"}, "callbacks": manager})
    graph_manager = module.get_sync_graph_callback_manager_for_config(
        {"callbacks": [Plain(), Heard()]}
    )
    plain = Plain()
    graph_manager.add_handler(plain, inherit=True)  # (as an instrumentation library does)
    try:
        module.get_async_graph_callback_manager_for_config({"callbacks": "bad"})
    except TypeError as error:  # (the class; graphkit's message says what to give)
        refused = type(error).__name__
    return [
        [type(event).__name__ for event in handler.events],
        [type(h).__name__ for h in graph_manager.handlers],
        plain in graph_manager.handlers,
        graph_manager.run_id,
        refused,
        sorted(module.__all__),
        list(module.GraphInterruptEvent.__dataclass_fields__),
        list(module.GraphResumeEvent.__dataclass_fields__),
        repr(module.GraphResumeEvent(None, "pending", "c", ())),
        issubclass(module.GraphCallbackHandler, BaseCallbackHandler),
    ]


def test_callback_managers_and_the_modules_names_are_langgraphs():
    assert managers(load_graphkit()) == managers(load_langgraph())
