"""Looking at a ``DebugSession``: which superstep the view shows (``goto``), which node
it explains (``select``, ``called``), where Step and Run pause (``set_breakpoints``),
and the view itself, as plain data or as a standalone HTML page.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable
from typing import TYPE_CHECKING, Any

from graphkit.constants import END
from graphkit.diagnostics import some_names
from graphkit.diagnostics.names import near_miss
from graphkit.diagnostics.reading import index_number
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
    _story: Any  # (DebugSession's: a step numbered as the labels tell it)

    # -- looking ------------------------------------------------------------------------

    @notifies
    def goto(self, index: int) -> None:
        """Show ``supersteps[index]`` (the slider): looking only, nothing runs or is
        restored; the next control goes back to the live step."""
        count, index = len(self.supersteps), index_number(index, "goto")
        if not 0 <= index < count:
            raise IndexError(self._no_position("goto", index, self.supersteps))
        self.shown = None if index == count - 1 else index

    def _no_position(self, method: str, index: int, steps: Any) -> str:
        """Why ``method(index)`` found no superstep among ``steps``: the positions it
        takes, and the one meant when ``index`` was a step number (as labels tell it)."""
        what = "superstep" if method == "goto" else "applied step"
        if not steps:  # (rewind's: a step planned, not applied, is recorded, not applied)
            none = (
                "nothing is recorded" if method == "goto" else "no step's Update has been applied"
            )
            return (
                f"No {what} at index {index}: {none} yet. Step the session first (session.step())."
            )
        numbers = [self._story(superstep.step) for superstep in steps]
        among = "in the recorded run" if method == "goto" else "among the applied steps"
        last = len(steps) - 1
        said = (
            f"No {what} at index {index}: {method}() takes a position {among}, 0 to "
            f"{last} (steps {numbers[0]} to {numbers[-1]})"
        )
        if index < 0:  # (Python's "from the end" is not taken)
            said += f", not counted from the end (the last is {method}({last}))"
        if index not in numbers:
            return f"{said}."
        meant = "show" if method == "goto" else "go back to just after"
        return f"{said}; to {meant} step {index}, write {method}({numbers.index(index)})."

    @notifies
    def select(self, node: str | None) -> None:
        """Choose the node whose "why did / didn't it run" the view explains, or a
        functional-API task that was called (see ``called``)."""
        if node is not None and not isinstance(node, str):  # (a list: "unhashable type")
            one = next(iter(node), None) if isinstance(node, (list, tuple)) else None
            fix = f": write {one!r}" if isinstance(one, str) else ""
            raise TypeError(f"select() takes one node's name, got {node!r}{fix}.")
        if node is not None and node not in self.app.spec.nodes and node not in self.called():
            slip = near_miss(node, [*self.app.spec.nodes, *self.called()])
            raise ValueError(
                f"No node {node!r}, nor a task called so far: the nodes are "
                f"{some_names(self.app.spec.nodes)}, the tasks called so far "
                f"{some_names(self.called())}." + (f" Did you mean {slip!r}?" if slip else "")
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
        known = self.app.spec.nodes
        names = list(nodes) if isinstance(nodes, Iterable) else None
        if names is None or not all(isinstance(name, Hashable) for name in names):
            raise TypeError(_not_a_list(nodes, known))
        unknown = sorted(set(names) - set(known), key=repr)
        if unknown:
            notes = [_no_breakpoint(name, known, len(unknown) > 1) for name in unknown]
            also = "; ".join(note for note in notes if note)
            raise ValueError(
                f"No node named {unknown}{f' ({also})' if also else ''}; breakpoints go on "
                f"nodes: {some_names(known)}."
            )
        self.breakpoints = frozenset(names)

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


def _not_a_list(nodes: Any, known: Collection[str]) -> str:
    """What ``set_breakpoints`` says of ``nodes`` that is no list of names."""
    said = f"breakpoints take a list of node names, got {nodes!r}"
    if nodes is None:
        return f"{said}: write [] for none."
    inner = [n for part in nodes for n in part] if isinstance(nodes, (list, tuple)) else []
    if inner and all(isinstance(part, (list, tuple)) for part in nodes):
        return f"{said}: write {inner!r}."
    mine = [name for name in sorted(known) if not name.startswith("__")]
    return f"{said}: write e.g. {mine[:1]!r}." if mine else f"{said}."


def _no_breakpoint(name: Any, known: Collection[str], several: bool) -> str:
    """Why a breakpoint cannot go on ``name``, which is no node, and the node meant."""
    if name in (END, "END"):
        return (
            "END is where a run stops, not a node that runs: put the breakpoint on the "
            "node before it"
        )
    slip = near_miss(name, known)
    if not slip:
        return ""
    return f"for {name!r}, did you mean {slip!r}?" if several else f"did you mean {slip!r}?"
