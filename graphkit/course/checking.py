"""Checked exercises: a check runs the learner's answer on the real runtime and says
*what* is wrong, with a hint, instead of a bare ``False``.

A check is a function decorated with ``exercise(title)``. Inside it, ``Wrong(message,
hint)`` fails the exercise with a message that names what the runtime saw (the step,
the node, the channel); returning a string passes it with that string as praise. The
decorated function returns a ``Verdict``, which shows itself in a notebook as a blue or
an orange-red box and is truthy only when the exercise passed.

>>> @exercise("0.1 · Return forty-two")
... def answer_is_42(value):
...     if value != 42:
...         raise Wrong(f"You returned {value!r}.", hint="The answer is 6 × 7.")
...     return "42 it is."
>>> answer_is_42(41)
✗ 0.1 · Return forty-two: You returned 41.
  hint: The answer is 6 × 7.
>>> bool(answer_is_42(42)), answer_is_42(42).message
(True, '42 it is.')
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import re
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphkit.constants import START
from graphkit.inspect.markup import escape

__all__ = [
    "TIME_LIMIT",
    "Verdict",
    "Wrong",
    "compiled",
    "counted",
    "exercise",
    "failed_run",
    "ran_again",
    "ran_at",
    "trace",
]

TIME_LIMIT = 15.0
"""Seconds a check may run before it fails as an answer that never finishes. Every
check takes well under a second on the course's solutions; a learner's loop that never
ends (a ``while`` whose condition never changes) would otherwise hang the cell."""


class Wrong(Exception):
    """Raised inside a check: the answer is wrong, for the reason ``message``; ``hint``
    points the learner at the fix without giving the answer away."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


@dataclass(frozen=True)
class Verdict:
    """The outcome of one exercise check: passed or not, what the check found, and a
    hint when it did not pass."""

    exercise: str
    passed: bool
    message: str
    hint: str = ""
    check_error: BaseException | None = field(default=None, repr=False, compare=False)
    """The exception the check's own code raised, when the check itself failed (see
    ``exercise``); None for any verdict on the answer. Its traceback says where."""

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        mark = "✓" if self.passed else "✗"
        text = f"{mark} {self.exercise}: {self.message}"
        return f"{text}\n  hint: {self.hint}" if self.hint else text

    def _repr_html_(self) -> str:
        outcome = "pass" if self.passed else "fail"
        mark = "✓ Correct" if self.passed else "✗ Not yet"
        color = "#0072b2" if self.passed else "#d55e00"
        if self.check_error is not None:  # (not the learner's: no "Not yet" in vermillion)
            mark, color = "⚠ The check failed", "#999999"
        hint = (
            f'<div class="gk-verdict-hint" style="white-space:pre-wrap"><b>Hint:</b> '
            f"{_markup(self.hint)}</div>"
            if self.hint
            else ""
        )
        return (
            f'<div class="gk-verdict gk-verdict-{outcome}" style="border-left:4px solid '
            f"{color};padding:6px 10px;margin:4px 0;"
            "overflow-wrap:anywhere;"
            f'background:rgba(127,127,127,0.08)">'
            f"<b>{mark}</b> · {_markup(self.exercise)}"
            f'<div class="gk-verdict-message" style="white-space:pre-wrap">'
            f"{_markup(self.message)}</div>{hint}</div>"
        )


def _markup(text: str) -> str:
    """Escaped text with `code` spans shown as code, as in the lessons' prose."""
    return re.sub(r"`([^`\n]+)`", r"<code>\1</code>", escape(text))


def exercise(
    title: str, time_limit: float | None = None
) -> Callable[[Callable[..., str | None]], Callable[..., Verdict]]:
    """Turn ``check(answer, ...)`` into a function that returns a ``Verdict``.

    The check raises ``Wrong`` to fail; any other exception raised while running the
    learner's code fails the exercise too, naming the exception, rather than escaping
    into the notebook as a traceback. An exception of the check's own code (a typo, an
    index past the end of a list) is said to be the check's, not the learner's: the
    verdict names the check's line and keeps the exception as ``check_error``. An
    ``assert`` in the check fails the answer, with the assertion's message.

    ``time_limit``: seconds the check may run (default ``TIME_LIMIT``, read at each call).

    >>> @exercise("0.2 · First word", time_limit=5)
    ... def check_first(first):
    ...     words = first("the cat sat").split()
    ...     return f"{words[1]!r} comes next."
    >>> verdict = check_first(lambda text: text.split()[0])
    >>> verdict.message.partition(" (at ")[0], type(verdict.check_error).__name__
    ('The check itself raised IndexError: list index out of range', 'IndexError')
    """

    def decorate(check: Callable[..., str | None]) -> Callable[..., Verdict]:
        @functools.wraps(check)
        def run_check(*args: Any, **kwargs: Any) -> Verdict:
            limit = TIME_LIMIT if time_limit is None else time_limit
            try:
                with _time_limit(limit):
                    praise = check(*args, **kwargs)
            except _OutOfTime:
                return Verdict(
                    title,
                    False,
                    f"Your code was still running after {limit:g} seconds, so the "
                    "check stopped it.",
                    "Look for a loop that never ends: a while whose condition never "
                    "changes, or a function that calls itself. Run your answer on its "
                    "own in a cell to see where it spends its time.",
                )
            except Wrong as wrong:
                return Verdict(title, False, wrong.message, wrong.hint)
            except Exception as error:
                own = _check_failed(title, check, error, [*args, *kwargs.values()])
                if own is not None:
                    return own
                # the learner's code failed: say how, don't crash
                # (compile() checks the whole graph: the learner's code did not raise it)
                who = "Compiling your graph" if _raised_compiling(error) else "Your code"
                return Verdict(
                    title,
                    False,
                    f"{who} raised {type(error).__name__}: {error}",
                    # (graphkit's own errors, a path map's None, already say the fix)
                    ""
                    if _explained_by_graphkit(error)
                    else "Run your answer on its own in a cell and read the error; "
                    "fix it, then check again.",
                )
            return Verdict(title, True, praise or "Correct.")

        run_check.exercise = title  # type: ignore[attr-defined]
        return run_check

    return decorate


def _check_line(check: Callable[..., Any], error: BaseException, answers: list[Any]) -> Any:
    """The innermost traceback entry in ``check``'s own source file, when the check
    itself raised ``error``: from the check inward, the traceback went only through
    that file, graphkit.course's helpers, the records and the standard library or an
    installed package (called by the check) — never through the learner's code (a
    function in ``answers``, or any other file) nor graphkit's runtime (building or
    running a graph, which runs the answer). None when the error is the answer's."""
    import sysconfig
    from pathlib import Path

    package = Path(__file__).parent.parent
    readers = [package / "course", package / "inspect", package / "pregel" / "records.py"]
    python = [Path(sysconfig.get_path(name)) for name in ("stdlib", "platstdlib", "purelib")]
    learners = {
        getattr(getattr(answer, "__func__", answer), "__code__", None) for answer in answers
    }
    own, line = check.__code__.co_filename, None
    entry = error.__traceback__.tb_next if error.__traceback__ else None  # (past run_check)
    while entry is not None:
        code = entry.tb_frame.f_code
        path = Path(code.co_filename)
        if code in learners:
            return None
        if code.co_filename == own:
            line = entry
        elif path.is_relative_to(package):
            if not any(path.is_relative_to(reader) for reader in readers):
                return None  # (graphkit's runtime, running or building the answer)
        elif not any(path.is_relative_to(folder) for folder in python):
            return None  # (a file of the learner's: a notebook cell, a module)
        entry = entry.tb_next
    return line


def _uses_answer(entry: Any, answers: list[Any]) -> bool:
    """Whether the expression that raised at traceback ``entry`` reads a variable that
    holds one of ``answers``: ``merge(old, new)`` for a ``merge`` taking one argument,
    ``None(...)`` for a stub's None, ``app.get_state`` for a function given as an app."""
    import dis

    code = entry.tb_frame.f_code
    failing = list(code.co_positions())[entry.tb_lasti // 2]
    if None in failing:
        return False
    first, last = (failing[0], failing[2]), (failing[1], failing[3])
    read = {
        instruction.argval
        for instruction in dis.get_instructions(code)
        if instruction.opname.startswith(("LOAD_FAST", "LOAD_DEREF", "LOAD_NAME", "LOAD_GLOBAL"))
        and None not in instruction.positions
        and first <= (instruction.positions[0], instruction.positions[2])
        and (instruction.positions[1], instruction.positions[3]) <= last
    }
    values = {**entry.tb_frame.f_globals, **entry.tb_frame.f_locals}
    return any(values[name] is answer for name in read & values.keys() for answer in answers)


def _check_failed(
    title: str, check: Callable[..., Any], error: BaseException, answers: list[Any]
) -> Verdict | None:
    """The verdict for ``error`` when the check's own code raised it: an ``assert`` of
    the check's fails the answer; anything else is the check's mistake. None when the
    error is the answer's, or the line that raised used the answer itself."""
    import linecache
    from pathlib import Path

    entry = _check_line(check, error, answers)
    if entry is None:
        return None
    code = entry.tb_frame.f_code
    source = linecache.getline(code.co_filename, entry.tb_lineno).strip()
    if isinstance(error, AssertionError) and entry.tb_next is None and source.startswith("assert"):
        return Verdict(title, False, str(error) or f"Your answer failed the check's `{source}`.")
    if _uses_answer(entry, answers):
        return None  # (calling a learner's function with the wrong arguments, say)
    name = Path(code.co_filename).name
    where = "its notebook cell" if "ipykernel_" in code.co_filename else name
    if code.co_filename.startswith("<"):
        where = code.co_filename
    return Verdict(
        title,
        False,
        f"The check itself raised {type(error).__name__}: {error} (at {where}, line "
        f"{entry.tb_lineno}, in {code.co_name}{f': `{source}`' if source else ''}). "
        "This is a mistake in the "
        "check, not in your code: it stopped before it could judge your answer.",
        "Show this to your instructor. (Instructor: "
        "`traceback.print_exception(verdict.check_error)` prints the traceback.)",
        check_error=error,
    )


class _OutOfTime(BaseException):
    """Raised in the learner's code when a check runs past ``TIME_LIMIT``. Not an
    ``Exception``: the runtime must not take it for a node's failure (and retry it)."""


@contextlib.contextmanager
def _time_limit(seconds: float) -> Any:
    """Raise ``_OutOfTime`` in the main thread after ``seconds``, where a timer signal
    can (POSIX, the main thread: a notebook kernel runs cells there), and in the tasks
    the check started on a worker thread (a node beside another runs there, out of the
    signal's reach). No limit elsewhere, nor when someone else's alarm is already set
    (pytest-timeout, say): it is theirs."""
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
        or signal.getitimer(signal.ITIMER_REAL)[0] > 0
        or signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, signal.SIG_IGN, None)
    ):
        yield
        return

    running = _pool_tasks()  # (someone else's: left alone)

    def ring(signum: int, frame: Any) -> None:
        for thread, task in _pool_tasks().items():
            if running.get(thread) is not task:
                _raise_in(thread)
        raise _OutOfTime()

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _pool_tasks() -> dict[int, Any]:
    """The threads running a graph's task on a pool, each with that task's frame."""
    from graphkit.pregel import step_work

    code = step_work._run_on_pool.__code__
    running = {}
    for thread, frame in sys._current_frames().items():
        while frame is not None and frame.f_code is not code:
            frame = frame.f_back
        if frame is not None:
            running[thread] = frame
    return running


def _raise_in(thread: int) -> None:
    """Raise ``_OutOfTime`` in ``thread`` at its next Python instruction (a loop in C, a
    long ``sleep``, sees it only when it returns to Python). The task ends with it as
    its error; nobody reads that, the check has given its verdict."""
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread), ctypes.py_object(_OutOfTime))


def counted(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless there is one (a verdict says "1 turn" and
    "0 turns", never "turn(s)").

    >>> counted(1, "turn"), counted(0, "turn"), counted(3, "push task")
    ('1 turn', '0 turns', '3 push tasks')
    """
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def ran_again(node: str, count: int) -> str:
    """How many more times ``node`` ran, in words.

    >>> ran_again("clean", 0), ran_again("clean", 1), ran_again("clean", 2)
    ('clean did not run again', 'clean ran once more', 'clean ran 2 more times')
    """
    if count == 0:
        return f"{node} did not run again"
    return f"{node} ran once more" if count == 1 else f"{node} ran {count} more times"


def ran_at(run: Any, node: str) -> list[int]:
    """The steps at which ``node`` ran in ``run`` (a ``Run`` from ``trace``), in order;
    a step that ran it several times (a ``Send`` each) is listed once. What a check
    says about when a node ran, in the runtime's own step numbers.

    >>> from graphkit import START, StateGraph
    >>> builder = StateGraph(dict).add_node("a", lambda s: {}).add_node("b", lambda s: {})
    >>> app = builder.add_edge(START, "a").add_edge("a", "b").compile()
    >>> ran_at(app.trace({}), "b"), ran_at(app.trace({}), "c")
    ([2], [])
    """
    return [step.step for step in run.steps if node in step.plan.nodes]


def compiled(answer: Any, what: str = "your graph") -> Any:
    """The compiled graph behind ``answer``: a compiled graph, a ``StateGraph`` (compiled
    here), or a function of no arguments returning either. Anything else is ``Wrong``."""
    from graphkit.graph.state import StateGraph
    from graphkit.pregel.app import CompiledGraph

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
        failed = [
            r.task.node
            for r in (last.execution.results if last.execution else ())
            if r.error is not None
        ]
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
        return _input_dropped(key, who, declared=key in keys)
    if key not in keys or key in last.checkpoint_before.channel_values:
        return None  # (it had a value: the KeyError came from elsewhere)
    before = [s for s in run.steps if s.step == last.step - 1 and s.execution]
    wrote = [
        f"{r.task.node} wrote {', '.join(c for c, _ in r.writes if c in keys) or 'nothing'}"
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


def _input_dropped(key: str, who: str, declared: bool) -> tuple[str, str]:
    """What a reader of ``key`` met when the input gave it and step 0 did not copy it
    into the state: the input schema, or every schema, has no such key."""
    if declared:
        return (
            f"{who} read state[{key!r}], but {key} never reached the state: the input "
            f"gave {key}, but the input schema has no key {key!r}, so step 0 (__start__) "
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
