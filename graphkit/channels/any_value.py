"""LangGraph's import path of ``AnyValue``
(``langgraph.channels.any_value``): an app moved by renaming its imports finds them here.

>>> import graphkit.channels
>>> from graphkit.channels.any_value import AnyValue
>>> AnyValue is graphkit.channels.AnyValue
True
"""

from graphkit.channels import AnyValue

__all__ = ["AnyValue"]
