"""LangGraph's import path of the serializer protocol (``langgraph.checkpoint.serde.base``)."""

from graphkit.checkpoint.serde import SerializerProtocol

__all__ = ["SerializerProtocol"]
