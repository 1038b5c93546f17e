"""LangGraph's import path of ``BinaryOperatorAggregate``
(``langgraph.channels.binop``): an app moved by renaming its imports finds them here.

>>> import graphkit.channels
>>> from graphkit.channels.binop import BinaryOperatorAggregate
>>> BinaryOperatorAggregate is graphkit.channels.BinaryOperatorAggregate
True
"""

from graphkit.channels import BinaryOperatorAggregate

__all__ = ["BinaryOperatorAggregate"]
