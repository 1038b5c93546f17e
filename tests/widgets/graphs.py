"""Small graphs the widget tests (and the browser test notebook) drive."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from graphkit import END, START, StateGraph, interrupt

HOSTILE = 'say "hi" <script>alert(1)</script> & ünï 中文 👋\nline two'
"""A node name and a value every output must escape."""


class State(TypedDict):
    n: int
    log: Annotated[list, operator.add]


class Calls:
    """Counts how often each node really ran (a replayed cache would not count)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def node(self, name: str, factor: int):
        def run(state: State) -> dict:
            self.counts[name] = self.counts.get(name, 0) + 1
            return {"n": state["n"] * factor + 1, "log": [name]}

        return run


def chain_app(calls: Calls | None = None, checkpointer=None):
    """START → a → b → c → END; each node sets n = n * factor + 1 and logs its name."""
    calls = calls or Calls()
    builder = StateGraph(State)
    for name, factor in (("a", 2), ("b", 3), ("c", 5)):
        builder.add_node(name, calls.node(name, factor))
    builder.add_edge(START, "a").add_edge("a", "b").add_edge("b", "c").add_edge("c", END)
    return builder.compile(checkpointer=checkpointer)


def failing_app():
    """START → a → broken: broken raises with a message that must be escaped."""

    def broken(state: State) -> dict:
        raise ValueError(f"boom {HOSTILE}")

    builder = StateGraph(State)
    builder.add_node("a", lambda state: {"n": 7})
    builder.add_node("broken", broken)
    builder.add_edge(START, "a").add_edge("a", "broken")
    return builder.compile()


class Asked(TypedDict):
    n: int
    answer: str


def asking_app():
    """START → a → ask (interrupt) → b → END."""
    builder = StateGraph(Asked)
    builder.add_node("a", lambda state: {"n": state["n"] + 1})
    builder.add_node("ask", lambda state: {"answer": interrupt("publish?")})
    builder.add_node("b", lambda state: {"n": state["n"] * 10})
    builder.add_edge(START, "a").add_edge("a", "ask").add_edge("ask", "b").add_edge("b", END)
    return builder.compile()


class Text(TypedDict):
    text: str


def hostile_app():
    """One node with a hostile name that writes a hostile value."""
    builder = StateGraph(Text)
    builder.add_node(HOSTILE, lambda state: {"text": HOSTILE + "</script><!--"})
    builder.add_edge(START, HOSTILE).add_edge(HOSTILE, END)
    return builder.compile()


def wide_app(size: int = 50):
    """``size`` nodes: a fan-out from START to size-2 workers that join into one sink."""
    builder = StateGraph(State)
    workers = [f"w{i}" for i in range(size - 1)]
    for name in [*workers, "sink"]:
        builder.add_node(name, lambda state, name=name: {"log": [name]})
    for name in workers:
        builder.add_edge(START, name)
    builder.add_edge(workers, "sink").add_edge("sink", END)
    return builder.compile()


class Topics(TypedDict):
    topics: list[str]
    done: Annotated[list, operator.add]


def edited_sends_app() -> Any:
    """plan sends each topic to work and pauses before work, as a ReAct agent pauses
    before its tool calls (a test then edits the packets with ``update_state``)."""
    from graphkit import InMemorySaver, Send

    builder = StateGraph(Topics).add_node("plan", lambda state: {})
    builder.add_node("work", lambda topic: {"done": [topic]})
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", lambda s: [Send("work", t) for t in s["topics"]])
    return builder.compile(checkpointer=InMemorySaver(), interrupt_before=["work"])


class Chat(TypedDict, total=False):
    question: str
    facts: list


def forgetful_memory_app() -> Any:
    """recall searches ("ada-lovelace", "memories"), its store keeps the memory under
    ("memories", "ada-lovelace"): the search finds nothing (the store tab's note)."""
    from graphkit.store.memory import InMemoryStore

    def recall(state: Chat, runtime: Any) -> dict:
        found = runtime.store.search(("ada-lovelace", "memories"))
        return {"facts": [item.value for item in found]}

    store = InMemoryStore()
    store.put(("memories", "ada-lovelace"), "f1", {"fact": "loves the analytical engine"})
    builder = StateGraph(Chat).add_node("recall", recall).add_edge(START, "recall")
    return builder.compile(store=store)


class Expenses(TypedDict, total=False):
    expenses: list
    decisions: Annotated[list, operator.add]


def approvals(kit: Any) -> Any:
    """One ``approve`` task per expense (Send), each asking a manager; ``kit`` is graphkit
    or a namespace of LangGraph's names (``StateGraph``, ``Send``, ``interrupt``, ...)."""

    def approve(expense: dict) -> dict:
        answer = kit.interrupt(f"Approve {expense['item']}?")
        return {"decisions": [f"{expense['item']}: {answer}"]}

    builder = kit.StateGraph(Expenses)
    builder.add_node("approve", approve)
    sends = lambda state: [kit.Send("approve", e) for e in state["expenses"]]  # noqa: E731
    builder.add_conditional_edges(kit.START, sends, ["approve"])
    return builder.add_edge("approve", kit.END)


class Meeting(TypedDict):
    log: Annotated[list, operator.add]


def meeting_app():
    """START → a, b (``async def``, side by side) → end: a and b wait at a barrier of two,
    so the step ends only if both run at the same time on one event loop."""
    import asyncio

    barriers: dict[int, asyncio.Barrier] = {}

    async def meet(name: str) -> dict:
        barrier = barriers.setdefault(id(asyncio.get_running_loop()), asyncio.Barrier(2))
        await asyncio.wait_for(barrier.wait(), timeout=30)
        return {"log": [name]}

    async def a(state: Meeting) -> dict:
        return await meet("a")

    async def b(state: Meeting) -> dict:
        return await meet("b")

    builder = StateGraph(Meeting).add_node("a", a).add_node("b", b)
    builder.add_node("end", lambda state: {"log": [f"end after {len(state['log'])}"]})
    builder.add_edge(START, "a").add_edge(START, "b").add_edge(["a", "b"], "end")
    from graphkit import InMemorySaver

    return builder.add_edge("end", END).compile(checkpointer=InMemorySaver())


class Post(TypedDict, total=False):
    topic: str
    draft: str
    verdict: str


def editor(kit: Any) -> Any:
    """Lesson 20's subgraph: write → ask, and ask calls ``interrupt()``."""

    def write(state: Post) -> dict:
        return {"draft": f"A post about {state['topic']}"}

    def ask(state: Post) -> dict:
        return {"verdict": f"{kit.interrupt('Publish?')}: {state['draft']}"}

    builder = kit.StateGraph(Post)
    builder.add_node("write", write)
    builder.add_node("ask", ask)
    builder.add_edge(kit.START, "write")
    return builder.add_edge("write", "ask").compile()


def desk(kit: Any, inside: bool = False) -> Any:
    """Lesson 20's parent: the subgraph ``editor`` as its node ``editor`` or, ``inside``,
    invoked by the node ``review``; then ``publish``."""
    inner = editor(kit)

    def review(state: Post) -> dict:
        return {"verdict": inner.invoke({"topic": state["topic"]})["verdict"]}

    def publish(state: Post) -> dict:
        return {"draft": f"published: {state['verdict']}"}

    first = "review" if inside else "editor"
    builder = kit.StateGraph(Post)
    builder.add_node(first, review if inside else inner)
    builder.add_node("publish", publish)
    builder.add_edge(kit.START, first)
    return builder.add_edge(first, "publish")
