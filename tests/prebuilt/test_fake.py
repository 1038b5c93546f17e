"""ScriptedChatModel: scripted answers, token streaming, bind_tools, structured output."""

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from graphkit.prebuilt import ScriptedChatModel, ScriptExhaustedError


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


CALL = {"name": "add", "args": {"a": 1, "b": 2}, "id": "c1"}


def test_answers_in_order_and_records_what_it_was_sent() -> None:
    model = ScriptedChatModel(responses=[AIMessage("", tool_calls=[CALL]), "three"])
    first = model.invoke([HumanMessage("1 + 2?")])
    assert first.tool_calls == [{**CALL, "type": "tool_call"}]
    assert model.invoke("and?").content == "three"
    assert [[m.content for m in call] for call in model.calls] == [["1 + 2?"], ["and?"]]


def test_running_out_of_script_says_how_to_fix_it() -> None:
    model = ScriptedChatModel(responses=["only one"])
    model.invoke("a")
    with pytest.raises(ScriptExhaustedError) as caught:
        model.invoke("b")
    assert str(caught.value) == (
        "ScriptedChatModel was called 2 times but its script has 1 response; add the "
        "answer for call 2 to responses=[...]."
    )
    with pytest.raises(ScriptExhaustedError, match="called 1 time but its script has 0 "):
        ScriptedChatModel(responses=[]).invoke("a")


def test_a_response_can_be_a_function_of_the_messages() -> None:
    model = ScriptedChatModel(responses=[lambda messages: f"you said {messages[-1].content}"])
    assert model.invoke("hello").content == "you said hello"


def test_a_wrong_response_type_is_named() -> None:
    with pytest.raises(TypeError, match="response 1 is int"):
        ScriptedChatModel(responses=[42]).invoke("x")


def test_scripted_messages_are_copied_so_a_script_serves_many_runs() -> None:
    script = [AIMessage("same", id="fixed")]
    first = ScriptedChatModel(responses=script).invoke("x")
    first.name = "changed"
    assert ScriptedChatModel(responses=script).invoke("x").name is None
    assert script[0].name is None


def test_stream_splits_words_and_ends_with_the_tool_calls() -> None:
    model = ScriptedChatModel(responses=[AIMessage("let me add", tool_calls=[CALL], id="m1")])
    chunks = list(model.stream("x"))
    assert [chunk.content for chunk in chunks] == ["let", " ", "me", " ", "add", ""]
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged += chunk
    assert merged.content == "let me add"
    assert merged.tool_calls == [{**CALL, "type": "tool_call"}]
    assert {chunk.id for chunk in chunks} == {"m1"}
    assert chunks[-1].chunk_position == "last"


def test_streaming_callbacks_see_every_token_once() -> None:
    class Tokens(BaseCallbackHandler):
        def __init__(self) -> None:
            self.tokens: list[str] = []

        def on_llm_new_token(self, token: str, **kwargs: object) -> None:
            self.tokens.append(token)

    handler = Tokens()
    model = ScriptedChatModel(responses=["sunny in Paris"], streaming=True)
    answer = model.invoke("weather?", {"callbacks": [handler]})
    assert answer.content == "sunny in Paris"
    assert "".join(handler.tokens) == "sunny in Paris"


def test_bind_tools_passes_openai_schemas_and_keeps_the_script() -> None:
    model = ScriptedChatModel(responses=["bound"])
    bound = model.bind_tools([add], tool_choice="any")
    assert [t["function"]["name"] for t in bound.kwargs["tools"]] == ["add"]
    assert bound.kwargs["tool_choice"] == "any"
    assert bound.invoke("x").content == "bound"


def test_with_structured_output_parses_a_scripted_tool_call() -> None:
    class Weather(BaseModel):
        """The weather."""

        city: str

    call = {"name": "Weather", "args": {"city": "Oslo"}, "id": "s1"}
    model = ScriptedChatModel(responses=[AIMessage("", tool_calls=[call])])
    assert model.with_structured_output(Weather).invoke("x") == Weather(city="Oslo")
