"""LangGraph's import path of ``UntrackedValue``
(``langgraph.channels.untracked_value``): an app moved by renaming its imports finds them here.

>>> import graphkit.channels
>>> from graphkit.channels.untracked_value import UntrackedValue
>>> UntrackedValue is graphkit.channels.UntrackedValue
True
"""

from graphkit.channels import UntrackedValue

__all__ = ["UntrackedValue"]
