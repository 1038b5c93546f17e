"""LangGraph's import path of ``LastValue`` and ``LastValueAfterFinish``
(``langgraph.channels.last_value``): an app moved by renaming its imports finds them here.

>>> import graphkit.channels
>>> from graphkit.channels.last_value import LastValue
>>> LastValue is graphkit.channels.LastValue
True
"""

from graphkit.channels import LastValue, LastValueAfterFinish

__all__ = ["LastValue", "LastValueAfterFinish"]
