"""The optional parts of graphkit, and the error that says which extra brings one.

``pip install graphkit`` is the runtime alone, with no dependencies. A feature that
needs more imports it where it is used, through ``require``, so that a missing package
gives an ``ImportError`` naming the feature and the ``pip install`` that fixes it:

>>> require("json", extra="notebook", feature="run.to_frame()").__name__
'json'
>>> require("no_such_module", extra="notebook", feature="run.to_frame()")
Traceback (most recent call last):
...
ImportError: no_such_module is needed for run.to_frame(), and plain graphkit does not \
install it: pip install "graphkit[notebook]" (or pip install no_such_module).
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require"]

_DISTRIBUTIONS = {"langchain_core": "langchain-core"}
"""Import names whose ``pip install`` name differs."""


def require(module: str, *, extra: str, feature: str) -> ModuleType:
    """Import ``module`` and return it; if it cannot be imported, raise an ``ImportError``
    saying that ``feature`` needs it and that ``pip install "graphkit[extra]"`` brings it."""
    try:
        imported = importlib.import_module(module)
    except ImportError as error:
        top = module.partition(".")[0]
        package = _DISTRIBUTIONS.get(top, top)
        raise ImportError(
            f"{top} is needed for {feature}, and plain graphkit does not install it: "
            f'pip install "graphkit[{extra}]" (or pip install {package}).',
            name=module,
        ) from error
    if module.startswith("langchain_core"):  # (a tool may now return graphkit's Command)
        from graphkit.types import as_tool_output

        as_tool_output()
    return imported
