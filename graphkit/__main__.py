"""The ``graphkit`` command: draw a graph or trace a run without Jupyter.

    graphkit draw examples/seed.py:build_graph -o seed.svg     (or .dot, .mmd)
    graphkit trace examples/seed.py:build_graph --input '{"token_count": 1}'
    graphkit lessons ~/graphkit-course            (copy the course's lessons there)
    graphkit lessons build/course --force --run   (and run them, as CI does)
    graphkit --version

It lives in ``graphkit.cli`` (arguments and exit codes in ``parser``, ``module:name``
targets in ``targets``, the subcommands in ``commands``); ``graphkit --help`` shows
what each subcommand takes.
"""

from __future__ import annotations

from graphkit.cli.parser import main
from graphkit.cli.targets import load_graph

__all__ = ["load_graph", "main"]

if __name__ == "__main__":
    raise SystemExit(main())
