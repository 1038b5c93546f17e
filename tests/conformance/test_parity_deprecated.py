"""Deprecated names LangGraph 1.2 still accepts (issue 14, item 15): graphkit accepts
each with a warning of the same class (``LangGraphDeprecatedSinceV10``...) and the same
behaviour, or refuses it with an error that names the replacement."""

from __future__ import annotations

import contextlib
import importlib
import warnings
from collections.abc import Callable
from typing import Any, TypedDict

import pytest
from typing_extensions import TypedDict as ExtTypedDict

from .harness import canonical
from .scenarios import SAVERS

PACKAGE = {"langgraph": "langgraph", "graphkit": "graphkit"}


def _module(library: str, langgraph_path: str, graphkit_path: str) -> Any:
    return importlib.import_module(langgraph_path if library == "langgraph" else graphkit_path)


def _caught(call: Callable[[], Any]) -> tuple[Any, list[str], BaseException | None]:
    """What ``call`` returned, the classes of the deprecation warnings it gave, and what
    it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result, error = call(), None
        except Exception as raised:
            result, error = None, raised
    names = [w.category.__name__ for w in caught if issubclass(w.category, DeprecationWarning)]
    return result, names, error


# -- the warning classes ---------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "LangGraphDeprecationWarning",
        "LangGraphDeprecatedSinceV05",
        "LangGraphDeprecatedSinceV10",
        "LangGraphDeprecatedSinceV11",
    ],
)
def test_the_warning_classes_match_langgraphs(name):
    theirs = getattr(importlib.import_module("langgraph.warnings"), name)
    ours = getattr(importlib.import_module("graphkit.errors"), name)
    assert [k.__name__ for k in ours.__mro__[:3]] == [k.__name__ for k in theirs.__mro__[:3]]
    assert issubclass(ours, DeprecationWarning)
    if name != "LangGraphDeprecationWarning":
        mine, oracle = ours("Old thing is deprecated."), theirs("Old thing is deprecated.")
        assert (mine.since, mine.expected_removal) == (oracle.since, oracle.expected_removal)
        assert (mine.message, str(mine).startswith("Old thing is deprecated")) == (
            oracle.message,
            True,
        )


# -- NodeInterrupt ---------------------------------------------------------------------


class Counter(TypedDict):
    n: int


def _node_interrupt_graph(library: str, saver: Any) -> Any:
    NodeInterrupt = _module(library, "langgraph.errors", "graphkit.errors").NodeInterrupt
    StateGraph = _module(library, "langgraph.graph", "graphkit").StateGraph

    def check(state):
        if state["n"] < 2:
            raise NodeInterrupt(f"n is {state['n']}")
        return {"n": state["n"] + 10}

    graph = StateGraph(Counter)
    graph.add_node("first", lambda state: {"n": state["n"]})
    graph.add_node("check", check)
    graph.add_edge("__start__", "first")
    graph.add_edge("first", "check")
    return graph.compile(checkpointer=saver)


def _shown(interrupts: Any) -> list[tuple[Any, str]]:
    return [(item.value, item.id) for item in interrupts]


def _node_interrupt_run(library: str, saver: Any) -> list[Any]:
    app = _node_interrupt_graph(library, saver)
    config = {"configurable": {"thread_id": "t"}}
    result, warned, error = _caught(lambda: app.invoke({"n": 1}, config))
    assert error is None
    snapshot = app.get_state(config)
    seen = [
        warned,
        result["n"],
        _shown(result["__interrupt__"]),
        snapshot.next,
        _shown(snapshot.interrupts),
        [_shown(task.interrupts) for task in snapshot.tasks],
    ]
    streamed, warned, _ = _caught(
        lambda: list(app.stream({"n": 0}, {"configurable": {"thread_id": "u"}}))
    )
    seen.append([warned, [(list(c), _shown(c.get("__interrupt__", ()))) for c in streamed]])
    app.update_state(config, {"n": 5})  # the fix LangGraph's docs give: change the state
    seen.append(canonical(app.invoke(None, config)))
    return seen


@pytest.mark.parametrize("saver", sorted(SAVERS))
def test_node_interrupt_pauses_and_warns_as_in_langgraph(saver):
    observed = {}
    for library in ("langgraph", "graphkit"):
        with SAVERS[saver](library) as checkpointer:
            observed[library] = _node_interrupt_run(library, checkpointer)
    assert observed["langgraph"][0] == ["LangGraphDeprecatedSinceV10"]
    assert observed["graphkit"] == observed["langgraph"]


def test_node_interrupt_is_a_graph_interrupt_and_is_exported():
    import graphkit
    from graphkit.errors import GraphInterrupt, NodeInterrupt

    assert graphkit.NodeInterrupt is NodeInterrupt
    assert issubclass(NodeInterrupt, GraphInterrupt)


# -- Interrupt.interrupt_id ------------------------------------------------------------


def test_interrupt_id_is_the_deprecated_name_of_id():
    observed = {}
    for library in ("langgraph", "graphkit"):
        Interrupt = _module(library, "langgraph.types", "graphkit.types").Interrupt
        made = Interrupt("approve?", "abc")
        value, warned, error = _caught(lambda made=made: made.interrupt_id)
        observed[library] = (value, warned, error, Interrupt("approve?").id)
    assert observed["graphkit"] == observed["langgraph"]


# -- MessageGraph ----------------------------------------------------------------------


def _message_graph_run(library: str) -> list[Any]:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    MessageGraph = _module(library, "langgraph.graph", "graphkit").MessageGraph
    builder, warned, error = _caught(MessageGraph)
    assert error is None
    call = {"name": "search", "id": "c1", "args": {"q": "x"}}
    builder.add_node("bot", lambda messages: [AIMessage("hello", id="ai1", tool_calls=[call])])
    builder.add_node("tool", lambda messages: ToolMessage("found", tool_call_id="c1", id="t1"))
    builder.set_entry_point("bot")
    builder.add_edge("bot", "tool")
    builder.set_finish_point("tool")
    app = builder.compile()
    given = [HumanMessage("hi", id="h1")]
    result = app.invoke(given)
    updates = list(app.stream(given, stream_mode="updates"))
    shown = [(type(m).__name__, m.content, m.id) for m in result]
    return [warned, shown, [list(chunk) for chunk in updates]]


def test_message_graph_runs_and_warns_as_in_langgraph():
    expected = _message_graph_run("langgraph")
    assert expected[0] == ["LangGraphDeprecatedSinceV10"]
    assert _message_graph_run("graphkit") == expected


def test_message_graph_and_the_message_helpers_import_from_where_langgraph_has_them():
    import graphkit
    import graphkit.prebuilt
    from graphkit.graph import message

    assert graphkit.MessageGraph is message.MessageGraph
    assert message.add_messages is graphkit.prebuilt.add_messages
    assert message.MessagesState is graphkit.prebuilt.MessagesState
    assert "MessageGraph" in graphkit.__all__


# -- every deprecated name LangGraph 1.2 accepts ---------------------------------------


def _graph(library: str) -> Any:
    graph = _module(library, "langgraph.graph", "graphkit").StateGraph(Counter)
    graph.add_node("inc", lambda state: {"n": state["n"] + 1})
    graph.add_edge("__start__", "inc")
    return graph


def _retry_policy(library: str) -> Any:
    return _module(library, "langgraph.types", "graphkit.types").RetryPolicy()


def _builder(library: str) -> Any:
    return _module(library, "langgraph.graph", "graphkit").StateGraph


def _react_agent(library: str, **options: Any) -> Any:
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel

    prebuilt = _module(library, "langgraph.prebuilt", "graphkit.prebuilt")
    return prebuilt.create_react_agent(FakeMessagesListChatModel(responses=[]), [], **options)


def _pregel_with_config_type(library: str) -> Any:
    pregel = _module(library, "langgraph.pregel", "graphkit.pregel")
    channels = _module(library, "langgraph.channels", "graphkit.channels")
    node = pregel.NodeBuilder().subscribe_only("a").do(lambda x: x + 1).write_to("b")
    return pregel.Pregel(
        nodes={"one": node},
        channels={"a": channels.LastValue(int), "b": channels.LastValue(int)},
        input_channels="a",
        output_channels="b",
        config_type=Counter,
    )


# name: (what a LangGraph 1.2 app does, given the library; LangGraph's warning class;
#        a word the refusal must contain)
DEPRECATED: dict[str, tuple[Callable[[str], Any], str, str | None]] = {
    "NodeInterrupt": (
        lambda lib: _module(lib, "langgraph.errors", "graphkit.errors").NodeInterrupt("x"),
        "LangGraphDeprecatedSinceV10",
        "interrupt",
    ),
    "Interrupt.interrupt_id": (
        lambda lib: _module(lib, "langgraph.types", "graphkit.types").Interrupt(1).interrupt_id,
        "LangGraphDeprecatedSinceV10",
        "id",
    ),
    "MessageGraph()": (
        lambda lib: _module(lib, "langgraph.graph", "graphkit").MessageGraph(),
        "LangGraphDeprecatedSinceV10",
        "StateGraph",
    ),
    "StateGraph(config_schema=...)": (
        lambda lib: _builder(lib)(Counter, config_schema=Counter),
        "LangGraphDeprecatedSinceV10",
        "context_schema",
    ),
    "create_react_agent(config_schema=...)": (
        lambda lib: _react_agent(lib, config_schema=Counter).context_schema is Counter or 1 / 0,
        "LangGraphDeprecatedSinceV10",
        "context_schema",
    ),
    "StateGraph(input=...)": (
        lambda lib: _builder(lib)(Counter, input=Counter),
        "LangGraphDeprecatedSinceV05",
        "input_schema",
    ),
    "StateGraph(output=...)": (
        lambda lib: _builder(lib)(Counter, output=Counter),
        "LangGraphDeprecatedSinceV05",
        "output_schema",
    ),
    "add_node(retry=...)": (
        lambda lib: _builder(lib)(Counter).add_node(
            "a", lambda state: state, retry=_retry_policy(lib)
        ),
        "LangGraphDeprecatedSinceV05",
        "retry_policy",
    ),
    "add_node(input=...)": (
        lambda lib: _builder(lib)(Counter).add_node("a", lambda state: state, input=Counter),
        "LangGraphDeprecatedSinceV05",
        "input_schema",
    ),
    "invoke(checkpoint_during=True)": (
        lambda lib: _graph(lib).compile().invoke({"n": 0}, checkpoint_during=True),
        "LangGraphDeprecatedSinceV10",
        "durability",
    ),
    "invoke(checkpoint_during=False)": (
        lambda lib: _graph(lib).compile().invoke({"n": 0}, checkpoint_during=False),
        "LangGraphDeprecatedSinceV10",
        "durability",
    ),
    "compiled.config_schema()": (
        lambda lib: _graph(lib).compile().config_schema(),
        "LangGraphDeprecatedSinceV10",
        "context",
    ),
    "compiled.get_config_jsonschema()": (
        lambda lib: _graph(lib).compile().get_config_jsonschema(),
        "LangGraphDeprecatedSinceV10",
        "context",
    ),
    "constants.Send": (
        lambda lib: _module(lib, "langgraph.constants", "graphkit.constants").Send,
        "LangGraphDeprecatedSinceV10",
        "graphkit.types",
    ),
    "constants.Interrupt": (
        lambda lib: _module(lib, "langgraph.constants", "graphkit.constants").Interrupt,
        "LangGraphDeprecatedSinceV10",
        "graphkit.types",
    ),
    "Pregel(config_type=...)": (
        lambda lib: _pregel_with_config_type(lib).context_schema is Counter or 1 / 0,
        "LangGraphDeprecatedSinceV10",
        "context_schema",
    ),
    "GraphOutput[key]": (
        lambda lib: _module(lib, "langgraph.types", "graphkit.types").GraphOutput({"a": 1})["a"],
        "LangGraphDeprecatedSinceV11",
        "value",
    ),
    "key in GraphOutput": (
        lambda lib: "a" in _module(lib, "langgraph.types", "graphkit.types").GraphOutput({"a": 1}),
        "LangGraphDeprecatedSinceV11",
        "value",
    ),
    "pregel.types module": (
        lambda lib: importlib.reload(
            _module(lib, "langgraph.pregel.types", "graphkit.pregel.types")
        ),
        "LangGraphDeprecatedSinceV10",
        "graphkit.types",
    ),
}


@pytest.mark.parametrize("name", list(DEPRECATED))
def test_a_deprecated_name_is_accepted_with_langgraphs_warning_or_refused_naming_the_fix(name):
    use, category, replacement = DEPRECATED[name]
    _, warned, error = _caught(lambda: use("langgraph"))
    assert error is None and category in warned  # the oracle: accepted, with this warning
    _, warned, error = _caught(lambda: use("graphkit"))
    if error is None:
        assert category in warned, f"{name} is accepted silently or under another warning"
    else:
        assert replacement in str(error), f"{name} is refused without naming {replacement}"


# -- the renamed arguments and moved names behave as the new ones -----------------------


def _renamed_run(library: str) -> list[Any]:
    """A graph built with every old argument name: a node with a private input schema
    (add_node(input=...)) that fails once and is retried (add_node(retry=...))."""
    StateGraph = _builder(library)
    failures = []

    def flaky(state):
        if not failures:
            failures.append(1)
            raise ValueError("once")
        return {"n": state["n"] + 1}

    def private(state):
        return {"n": state["n"] * 10}

    retry = _retry_policy(library)._replace(retry_on=ValueError, initial_interval=0.0)
    graph, warned, _ = _caught(lambda: StateGraph(Counter, input=Counter, output=Counter))
    seen = [warned]
    seen.append(_caught(lambda: graph.add_node("flaky", flaky, retry=retry))[1])
    seen.append(_caught(lambda: graph.add_node("private", private, input=Counter))[1])
    graph.add_edge("__start__", "flaky")
    graph.add_edge("flaky", "private")
    seen.append(canonical(graph.compile().invoke({"n": 1})))
    seen.append(len(failures))
    return seen


def test_the_old_argument_names_work_as_the_new_ones():
    expected = _renamed_run("langgraph")
    assert expected[-1] == 1 and expected[0]
    assert _renamed_run("graphkit") == expected


class Ctx(ExtTypedDict):  # pydantic needs typing_extensions' TypedDict on Python 3.11
    user: str


def _config_schemas(library: str) -> list[Any]:
    seen = []
    for context, name in ((None, None), (Ctx, "bot"), (Ctx, "Bot")):
        graph = _builder(library)(Counter, context_schema=context)
        graph.add_node("inc", lambda state: state)
        graph.add_edge("__start__", "inc")
        app = graph.compile(name=name) if name else graph.compile()
        model, warned, _ = _caught(lambda app=app: app.config_schema(include=["tags"]))
        schema, warned_too, _ = _caught(app.get_config_jsonschema)
        seen.append([model.__name__, model.model_json_schema(), warned, schema, warned_too])
    return seen


def test_config_schema_and_its_json_schema_match_langgraphs():
    expected = _config_schemas("langgraph")
    assert expected[1][4] == ["LangGraphDeprecatedSinceV10"]
    assert _config_schemas("graphkit") == expected


@pytest.mark.parametrize("name", ["Send", "Interrupt"])
def test_the_moved_names_are_the_types_ones(name):
    import graphkit.constants
    import graphkit.types

    moved, warned, _ = _caught(lambda: getattr(graphkit.constants, name))
    assert moved is getattr(graphkit.types, name)
    assert warned == ["LangGraphDeprecatedSinceV10"]
    with pytest.raises(AttributeError, match="NoSuchName"):
        graphkit.constants.NoSuchName  # noqa: B018


def test_pregel_types_re_exports_the_types_ones():
    import graphkit.types

    old, warned, _ = _caught(
        lambda: importlib.reload(importlib.import_module("graphkit.pregel.types"))
    )
    assert warned == ["LangGraphDeprecatedSinceV10"]
    import graphkit.pregel.thread_state as thread_state

    for name in old.__all__:  # the snapshot classes live with get_state
        home = graphkit.types if hasattr(graphkit.types, name) else thread_state
        assert getattr(old, name) is getattr(home, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import langgraph.pregel.types as langgraph_types
    # LangGraph's executable task has no graphkit twin (graphkit.pregel.records.Task is
    # a plain record)
    missing = set(langgraph_types.__all__) - set(old.__all__)
    assert missing == {"PregelExecutableTask"}


def _entrypoint_config_schemas(library: str) -> list[Any]:
    """``config_schema()`` / ``get_config_jsonschema()`` of an entrypoint and of a
    low-level ``Pregel``: their ``configurable`` is the context schema, as a graph's."""
    entrypoint = _module(library, "langgraph.func", "graphkit.func").entrypoint
    seen = []
    for options in ({"context_schema": Ctx}, {"config_schema": Ctx}, {}):
        made, _, _ = _caught(lambda options=options: entrypoint(**options)(lambda n: n))
        model, warned, _ = _caught(made.config_schema)
        schema, warned_too, _ = _caught(made.get_config_jsonschema)
        seen.append([model.model_json_schema(), warned, schema, warned_too])
    pregel, _, _ = _caught(lambda: _pregel_with_config_type(library))
    seen.append(_caught(pregel.get_config_jsonschema)[:2])
    return seen


def test_an_entrypoints_config_schema_holds_its_context_schema_as_in_langgraph():
    expected = _entrypoint_config_schemas("langgraph")
    assert "Ctx" in expected[0][0]["$defs"]
    assert _entrypoint_config_schemas("graphkit") == expected


class OtherCtx(ExtTypedDict):
    team: str


def _agent_options(library: str) -> list[Any]:
    """``create_react_agent(config_schema=...)`` beside ``context_schema=`` (the new name
    wins), and a keyword it does not take (LangGraph's ``TypeError``, its words first)."""
    both, _, error = _caught(
        lambda: _react_agent(library, config_schema=OtherCtx, context_schema=Ctx)
    )
    _, _, unknown = _caught(lambda: _react_agent(library, extra="extra"))
    return [both.context_schema.__name__, error, type(unknown).__name__, str(unknown)]


def test_create_react_agents_old_and_new_context_names_together_as_in_langgraph():
    expected = _agent_options("langgraph")
    assert expected[:3] == ["Ctx", None, "TypeError"]
    seen = _agent_options("graphkit")
    # (graphkit's fix follows LangGraph's whole message: the keywords it takes)
    assert seen[:3] == expected[:3] and seen[3].startswith(expected[3] + ". Its keywords are")


def _messages(call: Callable[[], Any]) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.suppress(Exception):  # (the refusals are compared above)
            call()
    return [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]


def _first_sentence(message: str) -> str:
    """What a warnings filter written for LangGraph names: its message's first sentence,
    with LangGraph's module paths spelled as graphkit's."""
    return message.split(". ")[0].replace("langgraph.", "graphkit.")


@pytest.mark.parametrize("name", list(DEPRECATED))
def test_a_deprecation_warning_opens_with_langgraphs_words(name):
    """So that ``filterwarnings("ignore:<LangGraph's message>")``, as LangGraph's own tests
    and many test suites write it, silences graphkit's warning too."""
    use = DEPRECATED[name][0]
    theirs = _messages(lambda: use("langgraph"))
    ours = _messages(lambda: use("graphkit"))
    # (create_react_agent warns once more in LangGraph: it moved to langchain.agents)
    expected = [_first_sentence(m) for m in theirs if "langchain.agents" not in m]
    assert [m[: len(start)] for m, start in zip(ours, expected, strict=True)] == expected
