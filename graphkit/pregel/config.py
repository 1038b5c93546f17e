"""The per-run configuration, as LangGraph's ``RunnableConfig`` dict carries it."""

from __future__ import annotations

import dataclasses
import decimal
import numbers
import operator
from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any

from graphkit.checkpoint.saver import NOT_CARRIED, carried_metadata
from graphkit.constants import CONFIG_KEYS
from graphkit.diagnostics import run as diagnose_run
from graphkit.diagnostics import threads as diagnose
from graphkit.frozen import frozen_record

if TYPE_CHECKING:
    import asyncio
    from concurrent.futures import Executor

    from graphkit.checkpoint.saver import BaseCheckpointSaver
    from graphkit.pregel.runtime import Runtime

__all__ = [
    "DEFAULT_RECURSION_LIMIT",
    "NOT_CARRIED",
    "RunConfig",
    "RunOptions",
    "carried_metadata",
    "coerce_context",
    "coordinates_in_metadata",
    "loose_keys_configurable",
    "merge_configs",
    "merged_callbacks",
    "merged_metadata",
]

DEFAULT_RECURSION_LIMIT = 10007
"""LangGraph 1.2's default (older releases, and many tutorials, say 25)."""

COORDINATES = ("thread_id", "checkpoint_id", "checkpoint_ns", "task_id", "run_id")
COORDINATES += ("assistant_id", "graph_id")
"""``configurable`` keys LangGraph copies into the metadata nodes see (when set)."""

OPTIONAL = ("tags", "recursion_limit")
"""Keys a task's config has only when the run's config gave them a value."""


def coordinates_in_metadata(
    metadata: Mapping[str, Any] | None, configurable: Mapping[str, Any] | None
) -> dict[str, Any]:
    """``metadata`` plus the run's coordinates ``configurable`` sets and it lacks, as
    LangGraph's runs and their tasks name their thread in the metadata they report.

    >>> coordinates_in_metadata({"m": 1}, {"thread_id": "1", "checkpoint_ns": "", "u": 2})
    {'m': 1, 'thread_id': '1'}
    """
    metadata = dict(metadata or {})
    if not configurable:  # (a run that names no thread)
        return metadata
    for key in COORDINATES:
        if key not in metadata and configurable.get(key):
            metadata[key] = configurable[key]
    return metadata


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
        # (a dict is looked for first, in C: the ABC's own check is a Python call)
        if not isinstance(config, (dict, Mapping)):
            raise TypeError(diagnose.config_not_dict(config))
        limit = config.get("recursion_limit")
        if limit is None:  # as in LangGraph, None means "not set"
            limit = DEFAULT_RECURSION_LIMIT
        try:  # an int, a bool (True is 1, as in LangGraph) or NumPy's ints
            whole = operator.index(limit)
        except TypeError:
            raise TypeError(diagnose.recursion_limit_not_int(limit)) from None
        if whole < 1:
            raise ValueError(diagnose.recursion_limit_below_one(limit))
        limit = whole
        for key in ("configurable", "metadata"):
            if (part := config.get(key)) and not isinstance(part, (dict, Mapping)):
                raise TypeError(diagnose.config_part_not_dict(key, part))
        _check_max_concurrency(config.get("max_concurrency"))
        configurable = dict(config.get("configurable") or ())
        raw: dict[str, Any] = {"callbacks": None}
        for key, value in config.items():
            if key not in OPTIONAL:
                raw[key] = value
        raw["metadata"] = dict(config.get("metadata") or ())
        raw["configurable"] = configurable
        # as in LangGraph, the tags and the limit are in a task's config only when given
        if config.get("tags"):
            raw["tags"] = list(config["tags"])
        if config.get("recursion_limit") is not None:
            raw["recursion_limit"] = config["recursion_limit"]
        return cls(limit, configurable, raw)

    def for_tasks(self) -> dict[str, Any]:
        """The config the run's tasks build theirs from: as in LangGraph, its metadata
        also names the run's thread (``thread_id``, ``checkpoint_ns``... when set), so
        nodes, chat-model callbacks and the "messages" stream see it.

        >>> RunConfig.from_dict({"configurable": {"thread_id": "1"}}).for_tasks()["metadata"]
        {'thread_id': '1'}
        """
        metadata = coordinates_in_metadata(self.raw["metadata"], self.configurable)
        return {**self.raw, "metadata": metadata}


def _check_max_concurrency(limit: Any) -> None:
    """As in LangGraph: a number above 0 (NumPy's too), or None for no limit."""
    if limit is None:
        return
    if not isinstance(limit, (numbers.Real, decimal.Decimal)):  # (Decimal is no Real)
        raise TypeError(diagnose.max_concurrency_not_number(limit))
    if limit <= 0:
        raise ValueError(diagnose.max_concurrency_not_positive(limit))


@frozen_record()
class RunOptions:
    """How one run is carried out beyond its config: recording, where tasks run (async
    nodes on ``loop``), saving, breakpoints, and the ``listener`` streaming sets. The
    stepper takes it, and its tasks reach it as ``RunContext.options``.

    >>> RunOptions(record=False).record
    False
    """

    record: bool = True
    executor: Executor | None = None
    runtime: Runtime | None = None
    checkpointer: BaseCheckpointSaver | None = None
    interrupt_before: Sequence[str] | str = ()
    interrupt_after: Sequence[str] | str = ()
    durability: str | None = None
    loop: asyncio.AbstractEventLoop | None = None
    listener: Any = None
    cache: Any = None
    step_timeout: float | None = None
    trace: Any = None
    """The run's ``graphkit.pregel.tracing.RunTrace`` when its config has callbacks."""


def loose_keys_configurable(config: Any) -> Any:
    """``config`` with each top-level key that is no config key (``thread_id``, ``user``...
    written beside ``configurable``) moved under ``configurable``, winning over the same
    key there, as LangGraph's runs read a config; a ``None`` or an empty list or dict is
    dropped. Anything but a dict is left for ``RunConfig`` to refuse.

    >>> loose_keys_configurable({"thread_id": "1", "configurable": {"user": "ada"}})
    {'configurable': {'user': 'ada', 'thread_id': '1'}}
    """
    if not isinstance(config, Mapping) or config.keys() <= CONFIG_KEYS:
        return config
    lifted = {key: value for key, value in config.items() if key in CONFIG_KEYS}
    configurable = dict(config.get("configurable") or ())
    for key, value in config.items():
        if key not in CONFIG_KEYS and value is not None and (value or not _sized(value)):
            configurable[key] = value
    lifted["configurable"] = configurable
    return lifted


def _sized(value: Any) -> bool:
    return isinstance(value, (list, tuple, dict))


def merge_configs(*configs: Mapping[str, Any] | None) -> dict[str, Any]:
    """Configs merged as LangGraph merges a graph's ``with_config`` defaults with a call's:
    ``metadata`` and ``configurable`` key by key, ``tags`` added (a tag given twice is
    kept twice, as in LangGraph), ``callbacks`` all kept, anything else from the last
    config that sets it.

    >>> merge_configs({"tags": ["a"], "configurable": {"user": "ada"}},
    ...               {"tags": ["b"], "configurable": {"thread_id": "1"}})
    {'tags': ['a', 'b'], 'configurable': {'user': 'ada', 'thread_id': '1'}}
    """
    merged: dict[str, Any] = {}
    for config in configs:
        for key, value in (config or {}).items():
            if key == "metadata":
                merged[key] = merged_metadata(merged.get(key), value)
            elif key == "configurable":
                merged[key] = {**merged.get(key, {}), **(value or {})}
            elif key == "tags":
                merged[key] = [*merged.get(key, []), *(value or [])]
            elif key == "callbacks" and merged.get(key) is not None and value is not None:
                merged[key] = merged_callbacks(merged[key], value)
            elif value is not None or key not in merged:
                merged[key] = value
    return merged


def merged_metadata(base: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> dict:
    """Two configs' metadata, key by key, the newer winning, as LangGraph merges them:
    only ``lc_versions`` (LangChain packages' versions) merges one level deeper.

    >>> merged_metadata({"lc_versions": {"a": 1}, "k": 1}, {"lc_versions": {"b": 2}})
    {'lc_versions': {'a': 1, 'b': 2}, 'k': 1}
    """
    merged = {**(base or {}), **(new or {})}
    versions = [(side or {}).get("lc_versions") for side in (base, new)]
    if all(isinstance(each, Mapping) for each in versions):
        merged["lc_versions"] = {**versions[0], **versions[1]}
    return merged


def merged_callbacks(base: Any, new: Any) -> Any:
    """Two configs' callbacks, both kept as LangGraph keeps them (so a handler bound with
    ``with_config`` still hears a run that ``astream_events`` adds its own to): two lists
    added up, a list's handlers added to a copy of a callback manager, two managers merged.

    >>> merged_callbacks(["bound"], ["given"])
    ['bound', 'given']
    """
    if isinstance(base, list) and isinstance(new, list):
        return base + new
    if not (isinstance(base, list) or isinstance(new, list)):
        return base.merge(new)  # two langchain-core callback managers
    manager, handlers = (new, base) if isinstance(base, list) else (base, new)
    manager = manager.copy()
    for handler in handlers:
        manager.add_handler(handler, inherit=True)
    return manager


def coerce_context(schema: Any, context: Any) -> Any:
    """``context`` as nodes see it: a dict given for a dataclass or pydantic
    ``context_schema`` becomes an instance of it (the schema's own error, with a note,
    when it does not fit), as in LangGraph; anything else is passed as it is.

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Context:
    ...     user: str
    >>> coerce_context(Context, {"user": "ada"})
    Context(user='ada')

    Without such a schema, an empty context (``{}``, ``[]``, ``""``) is none, as in
    LangGraph:

    >>> coerce_context(None, {}) is None
    True
    """
    if context is not None and schema is not None and not _is_class(schema):
        raise TypeError(diagnose_run.context_schema_not_a_class(schema))  # (LangGraph's too)
    to_coerce = isinstance(context, dict) and isinstance(schema, type)
    if not (to_coerce and (dataclasses.is_dataclass(schema) or hasattr(schema, "model_fields"))):
        return context or None  # (LangGraph's: an empty context is none)
    try:
        return schema(**context)
    except Exception as error:  # TypeError for a dataclass, ValidationError for pydantic
        error.add_note(diagnose_run.context_does_not_fit(schema, context))
        raise


def _is_class(schema: Any) -> bool:
    """Whether ``issubclass`` takes ``schema``, as LangGraph's check of a context_schema
    does: a class, and a subscripted builtin (``dict[str, Any]``); not ``5``,
    ``Optional[...]`` or ``typing.Dict[...]``."""
    try:
        return issubclass(schema, object)
    except TypeError:
        return False
