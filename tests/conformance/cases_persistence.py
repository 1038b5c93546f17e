"""Scenarios about `interrupt(value)` inside nodes, resumed with `Command(resume=...)`:
one interrupt, several in one node, in parallel nodes (answered by id, or wrongly with one
value), in a loop, in a subgraph; what `invoke(None)`, a new input or a resume on a fresh
thread do to a pending interrupt.

Each graph is built from `Tools` (library, checkpointer, `interrupt`, a call counter) and
played on one thread; see `scenarios.py` for the steps and how ids are normalised. The
breakpoints are in `cases_persistence_breakpoints.py`, saved state in
`cases_persistence_state.py` and `cases_persistence_time_travel.py`.
"""

from .harness import appender
from .persistence_graphs import Counter, Log
from .scenarios import (
    Calls,
    History,
    Invoke,
    Resume,
    ResumeEach,
    Scenario,
    Stream,
    Tools,
)


def _asker(tools: Tools, name: str, *questions: str):
    """A node that asks each question in turn and logs `name: answer` for each."""

    def node(state: dict) -> dict:
        tools.calls[name] += 1
        return {"log": [f"{name}: {tools.interrupt(question)}" for question in questions]}

    return node


def _chain(tools: Tools, *nodes: tuple[str, object], **compile_options):
    """START -> each node in turn -> END, on the `Log` state."""
    lib = tools.lib
    graph = lib.StateGraph(Log)
    previous = lib.START
    for name, node in nodes:
        graph.add_node(name, node)
        graph.add_edge(previous, name)
        previous = name
    return graph.compile(checkpointer=tools.checkpointer, **compile_options)


def _fan(tools: Tools, branches: dict, **compile_options):
    """START -> "a" -> every branch (in parallel) -> "z" -> END, on the `Log` state."""
    lib = tools.lib
    graph = lib.StateGraph(Log)
    graph.add_node("a", appender("a"))
    graph.add_node("z", appender("z"))
    graph.add_edge(lib.START, "a")
    for name, node in branches.items():
        graph.add_node(name, node)
        graph.add_edge("a", name)
        graph.add_edge(name, "z")
    return graph.compile(checkpointer=tools.checkpointer, **compile_options)


# --- interrupt() and Command(resume=...) -----------------------------------------------------


def single_interrupt(tools: Tools):
    return _chain(tools, ("a", appender("a")), ("ask", _asker(tools, "ask", "name?")))


def three_questions(tools: Tools):
    return _chain(tools, ("ask", _asker(tools, "ask", "q1", "q2", "q3")), ("z", appender("z")))


def parallel_askers(tools: Tools):
    return _fan(tools, {"b": _asker(tools, "b", "b?"), "c": _asker(tools, "c", "c?")})


def asker_beside_plain_node(tools: Tools):
    def plain(state: Log) -> dict:
        tools.calls["plain"] += 1
        return {"log": ["plain"]}

    return _fan(tools, {"b": _asker(tools, "b", "b?"), "plain": plain})


def loop_of_questions(tools: Tools):
    """ "ask" adds the answer to n and loops until n reaches 10."""
    lib = tools.lib

    def ask(state: Counter) -> dict:
        tools.calls["ask"] += 1
        answer = tools.interrupt(f"n={state['n']}, add?")
        return {"n": state["n"] + answer, "log": [f"added {answer}"]}

    graph = lib.StateGraph(Counter)
    graph.add_node("ask", ask)
    graph.add_edge(lib.START, "ask")
    graph.add_conditional_edges("ask", lambda state: "ask" if state["n"] < 10 else lib.END)
    return graph.compile(checkpointer=tools.checkpointer)


def approval_with_goto(tools: Tools):
    """ "review" asks with a dict value, then routes by the answer with Command(goto=...)."""
    lib = tools.lib

    def review(state: Log):
        answer = tools.interrupt({"ok?": ["yes", "no"]})
        target = "publish" if answer == "yes" else "discard"
        return lib.Command(update={"log": [f"review: {answer}"]}, goto=target)

    graph = lib.StateGraph(Log)
    graph.add_node("draft", appender("draft"))
    graph.add_node("review", review, destinations=("publish", "discard"))
    graph.add_node("publish", appender("publish"))
    graph.add_node("discard", appender("discard"))
    graph.add_edge(lib.START, "draft")
    graph.add_edge("draft", "review")
    return graph.compile(checkpointer=tools.checkpointer)


def interrupt_in_subgraph(tools: Tools):
    """a -> child (a compiled graph whose "ask" interrupts) -> z. The child starts from the
    parent's state and returns its whole log, which the parent's reducer appends: "a" twice."""
    lib = tools.lib
    child = lib.StateGraph(Log)
    child.add_node("ask", _asker(tools, "ask", "child?"))
    child.add_edge(lib.START, "ask")
    graph = lib.StateGraph(Log)
    graph.add_node("a", appender("a"))
    graph.add_node("child", child.compile())
    graph.add_node("z", appender("z"))
    graph.add_edge(lib.START, "a")
    graph.add_edge("a", "child")
    graph.add_edge("child", "z")
    return graph.compile(checkpointer=tools.checkpointer)


INPUT = {"log": []}

SCENARIOS = [
    Scenario(
        "interrupt-then-resume",
        single_interrupt,
        (Invoke(INPUT), Invoke(Resume("Ada")), History(), Calls()),
        expected="""
            invoke {'log': []}
              {'__interrupt__': [Interrupt(i1, 'name?')], 'log': ['a']}
              state cp1<-cp2 loop/1 next=('ask',) {'log': ['a']}
                interrupts [Interrupt(i1, 'name?')]
                tasks ['ask?1']
            invoke Resume(value='Ada')
              {'log': ['a', 'ask: Ada']}
              state cp3<-cp1 loop/2 next=() {'log': ['a', 'ask: Ada']}
            history
              4 snapshots
              cp3<-cp1 loop/2 next=() {'log': ['a', 'ask: Ada']}
              cp1<-cp2 loop/1 next=('ask',) {'log': ['a']}
                interrupts [Interrupt(i1, 'name?')]
              cp2<-cp4 loop/0 next=('a',) {'log': []}
              cp4<-None input/-1 next=('__start__',) {'log': []}
            calls {'ask': 2}
        """,
    ),
    Scenario(
        "three-interrupts-in-one-node-answered-one-by-one",
        three_questions,
        (
            Invoke(INPUT),
            Invoke(Resume("one")),
            Invoke(Resume("two")),
            Invoke(Resume("three")),
            Calls(),
        ),
        expected="""
            invoke {'log': []}
              {'__interrupt__': [Interrupt(i1, 'q1')], 'log': []}
              state cp1<-cp2 loop/0 next=('ask',) {'log': []}
                interrupts [Interrupt(i1, 'q1')]
                tasks ['ask?1']
            invoke Resume(value='one')
              {'__interrupt__': [Interrupt(i2, 'q2')], 'log': []}
              state cp1<-cp2 loop/0 next=('ask',) {'log': []}
                interrupts [Interrupt(i2, 'q2')]
                tasks ['ask?1']
            invoke Resume(value='two')
              {'__interrupt__': [Interrupt(i3, 'q3')], 'log': []}
              state cp1<-cp2 loop/0 next=('ask',) {'log': []}
                interrupts [Interrupt(i3, 'q3')]
                tasks ['ask?1']
            invoke Resume(value='three')
              {'log': ['ask: one', 'ask: two', 'ask: three', 'z']}
              state cp3<-cp4 loop/2 next=() {'log': ['ask: one', 'ask: two', 'ask: three', 'z']}
            calls {'ask': 4}
        """,
    ),
    Scenario(
        "parallel-interrupts-resumed-by-id",
        parallel_askers,
        (
            Invoke(INPUT),
            Invoke(ResumeEach({"b?": "B", "c?": "C"})),
            History(),
            Calls(),
        ),
        expected="""
            invoke {'log': []}
              {'__interrupt__': [Interrupt(i1, 'b?'), Interrupt(i2, 'c?')], 'log': ['a']}
              state cp1<-cp2 loop/1 next=('b', 'c') {'log': ['a']}
                interrupts [Interrupt(i1, 'b?'), Interrupt(i2, 'c?')]
                tasks ['b?1', 'c?1']
            invoke ResumeEach(answers={'b?': 'B', 'c?': 'C'})
              {'log': ['a', 'b: B', 'c: C', 'z']}
              state cp3<-cp4 loop/3 next=() {'log': ['a', 'b: B', 'c: C', 'z']}
            history
              5 snapshots
              cp3<-cp4 loop/3 next=() {'log': ['a', 'b: B', 'c: C', 'z']}
              cp4<-cp1 loop/2 next=('z',) {'log': ['a', 'b: B', 'c: C']}
              cp1<-cp2 loop/1 next=('b', 'c') {'log': ['a']}
                interrupts [Interrupt(i1, 'b?'), Interrupt(i2, 'c?')]
              cp2<-cp5 loop/0 next=('a',) {'log': []}
              cp5<-None input/-1 next=('__start__',) {'log': []}
            calls {'b': 2, 'c': 2}
        """,
    ),
    Scenario(
        "parallel-interrupts-answered-one-at-a-time",
        parallel_askers,
        (
            Invoke(INPUT),
            Invoke(ResumeEach({"c?": "C"})),
            Invoke(ResumeEach({"b?": "B"})),
            Calls(),
        ),
        expected="""
            invoke {'log': []}
              {'__interrupt__': [Interrupt(i1, 'b?'), Interrupt(i2, 'c?')], 'log': ['a']}
              state cp1<-cp2 loop/1 next=('b', 'c') {'log': ['a']}
                interrupts [Interrupt(i1, 'b?'), Interrupt(i2, 'c?')]
                tasks ['b?1', 'c?1']
            invoke ResumeEach(answers={'c?': 'C'})
              {'__interrupt__': [Interrupt(i1, 'b?')], 'log': ['a', 'c: C']}
              state cp1<-cp2 loop/1 next=('b',) {'log': ['a', 'c: C']}
                interrupts [Interrupt(i1, 'b?')]
                tasks ['b?1', 'c']
            invoke ResumeEach(answers={'b?': 'B'})
              {'log': ['a', 'b: B', 'c: C', 'z']}
              state cp3<-cp4 loop/3 next=() {'log': ['a', 'b: B', 'c: C', 'z']}
            calls {'b': 3, 'c': 2}
        """,
    ),
    Scenario(
        "parallel-interrupts-the-last-one-answered-with-a-plain-value",
        parallel_askers,
        (
            Invoke(INPUT),
            Invoke(ResumeEach({"c?": "C"})),
            Invoke(Resume("B")),
            Calls(),
        ),
        expected="""
            invoke {'log': []}
              {'__interrupt__': [Interrupt(i1, 'b?'), Interrupt(i2, 'c?')], 'log': ['a']}
              state cp1<-cp2 loop/1 next=('b', 'c') {'log': ['a']}
                interrupts [Interrupt(i1, 'b?'), Interrupt(i2, 'c?')]
                tasks ['b?1', 'c?1']
            invoke ResumeEach(answers={'c?': 'C'})
              {'__interrupt__': [Interrupt(i1, 'b?')], 'log': ['a', 'c: C']}
              state cp1<-cp2 loop/1 next=('b',) {'log': ['a', 'c: C']}
                interrupts [Interrupt(i1, 'b?')]
                tasks ['b?1', 'c']
            invoke Resume(value='B')
              {'log': ['a', 'b: B', 'c: C', 'z']}
              state cp3<-cp4 loop/3 next=() {'log': ['a', 'b: B', 'c: C', 'z']}
            calls {'b': 3, 'c': 2}
        """,
    ),
    Scenario(
        "parallel-interrupts-resumed-with-one-value",
        parallel_askers,
        (Invoke(INPUT), Invoke(Resume("same")), Calls()),
        expected="""
            invoke {'log': []}
              {'__interrupt__': [Interrupt(i1, 'b?'), Interrupt(i2, 'c?')], 'log': ['a']}
              state cp1<-cp2 loop/1 next=('b', 'c') {'log': ['a']}
                interrupts [Interrupt(i1, 'b?'), Interrupt(i2, 'c?')]
                tasks ['b?1', 'c?1']
            invoke Resume(value='same')
              raised RuntimeError
              state cp1<-cp2 loop/1 next=('b', 'c') {'log': ['a']}
                interrupts [Interrupt(i1, 'b?'), Interrupt(i2, 'c?')]
                tasks ['b?1', 'c?1']
            calls {'b': 1, 'c': 1}
        """,
    ),
    Scenario(
        "interrupt-beside-a-finished-sibling",
        asker_beside_plain_node,
        (Invoke(INPUT), Invoke(Resume("B")), Calls()),
        expected="""
            invoke {'log': []}
              {'__interrupt__': [Interrupt(i1, 'b?')], 'log': ['a', 'plain']}
              state cp1<-cp2 loop/1 next=('b',) {'log': ['a', 'plain']}
                interrupts [Interrupt(i1, 'b?')]
                tasks ['b?1', 'plain']
            invoke Resume(value='B')
              {'log': ['a', 'b: B', 'plain', 'z']}
              state cp3<-cp4 loop/3 next=() {'log': ['a', 'b: B', 'plain', 'z']}
            calls {'b': 2, 'plain': 1}
        """,
    ),
    Scenario(
        "interrupt-inside-a-loop",
        loop_of_questions,
        (
            Invoke({"n": 0, "log": []}),
            Invoke(Resume(4)),
            Invoke(Resume(5)),
            Invoke(Resume(6)),
            History(),
        ),
        expected="""
            invoke {'log': [], 'n': 0}
              {'__interrupt__': [Interrupt(i1, 'n=0, add?')], 'log': [], 'n': 0}
              state cp1<-cp2 loop/0 next=('ask',) {'log': [], 'n': 0}
                interrupts [Interrupt(i1, 'n=0, add?')]
                tasks ['ask?1']
            invoke Resume(value=4)
              {'__interrupt__': [Interrupt(i2, 'n=4, add?')], 'log': ['added 4'], 'n': 4}
              state cp3<-cp1 loop/1 next=('ask',) {'log': ['added 4'], 'n': 4}
                interrupts [Interrupt(i2, 'n=4, add?')]
                tasks ['ask?1']
            invoke Resume(value=5)
              {'__interrupt__': [Interrupt(i3, 'n=9, add?')], 'log': ['added 4', 'added 5'], 'n': 9}
              state cp4<-cp3 loop/2 next=('ask',) {'log': ['added 4', 'added 5'], 'n': 9}
                interrupts [Interrupt(i3, 'n=9, add?')]
                tasks ['ask?1']
            invoke Resume(value=6)
              {'log': ['added 4', 'added 5', 'added 6'], 'n': 15}
              state cp5<-cp4 loop/3 next=() {'log': ['added 4', 'added 5', 'added 6'], 'n': 15}
            history
              5 snapshots
              cp5<-cp4 loop/3 next=() {'log': ['added 4', 'added 5', 'added 6'], 'n': 15}
              cp4<-cp3 loop/2 next=('ask',) {'log': ['added 4', 'added 5'], 'n': 9}
                interrupts [Interrupt(i3, 'n=9, add?')]
              cp3<-cp1 loop/1 next=('ask',) {'log': ['added 4'], 'n': 4}
                interrupts [Interrupt(i2, 'n=4, add?')]
              cp1<-cp2 loop/0 next=('ask',) {'log': [], 'n': 0}
                interrupts [Interrupt(i1, 'n=0, add?')]
              cp2<-None input/-1 next=('__start__',) {'log': []}
        """,
    ),
    Scenario(
        "interrupt-with-dict-value-routes-by-answer",
        approval_with_goto,
        (Stream(INPUT), Stream(Resume("no"))),
        expected="""
            stream {'log': []}
              values {'log': []}
              updates {'draft': {'log': ['draft']}}
              values {'log': ['draft']}
              updates {'__interrupt__': (Interrupt(i1, {'ok?': ['yes', 'no']}),)}
              values {'__interrupt__': (Interrupt(i1, {'ok?': ['yes', 'no']}),), 'log': ['draft']}
              state cp1<-cp2 loop/1 next=('review',) {'log': ['draft']}
                interrupts [Interrupt(i1, {'ok?': ['yes', 'no']})]
                tasks ['review?1']
            stream Resume(value='no')
              values {'log': ['draft']}
              updates {'review': {'log': ['review: no']}}
              values {'log': ['draft', 'review: no']}
              updates {'discard': {'log': ['discard']}}
              values {'log': ['draft', 'review: no', 'discard']}
              state cp3<-cp4 loop/3 next=() {'log': ['draft', 'review: no', 'discard']}
        """,
    ),
    Scenario(
        "resume-streamed-updates-and-values",
        parallel_askers,
        (Stream(INPUT), Stream(ResumeEach({"b?": "B", "c?": "C"}))),
        expected="""
            stream {'log': []}
              values {'log': []}
              updates {'a': {'log': ['a']}}
              values {'log': ['a']}
              updates {'__interrupt__': (Interrupt(i1, 'b?'),)}
              updates {'__interrupt__': (Interrupt(i2, 'c?'),)}
              values {'__interrupt__': (Interrupt(i1, 'b?'),), 'log': ['a']}
              values {'__interrupt__': (Interrupt(i2, 'c?'),), 'log': ['a']}
              state cp1<-cp2 loop/1 next=('b', 'c') {'log': ['a']}
                interrupts [Interrupt(i1, 'b?'), Interrupt(i2, 'c?')]
                tasks ['b?1', 'c?1']
            stream ResumeEach(answers={'b?': 'B', 'c?': 'C'})
              values {'log': ['a']}
              updates {'b': {'log': ['b: B']}}
              updates {'c': {'log': ['c: C']}}
              values {'log': ['a', 'b: B', 'c: C']}
              updates {'z': {'log': ['z']}}
              values {'log': ['a', 'b: B', 'c: C', 'z']}
              state cp3<-cp4 loop/3 next=() {'log': ['a', 'b: B', 'c: C', 'z']}
        """,
    ),
    Scenario(
        "invoke-none-on-a-pending-interrupt-asks-again",
        single_interrupt,
        (Invoke(INPUT), Invoke(None), Invoke(Resume("Ada")), Calls()),
        expected="""
            invoke {'log': []}
              {'__interrupt__': [Interrupt(i1, 'name?')], 'log': ['a']}
              state cp1<-cp2 loop/1 next=('ask',) {'log': ['a']}
                interrupts [Interrupt(i1, 'name?')]
                tasks ['ask?1']
            invoke None
              {'__interrupt__': [Interrupt(i1, 'name?')], 'log': ['a']}
              state cp1<-cp2 loop/1 next=('ask',) {'log': ['a']}
                interrupts [Interrupt(i1, 'name?')]
                tasks ['ask?1']
            invoke Resume(value='Ada')
              {'log': ['a', 'ask: Ada']}
              state cp3<-cp1 loop/2 next=() {'log': ['a', 'ask: Ada']}
            calls {'ask': 3}
        """,
    ),
    Scenario(
        "new-input-while-paused-at-an-interrupt",
        single_interrupt,
        (Invoke(INPUT), Invoke({"log": ["new"]}), History(), Calls()),
        expected="""
            invoke {'log': []}
              {'__interrupt__': [Interrupt(i1, 'name?')], 'log': ['a']}
              state cp1<-cp2 loop/1 next=('ask',) {'log': ['a']}
                interrupts [Interrupt(i1, 'name?')]
                tasks ['ask?1']
            invoke {'log': ['new']}
              {'__interrupt__': [Interrupt(i2, 'name?')], 'log': ['a', 'new', 'a']}
              state cp3<-cp4 loop/4 next=('ask',) {'log': ['a', 'new', 'a']}
                interrupts [Interrupt(i2, 'name?')]
                tasks ['ask?1']
            history
              6 snapshots
              cp3<-cp4 loop/4 next=('ask',) {'log': ['a', 'new', 'a']}
                interrupts [Interrupt(i2, 'name?')]
              cp4<-cp5 loop/3 next=('a',) {'log': ['a', 'new']}
              cp5<-cp1 input/2 next=('__start__',) {'log': ['a']}
              cp1<-cp2 loop/1 next=('ask',) {'log': ['a']}
                interrupts [Interrupt(i1, 'name?')]
              cp2<-cp6 loop/0 next=('a',) {'log': []}
              cp6<-None input/-1 next=('__start__',) {'log': []}
            calls {'ask': 2}
        """,
    ),
    Scenario(
        "resume-on-a-fresh-thread",
        single_interrupt,
        (Invoke(Resume("nobody asked")), Calls()),
        expected="""
            invoke Resume(value='nobody asked')
              {'__interrupt__': [Interrupt(i1, 'name?')], 'log': ['a']}
              state cp1<-cp2 loop/1 next=('ask',) {'log': ['a']}
                interrupts [Interrupt(i1, 'name?')]
                tasks ['ask?1']
            calls {'ask': 1}
        """,
        warns="which has no checkpoint: there is nothing to resume",
    ),
    Scenario(
        "interrupt-inside-a-subgraph",
        interrupt_in_subgraph,
        (Invoke(INPUT), Invoke(Resume("kid")), Calls()),
        expected="""
            invoke {'log': []}
              {'__interrupt__': [Interrupt(i1, 'child?')], 'log': ['a']}
              state cp1<-cp2 loop/1 next=('child',) {'log': ['a']}
                interrupts [Interrupt(i1, 'child?')]
                tasks ['child?1']
            invoke Resume(value='kid')
              {'log': ['a', 'a', 'ask: kid', 'z']}
              state cp3<-cp4 loop/3 next=() {'log': ['a', 'a', 'ask: kid', 'z']}
            calls {'ask': 2}
        """,
    ),
]
