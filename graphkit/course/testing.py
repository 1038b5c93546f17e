"""Testing your own checks: a check must pass the solution, and fail a wrong answer with
the message you wrote — not because the check itself broke, which a bare ``assert not
check(answer)`` would take for a failure as good as any.

>>> from graphkit.course import Wrong, exercise
>>> @exercise("0.1 · Return forty-two")
... def check_42(value):
...     if value != 42:
...         raise Wrong(f"You returned {value!r}.", hint="The answer is 6 × 7.")
...     return "42 it is."
>>> assert_passes(check_42(42))
✓ 0.1 · Return forty-two: 42 it is.
>>> assert_fails(check_42(41), "You returned 41.", hint="6 × 7")
✗ 0.1 · Return forty-two: You returned 41.
  hint: The answer is 6 × 7.
"""

from __future__ import annotations

from graphkit.course.verdicts import Verdict

__all__ = ["assert_fails", "assert_passes"]


def assert_passes(verdict: Verdict) -> Verdict:
    """Assert that ``verdict`` (a check's, on an answer) passed; return it. A check that
    failed shows its message, and a check that broke raises from its own exception, so
    pytest shows the check's traceback."""
    _a_verdict(verdict)
    _not_broken(verdict)
    if not verdict.passed:
        raise AssertionError(f"the check failed, but should pass:\n{verdict!r}")
    return verdict


def assert_fails(verdict: Verdict, says: str = "", *, hint: str = "") -> Verdict:
    """Assert that ``verdict`` failed on the answer, and not because the check itself
    broke; ``says`` and ``hint``, when given, must be in its message and its hint.
    Return it.

    >>> from graphkit.course import Verdict
    >>> verdict = Verdict("1 · Merge", False, "Broke.", check_error=IndexError("0"))
    >>> assert_fails(verdict)
    Traceback (most recent call last):
    AssertionError: the check itself raised IndexError: 0; the answer was not judged
    """
    _a_verdict(verdict)
    _not_broken(verdict)
    if verdict.passed:
        raise AssertionError(f"the check passed, but should fail:\n{verdict!r}")
    for part, given, said in (("message", says, verdict.message), ("hint", hint, verdict.hint)):
        if given not in said:
            raise AssertionError(f"the {part} should say {given!r}:\n{verdict!r}")
    return verdict


def _a_verdict(verdict: object) -> None:
    if not isinstance(verdict, Verdict):
        raise AssertionError(
            f"expected the Verdict of a check, got {type(verdict).__name__}: is the check "
            "decorated with @exercise(...)?"
        )


def _not_broken(verdict: Verdict) -> None:
    error = verdict.check_error
    if error is not None:
        raise AssertionError(
            f"the check itself raised {type(error).__name__}: {error}; the answer was not judged"
        ) from error
