"""Streaming: LangGraph's stream modes, built from the runtime's phase records.

The stepper (``graphkit.pregel.stepper``) only steps; this layer drives it to the end
and turns each phase into the chunks of the modes asked for (one emitter per mode).
``CompiledGraph.stream``, ``invoke``, ``astream`` and ``ainvoke`` all go through it;
``version="v2"`` hands each chunk on as a part (``graphkit.streaming.parts``).
"""

from graphkit.streaming.emitters import STREAM_MODES
from graphkit.streaming.parts import Collector, Parts
from graphkit.streaming.run import Listener, StreamRun, open_stream

__all__ = ["STREAM_MODES", "Collector", "Listener", "Parts", "StreamRun", "open_stream"]
