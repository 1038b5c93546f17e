"""How a message names what the learner wrote, and the name they probably meant.

Shared by the builder's messages (``building``, ``schemas``), the routers'
(``returns``) and ``validate`` (``graph``), so that each reads a slip the same way: a
function is shown by its name, not by a repr with an address; the string "END" means
the constant END; "bgu" is "bug" with two letters swapped.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection
from typing import Any

from graphkit.constants import END, START
from graphkit.diagnostics import some_names


def shown(value: Any) -> str:
    """``value`` as a message shows it: a function, a class or a named runnable by its
    name (what the learner wrote), not by a repr with a memory address; else its repr.

    >>> def route(state): ...
    >>> shown(route), shown("a"), shown(("a", route))
    ('route', "'a'", "('a', route)")
    """
    if isinstance(value, tuple):
        inner = ", ".join(map(shown, value))
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return f"[{', '.join(map(shown, value))}]"
    name = getattr(value, "__name__", None) or getattr(value, "name", None)
    if callable(value) and isinstance(name, str) and name.isidentifier():
        return name
    return "lambda state: ..." if name == "<lambda>" else repr(value)


def names_in_text(text: str, known: Collection[str]) -> list[str]:
    """The names of ``known`` that ``text`` holds when it is several of them written as
    one text ("left, right", "left right"): a list of them was meant. Else ``[]``.

    >>> names_in_text("left, right", ["left", "right"]), names_in_text("left", ["left"])
    (['left', 'right'], [])
    >>> names_in_text("left and right", ["left", "right"])
    []
    """
    parts = [part for part in re.split(r"[,\s]+", text) if part]
    return parts if len(parts) > 1 and set(parts) <= set(known) else []


def not_a_node_name(value: Any, known: Collection[str]) -> str:
    """What to do about ``value`` given where a node's name goes (a function, a list,
    None...): a node is named by a string.

    >>> def shout(state): ...
    >>> not_a_node_name(shout, ["shout"])
    "nodes are named by strings: write 'shout', not the function shout itself"
    >>> not_a_node_name(shout, [])
    "nodes are named by strings: add_node('shout', shout) first, then write 'shout'"
    """
    name = getattr(value, "__name__", None) or getattr(value, "name", None)
    if callable(value) and isinstance(name, str) and name.isidentifier():
        kind = "class" if isinstance(value, type) else "function"
        if name in known:
            return f"nodes are named by strings: write {name!r}, not the {kind} {name} itself"
        return f"nodes are named by strings: add_node({name!r}, {name}) first, then write {name!r}"
    if value is None:
        return "to end the run there, use END (from graphkit import END)"
    if isinstance(value, (list, tuple, set, frozenset)):
        return (
            "one node is named by one string; for several nodes, add an edge to each "
            "(they run in the same step)"
        )
    return f"a node's name is a string, not {type(value).__name__}"


def constant_meant(name: Any) -> str:
    """``"END"`` or ``"START"`` when ``name`` spells one of them as a plain string (a
    learner's ``"END"`` for the constant, whose value is ``"__end__"``), else ``""``."""
    if not isinstance(name, str) or name in (END, START):
        return ""
    spelt = name.strip("_ ").upper()
    return spelt if spelt in ("END", "START") else ""


def _use_the_constant(name: str, verb: str = "use") -> str:
    constant = constant_meant(name)
    value, purpose = (END, "end the run") if constant == "END" else (START, "start the run")
    return (
        f"to {purpose}, {verb} the constant {constant} (from graphkit import {constant}), "
        f"whose value is {value!r}, not the string {name!r}"
    )


def into_start(target: Any, known: Collection[str]) -> str:
    """For an edge's end or a path map's value that is START, or spells it (``"START"``)
    and is no slip for a node: no edge leads into START, so neither the constant nor a
    node of that name helps; say how to go back to the beginning instead. Else ``""``.

    >>> into_start("START", ["plan"])[:50]
    'nothing runs into START (a run enters there once, '
    >>> into_start("start", ["Start"]), into_start("plan", [])
    ('', '')
    """
    if target != START and (constant_meant(target) != "START" or near_miss(target, known)):
        return ""
    return (
        "nothing runs into START (a run enters there once, with its input); to go back "
        "to the beginning, name the node START leads to"
    )


def near_miss(name: Any, known: Collection[str]) -> str:
    """The known name ``name`` is probably a slip for (case or spelling), or ``""``."""
    if not isinstance(name, str):
        return ""
    same_case = [node for node in known if node.lower() == name.lower()]
    # two letters swapped ("bgu" for "bug") is a common slip that difflib rates low
    swapped = [node for node in sorted(known) if _one_swap(name.lower(), node.lower())]
    close = same_case or swapped or difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    return close[0] if close else ""


def _one_swap(typed: str, known: str) -> bool:
    """Whether ``typed`` is ``known`` with two neighbouring letters swapped.

    >>> _one_swap("bgu", "bug"), _one_swap("bug", "bug"), _one_swap("gub", "bug")
    (True, False, False)
    """
    if len(typed) != len(known) or typed == known:
        return False
    differ = [i for i, (a, b) in enumerate(zip(typed, known, strict=True)) if a != b]
    return (
        len(differ) == 2
        and differ[1] == differ[0] + 1
        and typed[differ[0]] == known[differ[1]]
        and typed[differ[1]] == known[differ[0]]
    )


def constant_or_slip(name: Any, known: Collection[str], verb: str = "use") -> str:
    """For ``name`` spelling START or END: use the constant, or, when it is also a slip
    for a node, both: a node spelt the same but for case (``"end"`` for ``"End"``) first,
    another near name (``"end"`` for ``"send"``) after the constant; else ``""``.

    >>> constant_or_slip("end", ["End"])[:56]
    "did you mean 'End'? Or, to end the run, use the constant"
    >>> constant_or_slip("END", ["End"])[-45:]
    "not the string 'END' (or did you mean 'End'?)"
    >>> constant_or_slip("end", ["send"])[-46:]
    "not the string 'end' (or did you mean 'send'?)"
    """
    if not constant_meant(name):
        return ""
    constant, slip = _use_the_constant(name, verb), near_miss(name, known)
    # "END" is the constant's own name: the constant comes first, as for any other slip
    if slip and slip.lower() == name.lower() and name != constant_meant(name):
        return f"did you mean {slip!r}? Or, {constant}"
    return f"{constant} (or did you mean {slip!r}?)" if slip else constant


def unknown_node_fix(name: str, known: Collection[str]) -> str:
    """What to do about an edge to or from ``name``, which is not a node: use the
    constant START/END, fix a slip, or add the node.

    >>> unknown_node_fix("END", ["a"])[:56]
    'to end the run, use the constant END (from graphkit impo'
    >>> unknown_node_fix("news2", ["news_1", "news_2"]), unknown_node_fix("zzz", ["a"])
    ("did you mean 'news_2'? Otherwise add_node('news2', ...) first", "add_node('zzz', ...) first")
    """
    if not isinstance(name, str):
        return not_a_node_name(name, known)
    if constant := constant_or_slip(name, known):
        return constant
    if slip := near_miss(name, known):
        return f"did you mean {slip!r}? Otherwise add_node({name!r}, ...) first"
    return f"add_node({name!r}, ...) first"


def not_a_state_key(name: str, keys: Collection[str]) -> str:
    """``Update.change(name)`` for a name that is no state key of the graph."""
    close = near_miss(name, keys)
    meant = f"; did you mean {close!r}?" if close else "."
    return (
        f"Update.change({name!r}): {name!r} is not a state key of this graph (keys: "
        f"{some_names(keys)}){meant}"
    )
