"""The notebook debugger: step a run phase by phase, go back in time, export it.

``DebugSession`` is the debugger as plain Python (testable without a browser);
``Debugger`` is its ipywidgets face, imported only when asked for, so that
``import graphkit.widgets`` works without ipywidgets. Nothing else in graphkit
imports this package.

>>> from graphkit.inspect.examples import forecast_graph
>>> from graphkit.widgets import DebugSession
>>> session = DebugSession(forecast_graph(), {"topic": "today", "tokens": 0})
>>> _ = session.run()
>>> session.view().status_text
'done: no node was triggered by the last Update'
"""

from __future__ import annotations

from typing import Any

from graphkit.widgets.session import DebugSession
from graphkit.widgets.view import TABLES, View, build_view, view_at

__all__ = ["TABLES", "DebugSession", "Debugger", "View", "build_view", "view_at"]


def __getattr__(name: str) -> Any:
    if name == "Debugger":  # ipywidgets is imported only here
        from graphkit.widgets.debugger import Debugger

        return Debugger
    raise AttributeError(f"module 'graphkit.widgets' has no attribute {name!r}")
