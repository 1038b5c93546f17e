"""graphkit's own v3 protocol checks (LangGraph's are in tests/conformance/
test_parity_stream_v3*.py): what graphkit refuses, and reprs."""

from __future__ import annotations

import warnings
from typing import TypedDict

import pytest

from graphkit import START, StateGraph
from graphkit.stream import StreamChannel, StreamTransformer
from graphkit.stream._start import EVERY_RUN, GRAPHKIT_MODES
from graphkit.streaming import STREAM_MODES

pytestmark = pytest.mark.filterwarnings("ignore:The v3 streaming protocol")


def app():
    builder = StateGraph(TypedDict("S", {"x": int})).add_node("a", lambda s: {"x": 2})
    return builder.add_edge(START, "a").compile()


def test_the_modes_v3_checks_are_the_streamed_ones():
    assert set(GRAPHKIT_MODES) == set(STREAM_MODES)


def test_every_run_needs_only_modes_graphkit_streams():
    assert {mode for kind in EVERY_RUN for mode in kind.required_stream_modes} <= set(STREAM_MODES)


class Tools(StreamTransformer):
    required_stream_modes = ("tools",)

    def init(self):
        return {}

    def process(self, event):
        return True


def test_a_transformer_needing_a_mode_graphkit_lacks_is_refused_up_front():
    with pytest.raises(NotImplementedError, match=r"stream mode 'tools'.*version='v2'"):
        app().stream_events({"x": 1}, version="v3", transformers=[Tools])


def test_reprs():
    run = app().stream_events({"x": 1}, version="v3")
    assert repr(run) == (
        "GraphRunStream(running, projections=['lifecycle', 'messages', 'subgraphs', 'values'])"
    )
    assert repr(run.values) == "StreamChannel(name=None, open, queued=0)"
    assert run.output == {"x": 2}
    assert repr(run).startswith("GraphRunStream(finished")
    assert repr(run._router) == (
        "EventRouter(scope=[], transformers=['ValuesTransformer', 'MessagesTransformer', "
        "'LifecycleTransformer', 'SubgraphTransformer'])"
    )


def test_a_named_channel_of_a_plain_transformer_is_forwarded_as_custom():
    class Steps(StreamTransformer):
        def init(self):
            self.channel = StreamChannel("steps")
            return {"steps": self.channel}

        def process(self, event):
            if event["method"] == "values":
                self.channel.push(event["params"]["data"]["x"])
            return True

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = app().stream_events({"x": 1}, version="v3", transformers=[Steps])
    methods = [(event["seq"], event["method"]) for event in run]
    assert methods == [(1, "custom:steps"), (2, "values"), (3, "custom:steps"), (4, "values")]
