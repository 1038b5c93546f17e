"""The top-level names DESIGN §3 promises (a contract: checks outside this repository
import them from ``graphkit``)."""

from __future__ import annotations

import importlib

import pytest

CONTRACT = [
    "StateGraph",
    "START",
    "END",
    "Send",
    "Command",
    "interrupt",
    "RetryPolicy",
    "InMemorySaver",
    "MemorySaver",
    "SqliteSaver",
    "add_messages",
    "MessagesState",
    "ToolNode",
    "tools_condition",
    "create_react_agent",
    "get_stream_writer",
    "GraphRecursionError",
    "InvalidUpdateError",
    "GraphInterrupt",
    "LastValue",
    "BinaryOperatorAggregate",
    "Topic",
    "EphemeralValue",
    "NamedBarrierValue",
    "AnyValue",
    "UntrackedValue",
]


@pytest.mark.parametrize("name", CONTRACT)
def test_the_contract_name_is_exported_from_graphkit(name):
    graphkit = importlib.import_module("graphkit")
    assert getattr(graphkit, name) is not None
    assert name in graphkit.__all__


def test_memory_saver_is_the_in_memory_saver():
    import graphkit

    assert graphkit.MemorySaver is graphkit.InMemorySaver
