"""LangGraph's import path of ``EphemeralValue``
(``langgraph.channels.ephemeral_value``): an app moved by renaming its imports finds them here.

>>> import graphkit.channels
>>> from graphkit.channels.ephemeral_value import EphemeralValue
>>> EphemeralValue is graphkit.channels.EphemeralValue
True
"""

from graphkit.channels import EphemeralValue

__all__ = ["EphemeralValue"]
