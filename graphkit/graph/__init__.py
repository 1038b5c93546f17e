"""Declaring graphs: the StateGraph builder and its compilation."""

from graphkit.constants import END, START
from graphkit.graph.state import StateGraph

__all__ = ["END", "START", "StateGraph"]
