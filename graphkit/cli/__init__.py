"""The ``graphkit`` command, in three small modules.

- ``parser``: the arguments, the help texts, and how the command exits (``main``);
- ``targets``: turning ``module:name`` into a compiled graph, or a one-line refusal;
- ``commands``: ``draw``, ``trace``, ``lessons`` and ``progress``, each returning the text
  to print.

Every error the command reports is one line on stderr that starts with ``graphkit: ``
(``fail``): exit code 2 for a command line argparse cannot read, 1 for anything else.
"""

from __future__ import annotations

from typing import NoReturn

from graphkit.render.text import terminal_text

__all__ = ["fail"]


def fail(message: str) -> NoReturn:
    r"""Stop the command with ``message`` as one line on stderr and exit code 1.

    Messages quote user code (names, errors), so control characters are escaped: a
    message can never span two lines or drive the terminal.

    >>> fail("no such file: a\nb.py")
    Traceback (most recent call last):
    SystemExit: graphkit: no such file: a\nb.py
    """
    raise SystemExit(f"graphkit: {terminal_text(message)}")
