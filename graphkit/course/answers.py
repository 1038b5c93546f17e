"""What a check says about the learner's graph: compile it (``compiled``), run it
(``trace``), turn a failed run into a ``Wrong`` that names the step, node and key
(``failed_run``), the words a verdict counts in (``counted``, ``no_nodes``,
``ran_again``, ``ran_at``), the number an answer means (``whole_number``), and the
learner's coroutine run on a loop of its own (``run_apart``)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import threading
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from graphkit.constants import START
from graphkit.course.verdicts import Wrong
from graphkit.diagnostics.reading import whole_number_in
from graphkit.inspect.values import join_names

__all__ = [
    "compiled",
    "counted",
    "failed_run",
    "no_nodes",
    "ran_again",
    "ran_at",
    "refuse_unread_stream",
    "run_apart",
    "trace",
    "whole_number",
]


def counted(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless there is one (a verdict says "1 turn" and
    "0 turns", never "turn(s)").

    >>> counted(1, "turn"), counted(0, "turn"), counted(3, "push task")
    ('1 turn', '0 turns', '3 push tasks')
    """
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def no_nodes(missing: list[str]) -> str:
    """The nodes a learner's graph lacks, in words (it read "no node 'count_words',
    'write_report'").

    >>> no_nodes(["peek"]), no_nodes(["count_words", "write_report"])
    ("no node 'peek'", "no nodes 'count_words' and 'write_report'")
    """
    names = [repr(name) for name in missing]
    return f"no node {names[0]}" if len(names) == 1 else f"no nodes {join_names(names)}"


def ran_again(node: str, count: int) -> str:
    """How many more times ``node`` ran, in words.

    >>> ran_again("clean", 0), ran_again("clean", 1), ran_again("clean", 2)
    ('clean did not run again', 'clean ran once more', 'clean ran 2 more times')
    """
    if count == 0:
        return f"{node} did not run again"
    return f"{node} ran once more" if count == 1 else f"{node} ran {count} more times"


def whole_number(answer: Any) -> int | None:
    """The whole number ``answer`` means when a learner writes one: an int, a float with
    nothing after the point, or its text read off a table; None for anything else (a
    bool too, though ``True == 1``).

    >>> whole_number(3), whole_number(3.0), whole_number(" -1")
    (3, 3, -1)
    >>> whole_number("step 3"), whole_number(True), whole_number(2.5)
    (None, None, None)
    >>> whole_number("--1") is None
    True
    """
    if isinstance(answer, bool):
        return None
    if isinstance(answer, int):
        return answer
    return whole_number_in(answer)


def ran_at(run: Any, node: str) -> list[int]:
    """The steps at which ``node`` ran in ``run`` (a ``Run`` from ``trace``), in order;
    a step that ran it several times (a ``Send`` each) is listed once. What a check
    says about when a node ran, in the runtime's own step numbers.

    >>> from graphkit import START, StateGraph
    >>> builder = StateGraph(dict).add_node("a", lambda s: {})
    >>> builder = builder.add_node("b", lambda s: {})
    >>> app = builder.add_edge(START, "a").add_edge("a", "b").compile()
    >>> ran_at(app.trace({}), "b"), ran_at(app.trace({}), "c")
    ([2], [])
    """
    return [step.step for step in run.steps if node in step.plan.nodes]


def refuse_unread_stream(returned: Any) -> None:
    """``Wrong`` when an answer returned a stream it never read (``return app.stream(...)``):
    a stream runs the graph only as it is read, so nothing ran, and a verdict about the
    thread would speak of what the answer did not do.

    >>> refuse_unread_stream(iter([]))  # (an iterator that is no generator: left alone)
    """
    if inspect.isgenerator(returned) and inspect.getgeneratorstate(returned) == "GEN_CREATED":
        returned.close()
        raise Wrong(
            "Your function returned app.stream(...) unread: a stream runs the graph only "
            "as it is read, so nothing ran.",
            "Read it to the end, e.g. list(app.stream(...)), or use app.invoke(...).",
        )


def compiled(answer: Any, what: str = "your graph") -> Any:
    """The compiled graph behind ``answer``: a compiled graph, a ``StateGraph`` (compiled
    here), or a function of no arguments returning either. Anything else is ``Wrong``."""
    from graphkit.graph.state import StateGraph
    from graphkit.pregel.app import CompiledGraph

    if isinstance(answer, type):  # (called below, it raised the class's own TypeError)
        raise Wrong(
            f"Got the class {answer.__name__} itself as {what}: pass the graph you built from it.",
            "Pass the builder (or builder.compile(), or a function that returns it).",
        )
    if callable(answer) and not isinstance(answer, (CompiledGraph, StateGraph)):
        answer = answer()
    if isinstance(answer, StateGraph):
        answer = answer.compile()
    if type(answer).__module__.partition(".")[0] == "langgraph":
        # (its class is named StateGraph too: "expected a StateGraph, got StateGraph")
        raise Wrong(
            f"Got LangGraph's {type(answer).__name__} (from {type(answer).__module__}) as "
            f"{what}: the checks read the records graphkit makes of a run.",
            "Import from graphkit instead of langgraph, with the same names: from graphkit "
            "import StateGraph, START, END (graphkit.prebuilt for create_react_agent).",
        )
    if not isinstance(answer, CompiledGraph):
        raise Wrong(
            f"Expected {what} to be a StateGraph or a compiled graph, got {type(answer).__name__}.",
            "Pass the builder (or builder.compile(), or a function that returns it).",
        )
    return answer


def trace(app: Any, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
    """``app.trace(input)``, with a failure turned into ``Wrong`` that names the step and
    the node that failed, so the learner sees where their graph broke."""
    try:
        return app.trace(input, config, **kwargs)
    except Exception as error:
        raise failed_run(app, error) from error


def run_apart(make: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """Run the coroutine ``make()`` returns on an event loop of its own, in a thread of
    its own: a notebook's kernel already runs a loop in this one. If the wait is cut
    short (the check's time limit), the run is cancelled, not left going on that loop."""
    done: concurrent.futures.Future[Any] = concurrent.futures.Future()
    running: list[tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]]] = []

    async def main() -> Any:
        task = asyncio.current_task()
        assert task is not None  # (a coroutine run by asyncio.run runs in a task)
        running.append((asyncio.get_running_loop(), task))
        return await make()

    def work() -> None:
        try:
            done.set_result(asyncio.run(main()))
        except BaseException as error:  # handed to the check, raised there
            done.set_exception(error)

    threading.Thread(target=work, name="course-check", daemon=True).start()
    try:
        return done.result()
    except BaseException:
        for loop, task in running:
            if not done.done():
                loop.call_soon_threadsafe(task.cancel)
        raise


def failed_run(app: Any, error: BaseException) -> Wrong:
    """The ``Wrong`` for a run of ``app`` that raised ``error``: the step and node that
    failed, the runtime's notes (a router, a reducer), and for a key read before anything
    wrote it, who read it and what the step before wrote."""
    run = getattr(error, "run", None)
    # The runtime's notes say where inside the step (a router, a reducer); the note
    # naming the task by its id says nothing a learner can use.
    notes = [n for n in getattr(error, "__notes__", ()) if not n.startswith("During task")]
    where, failed, reader = "", [], None  # reader: the learner's function, if no node
    if run is not None and run.steps:
        last = run.steps[-1]
        errors = [
            r for r in (last.execution.results if last.execution else ()) if r.error is not None
        ]
        # a sibling cancelled because the step stopped is not where the learner looks
        causes = [r for r in errors if not isinstance(r.error, _CANCELLED)] or errors
        failed = [r.task.node for r in causes]
        shown = list(failed)
        function = _raised_in(error)
        named = function in shown or any(f" {function} " in note for note in notes)
        if shown and function and not named:
            shown[-1] += f", in {function}"  # (a router runs in its source's task)
        if failed and function and function not in failed:
            reader = function
        elif failed and function is None and any(n.startswith(_ROUTER) for n in notes):
            # (a lambda: no name to give; START's task is no node the learner added)
            reader = "the router from START" if failed[0] == START else f"the router of {failed[0]}"
        where = f" in step {last.step}" + (f" (node {', '.join(shown)})" if shown else "")
        if last.update is not None and not failed:  # (the recursion limit: checked at a Plan)
            where = f" after step {last.step}"
    text = str(error)
    if isinstance(error, KeyError) and _explained_by_graphkit(error):
        text = str(error.args[0])  # (a sentence of graphkit's, not a key: no quotes)
    message = f"Running your graph raised {type(error).__name__}{where}: {text}"
    message = "\n".join([message, *notes])
    router = any(n.startswith(_ROUTER) for n in notes)
    unset = _read_before_written(app, run, error, failed, reader, router) if run else None
    if unset is not None:
        return Wrong(f"{message}\n{unset[0]}", unset[1])
    # A generic hint only where the message leaves the learner without a lead: graphkit's
    # own errors say what to change (a key missing from a path map), and an error raised
    # in the learner's function is named with it (a tool's KeyError 'rome').
    if _explained_by_graphkit(error) or _raised_in(error) is not None:
        return Wrong(message)
    return Wrong(message, "Run it yourself with app.trace(...) and look at the last superstep.")


_CANCELLED = (asyncio.CancelledError, concurrent.futures.CancelledError)
_ROUTER = "Raised by the router "  # (the runtime's note: diagnostics.returns.raised_by_router)


def _raised_compiling(error: BaseException) -> bool:
    """Whether ``error`` was raised by ``StateGraph.compile`` (the check's call or the
    learner's own): an unknown node in a path map, an interrupt before no node."""
    from graphkit.graph.state import StateGraph

    code = StateGraph.compile.__code__
    frame = error.__traceback__
    while frame is not None and frame.tb_frame.f_code is not code:
        frame = frame.tb_next
    return frame is not None


def _explained_by_graphkit(error: BaseException) -> bool:
    """Whether a ``raise`` of graphkit's raised ``error`` with a message of its own (a
    sentence, which says what to change): not a bare key its state lookup could not
    find, nor Python's own error from an operation in graphkit's code (``unhashable
    type: 'list'`` for a list given where a node's name goes), which says no fix."""
    import linecache
    from pathlib import Path

    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    if frame is None or not error.args or " " not in str(error.args[0]):
        return False
    path = frame.tb_frame.f_code.co_filename
    if not Path(path).is_relative_to(Path(__file__).parent.parent):
        return False
    return linecache.getline(path, frame.tb_lineno).lstrip().startswith("raise ")


def _raised_in(error: BaseException) -> str | None:
    """The name of the innermost function of the learner's that ``error`` went through:
    not graphkit's, nor the standard library's or an installed package's."""
    import sysconfig
    from pathlib import Path

    library = [Path(__file__).parent.parent]
    library += [Path(sysconfig.get_path(name)) for name in ("stdlib", "platstdlib", "purelib")]
    name = None
    frame = error.__traceback__
    while frame is not None:
        code = frame.tb_frame.f_code
        path = Path(code.co_filename)
        # (a lambda's "<lambda>" names nothing the learner can find: its node is named)
        if code.co_name.isidentifier() and not any(path.is_relative_to(f) for f in library):
            name = code.co_name
        frame = frame.tb_next
    return name


def _read_before_written(
    app: Any,
    run: Any,
    error: BaseException,
    failed: list[str],
    reader: str | None = None,
    router: bool = False,
) -> tuple[str, str] | None:
    """For a ``KeyError`` on a state key that had no value yet when the step began: what
    happened (who wrote what in the step before) and a hint; else None. ``reader``: the
    learner's function that read it, when that is not the node (a router); ``router``:
    whether the runtime said a router raised it."""
    key = error.args[0] if isinstance(error, KeyError) and len(error.args) == 1 else None
    if not isinstance(key, str) or not run.steps or len(failed) != 1:
        return None
    keys, last = getattr(app.spec, "state_keys", ()), run.steps[-1]
    who = reader or failed[0]
    if _dropped_from_input(run, key):
        return _input_dropped(key, who, declared=key in keys, schema=_input_schema(app))
    if key not in keys or key in last.checkpoint_before.channel_values:
        return None  # (it had a value: the KeyError came from elsewhere)
    before = [s for s in run.steps if s.step == last.step - 1 and s.execution]
    wrote = [
        f"{r.task.node} wrote {', '.join(c for c, _ in r.writes if c in keys) or 'nothing'}"
        f"{_and_dropped(r)}"
        for s in before
        for r in s.execution.results
        if r.task.node in app.spec.nodes and not r.task.node.startswith("__")
    ]
    earlier = f" (step {last.step - 1}: {'; '.join(wrote)})" if wrote else ""
    fix = f"Make sure a node that returns {{{key!r}: ...}} runs in a step before {failed[0]}."
    if failed[0] == START:  # (no node runs before it: only the input can give the key)
        fix = f"A router from START sees only the input: give {key!r} in the input, or "
        fix += "route from a node that returns it."
    elif router:  # (it also sees what its node just returned: a loop's key set later)
        return (
            f"{who} read state[{key!r}], but {key} had no value yet in step {last.step}: "
            f"neither the input, nor a node before it{earlier}, nor {failed[0]} itself in "
            f"this step wrote {key}.",
            f"A router sees what earlier steps wrote and what {failed[0]} just returned. "
            f"If {key} is written only later (a loop's last round), read it with "
            f"state.get({key!r}), which gives None until then; otherwise {fix[0].lower()}"
            f"{fix[1:]}",
        )
    return (
        f"{who} read state[{key!r}], but {key} had no value yet when step "
        f"{last.step} began: neither the input nor a node before it wrote {key}{earlier}.",
        "A node changes the state only through the dict it returns (changing `state` in "
        f"place is not kept), and it sees what earlier steps returned. {fix}",
    )


def _and_dropped(result: Any) -> str:
    """`` and dropped wrods: not a key of the graph's state`` for a task whose node
    returned keys the state lacks (a misspelt key reads as "wrote nothing" otherwise,
    while the node plainly returns it), as ``print(run)`` says; else ""."""
    from graphkit.inspect.dropped import dropped_keys

    dropped = dropped_keys(result)
    return f" and {dropped.text()}" if dropped is not None else ""


def _dropped_from_input(run: Any, key: str) -> bool:
    """Whether the run's input gave ``key`` and step 0 did not copy it into the state
    (the input schema has no such key)."""
    given = [
        value
        for s in run.steps
        if s.step == -1 and s.execution
        for r in s.execution.results
        for channel, value in r.writes
        if channel == START
    ]
    copied = [
        channel
        for s in run.steps
        if s.step == 0 and s.execution
        for r in s.execution.results
        if r.task.node == START
        for channel, _ in r.writes
    ]
    return any(isinstance(v, Mapping) and key in v for v in given) and key not in copied


def _input_schema(app: Any) -> str:
    """``the input schema``, naming the state schema when the graph was given no
    ``input_schema=`` (a learner who never wrote one reads which schema it is)."""
    builder = getattr(app, "builder", None)
    state = getattr(builder, "state_schema", None)
    if state is None or getattr(builder, "input_schema", None) is not state:
        return "the input schema"
    name = getattr(state, "__name__", repr(state))
    return f"the input schema, here the state schema {name} (no input_schema= was given),"


def _input_dropped(key: str, who: str, declared: bool, schema: str) -> tuple[str, str]:
    """What a reader of ``key`` met when the input gave it and step 0 did not copy it
    into the state: the input schema (``schema``, as a phrase), or every schema, has no
    such key."""
    if declared:
        return (
            f"{who} read state[{key!r}], but {key} never reached the state: the input "
            f"gave {key}, but {schema} has no key {key!r}, so step 0 (__start__) "
            "did not copy it into the state.",
            "Step 0 copies into the state only the keys of the input schema "
            "(input_schema=..., or the state schema when there is none): keep "
            f"{key!r} in it.",
        )
    return (
        f"{who} read state[{key!r}], but the state has no key {key!r}: the input gave "
        f"{key}, but no schema of the graph declares it, so step 0 (__start__) dropped it.",
        "The state keeps only the keys its schemas declare (the state schema, and the "
        f"schemas nodes are annotated with): add {key!r} to the state schema.",
    )
