"""Griffe extension for the API reference: fence the docstrings' doctests as ``pycon``.

graphkit's docstrings put their (tested) examples right after the summary, without an
"Examples:" section; rendered as Markdown, ``[a for a in b]`` would read as a link.
"""

import re

import griffe

PROMPT = re.compile(r"^\s*>>>")


def fence_doctests(text: str) -> str:
    """Wrap each run of ``>>>`` lines and their output (up to a blank line) in a fence."""
    out: list[str] = []
    in_block = False
    for line in text.splitlines():
        if not in_block and PROMPT.match(line):
            out.append("```pycon")
            in_block = True
        elif in_block and not line.strip():
            out.append("```")
            in_block = False
        out.append(line)
    if in_block:
        out.append("```")
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
