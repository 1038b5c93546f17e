"""LangGraph's import path of its default serializer (``langgraph.checkpoint.serde.jsonplus``).

>>> from graphkit.checkpoint.serde.jsonplus import JsonPlusSerializer
>>> JsonPlusSerializer().loads_typed(JsonPlusSerializer().dumps_typed({"n": 1}))
{'n': 1}
"""

from graphkit.checkpoint.serde import JsonPlusSerializer, SerializerProtocol

__all__ = ["JsonPlusSerializer", "SerializerProtocol"]
