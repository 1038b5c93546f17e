"""LangGraph's v3 streaming protocol (``langgraph.stream``), experimental there too.

``app.stream_events(input, config, version="v3")`` returns a ``GraphRunStream``: iterate
it for protocol events (``{"type": "event", "method": "values", "params": {"namespace":
[...], "timestamp": ..., "data": ...}, "seq": 1}``), or read a projection:
``run.values``, ``run.subgraphs``, ``run.lifecycle``, ``run.messages`` and those of the
``transformers=[...]`` given; ``run.output`` is the final state. ``await
app.astream_events(..., version="v3")`` is the async twin. What graphkit supports of it:
docs/control-flow.md ("The v3 event protocol").

>>> import warnings
>>> from typing import TypedDict
>>> from graphkit import StateGraph, START
>>> from graphkit.stream import UpdatesTransformer
>>> app = StateGraph(TypedDict("S", {"x": int})).add_node("a", lambda s: {"x": 2})
>>> app = app.add_edge(START, "a").compile()
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")  # LangChainBetaWarning: experimental
...     run = app.stream_events({"x": 1}, version="v3", transformers=[UpdatesTransformer])
>>> list(run.updates), run.output
([{'a': {'x': 2}}], {'x': 2})
"""

from graphkit.stream._protocol import ProtocolEvent, StreamTransformer
from graphkit.stream.run_stream import (
    AsyncGraphRunStream,
    AsyncSubgraphRunStream,
    GraphRunStream,
    SubgraphRunStream,
)
from graphkit.stream.stream_channel import StreamChannel
from graphkit.stream.transformers import (
    CheckpointsTransformer,
    CustomTransformer,
    DebugTransformer,
    LifecyclePayload,
    LifecycleTransformer,
    SubgraphStatus,
    SubgraphTransformer,
    TasksTransformer,
    UpdatesTransformer,
)

__all__ = [
    "AsyncGraphRunStream",
    "AsyncSubgraphRunStream",
    "CheckpointsTransformer",
    "CustomTransformer",
    "DebugTransformer",
    "GraphRunStream",
    "LifecyclePayload",
    "LifecycleTransformer",
    "ProtocolEvent",
    "StreamChannel",
    "StreamTransformer",
    "SubgraphRunStream",
    "SubgraphStatus",
    "SubgraphTransformer",
    "TasksTransformer",
    "UpdatesTransformer",
]
