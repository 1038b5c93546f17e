"""``TARGET`` is ``module.path:name`` or ``path/to/file.py:name``; this turns it into a
compiled graph, or stops the command with a one-line message saying what is wrong.

The name may be a compiled graph, a ``StateGraph`` (compiled here), or a *graph
factory*: something callable that returns either. A factory must be called to know
what it returns, so a callable is refused *before* it is called when it clearly is not
one:

- a class (``State``, a schema): calling it builds an instance, not a graph;
- a function that needs an argument (``planner(state)``, a node): a factory takes none;
- a function whose return annotation names no graph type (``-> dict``): the annotation
  is read as text, and names a graph type if it contains ``Graph`` (``StateGraph``,
  ``CompiledGraph``, ``CompiledStateGraph``, ``"StateGraph | None"``) or is ``Any``.

Any other callable is called; if it raises, or returns something that is not a graph,
the command says so in one line, with where the error was raised.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
import sysconfig
import traceback
from pathlib import Path
from typing import Any

from graphkit.cli import fail
from graphkit.inspect.values import show_error

__all__ = ["factory_refusal", "load_graph"]

_POINT_AT = (
    "point at a compiled graph (graphkit's or LangGraph's), a StateGraph, or a function "
    "returning one"
)
# where the user's code is not: graphkit's own files and Python's standard library
_NOT_USER_CODE = ("<", str(Path(__file__).parent.parent), sysconfig.get_paths()["stdlib"])
_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def load_graph(target: str) -> Any:
    """Import ``target`` (``module:name`` or ``file.py:name``); return a compiled graph."""
    from graphkit.graph.state import StateGraph
    from graphkit.pregel.app import CompiledGraph

    location, _, name = target.rpartition(":")
    if not location or not name:
        fail(f"{target!r} is not MODULE:ATTR, e.g. examples/seed.py:build_graph")
    module = _import(location)
    try:
        value = getattr(module, name)
    except AttributeError:
        fail(f"{location} has no attribute {name!r}")
    if callable(value) and not isinstance(value, (CompiledGraph, StateGraph)):
        refusal = factory_refusal(name, value)
        if refusal is not None:
            fail(f"{refusal}; {_POINT_AT}")
        value = _guarded(f"calling {name}", value)
        if not isinstance(value, (CompiledGraph, StateGraph)):
            fail(f"{name} returned {_a(value)}, not a graph; {_POINT_AT}")
    if isinstance(value, StateGraph):
        value = _guarded(f"compiling {name}", value.compile)
    if type(value).__module__.startswith("langgraph"):  # a LangGraph graph, run on graphkit
        from graphkit.bridge.convert import as_graphkit

        value = _guarded(f"converting {name} from LangGraph", as_graphkit, value)
    if not isinstance(value, CompiledGraph):
        fail(f"{target} is {_a(value)}, not a graph; {_POINT_AT}")
    return value


def factory_refusal(name: str, value: Any) -> str | None:
    """Why the callable ``value`` is clearly not a graph factory, or None if it may be one.

    >>> def planner(state): ...
    >>> def helper() -> dict: ...
    >>> def build() -> "StateGraph": ...
    >>> factory_refusal("planner", planner), factory_refusal("helper", helper)
    ('planner needs an argument (state), so it is not a graph factory', 'helper returns dict, not a graph')
    >>> factory_refusal("build", build) is None, factory_refusal("dict", dict)
    (True, 'dict is a class, not a graph')
    """  # noqa: E501
    if inspect.isclass(value):
        return f"{name} is a class, not a graph"
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):  # some builtins have none: call them and see
        return None
    needed = [
        parameter.name
        for parameter in signature.parameters.values()
        if parameter.default is parameter.empty and parameter.kind not in _VARIADIC
    ]
    if needed:
        arguments = "an argument" if len(needed) == 1 else "arguments"
        return f"{name} needs {arguments} ({', '.join(needed)}), so it is not a graph factory"
    returns = signature.return_annotation
    if returns is signature.empty:
        return None
    text = returns if isinstance(returns, str) else getattr(returns, "__qualname__", None)
    text = (text or str(returns)).removeprefix("typing.")
    if "Graph" in text or text == "Any":
        return None
    return f"{name} returns {text}, not a graph"


def _import(location: str) -> Any:
    if not (location.endswith(".py") or "/" in location):
        if str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        return _guarded(f"importing {location}", importlib.import_module, location)
    path = Path(location)
    if not path.is_file():
        fail(f"no such file: {location}")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # type hints resolve through sys.modules
    try:
        _guarded(f"importing {location}", spec.loader.exec_module, module)
    except SystemExit:
        del sys.modules[spec.name]
        raise
    return module


def _guarded(doing: str, function: Any, *arguments: Any) -> Any:
    """``function(*arguments)``; an exception from user code becomes one line."""
    try:
        return function(*arguments)
    except Exception as error:
        # the innermost line of the user's own code, not importlib's or graphkit's
        frames = [
            frame
            for frame in traceback.extract_tb(error.__traceback__)
            if not frame.filename.startswith(_NOT_USER_CODE)
        ]
        where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
        fail(f"{doing} raised {show_error(error)}{where}")


def _a(value: Any) -> str:
    """``an int``, ``a dict``: the type of ``value`` with its article."""
    kind = type(value).__name__
    return f"{'an' if kind[0].lower() in 'aeiou' else 'a'} {kind}"
