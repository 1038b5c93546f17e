"""RunConfig.from_dict: LangGraph's defaults, validation of the recursion limit, and a
raw config dict that keeps whatever the caller put in it."""

import dataclasses

import pytest

from graphkit.pregel.config import DEFAULT_RECURSION_LIMIT, RunConfig

DEFAULT_RAW = {"metadata": {}, "callbacks": None, "configurable": {}}
"""As in LangGraph, no ``tags`` or ``recursion_limit`` key unless the caller gave one."""


def test_default_recursion_limit_is_langgraph_1_2s():
    from langgraph._internal._config import DEFAULT_RECURSION_LIMIT as LANGGRAPH_DEFAULT

    assert DEFAULT_RECURSION_LIMIT == 10007
    assert int(LANGGRAPH_DEFAULT) == DEFAULT_RECURSION_LIMIT


@pytest.mark.parametrize("config", [None, {}])
def test_defaults_for_a_missing_or_empty_config(config):
    run_config = RunConfig.from_dict(config)
    assert run_config.recursion_limit == 10007
    assert run_config.configurable == {}
    assert run_config.raw == DEFAULT_RAW


def test_constructor_defaults_match_from_dict():
    assert RunConfig().recursion_limit == 10007
    assert RunConfig().configurable == {}
    assert RunConfig().raw == {}


def test_repr_shows_limit_and_configurable_but_not_raw():
    run_config = RunConfig.from_dict(
        {"recursion_limit": 5, "configurable": {"user": "ada"}, "tags": ["x"]}
    )
    assert repr(run_config) == "RunConfig(recursion_limit=5, configurable={'user': 'ada'})"


def test_a_valid_limit_is_kept():
    assert RunConfig.from_dict({"recursion_limit": 1}).recursion_limit == 1
    run_config = RunConfig.from_dict({"recursion_limit": 42})
    assert run_config.recursion_limit == 42
    assert run_config.raw["recursion_limit"] == 42


@pytest.mark.parametrize(
    ("limit", "shown"),
    [("5", "'5'"), (5.0, "5.0"), ([3], "[3]")],
)
def test_a_limit_that_is_not_an_int_is_a_type_error(limit, shown):
    with pytest.raises(TypeError) as excinfo:
        RunConfig.from_dict({"recursion_limit": limit})
    assert str(excinfo.value) == f"recursion_limit must be an int, got {shown}."


def test_a_bool_limit_is_the_int_it_equals_as_in_langgraph():
    run_config = RunConfig.from_dict({"recursion_limit": True})
    assert run_config.recursion_limit == 1 and type(run_config.recursion_limit) is int
    assert run_config.raw["recursion_limit"] is True  # the config as given, as in LangGraph


@pytest.mark.parametrize("limit", [0, -1, -10007, False])
def test_a_limit_below_one_is_a_value_error_that_says_what_it_counts(limit):
    with pytest.raises(ValueError) as excinfo:
        RunConfig.from_dict({"recursion_limit": limit})
    assert str(excinfo.value) == (
        f"recursion_limit must be at least 1, got {limit!r}; it counts the supersteps "
        "a run may take after its input."
    )


def test_configurable_is_copied_from_the_callers_dict():
    configurable = {"thread_id": "t1", "user": "ada"}
    run_config = RunConfig.from_dict({"configurable": configurable})
    configurable["user"] = "grace"
    assert run_config.configurable == {"thread_id": "t1", "user": "ada"}
    assert run_config.raw["configurable"] == {"thread_id": "t1", "user": "ada"}
    assert run_config.configurable is not configurable


def test_configurable_none_becomes_an_empty_dict():
    run_config = RunConfig.from_dict({"configurable": None})
    assert run_config.configurable == {}
    assert run_config.raw["configurable"] == {}


def test_given_tags_metadata_and_callbacks_are_kept():
    callbacks = [object()]
    run_config = RunConfig.from_dict(
        {"tags": ["a", "b"], "metadata": {"source": "test"}, "callbacks": callbacks}
    )
    assert run_config.raw["tags"] == ["a", "b"]
    assert run_config.raw["metadata"] == {"source": "test"}
    assert run_config.raw["callbacks"] is callbacks


def test_user_keys_are_kept_in_raw():
    run_config = RunConfig.from_dict(
        {"run_name": "nightly", "thread_id": 3, "custom": {"nested": [1, 2]}}
    )
    assert run_config.raw == {
        **DEFAULT_RAW,
        "run_name": "nightly",
        "thread_id": 3,
        "custom": {"nested": [1, 2]},
    }
    assert run_config.configurable == {}


def test_the_callers_dict_is_not_changed():
    config = {"recursion_limit": 3, "run_name": "x"}
    RunConfig.from_dict(config)
    assert config == {"recursion_limit": 3, "run_name": "x"}


def test_run_config_is_frozen():
    run_config = RunConfig.from_dict(None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        run_config.recursion_limit = 3


def test_tags_and_metadata_given_as_none_become_empty():
    run_config = RunConfig.from_dict({"tags": None, "metadata": None, "configurable": None})
    assert run_config.raw == DEFAULT_RAW


def test_tags_become_a_list_and_metadata_a_copy():
    metadata = {"source": "test"}
    run_config = RunConfig.from_dict({"tags": ("a", "b"), "metadata": metadata})
    metadata["source"] = "changed"
    assert run_config.raw["tags"] == ["a", "b"]
    assert run_config.raw["metadata"] == {"source": "test"}


def test_a_config_that_is_not_a_dict_says_what_a_config_looks_like():
    from typing import TypedDict

    from graphkit import START, StateGraph

    class Counter(TypedDict):
        n: int

    builder = StateGraph(Counter)
    builder.add_node("inc", lambda state: {"n": state["n"] + 1})
    builder.add_edge(START, "inc")
    with pytest.raises(TypeError, match=r"config must be a dict, got str 'thread-1'.*thread_id"):
        builder.compile().invoke({"n": 1}, "thread-1")


@pytest.mark.parametrize("method", ["invoke", "get_state", "update_state", "get_state_history"])
def test_a_state_snapshot_given_as_config_says_to_pass_its_config(method):
    # a learner who found a checkpoint in get_state_history passes the snapshot itself
    from typing import TypedDict

    from graphkit import START, InMemorySaver, StateGraph

    class Counter(TypedDict):
        n: int

    builder = StateGraph(Counter)
    builder.add_node("inc", lambda state: {"n": state["n"] + 1})
    builder.add_edge(START, "inc")
    app = builder.compile(checkpointer=InMemorySaver())
    app.invoke({"n": 1}, {"configurable": {"thread_id": "t"}})
    snapshot = app.get_state({"configurable": {"thread_id": "t"}})
    arguments = {
        "invoke": (None, snapshot),
        "get_state": (snapshot,),
        "update_state": (snapshot, {"n": 5}),
        "get_state_history": (snapshot,),
    }[method]
    with pytest.raises(TypeError) as raised:
        result = getattr(app, method)(*arguments)
        list(result) if method == "get_state_history" else None
    message = str(raised.value)
    assert "got a StateSnapshot" in message and "snapshot.config" in message
    assert "values=" not in message  # not the whole snapshot, which can be pages long


def test_only_a_checkpoint_given_as_config_is_told_to_pass_its_config():
    # a graph made with with_config has a .config too, but it is no checkpoint; a
    # checkpointer's CheckpointTuple is one, and its .config is the one to pass
    from typing import TypedDict

    from graphkit import START, InMemorySaver, StateGraph

    class Counter(TypedDict):
        n: int

    builder = StateGraph(Counter)
    builder.add_node("inc", lambda state: {"n": state["n"] + 1})
    builder.add_edge(START, "inc")
    saver = InMemorySaver()
    app = builder.compile(checkpointer=saver)
    thread = {"configurable": {"thread_id": "t"}}
    app.invoke({"n": 1}, thread)
    with pytest.raises(TypeError) as raised:
        app.invoke({"n": 1}, app.with_config(thread))
    assert "checkpoint" not in str(raised.value)
    assert "got CompiledGraph" in str(raised.value) and "thread_id" in str(raised.value)
    with pytest.raises(TypeError, match=r"got a CheckpointTuple .*checkpoint\.config"):
        app.get_state(saver.get_tuple(thread))


@pytest.mark.parametrize("key", ["configurable", "metadata"])
@pytest.mark.parametrize("value", ["oops", 5, [("thread_id", "t")]])
def test_configurable_or_metadata_that_is_not_a_dict_names_the_key(key, value):
    with pytest.raises(TypeError, match=rf"config's '{key}' must be a dict, got .*write '{key}'"):
        RunConfig.from_dict({key: value})


@pytest.mark.parametrize("value", ["oops", 5])
def test_a_run_whose_configurable_is_not_a_dict_is_refused_by_name(value):
    # the run read the server info out of it first: AttributeError "'str' has no 'get'"
    from typing import TypedDict

    from graphkit import START, StateGraph

    app = StateGraph(TypedDict("S", {"n": int})).add_node("a", lambda state: {})
    with pytest.raises(TypeError, match=r"config's 'configurable' must be a dict"):
        app.add_edge(START, "a").compile().invoke({"n": 1}, {"configurable": value})


@pytest.mark.parametrize(
    "limit, error, says",
    [(0, ValueError, "above 0, got 0"), (-2, ValueError, "above 0"), ("2", TypeError, "number")],
)
def test_a_max_concurrency_that_is_no_limit_says_what_it_counts(limit, error, says):
    with pytest.raises(error, match=rf"max_concurrency must be .*{says}.*tasks of a step"):
        RunConfig.from_dict({"max_concurrency": limit})


def test_a_config_key_given_to_invoke_says_it_goes_in_the_config():
    from typing import TypedDict

    from graphkit import START, StateGraph

    class Counter(TypedDict):
        n: int

    app = StateGraph(Counter).add_node("inc", lambda s: {"n": 1}).add_edge(START, "inc").compile()
    with pytest.raises(
        TypeError, match=r"\['recursion_limit'\]; put recursion_limit in the config"
    ):
        app.invoke({"n": 1}, recursion_limit=5)
    with pytest.raises(TypeError, match=r"\['stream_modes'\]; the run options are"):
        list(app.stream({"n": 1}, stream_modes="values"))  # a misspelt option
    with pytest.raises(TypeError, match=r"\['record'\]"):
        app.invoke({"n": 1}, record=False)  # graphkit's own, for app.stepper(...) only
    assert app.invoke({"n": 1}, interrupt_before=[]) == {"n": 1}  # a run option


def test_invoke_takes_langgraph_s_debug_and_prints_as_it_runs(capsys):
    from typing import TypedDict

    from graphkit import START, StateGraph

    class Counter(TypedDict):
        n: int

    app = StateGraph(Counter).add_node("inc", lambda s: {"n": 2}).add_edge(START, "inc").compile()
    assert app.invoke({"n": 1}, debug=True) == {"n": 2}
    printed = capsys.readouterr().out
    assert "[updates]" in printed and "{'inc': {'n': 2}}" in printed
    app.invoke({"n": 1}, debug=False)
    assert capsys.readouterr().out == ""


def test_a_durability_that_is_not_one_of_langgraph_s_is_a_value_error():
    from typing import TypedDict

    from graphkit import START, InMemorySaver, StateGraph

    class State(TypedDict):
        x: int

    app = StateGraph(State).add_node("a", lambda state: {"x": 1}).add_edge(START, "a")
    app = app.compile(checkpointer=InMemorySaver())
    with pytest.raises(ValueError, match=r"durability must be one of \['sync', 'async', 'exit'\]"):
        app.invoke({"x": 0}, {"configurable": {"thread_id": "t"}}, durability="fast")


def test_a_zero_limit_given_to_with_config_is_refused_where_langgraph_ignores_it():
    """LangGraph drops a falsy ``recursion_limit`` given to ``with_config`` and runs under
    its default; graphkit refuses it as it refuses the same limit given to ``invoke``
    (docs/compatibility.md, "Differs on purpose")."""
    from typing import TypedDict

    from langgraph.graph import START as LG_START
    from langgraph.graph import StateGraph as LGStateGraph

    from graphkit import START, StateGraph

    class State(TypedDict):
        n: int

    def build(graph_class: type, start: str) -> object:
        graph = graph_class(State)
        graph.add_node("step", lambda state: {"n": state["n"] + 1})
        graph.add_edge(start, "step")
        return graph.compile().with_config(recursion_limit=0)

    assert build(LGStateGraph, LG_START).invoke({"n": 0}) == {"n": 1}
    with pytest.raises(ValueError, match="recursion_limit must be at least 1, got 0"):
        build(StateGraph, START).invoke({"n": 0})
