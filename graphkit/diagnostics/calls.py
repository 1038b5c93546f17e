"""What graphkit says when the functional API (``@entrypoint``, ``@task``) is misused."""

from __future__ import annotations

from typing import Any

from graphkit.diagnostics.arguments import renamed
from graphkit.errors import LangGraphDeprecatedSinceV05, LangGraphDeprecatedSinceV10

_RENAMED = {
    "entrypoint": {
        "config_schema": ("context_schema", LangGraphDeprecatedSinceV10),
        "retry": ("retry_policy", LangGraphDeprecatedSinceV05),
    },
    "task": {"retry": ("retry_policy", LangGraphDeprecatedSinceV05)},
}
"""The old argument names LangGraph's ``entrypoint`` and ``task`` still accept, with a
warning of the class of the release that renamed them."""


def renamed_arguments(call: str, given: dict[str, Any]) -> dict[str, Any]:
    """Map ``call``'s old keyword arguments in ``given`` (``"entrypoint"`` or ``"task"``)
    to the new names, warning about each; refuse any other keyword."""
    renames = _RENAMED[call]
    unknown = sorted(set(given) - set(renames))
    if unknown:
        raise TypeError(
            f"{call}() got unexpected keyword argument(s) {unknown}; the old names it "
            f"still accepts are {sorted(renames)}."
        )
    return renamed(call, given, renames)


def called_outside(name: str) -> str:
    return (
        f"Task {name!r} was called outside a running entrypoint: a @task function runs "
        "as a task of the superstep that calls it, so call it from inside an @entrypoint "
        f"function (or a task, or a graph's node) and run that. To run the function on "
        f"its own, call {name}.func(...)."
    )


def called_outside_execute(name: str, node: str) -> str:
    return (
        f"Task {name!r} was called by {node!r} outside a superstep's Execute phase (e.g. "
        "in a writer that update_state runs); a task can only be called while its "
        "caller runs as a task of a step."
    )


def sync_timeout(name: str) -> str:
    return (
        f"Task {name!r} is a sync function, and timeouts work only for async tasks: a "
        "running Python thread cannot be stopped safely (as in LangGraph). Make it an "
        "`async def`, or drop timeout=."
    )


def bad_arguments(name: str, signature: str, error: TypeError) -> str:
    return (
        f"Task {name!r} was called with arguments that do not fit its signature "
        f"{name}{signature}: {error}. Call it as you would call the function."
    )


def no_parameter(name: str) -> str:
    return (
        "Entrypoint function must have at least one parameter: "
        f"{name}() gets the run's input as its first parameter; write e.g. "
        f"`def {name}(inputs): ...` (pass a dict to give it several values)."
    )


def generator(name: str) -> str:
    return (
        f"Generators are not supported in the Functional API: {name!r} yields. Return "
        "the result instead, and send partial results with the `writer` parameter "
        "(stream_mode='custom'), as in LangGraph."
    )


def not_callable(what: str, given: object) -> str:
    return (
        f"@{what} decorates a function, got {type(given).__name__}. Write @{what} or "
        f"@{what}(...) directly above a `def`."
    )


def bad_final_annotation() -> str:
    return (
        "An entrypoint annotated -> entrypoint.final[...] needs two types: the value "
        "returned and the value saved, e.g. `-> entrypoint.final[int, str]`."
    )


def async_in_sync_run(name: str, caller: str) -> str:
    return (
        f"Task {name!r} is async, and {caller!r} called it in a sync run: an async task "
        "needs the event loop of an async run. Run the entrypoint with ainvoke() or "
        "astream() (and make it `async def`), or make the task a plain `def`."
    )


def result_in_async_code() -> str:
    return (
        "Result is not set: the task has not finished, and .result() cannot wait for it "
        "in async code (it would block the event loop). Write `await future` (or "
        "`await asyncio.gather(*futures)`) instead."
    )
