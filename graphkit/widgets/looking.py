"""Looking at a ``DebugSession``: which superstep the view shows (``goto``), which node
it explains (``select``, ``called``), where Step and Run pause (``set_breakpoints``),
and the view itself, as plain data or as a standalone HTML page.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from graphkit.diagnostics import some_names
from graphkit.widgets.listeners import notifies

if TYPE_CHECKING:
    from graphkit.pregel.app import CompiledGraph
    from graphkit.widgets.export import Exported
    from graphkit.widgets.view import View

__all__ = ["Looking"]


class Looking:
    """Mixed into ``DebugSession``: what these methods need is its graph and the
    supersteps it keeps."""

    app: CompiledGraph
    breakpoints: frozenset[str]
    selected: str | None
    shown: int | None
    supersteps: Any

    # -- looking ------------------------------------------------------------------------

    @notifies
    def goto(self, index: int) -> None:
        """Show ``supersteps[index]`` (the slider): looking only, nothing runs or is
        restored; the next control goes back to the live step."""
        count = len(self.supersteps)
        if not 0 <= index < count:
            raise IndexError(f"No superstep at index {index}; there are {count}.")
        self.shown = None if index == count - 1 else index

    @notifies
    def select(self, node: str | None) -> None:
        """Choose the node whose "why did / didn't it run" the view explains, or a
        functional-API task that was called (see ``called``)."""
        if node is not None and node not in self.app.spec.nodes and node not in self.called():
            raise ValueError(
                f"No node {node!r}, nor a task called so far: the nodes are "
                f"{some_names(self.app.spec.nodes)}, the tasks called so far "
                f"{some_names(self.called())}."
            )
        self.selected = node

    def called(self) -> tuple[str, ...]:
        """The functional-API tasks called so far (by name, in the order first called):
        not nodes of the graph, but ``select`` takes them too.

        >>> from graphkit.func import entrypoint, task
        >>> from graphkit.widgets import DebugSession
        >>> shout = task(str.upper, name="shout")
        >>> greet = entrypoint()(lambda words: [shout(word).result() for word in words])
        >>> session = DebugSession(greet, ["hi", "yo"])
        >>> session.called()
        ()
        >>> session.run().values
        {'__end__': ['HI', 'YO']}
        >>> session.called()
        ('shout',)
        """
        names = (
            result.task.node
            for superstep in self.supersteps
            if superstep.execution is not None
            for result in superstep.execution.results
            if result.task.kind == "call"
        )
        return tuple(dict.fromkeys(names))

    @notifies
    def set_breakpoints(self, nodes: Iterable[str]) -> None:
        """Pause Step and Run before any step that would run one of ``nodes``."""
        if isinstance(nodes, str):  # (its letters would be taken for node names)
            raise TypeError(f"breakpoints take a list of node names: write [{nodes!r}]")
        nodes = frozenset(nodes)
        unknown = sorted(nodes - set(self.app.spec.nodes))
        if unknown:
            raise ValueError(
                f"No node named {unknown}; breakpoints go on nodes: "
                f"{some_names(self.app.spec.nodes)}."
            )
        self.breakpoints = nodes

    def view(self) -> View:
        """What to show now, as plain data (see ``graphkit.widgets.view``)."""
        from graphkit.widgets.view import build_view

        return build_view(self)

    def to_html(self) -> str:
        """The recorded run as one standalone HTML page (see ``export``)."""
        from graphkit.widgets.export import session_html

        return session_html(self)

    def export_html(self, path: Any) -> Exported:
        """Write ``to_html()`` to ``path``; the answer (shown by a cell) says how many
        frames were written and whether the run is unfinished, and why."""
        from graphkit.widgets.export import write_html

        return write_html(self, path)
