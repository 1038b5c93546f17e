"""Cases about control flow: fan-out and fan-in, waiting edges, conditional edges, loops,
and the stream modes that show them step by step.
"""

import operator
from typing import Annotated, TypedDict

from .harness import Case, Lib, appender


class Log(TypedDict):
    log: Annotated[list, operator.add]


class Counter(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def _with_nodes(lib: Lib, names: str, schema: type = Log):
    """A builder holding one `appender` node per letter of `names`."""
    graph = lib.StateGraph(schema)
    for name in names:
        graph.add_node(name, appender(name))
    return graph


# --- fan-out, fan-in and waiting edges ---------------------------------------------------


def waiting_edge_same_step(lib: Lib):
    graph = _with_nodes(lib, "abc")
    graph.add_edge(lib.START, "a")
    graph.add_edge(lib.START, "b")
    graph.add_edge(["a", "b"], "c")
    graph.add_edge("c", lib.END)
    return graph.compile()


def waiting_edge_late_branch(lib: Lib):
    """ "b" reaches the join one step after "a"; "c" waits for it and runs once."""
    graph = lib.StateGraph(Log)
    for name in ["a", "b1", "b2", "c"]:
        graph.add_node(name, appender(name))
    graph.add_edge(lib.START, "a")
    graph.add_edge(lib.START, "b1")
    graph.add_edge("b1", "b2")
    graph.add_edge(["a", "b2"], "c")
    return graph.compile()


def waiting_edge_never_satisfied(lib: Lib):
    def only_a(state: Log) -> str:
        return "a"

    graph = _with_nodes(lib, "abc")
    graph.add_conditional_edges(lib.START, only_a, ["a", "b"])
    graph.add_edge(["a", "b"], "c")
    return graph.compile()


def plain_fan_in_runs_twice(lib: Lib):
    """Without a waiting edge, "d" runs once per arriving branch."""
    graph = lib.StateGraph(Log)
    for name in ["a", "b", "c", "c2", "d"]:
        graph.add_node(name, appender(name))
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "b")
    graph.add_edge("a", "c")
    graph.add_edge("c", "c2")
    graph.add_edge("b", "d")
    graph.add_edge("c2", "d")
    return graph.compile()


def diamond(lib: Lib):
    graph = lib.StateGraph(Counter)
    graph.add_node("top", lambda state: {"n": state["n"] + 1, "log": ["top"]})
    graph.add_node("left", lambda state: {"log": [f"left saw {state['n']}"]})
    graph.add_node("right", lambda state: {"log": [f"right saw {state['n']}"]})
    graph.add_node("bottom", lambda state: {"n": len(state["log"]), "log": ["bottom"]})
    graph.add_edge(lib.START, "top")
    graph.add_edge("top", "left")
    graph.add_edge("top", "right")
    graph.add_edge("left", "bottom")
    graph.add_edge("right", "bottom")
    return graph.compile()


# --- conditional edges ---------------------------------------------------------------------


def pick_by_n(state: Counter) -> str:
    return "even" if state["n"] % 2 == 0 else "odd"


def conditional_returns_name(lib: Lib):
    graph = lib.StateGraph(Counter)
    graph.add_node("check", lambda state: {"log": ["check"]})
    graph.add_node("even", appender("even"))
    graph.add_node("odd", appender("odd"))
    graph.add_edge(lib.START, "check")
    graph.add_conditional_edges("check", pick_by_n)
    return graph.compile()


def fan_out_list(lib: Lib):
    def everyone(state: Log) -> list[str]:
        return ["b", "c", "d"]

    graph = _with_nodes(lib, "abcd")
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", everyone)
    return graph.compile()


def conditional_to_end(lib: Lib):
    def stop_or_go(state: Counter) -> str:
        return lib.END if state["n"] > 0 else "b"

    graph = _with_nodes(lib, "ab", Counter)
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", stop_or_go)
    return graph.compile()


def router_returns_unknown_node(lib: Lib):
    def typo(state: Log) -> str:
        return "bb"  # no such node: LangGraph drops the write, graphkit also warns

    graph = _with_nodes(lib, "ab")
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", typo)
    return graph.compile()


def path_map_dict(lib: Lib):
    def is_big(state: Counter) -> bool:
        return state["n"] > 10

    graph = _with_nodes(lib, "abc", Counter)
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", is_big, {True: "b", False: "c"})
    return graph.compile()


def path_map_dict_to_end(lib: Lib):
    def label(state: Counter) -> str:
        return "done" if state["n"] else "more"

    graph = _with_nodes(lib, "ab", Counter)
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", label, {"done": lib.END, "more": "b"})
    return graph.compile()


def path_map_list(lib: Lib):
    def both(state: Log) -> list[str]:
        return ["c", "b"]

    graph = _with_nodes(lib, "abc")
    graph.add_edge(lib.START, "a")
    graph.add_conditional_edges("a", both, ["b", "c"])
    return graph.compile()


def conditional_from_start(lib: Lib):
    def route(state: Counter) -> list[str] | str:
        return ["b", "c"] if state["n"] else "a"

    graph = _with_nodes(lib, "abc", Counter)
    graph.add_conditional_edges(lib.START, route)
    return graph.compile()


def counter_loop(lib: Lib):
    def again(state: Counter) -> str:
        return "step" if state["n"] < 3 else lib.END

    graph = lib.StateGraph(Counter)
    graph.add_node("step", lambda state: {"n": state["n"] + 1, "log": [state["n"]]})
    graph.add_edge(lib.START, "step")
    graph.add_conditional_edges("step", again)
    return graph.compile()


def long_loop(lib: Lib):
    """30 steps: past the recursion limit of 25 that older releases and tutorials give."""

    def again(state: Counter) -> str:
        return "step" if state["n"] < 30 else lib.END

    graph = lib.StateGraph(Counter)
    graph.add_node("step", lambda state: {"n": state["n"] + 1})
    graph.add_edge(lib.START, "step")
    graph.add_conditional_edges("step", again)
    return graph.compile()


def fan_out(lib: Lib):
    """START -> a -> (b, c): a step with parallel updates, for the stream-mode cases."""
    graph = _with_nodes(lib, "abc")
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "b")
    graph.add_edge("a", "c")
    return graph.compile()


CASES = [
    Case(
        "waiting-edge-same-step",
        waiting_edge_same_step,
        inputs=({"log": []},),
        expected=({"log": ["a", "b", "c"]},),
    ),
    Case(
        "waiting-edge-late-branch",
        waiting_edge_late_branch,
        inputs=({"log": []},),
        expected=({"log": ["a", "b1", "b2", "c"]},),
    ),
    Case(
        "waiting-edge-never-satisfied",
        waiting_edge_never_satisfied,
        inputs=({"log": []},),
        expected=({"log": ["a"]},),
    ),
    Case(
        "plain-fan-in-runs-twice",
        plain_fan_in_runs_twice,
        inputs=({"log": []},),
        expected=({"log": ["a", "b", "c", "c2", "d", "d"]},),
    ),
    Case(
        "diamond-with-reducer",
        diamond,
        inputs=({"n": 0},),
        expected=({"n": 3, "log": ["top", "left saw 1", "right saw 1", "bottom"]},),
    ),
    Case(
        "conditional-returns-name",
        conditional_returns_name,
        inputs=({"n": 2}, {"n": 3}),
        expected=({"n": 2, "log": ["check", "even"]}, {"n": 3, "log": ["check", "odd"]}),
    ),
    Case(
        "conditional-fan-out-list",
        fan_out_list,
        inputs=({"log": []},),
        expected=({"log": ["a", "b", "c", "d"]},),
    ),
    Case(
        "conditional-to-end",
        conditional_to_end,
        inputs=({"n": 1}, {"n": 0}),
        expected=({"n": 1, "log": ["a"]}, {"n": 0, "log": ["a", "b"]}),
    ),
    Case(
        "path-map-dict",
        path_map_dict,
        inputs=({"n": 11}, {"n": 1}),
        expected=({"n": 11, "log": ["a", "b"]}, {"n": 1, "log": ["a", "c"]}),
    ),
    Case(
        "path-map-dict-to-end",
        path_map_dict_to_end,
        inputs=({"n": 1}, {"n": 0}),
        expected=({"n": 1, "log": ["a"]}, {"n": 0, "log": ["a", "b"]}),
    ),
    Case(
        "path-map-list",
        path_map_list,
        inputs=({"log": []},),
        expected=({"log": ["a", "b", "c"]},),
    ),
    Case(
        "conditional-from-start",
        conditional_from_start,
        inputs=({"n": 1}, {"n": 0}),
        expected=({"n": 1, "log": ["b", "c"]}, {"n": 0, "log": ["a"]}),
    ),
    Case(
        "counter-loop",
        counter_loop,
        inputs=({"n": 0}, {"n": 5}),
        expected=({"n": 3, "log": [0, 1, 2]}, {"n": 6, "log": [5]}),
    ),
    Case(
        "loop-past-old-default-limit",
        long_loop,
        inputs=({"n": 0},),
        expected=({"n": 30, "log": []},),
    ),
    Case(
        "stream-mode-list-values-first",
        fan_out,
        inputs=({"log": []},),
        expected=({"log": ["a", "b", "c"]},),
        stream_mode=("values", "updates"),
    ),
    Case(
        "stream-mode-list-updates-only",
        fan_out,
        inputs=({"log": []},),
        expected=({"log": ["a", "b", "c"]},),
        stream_mode=("updates",),
    ),
    Case(
        "stream-mode-updates-string",
        fan_out,
        inputs=({"log": []},),
        expected=({"log": ["a", "b", "c"]},),
        stream_mode="updates",
    ),
    Case(
        "router-returns-unknown-node",
        router_returns_unknown_node,
        inputs=({"log": []},),
        expected=({"log": ["a"]},),
        warns=True,
    ),
]
