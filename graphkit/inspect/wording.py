"""The phrases ``why`` answers share: who wrote when, and what a router chose.

Kept apart from the reasoning (``why``, ``why_not``) so that each answer is built
from the same words, and so that the words can be tested alone.
"""

from __future__ import annotations

import difflib

from graphkit.inspect.values import join_names

__all__ = ["both", "choices", "router_choice", "sentence", "spelling", "who_when", "wrote_in"]


def both(writers: tuple[str, ...]) -> str:
    """``both a and b`` for two names, else ``a``, ``a, b and c``.

    >>> both(("news", "weather")), both(("a",))
    ('both news and weather', 'a')
    """
    return f"both {join_names(writers)}" if len(writers) == 2 else join_names(writers)


def who_when(sources: tuple[str, ...], wrote: dict[str, int]) -> str:
    """``both a and b wrote in step 2`` / ``a wrote in step 1, d wrote in step 3``.

    >>> who_when(("a", "d"), {"a": 1, "d": 3})
    'a wrote in step 1, d wrote in step 3'
    """
    by_step: dict[int, list[str]] = {}
    for source in sources:
        if source in wrote:
            by_step.setdefault(wrote[source], []).append(source)
    parts = [f"{both(tuple(names))} wrote in step {n}" for n, names in sorted(by_step.items())]
    return ", ".join(parts) if parts else "none has written yet"


def wrote_in(writers: tuple[str, ...], channel: str, steps: list[int]) -> str:
    """Who wrote ``channel``, and in which step(s).

    >>> wrote_in(("a",), "branch:to:x", [1])
    'a wrote branch:to:x in step 1'
    >>> wrote_in(("a", "b"), "branch:to:x", [1, 3])
    'a and b wrote branch:to:x (in steps 1 and 3)'
    """
    if len(steps) <= 1:
        return f"{both(writers)} wrote {channel} in step {steps[0] if steps else '?'}"
    return f"{join_names(writers)} wrote {channel} (in steps {join_names(map(str, steps))})"


def choices(chosen: tuple[str, ...], dropped: tuple[str, ...]) -> str:
    """What a router chose, in words (``dropped``: the names that are not nodes).

    >>> choices(("search", "citations"), ("citations",))
    "'search' and 'citations' (not a node)"
    >>> choices(("Billing",), ("Billing",)), choices((), ()), choices(("a", "b"), ())
    ("'Billing', which is not a node", 'END (no node)', 'a and b')
    """
    if not chosen:
        return "END (no node)"
    if not dropped:
        return join_names(chosen)
    if len(chosen) == 1:
        return f"{chosen[0]!r}, which is not a node"
    # A name that is no node is quoted, as the string the router returned; quote the
    # names beside it too, or "search and 'citations'" reads as two kinds of thing.
    return join_names([_returned(name, dropped) for name in chosen])


def _returned(name: str, dropped: tuple[str, ...]) -> str:
    if name.startswith("a Send to "):  # (a Send is no returned name: it stays as it is)
        return name
    return f"{name!r} (not a node)" if name in dropped else repr(name)


def spelling(node: str, dropped: tuple[str, ...]) -> str:
    """What to check when a name a router returned looks like ``node`` misspelt.

    >>> spelling("billing", ("Billing",)), spelling("cite", ("citations",))
    ('Node names are case-sensitive', 'Check the spelling')
    >>> spelling("support", ("Billing",))
    ''
    """
    for name in dropped:
        if name.lower() == node.lower():
            return "Node names are case-sensitive"
        same_start = min(len(name), len(node)) >= 3 and name[:3].lower() == node[:3].lower()
        if same_start or difflib.get_close_matches(name, [node], n=1, cutoff=0.6):
            return "Check the spelling"
    return ""


def router_choice(
    ran: str,
    chosen: tuple[str, ...],
    dropped: tuple[str, ...],
    node: str | tuple[str, ...],
    when: str = "",
) -> tuple[str, str]:
    """A router that did not choose ``node`` (or any of several nodes): the reason's
    text, and the summary's words for the choice. ``ran`` starts the text ("check ran
    in step 1 and its router 'route'"); ``when`` is the step for a one-step answer
    (" in step 1"), empty for the whole run.

    >>> text, choice = router_choice("t ran at step 1, and its router 'r'", ("Billing",),
    ...                              ("Billing",), "billing")
    >>> choice
    "'Billing', which is not a node; did you mean billing?"
    >>> router_choice("c ran in step 1 and its router 'r'", ("small",), (), "big", " in step 1")
    ("c ran in step 1 and its router 'r' chose small, not big.", 'small in step 1, not big')
    >>> router_choice("p ran at step 1, and its router 'r'", ("a",), (), ("b", "c"))[0]
    "p ran at step 1, and its router 'r' chose a, never b or c."
    """
    nodes = (node,) if isinstance(node, str) else node
    choice, negation = choices(chosen, dropped), "not" if when else "never"
    hints = {name: spelling(name, dropped) for name in nodes}
    meant = [name for name in nodes if hints[name]]
    passed = join_names([name for name in nodes if not hints[name]], "or")
    tail = f"; did you mean {join_names(meant)}?" if meant else f", {negation} {passed}"
    if not dropped:
        return f"{ran} chose {choice}, {negation} {passed}.", f"{choice}{when}{tail}"
    them = "it" if len(chosen) == 1 else join_names([repr(name) for name in dropped])
    # one "did you mean" per kind of slip, then the nodes no returned name looks like
    by_hint: dict[str, list[str]] = {}
    for name in meant:
        by_hint.setdefault(hints[name], []).append(name)
    advice = [f"{hint}: did you mean {join_names(names)}?" for hint, names in by_hint.items()]
    if passed:
        advice.append(f"It did not choose {passed}." if when else f"It never chose {passed}.")
    text = (
        f"{ran} returned {choice}, so nothing ran for {them} (the runtime drops such a "
        f"choice, with a warning). {' '.join(advice)}"
    )
    return text, f"{choice}{when}{tail}"


def sentence(text: str) -> str:
    """End ``text`` with a full stop, unless it is a question."""
    return text if text.endswith("?") else text + "."
