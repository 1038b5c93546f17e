"""Lesson 25's checks on their solutions, on typical wrong answers and on the notebook's
stubs; and the lesson's claims on LangGraph: every drawing of the lesson (nodes, and each
edge's source, target, data and conditional) is compared with LangGraph 1.2's
``get_graph()`` of the same graph, and every run's supersteps with LangGraph's own stream.
They differ only where docs/drawing.md and docs/compatibility.md say graphkit draws
otherwise on purpose: a router with neither a path_map nor an annotation, and a waiting
edge's join point."""

from __future__ import annotations

import json
import operator
import types
from pathlib import Path
from typing import Annotated, Literal, TypedDict

import pytest

from graphkit.course import assert_fails, assert_passes, lesson25
from graphkit.course.solutions import lesson25 as solutions
from graphkit.types import Command
from tests.course.cells import (
    cells_showing_an_id,
    code_cells,
    lines_too_long,
    run_again_in_reverse,
    run_cells,
    stub_names,
)

LESSON = Path(__file__).parents[2] / "notebooks" / "25-what-the-drawing-shows.ipynb"
IMPORT = "from graphkit.course import lesson25"
# (an undeclared Command, or a router whose path_map leaves nodes out: graphkit warns that
# nothing leads to them, as the lesson says; the tests build such graphs)
pytestmark = pytest.mark.filterwarnings("ignore:Node '[a-z]+'. nothing leads to it")
START, END = "__start__", "__end__"


def stub_cells() -> dict:
    return stub_names(LESSON, lesson25, ("def add_router(", "def add_triage(", "def newsroom("))


def test_the_notebooks_stubs_fail_their_checks():
    stubs = stub_cells()
    assert_fails(
        lesson25.check_router(stubs["add_router"]),
        "classify is drawn with one solid edge, to END, and a refund ticket ran classify, "
        "and nothing after it",
        hint="one for each result of route",
    )
    assert_fails(
        lesson25.check_triage(stubs["add_triage"]),
        "yet an order ran triage, then orders",
        hint="tell it, when you add the node",
    )
    assert_fails(
        lesson25.check_newsroom(stubs["newsroom"]),
        "no edge from START yet",
        hint="where does a run begin?",
    )


def test_the_lessons_cells_show_the_same_when_run_again():
    shown = run_again_in_reverse(
        LESSON, IMPORT, lambda source: "steps(" in source and "def steps" not in source
    )
    said = "\n".join(out for out, _ in shown.values())
    assert "step 2: ['publish', 'summarize']\nstep 3: ['publish']" in said


def test_no_cell_shows_an_id():
    assert cells_showing_an_id(LESSON, IMPORT) == {}


def test_every_code_line_fits_the_cell():
    assert lines_too_long(LESSON) == []


# -- the lesson's claims on LangGraph

GRAPHKIT_IMPORT = "from graphkit import END, START, Command, Send, StateGraph, render"

LANGGRAPH_HELPERS = '''
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send


def steps(app, text="A ticket"):
    """LangGraph's supersteps, read from its debug stream, printed as graphkit's are."""
    seen = {}
    for chunk in app.stream({"text": text, "path": []}, stream_mode="debug"):
        if chunk["type"] == "task":
            seen.setdefault(chunk["step"], []).append(chunk["payload"]["name"])
    for step, nodes in sorted(seen.items()):
        print(f"step {step}: {sorted(nodes)}")
    return types.SimpleNamespace(values=app.invoke({"text": text, "path": []}))


def side_by_side(**drawings):
    return sorted(drawings)
'''


def to_langgraph(cell: str, source: str) -> str | None:
    """The cell for LangGraph, or None for one that draws or reads graphkit's records."""
    if "render." in source or "report_run.why" in source:
        return None
    if GRAPHKIT_IMPORT in source:  # the helpers' cell: LangGraph's imports and runs
        source = source.replace(GRAPHKIT_IMPORT, "")
        return source + "\n" + LANGGRAPH_HELPERS
    assert "from graphkit" not in source
    return source


def run_lesson(library: str) -> tuple[dict, dict]:
    names: dict = {"display": print, "types": types}
    source_of = to_langgraph if library == "langgraph" else (lambda cell, source: source)
    return run_cells(LESSON, until=IMPORT, names=names, source_of=source_of), names


def cell_with(text: str) -> str:
    return next(cell for cell, source in code_cells(LESSON) if text in source)


def drawn(app, **options) -> tuple[list, list]:
    """A drawing as LangGraph's get_graph() holds it: node ids; (source, target, data,
    conditional) of each edge; sorted."""
    graph = app.get_graph(**options)
    nodes = graph.nodes if isinstance(graph.nodes, dict) else [node.id for node in graph.nodes]
    return sorted(nodes), sorted(tuple(edge) for edge in graph.edges)


def without_joins(drawing: tuple[list, list]) -> tuple[list, list]:
    """graphkit's drawing with each join point ``join:a+b:c`` as LangGraph draws a waiting
    edge: a solid edge from each of its sources to its target."""
    nodes, edges = drawing
    joins = [node for node in nodes if node.startswith("join:")]
    kept = [edge for edge in edges if edge[0] not in joins and edge[1] not in joins]
    for join in joins:
        target = next(edge[1] for edge in edges if edge[0] == join)
        kept += [(edge[0], target, None, False) for edge in edges if edge[1] == join]
    return [node for node in nodes if node not in joins], sorted(kept)


def lesson_drawings(names: dict) -> dict:
    """Every graph the lesson draws, built from its own cells' functions."""
    desk_with, shop, report = names["desk_with"], names["shop"], names["report"]
    story = names["story"]
    return {
        "desk": names["desk"],
        **{f"report {join}": report(join) for join in ("edges", "waiting", "defer")},
        "annotation": desk_with(names["route_annotated"]),
        "path_map list": desk_with(names["route_to_node"], ["refunds", "answer"]),
        "path_map dict": desk_with(names["route"], {"refund": "refunds", "question": "answer"}),
        "command undeclared": shop(),
        "command destinations": shop(destinations=("refunds", "answer")),
        "command labelled": shop(destinations={"refunds": "refund", "answer": "question"}),
        "command annotation": shop(node=names["triage_annotated"]),
        "cities": names["cities"],
        **{f"story xray={x}": (story, x) for x in (False, 1, True)},
    }


def test_every_drawing_of_the_lesson_is_langgraphs():
    pytest.importorskip("langgraph")
    _, ours = run_lesson("graphkit")
    _, theirs = run_lesson("langgraph")
    for (name, our), their in zip(
        lesson_drawings(ours).items(), lesson_drawings(theirs).values(), strict=True
    ):
        options = {}
        if name.startswith("story"):
            (our, x), (their, _) = our, their
            options = {"xray": x}
        mine = drawn(our, **options)
        if name == "report waiting":  # (graphkit draws the join point: on purpose)
            assert any(node.startswith("join:") for node in mine[0])
            mine = without_joins(mine)
        assert mine == drawn(their, **options), name
    # a router with neither a path_map nor an annotation: drawn otherwise, on purpose
    nodes, edges = drawn(ours["no_map"])
    assert [edge for edge in edges if edge[0] == "classify"] == [
        ("classify", target, None, True)
        for target in (END, "answer", "classify", "refunds", "reply")
    ]
    assert drawn(theirs["no_map"]) == (
        nodes,
        [("__start__", "classify", None, False), ("classify", END, None, False)],
    )
    # the labels: a path_map's keys, and a Command's destinations dict
    assert ("classify", "refunds", "refund", True) in drawn(ours["desk"])[1]
    assert ("triage", "answer", "question", True) in drawn(
        ours["shop"](destinations={"refunds": "refund", "answer": "question"})
    )[1]
    # an undeclared Command: a solid edge to END, its targets alone
    assert drawn(theirs["undeclared"])[1] == [
        ("__start__", "triage", None, False),
        ("triage", END, None, False),
    ]
    # defer is drawn by neither: the same drawing as two plain edges
    for names in (ours, theirs):
        assert drawn(names["report"]("defer")) == drawn(names["report"]())


def test_the_lessons_cells_print_the_same_on_langgraph():
    """What each cell that runs on both prints (the supersteps of each run, the paths, the
    edges), LangGraph's Mermaid text and the router without a path_map aside."""
    pytest.importorskip("langgraph")
    ours, _ = run_lesson("graphkit")
    theirs, _ = run_lesson("langgraph")
    no_map, mermaid = cell_with("edges(no_map)"), cell_with("draw_mermaid(")
    assert len(theirs) >= 20
    for cell, (said, _) in theirs.items():
        mine = ours[cell][0]
        if cell == no_map:
            continue
        if cell == mermaid:  # (the Mermaid text is graphkit's own; the edges are the same)
            said, mine = said.split("\n\n")[0], mine.split("\n\n")[0]
        assert sorted(said.splitlines()) == sorted(mine.splitlines()), cell
    said = theirs[no_map][0]
    assert "classify → __end__            solid" in said
    assert "refunds" not in said  # (LangGraph leaves out the edges only that router reaches)


def test_the_lessons_cells_print_what_the_lesson_says():
    shown, _ = run_lesson("graphkit")
    said = "\n".join(out for out, _ in shown.values())
    assert "classify → refunds            dashed  'refund'" in said
    assert 'classify -.->|"refund"| refunds' in said
    assert "path: ['news', 'weather', 'publish', 'summarize', 'publish']" in said
    assert (
        "waiting:\nstep 1: ['news', 'weather']\nstep 2: ['summarize']\nstep 3: ['publish']" in said
    )
    assert "defer:\nstep 1: ['news', 'weather']\nstep 2: ['summarize']\nstep 3: ['publish']" in said
    assert "classify → classify           dashed" in said
    assert "step 1: ['triage']\nstep 2: ['refunds']" in said
    assert "step 2: ['write', 'write', 'write']\nstep 3: ['publish']" in said
    assert "step 3: publish woken by ('branch:to:publish',)" in said
    assert "publish ran at step 3 because summarize wrote branch:to:publish" in said


def _router_desk(library: str, path_map=None, router=None):
    graph = pytest.importorskip(f"{library}.graph")
    builder = lesson25.desk(graph.StateGraph(lesson25.Ticket))
    builder.add_conditional_edges("classify", router or lesson25.route, path_map)
    return builder


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_what_the_lesson_says_a_declaration_holds_the_run_to(library):
    """A path_map (or a Literal read as one) fails the run that leaves it, and a Literal
    naming no node fails compile(); destinations= holds goto to nothing; a label that only
    repeats its target's name is not drawn."""
    graph = pytest.importorskip(f"{library}.graph")
    command = pytest.importorskip(f"{library}.types").Command
    ticket = {"text": lesson25.TICKETS["refund"], "path": []}
    app = _router_desk(library, ["answer", "escalate"], lambda state: "refunds").compile()
    with pytest.raises(Exception, match="refunds"):
        app.invoke(ticket)

    def annotated(state) -> Literal["answer", "escalate"]:
        return "refunds"

    with pytest.raises(Exception, match="refunds"):
        _router_desk(library, router=annotated).compile().invoke(ticket)

    def no_node(state) -> Literal["answer", "nowhere"]:
        return "answer"

    with pytest.raises(ValueError, match="nowhere"):
        _router_desk(library, router=no_node).compile()
    builder = lesson25.shop(graph.StateGraph(lesson25.Ticket))
    builder.add_node("triage", lesson25._triage(command), destinations=("orders",))
    ran = builder.compile().invoke({"text": lesson25.ORDERS["returns"], "path": []})["path"]
    assert ran == ["triage", "returns", "refund"]
    same = {"refunds": "refunds", "q": "answer"}
    labels = {edge[1]: edge[2] for edge in _router_desk(library, same).compile().get_graph().edges}
    assert (labels["refunds"], labels["answer"]) == (None, "q")


# -- the checks


def test_router_passes_on_the_solution():
    assert_passes(lesson25.check_router(solutions.add_router))


E = END  # (so that a path_map fits a line)


def _map(mapping):
    return lambda builder: builder.add_conditional_edges("classify", lesson25.route, mapping)


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (
            lambda builder: builder.add_conditional_edges("classify", lesson25.route),
            "a dashed edge to every node, itself included, and to END, none labelled",
            "which node each result of route leads to",
        ),
        (
            _map(["refunds", "answer", "escalate", END]),
            "which are not node names",
            "the results become the labels",
        ),
        (
            _map({"refund": "refunds", "question": "answer", "complaint": "escalate"}),
            "lacks classify → END (dashed, 'spam')",
            "spam ends the run",
        ),
        (
            _map({"refund": "refunds", "question": "escalate", "complaint": "answer", "spam": END}),
            "lacks classify → answer (dashed, 'question')",
            "to the node that handles it",
        ),
        (
            _map({"refunds": "refunds", "question": "answer", "complaint": "escalate", "spam": E}),
            "lacks classify → refunds (dashed, 'refund')",
            "labelled with the result",
        ),
        (
            lambda builder: (
                builder.add_conditional_edges("classify", lesson25.route, dict(lesson25.ROUTES)),
                builder.add_edge("classify", END),
            ),
            "classify's drawing shows classify → END (solid), which it should not",
            "One dashed edge per result of route",
        ),
    ],
    ids=["no path_map", "a list", "no spam", "swapped", "one key a node", "and an edge"],
)
def test_router_wrong_answers(answer, said, hint):
    verdict = assert_fails(lesson25.check_router(answer), said, hint=hint)
    assert "lacks none" not in verdict.message
    if "one key" in said:  # (three of its four edges are labelled)
        assert "without labels" not in verdict.message


def test_router_two_results_on_one_edge_are_told_which_result_goes_astray():
    """A path_map that sends spam to answer draws one edge labelled 'question, spam': the
    verdict names the result that goes astray, not an edge 'question' the drawing has."""
    answer = _map({**lesson25.ROUTES, "spam": "answer"})
    verdict = assert_fails(
        lesson25.check_router(answer),
        "Your path_map sends 'spam' to answer, where a spam ticket should end the run",
        hint="spam ends the run",
    )
    assert "classify → answer (dashed, 'question, spam')" in verdict.message
    assert "lacks classify → answer" not in verdict.message


def _to_node(state) -> Literal["refunds", "answer", "escalate", "__end__"]:
    return lesson25.ROUTES[lesson25.route(state)]


def test_router_a_literal_wrapper_runs_right_and_is_told_what_its_drawing_lacks():
    """A router of the learner's own, annotated with the nodes it returns: it runs as the
    desk should, so the verdict must not say the graph cannot find route's nodes."""
    answer = lambda builder: builder.add_conditional_edges("classify", _to_node)  # noqa: E731
    verdict = assert_fails(
        lesson25.check_router(answer), "runs as it should", hint="route itself, with a path_map"
    )
    assert "cannot find" not in verdict.message


def test_triage_passes_on_the_solution_and_on_an_annotation():
    assert_passes(lesson25.check_triage(solutions.add_triage))

    def annotated(state) -> Command[Literal["orders", "returns", "__end__"]]:
        return lesson25.triage(state)

    assert_passes(lesson25.check_triage(lambda builder: builder.add_node("triage", annotated)))
    labelled = {"orders": "order", "returns": "return", END: "spam"}
    assert_passes(
        lesson25.check_triage(
            lambda builder: builder.add_node("triage", lesson25.triage, destinations=labelled)
        )
    )


@pytest.mark.parametrize(
    ("destinations", "said", "hint"),
    [
        (("orders", "returns", "refund", END), "shows triage → refund", "and only those"),
        (("orders", "returns"), "lacks triage → END", "Declare each place"),
        # (a tuple of one without its comma: told "declares destination 'o'", no more)
        (("orders"), "destinations=('orders',)", ""),
    ],
    ids=["one too many", "no END", "a string"],
)
def test_triage_wrong_answers(destinations, said, hint):
    def answer(builder):
        builder.add_node("triage", lesson25.triage, destinations=destinations)

    assert_fails(lesson25.check_triage(answer), said, hint=hint)


def test_triage_routed_by_a_router_is_not_its_commands_routes():
    """A router that never routes, added beside the node: its dashed edges go to the
    right places, but they are a router's, not the Command's the exercise asks for."""

    def answer(builder):
        builder.add_node("triage", lesson25.triage)
        builder.add_conditional_edges("triage", lambda state: END, ["orders", "returns", END])

    assert_fails(lesson25.check_triage(answer), "a router's", hint="when you add the node")


def test_triage_without_the_node_or_with_another():
    assert_fails(lesson25.check_triage(lambda builder: None), "unknown node 'triage'")

    def elsewhere(state):
        return Command(goto="orders", update={"path": ["triage"]})

    def answer(builder):
        builder.add_node("triage", elsewhere, destinations=("orders", "returns", END))

    assert_fails(lesson25.check_triage(answer), "a returns ticket", hint="lesson25.triage itself")


def test_newsroom_passes_on_the_solution():
    verdict = assert_passes(lesson25.check_newsroom(solutions.newsroom))
    assert "6 steps" in verdict.message


def _newsroom(join=True, path_map=True, loop="plan"):
    def newsroom(builder):
        builder.add_edge("__start__", "plan")
        builder.add_edge("plan", "research")
        builder.add_edge("plan", "write")
        if join:
            builder.add_edge(["research", "write"], "edit")
        else:
            builder.add_edge("research", "edit")
            builder.add_edge("write", "edit")
        mapping = {"again": loop, "done": END} if path_map else None
        builder.add_conditional_edges("edit", lesson25.review, mapping)

    return newsroom


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (_newsroom(join=False), "two solid edges", "one edge from both sources at once"),
        (_newsroom(path_map=False), "lacks edit → END (dashed, 'done')", "edge by edge"),
        (_newsroom(loop="write"), "has edit → write (dashed, 'again')", "solid, dashed and labels"),
    ],
    ids=["two edges", "no path_map", "loops to write"],
)
def test_newsroom_wrong_answers(answer, said, hint):
    assert_fails(lesson25.check_newsroom(answer), said, hint=hint)


def _newsroom_edges(join, router):
    def newsroom(builder):
        builder.add_edge(START, "plan")
        builder.add_edge("plan", "research")
        builder.add_edge("plan", "write")
        builder.add_edge(join, "edit")
        builder.add_conditional_edges("edit", router, {"again": "plan", "done": END})

    return newsroom


def test_newsroom_passes_with_the_join_written_the_other_way_round():
    assert_passes(lesson25.check_newsroom(_newsroom_edges(["write", "research"], lesson25.review)))


def test_newsroom_that_never_ends_is_told_so_without_running_10007_steps():
    def again(state):
        return "again"

    verdict = assert_fails(
        lesson25.check_newsroom(_newsroom_edges(["research", "write"], again)),
        "never reached END",
        hint="lesson25.review",
    )
    assert "10007" not in verdict.message


def test_the_exercises_graphs_are_drawn_and_run_as_on_langgraph(monkeypatch):
    """Each solution on a LangGraph builder: the same drawing as graphkit's (the join
    point aside) and the same supersteps, ticket by ticket."""
    pytest.importorskip("langgraph")
    from langgraph.graph import StateGraph
    from langgraph.types import Command

    from graphkit import StateGraph as OurStateGraph

    def supersteps(app, text):
        seen: dict = {}
        for chunk in app.stream({"text": text, "path": []}, stream_mode="debug"):
            if chunk["type"] == "task":
                seen.setdefault(chunk["step"], []).append(chunk["payload"]["name"])
        return [sorted(nodes) for _, nodes in sorted(seen.items())]

    cases = [
        (lesson25.desk, solutions.add_router, lesson25.TICKETS),
        (lesson25.shop, solutions.add_triage, lesson25.ORDERS),
        (lesson25.newsroom_nodes, solutions.newsroom, {"story": "A story"}),
    ]
    for base, solution, tickets in cases:
        ours = base(OurStateGraph(lesson25.Ticket))
        solution(ours)
        ours = ours.compile()
        with monkeypatch.context() as patch:
            patch.setattr(solutions, "triage", lesson25._triage(Command))
            theirs = base(StateGraph(lesson25.Ticket))
            solution(theirs)
            theirs = theirs.compile()
        assert without_joins(drawn(ours)) == drawn(theirs), base.__name__
        for text in tickets.values():
            run = ours.trace({"text": text, "path": []})
            assert lesson25._steps(run) == supersteps(theirs, text), text


class Visited(TypedDict, total=False):
    path: Annotated[list, operator.add]


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_a_send_goes_to_a_node_its_routers_path_map_leaves_out(library):
    """The exception to "a router that returns something its path_map leaves out fails the
    run": a router that returns a name outside its path_map fails it, but a `Send` to a
    node outside it runs that node. The same on graphkit and LangGraph."""
    if library == "langgraph":
        pytest.importorskip("langgraph")
        from langgraph.graph import END, START, StateGraph
        from langgraph.types import Send
    else:
        from graphkit import END, START, Send, StateGraph

    def desk(router):
        builder = StateGraph(Visited)
        for name in ("classify", "refunds", "answer", "reply"):
            builder.add_node(name, lambda state, name=name: {"path": [name]})
        builder.add_edge(START, "classify")
        builder.add_conditional_edges("classify", router, ["refunds", "answer"])
        return builder.compile()

    with pytest.raises(KeyError):
        desk(lambda state: "reply").invoke({"path": []})
    with pytest.raises(KeyError):
        desk(lambda state: END).invoke({"path": []})
    sent = desk(lambda state: [Send("reply", {"path": []})]).invoke({"path": []})
    assert sent["path"] == ["classify", "reply"]


def test_the_text_names_send_where_a_path_map_is_a_promise():
    """Section 3 said a router that returns something its path_map leaves out fails the
    run: a `Send` to a node it leaves out runs (the test above). The text says so now."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    text = [" ".join("".join(cell["source"]).split()) for cell in cells]
    said = next(cell for cell in text if "a promise the runtime holds you to" in cell)
    assert "`Send`" in said.split("a promise the runtime holds you to")[1][:200], said
