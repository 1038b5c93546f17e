"""The runtime a node sees, where LangGraph keeps it (``langgraph.runtime``): ``Runtime``,
its ``ExecutionInfo``, ``ServerInfo`` and ``RunControl``, and ``get_runtime()``.

>>> from graphkit.runtime import Runtime
>>> Runtime(context={"user": "ada"}).context
{'user': 'ada'}
"""

from graphkit.pregel.runtime import ExecutionInfo, RunControl, Runtime, ServerInfo, get_runtime

__all__ = ["ExecutionInfo", "RunControl", "Runtime", "ServerInfo", "get_runtime"]
