"""Scenarios about time travel and recovery: replaying from an older checkpoint
(`invoke(None, older_config)`), forking (`update_state` on an older checkpoint, then
`invoke(None, returned_config)`), resuming after a node failed in a parallel step, and how
many checkpoints each durability mode keeps.

See `scenarios.py` for the steps and how ids are normalised.
"""

import threading

from .persistence_graphs import Log, chain
from .persistence_graphs import counted as _counted
from .scenarios import (
    FORKED,
    Calls,
    GetState,
    History,
    Invoke,
    Older,
    Scenario,
    Stream,
    Tools,
    UpdateState,
)


class Boom(Exception):
    """The failure of a flaky node."""


def paused_chain(tools: Tools):
    return chain(tools, interrupt_before=["b"])


def flaky_sibling(tools: Tools):
    """START -> a -> (b, c in parallel) -> z; c fails on its first call only, once b has
    finished (so that b's write is there to keep)."""
    lib = tools.lib
    b_done = threading.Event()

    def b(state: Log) -> dict:
        tools.calls["b"] += 1
        b_done.set()
        return {"log": ["b"]}

    def c(state: Log) -> dict:
        tools.calls["c"] += 1
        if tools.calls["c"] == 1:
            b_done.wait(timeout=5)
            raise Boom("first call fails")
        return {"log": ["c"]}

    graph = lib.StateGraph(Log)
    for name in "az":
        graph.add_node(name, _counted(tools, name))
    graph.add_node("b", b)
    graph.add_node("c", c)
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "b")
    graph.add_edge("a", "c")
    graph.add_edge(["b", "c"], "z")
    return graph.compile(checkpointer=tools.checkpointer)


INPUT = {"log": []}

SCENARIOS = [
    Scenario(
        "replay-from-an-older-checkpoint",
        chain,
        (
            Invoke(INPUT),
            GetState(at=Older(2)),
            Invoke(None, at=Older(2)),
            History(),
            Calls(),
        ),
        expected="""
            invoke {'log': []}
              {'log': ['a', 'b', 'c']}
              state cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
            get_state at Older(back=2)
              cp3<-cp4 loop/1 next=('b',) {'log': ['a']}
                tasks ['b']
            invoke None at Older(back=2)
              {'log': ['a', 'b', 'c']}
              state cp5<-cp6 loop/4 next=() {'log': ['a', 'b', 'c']}
            history
              8 snapshots
              cp5<-cp6 loop/4 next=() {'log': ['a', 'b', 'c']}
              cp6<-cp7 loop/3 next=('c',) {'log': ['a', 'b']}
              cp7<-cp3 fork/2 next=('b',) {'log': ['a']}
              cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
              cp2<-cp3 loop/2 next=('c',) {'log': ['a', 'b']}
              cp3<-cp4 loop/1 next=('b',) {'log': ['a']}
              cp4<-cp8 loop/0 next=('a',) {'log': []}
              cp8<-None input/-1 next=('__start__',) {'log': []}
            calls {'a': 1, 'b': 2, 'c': 2}
        """,
    ),
    Scenario(
        "replay-streamed",
        chain,
        (Invoke(INPUT), Stream(None, at=Older(3)), History(limit=4), Calls()),
        expected="""
            invoke {'log': []}
              {'log': ['a', 'b', 'c']}
              state cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
            stream None at Older(back=3)
              values {'log': []}
              updates {'a': {'log': ['a']}}
              values {'log': ['a']}
              updates {'b': {'log': ['b']}}
              values {'log': ['a', 'b']}
              updates {'c': {'log': ['c']}}
              values {'log': ['a', 'b', 'c']}
              state cp3<-cp4 loop/4 next=() {'log': ['a', 'b', 'c']}
            history limit=4
              4 snapshots
              cp3<-cp4 loop/4 next=() {'log': ['a', 'b', 'c']}
              cp4<-cp5 loop/3 next=('c',) {'log': ['a', 'b']}
              cp5<-cp6 loop/2 next=('b',) {'log': ['a']}
              cp6<-cp7 fork/1 next=('a',) {'log': []}
            calls {'a': 2, 'b': 2, 'c': 2}
        """,
    ),
    Scenario(
        "fork-from-an-older-checkpoint",
        chain,
        (
            Invoke(INPUT),
            UpdateState({"log": ["forked"]}, at=Older(2)),
            GetState(at=FORKED),
            Invoke(None, at=FORKED),
            History(),
            Calls(),
        ),
        expected="""
            invoke {'log': []}
              {'log': ['a', 'b', 'c']}
              state cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
            update_state {'log': ['forked']} at Older(back=2)
              -> cp3
              state cp3<-cp4 update/2 next=('b',) {'log': ['a', 'forked']}
                tasks ['b']
            get_state at Forked()
              cp3<-cp4 update/2 next=('b',) {'log': ['a', 'forked']}
                tasks ['b']
            invoke None at Forked()
              {'log': ['a', 'forked', 'b', 'c']}
              state cp5<-cp6 loop/4 next=() {'log': ['a', 'forked', 'b', 'c']}
            history
              8 snapshots
              cp5<-cp6 loop/4 next=() {'log': ['a', 'forked', 'b', 'c']}
              cp6<-cp3 loop/3 next=('c',) {'log': ['a', 'forked', 'b']}
              cp3<-cp4 update/2 next=('b',) {'log': ['a', 'forked']}
              cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
              cp2<-cp4 loop/2 next=('c',) {'log': ['a', 'b']}
              cp4<-cp7 loop/1 next=('b',) {'log': ['a']}
              cp7<-cp8 loop/0 next=('a',) {'log': []}
              cp8<-None input/-1 next=('__start__',) {'log': []}
            calls {'a': 1, 'b': 2, 'c': 2}
        """,
    ),
    Scenario(
        "fork-as-node-from-an-older-checkpoint",
        chain,
        (
            Invoke(INPUT),
            UpdateState({"log": ["instead of b"]}, as_node="b", at=Older(2)),
            GetState(at=FORKED),
            Invoke(None, at=FORKED),
            History(limit=4),
            Calls(),
        ),
        expected="""
            invoke {'log': []}
              {'log': ['a', 'b', 'c']}
              state cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
            update_state {'log': ['instead of b']} at Older(back=2) as_node='b'
              -> cp3
              state cp3<-cp4 update/2 next=('c',) {'log': ['a', 'instead of b']}
                tasks ['c']
            get_state at Forked()
              cp3<-cp4 update/2 next=('c',) {'log': ['a', 'instead of b']}
                tasks ['c']
            invoke None at Forked()
              {'log': ['a', 'instead of b', 'c']}
              state cp5<-cp3 loop/3 next=() {'log': ['a', 'instead of b', 'c']}
            history limit=4
              4 snapshots
              cp5<-cp3 loop/3 next=() {'log': ['a', 'instead of b', 'c']}
              cp3<-cp4 update/2 next=('c',) {'log': ['a', 'instead of b']}
              cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
              cp2<-cp4 loop/2 next=('c',) {'log': ['a', 'b']}
            calls {'a': 1, 'b': 1, 'c': 2}
        """,
    ),
    Scenario(
        "failure-in-a-parallel-step-then-resume",
        flaky_sibling,
        (
            Invoke(INPUT),
            Calls(),
            Invoke(None),
            History(),
            Calls(),
        ),
        expected="""
            invoke {'log': []}
              raised Boom
              state cp1<-cp2 loop/1 next=('c',) {'log': ['a', 'b']}
                tasks ['b', 'c!str']
            calls {'a': 1, 'b': 1, 'c': 1}
            invoke None
              {'log': ['a', 'b', 'c', 'z']}
              state cp3<-cp4 loop/3 next=() {'log': ['a', 'b', 'c', 'z']}
            history
              5 snapshots
              cp3<-cp4 loop/3 next=() {'log': ['a', 'b', 'c', 'z']}
              cp4<-cp1 loop/2 next=('z',) {'log': ['a', 'b', 'c']}
              cp1<-cp2 loop/1 next=('b', 'c') {'log': ['a']}
              cp2<-cp5 loop/0 next=('a',) {'log': []}
              cp5<-None input/-1 next=('__start__',) {'log': []}
            calls {'a': 1, 'b': 1, 'c': 2, 'z': 1}
        """,
    ),
    Scenario(
        "durability-exit-keeps-fewer-checkpoints",
        chain,
        (
            Invoke(INPUT, options={"durability": "exit"}),
            History(),
            Invoke({"log": ["again"]}, options={"durability": "sync"}),
            History(limit=3),
        ),
        expected="""
            invoke {'log': []} durability='exit'
              {'log': ['a', 'b', 'c']}
              state cp1<-None loop/3 next=() {'log': ['a', 'b', 'c']}
            history
              1 snapshots
              cp1<-None loop/3 next=() {'log': ['a', 'b', 'c']}
            invoke {'log': ['again']} durability='sync'
              {'log': ['a', 'b', 'c', 'again', 'a', 'b', 'c']}
              state cp2<-cp3 loop/8 next=() {'log': ['a', 'b', 'c', 'again', 'a', 'b', 'c']}
            history limit=3
              3 snapshots
              cp2<-cp3 loop/8 next=() {'log': ['a', 'b', 'c', 'again', 'a', 'b', 'c']}
              cp3<-cp4 loop/7 next=('c',) {'log': ['a', 'b', 'c', 'again', 'a', 'b']}
              cp4<-cp5 loop/6 next=('b',) {'log': ['a', 'b', 'c', 'again', 'a']}
        """,
    ),
    Scenario(
        "durability-exit-while-paused",
        paused_chain,
        (
            Invoke(INPUT, options={"durability": "exit"}),
            History(),
            Invoke(None, options={"durability": "exit"}),
            History(),
        ),
        expected="""
            invoke {'log': []} durability='exit'
              {'log': ['a']}
              state cp1<-None loop/1 next=('b',) {'log': ['a']}
                tasks ['b']
            history
              1 snapshots
              cp1<-None loop/1 next=('b',) {'log': ['a']}
            invoke None durability='exit'
              {'log': ['a', 'b', 'c']}
              state cp2<-cp1 loop/3 next=() {'log': ['a', 'b', 'c']}
            history
              2 snapshots
              cp2<-cp1 loop/3 next=() {'log': ['a', 'b', 'c']}
              cp1<-None loop/1 next=('b',) {'log': ['a']}
        """,
    ),
    Scenario(
        "durability-async",
        chain,
        (Invoke(INPUT, options={"durability": "async"}), History()),
        expected="""
            invoke {'log': []} durability='async'
              {'log': ['a', 'b', 'c']}
              state cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
            history
              5 snapshots
              cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
              cp2<-cp3 loop/2 next=('c',) {'log': ['a', 'b']}
              cp3<-cp4 loop/1 next=('b',) {'log': ['a']}
              cp4<-cp5 loop/0 next=('a',) {'log': []}
              cp5<-None input/-1 next=('__start__',) {'log': []}
        """,
    ),
]
