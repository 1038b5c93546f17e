"""LangGraph's deprecation warnings at LangGraph's import path (``langgraph.warnings``),
so that a filter written for LangGraph works unchanged on graphkit.

>>> import warnings
>>> from graphkit.warnings import LangGraphDeprecatedSinceV10
>>> with warnings.catch_warnings():
...     warnings.filterwarnings("error", category=LangGraphDeprecatedSinceV10)
"""

from graphkit.errors import (
    LangGraphDeprecatedSinceV05,
    LangGraphDeprecatedSinceV10,
    LangGraphDeprecatedSinceV11,
    LangGraphDeprecationWarning,
)

__all__ = [
    "LangGraphDeprecatedSinceV05",
    "LangGraphDeprecatedSinceV10",
    "LangGraphDeprecatedSinceV11",
    "LangGraphDeprecationWarning",
]
