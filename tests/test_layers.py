"""The layers' import rules, read from the source (nothing is imported).

The core (``graphkit.pregel``, ``graphkit.graph``, ``graphkit.channels``) never imports
the layers that read its records — ``graphkit.inspect``, ``graphkit.render``,
``graphkit.widgets`` — not even inside a function; and no chain of imports leads from
a core module back to itself. Imports under ``if TYPE_CHECKING:`` are left out: they
never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "graphkit"
CORE = (
    "graphkit.pregel",
    "graphkit.graph",
    "graphkit.channels",
    "graphkit.streaming",
    "graphkit.diagnostics",
)
"""The runtime and the streaming layer on top of it."""
READERS = ("graphkit.inspect", "graphkit.render", "graphkit.widgets")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {
    module_name(path): path
    for path in sorted(PACKAGE.rglob("*.py"))
    if "__pycache__" not in path.parts
}
"""Every module of graphkit, by dotted name (a package by its ``__init__``)."""


def in_package(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == package or name.startswith(package + ".") for package in packages)


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def runtime_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node`` except the bodies of ``if TYPE_CHECKING:`` blocks."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and is_type_checking(child.test):
            for other in child.orelse:
                yield other
                yield from runtime_nodes(other)
            continue
        yield child
        yield from runtime_nodes(child)


def imports(name: str) -> Iterator[tuple[str, int]]:
    """``(imported module, line)`` for each import ``name`` makes at run time.

    ``from a.b import c`` imports the module ``a.b.c`` when there is one, else (a name
    defined by ``a.b``) the module ``a.b``. ``importlib.import_module("a.b")`` counts.
    """
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in runtime_nodes(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield (submodule if submodule in MODULES else base), node.lineno
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.args[0].value, node.lineno


def core_modules() -> list[str]:
    return [name for name in MODULES if in_package(name, CORE)]


def test_the_core_has_modules_to_check():
    assert len(core_modules()) > 10
    assert "graphkit.pregel.records" in core_modules()


def test_the_core_never_imports_the_layers_that_read_its_records():
    offences = [
        f"{MODULES[name].relative_to(ROOT)}:{line} imports {imported}"
        for name in core_modules()
        for imported, line in imports(name)
        if in_package(imported, READERS)
    ]
    assert not offences, (
        "The core must not import inspect, render or widgets (they attach their methods "
        "when graphkit is imported; see graphkit/inspect/methods.py):\n" + "\n".join(offences)
    )


def import_graph() -> dict[str, dict[str, int]]:
    """Each graphkit module -> the graphkit modules it imports (with the line)."""
    graph: dict[str, dict[str, int]] = {}
    for name in MODULES:
        edges = graph.setdefault(name, {})
        for imported, line in imports(name):
            if imported in MODULES and imported != name:
                edges.setdefault(imported, line)
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One cycle per strongly connected component that has one (Tarjan's algorithm,
    then the shortest way round from the component's first module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    components: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph[node]:
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return [shortest_cycle(graph, component) for component in sorted(components)]


def shortest_cycle(graph: dict[str, dict[str, int]], component: list[str]) -> list[str]:
    start, members = component[0], set(component)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for target in sorted(graph[node]):
                if target == start:
                    return [*paths[node], start]
                if target in members and target not in paths:
                    paths[target] = [*paths[node], target]
                    following.append(target)
        frontier = following
    raise AssertionError(f"{component} is not strongly connected")


def describe(graph: dict[str, dict[str, int]], cycle: list[str]) -> str:
    steps = [f"{a} (line {graph[a][b]})" for a, b in pairwise(cycle)]
    return " -> ".join([*steps, cycle[-1]])


def core_cycles() -> list[str]:
    """The import cycles that go through a core module (a cycle may leave the core:
    pregel -> checkpoint -> pregel counts)."""
    graph = import_graph()
    found = cycles(graph)
    return [describe(graph, c) for c in found if any(in_package(m, CORE) for m in c)]


def test_cycles_are_found_and_described():
    graph = {"a": {"b": 3}, "b": {"c": 5, "d": 1}, "c": {"a": 7}, "d": {}}
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert describe(graph, ["a", "b", "c", "a"]) == "a (line 3) -> b (line 5) -> c (line 7) -> a"


def test_the_core_has_no_import_cycle():
    found = core_cycles()
    assert not found, "Import cycles through the core (each module, the line of its import):\n" + (
        "\n".join(found)
    )


# -- function size (issue 13) -----------------------------------------------------------

LONG_SIGNATURES = {
    "graphkit/graph/state.py:StateGraph.add_node",
    "graphkit/graph/state.py:StateGraph.compile",
    "graphkit/pregel/app.py:CompiledGraph.__init__",
    "graphkit/pregel/app.py:CompiledGraph.stream",
    "graphkit/pregel/lowlevel.py:Pregel.__init__",
}
"""Functions allowed more than 6 parameters: LangGraph's own signatures, and
``CompiledGraph.__init__``, which takes ``compile``'s keyword arguments by name."""


def functions(path: Path) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Each function of a module, named ``Class.method`` or ``function``."""

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, Any]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield f"{prefix}{child.name}", child
                yield from walk(child, f"{prefix}{child.name}.")

    yield from walk(ast.parse(path.read_text()), "")


def test_no_core_function_is_over_60_lines_or_6_parameters():
    text_of = {}
    too_long, too_many = [], []
    for folder in ("graph", "channels", "pregel", "streaming"):
        for path in sorted((PACKAGE / folder).glob("*.py")):
            lines = text_of.setdefault(path, path.read_text().splitlines())
            where = path.relative_to(ROOT).as_posix()
            for name, function in functions(path):
                body = lines[function.lineno - 1 : function.end_lineno]
                if sum(1 for line in body if line.strip()) > 60:
                    too_long.append(f"{where}:{name}")
                arguments = function.args
                every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
                count = sum(arg.arg not in ("self", "cls") for arg in every)
                count += bool(arguments.vararg) + bool(arguments.kwarg)
                if count > 6 and f"{where}:{name}" not in LONG_SIGNATURES:
                    too_many.append(f"{where}:{name} ({count} parameters)")
    assert too_long == [], "over 60 non-blank lines"
    assert too_many == [], "over 6 parameters"


# -- who changes the live state (issue 13) ----------------------------------------------


def step_state_fields() -> frozenset[str]:
    """The fields ``StepState`` declares in phases.py."""
    tree = ast.parse(MODULES["graphkit.pregel.phases"].read_text())
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "StepState"]
    return frozenset(
        n.target.id
        for n in cls.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    )


STEP_STATE_FIELDS = step_state_fields()


def step_state_writes(source: str) -> list[int]:
    """Lines that assign (or mutate in place) a field of something named ``state``."""

    def names_state(node: ast.expr) -> bool:
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
        return name in ("state", "_state")

    def field_of_state(node: ast.expr) -> bool:
        while isinstance(node, ast.Subscript):
            node = node.value
        return (
            isinstance(node, ast.Attribute)
            and node.attr in STEP_STATE_FIELDS
            and names_state(node.value)
        )

    def unpacked(target: ast.expr) -> list[ast.expr]:
        if isinstance(target, ast.Tuple | ast.List):
            return [t for element in target.elts for t in unpacked(element)]
        return [target]

    lines = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):  # (``a.x, b.y = ...`` too)
            targets = [t for target in node.targets for t in unpacked(target)]
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            mutators = ("add", "discard", "update", "pop", "clear", "append", "setdefault")
            if node.func.attr in mutators:
                targets = [node.func.value]
        lines += [node.lineno for target in targets if field_of_state(target)]
    return sorted(lines)


def test_only_phases_changes_a_step_state():
    assert {"channels", "versions", "step", "checkpoint", "live_volatile"} <= STEP_STATE_FIELDS
    example = "state.step -= 1\nx = state.step\nself._state.live_volatile.add(k)\n"
    example += "state.channels[k] = c\nwork.state = s\na, state.checkpoint = 1, 2\n"
    assert step_state_writes(example) == [1, 3, 4, 6]
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for name, path in MODULES.items()
        if name != "graphkit.pregel.phases"
        for line in step_state_writes(path.read_text())
    ]
    assert not found, "StepState changed outside phases.py (add a named operation):\n" + (
        "\n".join(found)
    )
