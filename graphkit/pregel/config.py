"""The per-run configuration, as LangGraph's ``RunnableConfig`` dict carries it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from graphkit.frozen import frozen_record

__all__ = ["DEFAULT_RECURSION_LIMIT", "RunConfig"]

DEFAULT_RECURSION_LIMIT = 10007
"""LangGraph 1.2's default (older releases, and many tutorials, say 25)."""


@frozen_record()
class RunConfig:
    """The parts of a run's config the runtime uses, plus the whole dict for nodes.

    >>> RunConfig.from_dict({"recursion_limit": 5, "configurable": {"user": "ada"}})
    RunConfig(recursion_limit=5, configurable={'user': 'ada'})
    """

    recursion_limit: int = DEFAULT_RECURSION_LIMIT
    configurable: Mapping[str, Any] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_dict(cls, config: Mapping[str, Any] | None) -> RunConfig:
        """Validate a LangGraph-style config dict."""
        if not config:  # the common case, built directly
            raw = {
                "callbacks": None,
                "tags": [],
                "metadata": {},
                "recursion_limit": DEFAULT_RECURSION_LIMIT,
                "configurable": {},
            }
            return cls(DEFAULT_RECURSION_LIMIT, raw["configurable"], raw)
        if not isinstance(config, Mapping):
            raise TypeError(
                f"A run's config must be a dict, got {type(config).__name__} {config!r}. "
                "For a thread, write {'configurable': {'thread_id': ...}}."
            )
        config = dict(config)
        limit = config.get("recursion_limit")
        if limit is None:  # as in LangGraph, None means "not set"
            limit = DEFAULT_RECURSION_LIMIT
        if not isinstance(limit, int) or isinstance(limit, bool):
            raise TypeError(f"recursion_limit must be an int, got {limit!r}.")
        if limit < 1:
            raise ValueError(
                f"recursion_limit must be at least 1, got {limit}; it counts the supersteps "
                "a run may take after its input."
            )
        configurable = dict(config.get("configurable") or {})
        raw = {
            "callbacks": None,
            **config,
            "tags": list(config.get("tags") or []),
            "metadata": dict(config.get("metadata") or {}),
            "recursion_limit": limit,
            "configurable": configurable,
        }
        return cls(limit, configurable, raw)

    def as_dict(self) -> dict[str, Any]:
        """The config dict handed to nodes that ask for ``config``."""
        return dict(self.raw)
