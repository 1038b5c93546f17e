"""Tests of lesson 10's checks: each passes on its solution and fails, saying what the
runtime saw, on the notebook's stub and on typical wrong answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphkit.course import lesson10
from graphkit.course.solutions import lesson10 as solutions
from graphkit.pregel import ChannelWriteEntry, NodeBuilder


def first_try(offers, known):
    """The lesson's first try, and the notebook's stub for 10.1: the latest offer."""
    offer = offers[-1]
    return offer if known is None or offer < known else None


LESSON = Path(__file__).parents[2] / "notebooks" / "10-bsp-beyond-agents.ipynb"


def run_cells(*starts: str) -> dict:
    """Run the lesson's code cells that start with ``starts`` (and its imports) in one
    namespace, as a learner's kernel would."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    code = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    names: dict = {"lesson10": lesson10}
    for source in code:
        if source.startswith(("import operator", *starts)):
            exec(source, names)
    return names


def test_the_notebooks_stubs_fail_their_checks():
    stubs = run_cells("def relax", "def component_vertex", "COUNT_")
    assert not lesson10.check_relax(stubs["relax"])
    assert not lesson10.check_superstep_count(stubs["answer"])
    assert not lesson10.check_component_vertex(stubs["component_vertex"])


# -- the programs and references the lesson shows ----------------------------------------


@pytest.mark.parametrize("name", lesson10.GRAPHS)
def test_sssp_app_matches_dijkstra_with_the_solution(name):
    edges = lesson10.GRAPHS[name]
    source = next(iter(edges))
    got = lesson10.sssp_app(edges, source, solutions.relax).invoke(0)
    assert got == {f"distance:{v}": d for v, d in lesson10.dijkstra(edges, source).items()}


def test_the_notebooks_programs_compute_what_plain_python_does():
    lesson = run_cells("EDGES = {", "LINKS = {")
    for edges in lesson10.GRAPHS.values():
        source = next(iter(edges))
        by_the_lesson = lesson["build_sssp"](edges, source, solutions.relax)
        assert by_the_lesson.invoke(0) == lesson10.sssp_app(edges, source, solutions.relax).invoke(
            0
        )
    for links in lesson10.LINKS.values():
        for rounds in (1, 3, 20):
            ranks = lesson["build_pagerank"](links, rounds).invoke(0)
            want = lesson10.pagerank_reference(links, rounds)
            assert ranks == pytest.approx({f"rank:{page}": r for page, r in want.items()})


def test_the_first_try_loses_the_smaller_offer_on_the_fork():
    got = lesson10.sssp_app(lesson10.GRAPHS["fork"], "S", first_try).invoke(0)
    assert got["distance:X"] == 6  # what the lesson shows: X should be 2


def test_the_lessons_run_steps_as_the_lesson_says():
    run = lesson10.sssp_app(lesson10.GRAPHS["lesson"], "A", first_try).trace(0)
    tasks = run.to_frame("tasks")
    assert tasks.groupby("step")["node"].apply(list).to_dict() == {
        -1: ["__input__"],
        0: ["A"],
        1: ["B", "C"],
        2: ["B", "D"],
        3: ["D", "E"],
        4: ["E"],
    }
    changes = run.to_frame("changes").set_index(["step", "channel"])
    assert changes.loc[(1, "inbox:D"), "values"] == (5, 6)
    assert changes.loc[(2, "distance:D"), "after"] == 6  # the latest offer, not the best
    assert (
        run.why("D", step=2).summary
        == "D ran at step 2 because both B and C wrote inbox:D in step 1."
    )


def test_the_conflict_reveal_speaks_of_a_channel_not_a_state_key():
    """Section 5's LastValue inbox: a program built with Pregel has no state keys (the
    reveal called inbox:D "a plain key"); a StateGraph's keep their wording (lesson 03)."""
    lesson = run_cells(
        "EDGES = {",
        "def latest",
        "from graphkit.widgets",
        "one_value = ",
        "my_one_value = ",
        "strict.predict(",
    )
    text = lesson["strict"].predictions[-1].explanation
    assert "B and C each wrote inbox:D, a LastValue channel: it keeps one value" in text
    assert "key" not in text


def test_the_lesson_says_what_the_conflict_error_suggests_in_a_low_level_program():
    """Section 5 told the learner the error 'gives both fixes', a reducer and another kind
    of channel: in a program built with Pregel it names only channel classes."""
    from graphkit.errors import InvalidUpdateError

    lesson = run_cells("EDGES = {", "def latest", "from graphkit.widgets", "one_value = ")
    with pytest.raises(InvalidUpdateError) as raised:
        lesson["one_value"].invoke(0)
    message = str(raised.value)
    assert "BinaryOperatorAggregate(int, operator.add)" in message
    assert "Topic(int)" in message
    assert "Annotated" not in message
    prose = "".join(
        "".join(cell["source"])
        for cell in json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "markdown"
    )
    assert "in a low-level program its message suggests another kind of channel" in prose
    assert "both fixes" not in prose


def test_the_why_cell_prints_lines_a_notebook_need_not_break(capsys):
    """Section 4 printed two ``.summary`` lines of up to 123 characters, which JupyterLab
    breaks mid-word; a printed explanation is wrapped at words, reasons included."""
    run_cells("EDGES = {", "def latest", "run = paths.trace", "print(run.why(")
    printed = capsys.readouterr().out
    assert "D ran at step 2 because both B and C wrote inbox:D in step 1." in printed
    assert "D wrote inbox:E during step 2's Execute. Writes are" in printed
    assert max(len(line) for line in printed.splitlines()) <= 88


def test_components_reference_names_each_component_by_its_smallest_vertex():
    assert lesson10.components_reference(lesson10.FRIENDS["cycle"]) == {
        "a": "a", "b": "b", "c": "b", "d": "b", "e": "a", "f": "a"
    }  # fmt: skip


# -- 10.1 ------------------------------------------------------------------------------------


def test_relax_passes_on_the_solution():
    verdict = lesson10.check_relax(solutions.relax)
    assert verdict, verdict


def test_relax_fails_on_the_stub_the_latest_offer():
    verdict = lesson10.check_relax(first_try)
    assert not verdict
    assert "relax([5, 6], None) returned 6" in verdict.message
    assert "two offers in one step" in verdict.message


def test_relax_fails_on_a_combiner_that_depends_on_the_order():
    verdict = lesson10.check_relax(lambda offers, known: offers[0])
    assert not verdict
    assert "relax([6, 5], None) returned 6" in verdict.message
    assert "in any order" in verdict.hint


def test_relax_fails_when_it_never_votes_to_halt():
    verdict = lesson10.check_relax(lambda offers, known: min(offers))
    assert not verdict
    assert "relax([4], 3) returned 4" in verdict.message
    assert "vote to halt" in verdict.hint


def test_relax_fails_on_a_vertex_that_keeps_an_equal_offer():
    verdict = lesson10.check_relax(
        lambda offers, known: min(offers) if known is None or min(offers) <= known else None
    )
    assert not verdict
    assert "relax([3, 7], 3) returned 3" in verdict.message


def test_relax_fails_on_a_mutating_combiner():
    def sorting(offers, known):
        offers.sort()
        return offers[0] if known is None or offers[0] < known else None

    verdict = lesson10.check_relax(sorting)
    assert not verdict
    assert "changed its offers" in verdict.message


def test_relax_fails_in_the_run_when_only_the_unit_cases_pass():
    cases = {(tuple(o), k): e for o, k, e, _ in lesson10.RELAX_CASES}

    def memorised(offers, known):
        key = (tuple(offers), known)
        return cases[key] if key in cases else first_try(offers, known)

    verdict = lesson10.check_relax(memorised)
    assert not verdict
    assert "Dijkstra says" in verdict.message and "'fork'" in verdict.message


def test_relax_fails_when_the_run_never_ends():
    cases = {(tuple(o), k): e for o, k, e, _ in lesson10.RELAX_CASES}

    def restless(offers, known):  # passes the unit cases, then re-sends forever
        key = (tuple(offers), known)
        return cases[key] if key in cases else min(offers)

    verdict = lesson10.check_relax(restless)
    assert not verdict
    assert "the run did not end" in verdict.message
    assert "still being woken" in verdict.message


def test_relax_fails_and_says_how_when_it_raises():
    verdict = lesson10.check_relax(lambda offers, known: min(offers) < known)
    assert not verdict
    assert "TypeError" in verdict.message


# -- 10.2 ------------------------------------------------------------------------------------


def test_superstep_count_passes_on_the_solution():
    verdict = lesson10.check_superstep_count(solutions.answer)
    assert verdict, verdict
    assert "steps 0 to 4" in verdict.message


def test_superstep_count_fails_on_the_stub_and_on_the_hop_count():
    verdict = lesson10.check_superstep_count(0)
    assert not verdict
    assert "You said 0" in verdict.message and "more supersteps" in verdict.message
    assert "5" not in verdict.message  # the answer is not given away
    verdict = lesson10.check_superstep_count(3)  # edges on the longest shortest path
    assert not verdict
    assert "long cheap path" in verdict.hint


def test_superstep_count_fails_on_the_last_steps_number():
    verdict = lesson10.check_superstep_count(4)  # the number of the last step, 0 not counted
    assert not verdict
    assert "step 0" in verdict.hint and "long cheap path" not in verdict.hint
    assert "5" not in verdict.message + verdict.hint


def test_superstep_count_fails_when_counting_the_empty_last_plan():
    verdict = lesson10.check_superstep_count(6)
    assert not verdict
    assert "finds no task" in verdict.hint


def test_superstep_count_fails_on_a_large_guess_and_on_a_non_number():
    verdict = lesson10.check_superstep_count(9)
    assert not verdict
    assert "runs once" in verdict.hint
    assert not lesson10.check_superstep_count("5")


# -- 10.3 ------------------------------------------------------------------------------------


def stub_vertex(name, neighbours):
    """The notebook's stub for 10.3."""

    def smallest(x):
        return None  # your code here

    return (
        NodeBuilder()
        .subscribe_to(f"heard:{name}")
        .read_from(f"label:{name}")
        .do(smallest)
        .write_to(ChannelWriteEntry(f"label:{name}", skip_none=True))
    )


def test_component_vertex_passes_on_the_solution():
    verdict = lesson10.check_component_vertex(solutions.component_vertex)
    assert verdict, verdict


def test_component_vertex_fails_on_the_stub():
    verdict = lesson10.check_component_vertex(stub_vertex)
    assert not verdict
    assert "is empty after the run" in verdict.message


def test_component_vertex_fails_when_it_tells_nobody():
    def silent(name, neighbours):
        return (
            NodeBuilder()
            .subscribe_to(f"heard:{name}")
            .read_from(f"label:{name}")
            .do(lambda x: min(x[f"heard:{name}"]))
            .write_to(f"label:{name}")
        )

    verdict = lesson10.check_component_vertex(silent)
    assert not verdict
    assert "wrong at ['b', 'c', 'e']" in verdict.message
    assert "tell every neighbour" in verdict.hint


def test_component_vertex_fails_when_it_never_stops_talking():
    def chatty(name, neighbours):
        def smallest(x):
            return min([*x[f"heard:{name}"], x.get(f"label:{name}", "~")])

        writes = [f"label:{name}", *(f"heard:{n}" for n in neighbours)]
        return (
            NodeBuilder()
            .subscribe_to(f"heard:{name}")
            .read_from(f"label:{name}")
            .do(smallest)
            .write_to(*writes)
        )

    verdict = lesson10.check_component_vertex(chatty)
    assert not verdict
    assert "the run did not end" in verdict.message
    assert "only when the vertex's label went down" in verdict.hint


def test_component_vertex_fails_when_it_wakes_on_its_label():
    def woken_by_label(name, neighbours):
        return solutions.component_vertex(name, neighbours).subscribe_to(f"label:{name}")

    verdict = lesson10.check_component_vertex(woken_by_label)
    assert not verdict
    assert "wakes on ['heard:a', 'label:a']" in verdict.message


def test_component_vertex_fails_on_an_unknown_channel_and_on_a_non_node():
    def misspelt(name, neighbours):
        return NodeBuilder().subscribe_to(f"heard:{name}").read_from(f"lable:{name}")

    verdict = lesson10.check_component_vertex(misspelt)
    assert not verdict
    assert "refused your nodes" in verdict.message and "'lable:a'" in verdict.message
    verdict = lesson10.check_component_vertex(lambda name, neighbours: None)
    assert not verdict
    assert "returned NoneType" in verdict.message


def _telling(kind):
    """A vertex that keeps its smallest label and writes it to ``kind:<neighbour>`` for
    each neighbour (the exercise's channel is heard)."""

    def vertex(name, neighbours):
        def smallest(x):
            best, known = min(x[f"heard:{name}"]), x.get(f"label:{name}")
            return best if known is None or best < known else None

        writes = [ChannelWriteEntry(f"{kind}:{n}", skip_none=True) for n in neighbours]
        return (
            NodeBuilder()
            .subscribe_to(f"heard:{name}")
            .read_from(f"label:{name}")
            .do(smallest)
            .write_to(ChannelWriteEntry(f"label:{name}", skip_none=True), *writes)
        )

    return vertex


def test_component_vertex_names_a_misspelt_channel_it_writes():
    """A write to hear:b is dropped at run time with only a warning; the verdict blamed
    the vertices for not telling their neighbours, which they tried to."""

    verdict = lesson10.check_component_vertex(_telling("hear"))
    assert not verdict
    assert "The vertex 'a' writes ['hear:b'], which the program has no channel for" in (
        verdict.message
    )
    assert "check the spelling" in verdict.hint


def test_component_vertex_that_writes_its_neighbours_labels_is_told_to_use_their_inbox():
    """Two vertices writing label:a in one step failed the run with InvalidUpdateError
    and the runtime's advice to make label:a a Topic: a channel the check builds."""

    verdict = lesson10.check_component_vertex(_telling("label"))
    assert not verdict
    assert verdict.message.startswith(
        "The vertex 'a' writes ['label:b']: another vertex's label is that vertex's own value"
    )
    assert "InvalidUpdateError" not in verdict.message
    assert "ChannelWriteEntry('heard:n', skip_none=True)" in verdict.hint


def test_component_vertex_fails_when_it_keeps_the_first_label_it_heard():
    def first_heard(name, neighbours):
        def first(x):
            label, known = x[f"heard:{name}"][0], x.get(f"label:{name}")
            return label if known is None or label < known else None

        writes = [ChannelWriteEntry(f"label:{name}", skip_none=True)]
        writes += [ChannelWriteEntry(f"heard:{n}", skip_none=True) for n in neighbours]
        return (
            NodeBuilder()
            .subscribe_to(f"heard:{name}")
            .read_from(f"label:{name}")
            .do(first)
            .write_to(*writes)
        )

    verdict = lesson10.check_component_vertex(first_heard)
    assert not verdict
    assert "heard ['q', 'b', 'k'] ended with the label 'm'" in verdict.message
    assert "combine them all (min)" in verdict.hint


def test_relax_fails_on_a_falsy_test_that_takes_the_sources_0_for_no_distance():
    def falsy(offers, known):
        best = min(offers)
        return best if not known or best < known else None

    verdict = lesson10.check_relax(falsy)
    assert not verdict
    assert "relax([4], 0) returned 4" in verdict.message
    assert "0 is a distance the vertex knows, yet it is falsy" in verdict.hint


def vertex_with(smallest, *, skip_none=True):
    """A 10.3 vertex around ``smallest(name, x)``, telling its neighbours."""

    def vertex(name, neighbours):
        writes = [ChannelWriteEntry(f"label:{name}", skip_none=True)]
        writes += [
            ChannelWriteEntry(f"heard:{n}", skip_none=True) if skip_none else f"heard:{n}"
            for n in neighbours
        ]
        return (
            NodeBuilder()
            .subscribe_to(f"heard:{name}")
            .read_from(f"label:{name}")
            .do(lambda x: smallest(name, x))
            .write_to(*writes)
        )

    return vertex


def lowered(name, x):
    label, known = min(x[f"heard:{name}"]), x.get(f"label:{name}")
    return label if known is None or label < known else None


def test_component_vertex_names_the_absent_label_a_learner_indexed():
    def indexed(name, x):
        label = min(x[f"heard:{name}"])
        return label if label < x[f"label:{name}"] else None

    verdict = lesson10.check_component_vertex(vertex_with(indexed))
    assert not verdict
    assert "raised KeyError in step 0: 'label:a'" in verdict.message
    assert "absent from the dict a node receives" in verdict.message
    assert "x.get('label:a')" in verdict.hint


def test_component_vertex_names_the_none_a_write_without_skip_none_sent_on():
    verdict = lesson10.check_component_vertex(vertex_with(lowered, skip_none=False))
    assert not verdict
    assert "'a' wrote None to heard:b in step 1, a channel of str values" in verdict.message
    assert "skip_none=True" in verdict.hint


def test_component_vertex_names_a_dict_of_writes_sent_whole():
    def as_a_state_graph_node(name, neighbours):  # returns its writes, as lessons 01-09 do
        def smallest(x):
            label = lowered(name, x)
            return None if label is None else {f"label:{name}": label}

        return (
            NodeBuilder()
            .subscribe_to(f"heard:{name}")
            .read_from(f"label:{name}")
            .do(smallest)
            .write_to(f"label:{name}", *(f"heard:{n}" for n in neighbours))
        )

    verdict = lesson10.check_component_vertex(as_a_state_graph_node)
    assert not verdict
    assert "wrote {'label:a': 'a'} to label:a in step 0" in verdict.message
    assert "sends the channel what your function returns, whole" in verdict.hint


def test_component_vertex_fails_on_a_label_that_goes_up():
    def largest(name, x):
        label, known = max(x[f"heard:{name}"]), x.get(f"label:{name}")
        return label if known is None or label > known else None

    verdict = lesson10.check_component_vertex(vertex_with(largest))
    assert not verdict
    assert "['a', 'b', 'd'] hold a label above their own name" in verdict.message
    assert "only goes down" in verdict.hint


def test_component_vertex_that_keeps_the_last_label_heard_is_told_to_combine():
    """The lesson's first try at relax (offers[-1]) written for labels: the vertices do
    tell their neighbours, so the hint must be about the combine, not about telling."""

    def last_heard(name, x):
        label, known = x[f"heard:{name}"][-1], x.get(f"label:{name}")
        return label if known is None or label < known else None

    verdict = lesson10.check_component_vertex(vertex_with(last_heard))
    assert not verdict
    assert "heard ['q', 'b', 'k'] ended with the label 'k'" in verdict.message
    assert "combine them all (min)" in verdict.hint
    assert "tell every neighbour" not in verdict.hint


def test_the_combiner_question_is_answered_by_the_errors_name():
    """Section 5 asks what a LastValue inbox holds after two writes. The error class was
    imported at the top "for a prediction in section 5", which gave the answer away; the
    learner now writes the class's name, and the reveal judges it."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    code = {cell["id"]: "".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"}
    assert "InvalidUpdateError" not in "".join(code[i] for i in list(code)[:3])
    names: dict = {}
    for cell_id in ("l10-c02", "l10-c08", "l10-c10", "l10-c13-session", "l10-c27-session"):
        exec(code[cell_id], names)
    assert code["l10-c27-guess"].startswith("my_one_value = None  # your guess")
    for guess, right in [("6", False), ("'InvalidUpdateError'", True), ("'ValueError'", False)]:
        names["my_one_value"] = eval(guess)
        # (the cell run again with another guess judges the same step again)
        exec(f"shown = {code['l10-c27']}", names)
        assert names["shown"].correct is right, guess


def test_the_rally_drawings_start_and_end_edges_are_said_before_the_prediction():
    """The rally's drawing has ping → __end__ and pong → __end__, and the text said only
    that an edge a → b is a write of a that wakes b: nothing wakes __end__."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    text = {cell["id"]: "".join(cell["source"]) for cell in cells}
    names: dict = {}
    for cell_id in ("l10-c02", "l10-c04"):
        exec(text[cell_id], names)
    edges = {(edge.source, edge.target) for edge in names["rally"].get_graph().edges}
    assert {("ping", "__end__"), ("pong", "__end__"), ("__start__", "ping")} <= edges
    said = " ".join(text["l10-c05"].split())
    assert "an edge into `__end__` is a write to an output channel, here `turns`" in said
    assert "`__start__ → ping` is the input" in said


def test_component_vertex_returning_a_dict_of_writes_is_told_the_dict_went_whole():
    """A vertex returning {label:<name>: ..., heard:<n>: ...} for one write_to entry ran
    to the end with dicts for labels, and was told to tell its neighbours: it believed it
    had, in the dict's heard: keys."""

    def vertex(name, neighbours):
        def smallest(x):
            best, known = min(x[f"heard:{name}"]), x.get(f"label:{name}")
            if known is not None and best >= known:
                return None
            return {f"label:{name}": best, **{f"heard:{n}": best for n in neighbours}}

        return (
            NodeBuilder()
            .subscribe_to(f"heard:{name}")
            .read_from(f"label:{name}")
            .do(smallest)
            .write_to(ChannelWriteEntry(f"label:{name}", skip_none=True))
        )

    verdict = lesson10.check_component_vertex(vertex)
    assert not verdict
    assert "'a' wrote {'label:a': 'a', 'heard:b': 'a'} to label:a in step 0" in verdict.message
    assert "sends the channel what your function returns, whole" in verdict.hint
    assert "must tell every neighbour" not in verdict.hint
    assert "one ChannelWriteEntry(channel, skip_none=True) per channel" in verdict.hint


def test_the_step_1_question_run_again_after_the_next_says_so_not_a_wrong_verdict():
    """A learner going back to the first question once the second has stepped the session
    on: it then judged step 2 and marked the right step-1 answer wrong."""
    from tests.course.cells import code_cells
    from tests.course.cells import run_cells as run_lesson_cells

    lesson = Path(__file__).parents[2] / "notebooks" / "10-bsp-beyond-agents.ipynb"
    first, second = "session.predict(nodes=my_step_1", "session.predict(channel="
    names: dict = {"display": print}
    run_lesson_cells(lesson, until=second, names=names)
    cells = [source for _, source in code_cells(lesson)]
    names["my_inbox"] = [5, 6]
    exec(next(s for s in cells if s.startswith(second)), names)
    names["my_step_1"] = ["B", "C"]  # the right answer, asked again
    with pytest.raises(ValueError, match="about step 1, but the session is at step 2"):
        exec(next(s for s in cells if s.startswith(first)), names)


def test_component_vertex_that_tells_only_some_neighbours_is_told_which_it_skips():
    # (telling only the neighbours above its own name still lets labels travel, so the
    # verdict said "your vertices do tell their neighbours", blaming what they keep)
    def some(name, neighbours):
        def smallest(x):
            label, known = min(x[f"heard:{name}"]), x.get(f"label:{name}")
            return label if known is None or label < known else None

        writes = [ChannelWriteEntry(f"label:{name}", skip_none=True)]
        writes += [ChannelWriteEntry(f"heard:{n}", skip_none=True) for n in neighbours if n > name]
        return (
            NodeBuilder()
            .subscribe_to(f"heard:{name}")
            .read_from(f"label:{name}")
            .do(smallest)
            .write_to(*writes)
        )

    verdict = lesson10.check_component_vertex(some)
    assert not verdict
    assert "the vertex 'c' does not write heard:b" in verdict.message
    assert "every neighbour" in verdict.hint


def _langgraph_vertex(name, neighbours, *, builder_too):
    """The solution's vertex written with LangGraph's classes (its ChannelWriteEntry;
    its NodeBuilder too when ``builder_too``), as a learner who kept their imports."""
    from langgraph.pregel import NodeBuilder as LangGraphBuilder
    from langgraph.pregel._write import ChannelWriteEntry as LangGraphEntry

    def smallest(x):
        label, known = min(x[f"heard:{name}"]), x.get(f"label:{name}")
        return label if known is None or label < known else None

    writes = [LangGraphEntry(f"{c}", skip_none=True) for c in [f"label:{name}"]]
    writes += [LangGraphEntry(f"heard:{n}", skip_none=True) for n in neighbours]
    builder = LangGraphBuilder() if builder_too else NodeBuilder()
    return (
        builder.subscribe_to(f"heard:{name}")
        .read_from(f"label:{name}")
        .do(smallest)
        .write_to(*writes)
    )


@pytest.mark.parametrize("builder_too", [True, False], ids=["builder", "write-entries"])
def test_component_vertex_built_from_langgraphs_classes_is_told_to_import_graphkits(
    builder_too,
):
    """LangGraph's NodeBuilder was told "returned NodeBuilder; it should return a node:
    NodeBuilder()...", and its ChannelWriteEntry, which graphkit's runtime does not know,
    ended in a TypeError blamed on a write without skip_none."""
    verdict = lesson10.check_component_vertex(
        lambda name, neighbours: _langgraph_vertex(name, neighbours, builder_too=builder_too)
    )
    assert not verdict
    assert "LangGraph's" in verdict.message, verdict.message
    assert "from graphkit.pregel import" in verdict.hint, verdict.hint
