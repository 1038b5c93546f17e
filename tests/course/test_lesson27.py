"""Lesson 27's checks on their solutions, on typical wrong answers and on the notebook's
stubs; and the lesson's claims on LangGraph: every cell that streams or invokes runs on
LangGraph 1.2 too and prints the same (the parts, their types and namespaces, what a
paused run's values part and GraphOutput hold), and the checks' graphs stream the same
parts on both."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphkit import Command
from graphkit.course import assert_fails, assert_passes, lesson27
from graphkit.course.solutions import lesson27 as solutions
from tests.course.cells import (
    cells_showing_an_id,
    lines_too_long,
    run_again_in_reverse,
    run_cells,
    stub_names,
)

LESSON = Path(__file__).parents[2] / "notebooks" / "27-streaming-into-an-app.ipynb"
IMPORT = "from graphkit.course import lesson27"


def stub_cells() -> dict:
    return stub_names(LESSON, lesson27, ("def consume(", "def text_of(", "def answer_all("))


def test_the_notebooks_stubs_fail_their_checks():
    stubs = stub_cells()
    assert_fails(
        lesson27.check_consume(stubs["consume"]), "Your progress lines were []", hint="custom"
    )
    assert_fails(lesson27.check_text_of(stubs["text_of"]), "returned ''", hint="ns")
    assert_fails(lesson27.check_answer_all(stubs["answer_all"]), "never ran the graph")


def test_the_lessons_cells_show_the_same_when_run_again():
    shown = run_again_in_reverse(
        LESSON, IMPORT, lambda source: ".stream(" in source or "stream(" in source
    )
    said = "\n".join(out for out, _ in shown.values())
    assert "research step 2 · summarize: 'Moon'" in said


def test_no_cell_shows_an_id():
    assert cells_showing_an_id(LESSON, IMPORT) == {}


def test_every_code_line_fits_the_cell():
    assert lines_too_long(LESSON) == []


# -- the lesson's claims on LangGraph

GRAPHKIT_IMPORT = (
    "from graphkit import START, Command, InMemorySaver, StateGraph, get_stream_writer, interrupt"
)
LANGGRAPH_IMPORTS = """
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import START, StateGraph
from langgraph.types import Command, interrupt
"""


def to_langgraph(cell: str, source: str) -> str | None:
    """The cell for LangGraph, or None for one that reads graphkit's records."""
    if ".trace(" in source:
        return None
    source = source.replace(GRAPHKIT_IMPORT, LANGGRAPH_IMPORTS)
    assert "from graphkit import" not in source
    return source


def run_lesson(library: str) -> dict:
    names: dict = {"display": print}
    source_of = to_langgraph if library == "langgraph" else (lambda cell, source: source)
    return run_cells(LESSON, until=IMPORT, names=names, source_of=source_of)


def test_every_cell_prints_the_same_on_langgraph():
    pytest.importorskip("langgraph")
    ours = run_lesson("graphkit")
    theirs = run_lesson("langgraph")
    assert len(theirs) >= 17
    for cell in theirs:
        assert theirs[cell] == ours[cell] or theirs[cell][1] is None, cell
        assert theirs[cell][0] == ours[cell][0], cell


def test_the_lessons_cells_print_what_the_lesson_says():
    said = "\n".join(out + str(shown) for out, shown in run_lesson("graphkit").values())
    assert "ValueError: too many values to unpack (expected 2)" in said
    # Q1: 3 custom, 6 values, 4 of them in ()
    q1 = next(out for out, _ in run_lesson("graphkit").values() if "values with ns ()" in out)
    lines = q1.splitlines()[1:]
    assert sum(line.startswith("custom") for line in lines) == 3
    assert sum(line.startswith("values") for line in lines) == 6
    assert sum(line.startswith("values  ()") for line in lines) == 4
    assert "desk     step 1 · planning: tides\nresearch step 1 · reading moon.html" in said
    assert "research step 2: ['summarize']\ndesk     step 3: ['write']" in said
    assert "summarize ('research',) 'Moon'" in said and "write     ()            'Twice'" in said
    assert "{'custom': 1, 'messages': 5}" in said
    assert "[{'asks': 'publish?', 'answer': 'Twice a day.'}]" in said
    assert "['question', 'pages', 'answer'] [{'asks': 'publish?'" in said
    assert "GraphOutput ['question', 'pages', 'answer']" in said
    assert "Twice a day. · interrupts: ()" in said
    assert "progress · planning: tides\npaused   · {'asks': 'publish?'" in said
    assert "'answer': '(withheld)'}" in said


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_the_checks_graphs_stream_the_same_parts(library):
    """The checks build their graphs with graphkit; the same graphs converted from
    LangGraph's builders are not needed: what the checks read (types, ns, data, the
    metadata's node and step) is compared here on a LangGraph twin of talk_graph."""
    graph = pytest.importorskip(f"{library}.graph")

    def said(text):
        return lesson27._said(text)

    research = graph.StateGraph(lesson27.Talk)
    research.add_node("search", lambda state: {})
    research.add_node("model", lambda state: {"notes": said("Notes.")})
    research.add_edge(graph.START, "search")
    research.add_edge("search", "model")
    builder = graph.StateGraph(lesson27.Talk)
    builder.add_node("research", research.compile())
    builder.add_node("model", lambda state: {"draft": said("A draft.")})
    builder.add_edge(graph.START, "research")
    builder.add_edge("research", "model")
    parts = lesson27._stream(builder.compile(), {"topic": "t"})
    assert lesson27._texts(parts) == {("research", "model"): "Notes.", (None, "model"): "A draft."}
    assert solutions.text_of(iter(parts), "model", "research") == "Notes."
    assert solutions.text_of(iter(parts), "model") == "A draft."


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_answer_all_runs_on_either_library(library):
    """The solution's loop (invoke v2, resume while GraphOutput.interrupts) ends a run
    that pauses twice on LangGraph too, with the same value."""
    graph = pytest.importorskip(f"{library}.graph")
    types_ = pytest.importorskip(f"{library}.types")
    memory = pytest.importorskip(f"{library}.checkpoint.memory")
    builder = graph.StateGraph(lesson27.Review)
    builder.add_node("write", lambda state: {"answer": "a", "status": "written"})
    builder.add_node("review", lambda state: {"status": f"ok {types_.interrupt('approve?')}"})
    builder.add_node(
        "publish", lambda state: {"status": f"{state['status']} {types_.interrupt('n?')}"}
    )
    builder.add_edge(graph.START, "write")
    builder.add_edge("write", "review")
    builder.add_edge("review", "publish")
    app = builder.compile(checkpointer=memory.InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    if library == "langgraph":  # (the solution imports graphkit's Command: LangGraph's here)
        value = _answer_all_with(types_.Command, app, config)
    else:
        decide = {"approve?": "yes", "n?": 3}.get
        value = solutions.answer_all(app, {"question": "q"}, config, decide)
    assert value == {"question": "q", "answer": "a", "status": "ok yes 3"}


def _answer_all_with(command, app, config):
    output = app.invoke({"question": "q"}, config, version="v2")
    while output.interrupts:
        answer = {"approve?": "yes", "n?": 3}[output.interrupts[0].value]
        output = app.invoke(command(resume=answer), config, version="v2")
    return output.value


# -- the checks


def test_the_solutions_pass():
    assert_passes(lesson27.check_consume(solutions.consume))
    assert_passes(lesson27.check_text_of(solutions.text_of))
    assert_passes(lesson27.check_answer_all(solutions.answer_all))


# 27.1


def _consume_if_elif(parts):
    progress, answer = [], None
    for part in parts:
        if part["type"] == "custom":
            progress.append(part["data"])
        elif part["type"] == "values" and "answer" in part["data"]:
            answer = part["data"]["answer"]
    return progress, answer


def _consume_last_values(parts):
    parts = list(parts)
    values = [p for p in parts if p["type"] == "values" and p["ns"] == ()]
    return [p["data"] for p in parts if p["type"] == "custom"], values[-1]["data"]["answer"]


@pytest.mark.parametrize("answer", [_consume_if_elif, _consume_last_values])
def test_consume_right_variants_pass(answer):
    assert_passes(lesson27.check_consume(answer))


def _consume_first_values(parts):
    progress, first = [], None
    for part in parts:
        if part["type"] == "custom":
            progress.append(part["data"])
        elif part["type"] == "values" and first is None:
            first = part["data"]
    return progress, first.get("answer")


def _consume_first_answer(parts):
    progress, answer = [], None
    for part in parts:
        if part["type"] == "custom":
            progress.append(part["data"])
        elif part["type"] == "values" and answer is None:
            answer = part["data"].get("answer")
    return progress, answer


def _consume_top_only(parts):
    progress, state = [], {}
    for part in parts:
        if part["ns"]:
            continue
        if part["type"] == "custom":
            progress.append(part["data"])
        elif part["type"] == "values":
            state = part["data"]
    return progress, state.get("answer")


def _consume_tokens(parts):
    progress, answer = [], ""
    for part in parts:
        if part["type"] == "custom":
            progress.append(part["data"])
        elif part["type"] == "messages" and not part["ns"]:
            answer += part["data"][0].content
    return progress, answer


def _consume_v1(parts):
    progress, answer = [], None
    for mode, chunk in parts:
        if mode == "custom":
            progress.append(chunk)
    return progress, answer


def _consume_every_string(parts):
    progress, state = [], {}
    for part in parts:
        if isinstance(part["data"], str):
            progress.append(part["data"])
        if part["type"] == "values":
            state = part["data"]
    return [*progress, "done"], state.get("answer")


def _consume_whole_state(parts):
    progress, state = [], {}
    for part in parts:
        if part["type"] == "custom":
            progress.append(part["data"])
        elif part["type"] == "values":
            state = part["data"]
    return progress, state


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (_consume_first_values, "Your answer was None", "the last one"),
        (_consume_first_answer, "Yours is write's answer, before cite's step added", ""),
        (_consume_top_only, "only those of ns (): the others came from ns ('research:…',)", ""),
        (_consume_tokens, "Yours is write's answer, before cite's step", ""),
        (_consume_v1, "unpacked a part as a tuple", "one dict"),
        (_consume_every_string, "yours has 5 lines, 4 were sent", ""),
        (_consume_whole_state, "you returned the whole state", ""),
    ],
    ids=["first values", "first answer", "top only", "tokens", "v1", "extra lines", "whole state"],
)
def test_consume_wrong_answers(answer, said, hint):
    assert_fails(lesson27.check_consume(answer), said, hint=hint)


def test_consume_first_values_is_told_what_the_first_values_part_is():
    verdict = assert_fails(lesson27.check_consume(_consume_first_values))
    assert "the first is the input (step 0's)" in verdict.message


# 27.2


def _text_by_checkpoint_ns(parts, node, subgraph=None):
    want = [node] if subgraph is None else [subgraph, node]
    text = ""
    for part in parts:
        if part["type"] == "messages":
            token, metadata = part["data"]
            path = [entry.split(":")[0] for entry in metadata["langgraph_checkpoint_ns"].split("|")]
            if path == want:
                text += token.content
    return text


def _text_by_ns_prefix(parts, node, subgraph=None):
    text = ""
    for part in parts:
        if part["type"] != "messages" or part["data"][1]["langgraph_node"] != node:
            continue
        inside = bool(part["ns"]) and part["ns"][0].startswith(f"{subgraph}:")
        if (subgraph is None and not part["ns"]) or inside:
            text += part["data"][0].content
    return text


@pytest.mark.parametrize("answer", [_text_by_checkpoint_ns, _text_by_ns_prefix])
def test_text_of_right_variants_pass(answer):
    assert_passes(lesson27.check_text_of(answer))


def _text_by_node_only(parts, node, subgraph=None):
    return "".join(
        p["data"][0].content
        for p in parts
        if p["type"] == "messages" and p["data"][1]["langgraph_node"] == node
    )


def _text_ns_equals_name(parts, node, subgraph=None):
    ns = () if subgraph is None else (subgraph,)
    return "".join(
        p["data"][0].content
        for p in parts
        if p["type"] == "messages" and p["data"][1]["langgraph_node"] == node and p["ns"] == ns
    )


def _text_data_as_dict(parts, node, subgraph=None):
    return "".join(p["data"]["content"] for p in parts if p["data"]["langgraph_node"] == node)


def _text_wrong_key(parts, node, subgraph=None):
    return "".join(
        p["data"][0].content
        for p in parts
        if p["type"] == "messages" and p["data"][1]["node"] == node
    )


def _text_graph_only(parts, node, subgraph=None):
    return "".join(
        p["data"][0].content
        for p in parts
        if p["type"] == "messages"
        and [e.split(":")[0] for e in p["ns"]] == ([subgraph] if subgraph else [])
    )


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (_text_by_node_only, "Yours holds the tokens of every node named 'model'"),
        (_text_ns_equals_name, "whose entry is 'research:' and a task id, not 'research' alone"),
        (_text_data_as_dict, "raised KeyError: 'langgraph_node'. Only a messages part"),
        (_text_wrong_key, "raised KeyError: 'node'"),
        (_text_graph_only, "Yours holds every token sent in that graph, by critic and model"),
    ],
    ids=["node only", "ns == (name,)", "data as dict", "wrong key", "graph only"],
)
def test_text_of_wrong_answers(answer, said):
    assert_fails(lesson27.check_text_of(answer), said, hint="ns")


def test_text_of_by_node_only_names_both_models():
    verdict = assert_fails(lesson27.check_text_of(_text_by_node_only))
    assert "the top graph's model and research's model" in verdict.message


# 27.3


def _answer_all_for_loop(app, input, config, decide):
    output = app.invoke(input, config, version="v2")
    for _ in range(10):
        if not output.interrupts:
            break
        resume = {i.id: decide(i.value) for i in output.interrupts}
        output = app.invoke(Command(resume=resume), config, version="v2")
    return output.value


def _answer_all_streamed(app, input, config, decide):
    command = input
    while True:
        for part in app.stream(command, config, stream_mode="values", version="v2"):
            state, paused = part["data"], part["interrupts"]
        if not paused:
            return state
        command = Command(resume=decide(paused[0].value))


@pytest.mark.parametrize(
    "answer", [solutions.answer_all, _answer_all_for_loop, _answer_all_streamed]
)
def test_answer_all_right_variants_pass(answer):
    assert_passes(lesson27.check_answer_all(answer))


def _answer_in_value(app, input, config, decide):
    output = app.invoke(input, config, version="v2")
    while output.value.get("__interrupt__"):
        asked = output.value["__interrupt__"][0].value
        output = app.invoke(Command(resume=decide(asked)), config, version="v2")
    return output.value


def _answer_once(app, input, config, decide):
    output = app.invoke(input, config, version="v2")
    if output.interrupts:
        resume = Command(resume=decide(output.interrupts[0].value))
        output = app.invoke(resume, config, version="v2")
    return output.value


def _answer_the_interrupt(app, input, config, decide):
    output = app.invoke(input, config, version="v2")
    while output.interrupts:
        output = app.invoke(Command(resume=decide(output.interrupts[0])), config, version="v2")
    return output.value


def _answer_as_input(app, input, config, decide):
    output = app.invoke(input, config, version="v2")
    for _ in range(3):
        if output.interrupts:
            output = app.invoke(input, config, version="v2")
    return output.value


def _answer_output(app, input, config, decide):
    output = app.invoke(input, config, version="v2")
    while output.interrupts:
        resume = Command(resume=decide(output.interrupts[0].value))
        output = app.invoke(resume, config, version="v2")
    return output


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (_answer_in_value, "paused at review: decide was never called", "not in the state"),
        (_answer_once, "answered 1 interrupt and returned", "Keep resuming"),
        (
            _answer_the_interrupt,
            "the Interrupt itself, not the value the node asked with, {'asks'",
            ".value",
        ),
        (_answer_as_input, "write ran", "same thread"),
        (_answer_output, "returned the GraphOutput itself", ".value"),
    ],
    ids=["in the value", "once", "the Interrupt", "input again", "GraphOutput"],
)
def test_answer_all_wrong_answers(answer, said, hint):
    assert_fails(lesson27.check_answer_all(answer), said, hint=hint)


def test_consume_every_token_is_told_so():
    def answer(parts):
        progress, text = [], ""
        for part in parts:
            if part["type"] == "custom":
                progress.append(part["data"])
            elif part["type"] == "messages":
                text += part["data"][0].content
        return progress, text

    assert_fails(lesson27.check_consume(answer), "yours is every token the models sent")


def test_consume_reading_a_stream_twice_is_told_what_it_got():
    """The check hands an iterator, as a stream is: a second pass finds nothing."""

    def answer(parts):
        progress = [p["data"] for p in parts if p["type"] == "custom"]
        values = [p for p in parts if p["type"] == "values"]
        return progress, values[-1]["data"]["answer"] if values else None

    assert_fails(lesson27.check_consume(answer), "read the parts twice", hint="one loop")
