"""Scenarios about breakpoints: `interrupt_before` / `interrupt_after`, given to `compile`
or to one call, and passed with `invoke(None)`.

See `scenarios.py` for the steps and how ids are normalised.
"""

from .harness import appender
from .persistence_graphs import Counter, Log, chain
from .scenarios import History, Invoke, Scenario, Stream, Tools


def before_b(tools: Tools):
    return chain(tools, interrupt_before=["b"])


def after_a(tools: Tools):
    return chain(tools, interrupt_after=["a"])


def before_parallel(tools: Tools):
    """START -> a -> (b, c in parallel) -> z, paused before b and c."""
    lib = tools.lib
    graph = lib.StateGraph(Log)
    for name in "abcz":
        graph.add_node(name, appender(name))
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "b")
    graph.add_edge("a", "c")
    graph.add_edge(["b", "c"], "z")
    return graph.compile(checkpointer=tools.checkpointer, interrupt_before=["b", "c"])


def loop_before_work(tools: Tools):
    """ "work" loops on itself until n reaches 2; paused before it."""
    lib = tools.lib

    def work(state: Counter) -> dict:
        return {"n": state["n"] + 1, "log": [f"work {state['n']}"]}

    graph = lib.StateGraph(Counter)
    graph.add_node("work", work)
    graph.add_edge(lib.START, "work")
    graph.add_conditional_edges("work", lambda state: "work" if state["n"] < 2 else lib.END)
    return graph.compile(checkpointer=tools.checkpointer, interrupt_before=["work"])


def subgraph_paused_before(tools: Tools):
    """START -> sub (x -> y, compiled with interrupt_before=["y"]) -> z: the subgraph's
    own breakpoint pauses the parent's run in the "sub" task."""
    return _with_paused_subgraph(tools, {"interrupt_before": ["y"]}, as_node=True)


def subgraph_invoked_paused_after(tools: Tools):
    """The same, the subgraph compiled with interrupt_after=["x"] and invoked by a node."""
    return _with_paused_subgraph(tools, {"interrupt_after": ["x"]}, as_node=False)


def _with_paused_subgraph(tools: Tools, breakpoints: dict, as_node: bool):
    lib = tools.lib
    inner = lib.StateGraph(Log)
    inner.add_node("x", appender("x")).add_node("y", appender("y"))
    inner.add_edge(lib.START, "x").add_edge("x", "y")
    sub = inner.compile(**breakpoints)
    graph = lib.StateGraph(Log)
    graph.add_node("sub", sub if as_node else (lambda state: sub.invoke(state)))
    graph.add_node("z", appender("z"))
    graph.add_edge(lib.START, "sub").add_edge("sub", "z")
    return graph.compile(checkpointer=tools.checkpointer)


INPUT = {"log": []}

SCENARIOS = [
    Scenario(
        "interrupt-before-at-compile-time",
        before_b,
        (Invoke(INPUT), Invoke(None), History()),
        expected="""
            invoke {'log': []}
              {'log': ['a']}
              state cp1<-cp2 loop/1 next=('b',) {'log': ['a']}
                tasks ['b']
            invoke None
              {'log': ['a', 'b', 'c']}
              state cp3<-cp4 loop/3 next=() {'log': ['a', 'b', 'c']}
            history
              5 snapshots
              cp3<-cp4 loop/3 next=() {'log': ['a', 'b', 'c']}
              cp4<-cp1 loop/2 next=('c',) {'log': ['a', 'b']}
              cp1<-cp2 loop/1 next=('b',) {'log': ['a']}
              cp2<-cp5 loop/0 next=('a',) {'log': []}
              cp5<-None input/-1 next=('__start__',) {'log': []}
        """,
    ),
    Scenario(
        "interrupt-after-at-compile-time",
        after_a,
        (Stream(INPUT), Stream(None)),
        expected="""
            stream {'log': []}
              values {'log': []}
              updates {'a': {'log': ['a']}}
              values {'log': ['a']}
              updates {'__interrupt__': ()}
              state cp1<-cp2 loop/1 next=('b',) {'log': ['a']}
                tasks ['b']
            stream None
              values {'log': ['a']}
              updates {'b': {'log': ['b']}}
              values {'log': ['a', 'b']}
              updates {'c': {'log': ['c']}}
              values {'log': ['a', 'b', 'c']}
              state cp3<-cp4 loop/3 next=() {'log': ['a', 'b', 'c']}
        """,
    ),
    Scenario(
        "interrupt-before-and-after-per-call",
        chain,
        (
            Invoke(INPUT, options={"interrupt_before": ["c"]}),
            Invoke(None, options={"interrupt_after": ["c"]}),
            Invoke(None),
        ),
        expected="""
            invoke {'log': []} interrupt_before=['c']
              {'log': ['a', 'b']}
              state cp1<-cp2 loop/2 next=('c',) {'log': ['a', 'b']}
                tasks ['c']
            invoke None interrupt_after=['c']
              {'log': ['a', 'b', 'c']}
              state cp3<-cp1 loop/3 next=() {'log': ['a', 'b', 'c']}
            invoke None
              {'log': ['a', 'b', 'c']}
              state cp3<-cp1 loop/3 next=() {'log': ['a', 'b', 'c']}
        """,
    ),
    Scenario(
        "interrupt-before-parallel-nodes",
        before_parallel,
        (Stream(INPUT), Invoke(None)),
        expected="""
            stream {'log': []}
              values {'log': []}
              updates {'a': {'log': ['a']}}
              values {'log': ['a']}
              updates {'__interrupt__': ()}
              state cp1<-cp2 loop/1 next=('b', 'c') {'log': ['a']}
                tasks ['b', 'c']
            invoke None
              {'log': ['a', 'b', 'c', 'z']}
              state cp3<-cp4 loop/3 next=() {'log': ['a', 'b', 'c', 'z']}
        """,
    ),
    Scenario(
        "interrupt-before-a-node-in-a-loop",
        loop_before_work,
        (
            Invoke({"n": 0, "log": []}),
            Invoke(None),
            Invoke(None),
            Invoke(None),
        ),
        expected="""
            invoke {'log': [], 'n': 0}
              {'log': [], 'n': 0}
              state cp1<-cp2 loop/0 next=('work',) {'log': [], 'n': 0}
                tasks ['work']
            invoke None
              {'log': ['work 0'], 'n': 1}
              state cp3<-cp1 loop/1 next=('work',) {'log': ['work 0'], 'n': 1}
                tasks ['work']
            invoke None
              {'log': ['work 0', 'work 1'], 'n': 2}
              state cp4<-cp3 loop/2 next=() {'log': ['work 0', 'work 1'], 'n': 2}
            invoke None
              {'log': ['work 0', 'work 1'], 'n': 2}
              state cp4<-cp3 loop/2 next=() {'log': ['work 0', 'work 1'], 'n': 2}
        """,
    ),
    Scenario(
        "per-call-breakpoints-beside-compiled-ones",
        before_b,
        (
            Invoke(INPUT, options={"interrupt_before": []}),
            Invoke({"log": ["again"]}, options={"interrupt_after": ["a"]}),
            Invoke(None),
        ),
        expected="""
            invoke {'log': []} interrupt_before=[]
              {'log': ['a']}
              state cp1<-cp2 loop/1 next=('b',) {'log': ['a']}
                tasks ['b']
            invoke {'log': ['again']} interrupt_after=['a']
              {'log': ['a', 'again', 'a']}
              state cp3<-cp4 loop/4 next=('b',) {'log': ['a', 'again', 'a']}
                tasks ['b']
            invoke None
              {'log': ['a', 'again', 'a', 'b', 'c']}
              state cp5<-cp6 loop/6 next=() {'log': ['a', 'again', 'a', 'b', 'c']}
        """,
    ),
    Scenario(
        "a-subgraph-s-compiled-breakpoint-pauses-the-parent",
        subgraph_paused_before,
        (Stream(INPUT), Invoke(None), History()),
        expected="""
            stream {'log': []}
              values {'log': []}
              updates {'__interrupt__': ()}
              state cp1<-cp2 loop/0 next=('sub',) {'log': []}
                tasks ['sub']
            invoke None
              {'log': ['x', 'y', 'z']}
              state cp3<-cp4 loop/2 next=() {'log': ['x', 'y', 'z']}
            history
              4 snapshots
              cp3<-cp4 loop/2 next=() {'log': ['x', 'y', 'z']}
              cp4<-cp1 loop/1 next=('z',) {'log': ['x', 'y']}
              cp1<-cp2 loop/0 next=('sub',) {'log': []}
              cp2<-None input/-1 next=('__start__',) {'log': []}
        """,
    ),
    Scenario(
        "a-breakpoint-of-a-subgraph-a-node-invokes-pauses-the-parent",
        subgraph_invoked_paused_after,
        (Invoke(INPUT), Stream(None)),
        expected="""
            invoke {'log': []}
              {'log': []}
              state cp1<-cp2 loop/0 next=('sub',) {'log': []}
                tasks ['sub']
            stream None
              values {'log': []}
              updates {'sub': {'log': ['x', 'y']}}
              values {'log': ['x', 'y']}
              updates {'z': {'log': ['z']}}
              values {'log': ['x', 'y', 'z']}
              state cp3<-cp4 loop/2 next=() {'log': ['x', 'y', 'z']}
        """,
    ),
]
