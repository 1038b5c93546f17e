"""What graphkit says about keyword arguments' names: LangGraph's old ones and unknown ones.

LangGraph renamed some arguments (``input`` to ``input_schema``, ``retry`` to
``retry_policy``, ``config_schema`` to ``context_schema``...) and still takes the old
names with a deprecation warning; graphkit maps them the same way, with the same
warning, for ``StateGraph``, ``add_node`` and ``Pregel`` here and for ``entrypoint``
and ``task`` in ``calls``. A name no call takes is refused with the one probably meant.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from graphkit.errors import LangGraphDeprecatedSinceV05, LangGraphDeprecatedSinceV10, warn

_RENAMED = {
    "input": ("input_schema", LangGraphDeprecatedSinceV05),
    "output": ("output_schema", LangGraphDeprecatedSinceV05),
    "config_schema": ("context_schema", LangGraphDeprecatedSinceV10),
}
"""LangGraph's old ``StateGraph`` argument names, which it still accepts with a warning
of the class of the release that renamed them."""


_NODE_RENAMED = {
    "input": ("input_schema", LangGraphDeprecatedSinceV05),
    "retry": ("retry_policy", LangGraphDeprecatedSinceV05),
}
"""LangGraph's old ``add_node`` argument names, accepted with a warning."""


def renamed(
    call: str, given: dict[str, Any], renames: Mapping[str, tuple[str, type[Warning]]]
) -> dict[str, Any]:
    """Map the old argument names in ``given`` to the new ones, warning about each (in
    LangGraph's words first, so that a warnings filter written for LangGraph matches)."""
    for old, (new, category) in renames.items():
        if old in given:
            warn(
                f"`{old}` is deprecated and will be removed. Please use `{new}` instead: "
                f"write {call}(..., {new}=...).",
                category,
            )
    return {renames[old][0]: value for old, value in given.items() if old in renames}


def renamed_arguments(given: dict[str, Any]) -> dict[str, Any]:
    """Map ``StateGraph(input=..., output=..., config_schema=...)`` to the new names,
    warning (``LangGraphDeprecatedSinceV05``/``V10``, as LangGraph does) about each."""
    unknown = sorted(set(given) - set(_RENAMED))
    if unknown:
        raise TypeError(
            f"StateGraph() got unexpected keyword argument(s) {unknown}; it takes "
            "state_schema, context_schema, input_schema and output_schema."
        )
    return renamed("StateGraph", given, _RENAMED)


_NODE_OPTIONS = (
    "defer", "metadata", "input_schema", "retry_policy", "cache_policy", "destinations",
    "error_handler", "timeout",
)  # fmt: skip
"""The keyword arguments ``add_node`` takes (LangGraph's, but ``trace_policy``)."""


COMPILE_OPTIONS = (
    "checkpointer", "store", "cache", "interrupt_before", "interrupt_after", "debug", "name",
    "transformers", "executor",
)  # fmt: skip
"""The keyword arguments ``compile`` takes (LangGraph's, and ``executor``)."""


def renamed_node_arguments(given: dict[str, Any]) -> dict[str, Any]:
    """``add_node``'s extra keywords: the old names LangGraph still accepts (``retry``,
    ``input``: mapped to ``retry_policy``, ``input_schema``, with a warning); LangGraph's
    ``trace_policy`` is not supported yet, and any other name is a mistake."""
    rest = {key: value for key, value in given.items() if key not in _NODE_RENAMED}
    refuse_unsupported("add_node(..., {}=...)", trace_policy=rest.pop("trace_policy", None))
    refuse_unknown("add_node", rest, _NODE_OPTIONS)
    return renamed("add_node", given, _NODE_RENAMED)


def refuse_unknown(call: str, given: Mapping[str, Any], takes: Sequence[str]) -> None:
    """Raise Python's TypeError for a keyword argument ``call`` does not take, naming the
    one it probably means and the ones it takes.

    >>> refuse_unknown("compile", {"checkpoint": None}, COMPILE_OPTIONS)
    Traceback (most recent call last):
    TypeError: compile() got an unexpected keyword argument 'checkpoint'. Did you mean checkpointer=...? It takes checkpointer, store, cache, interrupt_before, interrupt_after, debug, name, transformers and executor.
    """  # noqa: E501
    for name in given:
        close = difflib.get_close_matches(name, takes, n=1, cutoff=0.6)
        meant = f"Did you mean {close[0]}=...? " if close else ""
        raise TypeError(
            f"{call}() got an unexpected keyword argument {name!r}. {meant}It takes "
            f"{', '.join(takes[:-1])} and {takes[-1]}."
        )


def renamed_pregel_argument(options: dict[str, Any], context_schema: Any) -> Any:
    """``Pregel``'s context schema: ``config_type=...`` (LangGraph's old name, popped from
    ``options``, with its ``LangGraphDeprecatedSinceV10`` warning), else ``context_schema``."""
    if "config_type" not in options:
        return context_schema
    given = {"config_type": options.pop("config_type")}
    renames = {"config_type": ("context_schema", LangGraphDeprecatedSinceV10)}
    return renamed("Pregel", given, renames)["context_schema"]


def refuse_unsupported(call: str, /, **options: Any) -> None:
    """Raise NotImplementedError for a LangGraph option graphkit does not support yet."""
    for option, value in options.items():
        if value:
            raise NotImplementedError(f"{call.format(option)} is not supported by graphkit yet.")
