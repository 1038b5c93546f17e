"""Cases about control values: `Send` (fan-out over data, one PUSH task per packet) and
`Command` (a node updates the state and picks where to go next).

No `from __future__ import annotations` here: nodes annotated `-> Command[Literal[...]]`
are read at runtime, and they are built inside functions from `lib.Command`.
"""

import dataclasses
import operator
from typing import Annotated, Literal, TypedDict

from pydantic import BaseModel, Field

from .harness import Case, Lib, Raised, appender


class Log(TypedDict):
    log: Annotated[list, operator.add]


class Counter(TypedDict):
    n: int
    log: Annotated[list, operator.add]


class MapReduce(TypedDict):
    items: list
    results: Annotated[list, operator.add]
    summary: str


def _with_nodes(lib: Lib, names: str, schema: type = Log):
    """A builder holding one `appender` node per letter of `names`."""
    graph = lib.StateGraph(schema)
    for name in names:
        graph.add_node(name, appender(name))
    return graph


# --- Send from a router ----------------------------------------------------------------------


def _double(arg: dict) -> dict:
    return {"results": [arg["item"] * 2]}


def _summarise(state: MapReduce) -> dict:
    return {"summary": f"{len(state['results'])} results, total {sum(state['results'])}"}


def map_reduce(lib: Lib):
    """split -> one `double` per item (a reducer collects) -> join, which runs once."""

    def fan_out(state: MapReduce) -> list:
        return [lib.Send("double", {"item": item}) for item in state["items"]]

    graph = lib.StateGraph(MapReduce)
    graph.add_node("split", lambda state: {"summary": "split"})
    graph.add_node("double", _double)
    graph.add_node("join", _summarise)
    graph.add_edge(lib.START, "split")
    graph.add_conditional_edges("split", fan_out)
    graph.add_edge("double", "join")
    return graph.compile()


def sends_mixed_with_names(lib: Lib):
    def route(state: Log) -> list:
        return ["b", lib.Send("c", {"log": ["sent"]}), "d"]

    def c(arg: dict) -> dict:
        return {"log": [f"c got {arg['log']}"]}

    graph = _with_nodes(lib, "abd")
    graph.add_node("c", c)
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route)
    return graph.compile()


def sends_bypass_path_map(lib: Lib):
    """The router's names go through the path_map; its Sends name nodes directly."""

    def route(state: Log) -> list:
        return ["go", lib.Send("c", 7)]

    def c(arg: int) -> dict:
        return {"log": [f"c got {arg}"]}

    graph = lib.StateGraph(Log)
    # "c" is reached only by a Send the path_map cannot name: declare it as a destination
    graph.add_node("a", appender("a"), destinations=("b", "c"))
    graph.add_node("b", appender("b"))
    graph.add_node("c", c)
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route, {"go": "b"})
    return graph.compile()


def send_and_edge_to_one_node(lib: Lib):
    """ "b" runs twice in one step: a PUSH task with the Send's arg, a PULL task with the state."""

    def route(state: Log) -> list:
        return [lib.Send("b", {"log": ["from send"]})]

    def b(state: dict) -> dict:
        return {"log": [f"b saw {state['log']}"]}

    graph = lib.StateGraph(Log)
    graph.add_node("a", appender("a"))
    graph.add_node("b", b)
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "b")
    graph.add_conditional_edges("a", route)
    return graph.compile()


def sends_from_start(lib: Lib):
    def fan_out(state: MapReduce) -> list:
        return [lib.Send("double", {"item": item}) for item in state["items"]]

    graph = lib.StateGraph(MapReduce)
    graph.add_node("double", _double)
    graph.add_conditional_edges(lib.START, fan_out)
    return graph.compile()


def single_send_not_in_list(lib: Lib):
    def route(state: Counter) -> object:
        return lib.Send("b", state["n"] + 100)

    def b(arg: int) -> dict:
        return {"n": arg}

    graph = _with_nodes(lib, "a", Counter)
    graph.add_node("b", b)
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route)
    return graph.compile()


def nested_fan_out_by_router(lib: Lib):
    """A sent node has its own router; it reads the state (plus the node's own writes),
    not the Send's arg, and sends again."""

    def first(state: Log) -> list:
        return [lib.Send("outer", tag) for tag in ("x", "y")]

    def outer(tag: str) -> dict:
        return {"log": [f"outer {tag}"]}

    def second(state: Log) -> list:
        return [lib.Send("inner", len(state["log"]))]

    def inner(count: int) -> dict:
        return {"log": [f"inner saw {count}"]}

    graph = lib.StateGraph(Log)
    graph.add_node("outer", outer)
    graph.add_node("inner", inner)
    graph.add_conditional_edges(lib.START, first)
    graph.add_conditional_edges("outer", second)
    return graph.compile()


def nested_fan_out_by_command(lib: Lib):
    """A sent node answers with Command(goto=[Send, ...]); tuples travel as args."""

    def first(state: Log) -> list:
        return [lib.Send("outer", k) for k in (1, 2)]

    def outer(k: int):
        sends = [lib.Send("inner", (k, j)) for j in range(k)]
        return lib.Command(update={"log": [f"outer {k}"]}, goto=sends)

    def inner(pair: tuple) -> dict:
        k, j = pair
        return {"log": [f"inner {k}.{j}"]}

    graph = lib.StateGraph(Log)
    graph.add_node("outer", outer, destinations=("inner",))
    graph.add_node("inner", inner)
    graph.add_conditional_edges(lib.START, first)
    return graph.compile()


def send_non_dict_args(lib: Lib):
    def route(state: MapReduce) -> list:
        squares = [lib.Send("square", item) for item in state["items"]]
        return [*squares, lib.Send("label", ("total", len(state["items"])))]

    def square(x: int) -> dict:
        return {"results": [x * x]}

    def label(pair: tuple) -> dict:
        name, value = pair
        return {"summary": f"{name}={value}"}

    graph = lib.StateGraph(MapReduce)
    graph.add_node("square", square)
    graph.add_node("label", label)
    graph.add_conditional_edges(lib.START, route)
    return graph.compile()


def sent_node_returns_none(lib: Lib):
    """PUSH tasks that write nothing: the updates stream shows them, the values stream not."""

    def route(state: Log) -> list:
        return [lib.Send("quiet", i) for i in range(2)]

    graph = lib.StateGraph(Log)
    graph.add_node("quiet", lambda arg: None)
    graph.add_conditional_edges(lib.START, route)
    return graph.compile()


class Items(BaseModel):
    items: list[int]
    seen: Annotated[list[str], operator.add] = Field(default_factory=list)


def send_with_pydantic_state(lib: Lib):
    """What a sent node receives when the state is a model: the Send's arg as it is."""

    def route(state: Items) -> list:
        return [lib.Send("look", {"items": [i], "seen": []}) for i in state.items]

    def look(arg) -> dict:
        return {"seen": [type(arg).__name__]}

    graph = lib.StateGraph(Items)
    graph.add_node("look", look)
    graph.add_conditional_edges(lib.START, route)
    return graph.compile()


def send_to_unknown_node(lib: Lib):
    def route(state: Log) -> list:
        return [lib.Send("nowhere", 1), lib.Send("b", 2)]  # LangGraph drops the first

    def b(arg: int) -> dict:
        return {"log": [f"b got {arg}"]}

    graph = _with_nodes(lib, "a")
    graph.add_node("b", b)
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route)
    return graph.compile()


def sends_from_two_nodes(lib: Lib):
    """Two routers in one step send to one node: packets run in task order, then send order."""

    def from_a(state: Log) -> list:
        return [lib.Send("w", "a1"), lib.Send("w", "a2")]

    def from_b(state: Log) -> list:
        return [lib.Send("w", "b1"), lib.Send("w", "b2")]

    graph = _with_nodes(lib, "ba")
    graph.add_node("w", lambda arg: {"log": [f"w {arg}"]})
    graph.add_edge(lib.START, "b")
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("b", from_b)
    graph.add_conditional_edges("a", from_a)
    return graph.compile()


def send_into_waiting_edge(lib: Lib):
    """A PUSH task of "b" counts for the waiting edge [a, b] -> c."""

    def route(state: Log) -> list:
        return [lib.Send("b", 1)]

    graph = _with_nodes(lib, "ac")
    graph.add_node("b", lambda arg: {"log": [f"b {arg}"]})
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges(lib.START, route)
    graph.add_edge(["a", "b"], "c")
    return graph.compile()


def send_to_end_from_router(lib: Lib):
    def route(state: Log) -> list:
        return [lib.Send(lib.END, 1)]

    graph = _with_nodes(lib, "a")
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route)
    return graph.compile()


def send_to_start_from_router(lib: Lib):
    """LangGraph runs its __start__ node for a Send to START: the arg is written as input
    and START's edges fire again."""

    def route(state: Log) -> list:
        return [lib.Send(lib.START, {"log": ["again"]})] if len(state["log"]) < 2 else []

    graph = _with_nodes(lib, "a")
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route)
    return graph.compile()


# --- Command --------------------------------------------------------------------------------


def command_update_and_goto(lib: Lib):
    def decide(state: Counter):
        target = "big" if state["n"] > 10 else "small"
        return lib.Command(update={"n": state["n"] + 1, "log": ["decide"]}, goto=target)

    graph = _with_nodes(lib, ["big", "small"], Counter)
    graph.add_node("decide", decide, destinations=("big", "small"))
    graph.add_edge(lib.START, "decide")
    return graph.compile()


def command_goto_list(lib: Lib):
    def a(state: Log):
        return lib.Command(update={"log": ["a"]}, goto=["c", "b"])

    graph = _with_nodes(lib, "bcd")
    graph.add_node("a", a, destinations=("b", "c"))
    graph.add_edge(lib.START, "a")
    graph.add_edge("b", "d")
    graph.add_edge("c", "d")
    return graph.compile()


def command_goto_send(lib: Lib):
    def a(state: Log):
        return lib.Command(goto=lib.Send("b", {"log": ["hello"]}))

    def b(arg: dict) -> dict:
        return {"log": [f"b got {arg['log']}"]}

    graph = lib.StateGraph(Log)
    graph.add_node("a", a, destinations=("b",))
    graph.add_node("b", b)
    graph.add_edge(lib.START, "a")
    return graph.compile()


def command_goto_sends_and_names(lib: Lib):
    def a(state: Log):
        return lib.Command(update={"log": ["a"]}, goto=[lib.Send("b", 1), "c", lib.Send("b", 2)])

    def b(arg: int) -> dict:
        return {"log": [f"b{arg}"]}

    graph = _with_nodes(lib, "c")
    graph.add_node("a", a, destinations=("b", "c"))
    graph.add_node("b", b)
    graph.add_edge(lib.START, "a")
    return graph.compile()


def command_goto_end_with_static_edge(lib: Lib):
    """goto=END adds no destination; the static edge a -> b still runs."""

    def a(state: Log):
        return lib.Command(update={"log": ["a"]}, goto=lib.END)

    graph = _with_nodes(lib, "b")
    graph.add_node("a", a)
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "b")
    return graph.compile()


def command_update_only_with_edge(lib: Lib):
    def a(state: Counter):
        return lib.Command(update={"n": state["n"] * 2, "log": ["a"]})

    graph = _with_nodes(lib, "b", Counter)
    graph.add_node("a", a)
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "b")
    return graph.compile()


def list_of_commands(lib: Lib):
    """Two Commands writing one reducer key: the updates chunk is a list of dicts."""

    def a(state: Log) -> list:
        return [
            lib.Command(update={"log": ["first"]}),
            lib.Command(update={"log": ["second"]}, goto="b"),
        ]

    graph = _with_nodes(lib, "b")
    graph.add_node("a", a, destinations=("b",))
    graph.add_edge(lib.START, "a")
    return graph.compile()


def list_of_commands_distinct_keys(lib: Lib):
    def a(state: Counter) -> list:
        return [lib.Command(update={"n": 5}), lib.Command(update={"log": ["a"]}, goto="b")]

    graph = _with_nodes(lib, "b", Counter)
    graph.add_node("a", a, destinations=("b",))
    graph.add_edge(lib.START, "a")
    return graph.compile()


def command_update_as_pairs(lib: Lib):
    def a(state: Log):
        return lib.Command(update=[("log", ["x"]), ("log", ["y"])], goto="b")

    graph = _with_nodes(lib, "b")
    graph.add_node("a", a, destinations=("b",))
    graph.add_edge(lib.START, "a")
    return graph.compile()


@dataclasses.dataclass
class Tally:
    x: int
    log: Annotated[list, operator.add] = dataclasses.field(default_factory=list)


def command_dataclass_state(lib: Lib):
    def start(state: Tally):
        goto = "high" if state.x > 1 else "low"
        return lib.Command(update={"x": state.x + 1, "log": [f"start {state.x}"]}, goto=goto)

    def high(state: Tally) -> dict:
        return {"log": [f"high {state.x}"]}

    graph = lib.StateGraph(Tally)
    graph.add_node("start", start, destinations=("high", "low"))
    graph.add_node("high", high)
    graph.add_node("low", lambda state: {"log": [f"low {state.x}"]})
    graph.add_edge(lib.START, "start")
    return graph.compile()


class Doc(BaseModel):
    text: str
    edits: Annotated[list[str], operator.add] = Field(default_factory=list)


def command_pydantic_state(lib: Lib):
    def write(state: Doc):
        return lib.Command(update={"text": state.text.upper(), "edits": ["write"]}, goto="review")

    def review(state: Doc) -> dict:
        return {"edits": [f"review {state.text}"]}

    graph = lib.StateGraph(Doc)
    graph.add_node("write", write, destinations=("review",))
    graph.add_node("review", review)
    graph.add_edge(lib.START, "write")
    return graph.compile()


def command_ping_pong(lib: Lib):
    """Two nodes hand over to each other by Command until the counter reaches 4; the
    `-> Command[Literal[...]]` annotations are the only declaration of where they go."""
    Command = lib.Command

    def ping(state: Counter) -> Command[Literal["pong", "__end__"]]:
        goto = "pong" if state["n"] < 4 else lib.END
        return Command(update={"n": state["n"] + 1, "log": [f"ping {state['n']}"]}, goto=goto)

    def pong(state: Counter) -> Command[Literal["ping"]]:
        return Command(update={"n": state["n"] + 1, "log": [f"pong {state['n']}"]}, goto="ping")

    graph = lib.StateGraph(Counter)
    graph.add_node("ping", ping)
    graph.add_node("pong", pong)
    graph.add_edge(lib.START, "ping")
    return graph.compile()


def command_self_loop(lib: Lib):
    def step(state: Counter):
        goto = "step" if state["n"] < 3 else "done"
        return lib.Command(update={"n": state["n"] + 1}, goto=goto)

    graph = _with_nodes(lib, ["done"], Counter)
    graph.add_node("step", step, destinations=("step", "done"))
    graph.add_edge(lib.START, "step")
    return graph.compile()


def command_literal_annotation(lib: Lib):
    Command = lib.Command

    def choose(state: Counter) -> Command[Literal["even", "odd"]]:
        goto = "even" if state["n"] % 2 == 0 else "odd"
        return Command(update={"log": ["choose"]}, goto=goto)

    graph = _with_nodes(lib, ["even", "odd"], Counter)
    graph.add_node("choose", choose)
    graph.add_edge(lib.START, "choose")
    return graph.compile()


def command_parent_outside_subgraph(lib: Lib):
    def escalate(state: Log):
        return lib.Command(graph=lib.Command.PARENT, update={"log": ["up"]}, goto="b")

    graph = _with_nodes(lib, "ab")
    graph.add_node("escalate", escalate)
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "escalate")
    graph.add_edge("escalate", "b")
    return graph.compile()


def command_from_sent_node_to_join(lib: Lib):
    """Workers started by Send each goto the same join; it runs once in the next step."""

    def fan_out(state: MapReduce) -> list:
        return [lib.Send("work", item) for item in state["items"]]

    def work(item: int):
        return lib.Command(update={"results": [item + 1]}, goto="join")

    graph = lib.StateGraph(MapReduce)
    graph.add_node("work", work, destinations=("join",))
    graph.add_node("join", _summarise)
    graph.add_conditional_edges(lib.START, fan_out)
    return graph.compile()


def endless_command_loop(lib: Lib):
    def spin(state: Log):
        return lib.Command(update={"log": ["spin"]}, goto="spin")

    graph = lib.StateGraph(Log)
    graph.add_node("spin", spin, destinations=("spin",))
    graph.add_edge(lib.START, "spin")
    return graph.compile()


def command_goto_send_to_end(lib: Lib):
    """A Send to END inside goto is dropped (a router's Send to END raises instead)."""

    def a(state: Log):
        return lib.Command(update={"log": ["a"]}, goto=[lib.Send(lib.END, 1), "b"])

    graph = _with_nodes(lib, "b")
    graph.add_node("a", a, destinations=("b",))
    graph.add_edge(lib.START, "a")
    return graph.compile()


def command_goto_unknown_node(lib: Lib):
    def a(state: Log):
        return lib.Command(update={"log": ["a"]}, goto="nowhere")  # dropped by LangGraph

    graph = _with_nodes(lib, "b")
    graph.add_node("a", a, destinations=("b",))
    graph.add_edge(lib.START, "a")
    return graph.compile()


def command_and_conditional_edge(lib: Lib):
    def a(state: Log):
        return lib.Command(update={"log": ["a"]}, goto="b")

    def route(state: Log) -> str:
        return "c"

    graph = _with_nodes(lib, "bc")
    graph.add_node("a", a, destinations=("b",))
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", route)
    return graph.compile()


def command_goto_self_keeps_static_edge(lib: Lib):
    def a(state: Counter):
        goto = "a" if state["n"] < 2 else lib.END
        return lib.Command(update={"n": state["n"] + 1}, goto=goto)

    graph = _with_nodes(lib, "b", Counter)
    graph.add_node("a", a, destinations=("a",))
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "b")
    return graph.compile()


def list_of_commands_with_none(lib: Lib):
    def a(state: Log) -> list:
        return [lib.Command(goto="b"), None]

    graph = _with_nodes(lib, "b")
    graph.add_node("a", a, destinations=("b",))
    graph.add_edge(lib.START, "a")
    return graph.compile()


def command_pairs_to_last_value(lib: Lib):
    """One task writes a plain key twice; the step fails when its writes are applied."""

    def a(state: Counter):
        return lib.Command(update=[("n", 1), ("n", 2)], goto="b")

    graph = _with_nodes(lib, "b", Counter)
    graph.add_node("a", a, destinations=("b",))
    graph.add_edge(lib.START, "a")
    return graph.compile()


def node_returns_a_send(lib: Lib):
    """A node returning a bare Send: LangGraph routes it (and writes no update)."""

    def a(state: Log):
        return lib.Send("b", {"log": ["sent"]})

    def b(arg: dict) -> dict:
        return {"log": [f"b got {arg['log']}"]}

    graph = lib.StateGraph(Log).add_node("a", a, destinations=("b",)).add_node("b", b)
    graph.add_edge(lib.START, "a")
    return graph.compile()


def command_parent_in_list(lib: Lib):
    def a(state: Log) -> list:
        return [
            lib.Command(update={"log": ["a"]}),
            lib.Command(graph=lib.Command.PARENT, goto="b"),
        ]

    graph = _with_nodes(lib, "b")
    graph.add_node("a", a, destinations=("b",))
    graph.add_edge(lib.START, "a")
    return graph.compile()


CASES = [
    Case(
        "send-map-reduce",
        map_reduce,
        inputs=({"items": [1, 2, 3], "results": []}, {"items": [], "results": []}),
        expected=(
            {"items": [1, 2, 3], "results": [2, 4, 6], "summary": "3 results, total 12"},
            {"items": [], "results": [], "summary": "split"},
        ),
    ),
    Case(
        "send-mixed-with-names",
        sends_mixed_with_names,
        inputs=({"log": []},),
        expected=({"log": ["a", "b", "d", "c got ['sent']"]},),
    ),
    Case(
        "send-bypasses-path-map",
        sends_bypass_path_map,
        inputs=({"log": []},),
        expected=({"log": ["a", "b", "c got 7"]},),
    ),
    Case(
        "send-and-edge-to-one-node",
        send_and_edge_to_one_node,
        inputs=({"log": []},),
        expected=({"log": ["a", "b saw ['a']", "b saw ['from send']"]},),
    ),
    Case(
        "send-from-start",
        sends_from_start,
        inputs=({"items": [5, 6], "results": []},),
        expected=({"items": [5, 6], "results": [10, 12]},),
    ),
    Case(
        "send-single-not-in-list",
        single_send_not_in_list,
        inputs=({"n": 1},),
        expected=({"n": 101, "log": ["a"]},),
    ),
    Case(
        "send-nested-by-router",
        nested_fan_out_by_router,
        inputs=({"log": ["in"]},),
        expected=({"log": ["in", "outer x", "outer y", "inner saw 2", "inner saw 2"]},),
    ),
    Case(
        "send-nested-by-command",
        nested_fan_out_by_command,
        inputs=({"log": []},),
        expected=({"log": ["outer 1", "outer 2", "inner 1.0", "inner 2.0", "inner 2.1"]},),
    ),
    Case(
        "send-non-dict-args",
        send_non_dict_args,
        inputs=({"items": [3, 1, 2], "results": []},),
        expected=({"items": [3, 1, 2], "results": [9, 1, 4], "summary": "total=3"},),
    ),
    Case(
        "send-node-returns-none",
        sent_node_returns_none,
        inputs=({"log": ["in"]},),
        expected=({"log": ["in"]},),
    ),
    Case(
        "send-with-pydantic-state",
        send_with_pydantic_state,
        inputs=({"items": [1, 2]},),
        expected=({"items": [1, 2], "seen": ["dict", "dict"]},),
    ),
    Case(
        "send-to-unknown-node",
        send_to_unknown_node,
        inputs=({"log": []},),
        expected=({"log": ["a", "b got 2"]},),
        warns=True,
    ),
    Case(
        "send-from-two-nodes-one-step",
        sends_from_two_nodes,
        inputs=({"log": []},),
        expected=({"log": ["a", "b", "w a1", "w a2", "w b1", "w b2"]},),
    ),
    Case(
        "send-into-waiting-edge",
        send_into_waiting_edge,
        inputs=({"log": []},),
        expected=({"log": ["a", "b 1", "c"]},),
    ),
    Case(
        "send-to-end-from-router",
        send_to_end_from_router,
        inputs=({"log": []},),
        expected=(Raised("InvalidUpdateError"),),
    ),
    Case(
        "send-to-start-from-router",
        send_to_start_from_router,
        inputs=({"log": []},),
        expected=({"log": ["a", "again", "a"]},),
    ),
    Case(
        "command-update-and-goto",
        command_update_and_goto,
        inputs=({"n": 11}, {"n": 0}),
        expected=({"n": 12, "log": ["decide", "big"]}, {"n": 1, "log": ["decide", "small"]}),
    ),
    Case(
        "command-goto-list",
        command_goto_list,
        inputs=({"log": []},),
        expected=({"log": ["a", "b", "c", "d"]},),
    ),
    Case(
        "command-goto-send",
        command_goto_send,
        inputs=({"log": []},),
        expected=({"log": ["b got ['hello']"]},),
    ),
    Case(
        "command-goto-sends-and-names",
        command_goto_sends_and_names,
        inputs=({"log": []},),
        expected=({"log": ["a", "c", "b1", "b2"]},),
    ),
    Case(
        "command-goto-end-keeps-static-edge",
        command_goto_end_with_static_edge,
        inputs=({"log": []},),
        expected=({"log": ["a", "b"]},),
    ),
    Case(
        "command-update-only-with-edge",
        command_update_only_with_edge,
        inputs=({"n": 3},),
        expected=({"n": 6, "log": ["a", "b"]},),
    ),
    Case(
        "command-list-same-key",
        list_of_commands,
        inputs=({"log": []},),
        expected=({"log": ["first", "second", "b"]},),
    ),
    Case(
        "command-list-distinct-keys",
        list_of_commands_distinct_keys,
        inputs=({"n": 0},),
        expected=({"n": 5, "log": ["a", "b"]},),
    ),
    Case(
        "command-update-as-pairs",
        command_update_as_pairs,
        inputs=({"log": []},),
        expected=({"log": ["x", "y", "b"]},),
    ),
    Case(
        "command-dataclass-state",
        command_dataclass_state,
        inputs=({"x": 1}, Tally(x=5, log=["in"])),
        expected=(
            {"x": 2, "log": ["start 1", "low 2"]},
            {"x": 6, "log": ["in", "start 5", "high 6"]},
        ),
    ),
    Case(
        "command-pydantic-state",
        command_pydantic_state,
        inputs=({"text": "draft"},),
        expected=({"text": "DRAFT", "edits": ["write", "review DRAFT"]},),
    ),
    Case(
        "command-ping-pong-annotated",
        command_ping_pong,
        inputs=({"n": 0}, {"n": 4}),
        expected=(
            {"n": 5, "log": ["ping 0", "pong 1", "ping 2", "pong 3", "ping 4"]},
            {"n": 5, "log": ["ping 4"]},
        ),
    ),
    Case(
        "command-self-loop",
        command_self_loop,
        inputs=({"n": 0},),
        expected=({"n": 4, "log": ["done"]},),
    ),
    Case(
        "command-literal-annotation",
        command_literal_annotation,
        inputs=({"n": 2}, {"n": 3}),
        expected=({"n": 2, "log": ["choose", "even"]}, {"n": 3, "log": ["choose", "odd"]}),
    ),
    Case(
        "command-parent-outside-subgraph",
        command_parent_outside_subgraph,
        inputs=({"log": []},),
        expected=(Raised("ParentCommand"),),
    ),
    Case(
        "command-from-sent-nodes-to-join",
        command_from_sent_node_to_join,
        inputs=({"items": [1, 2, 3], "results": []},),
        expected=({"items": [1, 2, 3], "results": [2, 3, 4], "summary": "3 results, total 9"},),
    ),
    Case(
        "command-endless-loop-recursion-limit",
        endless_command_loop,
        inputs=({"log": []},),
        expected=(Raised("GraphRecursionError"),),
        config={"recursion_limit": 4},
    ),
    Case(
        "command-goto-send-to-end",
        command_goto_send_to_end,
        inputs=({"log": []},),
        expected=({"log": ["a", "b"]},),
        warns=True,
    ),
    Case(
        "command-goto-unknown-node",
        command_goto_unknown_node,
        inputs=({"log": []},),
        expected=({"log": ["a"]},),
        warns=True,
    ),
    Case(
        "command-and-conditional-edge",
        command_and_conditional_edge,
        inputs=({"log": []},),
        expected=({"log": ["a", "b", "c"]},),
    ),
    Case(
        "command-goto-self-keeps-static-edge",
        command_goto_self_keeps_static_edge,
        inputs=({"n": 0},),
        expected=({"n": 3, "log": ["b", "b", "b"]},),
    ),
    Case(
        "command-list-with-none",
        list_of_commands_with_none,
        inputs=({"log": []},),
        expected=({"log": ["b"]},),
    ),
    Case(
        "command-pairs-to-last-value",
        command_pairs_to_last_value,
        inputs=({"n": 0},),
        expected=(Raised("InvalidUpdateError"),),
    ),
    Case(
        "command-pairs-to-last-value-tasks",
        command_pairs_to_last_value,
        inputs=({"n": 0},),
        expected=(Raised("InvalidUpdateError"),),
        stream_mode=("tasks", "updates", "values"),
    ),
    Case(
        "command-parent-in-list",
        command_parent_in_list,
        inputs=({"log": []},),
        expected=(Raised("ParentCommand"),),
    ),
    Case(
        "node-returns-a-send",
        node_returns_a_send,
        inputs=({"log": []},),
        expected=({"log": ["b got ['sent']"]},),
        stream_mode=("updates", "values"),
    ),
]
