"""Behaviours hunt11 compared with LangGraph 1.2 and found to agree, kept so that a change
that parts them fails here: the functional API (``entrypoint.final`` with ``previous``,
tasks calling tasks, ``update_state`` on an entrypoint thread, a task's cache keyed by
``key_func``, a node's task paused and resumed), the Store (a ``fields`` index over
nested paths, ``list_namespaces`` with wildcards and ``max_depth``, an update's
timestamps), ``ToolNode`` (a ``messages_key`` agent loop, a tool's ``Command`` with
``Send``s, a ``Command`` beside a failed call), ``create_react_agent``'s hooks and
``response_format``, and a node returning ``Command``s mixed with ``Send``s or a
``Command`` with ``(key, value)`` pairs. Each test runs the same program on both."""

import contextlib
import importlib
import operator
import uuid
from types import SimpleNamespace
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, tool
from pydantic import BaseModel
from typing_extensions import TypedDict

from graphkit.prebuilt import ScriptedChatModel

SIDES = ("langgraph", "graphkit")

MODULES = {
    "func": ("entrypoint", "task"),
    "types": ("Command", "Send", "interrupt", "CachePolicy"),
    "graph": ("StateGraph", "START", "END", "MessagesState"),
    "graph.message": ("add_messages", "REMOVE_ALL_MESSAGES"),
    "checkpoint.memory": ("InMemorySaver",),
    "store.memory": ("InMemoryStore",),
    "cache.memory": ("InMemoryCache",),
    "prebuilt": ("ToolNode", "tools_condition", "create_react_agent"),
}


def _lib(side: str) -> SimpleNamespace:
    """The names these programs use, from one library's modules of the same paths."""
    names = {}
    for module, wanted in MODULES.items():
        loaded = importlib.import_module(f"{side}.{module}")
        names.update({name: getattr(loaded, name) for name in wanted})
    return SimpleNamespace(**names)


def _thread() -> dict[str, Any]:
    return {"configurable": {"thread_id": str(uuid.uuid4())}}


def _short(value: Any) -> Any:
    """Messages as (type, content), inside lists and dicts."""
    if isinstance(value, list):
        return [_short(item) for item in value]
    if isinstance(value, dict):
        return {key: _short(item) for key, item in value.items()}
    if hasattr(value, "type") and hasattr(value, "content"):
        return (value.type, value.content)
    return value


# -- the functional API ------------------------------------------------------------------


@pytest.mark.parametrize("side", SIDES)
def test_final_saves_one_value_and_returns_another(side):
    lib = _lib(side)

    @lib.entrypoint(checkpointer=lib.InMemorySaver())
    def running_total(n: int, *, previous=None):
        total = previous or 0
        return lib.entrypoint.final(value=total, save=total + n)

    config = _thread()
    assert [running_total.invoke(n, config) for n in (1, 2, 3)] == [0, 1, 3]
    assert running_total.get_state(config).values == 3  # what it returned, not saved
    assert list(running_total.stream(5, config, stream_mode=["updates", "values"])) == [
        ("updates", {"running_total": 6}),
        ("values", 6),
    ]
    history = [
        (s.values, s.metadata["source"], s.metadata["step"])
        for s in running_total.get_state_history(config)
    ]
    assert history[:3] == [(6, "loop", 6), (3, "input", 5), (3, "loop", 4)]
    assert history[-1] == (None, "input", -1)


@pytest.mark.parametrize("side", SIDES)
def test_tasks_calling_tasks_stream_each_call_before_its_caller(side):
    lib = _lib(side)

    @lib.task
    def double(x):
        return x * 2

    @lib.task
    def double_plus_one(x):
        return double(x).result() + 1

    @lib.entrypoint(checkpointer=lib.InMemorySaver())
    def main(n):
        return [double_plus_one(i).result() for i in range(n)]

    chunks = list(main.stream(2, _thread(), stream_mode="updates"))
    assert chunks == [
        {"double": 0},
        {"double_plus_one": 1},
        {"double": 2},
        {"double_plus_one": 3},
        {"main": [1, 3]},
    ]


@pytest.mark.parametrize("side", SIDES)
def test_update_state_on_an_entrypoint_becomes_the_next_previous(side):
    lib = _lib(side)

    @lib.entrypoint(checkpointer=lib.InMemorySaver())
    def echo(x, *, previous=None):
        return {"x": x, "prev": previous}

    config = _thread()
    echo.invoke(1, config)
    echo.update_state(config, {"x": 99})
    snapshot = echo.get_state(config)
    assert (snapshot.values, snapshot.next, snapshot.metadata["source"]) == (
        {"x": 99},
        (),
        "update",
    )
    assert echo.invoke(2, config) == {"x": 2, "prev": {"x": 99}}
    fresh = _thread()
    echo.update_state(fresh, 5, as_node="echo")
    assert echo.invoke(3, fresh) == {"x": 3, "prev": 5}


@pytest.mark.parametrize("side", SIDES)
def test_update_state_on_a_paused_entrypoint_ends_it_with_that_value(side):
    lib = _lib(side)

    @lib.entrypoint(checkpointer=lib.InMemorySaver())
    def ask(x):
        return f"got {lib.interrupt({'q': x})}"

    config = _thread()
    ask.invoke("a", config)
    assert ask.get_state(config).next == ("ask",)
    ask.update_state(config, "edited")
    assert (ask.get_state(config).values, ask.get_state(config).next) == ("edited", ())
    # graphkit adds a warning that the answer is ignored; LangGraph ignores it silently
    warned = (
        pytest.warns(importlib.import_module("graphkit.errors").GraphkitWarning)
        if side == "graphkit"
        else contextlib.nullcontext()
    )
    with warned:
        assert ask.invoke(lib.Command(resume="yes"), config) == "edited"


@pytest.mark.parametrize("side", SIDES)
def test_a_cached_task_keyed_by_key_func_gives_the_cached_value_back_as_saved(side):
    lib = _lib(side)
    ran = []

    @lib.task(cache_policy=lib.CachePolicy(key_func=lambda x, y: str(x)))
    def pair(x, y):
        ran.append(x)
        return (x, y)

    @lib.entrypoint(cache=lib.InMemoryCache())
    def main(args):
        return pair(*args).result()

    assert main.invoke([1, "a"]) == (1, "a")
    assert main.invoke([1, "b"]) == [1, "a"]  # the cache's copy, a tuple read as a list
    assert main.invoke([2, "b"]) == (2, "b")
    assert ran == [1, 2]


@pytest.mark.parametrize("side", SIDES)
def test_a_task_a_node_calls_pauses_the_node_and_takes_the_answer(side):
    lib = _lib(side)

    @lib.task
    def question():
        return lib.interrupt("q?")

    class State(TypedDict, total=False):
        v: int

    builder = lib.StateGraph(State)
    builder.add_node("a", lambda state: {"v": question().result()})
    builder.add_edge(lib.START, "a")
    app = builder.compile(checkpointer=lib.InMemorySaver())
    config = _thread()
    app.invoke({}, config)
    tasks = app.get_state(config).tasks
    assert [(t.name, [i.value for i in t.interrupts]) for t in tasks] == [("a", ["q?"])]
    assert app.invoke(lib.Command(resume=42), config) == {"v": 42}


@pytest.mark.parametrize("side", SIDES)
def test_a_task_never_waited_for_still_runs_after_its_entrypoint_returns(side):
    lib = _lib(side)

    @lib.task
    def side_effect(x):
        return x * 10

    @lib.entrypoint(checkpointer=lib.InMemorySaver())
    def main(x):
        side_effect(x)
        return "done"

    chunks = list(main.stream(1, _thread(), stream_mode="updates"))
    assert chunks == [{"main": "done"}, {"side_effect": 10}]


# -- the Store --------------------------------------------------------------------------


def _embed(texts: list[str]) -> list[list[float]]:
    return [[float(len(t)), float(t.count("a")), float(t.count("e")) + 1.0] for t in texts]


@pytest.mark.parametrize("side", SIDES)
def test_an_index_over_nested_fields_ranks_items_with_any_of_them(side):
    store = _lib(side).InMemoryStore(
        index={"dims": 3, "embed": _embed, "fields": ["meta.title", "tags[*]"]}
    )
    store.put(("a",), "k1", {"meta": {"title": "aaa"}, "tags": ["e", "ee"]})
    store.put(("a",), "k2", {"meta": {"title": "b"}, "tags": []})
    store.put(("a",), "k3", {"tags": ["a"]})
    found = [(i.key, round(i.score, 9)) for i in store.search(("a",), query="aa")]
    assert found == [("k1", 0.994134847), ("k3", 0.962250449), ("k2", 0.707106781)]
    assert [i.score for i in store.search(("a",), query="")] == [None, None, None]


@pytest.mark.parametrize("side", SIDES)
def test_list_namespaces_with_wildcards_depth_and_paging(side):
    store = _lib(side).InMemoryStore()
    for namespace in [("a", "b", "c"), ("a", "b", "d"), ("a", "x"), ("z", "b", "c"), ("a",)]:
        store.put(namespace, "k", {"v": 1})
    assert store.list_namespaces(prefix=("a", "*")) == [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("a", "x"),
    ]
    assert store.list_namespaces(suffix=("*", "c")) == [("a", "b", "c"), ("z", "b", "c")]
    assert store.list_namespaces(max_depth=2) == [
        ("a",),
        ("a", "b"),
        ("a", "x"),
        ("z", "b"),
    ]
    assert store.list_namespaces(prefix=("a",), max_depth=1) == [("a",)]
    assert store.list_namespaces(prefix=("a",), suffix=("d",)) == [("a", "b", "d")]
    assert store.list_namespaces(limit=2, offset=1) == [("a", "b", "c"), ("a", "b", "d")]


@pytest.mark.parametrize("side", SIDES)
def test_an_update_stamps_the_item_as_new(side):
    """Both in-memory stores give an updated item a new ``created_at`` too."""
    store = _lib(side).InMemoryStore()
    store.put(("n",), "k", {"v": 1})
    first = store.get(("n",), "k")
    store.put(("n",), "k", {"v": 2})
    second = store.get(("n",), "k")
    assert second.created_at > first.created_at
    assert second.updated_at >= second.created_at


@pytest.mark.parametrize("side", SIDES)
def test_a_comparison_on_a_field_the_item_has_matches_as_a_number(side):
    store = _lib(side).InMemoryStore()
    store.put(("a",), "1", {"n": 1})
    store.put(("a",), "2", {"n": 5})
    assert [i.key for i in store.search(("a",), filter={"n": {"$gt": 2}})] == ["2"]
    assert [i.key for i in store.search(("a",), filter={"n": {"$ne": 1}})] == ["2"]


# -- ToolNode and the agent -------------------------------------------------------------


@tool
def boom(x: int) -> str:
    """Always fails."""
    raise ValueError(f"bad {x}")


def _call(name: str, args: dict, call_id: str = "c1") -> AIMessage:
    return AIMessage("", tool_calls=[{"name": name, "args": args, "id": call_id}])


@pytest.mark.parametrize("side", SIDES)
def test_a_tool_node_with_messages_key_loops_with_tools_condition(side):
    lib = _lib(side)

    class State(TypedDict):
        msgs: Annotated[list, lib.add_messages]

    def agent(state):
        if len(state["msgs"]) < 2:
            return {"msgs": [_call("boom", {"x": 5})]}
        return {"msgs": [AIMessage("end")]}

    builder = lib.StateGraph(State)
    builder.add_node("agent", agent)
    builder.add_node("tools", lib.ToolNode([boom], messages_key="msgs", handle_tool_errors=True))
    builder.add_edge(lib.START, "agent")
    builder.add_conditional_edges("agent", lambda s: lib.tools_condition(s, messages_key="msgs"))
    builder.add_edge("tools", "agent")
    out = builder.compile().invoke({"msgs": [HumanMessage("hi")]})
    assert _short(out["msgs"])[1:] == [
        ("ai", ""),
        ("tool", "Error: ValueError('bad 5')\n Please fix your mistakes."),
        ("ai", "end"),
    ]


@pytest.mark.parametrize("side", SIDES)
def test_a_tools_command_beside_a_failed_call_keeps_both_messages(side):
    lib = _lib(side)

    @tool
    def with_id(x: int, tool_call_id: Annotated[str, InjectedToolCallId]) -> Any:
        """Answers with a Command."""
        message = ToolMessage(f"done {x}", tool_call_id=tool_call_id)
        return lib.Command(update={"messages": [message]})

    builder = lib.StateGraph(lib.MessagesState)
    builder.add_node("tools", lib.ToolNode([with_id, boom], handle_tool_errors=True))
    builder.add_edge(lib.START, "tools")
    calls = AIMessage(
        "",
        tool_calls=[
            {"name": "with_id", "args": {"x": 1}, "id": "a"},
            {"name": "boom", "args": {"x": 2}, "id": "b"},
        ],
    )
    out = builder.compile().invoke({"messages": [calls]})
    assert _short(out["messages"])[1:] == [
        ("tool", "done 1"),
        ("tool", "Error: ValueError('bad 2')\n Please fix your mistakes."),
    ]


class Answer(BaseModel):
    value: int


@pytest.mark.parametrize("side", SIDES)
def test_an_agent_with_both_hooks_and_a_response_format_runs_each_node_in_turn(side):
    lib = _lib(side)
    add_call = _call("add_one", {"x": 2}, "t1")
    structured = _call("Answer", {"value": 3}, "s1")

    @tool
    def add_one(x: int) -> int:
        """Adds one."""
        return x + 1

    agent = lib.create_react_agent(
        ScriptedChatModel(responses=[add_call, "three", structured]),
        [add_one],
        response_format=Answer,
        pre_model_hook=lambda state: {},
        post_model_hook=lambda state: {},
    )
    chunks = list(agent.stream({"messages": [("user", "x")]}, stream_mode="updates"))
    assert [next(iter(chunk)) for chunk in chunks] == [
        "pre_model_hook",
        "agent",
        "post_model_hook",
        "tools",
        "pre_model_hook",
        "agent",
        "post_model_hook",
        "generate_structured_response",
    ]
    assert chunks[-1]["generate_structured_response"]["structured_response"] == Answer(value=3)


@pytest.mark.parametrize("side", SIDES)
def test_a_pre_model_hook_that_removes_all_messages_replaces_the_history(side):
    lib = _lib(side)
    model = ScriptedChatModel(responses=["hi"])

    def pre(state):
        return {"messages": [RemoveMessage(id=lib.REMOVE_ALL_MESSAGES), HumanMessage("new")]}

    agent = lib.create_react_agent(model, [], pre_model_hook=pre)
    out = agent.invoke({"messages": [("user", "x")]})
    assert _short(out["messages"]) == [("human", "new"), ("ai", "hi")]
    assert _short(model.calls) == [[("human", "new")]]


# -- Commands and Sends from a node -----------------------------------------------------


class Log(TypedDict, total=False):
    log: Annotated[list, operator.add]
    x: int


def _fan_out(lib: SimpleNamespace, returned: Any) -> Any:
    builder = lib.StateGraph(Log)
    builder.add_node("a", lambda state: returned, destinations=("b", "c"))
    builder.add_node("b", lambda state: {"log": [f"b{state.get('x')}"]})
    builder.add_node("c", lambda state: {"log": [f"c:{state}"]})
    builder.add_edge(lib.START, "a")
    return builder.compile()


def _returns(lib: SimpleNamespace) -> dict[str, Any]:
    Command, Send = lib.Command, lib.Send
    return {
        "command-then-send": [Command(update={"x": 1}, goto="b"), Send("c", {"x": 2})],
        "goto-send-and-name": [Command(goto=[Send("c", 5), "b"]), Command(update={"log": ["a"]})],
        "command-and-dict": [Command(goto="b"), {"x": 3}],
        "pairs": Command(update=[("x", 4), ("log", ["t1"]), ("log", ["t2"])], goto="b"),
        "end-beside-send": [Command(goto=lib.END), Send("c", 9)],
    }


EXPECTED = {
    "command-then-send": [{"a": {"x": 1}}, {"b": {"log": ["b1"]}}],
    "goto-send-and-name": [
        {"a": {"log": ["a"]}},
        {"c": {"log": ["c:5"]}},
        {"b": {"log": ["bNone"]}},
    ],
    "command-and-dict": [{"a": {"x": 3}}, {"b": {"log": ["b3"]}}],
    "pairs": [{"a": [{"x": 4}, {"log": ["t1"]}, {"log": ["t2"]}]}, {"b": {"log": ["b4"]}}],
    "end-beside-send": [{"a": None}],
}


@pytest.mark.parametrize("case", list(EXPECTED))
@pytest.mark.parametrize("side", SIDES)
def test_a_node_returning_commands_mixed_with_sends(side, case):
    lib = _lib(side)
    app = _fan_out(lib, _returns(lib)[case])
    assert list(app.stream({"log": []}, stream_mode="updates")) == EXPECTED[case]


@pytest.mark.parametrize("returned", ["sends-alone", "command-and-name"])
@pytest.mark.parametrize("side", SIDES)
def test_a_list_without_a_command_for_each_send_is_refused(side, returned):
    lib = _lib(side)
    value = {
        "sends-alone": [lib.Send("c", 1), lib.Send("c", 2)],
        "command-and-name": [lib.Command(goto="b"), "c"],
    }[returned]
    with pytest.raises(importlib.import_module(f"{side}.errors").InvalidUpdateError):
        _fan_out(lib, value).invoke({"log": []})


# -- a Command(update=...) input to an entrypoint -------------------------------------------


def _echo_entrypoint(lib: SimpleNamespace) -> Any:
    @lib.entrypoint(checkpointer=lib.InMemorySaver())
    def echo(x, *, previous=None):
        return [x, previous]

    return echo


def test_langgraph_runs_an_entrypoint_on_the_command_given_to_update_it():
    """The update is written to a channel an entrypoint does not have and dropped; on a
    new thread the ``Command`` itself is then the entrypoint's input."""
    lib = _lib("langgraph")
    echo = _echo_entrypoint(lib)
    command = lib.Command(update=3)
    assert echo.invoke(command, _thread()) == [command, None]


def test_graphkit_refuses_an_entrypoints_update_input_naming_update_state():
    lib = _lib("graphkit")
    echo = _echo_entrypoint(lib)
    config = _thread()
    echo.invoke(1, config)
    errors = importlib.import_module("graphkit.errors")
    with pytest.raises(errors.InvalidUpdateError) as raised:
        echo.invoke(lib.Command(update=3), config)
    message = str(raised.value)
    assert "entrypoint 'echo'" in message
    assert "echo.update_state(config, 3)" in message
    assert "Command(resume=" in message
    assert "StateGraph(int)" not in message


def test_graphkit_stamps_a_new_item_once():
    """``created_at`` and ``updated_at`` come from one reading of the clock (LangGraph's
    ``InMemoryStore`` reads it twice, so its two differ about a third of the time)."""
    store = _lib("graphkit").InMemoryStore()
    for key in range(50):
        store.put(("n",), str(key), {})
        item = store.get(("n",), str(key))
        assert item.created_at == item.updated_at


@pytest.mark.parametrize("side", SIDES)
def test_the_openai_format_rewrites_blocks_and_flattens_a_tool_messages_text(side):
    add_messages = _lib(side).add_messages
    image = {"type": "image", "source_type": "url", "url": "http://x"}
    human = HumanMessage([{"type": "text", "text": "a"}, image], id="1")
    calls = AIMessage("", tool_calls=[{"name": "t", "args": {}, "id": "c"}], id="a")
    result = ToolMessage([{"type": "text", "text": "r"}], tool_call_id="c", id="t")
    merged = add_messages([calls], [human, result], format="langchain-openai")
    assert [(m.type, m.content) for m in merged] == [
        ("ai", ""),
        (
            "human",
            [
                {"type": "text", "text": "a"},
                {"type": "image_url", "image_url": {"url": "http://x"}},
            ],
        ),
        ("tool", "r"),
    ]
    with pytest.raises(ValueError):
        add_messages([], [], format="nope")
