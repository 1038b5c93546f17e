"""The records' notebook HTML: a card per superstep, phases side by side, all escaped."""

from __future__ import annotations

import operator
from html.parser import HTMLParser
from typing import Annotated, TypedDict

from graphkit import ChannelChange
from graphkit.channels import EMPTY
from graphkit.inspect.cards import change_items, code, run_html, superstep_html
from graphkit.inspect.markup import CODE_STYLE, MUTED

PLAN, EXECUTE, UPDATE, ERROR = "#0072b2", "#e69f00", "#009e73", "#d55e00"


class Page(HTMLParser):
    """The tags and the text of an HTML fragment, as a browser would parse them."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def test_every_record_has_an_html_repr(seed_run):
    superstep = seed_run.step(2)
    records = [
        superstep.plan,
        superstep.plan.tasks[0],
        superstep.execution,
        superstep.execution.results[0],
        superstep.update,
        superstep.update.changes[0],
        superstep,
        seed_run,
    ]
    for record in records:
        html = record._repr_html_()
        assert isinstance(html, str) and html.startswith("<div")
        assert "script" not in Page(html).tags


def test_superstep_card_has_the_three_phases_side_by_side_in_their_colours(seed_run):
    html = superstep_html(seed_run.step(2))
    assert "grid-template-columns:repeat(3,minmax(0,1fr))" in html
    titles = [text for text in Page(html).text if " · step 2" in text]
    assert titles == ["Plan · step 2", "Execute · step 2", "Update · step 2"]
    plan, execute, update = (
        html.index(f"border-top:3px solid {c}") for c in (PLAN, EXECUTE, UPDATE)
    )
    assert plan < execute < update
    text = "".join(Page(html).text)
    assert "news ← branch:to:news v3" in text
    assert "token_count 101 → 201 (news, weather · add)" in text
    assert "news <empty> → 'market up' (news)" in text  # a plain channel: no reducer shown
    assert "branch:to:news cleared" in text


def test_a_failed_step_is_red_and_its_update_skipped(failing_run):
    html = superstep_html(failing_run.step(1))
    text = "".join(Page(html).text)
    assert f"border-top:3px solid {ERROR}" in html
    assert "failed" in text and "skipped: a task failed, so no channel changed" in text
    assert "ValueError: bad <script>alert(1)</script>" in text  # as text ...
    assert "script" not in Page(html).tags  # ... never as a tag


def _conflicting_run():
    """Two parallel writes to a plain key: step 1's Update raises InvalidUpdateError."""
    from typing import TypedDict

    import pytest

    from graphkit import START, InvalidUpdateError, StateGraph

    class State(TypedDict):
        results: list

    builder = StateGraph(State)
    builder.add_node("a", lambda state: {"results": ["apple"]})
    builder.add_node("b", lambda state: {"results": ["banana"]})
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    with pytest.raises(InvalidUpdateError) as caught:
        builder.compile().trace({"results": []})
    return caught.value.run


def test_a_run_whose_update_failed_says_so_on_that_steps_card():
    # The run is over: its last step's Update is not "not applied yet", it failed.
    run = _conflicting_run()
    text = "".join(Page(run_html(run)).text)
    assert "not applied yet" not in text
    assert "failed: InvalidUpdateError, so no channel changed" in text
    html = superstep_html(run.step(1), update_error=run.error)
    assert "step 12 tasks · 0 channel changesfailed" in "".join(Page(html).text)
    assert f"border-top:3px solid {ERROR}" in html  # the Update column, in red
    assert f"border-top:3px solid {UPDATE}" not in html


def test_run_card_has_a_card_per_step_and_the_timeline(seed_run):
    html = run_html(seed_run)
    text = Page(html).text
    assert [t for t in text if t.strip()][:3] == ["Run", "5 supersteps ·", "done"]
    assert sum(1 for t in text if t.startswith("Plan · step")) == 5
    assert "svg" in Page(html).tags and "details" in Page(html).tags


def test_a_long_run_shows_its_first_and_last_steps(loop):
    run = loop.trace({"x": 0, "log": []}, {"recursion_limit": 2000})
    text = Page(run_html(run, max_steps=10)).text
    steps = [t for t in text if t.startswith("Plan · step")]
    assert steps[:5] == [f"Plan · step {n}" for n in (-1, 0, 1, 2, 3)]
    assert steps[5:] == [f"Plan · step {n}" for n in range(997, 1002)]
    assert "… 993 more steps: run.step(n) shows one" in text


def test_everything_the_run_produced_is_escaped(hostile_run, hostile):
    for html in (hostile_run._repr_html_(), *(s._repr_html_() for s in hostile_run.steps)):
        assert "<script" not in html
        assert "script" not in Page(html).tags
    text = Page(hostile_run._repr_html_()).text
    assert hostile in text  # the node name, as text
    assert f"RuntimeError: {hostile}" in text  # the error message, as text


def test_exact_html_of_small_pieces():
    assert code("<a & b>") == f'<span style="{CODE_STYLE}">&lt;a &amp; b&gt;</span>'
    cleared = ChannelChange("branch:to:a", None, EMPTY, 1, 2, (), (), "EphemeralValue")
    assert change_items(cleared) == (
        '<div style="margin:2px 0;overflow-wrap:anywhere">'
        f'<span style="{CODE_STYLE}" title="EphemeralValue, version 1 → 2">branch:to:a</span> '
        f'<span style="color:{MUTED}">cleared</span></div>'
    )


def test_long_values_are_shortened_with_the_longer_text_as_a_tooltip(make):
    def long(state):
        return {"log": ["x" * 500]}

    run = make([("long", long)], [("__start__", "long")]).trace({"x": 0, "log": []})
    html = superstep_html(run.step(1))
    assert "x" * 100 not in "".join(Page(html).text)
    assert 'title="[' in html


class Jokes(TypedDict, total=False):
    subjects: list
    jokes: Annotated[list, operator.add]


def test_each_send_task_shows_the_packet_it_was_sent():
    """Two Sends to one node read ``Send('joke', {'subject': 'dogs and thei…`` (cut at 40
    characters) in the Execute column, and their tasks ``joke ← __pregel_push`` alike in
    the Plan: which Send carried what could not be seen. Values are now cut as a readable
    table's cells are, and each push task shows its packet."""
    from graphkit import START, Send, StateGraph

    def sends(state: Jokes) -> list:
        audience = "the team"
        return [Send("joke", {"subject": s, "audience": audience}) for s in state["subjects"]]

    builder = StateGraph(Jokes).add_node("joke", lambda p: {"jokes": [p["subject"]]})
    app = builder.add_conditional_edges(START, sends, ["joke"]).compile()
    run = app.trace({"subjects": ["cats", "dogs and their owners"]})
    sent = "".join(Page(superstep_html(run.step(0))).text)
    assert "Send('joke', {'subject': 'dogs and their owners', 'audience…" in sent
    planned = "".join(Page(superstep_html(run.step(1))).text)
    assert "packet {'subject': 'cats', 'audience': 'the team'}" in planned
    assert "packet {'subject': 'dogs and their owners', 'audience': 'the team'}" in planned
