"""Debug LangGraph apps as they are: ``from_langgraph`` turns a compiled LangGraph graph
into a graphkit one; ``open_langgraph_thread`` reads a thread LangGraph saved into
graphkit's records. LangGraph is imported only when one of them is called."""

from graphkit.bridge.convert import as_graphkit, from_langgraph, trace
from graphkit.bridge.threads import open_langgraph_thread, save_thread

__all__ = ["as_graphkit", "from_langgraph", "open_langgraph_thread", "save_thread", "trace"]
