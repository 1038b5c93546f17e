"""Deprecated home of some types (as LangGraph's ``langgraph.pregel.types``): importing
it still works, with a ``LangGraphDeprecatedSinceV10``; import from ``graphkit.types``.

>>> import importlib, warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     old = importlib.reload(importlib.import_module("graphkit.pregel.types"))
>>> import graphkit.types
>>> old.RetryPolicy is graphkit.types.RetryPolicy, caught[0].category.__name__
(True, 'LangGraphDeprecatedSinceV10')
"""

from __future__ import annotations

import warnings

from graphkit.errors import LangGraphDeprecatedSinceV10
from graphkit.pregel.thread_state import PregelTask, StateSnapshot
from graphkit.types import (
    All,
    CachePolicy,
    RetryPolicy,
    StateUpdate,
    StreamMode,
    StreamWriter,
    default_retry_on,
)

__all__ = [
    "All",
    "CachePolicy",
    "PregelTask",
    "RetryPolicy",
    "StateSnapshot",
    "StateUpdate",
    "StreamMode",
    "StreamWriter",
    "default_retry_on",
]

warnings.warn(
    "Importing from graphkit.pregel.types is deprecated. Please use "
    "'from graphkit.types import ...' instead.",
    LangGraphDeprecatedSinceV10,
    stacklevel=2,
)
