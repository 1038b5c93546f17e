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
import contextvars
import ctypes
import functools
import inspect
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

# (a check module imports them all from here: one import line for a lesson's checks)
from graphkit.course.answers import (
    _explained_by_graphkit,
    _raised_compiling,
    compiled,
    counted,
    failed_run,
    ran_again,
    ran_at,
    trace,
    whole_number,
)
from graphkit.course.verdicts import Verdict, Wrong

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
    "whole_number",
]

TIME_LIMIT = 15.0
"""Seconds a check may run before it fails as an answer that never finishes. Every
check takes well under a second on the course's solutions; a learner's loop that never
ends (a ``while`` whose condition never changes) would otherwise hang the cell. The
environment variable ``GRAPHKIT_CHECK_TIME_LIMIT`` (seconds) replaces it, for a machine
too busy or too slow for 15 seconds of wall time (a classroom server, a loaded CI)."""


def _default_limit() -> float:
    given = os.environ.get("GRAPHKIT_CHECK_TIME_LIMIT", "").strip()
    if not given:
        return TIME_LIMIT
    try:
        seconds = float(given)
    except ValueError:
        seconds = 0.0
    if not seconds > 0:  # (NaN too)
        raise ValueError(
            f"GRAPHKIT_CHECK_TIME_LIMIT={given!r} is no number of seconds above 0: set it "
            "to e.g. 60, or unset it for the default of 15."
        )
    return seconds


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

    ``time_limit``: seconds the check may run (default ``TIME_LIMIT``, or the
    ``GRAPHKIT_CHECK_TIME_LIMIT`` environment variable, read at each call).

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
            limit = _default_limit() if time_limit is None else time_limit
            try:
                with _time_limit(limit):
                    # (in a copy of the context: the alarm can land between a task
                    # entering its scope and the try that leaves it, and a scope left
                    # set would make every later run in the kernel a stale task's)
                    praise = contextvars.copy_context().run(check, *args, **kwargs)
            except _OutOfTime as out:
                return _out_of_time(title, limit, getattr(out, "run", None))
            except Wrong as wrong:
                # (a run's failure, or one the check worded itself, may be an answer
                # that is no function: that says more than the error it caused)
                cause = wrong.__cause__ or wrong.__context__
                if isinstance(cause, Exception):
                    uncalled = _not_a_function(title, check, cause, args, kwargs)
                    if uncalled is not None:  # (a failed Verdict is falsy)
                        return uncalled
                return Verdict(title, False, wrong.message, wrong.hint)
            except Exception as error:
                own = _check_failed(title, check, error, [*args, *kwargs.values()])
                if own is not None:
                    return own
                if (uncalled := _not_a_function(title, check, error, args, kwargs)) is not None:
                    return uncalled
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


_LOOPING_STEPS = 100
"""Steps past which a run the time limit stopped is said to go round its nodes rather
than be held by one: a hundred steps in 15 seconds is 0.15 s a step, far more than a
lesson's node takes."""


def _out_of_time(title: str, limit: float, run: Any) -> Verdict:
    """The verdict for an answer still running after ``limit`` seconds; ``run``, when a
    graph was running (``trace`` attaches the run so far), says where it was: in one
    node's loop, or in steps that never end (a graph whose routes never reach END runs
    10,007 steps, as in LangGraph, unless the check gave ``trace`` a recursion_limit)."""
    if run is None or not run.steps:
        return Verdict(
            title,
            False,
            f"Your code was still running after {limit:g} seconds, so the check stopped it.",
            "Look for a loop that never ends: a while whose condition never changes, or "
            "a function that calls itself. Run your answer on its own in a cell to see "
            "where it spends its time.",
        )
    last = run.steps[-1]
    nodes = ", ".join(dict.fromkeys(last.plan.nodes))
    running = f" ({nodes})" if nodes else ""  # (stopped while planning: none yet)
    message = (
        f"Your graph was still running after {limit:g} seconds, in step {last.step}"
        f"{running}, so the check stopped it."
    )
    if last.step < _LOOPING_STEPS:
        hint = (
            f"Look for a loop that never ends in {nodes or 'a node'}: a while whose "
            "condition never changes, or a function that calls itself."
        )
    else:
        hint = (
            f"It ran {last.step + 1:,} steps: its nodes keep waking each other. Look for "
            "the route that never reaches END (a router, an edge back, a "
            "Command(goto=...)), then run it yourself with "
            "app.trace(input, {'recursion_limit': 20}) and read its last steps."
        )
    return Verdict(title, False, message, hint)


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
    learners = {code for answer in answers for code in _codes(answer)}
    check = getattr(inspect.unwrap(check), "func", check)  # (a functools.partial's)
    code = getattr(check, "__code__", None) or getattr(check.__call__, "__code__", None)
    if code is None:
        return None  # (a check written in C, say: the error is the answer's, as before)
    own, line = code.co_filename, None
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


def _not_a_function(
    title: str, check: Callable[..., Any], error: BaseException, args: Any, kwargs: Any
) -> Verdict | None:
    """The verdict for an answer that is no function (None, a name in quotes, a graph, a
    library's class) given where the check calls one, directly or in a graph it runs:
    "'NoneType' object is not callable", or StateGraph's refusal of the values the check
    passed it, named neither the answer nor what to pass. None for any other error, or
    one raised inside the learner's own code."""
    try:
        bound = inspect.signature(check).bind_partial(*args, **kwargs).arguments
    except TypeError:
        return None
    found = _called_answer(check, error, bound)
    if found is None:
        return None
    (param, value), name = found, getattr(check, "__name__", "check")
    call = f"{name}({param})"
    shown = what_was_given(value)
    if value is None:
        hint = (
            f"Pass the function itself, {call}, not what it returns ({name}({param}()) "
            f"passes that); if {param} is None, run the cell that defines it."
        )
    elif isinstance(value, str):
        hint = f"Pass the function itself, {call}, not its name in quotes."
    elif isinstance(value, type):
        owner = value.__module__.partition(".")[0].replace("builtins", "Python")
        hint = (
            f"Pass the function you wrote for this exercise, {call}: {value.__name__} is "
            f"a class of {owner}, not your answer."
        )
    else:
        graph = hasattr(value, "get_graph") or hasattr(value, "add_node")
        hint = (
            f"This exercise asks for a function, not a graph: define {param} as the "
            f"exercise says, then pass it, {call}."
            if graph
            else f"Pass your function itself, {call}."
        )
    message = f"{name}() got {shown} as {param}, and calls {param} as a function."
    return Verdict(title, False, message, hint)


def what_was_given(value: Any) -> str:
    """``value`` as a verdict names what the learner passed: ``None``, ``the str 'app'``,
    ``the class StateGraph``, ``a CompiledGraph``, ``an int``."""
    if value is None:
        return "None"
    if isinstance(value, str):
        return f"the str {value!r}"
    if isinstance(value, type):
        return f"the class {value.__name__}"
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _called_answer(
    check: Callable[..., Any], error: BaseException, given: dict[str, Any]
) -> tuple[str, Any] | None:
    """The (parameter, answer) whose call raised ``error``: an answer that is not
    callable, called by the check's own line (in a node or router of a graph the check
    runs, too); or a library's class (the learner's own class is their code), whose
    construction failed. None when the error is another, or the learner's."""
    classes = [(p, v) for p, v in given.items() if isinstance(v, type) and _library_class(v)]
    text = str(error)
    for param, klass in classes:
        building = {
            code
            for code in _codes(klass)
            if code is not None and code.co_name in ("__init__", "__new__")
        }
        if text.startswith((f"{klass.__qualname__}.__init__()", f"{klass.__name__}()")) or any(
            entry.tb_frame.f_code in building for entry in _entries(error)
        ):
            return param, klass
    if not isinstance(error, TypeError) or not text.endswith("object is not callable"):
        return None
    entries = list(_entries(error))
    if not entries or not _checks_file(check, entries[-1].tb_frame.f_code.co_filename):
        return None  # (raised in the learner's code, or by the runtime)
    kind = text.split("'")[1] if text.count("'") >= 2 else ""
    found = [(p, v) for p, v in given.items() if not callable(v) and type(v).__name__ == kind]
    for param, value in found:
        if _uses_answer(entries[-1], [value]):
            return param, value
    return None


def _entries(error: BaseException) -> Iterator[Any]:
    entry = error.__traceback__
    while entry is not None:
        yield entry
        entry = entry.tb_next


def _checks_file(check: Callable[..., Any], filename: str) -> bool:
    """Whether ``filename`` is ``check``'s own source file or one of graphkit.course's."""
    from pathlib import Path

    check = getattr(inspect.unwrap(check), "func", check)
    code = getattr(check, "__code__", None) or getattr(check.__call__, "__code__", None)
    own = code.co_filename if code is not None else None
    return filename == own or Path(filename).parent == Path(__file__).parent


def _library_class(klass: type) -> bool:
    """Whether ``klass`` comes from graphkit, the standard library or an installed
    package, not the learner's notebook or module."""
    import builtins
    import sysconfig
    from pathlib import Path

    if klass.__module__ == "builtins":  # (a cell run by exec makes its classes' so too)
        return getattr(builtins, klass.__qualname__, None) is klass
    module = sys.modules.get(klass.__module__)
    path = getattr(module, "__file__", None)
    if path is None or klass.__module__ == "__main__":  # (a kernel's: ipykernel's file)
        return False
    folders = [Path(__file__).parent.parent] + [
        Path(sysconfig.get_path(name)) for name in ("stdlib", "platstdlib", "purelib")
    ]
    return any(Path(path).is_relative_to(folder) for folder in folders)


def _codes(answer: Any) -> Iterator[Any]:
    """The code objects of ``answer``: a function's (a method's), and a class's own
    methods (its ``__init__`` runs when the check builds one, from the check's file too
    when both are in one test module)."""
    yield getattr(getattr(answer, "__func__", answer), "__code__", None)
    if isinstance(answer, type):
        for klass in answer.__mro__[:-1]:
            for attribute in vars(klass).values():
                function = getattr(attribute, "__func__", attribute)
                yield getattr(function, "__code__", None)


def _raised_by_assert(entry: Any) -> bool:
    """Whether an ``assert`` statement raised at traceback ``entry``: its source line
    is the condition's on an assert written over several lines."""
    import dis

    loaded = ""  # (what the last raise loaded: AssertionError for an assert's)
    for instruction in dis.get_instructions(entry.tb_frame.f_code):
        if instruction.offset >= entry.tb_lasti:
            return instruction.opname == "RAISE_VARARGS" and loaded == "LOAD_ASSERTION_ERROR"
        if instruction.opname in ("LOAD_ASSERTION_ERROR", "RAISE_VARARGS", "RETURN_VALUE"):
            loaded = instruction.opname
    return False


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
    asserted = source.startswith("assert") or _raised_by_assert(entry)
    if isinstance(error, AssertionError) and entry.tb_next is None and asserted:
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


_RING_AGAIN = 0.25
"""Seconds between rings once the time limit has passed, for a time-out lost where it
landed (a ring finds the last one still unwinding and lets it be)."""


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

    running = _pool_tasks()  # (someone else's, and those told: left alone)

    def ring(signum: int, frame: Any) -> None:
        if _on_its_way_out(sys.exception()):
            return  # (the last ring's, unwinding: its except and finally blocks run whole)
        for thread, task in _pool_tasks().items():
            if running.get(thread) is not task:
                _raise_in(thread)
                running[thread] = task  # (once: a second could land in its way out)
        raise _OutOfTime()

    previous = signal.signal(signal.SIGALRM, ring)
    # (and again after that until the check ends: where the first lands, a learner's
    # bare ``except:`` or a weakref callback the garbage collector runs, it can be lost)
    signal.setitimer(signal.ITIMER_REAL, seconds, _RING_AGAIN)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _on_its_way_out(error: BaseException | None) -> bool:
    """Whether ``error``, the exception the interrupted code is handling (in an
    ``except`` or a ``finally`` block), is a time-out or was raised while one was."""
    while error is not None:
        if isinstance(error, _OutOfTime):
            return True
        error = error.__context__
    return False


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
