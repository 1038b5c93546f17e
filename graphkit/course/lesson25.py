"""Checks for lesson 25 · What the drawing shows: reading ``get_graph()``, and what only a
run can tell.

Each check builds the learner's graph on a builder of its own, compares its drawing
(``get_graph()``: nodes, edges, solid or dashed, labels) with the graph the exercise asks
for, and runs it on tickets of its own, comparing the nodes of every superstep with the
intended graph's. A drawing that is right on a graph that runs wrong fails, and so does
the reverse.

- ``check_router(add_router)``: the router of a support desk, drawn with its real choices
  and labelled with the results that take them.
- ``check_triage(add_triage)``: a node that routes with ``Command(goto=...)``, drawn with
  the routes it can take.
- ``check_newsroom(newsroom)``: the graph that ``newsroom_drawing()`` shows.

>>> from graphkit.course.solutions import lesson25 as solutions
>>> bool(check_router(solutions.add_router)), bool(check_triage(solutions.add_triage))
(True, True)
>>> bool(check_newsroom(solutions.newsroom))
True
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from graphkit.constants import END, START
from graphkit.course.checking import Wrong, exercise, trace

__all__ = [
    "Ticket",
    "check_newsroom",
    "check_router",
    "check_triage",
    "desk",
    "drawn_edges",
    "newsroom_drawing",
    "newsroom_nodes",
    "review",
    "route",
    "shop",
    "triage",
]


class Ticket(TypedDict, total=False):
    """The state of the lesson's graphs: a ticket's text, and the nodes it went through."""

    text: str
    path: Annotated[list[str], operator.add]


def _visit(name: str) -> Callable[[Ticket], dict]:
    def visit(state: Ticket) -> dict:
        return {"path": [name]}

    visit.__name__ = name
    return visit


def drawn_edges(app: Any, **options: Any) -> list[tuple[str, str, str, str | None]]:
    """The edges of ``app``'s drawing as ``(source, target, kind, label)``, sorted:
    ``kind`` is ``"solid"``, ``"dashed"`` (a router's or a Command's possible route) or
    ``"join"`` (into or out of a waiting edge's join point)."""
    kinds = {"edge": "solid", "conditional": "dashed", "command": "dashed", "waiting": "join"}
    return sorted(
        (edge.source, edge.target, kinds[edge.kind], edge.data)
        for edge in app.get_graph(**options).edges
    )


def _said(edges: Any) -> str:
    """Edges in words: ``classify → refunds (dashed, 'refund')``."""
    words = []
    for source, target, kind, label in sorted(edges):
        source, target = (_name(name) for name in (source, target))
        words.append(f"{source} → {target} ({kind}{f', {label!r}' if label else ''})")
    return "; ".join(words) or "none"


def _name(node: str) -> str:
    return {END: "END", START: "START"}.get(node, node.replace("join:", "join "))


def _ran(steps: list[list[str]]) -> str:
    """What ran, step by step: ``classify, then refunds`` (``a and b`` in one step)."""
    said = ", then ".join(" and ".join(step) for step in steps)
    return said + (", and nothing after it" if len(steps) == 1 else "")


def _steps(run: Any) -> list[list[str]]:
    """The nodes of each superstep that ran a node (from step 1 on), a node once per task."""
    return [sorted(step.plan.nodes) for step in run.steps if step.step > 0 and step.plan.nodes]


def _compile(builder: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a node the drawing cannot reach: the verdict says so)
        return builder.compile()


def _built(answer: Callable[[Any], Any], builder: Any) -> Any:
    """``builder`` after ``answer(builder)``, compiled; the learner's function returns None."""
    answer(builder)
    try:
        return _compile(builder)
    except ValueError as error:
        if "entrypoint" not in str(error):
            raise
        raise Wrong(
            "Your graph has no edge from START yet: nothing would run.",
            "Read the drawing from the top: where does a run begin?",
        ) from None


def _from(edges: list, source: str) -> set:
    return {edge for edge in edges if edge[0] == source}


def _differs(drawing: str, missing: set, extra: set, has: str, unwanted: str) -> str:
    """``drawing lacks ..., and <has> ...``: what is missing and what is extra, in words
    (either may be empty); ``unwanted`` closes an answer that only adds edges."""
    if not missing:
        return f"{drawing} {has} {_said(extra)}, {unwanted}"
    return f"{drawing} lacks {_said(missing)}" + (f", and {has} {_said(extra)}" if extra else "")


def _any_order(edges: set) -> set:
    """``edges`` with each join point named by its sources in sorted order: a waiting edge
    from ``["write", "research"]`` is the one from ``["research", "write"]``."""

    def named(node: str) -> str:
        if not node.startswith("join:"):
            return node
        sources, _, target = node.removeprefix("join:").rpartition(":")
        return f"join:{'+'.join(sorted(sources.split('+')))}:{target}"

    return {(named(source), named(target), *rest) for source, target, *rest in edges}


# -- 25.1 · an honest router -----------------------------------------------------------------------

TICKETS = {
    "refund": "I want a refund for my broken kettle",
    "question": "What are your opening hours?",
    "complaint": "This is the third time I write: nobody answers!",
    "spam": "WIN A FREE CRUISE, click here",
}
"""A ticket of each kind ``route`` tells apart."""


def route(state: Ticket) -> str:
    """The desk's router: ``"refund"``, ``"question"``, ``"complaint"`` or ``"spam"``."""
    text = state["text"].lower()
    if "free" in text or "click" in text:
        return "spam"
    if "refund" in text or "money back" in text:
        return "refund"
    if "nobody" in text or "third time" in text or "!" in text:
        return "complaint"
    return "question"


ROUTES = {"refund": "refunds", "question": "answer", "complaint": "escalate", "spam": END}
"""Where each result of ``route`` must take a ticket."""


def desk(builder: Any) -> Any:
    """The support desk on ``builder`` (a ``StateGraph(Ticket)`` of graphkit or of
    LangGraph), without its router: START → ``classify``; ``refunds``, ``answer`` and
    ``escalate`` each → END."""
    for name in ("classify", "refunds", "answer", "escalate"):
        builder.add_node(name, _visit(name))
    builder.add_edge(START, "classify")
    for name in ("refunds", "answer", "escalate"):
        builder.add_edge(name, END)
    return builder


def _desk_intended() -> Any:
    from graphkit import StateGraph

    builder = desk(StateGraph(Ticket))
    builder.add_conditional_edges("classify", route, dict(ROUTES))
    return builder.compile()


STEPS = 50
"""The steps a check lets a run of the learner's graph take (the intended ones take at
most 7): a graph that loops for ever is told so at once, not after 10,007 steps."""


def _check_runs(app: Any, intended: Any, tickets: dict[str, str], what: str) -> None:
    """Each ticket's run of ``app`` goes through the same steps as ``intended``'s."""
    from graphkit.errors import GraphRecursionError

    for kind, text in tickets.items():
        expected = _steps(intended.trace({"text": text, "path": []}))
        try:
            run = trace(app, {"text": text, "path": []}, {"recursion_limit": STEPS})
        except Wrong as wrong:
            if not isinstance(wrong.__cause__, GraphRecursionError):
                raise
            raise Wrong(
                f"The drawing is right, but a {kind} ticket ({text!r}) never reached END: "
                f"its run still went on after {STEPS} steps, where the intended graph's "
                f"ends after {len(expected)}.",
                f"Run it yourself; {what}",
            ) from None
        if _steps(run) != expected:
            raise Wrong(
                f"The drawing is right, but a {kind} ticket ({text!r}) ran "
                f"{_ran(_steps(run))}, not {_ran(expected)}.",
                f"Run it yourself; {what}",
            )


def _runs_like(app: Any, intended: Any, tickets: dict[str, str]) -> bool:
    """Whether every ticket's run of ``app`` goes through ``intended``'s steps."""
    try:
        _check_runs(app, intended, tickets, "")
    except Wrong:
        return False
    return True


@exercise("25.1 · An honest router")
def check_router(add_router: Callable[[Any], Any]) -> str:
    """``add_router(builder)``: adds to ``desk(builder)`` the router ``route`` from
    ``classify``, drawn with its four routes, each labelled with the result that takes it."""
    from graphkit import StateGraph

    app = _built(add_router, desk(StateGraph(Ticket)))
    intended = _desk_intended()
    want, got = _from(drawn_edges(intended), "classify"), _from(drawn_edges(app), "classify")
    if got == {("classify", END, "solid", None)}:
        run = trace(app, {"text": TICKETS["refund"], "path": []})
        raise Wrong(
            "classify is drawn with one solid edge, to END, and a refund ticket ran "
            f"{_ran(_steps(run))}: nothing routes a ticket yet.",
            "Give classify its router, route, so that its edges are dashed, one for "
            "each result of route, labelled with it (section 3).",
        )
    if got == want:
        _check_runs(app, intended, TICKETS, "each result of route must lead to its node.")
        return (
            "classify is drawn with four dashed edges, labelled 'refund', 'question', "
            "'complaint' and 'spam', and each ticket went where its label says."
        )
    targets = {edge[1] for edge in got}
    if targets >= {"classify", "refunds", "answer", "escalate", END} and not any(
        edge[3] for edge in got
    ):
        raise Wrong(
            "classify is drawn with a dashed edge to every node, itself included, and to "
            "END, none labelled: the graph does not know where route can go, so the "
            "drawing says it can go anywhere. (LangGraph draws one solid edge to END.) "
            "And route returns 'refund', which is no node's name.",
            "Tell the graph which node each result of route leads to (section 3).",
        )
    dashed = [edge for edge in got if edge[2] == "dashed"]
    unlabelled = dashed and not any(edge[3] for edge in dashed)
    if unlabelled and targets <= {"refunds", "answer", "escalate", END}:
        if _runs_like(app, intended, TICKETS):
            raise Wrong(
                "Your graph runs as it should: each ticket went to its node. But classify's "
                f"edges are drawn without labels ({_said(got)}): the drawing does not say "
                "which result of route takes which edge.",
                "Give classify route itself, with a path_map from each of its results to "
                "its node: its keys become the labels.",
            )
        raise Wrong(
            f"classify's edges are drawn without labels ({_said(got)}), and route returns "
            "'refund', 'question', 'complaint' or 'spam', which are not node names: the "
            "graph cannot find the node route means.",
            "Map each result of route to its node; the results become the labels.",
        )
    shared = {edge for edge in got if edge[3] and ", " in edge[3]}  # one edge, several keys
    astray = {
        result: edge[1]
        for edge in shared
        for result in edge[3].split(", ")
        if ROUTES.get(result, edge[1]) != edge[1]
    }
    if astray:
        raise Wrong(
            f"classify's drawing shows {_said(shared)}: one edge for several results of "
            "route. Your path_map sends "
            + "; ".join(
                f"{result!r} to {_name(target)}, where a {result} ticket "
                + ("should end the run" if ROUTES[result] == END else f"goes to {ROUTES[result]}")
                for result, target in sorted(astray.items())
            )
            + ".",
            "One dashed edge per result of route, to the node that handles it (spam ends the "
            "run), labelled with the result.",
        )
    raise Wrong(
        _differs("classify's drawing", want - got, got - want, "shows", "which it should not")
        + ". Read route: "
        + ", ".join(f"{kind!r} for {text!r}" for kind, text in TICKETS.items())
        + ".",
        "One dashed edge per result of route, to the node that handles it (spam ends the "
        "run), labelled with the result.",
    )


# -- 25.2 · a Command's routes --------------------------------------------------------------------

ORDERS = {
    "orders": "Where is my order 1432?",
    "returns": "How do I return a book?",
    "__end__": "Buy cheap watches",
}
"""A message of the bookshop for each place ``triage`` sends one (``__end__``: none)."""


def _triage(command: Any) -> Callable[[Ticket], Any]:
    def triage(state: Ticket) -> Any:
        """The bookshop's first node: it notes itself on the path, then goes to
        ``orders`` for an order, ``returns`` for a return, and ends the run for spam."""
        text = state["text"].lower()
        goto = "orders" if "order" in text else "returns" if "return" in text else END
        return command(goto=goto, update={"path": ["triage"]})

    return triage


def triage(state: Ticket) -> Any:
    """The bookshop's first node: it notes itself on the path, then returns a Command that
    goes to ``orders`` for an order, ``returns`` for a return, and ends the run for spam."""
    from graphkit.types import Command

    return _triage(Command)(state)


def shop(builder: Any) -> Any:
    """The bookshop on ``builder`` without its ``triage`` node: START → ``triage``;
    ``orders`` → END; ``returns`` → ``refund`` → END."""
    for name in ("orders", "returns", "refund"):
        builder.add_node(name, _visit(name))
    builder.add_edge(START, "triage")
    builder.add_edge("orders", END)
    builder.add_edge("returns", "refund")
    builder.add_edge("refund", END)
    return builder


def _shop_intended() -> Any:
    from graphkit import StateGraph

    builder = shop(StateGraph(Ticket))
    builder.add_node("triage", triage, destinations=("orders", "returns", END))
    return builder.compile()


@exercise("25.2 · Where a Command goes")
def check_triage(add_triage: Callable[[Any], Any]) -> str:
    """``add_triage(builder)``: adds the node ``triage`` (this module's) to ``shop(builder)``,
    drawn with a dashed edge to each place its Command can go, and none elsewhere."""
    from graphkit import StateGraph

    app = _built(add_triage, shop(StateGraph(Ticket)))
    intended = _shop_intended()
    got = {edge[:3] for edge in _from(drawn_edges(app), "triage")}
    want = {edge[:3] for edge in _from(drawn_edges(intended), "triage")}
    if got == {("triage", END, "solid")}:
        run = trace(app, {"text": ORDERS["orders"], "path": []})
        raise Wrong(
            "triage is drawn with one solid edge, to END, and orders and returns with no "
            f"edge in, as if no message ever reached them; yet an order ran {_ran(_steps(run))}.",
            "The graph cannot read where triage's Command goes: tell it, when you add "
            "the node (section 4).",
        )
    edges = app.get_graph().edges
    routed = {(e.source, e.target, "dashed", None) for e in edges if e.kind == "conditional"}
    if _from(routed, "triage"):
        raise Wrong(
            f"triage's dashed edges ({_said(_from(routed, 'triage'))}) are a router's, "
            "added with add_conditional_edges: they say where that router can send a "
            "message, not where triage's Command goes.",
            "Leave the router out, and declare where the Command can go when you add the "
            "node (section 4).",
        )
    if got != want:
        missing, extra = want - got, got - want
        wrong = []
        if missing:
            wrong.append("lacks " + _said({(*edge, None) for edge in missing}))
        if extra:
            wrong.append("shows " + _said({(*edge, None) for edge in extra}))
        raise Wrong(
            f"triage's drawing {' and '.join(wrong)}. Read triage: it goes to orders for "
            "an order, to returns for a return, and ends the run for spam; refund is "
            "reached from returns, never from triage.",
            "Declare each place triage's Command can go, and only those (section 4).",
        )
    _check_runs(app, intended, ORDERS, "add lesson25.triage itself as the node.")
    return (
        "triage is drawn with dashed edges to orders, returns and END, the three places "
        "its Command can go, and each message went to the one its text asks for."
    )


# -- 25.3 · the graph a drawing shows -------------------------------------------------------------


def review(state: Ticket) -> str:
    """The newsroom's router: ``"again"`` after the first edit, ``"done"`` after the second."""
    return "again" if state["path"].count("edit") < 2 else "done"


def newsroom_nodes(builder: Any) -> Any:
    """``builder`` with the newsroom's nodes and no edge: ``plan``, ``research``,
    ``write`` and ``edit``."""
    for name in ("plan", "research", "write", "edit"):
        builder.add_node(name, _visit(name))
    return builder


def _newsroom_intended(builder: Any) -> Any:
    newsroom_nodes(builder)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "research")
    builder.add_edge("plan", "write")
    builder.add_edge(["research", "write"], "edit")
    builder.add_conditional_edges("edit", review, {"again": "plan", "done": END})
    return builder


def newsroom_drawing() -> Any:
    """The drawing of the graph 25.3 asks for (displays itself in a notebook)."""
    from graphkit import StateGraph

    return _newsroom_intended(StateGraph(Ticket)).compile().get_graph()


@exercise("25.3 · Build the graph a drawing shows")
def check_newsroom(newsroom: Callable[[Any], Any]) -> str:
    """``newsroom(builder)``: adds to ``newsroom_nodes(builder)`` the edges that
    ``newsroom_drawing()`` shows (``review`` is the router)."""
    from graphkit import StateGraph

    app = _built(newsroom, newsroom_nodes(StateGraph(Ticket)))
    intended = _newsroom_intended(StateGraph(Ticket)).compile()
    want, got = _any_order(set(drawn_edges(intended))), _any_order(set(drawn_edges(app)))
    if got != want:
        plain = {("research", "edit", "solid", None), ("write", "edit", "solid", None)}
        if plain <= got:
            raise Wrong(
                "Your drawing has research → edit and write → edit, two solid edges: "
                "edit runs in the step after each of them. The drawing shows them meeting "
                "at a join bar first.",
                "A join bar is one edge from both sources at once (section 2).",
            )
        raise Wrong(
            _differs("Your drawing", want - got, got - want, "has", "which the newsroom's has not")
            + ".",
            "Compare app.get_graph() with lesson25.newsroom_drawing() edge by edge: "
            "solid, dashed and labels (sections 1 to 3).",
        )
    _check_runs(app, intended, {"story": "A story"}, "use lesson25.review as the router.")
    steps = _steps(trace(app, {"text": "A story", "path": []}))
    return (
        f"Your graph draws as the drawing does, and ran as it does: {len(steps)} steps, "
        f"{' · '.join(', '.join(step) for step in steps)}."
    )
