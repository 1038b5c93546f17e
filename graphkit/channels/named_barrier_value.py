"""LangGraph's import path of ``NamedBarrierValue`` and ``NamedBarrierValueAfterFinish``
(``langgraph.channels.named_barrier_value``): an app moved by renaming its imports finds them here.

>>> import graphkit.channels
>>> from graphkit.channels.named_barrier_value import NamedBarrierValue
>>> NamedBarrierValue is graphkit.channels.NamedBarrierValue
True
"""

from graphkit.channels import NamedBarrierValue, NamedBarrierValueAfterFinish

__all__ = ["NamedBarrierValue", "NamedBarrierValueAfterFinish"]
