"""A prediction's reveal as an HTML card (``gk-reveal``): right or wrong, then what
happened, its reasons a list as ``why``'s card shows them.

The explanation is text first (``print(prediction)``, the widget's box): its first line
says what the step did, a line ``- node …`` gives a node's reason and ``    · …`` the
evidence under it. The card had shown that text as it is, dashes and dots included,
beside ``why``'s bulleted card for the same reasons.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphkit.inspect.markup import escape

if TYPE_CHECKING:
    from graphkit.widgets.predict import Prediction

__all__ = ["OTHERWISE", "prediction_html", "reveal_body", "reveal_card"]

OTHERWISE = "← you predicted otherwise"
"""The mark of a node guessed wrong, at the end of its reason; never broken in two."""

_LIST = '<ul style="margin:2px 0;padding-left:18px">'
_LINE = ' style="white-space:pre-wrap"'  # (a value's own spaces kept, as the text has them)


def prediction_html(prediction: Prediction) -> str:
    """The reveal as an HTML card with the class ``gk-reveal``."""
    # The header already says right or wrong: the body starts with what happened.
    text = prediction.explanation.removeprefix("Right: ").removeprefix("Not quite: ")
    return reveal_card(prediction.correct, text, f" · step {prediction.step}")


def reveal_card(correct: bool, text: str, header: str = "") -> str:
    """A verdict card (class ``gk-reveal``): ✓ Right or ✗ Not quite, ``header`` after it,
    then ``text`` as ``reveal_body`` lays it out. Shared by the debugger's predictions and
    the course's own predict-then-reveal questions.

    >>> reveal_card(False, "It sent 4.").count("gk-reveal-wrong")
    1
    """
    outcome = "right" if correct else "wrong"
    accent = "#0072b2" if correct else "#d55e00"
    mark = "✓ Right" if correct else "✗ Not quite"
    return (
        f'<div class="gk-reveal gk-reveal-{outcome}" style="border-left:4px solid {accent};'
        'padding:6px 10px;margin:4px 0;background:rgba(127,127,127,0.08);overflow-wrap:anywhere">'
        f"<b>{mark}</b>{escape(header)}"
        f'<div style="font-size:13px;line-height:1.45">{reveal_body(text)}</div></div>'
    )


def reveal_body(text: str) -> str:
    """``text``'s lines as HTML: ``- a`` a list item, ``    · b`` an item of a list
    under the item before it, any other line a line of its own (escaped, all of them).

    >>> html = reveal_body("step 2 runs a, b.\\n- a runs <here>\\n    · because\\n- b runs\\nDone.")
    >>> print(html.replace(_LIST, "<ul>").replace(_LINE, ""))
    <div>step 2 runs a, b.</div><ul><li>a runs &lt;here&gt;<ul><li>because</li></ul></li><li>b runs</li></ul><div>Done.</div>
    """  # noqa: E501
    parts: list[str] = []
    items: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        evidence = line.lstrip(" ")
        if line.startswith("- "):
            items.append((line[2:], []))
        elif evidence.startswith("· ") and line != evidence and items:
            items[-1][1].append(evidence[2:])
        else:
            parts.append(_items_html(items))
            items = []
            parts.append(f"<div{_LINE}>{escape(line)}</div>")
    parts.append(_items_html(items))
    return "".join(parts)


def _items_html(items: list[tuple[str, list[str]]]) -> str:
    if not items:
        return ""
    html = []
    for text, evidence in items:
        under = "".join(f"<li>{escape(e)}</li>" for e in evidence)
        said = escape(text).replace(
            OTHERWISE, f'<span style="white-space:nowrap">{OTHERWISE}</span>'
        )
        html.append(f"<li>{said}{_LIST + under + '</ul>' if under else ''}</li>")
    return _LIST + "".join(html) + "</ul>"
