"""The runtime a node sees, where LangGraph keeps it (``langgraph.runtime``): ``Runtime``,
its ``ExecutionInfo``, and ``get_runtime()``.

>>> from graphkit.runtime import Runtime
>>> Runtime(context={"user": "ada"}).context
{'user': 'ada'}
"""

from graphkit.pregel.runtime import ExecutionInfo, Runtime, get_runtime

__all__ = ["ExecutionInfo", "Runtime", "get_runtime"]
