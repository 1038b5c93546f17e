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
    assert_fails(lesson27.check_text_of(stubs["text_of"]), "returned ''", hint="First keep")
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


def test_consume_crashing_on_its_second_pass_is_told_it_read_twice():
    """Found by a learner's review: without a guard the second pass's empty list raises
    IndexError, and "run your answer on its own" does not show it (a list reads twice)."""

    def answer(parts):
        progress = [p["data"] for p in parts if p["type"] == "custom"]
        values = [p for p in parts if p["type"] == "values" and p["ns"] == ()]
        return progress, values[-1]["data"]["answer"]

    assert_fails(lesson27.check_consume(answer), "read the parts twice", hint="one loop")


def test_text_of_crashing_on_its_second_pass_is_told_it_read_twice():
    def text_of(parts, node, subgraph=None):
        spoken = [p for p in parts if p["type"] == "messages"]
        mine = [p for p in parts if p["data"][1]["langgraph_node"] == node]
        return mine[0]["data"][0].content + "".join(p["data"][0].content for p in spoken)

    assert_fails(lesson27.check_text_of(text_of), "read the parts twice", hint="one loop")


# -- found in review: plausible answers whose verdicts were wrong or untrue


def _consume_match_mapping(parts):
    progress, state = [], {}
    for part in parts:
        match part:
            case {"type": "custom", "data": line}:
                progress.append(line)
            case {"type": "values", "ns": (), "data": data}:
                state = data
    return progress, state.get("answer")


def _consume_with_get(parts):
    progress, answer = [], None
    for part in parts:
        kind = part.get("type")
        if kind == "custom":
            progress.append(part.get("data"))
        elif kind == "values":
            answer = part.get("data", {}).get("answer", answer)
    return [progress, answer]


@pytest.mark.parametrize("answer", [_consume_match_mapping, _consume_with_get])
def test_consume_more_right_variants_pass(answer):
    assert_passes(lesson27.check_consume(answer))


def _consume_indexed(parts):
    progress = [p["data"] for p in parts if p["type"] == "custom"]
    return progress, parts[-1]["data"]["answer"]


def _consume_swapped(parts):
    progress, answer = _consume_with_get(parts)
    return answer, progress


def _consume_joined(parts):
    progress, answer = _consume_with_get(parts)
    return "\n".join(progress), answer


def _consume_every_values_answer(parts):
    progress, answer = [], None
    for part in parts:
        if part["type"] == "custom":
            progress.append(part["data"])
        elif part["type"] == "values":
            answer = part["data"]["answer"]
    return progress, answer


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (_consume_indexed, "an iterator, as stream() returns", "list(parts)"),
        (_consume_swapped, "your pair is (answer, progress lines)", "return progress, answer"),
        (_consume_joined, "one string", "a list"),
        (_consume_every_values_answer, "the values parts before write's step hold no 'answer'", ""),
    ],
    ids=["indexed stream", "swapped", "joined", "KeyError answer"],
)
def test_consume_more_wrong_answers(answer, said, hint):
    verdict = assert_fails(lesson27.check_consume(answer), said, hint=hint)
    assert "lines, 4 were sent" not in verdict.message


def _text_with_match(parts, node, subgraph=None):
    text = ""
    for part in parts:
        match part:
            case {"type": "messages", "ns": ns, "data": (token, {"langgraph_node": name})}:
                graph = ns[0].partition(":")[0] if ns else None
                if name == node and graph == subgraph:
                    text += token.content
    return text


def _text_adding_chunks(parts, node, subgraph=None):
    want = () if subgraph is None else (subgraph,)
    chunk = None
    for part in parts:
        if part.get("type") != "messages":
            continue
        token, metadata = part["data"]
        graph = tuple(entry.split(":")[0] for entry in part["ns"])
        if metadata.get("langgraph_node") == node and graph == want:
            chunk = token if chunk is None else chunk + token
    return chunk.content if chunk is not None else ""


@pytest.mark.parametrize("answer", [_text_with_match, _text_adding_chunks])
def test_text_of_more_right_variants_pass(answer):
    assert_passes(lesson27.check_text_of(answer))


def _text_name_in_str(parts, node, subgraph=None):
    return "".join(
        p["data"][0].content
        for p in parts
        if p["type"] == "messages"
        and p["data"][1]["langgraph_node"] == node
        and subgraph in str(p["ns"])
    )


def _text_first_entry(parts, node, subgraph=None):
    text = ""
    for p in parts:
        named = p["type"] == "messages" and p["data"][1]["langgraph_node"] == node
        if named and p["ns"][0].split(":")[0] == subgraph:
            text += p["data"][0].content
    return text


def _text_adds_tokens(parts, node, subgraph=None):
    text = ""
    for p in parts:
        if p["type"] == "messages" and p["data"][1]["langgraph_node"] == node and not p["ns"]:
            text += p["data"][0]
    return text


def _text_every_part(parts, node, subgraph=None):
    text = ""
    for p in parts:
        token, metadata = p["data"]
        if metadata["langgraph_node"] == node:
            text += token.content
    return text


def _text_reversed(parts, node, subgraph=None):
    want = () if subgraph is None else (subgraph,)
    kept = [
        p["data"][0].content
        for p in parts[::-1]
        if p["type"] == "messages"
        and p["data"][1]["langgraph_node"] == node
        and tuple(e.split(":")[0] for e in p["ns"]) == want
    ]
    return "".join(reversed(kept))


def _text_last_token(parts, node, subgraph=None):
    want = () if subgraph is None else (subgraph,)
    text = ""
    for p in parts:
        if p["type"] != "messages" or p["data"][1]["langgraph_node"] != node:
            continue
        if tuple(e.split(":")[0] for e in p["ns"]) == want:
            text = p["data"][0].content
    return text


@pytest.mark.parametrize(
    ("answer", "said", "unsaid"),
    [
        (_text_name_in_str, "raised TypeError: 'in <string>'", "data is a pair"),
        (_text_first_entry, "a part of the top graph has ns (), with no entry", "data is a pair"),
        (_text_adds_tokens, "a message chunk: its text is token.content", "data is a"),
        (_text_every_part, "Only a messages part's data is a pair, (token, metadata)", "Run your"),
        (_text_reversed, "an iterator, as stream() returns", "data is a pair"),
        (_text_last_token, "Yours is the last token it sent", "Run your"),
    ],
    ids=["None in str", "ns[0] of ()", "str + chunk", "every part", "indexed stream", "last"],
)
def test_text_of_more_wrong_answers(answer, said, unsaid):
    verdict = assert_fails(lesson27.check_text_of(answer), said)
    assert unsaid not in verdict.message + verdict.hint


def _answer_recursive(app, input, config, decide):
    output = app.invoke(input, config, version="v2")
    if output.interrupts:
        resume = Command(resume=decide(output.interrupts[0].value))
        return _answer_recursive(app, resume, config, decide)
    return output.value


def _answer_by_state(app, input, config, decide):
    app.invoke(input, config, version="v2")
    while app.get_state(config).next:
        asked = app.get_state(config).interrupts[0].value
        app.invoke(Command(resume=decide(asked)), config, version="v2")
    return app.get_state(config).values


@pytest.mark.parametrize("answer", [_answer_recursive, _answer_by_state])
def test_answer_all_more_right_variants_pass(answer):
    assert_passes(lesson27.check_answer_all(answer))


def _answer_without_decide(app, input, config, decide):
    output = app.invoke(input, config, version="v2")
    while output.interrupts:
        output = app.invoke(Command(resume=output.interrupts[0].value), config, version="v2")
    return output.value


def _answer_keeps_the_first_output(app, input, config, decide):
    output = app.invoke(input, config, version="v2")
    for _ in range(20):
        if not output.interrupts:
            break
        app.invoke(Command(resume=decide(output.interrupts[0].value)), config, version="v2")
    return output.value


def _answer_the_interrupts(app, input, config, decide):
    output = app.invoke(input, config, version="v2")
    while output.interrupts:
        output = app.invoke(Command(resume=decide(output.interrupts)), config, version="v2")
    return output.value


def _answer_the_id(app, input, config, decide):
    output = app.invoke(input, config, version="v2")
    while output.interrupts:
        output = app.invoke(Command(resume=decide(output.interrupts[0].id)), config, version="v2")
    return output.value


def _answer_on_another_thread(app, input, config, decide):
    output = app.invoke(input, config, version="v2")
    other = {"configurable": {"thread_id": "another"}}
    while output.interrupts:
        output = app.invoke(Command(resume=decide(output.interrupts[0].value)), other, version="v2")
    return output.value


def _answer_decides_but_never_resumes(app, input, config, decide):
    for part in app.stream(input, config, stream_mode="values", version="v2"):
        if part["interrupts"]:
            decide(part["interrupts"][0].value)
    return part["data"]


@pytest.mark.parametrize(
    ("answer", "said", "unsaid"),
    [
        (_answer_decides_but_never_resumes, "never resumed the run", "answered 1 interrupt"),
        (_answer_without_decide, "decide was never called", "Return the final value"),
        (_answer_keeps_the_first_output, "after the run had ended", "never went on"),
        (_answer_the_interrupts, "handed decide (Interrupt(", "again and again"),
        (_answer_the_id, "handed decide '", "again and again"),
        (_answer_on_another_thread, "still paused at review", "Run your answer"),
    ],
    ids=["never resumed", "no decide", "first output", "the tuple", "the id", "another thread"],
)
def test_answer_all_more_wrong_answers(answer, said, unsaid):
    verdict = assert_fails(lesson27.check_answer_all(answer), said)
    assert unsaid not in verdict.message + verdict.hint


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_where_a_pause_shows_in_v1_and_v2(library):
    """The lesson's bullet on "interrupts": v1's values chunk of a paused run has an
    `__interrupt__` key; v2's values part keeps it out of the data, in "interrupts"; a v2
    updates part carries it in its data."""
    graph = pytest.importorskip(f"{library}.graph")
    types_ = pytest.importorskip(f"{library}.types")
    memory = pytest.importorskip(f"{library}.checkpoint.memory")
    builder = graph.StateGraph(lesson27.Review)
    builder.add_node("review", lambda state: {"status": types_.interrupt("approve?")})
    builder.add_edge(graph.START, "review")
    app = builder.compile(checkpointer=memory.InMemorySaver())
    v1 = list(
        app.stream({"question": "q"}, {"configurable": {"thread_id": "1"}}, stream_mode="values")
    )
    config = {"configurable": {"thread_id": "2"}}
    v2 = list(
        app.stream({"question": "q"}, config, stream_mode=["values", "updates"], version="v2")
    )
    assert v1[-1]["question"] == "q" and v1[-1]["__interrupt__"][0].value == "approve?"
    values, updates = ([p for p in v2 if p["type"] == kind] for kind in ("values", "updates"))
    assert values[-1]["data"] == {"question": "q"}
    assert [pause.value for pause in values[-1]["interrupts"]] == ["approve?"]
    assert [pause.value for pause in updates[-1]["data"]["__interrupt__"]] == ["approve?"]


# -- verdicts that were generic where the check could name the difference ----------------------


def _consume_the_parts(parts):
    progress, state = [], {}
    for part in parts:
        if part["type"] == "custom":
            progress.append(part)
        elif part["type"] == "values" and not part["ns"]:
            state = part["data"]
    return progress, state.get("answer")


def _consume_every_answer(parts):
    progress, answers = [], []
    for part in parts:
        if part["type"] == "custom":
            progress.append(part["data"])
        elif part["type"] == "values" and not part["ns"] and "answer" in part["data"]:
            answers.append(part["data"]["answer"])
    return progress, answers


def _consume_by_mode(parts):
    return [part["data"] for part in parts if part["mode"] == "custom"], None


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (_consume_the_parts, "yours are the custom parts themselves; a progress line is", ""),
        (_consume_every_answer, "yours is a list of the answers the values parts held", ""),
        (
            _consume_by_mode,
            "raised KeyError: 'mode': a part of a v2 stream has the keys 'type', 'ns' and "
            "'data', and no 'mode'",
            "one dict",
        ),
    ],
    ids=["the parts", "every answer", "a v1 key"],
)
def test_consume_verdicts_name_the_difference(answer, said, hint):
    """These three were told only what they returned (or the KeyError alone)."""
    assert_fails(lesson27.check_consume(answer), said, hint=hint)


def _consume_by_handlers(parts):
    progress, state = [], {}
    handlers = {
        "custom": lambda part: progress.append(part["data"]),
        "values": lambda part: state.update(part["data"]) if not part["ns"] else None,
    }
    for part in parts:
        handlers[part["type"]](part)  # no handler for the messages parts: KeyError
    return progress, state.get("answer")


def _consume_a_misspelt_state_key(parts):
    progress, answer = [], None
    for part in parts:
        if part["type"] == "custom":
            progress.append(part["data"])
        elif part["type"] == "values" and not part["ns"] and "answer" in part["data"]:
            answer = part["data"]["answers"]
    return progress, answer


@pytest.mark.parametrize(
    "answer", [_consume_by_handlers, _consume_a_misspelt_state_key], ids=["handlers", "state key"]
)
def test_consume_a_key_missing_elsewhere_than_in_a_part_is_not_blamed_on_the_part(answer):
    """A KeyError from the learner's own dict, or from the state, was told "a part of a
    v2 stream has the keys 'type', 'ns' and 'data', and no 'messages'"."""
    verdict = lesson27.check_consume(answer)
    assert not verdict.passed
    assert "a part of a v2 stream has the keys" not in verdict.message, verdict.message


def test_consume_a_state_key_read_from_the_part_is_told_the_state_is_its_data():
    """part["answer"] was told "the values parts before write's step hold no 'answer'":
    no part holds one, the state is a values part's data."""

    def from_the_part(parts):
        progress, answer = [], None
        for part in parts:
            if part["type"] == "values" and not part["ns"]:
                answer = part["answer"]
        return progress, answer

    assert_fails(
        lesson27.check_consume(from_the_part),
        "no 'answer' (the state is a values part's data)",
        hint="one dict",
    )


def test_a_part_read_by_attribute_is_told_it_is_a_dict():
    """part.type: the verdict was the check's own "'_Part' object has no attribute
    'type'", a class the learner never met, with no word of what a part is."""

    def consume(parts):
        return [part.data for part in parts if part.type == "custom"], None

    def text_of(parts, node, subgraph=None):
        return "".join(part.data[0].content for part in parts if part.type == "messages")

    for verdict in (lesson27.check_consume(consume), lesson27.check_text_of(text_of)):
        assert_fails(verdict, "part.type: a part of a v2 stream is a dict", hint="read its keys")
        assert "_Part" not in verdict.message


def test_consume_progress_lines_given_as_a_generator_are_read_once():
    """Right lines handed back as a generator were read by one comparison, then told
    "Your progress lines were []"."""

    def lazily(parts):
        progress, answer = solutions.consume(list(parts))
        return (line for line in progress), answer

    assert_passes(lesson27.check_consume(lazily))


def test_consume_progress_lines_that_are_no_list_are_told_so():
    """None for the lines broke the check: it made a list of them to compare."""

    def no_lines(parts):
        return None, solutions.consume(parts)[1]

    assert_fails(
        lesson27.check_consume(no_lines), "Your progress lines were None; the custom parts said"
    )


def test_consume_an_answer_in_a_list_of_its_own_is_not_told_it_holds_every_answer():
    def in_a_list(parts):
        progress, answer = solutions.consume(parts)
        return progress, [answer]

    verdict = assert_fails(
        lesson27.check_consume(in_a_list),
        "yours is a list holding it; the answer is the string alone",
    )
    assert "one per step" not in verdict.message


def test_consume_lines_in_another_order_are_told_so():
    """A set of the lines: the same lines, out of order, was told only both lists."""

    def into_a_set(parts):
        progress, answer = solutions.consume(parts)
        return set(progress), answer

    verdict = assert_fails(lesson27.check_consume(_consume_out_of_order))
    assert verdict.message.endswith(": the same lines, in another order.")
    verdict = lesson27.check_consume(into_a_set)
    if not verdict.passed:  # (a set may happen to come out in order)
        assert "the same lines, in another order (a set keeps no order)" in verdict.message


def _consume_out_of_order(parts):
    progress, answer = solutions.consume(parts)
    return progress[::-1], answer


def _text_tokens_list(parts, node, subgraph=None):
    want = () if subgraph is None else (subgraph,)
    return [
        p["data"][0].content
        for p in parts
        if p["type"] == "messages"
        and p["data"][1]["langgraph_node"] == node
        and tuple(e.split(":")[0] for e in p["ns"]) == want
    ]


def _text_lines(parts, node, subgraph=None):
    return "\n".join(_text_tokens_list(parts, node, subgraph))


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (_text_tokens_list, "not a string: yours is the list of its 7 tokens; the text is them"),
        (_text_lines, "Yours joins its tokens with '\\n': the spaces are tokens too"),
    ],
    ids=["list", "lines"],
)
def test_text_of_verdicts_name_the_difference(answer, said):
    """Told only "returned list [...], not a string" or both strings, with a hint about
    metadata and ns, which these answers read right."""
    verdict = assert_fails(lesson27.check_text_of(answer), said, hint="token.content")
    assert "langgraph_node" not in verdict.hint


def test_text_of_tokens_joined_with_a_space_are_told_so():
    """The check's model sends its spaces as tokens of their own ('A', ' ', 'draft'), as
    the lesson says: " ".join(...) doubled them and was told only both strings, with a
    hint about metadata and ns; and a separator was told each token has its spaces."""

    def spaced(parts, node, subgraph=None):
        return " ".join(_text_tokens_list(parts, node, subgraph))

    verdict = assert_fails(
        lesson27.check_text_of(spaced),
        "returned 'A   draft   on   tides.'; the top graph's model wrote 'A draft on tides.'. "
        "Yours joins its tokens with ' ': the spaces are tokens too.",
        hint="token.content",
    )
    assert "langgraph_node" not in verdict.hint
    assert "its own spaces" not in verdict.message + verdict.hint


def test_text_of_a_stub_is_told_it_read_no_part_not_why_it_found_no_tokens():
    """The notebook's stub (and one that returns None) was told "their parts' ns is ()",
    a cause guessed for code that read no part."""

    def no_return(parts, node, subgraph=None):
        for _part in parts:
            pass

    def not_written(parts, node, subgraph=None):
        raise NotImplementedError

    for stub, returned in ((stub_cells()["text_of"], "returned ''"), (no_return, "returned None")):
        verdict = assert_fails(
            lesson27.check_text_of(stub),
            f"text_of(parts, 'model', None) {returned} and read no part (its 'type', 'ns' "
            "or 'data'); the top graph's model wrote 'A draft on tides.'.",
            hint="First keep the messages parts: part['type'] == 'messages'",
        )
        assert "ns is" not in verdict.message
    verdict = assert_fails(lesson27.check_text_of(not_written), "raised NotImplementedError")
    assert "ns" not in verdict.message


def test_text_of_a_message_made_of_the_text_is_not_told_it_added_chunks():
    from langchain_core.messages import AIMessage

    def a_message(parts, node, subgraph=None):
        return AIMessage(content="".join(_text_tokens_list(parts, node, subgraph)))

    verdict = assert_fails(
        lesson27.check_text_of(a_message), "yours is a message; the text is its .content"
    )
    assert "chunk" not in verdict.message.split("not a string")[1]


def test_text_of_a_chunk_returned_is_told_its_content_is_the_text():
    def chunk(parts, node, subgraph=None):
        want = () if subgraph is None else (subgraph,)
        added = None
        for p in parts:
            if p["type"] != "messages" or p["data"][1]["langgraph_node"] != node:
                continue
            if tuple(e.split(":")[0] for e in p["ns"]) == want:
                added = p["data"][0] if added is None else added + p["data"][0]
        return added if added is not None else ""

    assert_fails(
        lesson27.check_text_of(chunk),
        "yours is its tokens added up, a message chunk; the text is its .content",
        hint="token.content",
    )


def _answer_with_a_dict(app, input, config, decide):
    output = app.invoke(input, config, version="v2")
    while output.interrupts:
        output = app.invoke({"resume": decide(output.interrupts[0].value)}, config, version="v2")
    return output.value


def _answer_without_v2(app, input, config, decide):
    output = app.invoke(input, config)
    while output.interrupts:
        output = app.invoke(Command(resume=decide(output.interrupts[0].value)), config)
    return output.value


def test_answer_all_verdicts_name_the_difference():
    """A dict given to resume was told its loop "kept an old output"; a v1 invoke read as
    a GraphOutput was told only its AttributeError."""
    verdict = assert_fails(
        lesson27.check_answer_all(_answer_with_a_dict),
        "each time from the start (write ran again): a dict given to invoke is an input",
    )
    assert "old output" not in verdict.message
    assert_fails(
        lesson27.check_answer_all(_answer_without_v2),
        "With 2 interrupts, your code raised AttributeError: 'dict' object has no attribute "
        "'interrupts': invoke without version='v2' returns the state, a dict",
        hint="version='v2'",
    )


def _answer_from_the_state(app, input, config, decide):
    output = app.invoke(input, config, version="v2")
    state = output.value
    while state.interrupts:  # (the interrupts are the GraphOutput's, not the state's)
        output = app.invoke(
            Command(resume=decide(output.interrupts[0].value)), config, version="v2"
        )
        state = output.value
    return state


def _answer_from_get_state(app, input, config, decide):
    output = app.invoke(input, config, version="v2")
    while output.interrupts:
        output = app.invoke(
            Command(resume=decide(output.interrupts[0].value)), config, version="v2"
        )
    return app.get_state(config).values.value


def _answer_v1_read_at_the_end(app, input, config, decide):
    output = app.invoke(input, config)
    while "__interrupt__" in output:
        output = app.invoke(Command(resume=decide(output["__interrupt__"][0].value)), config)
    return output.value


@pytest.mark.parametrize(
    "answer", [_answer_from_the_state, _answer_from_get_state], ids=["state", "get_state"]
)
def test_answer_all_a_dict_read_as_an_output_after_a_v2_invoke_is_not_told_to_use_v2(answer):
    """A dict's AttributeError for .value or .interrupts was taken for a v1 invoke's
    output: these invoked with version='v2' and were told to."""
    verdict = lesson27.check_answer_all(answer)
    assert not verdict.passed
    assert "invoke without version='v2'" not in verdict.message, verdict.message


def test_answer_all_a_v1_output_read_as_one_at_the_end_is_told_so():
    assert_fails(
        lesson27.check_answer_all(_answer_v1_read_at_the_end),
        "no attribute 'value': invoke without version='v2' returns the state",
        hint="version='v2'",
    )


def _answer_all_v1(app, input, config, decide):
    output = app.invoke(input, config)
    while "__interrupt__" in output:
        output = app.invoke(Command(resume=decide(output["__interrupt__"][0].value)), config)
    return output


@pytest.mark.parametrize(
    ("answer", "ran"),
    [
        (solutions.answer_all, "with invoke(..., version='v2')."),
        (_answer_all_streamed, "with stream(..., version='v2')."),
        (_answer_all_v1, "with invoke(...), without version='v2'."),
        (_answer_by_state, "with invoke(..., version='v2')."),
    ],
    ids=["solution", "streamed", "v1 key", "get_state"],
)
def test_answer_all_passes_say_how_the_answer_ran_the_graph(answer, ran):
    """Every pass said "every interrupt it met in GraphOutput.interrupts", untrue of a loop
    that read them from a streamed values part, a v1 '__interrupt__' key or get_state."""
    message = assert_passes(lesson27.check_answer_all(answer)).message
    assert "GraphOutput.interrupts" not in message
    assert message.endswith(f"It ran and resumed the graph {ran}"), message


def test_answer_all_run_again_without_a_resume_is_not_told_the_run_went_on():
    """invoke(None, config) runs the paused review again, which asks again (LangGraph 1.2
    does the same): it was told "while the run had gone on, to a pause at review: your
    loop kept an old output"."""

    def with_none(app, input, config, decide):
        output = app.invoke(input, config, version="v2")
        while output.interrupts:
            decide(output.interrupts[0].value)
            output = app.invoke(None, config, version="v2")
        return output.value

    verdict = assert_fails(
        lesson27.check_answer_all(with_none),
        "again and again: review ran 7 times and asked each time, run again with no answer "
        "to resume it (an input of None runs the paused node again); a resume is "
        "Command(resume=...).",
    )
    assert "gone on" not in verdict.message and "old output" not in verdict.message


def test_answer_all_restarting_from_the_input_without_deciding_is_told_so_not_timed_out():
    """A loop that invokes with the input again while the output has interrupts (no
    decide, no resume) never ends: it met the check's time limit, whose verdict speaks
    of a loop in general, after 15 seconds."""

    def answer_all(app, input, config, decide):
        out = app.invoke(input, config, version="v2")
        while out.interrupts:
            out = app.invoke(input, config, version="v2")
        return out.value

    verdict = lesson27.check_answer_all(answer_all)
    assert not verdict.passed
    assert "write ran 21 times" in verdict.message, verdict.message
    assert "started the run again from its input" in verdict.message
    assert "Command(resume=" in verdict.hint


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_a_runs_first_values_part_is_the_state_it_starts_from(library):
    """What the lesson says of the first values part: the input on a new thread; on a
    resume, a run given None or a checkpoint's config, the saved state; for a new input
    on a thread that has run, the saved state with the input written in."""
    graph = pytest.importorskip(f"{library}.graph")
    types_ = pytest.importorskip(f"{library}.types")
    memory = pytest.importorskip(f"{library}.checkpoint.memory")
    builder = graph.StateGraph(lesson27.Desk)
    builder.add_node("plan", lambda state: {"pages": ["moon.html"]})
    builder.add_node("approve", lambda state: {"answer": types_.interrupt("publish?")})
    builder.add_edge(graph.START, "plan")
    builder.add_edge("plan", "approve")
    app = builder.compile(checkpointer=memory.InMemorySaver())
    config = {"configurable": {"thread_id": "1"}}

    def first(command, config=config):
        parts = list(app.stream(command, config, stream_mode="values", version="v2"))
        return parts[0]  # (read after the whole stream: a stream left unread stops its run)

    assert first({"question": "Tides?"})["data"] == {"question": "Tides?"}
    saved = app.get_state(config)
    assert first(None)["data"] == saved.values  # (it pauses again, where it was)
    assert first(types_.Command(resume="Twice."))["data"] == saved.values
    asked = first({"question": "Moon?"})["data"]
    assert asked == {**saved.values, "question": "Moon?", "answer": "Twice."}
    assert first(None, saved.config)["data"] == saved.values


def test_the_lesson_says_the_first_values_part_is_the_input_only_on_a_new_thread():
    """It said the first values part is the input, in its summary's table, with no more:
    a resumed run's is the state saved at the pause."""
    import json

    text = " ".join(
        " ".join("".join(cell["source"]).split())
        for cell in json.loads(LESSON.read_text())["cells"]
        if cell["cell_type"] == "markdown"
    )
    assert "(the first is the input)" not in text
    assert "your input on a new thread, the saved state on a resume" in text
    assert "A resumed stream starts with a values part too, and it is not an input" in text


def test_answer_all_resuming_with_the_bare_answer_is_told_to_wrap_it():
    """Found by a learner's review: invoke(decide(...)) made the answer the run's input;
    the error said to pass a dict of state keys, with no hint of Command(resume=...)."""

    def answer_all(app, input, config, decide):
        output = app.invoke(input, config, version="v2")
        while output.interrupts:
            output = app.invoke(decide(output.interrupts[0].value), config, version="v2")
        return output.value

    assert_fails(
        lesson27.check_answer_all(answer_all), "as the run's input", hint="Command(resume="
    )
