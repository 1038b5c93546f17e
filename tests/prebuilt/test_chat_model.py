"""The model side of the agent: prompts, binding tools, the chat model inside, history."""

from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langchain_core.tools import tool

from graphkit.prebuilt import ScriptedChatModel
from graphkit.prebuilt.chat_model import (
    chat_model_of,
    check_history,
    prompt_runnable,
    state_value,
    with_tools,
)


@tool
def add(a: int, b: int) -> int:
    """Add."""
    return a + b


STATE = {"messages": [HumanMessage("hi")], "user": "ada"}


def test_prompt_shapes() -> None:
    def with_config(state: dict, config: RunnableConfig) -> list:
        return [SystemMessage(config["configurable"]["tone"]), *state["messages"]]

    runnable = RunnableLambda(lambda state: [SystemMessage(state["user"]), *state["messages"]])
    assert prompt_runnable(runnable).invoke(STATE)[0].content == "ada"
    config = {"configurable": {"tone": "calm"}}
    assert prompt_runnable(with_config).invoke(STATE, config)[0].content == "calm"


def test_state_value_reads_dicts_and_objects() -> None:
    class State:
        messages = ("m",)

    assert state_value(STATE, "user") == "ada"
    assert state_value(State(), "messages") == ("m",)
    assert state_value(State(), "missing", 0) == 0


def test_with_tools_binds_unless_bound_or_impossible() -> None:
    model = ScriptedChatModel()
    bound = with_tools(model, [add], [{"type": "web_search"}])
    assert len(bound.kwargs["tools"]) == 2
    assert with_tools(bound, [add], [{"type": "web_search"}]) is bound
    assert with_tools(model, [], []) is model
    fake = GenericFakeChatModel(messages=iter([]))
    assert with_tools(fake, [add], []) is fake
    pipeline = RunnableLambda(lambda x: x) | model.bind_tools([add])
    assert with_tools(pipeline, [add], []) is pipeline


def test_chat_model_of_unwraps_bindings_and_pipelines() -> None:
    model = ScriptedChatModel()
    assert chat_model_of(model.bind_tools([add])) is model
    assert chat_model_of(RunnableLambda(lambda x: x) | model) is model
    with pytest.raises(TypeError, match="needs a chat model"):
        chat_model_of(RunnableLambda(lambda x: x))


def test_check_history_wants_an_answer_for_every_call() -> None:
    call = {"name": "add", "args": {}, "id": "c1"}
    asked: list[Any] = [HumanMessage("hi"), AIMessage("", tool_calls=[call])]
    with pytest.raises(ValueError, match="without a ToolMessage"):
        check_history(asked)
    check_history([*asked, ToolMessage("3", tool_call_id="c1")])


def test_a_prompt_function_is_given_the_store_runtime_and_writer_it_asks_for() -> None:
    """As LangGraph's: a prompt is called like a node, so ``(state, store)`` (its
    long-term memory pattern), ``(state, runtime)`` and ``(state, writer)`` work."""
    from graphkit.prebuilt import create_react_agent
    from graphkit.store.memory import InMemoryStore

    store = InMemoryStore()
    store.put(("users",), "ada", {"tone": "calm"})
    seen: list = []

    def prompt(state: dict, store: Any, runtime: Any, writer: Any) -> list:
        writer("prompting")
        tone = store.get(("users",), runtime.context["user"]).value["tone"]
        return [SystemMessage(f"be {tone}"), *state["messages"]]

    model = ScriptedChatModel(responses=[lambda messages: seen.append(messages) or "ok"])
    agent = create_react_agent(model, [add], prompt=prompt, store=store, context_schema=dict)
    chunks = list(
        agent.stream({"messages": [("user", "hi")]}, context={"user": "ada"}, stream_mode="custom")
    )
    assert seen[0][0].content == "be calm"
    assert chunks == ["prompting"]
