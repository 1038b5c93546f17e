"""Explanation, Answer, Reason: the data behind run.why(), as text and as HTML."""

from __future__ import annotations

from html.parser import HTMLParser

from graphkit.inspect.explanation import Answer, Explanation, Reason, explanation_html


def make(summary="a ran at step 1 because x.", ran=True, node="a", step=1):
    reasons = (Reason("edge", "first reason", 0, "branch:to:a", ("b",)), Reason("raised", "boom"))
    return Explanation(node, step, (Answer(node, step, ran, summary, reasons),))


def test_str_is_the_summary_then_one_line_per_reason():
    assert str(make()) == "a ran at step 1 because x.\n  - first reason\n  - boom"


def test_properties():
    explanation = make()
    assert explanation.ran
    assert explanation.kinds == ["edge", "raised"]
    assert explanation.summary == "a ran at step 1 because x."
    assert repr(explanation) == "Explanation(node='a', step=1, ran=True)"
    assert explanation.answers[0].kinds == ["edge", "raised"]


def test_several_answers_one_per_step(seed_run):
    explanation = seed_run.why("__start__")
    assert [answer.step for answer in explanation.answers] == [0]
    assert explanation.step is None


def test_html_escapes_and_colours_by_outcome():
    class Tags(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags = []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)

    html = explanation_html(make(summary="<script>x</script>", node="<b>"))
    parser = Tags()
    parser.feed(html)
    assert "script" not in parser.tags
    assert "&lt;script&gt;x&lt;/script&gt;" in html
    assert "#d55e00" in html  # a reason of kind "raised": vermillion
    not_run = explanation_html(make(ran=False))
    assert "#d55e00" in not_run  # still vermillion: the answer mentions an error
    plain = Explanation("a", 2, (Answer("a", 2, False, "a did not run", ()),))
    assert "#0072b2" in plain._repr_html_()


def test_printed_explanations_and_diffs_escape_control_characters():
    from graphkit.inspect.diff import StateDiff
    from graphkit.inspect.explanation import Answer, Explanation, Reason

    name = "news\x1b[2J\nEXECUTE  fake"
    reason = Reason("wrote", f"{name} wrote x")
    text = str(Explanation(name, 1, (Answer(name, 1, True, f"{name} ran", (reason,)),)))
    assert "\x1b" not in text and "\\x1b[2J\\nEXECUTE" in text
    assert len(text.splitlines()) == 2  # the newline in the name fakes no row
    diff = str(StateDiff(0, 1, {name: (1, 2)}))
    assert "\x1b" not in diff and len(diff.splitlines()) == 2
