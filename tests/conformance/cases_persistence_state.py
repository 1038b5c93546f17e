"""Scenarios about reading and editing saved state: get_state (of the thread, of an older
checkpoint, of an unknown thread), get_state_history with filter / before / limit, and
update_state (with and without `as_node`, on a paused, finished or fresh thread, before a
conditional edge) then continuing.

See `scenarios.py` for the steps and how ids are normalised.
"""

from .harness import appender
from .persistence_graphs import Counter, chain
from .scenarios import Calls, GetState, History, Invoke, Older, Scenario, Thread, Tools, UpdateState


def counter_chain(tools: Tools):
    """inc -> double on a state with a plain `n` and a reducer `log`; paused before double."""
    lib = tools.lib

    def inc(state: Counter) -> dict:
        return {"n": state["n"] + 1, "log": ["inc"]}

    def double(state: Counter) -> dict:
        return {"n": state["n"] * 2, "log": ["double"]}

    graph = lib.StateGraph(Counter)
    graph.add_node("inc", inc)
    graph.add_node("double", double)
    graph.add_edge(lib.START, "inc")
    graph.add_edge("inc", "double")
    return graph.compile(checkpointer=tools.checkpointer, interrupt_before=["double"])


def router(tools: Tools):
    """ "route" goes to "big" or "small" by n; paused before "route"'s successors."""
    lib = tools.lib
    graph = lib.StateGraph(Counter)
    graph.add_node("route", appender("route"))
    graph.add_node("big", appender("big"))
    graph.add_node("small", appender("small"))
    graph.add_edge(lib.START, "route")
    graph.add_conditional_edges("route", lambda state: "big" if state["n"] > 5 else "small")
    return graph.compile(checkpointer=tools.checkpointer, interrupt_before=["big", "small"])


INPUT = {"log": []}

SCENARIOS = [
    Scenario(
        "history-of-a-chain",
        chain,
        (Invoke(INPUT), History(), Calls()),
        expected="""
            invoke {'log': []}
              {'log': ['a', 'b', 'c']}
              state cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
            history
              5 snapshots
              cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
              cp2<-cp3 loop/2 next=('c',) {'log': ['a', 'b']}
              cp3<-cp4 loop/1 next=('b',) {'log': ['a']}
              cp4<-cp5 loop/0 next=('a',) {'log': []}
              cp5<-None input/-1 next=('__start__',) {'log': []}
            calls {'a': 1, 'b': 1, 'c': 1}
        """,
    ),
    Scenario(
        "history-filter-before-and-limit",
        chain,
        (
            Invoke(INPUT),
            History(limit=2),
            History(filter={"source": "loop"}),
            History(filter={"step": 1}),
            History(before=Older(1)),
            History(before=Older(1), limit=1),
        ),
        expected="""
            invoke {'log': []}
              {'log': ['a', 'b', 'c']}
              state cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
            history limit=2
              2 snapshots
              cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
              cp2<-cp3 loop/2 next=('c',) {'log': ['a', 'b']}
            history filter={'source': 'loop'}
              4 snapshots
              cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
              cp2<-cp3 loop/2 next=('c',) {'log': ['a', 'b']}
              cp3<-cp4 loop/1 next=('b',) {'log': ['a']}
              cp4<-cp5 loop/0 next=('a',) {'log': []}
            history filter={'step': 1}
              1 snapshots
              cp3<-cp4 loop/1 next=('b',) {'log': ['a']}
            history before=Older(back=1)
              3 snapshots
              cp3<-cp4 loop/1 next=('b',) {'log': ['a']}
              cp4<-cp5 loop/0 next=('a',) {'log': []}
              cp5<-None input/-1 next=('__start__',) {'log': []}
            history before=Older(back=1) limit=1
              1 snapshots
              cp3<-cp4 loop/1 next=('b',) {'log': ['a']}
        """,
    ),
    Scenario(
        "two-runs-on-one-thread",
        chain,
        (Invoke(INPUT), Invoke({"log": ["again"]}), History(limit=5)),
        expected="""
            invoke {'log': []}
              {'log': ['a', 'b', 'c']}
              state cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
            invoke {'log': ['again']}
              {'log': ['a', 'b', 'c', 'again', 'a', 'b', 'c']}
              state cp3<-cp4 loop/8 next=() {'log': ['a', 'b', 'c', 'again', 'a', 'b', 'c']}
            history limit=5
              5 snapshots
              cp3<-cp4 loop/8 next=() {'log': ['a', 'b', 'c', 'again', 'a', 'b', 'c']}
              cp4<-cp5 loop/7 next=('c',) {'log': ['a', 'b', 'c', 'again', 'a', 'b']}
              cp5<-cp6 loop/6 next=('b',) {'log': ['a', 'b', 'c', 'again', 'a']}
              cp6<-cp7 loop/5 next=('a',) {'log': ['a', 'b', 'c', 'again']}
              cp7<-cp1 input/4 next=('__start__',) {'log': ['a', 'b', 'c']}
        """,
    ),
    Scenario(
        "get-state-of-an-older-checkpoint",
        chain,
        (Invoke(INPUT), GetState(at=Older(2)), GetState(at=Older(4))),
        expected="""
            invoke {'log': []}
              {'log': ['a', 'b', 'c']}
              state cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
            get_state at Older(back=2)
              cp3<-cp4 loop/1 next=('b',) {'log': ['a']}
                tasks ['b']
            get_state at Older(back=4)
              cp5<-None input/-1 next=('__start__',) {'log': []}
                tasks ['__start__']
        """,
    ),
    Scenario(
        "get-state-of-an-unknown-thread",
        chain,
        (GetState(at=Thread("nobody")), History(at=Thread("nobody")), GetState()),
        expected="""
            get_state at Thread(thread_id='nobody')
              None<-None None/None next=() {} (no created_at)
            history at Thread(thread_id='nobody')
              0 snapshots
            get_state
              None<-None None/None next=() {} (no created_at)
        """,
    ),
    Scenario(
        "update-state-while-paused-then-continue",
        counter_chain,
        (
            Invoke({"n": 1, "log": []}),
            UpdateState({"n": 10, "log": ["edited"]}),
            Invoke(None),
            History(),
        ),
        expected="""
            invoke {'log': [], 'n': 1}
              {'log': ['inc'], 'n': 2}
              state cp1<-cp2 loop/1 next=('double',) {'log': ['inc'], 'n': 2}
                tasks ['double']
            update_state {'log': ['edited'], 'n': 10}
              -> cp3
              state cp3<-cp1 update/2 next=('double',) {'log': ['inc', 'edited'], 'n': 10}
                tasks ['double']
            invoke None
              {'log': ['inc', 'edited', 'double'], 'n': 20}
              state cp4<-cp3 loop/3 next=() {'log': ['inc', 'edited', 'double'], 'n': 20}
            history
              5 snapshots
              cp4<-cp3 loop/3 next=() {'log': ['inc', 'edited', 'double'], 'n': 20}
              cp3<-cp1 update/2 next=('double',) {'log': ['inc', 'edited'], 'n': 10}
              cp1<-cp2 loop/1 next=('double',) {'log': ['inc'], 'n': 2}
              cp2<-cp5 loop/0 next=('inc',) {'log': [], 'n': 1}
              cp5<-None input/-1 next=('__start__',) {'log': []}
        """,
    ),
    Scenario(
        "update-state-as-node-then-continue",
        counter_chain,
        (
            Invoke({"n": 1, "log": []}),
            UpdateState({"n": 7, "log": ["as inc"]}, as_node="inc"),
            Invoke(None),
            History(limit=3),
        ),
        expected="""
            invoke {'log': [], 'n': 1}
              {'log': ['inc'], 'n': 2}
              state cp1<-cp2 loop/1 next=('double',) {'log': ['inc'], 'n': 2}
                tasks ['double']
            update_state {'log': ['as inc'], 'n': 7} as_node='inc'
              -> cp3
              state cp3<-cp1 update/2 next=('double',) {'log': ['inc', 'as inc'], 'n': 7}
                tasks ['double']
            invoke None
              {'log': ['inc', 'as inc', 'double'], 'n': 14}
              state cp4<-cp3 loop/3 next=() {'log': ['inc', 'as inc', 'double'], 'n': 14}
            history limit=3
              3 snapshots
              cp4<-cp3 loop/3 next=() {'log': ['inc', 'as inc', 'double'], 'n': 14}
              cp3<-cp1 update/2 next=('double',) {'log': ['inc', 'as inc'], 'n': 7}
              cp1<-cp2 loop/1 next=('double',) {'log': ['inc'], 'n': 2}
        """,
    ),
    Scenario(
        "update-state-as-node-before-a-conditional-edge",
        router,
        (
            Invoke({"n": 1, "log": []}),
            UpdateState({"n": 9}, as_node="route"),
            Invoke(None),
        ),
        expected="""
            invoke {'log': [], 'n': 1}
              {'log': ['route'], 'n': 1}
              state cp1<-cp2 loop/1 next=('small',) {'log': ['route'], 'n': 1}
                tasks ['small']
            update_state {'n': 9} as_node='route'
              -> cp3
              state cp3<-cp1 update/2 next=('big',) {'log': ['route'], 'n': 9}
                tasks ['big']
            invoke None
              {'log': ['route', 'big'], 'n': 9}
              state cp4<-cp3 loop/3 next=() {'log': ['route', 'big'], 'n': 9}
        """,
    ),
    Scenario(
        "update-state-on-a-finished-thread",
        chain,
        (
            Invoke(INPUT),
            UpdateState({"log": ["note"]}),
            UpdateState({"log": ["from a"]}, as_node="a"),
            Invoke(None),
            Calls(),
        ),
        expected="""
            invoke {'log': []}
              {'log': ['a', 'b', 'c']}
              state cp1<-cp2 loop/3 next=() {'log': ['a', 'b', 'c']}
            update_state {'log': ['note']}
              -> cp3
              state cp3<-cp1 update/4 next=() {'log': ['a', 'b', 'c', 'note']}
            update_state {'log': ['from a']} as_node='a'
              -> cp4
              state cp4<-cp3 update/5 next=('b',) {'log': ['a', 'b', 'c', 'note', 'from a']}
                tasks ['b']
            invoke None
              {'log': ['a', 'b', 'c', 'note', 'from a', 'b', 'c']}
              state cp5<-cp6 loop/7 next=() {'log': ['a', 'b', 'c', 'note', 'from a', 'b', 'c']}
            calls {'a': 1, 'b': 2, 'c': 2}
        """,
    ),
    Scenario(
        "update-state-on-a-fresh-thread",
        chain,
        (UpdateState({"log": ["seed"]}, as_node="a"), Invoke(None), History()),
        expected="""
            update_state {'log': ['seed']} as_node='a'
              -> cp1
              state cp1<-None update/0 next=('b',) {'log': ['seed']}
                tasks ['b']
            invoke None
              {'log': ['seed', 'b', 'c']}
              state cp2<-cp3 loop/2 next=() {'log': ['seed', 'b', 'c']}
            history
              3 snapshots
              cp2<-cp3 loop/2 next=() {'log': ['seed', 'b', 'c']}
              cp3<-cp1 loop/1 next=('c',) {'log': ['seed', 'b']}
              cp1<-None update/0 next=('b',) {'log': ['seed']}
        """,
    ),
]
