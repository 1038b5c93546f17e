"""What ``stream`` / ``invoke`` were asked, checked: the stream modes, the modes printed,
the ``output_keys``, the deprecated ``checkpoint_during``, and the run options they take
besides their own parameters (``RUN_KEYWORDS``)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from graphkit.diagnostics import run as diagnose
from graphkit.errors import LangGraphDeprecatedSinceV10
from graphkit.streaming.emitters import STREAM_MODES

__all__ = ["RUN_KEYWORDS", "checked_modes"]


RUN_KEYWORDS = frozenset({"interrupt_before", "interrupt_after", "durability", "executor"})
"""The run options ``invoke`` / ``stream`` take besides their own named parameters
(``executor`` is graphkit's: where a step's tasks run; ``control``, LangGraph's
``RunControl``, goes into the run's ``Runtime``)."""


def _known_keys(app: Any, keys: Sequence[str]) -> tuple[str, ...]:
    """``output_keys``, each a channel of ``app`` (a ``ValueError`` if not, as in LangGraph)."""
    if keys is app.spec.output_keys:  # (``invoke``'s default: compile made them of channels)
        return keys
    if not isinstance(keys, Iterable):  # (LangGraph's TypeError, "not iterable")
        raise TypeError(diagnose.not_names("output_keys", keys, "['answer']"))
    keys = tuple(keys)
    if unknown := [key for key in keys if key not in app.spec.channels]:
        raise ValueError(diagnose.unknown_output_keys(unknown, app.spec.stream_keys))
    return keys


def _print_modes(app: Any, kwargs: dict[str, Any]) -> tuple[str, ...]:
    """The modes the run prints as it goes: ``print_mode``; with ``debug`` (the run's or
    the graph's) updates and values in its place, as in LangGraph."""
    debug = kwargs.pop("debug", None) or app.debug  # (debug=False leaves compile's on)
    print_mode = kwargs.pop("print_mode", ())
    print_mode = ("updates", "values") if debug else print_mode
    return checked_modes(print_mode)[0] if print_mode else ()


def checked_modes(stream_mode: str | Sequence[str]) -> tuple[tuple[str, ...], bool]:
    """``(modes, single)``: the modes asked, and whether one was asked as a string."""
    single = isinstance(stream_mode, str)
    if not single and not isinstance(stream_mode, Iterable):  # (LangGraph's TypeError too)
        raise TypeError(diagnose.not_names("stream_mode", stream_mode, "['values', 'updates']"))
    modes = (stream_mode,) if single else tuple(stream_mode)
    for mode in modes:
        if mode not in STREAM_MODES:
            raise ValueError(
                f"Unknown stream_mode {mode!r}; use one of {list(STREAM_MODES)} or a list of them."
            )
    return modes, single


def _resolve_deprecated(kwargs: dict[str, Any]) -> None:
    """Map ``checkpoint_during`` to ``durability`` (LangGraph's deprecated name for it)."""
    checkpoint_during = kwargs.pop("checkpoint_during", None)
    if checkpoint_during is None:
        return
    warnings.warn(
        "`checkpoint_during` is deprecated and will be removed. Please use `durability` "
        "instead: durability='async' for True, durability='exit' for False.",
        LangGraphDeprecatedSinceV10,
        stacklevel=4,
    )
    if kwargs.get("durability") is not None:
        raise ValueError("Pass durability= or checkpoint_during=, not both; keep durability=.")
    kwargs["durability"] = "async" if checkpoint_during else "exit"
