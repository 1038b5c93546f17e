"""Tests of lesson 11: each check passes on its solution and fails, saying why, on typical
wrong answers and on the notebook's stub; and every claim the lesson makes about the
chunks a stream sends holds on LangGraph too (the lesson's own graph cells, run on both
libraries)."""

from __future__ import annotations

import json
import re
import sys
import types
from pathlib import Path
from typing import TypedDict

import pytest

from graphkit import get_stream_writer
from graphkit.course import lesson11, streamview
from graphkit.course.solutions import lesson11 as solution
from tests.conformance.harness import normalise_stream, tidy

NOTEBOOK = Path(__file__).parents[2] / "notebooks" / "11-streaming.ipynb"
CELLS = {cell["id"]: "".join(cell["source"]) for cell in json.loads(NOTEBOOK.read_text())["cells"]}

# -- 11.1 · Report progress -----------------------------------------------------------------


def test_progress_passes_on_its_solution():
    verdict = lesson11.check_progress(solution.fetch)
    assert verdict.passed, verdict


def test_progress_passes_saying_what_the_consumer_of_3_pages_saw():
    # The check runs 3 pages, then 2: its pass said "sent 2 chunks" to a learner whose
    # consumer printed 3 lines.
    message = lesson11.check_progress(solution.fetch).message
    assert "sent 2 chunks" not in message
    assert "one chunk per page (3, then 2)" in message


def stub_fetch(state: dict) -> dict:
    return {}


def test_progress_fails_on_the_stub():
    verdict = lesson11.check_progress(stub_fetch)
    assert not verdict.passed
    assert verdict.message == "On 3 pages your node sent no custom chunk."
    assert "get_stream_writer()" in verdict.hint


def test_progress_fails_when_the_progress_goes_into_the_state():
    def returns_it(state):
        return {"fetched": len(state["pages"])}

    verdict = lesson11.check_progress(returns_it)
    assert "reaches a consumer in the updates chunk sent once fetch has finished" in (
        verdict.message
    )


def test_progress_fails_when_counting_from_0_or_sending_one_list():
    def from_zero(state):
        writer, pages = get_stream_writer(), state["pages"]
        for i in range(len(pages)):
            writer(f"fetched {i} of {len(pages)}")
        return {"fetched": len(pages)}

    verdict = lesson11.check_progress(from_zero)
    assert "the custom stream sent ['fetched 0 of 3', 'fetched 1 of 3'" in verdict.message
    assert "counting from 1" in verdict.hint

    def all_at_once(state):
        n = len(state["pages"])
        get_stream_writer()([f"fetched {i} of {n}" for i in range(1, n + 1)])
        return {"fetched": n}

    verdict = lesson11.check_progress(all_at_once)
    assert "sent [['fetched 1 of 3'" in verdict.message


def test_progress_fails_on_a_hard_coded_count_and_a_wrong_return():
    def three(state):
        writer = get_stream_writer()
        for i in (1, 2, 3):
            writer(f"fetched {i} of 3")
        return {"fetched": 3}

    verdict = lesson11.check_progress(three)
    assert verdict.message.startswith("On 2 pages the custom stream sent")

    def of_three(state):
        writer, pages = get_stream_writer(), state["pages"]
        for i, _ in enumerate(pages, 1):
            writer(f"fetched {i} of 3")  # one per page, from 1: only the total is typed in
        return {"fetched": len(pages)}

    verdict = lesson11.check_progress(of_three)
    assert verdict.message.startswith("On 2 pages the custom stream sent")
    # the hint names what is wrong (the total), not what the learner did right
    assert "counting from 1" not in verdict.hint and "len(pages)" in verdict.hint

    def no_return(state):
        writer, pages = get_stream_writer(), state["pages"]
        for i in range(1, len(pages) + 1):
            writer(f"fetched {i} of {len(pages)}")
        return {}

    verdict = lesson11.check_progress(no_return)
    # the stream carries {'fetch': None} for a node that returned {} as for one that returned
    # None: the verdict must not say None of a node whose code says {}
    assert "The progress is right, but fetch wrote nothing" in verdict.message
    assert "returned None" not in verdict.message

    def wrong_key(state):
        writer, pages = get_stream_writer(), state["pages"]
        for i in range(1, len(pages) + 1):
            writer(f"fetched {i} of {len(pages)}")
        return {"fetched": 0}

    verdict = lesson11.check_progress(wrong_key)
    assert "The progress is right, but fetch returned {'fetched': 0}" in verdict.message


def _fetching(send, returned):
    def fetch(state):
        writer, pages = get_stream_writer(), state["pages"]
        for i in range(1, len(pages) + 1):
            writer(send(f"fetched {i} of {len(pages)}"))
        return returned(state)

    return fetch


def test_progress_passes_a_return_that_also_gives_back_the_pages_unchanged():
    verdict = lesson11.check_progress(
        _fetching(str, lambda state: {"fetched": len(state["pages"]), "pages": state["pages"]})
    )
    assert verdict.passed, verdict
    # (changing the pages is not harmless: the state no longer holds what was fetched)
    verdict = lesson11.check_progress(
        _fetching(str, lambda state: {"fetched": len(state["pages"]), "pages": []})
    )
    assert not verdict.passed
    assert "'pages': []" in verdict.message


def test_progress_sent_as_dicts_is_told_to_send_the_text_itself():
    verdict = lesson11.check_progress(
        _fetching(lambda text: {"progress": text}, lambda state: {"fetched": len(state["pages"])})
    )
    assert not verdict.passed
    # (one chunk per page, from 1, it did: what is wrong is each chunk's type)
    assert "counting from 1" not in verdict.hint
    assert "the text itself" in verdict.hint


# -- 11.2 · Which mode answers it? ------------------------------------------------------------


def test_modes_passes_on_its_solution():
    assert lesson11.check_modes(solution.MODES).passed


def test_modes_fails_on_the_stub():
    verdict = lesson11.check_modes({"a": None, "b": None, "c": None, "d": None})
    assert verdict.message.startswith("No mode for a yet")


def test_modes_says_what_a_wrong_mode_sends():
    verdict = lesson11.check_modes({**solution.MODES, "a": "updates"})
    assert "you chose 'updates', which sends {node: what it returned}" in verdict.message
    assert "it sent 2 chunks, the first {'drafter': {'draft':" in verdict.message
    verdict = lesson11.check_modes({**solution.MODES, "b": "values"})
    assert "For b ('Move a progress bar" in verdict.message
    verdict = lesson11.check_modes({**solution.MODES, "d": "stream"})
    assert verdict.message == "'stream' (for d) is no stream mode."
    assert not lesson11.check_modes(["messages"]).passed


def test_modes_says_why_checkpoints_sent_nothing_and_what_debug_sent():
    # "no chunk at all (its nodes write nothing for it, or it needs a checkpointer)"
    # guessed between two causes; debug's first chunk was cut after its timestamp.
    verdict = lesson11.check_modes({**solution.MODES, "d": "checkpoints"})
    assert "no chunk at all: duo_graph() has no checkpointer" in verdict.message
    assert "its nodes write nothing" not in verdict.message
    verdict = lesson11.check_modes({**solution.MODES, "c": "debug"})
    assert "timestamp" not in verdict.message
    assert "4 chunks: task drafter, task_result drafter, task reviewer" in verdict.message


def test_modes_hints_name_only_the_modes_the_exercise_offers():
    """The exercise offers four modes; its hints listed all seven (debug, tasks, ...)."""
    offered = re.findall(r'`"(\w+)"`', CELLS["l11-c39"])
    assert offered == ["values", "updates", "custom", "messages"]
    for choices in ({"a": None}, {"a": "mess"}):
        hint = lesson11.check_modes(choices).hint
        named = [mode for mode in lesson11._SENDS if f'"{mode}"' in hint]
        assert named == offered, hint


# -- 11.3 · One node's tokens -----------------------------------------------------------------


def stub_tokens_of(stream, node):
    text = ""
    for _message, _metadata in stream:
        pass
    return text


def test_tokens_of_passes_on_its_solution():
    assert lesson11.check_tokens_of(solution.tokens_of).passed


def test_tokens_of_fails_on_the_stub_and_on_every_token():
    verdict = lesson11.check_tokens_of(stub_tokens_of)
    assert "returned ''; reviewer's model wrote 'Clear, but cite a source on tides.'" in (
        verdict.message
    )
    verdict = lesson11.check_tokens_of(lambda stream, node: "".join(m.content for m, _ in stream))
    assert "every token of the stream, drafter's and reviewer's" in verdict.message


def test_tokens_of_fails_on_a_list_and_on_the_wrong_key():
    def as_list(stream, node):
        return [m.content for m, meta in stream if meta["langgraph_node"] == node]

    verdict = lesson11.check_tokens_of(as_list)
    assert "returned list" in verdict.message and "not a string" in verdict.message

    def wrong_key(stream, node):
        return "".join(m.content for m, meta in stream if meta.get("node") == node)

    assert "metadata['langgraph_node']" in lesson11.check_tokens_of(wrong_key).hint


def test_tokens_of_joined_with_spaces_is_told_the_tokens_carry_their_own():
    def spaced(stream, node):
        return " ".join(m.content for m, meta in stream if meta["langgraph_node"] == node)

    verdict = lesson11.check_tokens_of(spaced)
    assert not verdict.passed
    # (it kept the right node's chunks: the verdict must not tell it to keep them)
    assert "keep the asked node's chunks" not in verdict.hint
    assert '"".join' in verdict.hint


def test_the_notebooks_stubs_are_the_ones_tested():
    assert "return {}" in CELLS["l11-c37"] and "pass  # your code here" in CELLS["l11-c45"]
    assert '"a": None, "b": None' in CELLS["l11-c41"]


def test_tokens_of_fails_on_the_reviewers_text_written_out():
    """The review names the topic, so the text of the first topic, returned for any stream,
    fails on the second."""

    def constant(stream, node):
        if node == "reviewer":
            return "Clear, but cite a source on tides."
        return solution.tokens_of(stream, node)

    verdict = lesson11.check_tokens_of(constant)
    assert not verdict.passed
    assert "reviewer's model wrote 'Clear, but cite a source on eclipses.'" in verdict.message


# -- the lesson's claims, on LangGraph too ---------------------------------------------------


def _library(name: str) -> dict:
    """The namespace the lesson's graph cells run in, with ``graphkit``'s names taken
    from ``name`` ("graphkit" or "langgraph")."""
    if name == "graphkit":
        return {}
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.config import get_stream_writer as writer
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Command, Send, interrupt

    shim = types.ModuleType("lesson11_langgraph")
    shim.__dict__.update(
        END=END, START=START, StateGraph=StateGraph, get_stream_writer=writer,
        Command=Command, Send=Send, interrupt=interrupt, InMemorySaver=InMemorySaver,
    )  # fmt: skip
    sys.modules["lesson11_langgraph"] = shim
    return {"shim": True}


def _cells(name: str, *ids: str) -> dict:
    namespace: dict = {}
    shim = _library(name)
    for cell_id in ids:
        source = CELLS[cell_id]
        if shim:
            source = source.replace("from graphkit import", "from lesson11_langgraph import")
            source = source.replace(
                "from graphkit.checkpoint import", "from lesson11_langgraph import"
            )
        lines = source.splitlines()
        # (the definitions: a cell's demo, the loop printing chunks, is run by the tests)
        end = next((i for i, line in enumerate(lines) if line.startswith(DEMO)), len(lines))
        code = compile("\n".join(lines[:end]), cell_id, "exec", dont_inherit=True)
        exec(code, namespace)
    return namespace


DEMO = ("for ", "thread = ")


LIBRARIES = ["graphkit", "langgraph"]


@pytest.fixture(scope="module", params=LIBRARIES)
def lesson(request):
    return request.param, _cells(request.param, "l11-c03", "l11-c23", "l11-c34")


def stream(app, *args, **kwargs):
    return list(app.stream(*args, **kwargs))


def test_values_sends_the_input_then_one_chunk_per_update_and_invoke_is_the_last(lesson):
    _, ns = lesson
    chunks = stream(ns["report"], ns["TOPIC"], stream_mode="values")
    assert len(chunks) == 4  # Q1
    assert chunks[0] == {"topic": "tides", "notes": []}
    assert chunks[-1] == ns["report"].invoke(ns["TOPIC"])


def test_updates_come_in_finishing_order_and_the_update_in_task_order(lesson):
    _, ns = lesson
    chunks = stream(ns["report"], ns["TOPIC"], stream_mode="updates")
    assert [next(iter(c)) for c in chunks] == ["outline", "quotes", "facts", "write"]  # Q2
    values = stream(ns["report"], ns["TOPIC"], stream_mode="values")
    assert values[2]["notes"] == ["outline of tides", "3 facts", "2 quotes"]  # Q3


def test_custom_and_messages_are_sent_while_the_task_runs(lesson):
    _, ns = lesson
    modes = ["custom", "updates", "values"]
    order = [
        (m, c if m != "values" else len(c))
        for m, c in stream(ns["report"], ns["TOPIC"], stream_mode=modes)
    ]
    assert order[:5] == [
        ("values", 2), ("custom", "outlining tides"), ("custom", "outline ready"),
        ("updates", {"outline": {"notes": ["outline of tides"]}}), ("values", 2),
    ]  # fmt: skip
    chunks = stream(ns["report"], ns["TOPIC"], stream_mode=["messages", "updates", "values"])
    tokens = [c for m, c in chunks if m == "messages"]
    assert "".join(message.content for message, _ in tokens) == "Tides follow the moon."
    assert len(tokens) == 7
    assert {(meta["langgraph_node"], meta["langgraph_step"]) for _, meta in tokens} == {
        ("write", 3)
    }
    after = [m for m, _ in chunks[[m for m, _ in chunks].index("messages") :]]
    assert after == ["messages"] * 7 + ["updates", "values"]


def test_updates_of_a_none_node_send_tasks_and_an_interrupt(lesson):
    _, ns = lesson
    thread = {"configurable": {"thread_id": "t"}}
    chunks = stream(ns["batch"], {"items": [1, 2]}, thread, stream_mode="updates")
    assert chunks[:3] == [{"split": None}, {"work": {"out": [10]}}, {"work": {"out": [20]}}]
    assert (
        list(chunks[3]) == ["__interrupt__"] and chunks[3]["__interrupt__"][0].value == "approve?"
    )
    resumed = stream(ns["batch"], ns["Command"](resume=True), thread, stream_mode="updates")
    assert resumed == [{"ask": {"ok": True}}]
    values = stream(
        ns["batch"], {"items": [3]}, {"configurable": {"thread_id": "u"}}, stream_mode="values"
    )
    assert len(values) == 3  # split's step writes no state key: no chunk
    assert values[-1]["__interrupt__"][0].value == "approve?"  # the paused run's last chunk


def test_the_batch_cells_chunks_print_without_a_line_cut_mid_word(capsys):
    """The interrupt chunk printed whole was 112 characters, and the notebook cut it inside
    a word (``response_schema=Non`` / ``e),)}``): each line it prints fits 80."""
    namespace: dict = {}
    exec(compile(CELLS["l11-c03"], "l11-c03", "exec", dont_inherit=True), namespace)
    capsys.readouterr()
    exec(compile(CELLS["l11-c23"], "l11-c23", "exec", dont_inherit=True), namespace)
    printed = capsys.readouterr().out
    assert "'__interrupt__'" in printed and "approve?" in printed
    assert max(len(line) for line in printed.splitlines()) <= 80, printed


def test_the_list_of_modes_prints_without_a_line_cut_mid_word(capsys):
    """The last values chunk printed whole was 108 characters, and JupyterLab cut it
    inside a word (``Tides follow th`` / ``e moon.``): each line fits 88, and a chunk's
    next line starts under the chunk, past the mode."""
    namespace: dict = {}
    exec(compile(CELLS["l11-c03"], "l11-c03", "exec", dont_inherit=True), namespace)
    capsys.readouterr()
    exec(compile(CELLS["l11-c25"], "l11-c25", "exec", dont_inherit=True), namespace)
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 88, lines
    assert lines[-1] == " " * 9 + "'draft': 'Tides follow the moon.'}"
    assert [line.split()[0] for line in lines if not line.startswith(" ")] == [
        "values", "custom", "custom", "updates", "values", "updates", "updates", "values",
        "updates", "values",
    ]  # fmt: skip


def test_a_write_that_keeps_the_value_still_sends_a_values_chunk(lesson):
    if lesson[0] == "langgraph":
        from langgraph.graph import START, StateGraph
    else:
        from graphkit import START, StateGraph
    builder = StateGraph(Same)
    builder.add_node("same", lambda state: {"x": state["x"]})
    builder.add_edge(START, "same")
    assert stream(builder.compile(), {"x": 1}, stream_mode="values") == [{"x": 1}, {"x": 1}]


class Same(TypedDict):
    x: int


def test_tasks_checkpoints_and_subgraphs(lesson):
    _, ns = lesson
    saved = ns["builder"].compile(checkpointer=ns["InMemorySaver"]())
    config = {"configurable": {"thread_id": "r"}}
    lines = []
    for mode, chunk in saved.stream(ns["TOPIC"], config, stream_mode=["tasks", "checkpoints"]):
        if mode == "checkpoints":
            lines.append(("checkpoint", chunk["metadata"]["step"], tuple(chunk["next"])))
        else:
            lines.append(("result" if "result" in chunk else "start", chunk["name"]))
    assert lines[:5] == [
        ("checkpoint", -1, ("__start__",)), ("checkpoint", 0, ("outline",)),
        ("start", "outline"), ("result", "outline"), ("checkpoint", 1, ("facts", "quotes")),
    ]  # fmt: skip
    assert lines[-1] == ("checkpoint", 3, ())
    assert stream(ns["report"], ns["TOPIC"], stream_mode="checkpoints") == []
    sub = stream(ns["parent"], {"x": 0}, stream_mode="updates", subgraphs=True)
    assert [(tuple(p.split(":")[0] for p in n), c) for n, c in sub] == [
        (("child",), {"inc": {"x": 1}}), ((), {"child": {"x": 1}}), ((), {"after": {"x": 2}}),
    ]  # fmt: skip


def test_every_mode_sends_the_same_chunks_on_both_libraries():
    modes = ["values", "updates", "custom", "tasks", "debug"]
    seen = {}
    for name in LIBRARIES:
        ns = _cells(name, "l11-c03")
        chunks = stream(ns["report"], ns["TOPIC"], stream_mode=modes)
        seen[name] = normalise_stream(tidy(chunks))
    assert seen["graphkit"] == seen["langgraph"]


# -- the predict questions ---------------------------------------------------------------------


def test_the_predict_questions_are_answered_as_their_reveals_say():
    ns = _cells("graphkit", "l11-c03")
    app, topic = ns["report"], ns["TOPIC"]
    assert lesson11.predict(4, app, topic, "values").correct
    assert not lesson11.predict(3, app, topic, "values").correct
    order = ["outline", "quotes", "facts", "write"]
    assert lesson11.predict(order, app, topic, "updates").correct
    wrong = lesson11.predict(["outline", "facts", "quotes", "write"], app, topic, "updates")
    assert "came in this order: outline, quotes, facts, write" in wrong.explanation
    stub = lesson11.predict(None, app, topic, "values")
    assert not stub.correct and "4" not in stub.explanation
    assert "answer" not in CELLS["l11-c07"].lower()
    assert "'outline of tides', '3 facts', '2 quotes'" in CELLS["l11-c18"]


def test_a_guess_written_as_text_is_told_to_write_a_number_or_a_list():
    # predict("4") answered "You said '4'. The stream sent 4 values chunks" under a ✗,
    # the quotes the only difference; one string of names was told only the order.
    ns = _cells("graphkit", "l11-c03")
    app, topic = ns["report"], ns["TOPIC"]
    reveal = lesson11.predict("4", app, topic, "values")
    assert not reveal.correct
    assert "Your guess is text: write the number without quotes." in reveal.explanation
    reveal = lesson11.predict("outline quotes facts write", app, topic, "updates")
    assert not reveal.correct
    assert "Your guess is one string: write a list of node names" in reveal.explanation
    reveal = lesson11.predict(3, app, topic, "values")  # a number is told nothing of text
    assert "text" not in reveal.explanation


def test_predict_names_nodes_whose_names_hold_quotes():
    from graphkit import START, StateGraph

    class Notes(TypedDict, total=False):
        notes: str

    builder = StateGraph(Notes)
    builder.add_node("o'brien", lambda state: {"notes": "seen"})
    builder.add_node('say "hi"', lambda state: {"notes": "said"})
    builder.add_edge(START, "o'brien")
    builder.add_edge("o'brien", 'say "hi"')
    reveal = lesson11.predict(["o'brien", 'say "hi"'], builder.compile(), {}, "updates")
    assert reveal.correct, reveal.explanation
    assert reveal.expected == ["o'brien", 'say "hi"']


def test_by_phase_runs_a_checkpointed_graph_on_fresh_threads_and_shows_the_pause():
    ns = _cells("graphkit", "l11-c03", "l11-c23")
    for _ in range(2):  # a second call starts from the input again, not from the pause
        rows = streamview.chunk_rows(ns["batch"], {"items": [1, 2]}, ["updates", "values"])
        assert [(r["step"], r["phase"], r["mode"]) for r in rows][-3:] == [
            (3, "Plan", ""), (3, "Paused", "updates"), (3, "Paused", "values"),
        ]  # fmt: skip
        assert rows[-2]["records"] == "the run paused in step 3: ask ran"
        assert [r["chunk"] for r in rows if r["mode"] == "updates"][:3] == [
            "{'split': None}", "{'work': {'out': [10]}}", "{'work': {'out': [20]}}",
        ]  # fmt: skip


def test_by_phase_has_no_plan_row_for_step_0_and_the_text_says_why():
    # "A Plan row marks each step's start", above a table whose step 0 has none.
    ns = _cells("graphkit", "l11-c03")
    rows = streamview.chunk_rows(ns["report"], ns["TOPIC"], "values")
    assert [(r["step"], r["phase"]) for r in rows][:2] == [(0, "Update"), (1, "Plan")]
    said = " ".join(CELLS["l11-c10"].split())
    assert "Step 0 has none: its task, `__start__`, is the runtime's own" in said
    for name in LIBRARIES:  # no task chunk names __start__, on either library
        app = _cells(name, "l11-c03")["report"]
        named = [c["name"] for c in stream(app, {"topic": "tides"}, stream_mode="tasks")]
        assert "__start__" not in named and named[0] == "outline"


def test_predict_refuses_what_is_no_graph_by_name_and_reads_a_langgraph_app():
    # None, or the guess and the graph swapped, said "'NoneType' object has no attribute
    # 'trace'"; a compiled LangGraph graph, which every other entry point takes, too
    from typing import TypedDict

    from langgraph.graph import START, StateGraph

    from graphkit.inspect.examples import forecast_graph

    with pytest.raises(TypeError) as caught:
        streamview.predict(4, None, {"topic": "today"})
    assert str(caught.value).endswith(
        "predict() reads a graph made by StateGraph(...).compile(); for a builder, call "
        ".compile() first."
    )
    with pytest.raises(TypeError) as caught:
        streamview.predict(forecast_graph(), 4, {"topic": "today"})
    assert str(caught.value) == (
        "predict(guess, app, input) takes your guess first, then the graph: this call "
        "gave the graph first."
    )

    class Count(TypedDict):
        n: int

    builder = StateGraph(Count).add_node("inc", lambda state: {"n": state["n"] + 1})
    reveal = streamview.predict(2, builder.add_edge(START, "inc").compile(), {"n": 1})
    assert reveal.correct and reveal.expected == 2


def test_modes_given_as_a_list_for_one_need_is_told_to_give_one_mode():
    """A list of modes for one letter (as stream_mode accepts) crashed the check."""
    verdict = lesson11.check_modes({**solution.MODES, "a": ["messages"]})
    assert not verdict.passed
    assert verdict.check_error is None, verdict.message
    assert verdict.message.startswith("For a you gave ['messages']"), verdict.message
    assert '"messages"' in verdict.hint


def test_tokens_of_that_unpacks_a_mode_in_front_is_told_the_chunks_shape():
    """Reading a (mode, chunk) pair, as with a list of modes, raised "too many values to
    unpack" and the hint only said to run the answer on its own."""

    def tokens_of(stream, node):
        return "".join(m.content for mode, (m, meta) in stream if meta["langgraph_node"] == node)

    verdict = lesson11.check_tokens_of(tokens_of)
    assert not verdict.passed
    assert "too many values to unpack" in verdict.message, verdict.message
    assert "(message, metadata)" in verdict.hint, verdict.hint
    assert "list of modes" in verdict.hint, verdict.hint

    def whole_chunks(stream, node):  # (each chunk read as the message itself)
        return "".join(chunk.content for chunk in stream)

    verdict = lesson11.check_tokens_of(whole_chunks)
    assert "'tuple' object has no attribute 'content'" in verdict.message, verdict.message
    assert "(message, metadata)" in verdict.hint, verdict.hint
