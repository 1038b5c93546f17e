"""The top-level names DESIGN §3 promises (a contract: checks outside this repository
import them from ``graphkit``)."""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

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


# Names LangGraph exports that graphkit keeps where a moved app looks for them:
# (graphkit module, name, the LangGraph module that has it).
LANGGRAPH_PLACES = [
    ("graphkit.types", "Overwrite", "langgraph.types"),
    ("graphkit", "Overwrite", "langgraph.types"),
    ("graphkit.errors", "NodeInterrupt", "langgraph.errors"),
    ("graphkit", "NodeInterrupt", "langgraph.errors"),
    ("graphkit.graph.message", "MessageGraph", "langgraph.graph.message"),
    ("graphkit", "MessageGraph", "langgraph.graph"),
    ("graphkit.graph.message", "add_messages", "langgraph.graph.message"),
    ("graphkit.graph.message", "MessagesState", "langgraph.graph.message"),
    ("graphkit.errors", "LangGraphDeprecationWarning", "langgraph.warnings"),
    ("graphkit.errors", "LangGraphDeprecatedSinceV05", "langgraph.warnings"),
    ("graphkit.errors", "LangGraphDeprecatedSinceV10", "langgraph.warnings"),
    ("graphkit.errors", "LangGraphDeprecatedSinceV11", "langgraph.warnings"),
    ("graphkit", "get_store", "langgraph.config"),
    ("graphkit.store.memory", "InMemoryStore", "langgraph.store.memory"),
    ("graphkit.store.base", "BaseStore", "langgraph.store.base"),
    ("graphkit.cache.memory", "InMemoryCache", "langgraph.cache.memory"),
    ("graphkit.types", "CachePolicy", "langgraph.types"),
    ("graphkit.pregel", "Pregel", "langgraph.pregel"),
    ("graphkit.pregel", "NodeBuilder", "langgraph.pregel"),
    ("graphkit.func", "entrypoint", "langgraph.func"),
    ("graphkit.func", "task", "langgraph.func"),
    ("graphkit.types", "GraphOutput", "langgraph.types"),
    ("graphkit.types", "StreamPart", "langgraph.types"),
    ("graphkit.types", "ValuesStreamPart", "langgraph.types"),
    ("graphkit.types", "UpdatesStreamPart", "langgraph.types"),
    ("graphkit.types", "MessagesStreamPart", "langgraph.types"),
    ("graphkit.types", "CustomStreamPart", "langgraph.types"),
    ("graphkit.types", "CheckpointStreamPart", "langgraph.types"),
    ("graphkit.types", "TasksStreamPart", "langgraph.types"),
    ("graphkit.types", "DebugStreamPart", "langgraph.types"),
    ("graphkit.types", "TaskPayload", "langgraph.types"),
    ("graphkit.types", "TaskResultPayload", "langgraph.types"),
    ("graphkit.types", "CheckpointTask", "langgraph.types"),
    ("graphkit.types", "CheckpointPayload", "langgraph.types"),
    ("graphkit.types", "DebugPayload", "langgraph.types"),
    ("graphkit.types", "All", "langgraph.types"),
    ("graphkit.types", "StreamMode", "langgraph.types"),
    ("graphkit.types", "StreamWriter", "langgraph.types"),
    (
        "graphkit.checkpoint.serde.jsonplus",
        "JsonPlusSerializer",
        "langgraph.checkpoint.serde.jsonplus",
    ),
    ("graphkit.checkpoint.serde.base", "SerializerProtocol", "langgraph.checkpoint.serde.base"),
    ("graphkit.managed.is_last_step", "RemainingSteps", "langgraph.managed.is_last_step"),
    ("graphkit.managed.is_last_step", "IsLastStep", "langgraph.managed.is_last_step"),
    ("graphkit.stream", "GraphRunStream", "langgraph.stream"),
    ("graphkit.stream", "AsyncGraphRunStream", "langgraph.stream"),
    ("graphkit.stream", "SubgraphRunStream", "langgraph.stream"),
    ("graphkit.stream", "AsyncSubgraphRunStream", "langgraph.stream"),
    ("graphkit.stream", "StreamChannel", "langgraph.stream"),
    ("graphkit.stream", "StreamTransformer", "langgraph.stream"),
    ("graphkit.stream", "ProtocolEvent", "langgraph.stream"),
    ("graphkit.stream", "LifecyclePayload", "langgraph.stream"),
    ("graphkit.stream", "SubgraphStatus", "langgraph.stream"),
    ("graphkit.stream", "LifecycleTransformer", "langgraph.stream"),
    ("graphkit.stream", "SubgraphTransformer", "langgraph.stream"),
    ("graphkit.stream", "UpdatesTransformer", "langgraph.stream"),
    ("graphkit.stream", "CustomTransformer", "langgraph.stream"),
    ("graphkit.stream", "CheckpointsTransformer", "langgraph.stream"),
    ("graphkit.stream", "DebugTransformer", "langgraph.stream"),
    ("graphkit.stream", "TasksTransformer", "langgraph.stream"),
    ("graphkit.stream.transformers", "ValuesTransformer", "langgraph.stream.transformers"),
    ("graphkit.stream.transformers", "MessagesTransformer", "langgraph.stream.transformers"),
    ("graphkit.stream.run_stream", "GraphRunStream", "langgraph.stream.run_stream"),
    ("graphkit.stream.stream_channel", "StreamChannel", "langgraph.stream.stream_channel"),
]


@pytest.mark.parametrize(("module", "name", "theirs"), LANGGRAPH_PLACES)
def test_a_langgraph_name_is_importable_from_graphkit(module, name, theirs):
    assert getattr(importlib.import_module(theirs), name) is not None  # the oracle has it
    ours = importlib.import_module(module)
    assert getattr(ours, name) is not None
    if module == "graphkit":
        assert name in ours.__all__


def test_the_graphkit_and_types_overwrite_are_one_class():
    import graphkit
    import graphkit.types

    assert graphkit.Overwrite is graphkit.types.Overwrite


# A LangGraph app moves by renaming `langgraph` to `graphkit` in its imports: each of
# these LangGraph modules has a graphkit module at the same path with these names
# (docs/langgraph.md, "Moving an app").
RENAMED_IMPORTS = {
    "langgraph.graph": "StateGraph START END add_messages MessagesState MessageGraph",
    "langgraph.graph.state": "StateGraph CompiledStateGraph",
    "langgraph.graph.message": (
        "add_messages MessagesState MessageGraph REMOVE_ALL_MESSAGES RemoveMessage"
    ),
    "langgraph.types": (
        "Send Command interrupt Interrupt Overwrite RetryPolicy CachePolicy TimeoutPolicy "
        "StateSnapshot PregelTask StateUpdate StreamMode StreamWriter All Durability "
        "Checkpointer GraphOutput StreamPart"
    ),
    "langgraph.config": "get_config get_store get_stream_writer",
    "langgraph.callbacks": (
        "GraphCallbackHandler GraphInterruptEvent GraphResumeEvent GraphLifecycleEvent "
        "GraphLifecycleStatus"
    ),
    "langgraph.stream": (
        "GraphRunStream AsyncGraphRunStream SubgraphRunStream StreamTransformer StreamChannel "
        "UpdatesTransformer CustomTransformer"
    ),
    "langgraph.runtime": "Runtime ExecutionInfo RunControl get_runtime",
    "langgraph.constants": "START END TAG_NOSTREAM TAG_HIDDEN TASKS CONF CONFIG_KEY_CHECKPOINTER",
    "langgraph.warnings": (
        "LangGraphDeprecationWarning LangGraphDeprecatedSinceV05 LangGraphDeprecatedSinceV10 "
        "LangGraphDeprecatedSinceV11"
    ),
    "langgraph.errors": (
        "GraphRecursionError InvalidUpdateError GraphInterrupt NodeInterrupt ParentCommand "
        "EmptyInputError EmptyChannelError NodeError NodeTimeoutError NodeCancelledError "
        "GraphBubbleUp GraphDrained UnknownInterruptError ErrorCode create_error_message "
        "TaskNotFound"
    ),
    "langgraph.func": "entrypoint task",
    "langgraph.managed": "RemainingSteps IsLastStep",
    "langgraph.channels": (
        "LastValue BinaryOperatorAggregate Topic EphemeralValue NamedBarrierValue AnyValue "
        "UntrackedValue LastValueAfterFinish NamedBarrierValueAfterFinish BaseChannel "
        "DeltaChannel"
    ),
    "langgraph.channels.base": "BaseChannel MISSING",
    "langgraph.channels.last_value": "LastValue LastValueAfterFinish",
    "langgraph.channels.binop": "BinaryOperatorAggregate",
    "langgraph.channels.ephemeral_value": "EphemeralValue",
    "langgraph.channels.untracked_value": "UntrackedValue",
    "langgraph.channels.any_value": "AnyValue",
    "langgraph.channels.named_barrier_value": "NamedBarrierValue NamedBarrierValueAfterFinish",
    "langgraph.channels.topic": "Topic",
    "langgraph.channels.delta": "DeltaChannel",
    "langgraph.pregel": "Pregel NodeBuilder",
    "langgraph.checkpoint.memory": "InMemorySaver MemorySaver",
    "langgraph.checkpoint.sqlite": "SqliteSaver",
    "langgraph.checkpoint.sqlite.aio": "AsyncSqliteSaver",
    "langgraph.checkpoint.base": (
        "BaseCheckpointSaver CheckpointTuple Checkpoint CheckpointMetadata ChannelVersions "
        "PendingWrite get_checkpoint_id get_checkpoint_metadata"
    ),
    "langgraph.store.memory": "InMemoryStore BaseStore",
    "langgraph.store.base": "BaseStore Item",
    "langgraph.store.sqlite": "SqliteStore",
    "langgraph.store.sqlite.aio": "AsyncSqliteStore",
    "langgraph.cache.memory": "InMemoryCache",
    "langgraph.prebuilt": (
        "create_react_agent ToolNode tools_condition InjectedState InjectedStore ToolRuntime"
    ),
    "langgraph.prebuilt.tool_node": (
        "ToolNode tools_condition InjectedState InjectedStore ToolCallRequest"
    ),
    "langgraph.prebuilt.chat_agent_executor": (
        "create_react_agent AgentState AgentStateWithStructuredResponse"
    ),
}
RENAMED = [(module, name) for module, names in RENAMED_IMPORTS.items() for name in names.split()]


@pytest.mark.parametrize(("theirs", "name"), RENAMED)
def test_an_import_renamed_from_langgraph_finds_the_graphkit_name(theirs, name):
    with warnings.catch_warnings():  # (MessageGraph's deprecation is not the point)
        warnings.simplefilter("ignore")
        assert getattr(importlib.import_module(theirs), name) is not None  # the oracle has it
        ours = importlib.import_module("graphkit" + theirs.removeprefix("langgraph"))
        found = getattr(ours, name)
        graphkit = importlib.import_module("graphkit")
        if name in graphkit.__all__:  # one object, wherever it is imported from
            assert found is getattr(graphkit, name)


def test_the_moving_guide_names_every_renamed_module():
    text = (Path(__file__).parent.parent / "docs" / "langgraph.md").read_text()
    ours = ["graphkit" + module.removeprefix("langgraph") for module in RENAMED_IMPORTS]
    assert [module for module in ours if f"`{module}`" not in text] == []
