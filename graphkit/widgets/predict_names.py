"""Names a learner may predict as a step's nodes that are not the graph's nodes: the
tools a ``ToolNode`` runs, the nodes of a subgraph a node runs as one task, and the
``@task`` functions an entrypoint (or a node) calls while it runs."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from graphkit.func.task import TaskFunction
from graphkit.widgets.story import story_steps

if TYPE_CHECKING:
    from graphkit.widgets.session import DebugSession

__all__ = [
    "called_task",
    "inner_node",
    "subgraph_nodes_run_by",
    "tasks_called_by",
    "tools_run_by",
]


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


def tasks_called_by(session: DebugSession) -> dict[str, str]:
    """The ``@task`` functions the nodes of ``session``'s graph call, with the node that
    calls each: those its records show called so far, and those the nodes' code names
    (a learner predicts ``fetch`` at step 0, before ``weather`` has called it)."""
    found: dict[str, str] = {}
    for superstep in story_steps(session):
        for result in superstep.execution.results if superstep.execution else ():
            caller = _caller(superstep, result.task)
            if result.task.kind == "call" and caller is not None:
                found.setdefault(result.task.node, caller)
    nodes = getattr(session.app.spec, "nodes", {})
    for name, node in nodes.items():
        for called in _tasks_named_in(getattr(node, "call", None)):
            found.setdefault(called, name)
    return {name: caller for name, caller in found.items() if name not in nodes}


def _caller(superstep: Any, task: Any) -> str | None:
    results = superstep.execution.results if superstep.execution else ()
    return next((r.task.node for r in results if r.task.id == task.parent), None)


def _tasks_named_in(root: Any, depth: int = 6) -> list[str]:
    """The names of the ``@task`` functions ``root``'s code refers to (by a global name
    or from its closure, in nested functions and comprehensions too), and theirs."""
    found: list[str] = []
    seen: set[int] = set()
    todo = [(root, depth)]
    while todo:
        value, left = todo.pop()
        if id(value) in seen or left < 0:
            continue
        seen.add(id(value))
        if isinstance(value, TaskFunction):
            found.append(value.name)
            todo.append((value.func, left))
        elif isinstance(value, types.FunctionType):
            todo += [(v, left - 1) for v in _referred(value)]
    return found


def _referred(func: types.FunctionType) -> list[Any]:
    """The functions ``func``'s code refers to: its closure's, and the globals it names."""
    referred = [cell.cell_contents for cell in func.__closure__ or () if _has(cell)]
    codes = [func.__code__]
    names: set[str] = set()
    while codes:  # (a comprehension, a nested def: code objects of their own)
        code = codes.pop()
        names.update(code.co_names)
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    referred += [func.__globals__[name] for name in sorted(names) if name in func.__globals__]
    return [v for v in referred if isinstance(v, TaskFunction | types.FunctionType)]


def _has(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:  # (a cell not yet filled)
        return False
    return True


def called_task(task: str, caller: str, step: int, caller_runs: bool) -> str:
    """The line for a ``@task`` predicted as one of the nodes a Plan plans.

    >>> print(called_task("fetch", "weather", 0, True))
    - fetch is a @task, not a node: no Plan plans it. weather, which step 0 runs, calls it during step 0's Execute; each call is a task of step 0 too (kind call, started_by weather), made by the call, not by the Plan.
    """  # noqa: E501
    if caller_runs:
        when, where = (
            f"{caller}, which step {step} runs, calls it during step {step}'s Execute",
            f"step {step} too",
        )
    else:
        when, where = f"{caller} calls it while {caller} runs", f"{caller}'s step"
    return (
        f"- {task} is a @task, not a node: no Plan plans it. {when}; each call is a task "
        f"of {where} (kind call, started_by {caller}), made by the call, not by the Plan."
    )
