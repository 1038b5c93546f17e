"""Cases about nodes and the builder: naming, node kinds, config, schemas, what a node returns.

No `from __future__ import annotations`: the libraries read these annotations at runtime.
A node's `config` parameter is left unannotated on purpose: LangGraph passes the config only
to a parameter named `config` that is unannotated or typed `RunnableConfig`.
"""

import operator
from typing import Annotated, Any, TypedDict

from .harness import Case, Lib, appender


class Log(TypedDict):
    log: Annotated[list, operator.add]


class Counter(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def shout(state: Counter) -> dict:
    return {"log": [f"n is {state['n']}"]}


def name_from_function(lib: Lib):
    graph = lib.StateGraph(Counter)
    graph.add_node(shout)  # named "shout" after the function
    graph.add_edge(lib.START, "shout")
    graph.add_edge("shout", lib.END)
    return graph.compile()


def runnable_object_node(lib: Lib):
    """An object with `.invoke`: LangGraph takes a langchain-core Runnable."""
    from langchain_core.runnables import Runnable

    class Doubler(Runnable):
        def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> dict:
            return {"n": input["n"] * 2, "log": ["doubled"]}

    graph = lib.StateGraph(Counter)
    graph.add_node("doubler", Doubler())
    graph.add_edge(lib.START, "doubler")
    return graph.compile()


class AddTo:
    """A callable object as a node."""

    def __init__(self, amount: int) -> None:
        self.amount = amount

    def __call__(self, state: Counter) -> dict:
        return {"n": state["n"] + self.amount}


def callable_object_node(lib: Lib):
    graph = lib.StateGraph(Counter)
    graph.add_node("add_three", AddTo(3))
    graph.add_node("add_four", AddTo(4))
    graph.add_edge(lib.START, "add_three")
    graph.add_edge("add_three", "add_four")
    return graph.compile()


class Ticket(TypedDict):
    question: str
    secret: str
    notes: Annotated[list, operator.add]


class QuestionOnly(TypedDict):
    question: str


def node_input_schema(lib: Lib):
    """The node sees only the keys of its own input schema."""

    def peek(state: QuestionOnly) -> dict:
        return {"notes": [sorted(state)]}

    graph = lib.StateGraph(Ticket)
    graph.add_node("peek", peek, input_schema=QuestionOnly)
    graph.add_node("peek_all", lambda state: {"notes": [sorted(state)]})
    graph.add_edge(lib.START, "peek")
    graph.add_edge("peek", "peek_all")
    return graph.compile()


def metadata_in_config(lib: Lib):
    """Node metadata reaches the node through config["metadata"]."""

    def team_of(state: Log, config) -> dict:
        return {"log": [config["metadata"].get("team", "none")]}

    graph = lib.StateGraph(Log)
    graph.add_node("team", team_of, metadata={"team": "blue"})
    graph.add_node("no_team", team_of)
    graph.add_edge(lib.START, "team")
    graph.add_edge("team", "no_team")
    return graph.compile()


def configurable(lib: Lib):
    def greet(state: Log, config) -> dict:
        user = config["configurable"].get("user", "nobody")
        return {"log": [f"hello {user}"]}

    graph = lib.StateGraph(Log)
    graph.add_node("greet", greet)
    graph.add_edge(lib.START, "greet")
    return graph.compile()


def no_configurable(lib: Lib):
    """Without "configurable" in the run's config, a node still finds the key."""
    return configurable(lib)


class AppendTwice:
    def __init__(self, word: str) -> None:
        self.word = word

    def __call__(self, state: Log) -> dict:
        return {"log": [self.word, self.word]}


def first(state: Log) -> dict:
    return {"log": ["first"]}


def sequence(lib: Lib):
    graph = lib.StateGraph(Log)
    graph.add_sequence([first, ("second", appender("second")), ("third", AppendTwice("third"))])
    graph.add_edge(lib.START, "first")
    return graph.compile()


def entry_and_finish_point(lib: Lib):
    graph = lib.StateGraph(Log)
    graph.add_node("a", appender("a"))
    graph.add_node("b", appender("b"))
    graph.set_entry_point("a")
    graph.add_edge("a", "b")
    graph.set_finish_point("b")
    return graph.compile()


def returns_none(lib: Lib):
    """A node that returns None writes nothing (and no "values" chunk follows its step)."""
    graph = lib.StateGraph(Counter)
    graph.add_node("quiet", lambda state: None)
    graph.add_node("loud", lambda state: {"log": ["loud"]})
    graph.add_edge(lib.START, "quiet")
    graph.add_edge("quiet", "loud")
    return graph.compile()


def returns_none_last(lib: Lib):
    graph = lib.StateGraph(Counter)
    graph.add_node("quiet", lambda state: None)
    graph.add_edge(lib.START, "quiet")
    return graph.compile()


def unknown_key_in_update(lib: Lib):
    graph = lib.StateGraph(Counter)
    graph.add_node("typo", lambda state: {"n": 1, "nn": 2})
    graph.add_edge(lib.START, "typo")
    return graph.compile()


def unknown_key_in_input(lib: Lib):
    graph = lib.StateGraph(Counter)
    graph.add_node("inc", lambda state: {"n": state["n"] + 1})
    graph.add_edge(lib.START, "inc")
    return graph.compile()


class Question(TypedDict):
    question: str


class Answer(TypedDict):
    answer: str


class Work(TypedDict):
    question: str
    draft: str
    answer: str


def graph_input_output_schema(lib: Lib):
    """Output is filtered to the output schema; the "values" stream is not."""

    def think(state: Work) -> dict:
        return {"draft": state["question"] + "?"}

    def reply(state: Work) -> dict:
        return {"answer": state["draft"] + "!"}

    graph = lib.StateGraph(Work, input_schema=Question, output_schema=Answer)
    graph.add_sequence([think, reply])
    graph.add_edge(lib.START, "think")
    return graph.compile()


def empty_dict_input(lib: Lib):
    graph = lib.StateGraph(Counter)
    graph.add_node("start_at_one", lambda state: {"n": state.get("n", 0) + 1})
    graph.add_edge(lib.START, "start_at_one")
    return graph.compile()


CASES = [
    Case(
        "node-name-from-function",
        name_from_function,
        inputs=({"n": 3},),
        expected=({"n": 3, "log": ["n is 3"]},),
    ),
    Case(
        "runnable-object-node",
        runnable_object_node,
        inputs=({"n": 21},),
        expected=({"n": 42, "log": ["doubled"]},),
    ),
    Case(
        "callable-object-node",
        callable_object_node,
        inputs=({"n": 0},),
        expected=({"n": 7, "log": []},),
    ),
    Case(
        "node-input-schema",
        node_input_schema,
        inputs=({"question": "q", "secret": "s"},),
        expected=(
            {
                "question": "q",
                "secret": "s",
                "notes": [["question"], ["notes", "question", "secret"]],
            },
        ),
    ),
    Case(
        "node-metadata-in-config",
        metadata_in_config,
        inputs=({"log": []},),
        expected=({"log": ["blue", "none"]},),
    ),
    Case(
        "config-configurable",
        configurable,
        inputs=({"log": []},),
        expected=({"log": ["hello ann"]},),
        config={"configurable": {"user": "ann"}, "recursion_limit": 5},
    ),
    Case(
        "config-without-configurable",
        no_configurable,
        inputs=({"log": []},),
        expected=({"log": ["hello nobody"]},),
    ),
    Case(
        "add-sequence",
        sequence,
        inputs=({"log": []},),
        expected=({"log": ["first", "second", "third", "third"]},),
    ),
    Case(
        "entry-and-finish-point",
        entry_and_finish_point,
        inputs=({"log": []},),
        expected=({"log": ["a", "b"]},),
    ),
    Case(
        "node-returns-none",
        returns_none,
        inputs=({"n": 1},),
        expected=({"n": 1, "log": ["loud"]},),
    ),
    Case(
        "last-node-returns-none",
        returns_none_last,
        inputs=({"n": 1},),
        expected=({"n": 1, "log": []},),
    ),
    Case(
        "unknown-key-in-update-ignored",
        unknown_key_in_update,
        inputs=({"n": 0},),
        expected=({"n": 1, "log": []},),
        warns=True,
    ),
    Case(
        "unknown-key-in-input-ignored",
        unknown_key_in_input,
        inputs=({"n": 0, "typo": 1},),
        expected=({"n": 1, "log": []},),
        warns=True,
    ),
    Case(
        "graph-input-and-output-schema",
        graph_input_output_schema,
        inputs=({"question": "why"},),
        expected=({"answer": "why?!"},),
    ),
    Case(
        "empty-dict-input",
        empty_dict_input,
        inputs=({},),
        expected=({"n": 1, "log": []},),
    ),
]
