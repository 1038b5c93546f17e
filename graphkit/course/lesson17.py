"""Checks for lesson 17 · Debug your LangGraph app with graphkit.

The lesson's app is plain LangGraph, and so is every app these checks run: each is
compiled with LangGraph's own ``InMemorySaver``, run with LangGraph's ``invoke``, and its
thread read back with ``open_langgraph_thread``. A check hands the learner's function
those imported runs (threads of its own, with the bug in other places), or runs the
learner's LangGraph builder with a model of its own.

>>> from graphkit.course.solutions import lesson17 as solutions
>>> bool(check_lost_at(solutions.lost_at))
True
"""

from __future__ import annotations

import operator
import warnings
from typing import Annotated, Any, TypedDict

from graphkit.course.checking import Wrong, exercise
from graphkit.errors import GraphkitWarning
from graphkit.extras import require

__all__ = [
    "check_fixed_app",
    "check_last_writer",
    "check_lost_at",
    "research_model",
    "research_thread",
]


def _langgraph() -> Any:
    return require("langgraph.graph", extra="course", feature="lesson 17's checks")


def _messages(*names: str) -> tuple[Any, ...]:
    module = require("langchain_core.messages", extra="agents", feature="lesson 17's checks")
    return tuple(getattr(module, name) for name in names)


def research_model(topics: tuple[str, ...], answer: str = "Here is what I found.") -> Any:
    """A scripted chat model that searches each of ``topics`` in turn (one tool call per
    answer), then answers ``answer``."""
    from graphkit.prebuilt import ScriptedChatModel

    (AIMessage,) = _messages("AIMessage")

    def script(messages: list[Any]) -> Any:
        done = len([m for m in messages if m.type == "tool"])
        if done < len(topics):
            call = {"name": "search", "args": {"topic": topics[done]}, "id": f"call-{done + 1}"}
            return AIMessage("", tool_calls=[call])
        return answer

    return ScriptedChatModel(responses=[script] * 50)


def _builder(model: Any, keep: str, key: str) -> Any:
    """The lesson's research app in LangGraph, its list ``key`` kept as ``keep`` says:
    ``"replace"`` (no reducer: the lesson's bug), ``"reducer"`` (``operator.add``) or
    ``"in_node"`` (no reducer; the node writes the old list and the new item)."""
    graph = _langgraph()
    from langgraph.graph.message import add_messages
    from langgraph.prebuilt import tools_condition

    AIMessage, ToolMessage = _messages("AIMessage", "ToolMessage")
    kept = Annotated[list, operator.add] if keep == "reducer" else list
    State = TypedDict("State", {"messages": Annotated[list, add_messages], key: kept})

    def agent(state: dict) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    def tools(state: dict) -> dict:
        call = state["messages"][-1].tool_calls[0]
        found = f"wiki/{call['args']['topic']}"
        new = [*state.get(key, []), found] if keep == "in_node" else [found]
        return {"messages": [ToolMessage(found, tool_call_id=call["id"])], key: new}

    def write_answer(state: dict) -> dict:
        said = state["messages"][-1].content
        return {"messages": [AIMessage(f"{said} (sources: {', '.join(state.get(key, []))})")]}

    builder = graph.StateGraph(State)
    builder.add_node("agent", agent)
    builder.add_node("tools", tools)
    builder.add_node("write_answer", write_answer)
    builder.add_edge(graph.START, "agent")
    builder.add_conditional_edges(
        "agent", tools_condition, {"tools": "tools", graph.END: "write_answer"}
    )
    builder.add_edge("tools", "agent")
    builder.add_edge("write_answer", graph.END)
    return builder


def _open(app: Any, config: dict) -> Any:
    from graphkit import open_langgraph_thread

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphkitWarning)
        return open_langgraph_thread(app, config)


def research_thread(
    topics: tuple[str, ...], keep: str = "replace", key: str = "sources", edit: Any = None
) -> Any:
    """Run the research app on LangGraph (its ``InMemorySaver``) and read the thread back
    as a graphkit ``Run``. With ``edit``, the app stops before ``write_answer`` and
    ``update_state(config, edit)`` changes the state before it goes on."""
    from langgraph.checkpoint.memory import InMemorySaver

    HumanMessage = _messages("HumanMessage")[0]
    pause = ["write_answer"] if edit is not None else None
    builder = _builder(research_model(topics), keep, key)
    app = builder.compile(checkpointer=InMemorySaver(), interrupt_before=pause)
    config = {"configurable": {"thread_id": "check"}}
    app.invoke({"messages": [HumanMessage(f"Tell me about {', '.join(topics)}.")]}, config)
    if edit is not None:
        app.update_state(config, edit)
        app.invoke(None, config)
    return _open(app, config)


def _said(answer: Any) -> str:
    return "None" if answer is None else repr(answer)


# -- 17.1 · where did the value go wrong? ------------------------------------------------


def _threads_17_1() -> list[tuple[str, Any, str, Any]]:
    """(what the thread is, its run, the key asked, the answer expected)."""
    lost = research_thread(("owls", "bats", "moths"))
    edited = research_thread(("owls",), key="notes", edit={"notes": ["wiki/cats"]})
    kept = research_thread(("owls", "bats", "moths"), keep="reducer")
    grown = research_thread(("owls", "bats"), keep="in_node", key="notes")
    # (an edit that keeps the first note and adds two: a loss that neither the list's
    # length nor its first item shows)
    longer = research_thread(
        ("owls", "bats"),
        "in_node",
        "notes",
        edit={"notes": ["wiki/owls", "wiki/cats", "wiki/dogs"]},
    )
    # (an edit that keeps the newest note and drops the first: a loss that the last item
    # does not show)
    older = research_thread(
        ("owls", "bats"), "in_node", "notes", edit={"notes": ["wiki/bats", "wiki/cats"]}
    )
    return [
        ("a thread that searched owls, bats and moths", lost, "sources", (4, "tools")),
        ("the same thread", lost, "messages", None),
        ("a thread whose notes were edited with update_state", edited, "notes", (4, "__update__")),
        ("a thread of the app with a reducer on sources", kept, "sources", None),
        ("a thread whose tools node writes the old notes and the new one", grown, "notes", None),
        (
            "a thread of the same app whose notes were then edited with update_state",
            longer,
            "notes",
            (6, "__update__"),
        ),
        (
            "a thread of the same app whose first note was edited away with update_state",
            older,
            "notes",
            (6, "__update__"),
        ),
    ]


@exercise("17.1 · Where did the value go wrong?")
def check_lost_at(lost_at: Any) -> str:
    """``lost_at(run, key)`` is ``(step, node)`` for the first step whose Update took an
    item out of the list ``key`` (the node that wrote it), or None if no step did. Tried
    on LangGraph threads of the check's own, read with ``open_langgraph_thread``."""
    if not callable(lost_at):
        raise Wrong(
            f"lost_at is {lost_at!r}, not a function.",
            "Pass the function you wrote, lost_at, without calling it.",
        )
    for what, run, key, expected in _threads_17_1():
        try:
            got = lost_at(run, key)
        except TypeError as error:
            first = _first_write(run, key)
            if "_Empty" in str(error) and first is not None:
                raise Wrong(
                    f"On {what}, lost_at(run, {key!r}) raised TypeError: {error}. Step "
                    f"{first}'s change of {key} is its first write: its before is empty, "
                    "not a list.",
                    "A key's first write has nothing before it (<empty> in the changes "
                    "table), so it loses nothing: compare the items only where before "
                    "holds a list.",
                ) from None
            unhashable = _unhashable(run, key)
            if unhashable is None or "unhashable" not in str(error):
                raise  # (the learner's own bug: the check reports it as any other)
            raise Wrong(
                f"On {what}, lost_at(run, {key!r}) raised TypeError: {error}. {key} "
                f"there holds items such as a {unhashable}, which are not hashable: they "
                "cannot go in a set or be a dict's keys. A set works for sources, whose "
                "items are strings, but lost_at is for any key holding a list.",
                "Compare the items another way, without a set or dict: by equality (==), "
                "which every item has.",
            ) from None
        if isinstance(got, list):
            got = tuple(got)
        if got != expected:
            said = f"On {what}, lost_at(run, {key!r}) returned {_said(got)}"
            if shape := _shape(got):
                raise Wrong(f"{said}. {shape.message}", shape.hint)
            why, hint = _lost_why(run, key, got, expected)
            raise Wrong(f"{said}, but {why}.", hint)
    return (
        "On every thread, lost_at found the first Update that took an item out of the key, "
        "and who wrote it (a node, or update_state's __update__), and None where nothing "
        "was lost."
    )


def _unhashable(run: Any, key: str) -> str | None:
    """The type name of the first item of the list ``key`` in ``run`` that cannot be
    hashed (a message, a dict), or None if every item can."""
    for superstep in run.steps:
        change = superstep.update.change(key) if superstep.update else None
        for value in (change.before, change.after) if change is not None else ():
            for item in value if isinstance(value, list) else ():
                try:
                    hash(item)
                except TypeError:
                    return type(item).__name__
    return None


def _first_write(run: Any, key: str) -> int | None:
    """The step of ``run`` whose Update wrote ``key`` first (its before empty), if any."""
    for superstep in run.steps:
        change = superstep.update.change(key) if superstep.update else None
        if change is not None and not isinstance(change.before, list):
            return superstep.step
    return None


def _by_place(run: Any, got: Any, expected: Any) -> bool:
    """Whether ``got``'s step is the place in ``run.steps`` of the step expected (an
    ``enumerate(run.steps)``), not its number."""
    step = got[0]
    return (
        expected is not None
        and isinstance(step, int)
        and 0 <= step < len(run.steps)
        and run.steps[step].step == expected[0]
        and step != expected[0]
    )


_BY_PLACE = (
    "run.steps starts with step -1, the input: a superstep's number is its step "
    "attribute, not its place in run.steps."
)


def _removed(run: Any, step: int, key: str) -> bool:
    """Whether step ``step`` of ``run`` took an item out of the list ``key``."""
    superstep = next((s for s in run.steps if s.step == step and s.update), None)
    change = superstep.update.change(key) if superstep else None
    before = change.before if change is not None else None
    return isinstance(before, list) and any(item not in change.after for item in before)


def _writer_at(run: Any, step: int, key: str) -> str | None:
    """Who wrote ``key`` in step ``step`` of ``run`` (None: nothing did)."""
    superstep = next((s for s in run.steps if s.step == step and s.update), None)
    change = superstep.update.change(key) if superstep else None
    return ", ".join(change.writers) if change is not None else None


def _shape(got: Any) -> Wrong | None:
    """``Wrong`` for a pair whose step is not a number or whose node is not one name
    (a ``Superstep``, a change's ``writers`` tuple), said as what it is; else None."""
    if not (isinstance(got, tuple) and len(got) == 2):
        return None
    step, node = got
    if not isinstance(step, int) or isinstance(step, bool):
        return Wrong(
            f"The step in your pair is a {type(step).__name__}, not a step's number.",
            "A superstep's number is its step attribute (superstep.step), as -1, 0, 1 "
            "in print(run).",
        )
    if not isinstance(node, str):
        return Wrong(
            f"The node in your pair is a {type(node).__name__}, not a node's name.",
            "A change's writers is a tuple of the names of every node that wrote the "
            "key in that step: give the name, a str.",
        )
    return None


def _lost_why(run: Any, key: str, got: Any, expected: Any) -> tuple[str, str]:
    """What is wrong with ``got``, said without the expected answer, and a hint that
    points at that first mistake (not at the whole of ``lost_at``)."""
    if expected is None:
        if got is not None and not got:  # ((), [] or 0 for nothing)
            return f"no step took an item out of {key}", "Then return None itself."
        return f"no step took an item out of {key}", (
            "A change is not a loss: an item is lost when the value after a step lacks "
            "something the value before it held."
        )
    if got is None:
        return f"a step's Update took an item out of {key}", (
            f"Look at each step's change of {key}, its before and its after: in one of "
            "them, the value after lacks something its value before held."
        )
    if not (isinstance(got, tuple) and len(got) == 2):
        return "the answer is a pair: a step's number and a node's name", (
            "Return a pair, (step, node), or None when no step took an item out."
        )
    step, node = got
    if not isinstance(step, int) or not _removed(run, step, key):
        return f"step {step}'s Update took nothing out of {key}", (
            _BY_PLACE
            if _by_place(run, got, expected)
            else f"An item is lost when after lacks something before held: compare before "
            f"with after in step {step}'s change of {key}."
        )
    if step != expected[0]:
        return f"an earlier step already took an item out of {key}", (
            "Return the first step that took an item out, not a later one."
        )
    return f"in step {step}, {key} was written by {_writer_at(run, step, key)}, not {node!r}", (
        "The step's change of the key names who wrote it: its writers."
    )


# -- 17.2 · fix the app ------------------------------------------------------------------


TOPICS_17_2 = (("owls", "bats", "moths"), ("rivers", "rain"))
STEP_LIMIT = 40
"""The ``recursion_limit`` the check runs an app with: the fixed app runs 8 nodes, one a
step, for three searches, and an app that loops fails fast with LangGraph's own error."""


def _where(run: Any) -> str:
    """Where an app that raised stopped: its last saved step and what it planned."""
    if not run.steps:
        return "before its first step"
    step = run.steps[-1]
    nodes = step.plan.nodes if step.plan is not None else []
    return f"in step {step.step} ({', '.join(nodes) or 'no task'})"


@exercise("17.2 · Fix the app")
def check_fixed_app(build: Any) -> str:
    """``build(model)`` returns the lesson's research app as a LangGraph ``StateGraph``
    builder, fixed so that its answer names every source. The check compiles it with
    LangGraph's ``InMemorySaver``, runs it on LangGraph with models of its own and reads
    each thread with ``open_langgraph_thread``."""
    from langgraph.checkpoint.memory import InMemorySaver

    (HumanMessage,) = _messages("HumanMessage")
    if not callable(build):
        raise Wrong(f"build is {build!r}, not a function.", "Pass the function itself.")
    for topics in TOPICS_17_2:
        builder = build(research_model(topics))
        if builder is None:
            raise Wrong(
                "build(model) returned None: it has no return, or one that returns nothing.",
                "End build with return builder: the StateGraph with its nodes and edges, "
                "not compiled (the check compiles it).",
            )
        if not hasattr(builder, "compile") and hasattr(builder, "invoke"):
            raise Wrong(
                f"build(model) returned {type(builder).__name__}, an app already compiled.",
                "Return the builder, StateGraph(...) with its nodes and edges, without "
                ".compile(): the check compiles it with a checkpointer of its own.",
            )
        if not type(builder).__module__.startswith("langgraph"):
            raise Wrong(
                f"build(model) returned {type(builder).__name__} from "
                f"{type(builder).__module__}, not LangGraph's StateGraph.",
                "The app is a LangGraph app: build it with langgraph.graph's StateGraph and "
                "return the builder, not compiled (the check compiles it).",
            )
        try:
            app = builder.compile(checkpointer=InMemorySaver())
        except Exception as error:  # (LangGraph's, on the learner's wiring)
            raise Wrong(
                f"LangGraph could not compile the builder build(model) returned: "
                f"{type(error).__name__}: {error}",
                "Keep the nodes and edges of section 1's build: add_edge(START, 'agent'), "
                "agent's conditional edge, tools → agent and write_answer → END.",
            ) from None
        # (LangGraph's own limit, 10,000 steps, would let a looping app outlast the check)
        config = {"configurable": {"thread_id": "fixed"}, "recursion_limit": STEP_LIMIT}
        try:
            result = app.invoke({"messages": [HumanMessage(f"About {topics[0]}?")]}, config)
        except Exception as error:
            hint = (
                "Run your app in the cell above the check, and read its thread with "
                "open_langgraph_thread: print(run) shows what each step held."
            )
            try:  # (reading the state applies the failed step's writes: it may raise too)
                held = app.get_state(config).values.get("sources")
            except Exception:
                held = None
            if "can only concatenate list" in str(error):  # (operator.add given one item)
                hint = (
                    "operator.add joins two lists: a node writes a list to that key, even "
                    "of one item, [found], not the item alone."
                )
            if type(app.channels.get("messages")).__name__ == "LastValue":
                hint = (
                    "messages has no reducer: each node's write replaces the history, so "
                    "the model never reads its search's result and searches again. Keep "
                    "add_messages on messages, as in section 1's State."
                )
            if isinstance(held, list) and any(hasattr(item, "content") for item in held):
                hint = (
                    "add_messages made each source a message (a HumanMessage), which "
                    "write_answer cannot join: it is the reducer of a list of messages. A "
                    "list of strings keeps every write with operator.add (lesson 03)."
                )
            try:
                where = f" {_where(_open(app, config))}"
            except Exception:  # (the thread's state cannot be read back: its writes raise)
                where = ""
            raise Wrong(
                f"Searching {', '.join(topics)}: your app raised {type(error).__name__} on "
                f"LangGraph{where}: {error}",
                hint,
            ) from None
        if not isinstance(result, dict) or not result.get("messages"):
            raise Wrong(
                f"Searching {', '.join(topics)}: your app ended with no messages in its "
                f"state (invoke returned {_said(result)[:80]}).",
                "Keep the state of section 1, messages and sources, and its nodes: the "
                "fix changes how one key keeps its writes, nothing else.",
            )
        run = _open(app, config)
        found = [m.content for m in result["messages"] if m.type == "tool"]
        for superstep in run.steps:
            change = superstep.update.change("sources") if superstep.update else None
            before = change.before if change is not None else None
            if isinstance(before, list) and any(item not in change.after for item in before):
                hint = (
                    "Each search writes one source, and the Update of a key without a "
                    "reducer keeps only the last write. Make the key keep them all."
                )
                if type(app.channels.get("sources")).__name__ != "LastValue":
                    hint = (
                        "Your reducer got the list so far and the step's write, and "
                        "returned a list without some of them. Return both, old items "
                        "first: operator.add does (lesson 03)."
                    )
                raise Wrong(
                    f"Searching {', '.join(topics)}: in step {superstep.step}, "
                    f"{', '.join(change.writers)} wrote sources and its Update turned "
                    f"{before} into {change.after}.",
                    hint,
                )
        sources = run.values.get("sources")
        if sources != found:
            hint = (
                "sources must hold each search's result, once, in the order of the "
                "searches: read run.to_frame('changes') for the key to see what each "
                "step did to it."
            )
            reduced = type(app.channels.get("sources")).__name__ != "LastValue"
            if reduced and isinstance(sources, list) and len(sources) > len(found):
                hint = (
                    "With a reducer, a node writes only what is new: the reducer adds it "
                    "to what the key holds, and a write of the list so far adds it again."
                )
            raise Wrong(
                f"Searching {', '.join(topics)}: the tools found {found}, and the thread "
                f"ended with sources = {sources!r}.",
                hint,
            )
        answer = result["messages"][-1].content
        if not all(source in answer for source in found):
            raise Wrong(
                f"Searching {', '.join(topics)}: the final answer, {answer!r}, does not "
                f"name every source of {found}.",
                "write_answer reads the sources from the state: keep it as it was.",
            )
    return (
        "On LangGraph, each search added its source, no Update took one out, and the "
        "answer names them all (read back from the threads with open_langgraph_thread)."
    )


# -- 17.3 · who wrote the value the user saw? --------------------------------------------


def _threads_17_3() -> list[tuple[str, Any, str, Any]]:
    lost = research_thread(("owls", "bats", "moths"))
    edited = research_thread(("owls",), key="notes", edit={"notes": ["wiki/cats"]})
    none = research_thread((), key="notes")
    return [
        ("a thread that searched owls, bats and moths", lost, "sources", (6, "tools")),
        ("the same thread", lost, "messages", (8, "write_answer")),
        ("a thread whose notes were edited with update_state", edited, "notes", (4, "__update__")),
        ("a thread that searched nothing", none, "notes", None),
    ]


@exercise("17.3 · Who wrote the value the user saw?")
def check_last_writer(last_writer: Any) -> str:
    """``last_writer(run, key)`` is ``(step, node)`` for the last Update that changed
    ``key`` in ``run`` and the node that wrote it, or None if nothing ever wrote it.
    Tried on LangGraph threads of the check's own."""
    if not callable(last_writer):
        raise Wrong(
            f"last_writer is {last_writer!r}, not a function.",
            "Pass the function you wrote, last_writer, without calling it.",
        )
    for what, run, key, expected in _threads_17_3():
        got = last_writer(run, key)
        if isinstance(got, list):
            got = tuple(got)
        if got != expected:
            said = f"On {what}, last_writer(run, {key!r}) returned {_said(got)}"
            if shape := _shape(got):
                raise Wrong(f"{said}. {shape.message}", shape.hint)
            why, hint = _last_why(run, key, got, expected)
            raise Wrong(f"{said}, but {why}.", hint)
    return (
        "On every thread, last_writer named the step and the writer (a node, or "
        "update_state's __update__) of the value the thread ended with."
    )


_LAST_HINT = (
    "The last step of a run need not be the last to write the key: look at what each "
    "step's Update did to the key and keep the latest change, with who wrote it. A key "
    "nothing wrote has no change at all."
)


def _last_why(run: Any, key: str, got: Any, expected: Any) -> tuple[str, str]:
    """What is wrong with ``got``, said without the expected answer, and the hint."""
    if expected is None:
        empty = got is not None and not got  # ((), [] or 0 for nothing)
        return f"no step changed {key}", "Then return None itself." if empty else _LAST_HINT
    if got is None:
        return f"a step changed {key}", _LAST_HINT
    if not (isinstance(got, tuple) and len(got) == 2):
        return "the answer is a pair: a step's number and a node's name", (
            "Return a pair, (step, node), or None when nothing wrote the key."
        )
    step, node = got
    writer = _writer_at(run, step, key) if isinstance(step, int) else None
    if writer is None:
        hint = _BY_PLACE if _by_place(run, got, expected) else _LAST_HINT
        return f"step {step}'s Update did not change {key}", hint
    if step != expected[0]:
        return f"a later step changed {key} again", _LAST_HINT
    return f"in step {step}, {key} was written by {writer}, not {node!r}", _LAST_HINT
