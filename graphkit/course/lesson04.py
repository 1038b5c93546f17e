"""Checks for lesson 04, "Routing, fan-out and fan-in" (``notebooks/04-routing-fanout-fanin``).

Each check runs the learner's graph (or compares their prediction with a real run) and
says, in the words of the records, which node ran at which step and why.

>>> run = newsroom().trace(NEWSROOM_INPUT)
>>> [superstep.plan.nodes for superstep in run.steps][2:]
[['plan'], ['outline', 'search'], ['read'], ['publish'], ['audit']]
"""

from __future__ import annotations

import inspect
import operator
from collections.abc import Mapping
from typing import Annotated, Any, TypedDict

from graphkit.constants import END, START
from graphkit.course.answers import whole_number
from graphkit.course.checking import Wrong, compiled, exercise, trace
from graphkit.inspect.values import join_names

__all__ = [
    "NEWSROOM_INPUT",
    "check_fan_in",
    "check_predicted_steps",
    "check_router",
    "newsroom",
]


def _steps_of(run: Any, node: str) -> list[int]:
    """The steps at which ``node`` ran."""
    return [s.step for s in run.steps if node in s.plan.nodes]


def _user_nodes(app: Any) -> list[str]:
    return sorted(name for name in app.spec.nodes if not name.startswith("__"))


# -- 4.1 · Route with a path map ----------------------------------------------------------

_TICKETS: tuple[tuple[str, str | None], ...] = (
    ("please refund me", "refund"),
    ("i was charged twice, i want a refund", "refund"),
    ("error 500 when i log in", "bug"),
    ("the app shows an error", "bug"),
    ("hello, can someone call me?", "human"),
    ("", None),
)
_HANDLERS = ("refund", "bug", "human")


@exercise("4.1 · Route with a path map")
def check_router(builder: Any) -> str:
    """``triage`` routes each ticket through a path map: a message with "refund" to
    ``refund``, with "error" to ``bug``, an empty one to END, anything else to ``human``;
    the chosen node (and only it) runs at step 2."""
    app = compiled(builder)
    missing = [n for n in ("triage", *_HANDLERS) if n not in app.spec.nodes]
    if missing:
        raise Wrong(
            f"Your graph has no node {', '.join(missing)}; its nodes are {_user_nodes(app)}.",
            "Keep the nodes triage, refund, bug and human.",
        )
    branches = getattr(app.builder, "branches", {}).get("triage", {})
    if not branches:
        raise Wrong(
            "triage has no conditional edge.",
            "add_conditional_edges('triage', route, {...}) makes triage's router choose.",
        )
    if not any(branch.path_map for branch in branches.values()):
        raise Wrong(
            "triage's conditional edge has no path map: the router's return values are used "
            "as node names.",
            "Pass a dict as the third argument: {router's answer: node name}; the router "
            "then returns the keys, e.g. 'money', not node names.",
        )
    for message, expected in _TICKETS:
        _end_unmapped(branches.values(), message)
        run = trace(app, {"message": message})
        _check_ticket(app, run, message, expected)
    return (
        f"All {len(_TICKETS)} tickets went the right way: triage's router decided in step 1's "
        "Execute, step 1's Update wrote branch:to:<node>, and the node ran at step 2."
    )


def _end_unmapped(branches: Any, message: str) -> None:
    """A router that returns END for ``message`` through a path map with no key for it.
    The run fails with a KeyError of '__end__', a name the learner never wrote (LangGraph
    raises the same); any other missing key is said well by the runtime itself."""
    for branch in branches:
        if inspect.iscoroutinefunction(branch.path):  # (the run says it needs an async run)
            continue
        try:
            returned = branch.path({"message": message, "handled_by": ["triage"]})
        except Exception:  # (a router that fails fails in the run too, and is told so)
            continue
        if returned == END and branch.path_map and END not in branch.path_map:
            raise Wrong(
                f"For message {message!r}, your router returned END, which is not a key of "
                f"your path map {sorted(branch.path_map)}: the run stopped with a KeyError "
                "in step 1.",
                "With a path map, the router returns its keys, for END too: add a key "
                "that maps to it, e.g. 'done': END, and return 'done'.",
            )


def _check_ticket(app: Any, run: Any, message: str, expected: str | None) -> None:
    if _steps_of(run, "triage") != [1]:
        raise Wrong(
            f"For message {message!r}, triage ran at steps {_steps_of(run, 'triage')}; "
            "expected it once, at step 1.",
            "Keep the edge START → triage.",
        )
    step_two = run.step(2).plan.nodes if len(run.steps) > 3 else []
    ran = sorted(set(step_two) & set(_HANDLERS))
    wanted = [expected] if expected else []
    if ran == wanted:
        return
    where = "END (no node)" if expected is None else expected
    chose = ", ".join(ran) or "no node (END)"
    detail = ""
    if expected is not None:
        detail = " " + run.why(expected, step=2, graph=app).summary
    raise Wrong(
        f"For message {message!r}, step 2 ran {chose}; expected {where}.{detail}",
        "The router reads state['message'] and returns a key of the path map: check "
        "'refund' first, then 'error', an empty message goes to END, the rest to human.",
    )


# -- 4.2 · Fan in exactly once ------------------------------------------------------------


@exercise("4.2 · Fan in exactly once")
def check_fan_in(builder: Any) -> str:
    """``summarize`` runs once, after both the short branch (``weather``) and the
    long one (``news_1 → news_2``) finished, and both branches wake it."""
    app = compiled(builder)
    missing = [n for n in ("weather", "news_2", "summarize") if n not in app.spec.nodes]
    if missing:
        raise Wrong(
            f"Your graph has no node {', '.join(missing)}; its nodes are {_user_nodes(app)}.",
            "Keep the nodes; change only the edges into summarize (or how it is added).",
        )
    run = trace(app, {"city": "Lyon"})
    ran = _steps_of(run, "summarize")
    if len(ran) > 1:
        _waiting_beside_plain(app, ran)
        _deferred_beside(app, ran)
    if len(ran) != 1:
        times = f"{len(ran)} times (at steps {ran})" if ran else "never"
        why = "".join(
            f"\n- {f'step {a.step}: ' if a.step is not None else ''}{a.reasons[0].text}"
            for a in run.why("summarize", graph=app).answers
            if a.reasons
        )
        raise Wrong(
            f"summarize ran {times}; it should run exactly once.{why}",
            "A plain edge from each branch wakes summarize once per branch. Make it wait "
            "for both: one waiting edge from a list of nodes, or defer=True.",
        )
    last = {node: max(_steps_of(run, node), default=None) for node in ("weather", "news_2")}
    early = [node for node, step in last.items() if step is None or step >= ran[0]]
    if early:
        raise Wrong(
            f"summarize ran at step {ran[0]}, but {' and '.join(early)} had not finished "
            f"before it (weather ran at step {last['weather']}, news_2 at {last['news_2']}).",
            "summarize must wait for the last node of each branch: weather and news_2.",
        )
    triggers = set(app.spec.nodes["summarize"].triggers)
    woke = {
        node: {
            channel
            for superstep in run.steps
            if superstep.execution is not None
            for result in superstep.execution.results
            if result.task.node == node
            for channel, _ in result.writes
            if channel in triggers
        }
        for node in ("weather", "news_2")
    }
    silent = [node for node, channels in woke.items() if not channels]
    if silent:
        names = ", ".join(sorted(triggers))  # (as the tables print a task's triggers)
        which = (
            f"summarize's trigger {names}"
            if len(triggers) == 1
            else f"any of summarize's triggers ({names})"
        )
        if len(silent) == 2:  # (a node of the learner's woke it: no branch is "longer")
            writers = join_names(sorted(_writers(run, triggers)))
            raise Wrong(
                f"summarize ran once, at step {ran[0]}, but neither weather nor news_2 wrote "
                f"{which}: {writers} did.",
                "Keep the nodes as they are, and wire both branches into summarize, making "
                "it wait for both.",
            )
        if app.builder.nodes["summarize"].defer:  # (then branch lengths do not matter)
            raise Wrong(
                f"summarize ran once, at step {ran[0]}, but {silent[0]} never wrote {which}. "
                "It waited for both only because defer=True holds it until nothing else "
                f"is left; {silent[0]}'s result is not wired into it.",
                f"Add the edge {silent[0]} → summarize too: both branches wake it, and "
                "defer=True makes it run once.",
            )
        raise Wrong(
            f"summarize ran once, at step {ran[0]}, but {' and '.join(silent)} never wrote "
            f"{which}. It works only because the other branch happens to be longer.",
            "Wire both branches into summarize, and make it wait for both.",
        )
    shared = sorted(woke["weather"] & woke["news_2"]) or sorted(woke["weather"] | woke["news_2"])
    return (
        f"summarize ran once, at step {ran[0]}, after weather (step {last['weather']}) and "
        f"news_2 (step {last['news_2']}); both wrote its trigger {', '.join(shared)}."
    )


def _writers(run: Any, triggers: set[str]) -> set[str]:
    """The nodes that wrote any of ``triggers`` in ``run``."""
    return {
        result.task.node
        for superstep in run.steps
        if superstep.execution is not None
        for result in superstep.execution.results
        if any(channel in triggers for channel, _ in result.writes)
    }


def _waiting_beside_plain(app: Any, ran: list[int]) -> None:
    """A waiting edge added while the stub's plain edges stay: say that both wake it."""
    builder = app.builder
    plain = sorted(start for start, end in builder.edges if end == "summarize")
    waiting = sorted(starts for starts, end in builder.waiting_edges if end == "summarize")
    if plain and waiting:
        raise Wrong(
            f"summarize ran {len(ran)} times (at steps {ran}). Your waiting edge "
            f"[{', '.join(waiting[0])}] → summarize is there, but so "
            f"{'are the plain edges' if len(plain) > 1 else 'is the plain edge'} "
            f"{' and '.join(f'{start} → summarize' for start in plain)}: a plain edge still "
            "wakes summarize one step after its source, whatever the waiting edge waits for.",
            "A waiting edge is one more way to wake a node; it does not replace the plain "
            "edges. Keep one wiring into summarize.",
        )


def _deferred_beside(app: Any, ran: list[int]) -> None:
    """defer=True written in the stub's loop, so every node waits: say that a deferred
    node waits only for nodes that are not deferred."""
    nodes = app.builder.nodes
    others = [n for n in _user_nodes(app) if n != "summarize" and nodes[n].defer]
    if nodes["summarize"].defer and others:
        raise Wrong(
            f"summarize ran {len(ran)} times (at steps {ran}). It is deferred, but so "
            f"{'is' if len(others) == 1 else 'are'} {join_names(others)}: a deferred node "
            "waits only while some node that is not deferred still has work. With "
            f"{'it' if len(others) == 1 else 'them'} deferred too, nothing holds summarize "
            "back, so each branch's edge woke it in turn, as plain edges do.",
            "Give defer=True to summarize alone (add it apart from the loop), and keep the "
            "other nodes as they were.",
        )


# -- 4.3 · Predict the steps ---------------------------------------------------------------


class Newsroom(TypedDict):
    story: str
    log: Annotated[list, operator.add]


def _logger(name: str) -> Any:
    def node(state: Newsroom) -> dict:
        return {"log": [name]}

    node.__name__ = name
    return node


def _plan_route(state: Newsroom) -> list[str]:
    return ["search", "outline"]


NEWSROOM_INPUT: dict[str, Any] = {"story": "the new bridge", "log": []}
"""The input the newsroom is run with in exercise 4.3."""


def newsroom() -> Any:
    """The graph of exercise 4.3: ``plan`` routes to ``search`` and ``outline``;
    ``search → read``; ``publish`` waits for ``read`` and ``outline``; ``audit`` is
    deferred, woken by ``plan``."""
    from graphkit.graph.state import StateGraph

    builder = StateGraph(Newsroom)
    for name in ("plan", "search", "outline", "read", "publish"):
        builder.add_node(name, _logger(name))
    builder.add_node("audit", _logger("audit"), defer=True)
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", _plan_route, ["search", "outline"])
    builder.add_edge("plan", "audit")
    builder.add_edge("search", "read")
    builder.add_edge(["read", "outline"], "publish")
    builder.add_edge("publish", END)
    builder.add_edge("audit", END)
    return builder.compile()


_ASKED = ("read", "publish", "audit")


@exercise("4.3 · Predict the steps")
def check_predicted_steps(predicted: Mapping[str, Any]) -> str:
    """``predicted`` maps ``read``, ``publish`` and ``audit`` to the step each runs at
    in ``newsroom()`` run on ``NEWSROOM_INPUT``; compared with the real run."""
    if not isinstance(predicted, Mapping):
        raise Wrong(
            f"Expected a dict {{node: step}}, got {type(predicted).__name__}.",
            'Write e.g. {"read": 2, "publish": 3, "audit": 4} with your own numbers.',
        )
    predicted = {node: whole_number(step) for node, step in predicted.items()}  # "3": 3
    missing = [node for node in _ASKED if predicted.get(node) is None]
    if missing:
        raise Wrong(
            f"No step (an int) predicted for {', '.join(missing)}.",
            "Give a step number for each of read, publish and audit.",
        )
    app = newsroom()
    run = app.trace(dict(NEWSROOM_INPUT))
    actual = {node: _steps_of(run, node)[0] for node in _ASKED}
    wrong = [node for node in _ASKED if predicted[node] != actual[node]]
    if wrong:
        lines = [
            f"{node}: you predicted step {predicted[node]}, it ran at step {actual[node]}. "
            + _why_step(run, app, node, actual[node])
            for node in wrong
        ]
        raise Wrong(
            "\n".join(lines),
            "Step 0 runs __start__ and step 1 plan. A node runs one step after what wakes "
            "it; a waiting edge waits for its slowest source; a deferred node waits until "
            "nothing else is left.",
        )
    return (
        f"All three right: read at step {actual['read']}, publish at {actual['publish']} "
        f"(its waiting edge needed read), audit at {actual['audit']} (deferred: it ran once "
        "nothing else was left)."
    )


def _why_step(run: Any, app: Any, node: str, step: int) -> str:
    if app.builder.nodes[node].defer:
        woke = _steps_of(run, "plan")[0]
        return (
            f"plan wrote branch:to:{node} in step {woke}, but {node} is deferred: the write "
            f"was held back until step {step - 1}, the last step with other work."
        )
    return run.why(node, step=step, graph=app).summary
