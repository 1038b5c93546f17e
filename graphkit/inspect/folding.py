"""Folding a long line of text output (``print(run)``, ``why``) to a width.

A line is broken at spaces, each line after the first indented. A word longer than a
line (a URL, a hash, a long name) is broken too, or a notebook or a terminal breaks it
at its edge with no sign of it: after a character that ends a part of it (``/``, ``?``,
``&``, ``=``, ``,``, ...) near the line's end when it has one, and each piece but the
last ends with ``↩``, so that the value reads as broken, not as ended. A terminal
(``graphkit trace``) folds at spaces only (``break_words=False``): it wraps a word too
long for it whole at its edge, so that copying or clicking a URL or a hash there gets
it unbroken, where a ``↩`` and a newline inside it would break the link.
"""

from __future__ import annotations

import textwrap

__all__ = ["CONTINUED", "fold"]

CONTINUED = "↩"
"""Ends the piece of a word broken to fit: the word goes on on the next line."""

_SAFE = "/?&=,;:.-_+)]}|"
"""Characters a long word is best broken after: where a URL, a path or a repr has
parts (a break right after one does not read as a cut through a name)."""


def fold(
    line: str, width: int | None, indent: int, first: str = "", *, break_words: bool = True
) -> list[str]:
    """``line`` as lines of ``width`` characters at most (None: one line), broken at
    spaces, each after the first indented by ``indent`` (at most half the width, so a
    long name leaves its text room) and the first by ``first``; a word longer than a
    line is broken as the module says, or, with ``break_words=False``, kept whole on a
    line of its own.

    >>> fold("see https://example.com/a/very/long/path?x=1", 20, 4)
    ['see', '    https://example↩', '    .com/a/very/↩', '    long/path?x=1']
    >>> fold("see https://example.com/a/very/long/path?x=1", 20, 4, break_words=False)
    ['see', '    https://example.com/a/very/long/path?x=1']
    >>> fold("a b", None, 4)
    ['a b']
    """
    if width is None or len(first) + len(line) <= width:
        return [first + line]
    rest = " " * min(indent, width // 2)
    lines = textwrap.wrap(
        line,
        width,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    )
    if not break_words:
        return lines
    return [piece for wrapped in lines for piece in _broken(wrapped, width, rest)]


def _broken(line: str, width: int, rest: str) -> list[str]:
    """``line`` (one a long word kept past ``width``) in pieces that fit, each but the
    last marked ``CONTINUED``, each after the first indented by ``rest``."""
    pieces = []
    # (a piece holds at least half of the room after the indent: no run of tiny pieces)
    while len(line) > width:
        end = width - len(CONTINUED)
        start = max(len(rest), len(line) - len(line.lstrip(" "))) + 1
        floor = start + (end - start) // 2
        cut = max((at + 1 for at in range(floor, end) if line[at] in _SAFE), default=end)
        if cut <= start:  # (no room past the indent: a width too small to fold into)
            break
        # (no strip: the word holds no ASCII space, and a no-break or other Unicode
        # space at a cut is part of the value: stripped, the value would read changed)
        pieces.append(line[:cut] + CONTINUED)
        line = rest + line[cut:]
    pieces.append(line)
    return pieces
