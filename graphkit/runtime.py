"""The runtime a node sees, where LangGraph keeps it (``langgraph.runtime``): ``Runtime``,
its ``ExecutionInfo`` and ``RunControl``, and ``get_runtime()``.

>>> from graphkit.runtime import Runtime
>>> Runtime(context={"user": "ada"}).context
{'user': 'ada'}
"""

from graphkit.pregel.runtime import ExecutionInfo, RunControl, Runtime, get_runtime

__all__ = ["ExecutionInfo", "RunControl", "Runtime", "get_runtime"]
