"""create_react_agent: its graph, model binding, options, persistence and bad input."""

from collections.abc import Sequence
from typing import Annotated, Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from graphkit import InMemorySaver
from graphkit.managed import RemainingSteps
from graphkit.prebuilt import (
    NEED_MORE_STEPS,
    AgentState,
    ScriptedChatModel,
    add_messages,
    create_react_agent,
)

THREAD = {"configurable": {"thread_id": "t"}}


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool
def explode(a: int) -> int:
    """Always fails."""
    raise ValueError("boom")


def asks(name: str = "add", call_id: str = "c1", **args: Any) -> AIMessage:
    return AIMessage(
        "", tool_calls=[{"name": name, "args": args or {"a": 1, "b": 2}, "id": call_id}]
    )


def nodes(app: Any) -> list[str]:
    return sorted(app.builder.nodes)


@pytest.mark.parametrize(
    ("tools", "options", "expected"),
    [
        ([], {}, ["agent"]),
        ([add], {}, ["agent", "tools"]),
        ([add], {"pre_model_hook": lambda s: {}}, ["agent", "pre_model_hook", "tools"]),
        ([add], {"post_model_hook": lambda s: {}}, ["agent", "post_model_hook", "tools"]),
        ([], {"response_format": dict}, ["agent", "generate_structured_response"]),
    ],
)
def test_the_graph_has_langgraphs_nodes(tools: list, options: dict, expected: list) -> None:
    assert nodes(create_react_agent(ScriptedChatModel(), tools, **options)) == expected


def test_tools_are_bound_to_the_model_it_is_sent() -> None:
    seen: list[Any] = []

    class Params(BaseCallbackHandler):
        def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
            seen.append(kwargs["invocation_params"].get("tools"))

    app = create_react_agent(ScriptedChatModel(responses=["hi"]), [add])
    app.invoke({"messages": [("user", "hi")]}, {"callbacks": [Params()]})
    assert [tool["function"]["name"] for tool in seen[0]] == ["add"]


def test_a_model_with_tools_bound_must_have_these_tools() -> None:
    bound = ScriptedChatModel(responses=["hi"]).bind_tools([add])
    assert (
        create_react_agent(bound, [add]).invoke({"messages": "hi"})["messages"][-1].content == "hi"
    )
    with pytest.raises(ValueError, match="has 1 tools bound"):
        create_react_agent(bound, [add, explode])
    with pytest.raises(ValueError, match=r"\['explode'\] are not bound"):
        create_react_agent(bound, [explode])


def test_a_model_that_cannot_bind_tools_is_used_as_it_is() -> None:
    model = GenericFakeChatModel(messages=iter([asks(), AIMessage("3")]))
    result = create_react_agent(model, [add]).invoke({"messages": "1 + 2?"})
    assert [m.type for m in result["messages"]] == ["human", "ai", "tool", "ai"]


def test_a_model_chosen_per_call_from_the_runtime() -> None:
    models = {"short": ScriptedChatModel(responses=["short answer"])}
    app = create_react_agent(lambda state, runtime: models[runtime.context], [add])
    result = app.invoke({"messages": "hi"}, context="short")
    assert result["messages"][-1].content == "short answer"


def test_the_agents_name_is_on_its_messages_and_its_graph() -> None:
    app = create_react_agent(ScriptedChatModel(responses=["hi"]), [], name="helper")
    assert app.invoke({"messages": "hi"})["messages"][-1].name == "helper"
    assert app.name == "helper"


def test_what_is_not_built_or_not_valid_says_so() -> None:
    async def pick(state: Any, runtime: Any) -> Any:
        return ScriptedChatModel()

    async def prompt(state: Any) -> list:
        return []

    given = {"messages": [("user", "hi")]}
    with pytest.raises(RuntimeError, match=r"model=<async function>.*ainvoke\(\) or astream"):
        create_react_agent(pick, [add]).invoke(given)
    with pytest.raises(TypeError, match=r"prompt=<async function>.*ainvoke\(\) or astream"):
        create_react_agent(ScriptedChatModel(), [add], prompt=prompt).invoke(given)
    with pytest.raises(ValueError, match="'v1' or 'v2'"):
        create_react_agent(ScriptedChatModel(), [add], version="v3")
    with pytest.raises(ValueError, match="use None, a string"):
        create_react_agent(ScriptedChatModel(), [add], prompt=42)
    with pytest.raises(TypeError, match="unexpected keyword arguments"):
        create_react_agent(ScriptedChatModel(), [add], colour="red")


def test_an_unknown_keyword_is_refused_with_the_keywords_taken() -> None:
    # LangGraph's words first (its tests match them), then the slip and the keywords
    with pytest.raises(TypeError) as refused:
        create_react_agent(ScriptedChatModel(), [add], promt="Be brief.")
    assert str(refused.value) == (
        "create_react_agent() got unexpected keyword arguments: {'promt': 'Be brief.'}. "
        "Did you mean prompt=? Its keywords are prompt, response_format, pre_model_hook, "
        "post_model_hook, state_schema, context_schema, checkpointer, store, "
        "interrupt_before, interrupt_after, debug, version, name."
    )


def test_a_custom_state_schema_needs_the_agents_keys() -> None:
    class Bare(BaseModel):
        messages: list

    with pytest.raises(ValueError, match=r"lacks key\(s\) \['remaining_steps'\]"):
        create_react_agent(ScriptedChatModel(), [add], state_schema=Bare)

    class Notes(AgentState):
        notes: str

    app = create_react_agent(ScriptedChatModel(responses=["ok"]), [add], state_schema=Notes)
    assert app.invoke({"messages": "hi", "notes": "kept"})["notes"] == "kept"


def test_config_schema_is_the_deprecated_name_of_context_schema() -> None:
    with pytest.warns(DeprecationWarning, match="context_schema"):
        create_react_agent(ScriptedChatModel(), [add], config_schema=dict)


def test_a_pydantic_state_with_a_pre_model_hook() -> None:
    class State(BaseModel):
        messages: Annotated[Sequence[BaseMessage], add_messages]
        remaining_steps: RemainingSteps = 25

    model = ScriptedChatModel(responses=[asks(), "3"])
    hook = lambda state: {"llm_input_messages": state.messages[-1:]}  # noqa: E731
    app = create_react_agent(model, [add], state_schema=State, pre_model_hook=hook)
    assert app.invoke({"messages": "1 + 2?"})["messages"][-1].content == "3"
    assert [len(call) for call in model.calls] == [1, 1]


def test_need_more_steps_instead_of_a_recursion_error() -> None:
    model = ScriptedChatModel(responses=[asks(call_id=f"c{i}") for i in range(5)])
    result = create_react_agent(model, [add]).invoke({"messages": "go"}, {"recursion_limit": 4})
    assert result["messages"][-1].content == NEED_MORE_STEPS


def test_a_conversation_continues_on_its_thread() -> None:
    model = ScriptedChatModel(responses=[asks(), "3", "you are welcome"])
    app = create_react_agent(model, [add], checkpointer=InMemorySaver())
    app.invoke({"messages": "1 + 2?"}, THREAD)
    result = app.invoke({"messages": "thanks"}, THREAD)
    assert [m.content for m in result["messages"]] == [
        "1 + 2?",
        "",
        "3",
        "3",
        "thanks",
        "you are welcome",
    ]


def test_breakpoint_before_tools_then_resume() -> None:
    model = ScriptedChatModel(responses=[asks(), "3"])
    app = create_react_agent(model, [add], checkpointer=InMemorySaver(), interrupt_before=["tools"])
    app.invoke({"messages": "1 + 2?"}, THREAD)
    assert app.get_state(THREAD).next == ("tools",)
    assert app.invoke(None, THREAD)["messages"][-1].content == "3"


def test_a_failing_tool_leaves_the_saved_history_intact() -> None:
    app = create_react_agent(
        ScriptedChatModel(responses=[asks("explode", a=1)]), [explode], checkpointer=InMemorySaver()
    )
    with pytest.raises(ValueError, match="boom"):
        app.invoke({"messages": "go"}, THREAD)
    state = app.get_state(THREAD)
    assert [m.type for m in state.values["messages"]] == ["human", "ai"]
    assert state.next == ("tools",)  # the failed step can be retried


def test_a_malformed_tool_call_ends_the_turn_as_in_langgraph() -> None:
    bad = {
        "name": "add",
        "args": "{'a'",
        "id": "c1",
        "error": "bad JSON",
        "type": "invalid_tool_call",
    }
    model = ScriptedChatModel(responses=[AIMessage("", invalid_tool_calls=[bad])])
    app = create_react_agent(model, [add], checkpointer=InMemorySaver())
    result = app.invoke({"messages": "go"}, THREAD)
    assert result["messages"][-1].invalid_tool_calls[0]["args"] == "{'a'"
    assert app.get_state(THREAD).next == ()


def test_in_memory_saver_refuses_objects_no_serializer_can_write() -> None:
    """Like LangGraph's InMemorySaver (and graphkit's SqliteSaver), graphkit's in-memory
    saver refuses an artifact the serializer cannot write, with a TypeError that names it."""

    class Opaque:
        pass

    @tool(response_format="content_and_artifact")
    def made() -> tuple[str, Any]:
        """Make an object."""
        return "made", Opaque()

    app = create_react_agent(
        ScriptedChatModel(responses=[asks("made", a=0), "ok"]), [made], checkpointer=InMemorySaver()
    )
    with pytest.raises(TypeError, match="Opaque"):
        app.invoke({"messages": "go"}, THREAD)


def test_updates_stream_shows_the_loop() -> None:
    model = ScriptedChatModel(responses=[asks(), "3"])
    chunks = list(
        create_react_agent(model, [add]).stream({"messages": "1 + 2?"}, stream_mode="updates")
    )
    assert [list(chunk) for chunk in chunks] == [["agent"], ["tools"], ["agent"]]


def test_ainvoke_and_astream_run_the_same_agent() -> None:
    import asyncio

    async def main() -> tuple[Any, list[Any]]:
        first = create_react_agent(ScriptedChatModel(responses=[asks(), "3"]), [add])
        second = create_react_agent(ScriptedChatModel(responses=[asks(), "3"]), [add])
        result = await first.ainvoke({"messages": "1 + 2?"})
        chunks = [
            chunk async for chunk in second.astream({"messages": "1 + 2?"}, stream_mode="updates")
        ]
        return result, chunks

    result, chunks = asyncio.run(main())
    assert result["messages"][-1].content == "3"
    assert [list(chunk) for chunk in chunks] == [["agent"], ["tools"], ["agent"]]


def test_an_async_chooser_serves_the_structured_answer_in_an_async_run() -> None:
    import asyncio

    class Answer(BaseModel):
        text: str

    structured = {"name": "Answer", "args": {"text": "ok"}, "id": "s1"}
    model = ScriptedChatModel(responses=["done", AIMessage("", tool_calls=[structured])])
    chosen = []

    async def pick(state: Any, runtime: Any) -> Any:
        await asyncio.sleep(0)
        chosen.append(len(state["messages"]))
        return model

    agent = create_react_agent(pick, [add], response_format=Answer)
    result = asyncio.run(agent.ainvoke({"messages": [("user", "hi")]}))
    assert result["structured_response"] == Answer(text="ok")
    assert chosen == [1, 2]  # the model call, then the structured one
    with pytest.raises(RuntimeError, match="ainvoke"):
        agent.invoke({"messages": [("user", "hi")]})
