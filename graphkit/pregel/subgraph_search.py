"""Where LangGraph looks for the subgraphs a node reaches (``graph_in``, in
``graphkit.pregel.runnable``, asks): the steps of a LangChain chain and what a
``RunnableLambda`` names (``_chain_parts``), and what a function's bytecode loads from
its closure and its module's globals (``_reached``)."""

from __future__ import annotations

import contextlib
import dis
import functools
import inspect
import sys
import types
from typing import Any

__all__ = ["unbound"]


def _chain_parts(action: Any) -> list[Any]:
    """``action`` and, as LangGraph searches them, the steps of a LangChain sequence
    (``prep | graph``) and the runnables a ``RunnableLambda``'s function names (its
    ``deps``, read by langchain-core from its source), and theirs in turn, each once (a
    function may name the chain it is a step of)."""
    runnables = sys.modules.get("langchain_core.runnables.base")
    parts, seen = [action], {id(action)}
    for part in parts if runnables is not None else ():
        if isinstance(part, runnables.RunnableSequence):
            inner = part.steps
        elif isinstance(part, runnables.RunnableLambda):
            inner = part.deps
        else:
            continue
        parts += [step for step in inner if id(step) not in seen]
        seen.update(map(id, inner))
    return parts


def unbound(action: Any) -> Any:
    """The Runnable a LangChain binding (``with_retry``, ``with_config``, ``bind``) wraps,
    through every layer; ``action`` itself otherwise. LangGraph's subgraph search does not
    look through one (so ``_chain_parts`` does not): only ``runs_coroutines`` does."""
    runnables = sys.modules.get("langchain_core.runnables.base")
    while runnables is not None and isinstance(action, runnables.RunnableBindingBase):
        action = action.bound
    return action


def _reached(function: Any) -> list[Any]:
    """What ``function`` reaches outside its own scope, as LangGraph's subgraph search
    reads it from the bytecode: the values of its closure (a cell never filled, as for a
    variable assigned only on a branch not taken, is skipped), the module globals its own
    code names, and every value along an attribute path loaded from one of those
    (``holder.graph.invoke``), in its code or in that of the functions it defines."""
    function = getattr(function, "__func__", function)  # a bound method's function
    if not inspect.isfunction(function):
        return []
    code, cells = function.__code__, {}
    for name, cell in zip(code.co_freevars, function.__closure__ or (), strict=True):
        with contextlib.suppress(ValueError):  # (an empty cell)
            cells[name] = cell.cell_contents
    module = function.__globals__
    names = {name: module[name] for name in code.co_names if name in module}
    found, codes = list(cells.values()), [code]
    for each in codes:
        codes += [const for const in each.co_consts if isinstance(const, types.CodeType)]
        value: Any = None
        for opname, argval in _loads(each):
            if opname == "LOAD_GLOBAL":
                value = names.get(argval)
            elif opname == "LOAD_DEREF":
                value = cells.get(argval)
            elif opname in ("LOAD_ATTR", "LOAD_METHOD") and value is not None:
                value = _attribute(value, argval)
            else:
                value = None  # anything else ends the path: `a, b.c` is not `a.c`
            if value is not None:
                found.append(value)
    return found


@functools.lru_cache(maxsize=1024)
def _loads(code: types.CodeType) -> tuple[tuple[str, Any], ...]:
    """``code``'s instructions as (name, argument): disassembled once per function, as
    every snapshot of a thread's history asks for its nodes' subgraphs (a third of a
    ``get_state_history`` before)."""
    return tuple((each.opname, each.argval) for each in dis.get_instructions(code))


def _attribute(value: Any, name: str) -> Any:
    """``value.name``, or None when reading it fails (a property may raise anything)."""
    try:
        return getattr(value, name, None)
    except Exception:
        return None
