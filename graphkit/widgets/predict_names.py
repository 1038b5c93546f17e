"""Names a learner may predict as a step's nodes that are not the graph's nodes: the
tools a ``ToolNode`` runs, and the nodes of a subgraph a node runs as one task."""

from __future__ import annotations

from typing import Any

__all__ = ["inner_node", "subgraph_nodes_run_by", "tools_run_by"]


def tools_run_by(app: Any) -> dict[str, str]:
    """The tools each ``ToolNode`` of ``app`` holds, with the node that runs them (a
    learner who read a model's tool call may predict the tool as the node that runs)."""
    declared = getattr(getattr(app, "builder", None), "nodes", None) or {}
    found = {}
    for name, declaration in declared.items():
        tools = getattr(getattr(declaration, "action", None), "tools_by_name", None)
        if isinstance(tools, dict):
            found.update(dict.fromkeys(tools, name))
    return found


def subgraph_nodes_run_by(app: Any) -> dict[str, tuple[str, ...]]:
    """The nodes of each subgraph of ``app`` (lesson 05's ``research``), nested ones
    too, with the path of nodes that runs it (``("research", "deep")``): the parent
    plans the path's first node, one task, whatever runs inside."""
    subgraphs = app.get_subgraphs(recurse=True) if hasattr(app, "get_subgraphs") else ()
    paths = sorted(
        ((tuple(path.split("|")), graph) for path, graph in subgraphs),
        key=lambda found: len(found[0]),  # (a name in two subgraphs: the shallower one)
    )
    found: dict[str, tuple[str, ...]] = {}
    for path, graph in paths:
        inner = getattr(getattr(graph, "builder", None), "nodes", None) or {}
        found.update({node: path for node in inner if node not in found})
    return found


def inner_node(node: str, path: tuple[str, ...]) -> str:
    """The note for a subgraph's node predicted as one of the graph's.

    >>> inner_node("look_up", ("research",))
    'look_up is a node of the subgraph that the node research runs, as one task'
    >>> inner_node("dig", ("research", "deep"))
    'dig is a node of a subgraph inside the node research (research → deep → dig), which runs as one task'
    """  # noqa: E501
    if len(path) == 1:
        return f"{node} is a node of the subgraph that the node {path[0]} runs, as one task"
    chain = " → ".join((*path, node))
    return (
        f"{node} is a node of a subgraph inside the node {path[0]} ({chain}), which runs "
        "as one task"
    )
