"""The per-run configuration, as LangGraph's ``RunnableConfig`` dict carries it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from graphkit.diagnostics import threads as diagnose
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
        """Validate a LangGraph-style config dict (None or {} for the defaults)."""
        config = config or {}
        if not isinstance(config, Mapping):
            raise TypeError(diagnose.config_not_dict(config))
        limit = config.get("recursion_limit")
        if limit is None:  # as in LangGraph, None means "not set"
            limit = DEFAULT_RECURSION_LIMIT
        if not isinstance(limit, int) or isinstance(limit, bool):
            raise TypeError(diagnose.recursion_limit_not_int(limit))
        if limit < 1:
            raise ValueError(diagnose.recursion_limit_below_one(limit))
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
