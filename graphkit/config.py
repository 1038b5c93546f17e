"""What a running node can fetch, where LangGraph keeps it (``langgraph.config``):
``get_config()``, ``get_store()`` and ``get_stream_writer()``.

>>> from graphkit.config import get_store
>>> get_store()
Traceback (most recent call last):
RuntimeError: get_store() works only inside a running node.
"""

from graphkit.pregel.runtime import get_config, get_store, get_stream_writer

__all__ = ["get_config", "get_store", "get_stream_writer"]
