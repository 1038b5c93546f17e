"""Running a learner's test as pytest would, for lesson 23's checks: a function, a
callable object, or each ``test`` method of a pytest-style class on a new instance
(``setup_method`` and ``teardown_method`` around it); what it raised, told apart from
what stopped it from outside; and the line of the test that raised.

>>> def test_small(route):
...     assert route(5) == "small"
>>> [test.__name__ for test in runnable_tests(test_small, "test_route(route)")]
['test_small']
>>> run(test_small, lambda amount: "big")[0].__class__.__name__
'AssertionError'
"""

from __future__ import annotations

import contextlib
import inspect
import linecache
import sys
import unittest
from collections.abc import Callable
from typing import Any

from graphkit.course.answers import run_apart
from graphkit.course.checking import Wrong, _library_class, _OutOfTime, what_was_given

STOPS = (KeyboardInterrupt, SystemExit, GeneratorExit, _OutOfTime)
"""What stops a test from outside (the learner, the check's time limit): not its failure."""


def run(test: Callable[..., Any], *args: Any) -> tuple[BaseException | None, Any]:
    """The error ``test(*args)`` failed with (None when it passed), and what it returned.
    An ``async def`` test is awaited on a loop of its own, as pytest-asyncio runs one."""
    try:
        returned = test(*args)
        if inspect.iscoroutine(returned):
            returned = run_apart(lambda: returned)
    except STOPS:
        raise
    except BaseException as error:  # (pytest.fail's Failed is not an Exception)
        return error, None
    return None, returned


def skipped(error: BaseException | None) -> str | None:
    """``'skip'`` when ``error`` is a test skipping itself (``pytest.skip(...)``, or
    unittest's ``SkipTest``), ``'xfail'`` for ``pytest.xfail(...)``, else None: pytest
    reports either as neither passed nor failed."""
    outcomes = sys.modules.get("_pytest.outcomes")  # (not imported: no pytest.skip raised)
    if outcomes is not None and isinstance(error, outcomes.XFailed):
        return "xfail"
    skips = (unittest.SkipTest, outcomes.Skipped) if outcomes else (unittest.SkipTest,)
    return "skip" if isinstance(error, skips) else None


SKIPPED = {
    "skip": ("skipped itself", "A skipped test", "A skip"),
    "xfail": ("marked itself xfail", "An xfailed test", "An xfail"),
}
"""How a verdict says each: what the test did, a test that did it, and the thing itself."""


def said(test: Callable[..., Any], error: BaseException) -> str:
    """``error`` as pytest would report it, with the line of ``test`` that raised it."""
    message = str(error).strip().splitlines()
    said = f"{type(error).__name__}: {message[0]}" if message else type(error).__name__
    label_for = getattr(test, "label_for", None)  # (a test class's method: which one)
    said = (label_for(error) if label_for else "") + said
    code = getattr(test, "__code__", None)
    trace, line = error.__traceback__, None
    while trace is not None:
        if trace.tb_frame.f_code is code:
            line = linecache.getline(code.co_filename, trace.tb_lineno).strip() or None
        trace = trace.tb_next
    return f"{said}, at `{line}`" if line else said


class ClassTestMethod:
    """One ``test`` method of a learner's test class, run as pytest runs it: on a new
    instance of the class each time (``setup_method`` and ``teardown_method`` around it,
    if the class has them), given what the check hands a test function."""

    def __init__(self, klass: type, name: str) -> None:
        self.klass, self.name = klass, name
        function = inspect.getattr_static(klass, name)
        self.__code__ = getattr(function, "__code__", None)  # (where said finds its line)
        self.label = f"{klass.__name__}.{name}: "
        self._around: list[tuple[BaseException, str]] = []  # (setup's and teardown's errors)
        try:  # (the method's, bound: what it takes after self)
            self.__signature__ = inspect.signature(getattr(object.__new__(klass), name))
        except Exception:
            self.__signature__ = None

    def label_for(self, error: BaseException) -> str:
        """Which method raised ``error``: the test, or ``setup_method`` before it (pytest
        reports the setup's error as the setup's)."""
        where = self.around(error)
        return f"{self.klass.__name__}.{where}: " if where else self.label

    def around(self, error: BaseException) -> str | None:
        """``"setup_method, before test_x"`` (or the teardown's) when one of those raised
        ``error``; None when the test did."""
        return next((where for raised, where in self._around if raised is error), None)

    def __call__(self, *args: Any) -> Any:
        instance = self.klass()
        method = getattr(instance, self.name)
        self._beside(instance, "setup_method", method, f"setup_method, before {self.name}")
        after = f"teardown_method, after {self.name}"
        try:
            returned = method(*args)
            if inspect.iscoroutine(returned):
                returned = run_apart(lambda: returned)
        except STOPS:
            raise
        except BaseException:
            # pytest reports a failed test's own error first: a teardown's does not hide it
            with contextlib.suppress(Exception):
                self._beside(instance, "teardown_method", method, after)
            raise
        self._beside(instance, "teardown_method", method, after)
        return returned

    def _beside(self, instance: Any, name: str, method: Any, where: str) -> None:
        if hasattr(instance, name):
            try:
                getattr(instance, name)(method)
            except STOPS:
                raise
            except BaseException as error:
                self._around.append((error, where))
                raise


def runnable_tests(test: Any, signature: str) -> list[Callable[..., Any]]:
    """What the check runs as the learner's test (``signature``: the exercise's, e.g.
    ``test_route(route)``): the function (or callable object) itself, or each ``test``
    method of a test class, in the order pytest collects them. Wrong for anything the
    check cannot call with the one argument a test here takes."""
    argument = signature.partition("(")[2].rstrip(")")
    write = f"Write def {signature}: ... and pass the function."
    if isinstance(test, type) and issubclass(test, unittest.TestCase):
        raise Wrong(
            f"Your test is {test.__name__}, a unittest.TestCase: its test methods take no "
            f"argument but self, and this check calls your test with one, {argument}.",
            f"{write} A pytest-style class, with no base class and test_ methods that take "
            f"{argument} after self, is run as pytest runs it.",
        )
    if isinstance(test, type) and not _library_class(test):
        try:
            inspect.signature(test).bind()
        except TypeError:
            raise Wrong(
                f"Your test class {test.__name__} cannot be made without arguments: its "
                "__init__ takes some. pytest runs no test class with an __init__, and this "
                f"check makes a new {test.__name__}() for each test method.",
                "Take the __init__ out; set what it set in setup_method(self, method), or "
                "in the test itself.",
            ) from None
        except ValueError:  # (no signature to read: making one will say)
            pass
        names = [
            name
            for name in dict.fromkeys(n for k in test.__mro__ for n in vars(k))
            if name.startswith("test") and callable(inspect.getattr_static(test, name))
        ]
        if not names:
            raise Wrong(
                f"Your test is the class {test.__name__}, with no method whose name starts "
                "with test: pytest runs a class's test methods, and so does this check.",
                f"{write} Or, in your class, start each test method's name with test_.",
            )
        return _taking_one([ClassTestMethod(test, name) for name in names], signature)
    if isinstance(test, type) or not callable(test):
        # (called with the app, a library's class builds one: StateGraph(app))
        if not isinstance(test, type) and any(n.startswith("test") for n in dir(type(test))):
            raise Wrong(
                f"Your test is an instance of {type(test).__name__}, not a function.",
                f"To have each of its test methods run as pytest would, pass the class "
                f"itself, {type(test).__name__}; or {write[0].lower()}{write[1:]}",
            )
        raise Wrong(f"Your test is {what_was_given(test)}, not a function.", write)
    return _taking_one([test], signature)


def _taking_one(tests: list[Callable[..., Any]], signature: str) -> list[Callable[..., Any]]:
    """``tests``, when each can be called with the one argument the check hands it;
    Wrong for one that asks for more (a pytest fixture: the check has none) or none."""
    argument = signature.partition("(")[2].rstrip(")")
    for test in tests:
        method = isinstance(test, ClassTestMethod)
        try:
            takes = inspect.signature(test)
        except (TypeError, ValueError):  # (none to read: running it will say)
            continue
        try:
            takes.bind(None)
        except TypeError:
            names = list(takes.parameters)
            label = test.label.rstrip(": ") if method else "Your test"
            if not names:
                raise Wrong(
                    f"{label} takes no argument, and this check calls it with one: "
                    f"{argument}, the one to test.",
                    f"Write def {test.name}(self, {argument}): ... and test the {argument} "
                    "it is given."
                    if method
                    else f"Write def {signature}: ... and test the {argument} it is given.",
                ) from None
            raise Wrong(
                f"{label} takes {', '.join(names)}: this check calls it with one argument, "
                f"{argument}, and gives no pytest fixture.",
                f"Make it take {argument} alone, and make what else it needs inside it.",
            ) from None
    return tests
