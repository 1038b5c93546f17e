"""Views of a run's records: tables, "why did / didn't it run", cards and timelines.

Everything here only reads the records the runtime produced (``Run``, ``Superstep``
and the phase records) and never changes them; the core never imports this package.
Views go records → plain rows or text (pure functions) → DataFrame or HTML. The
records' ``to_frame``, ``why``, ``diff``, ``timeline`` and ``_repr_html_`` methods
*are* functions of this package: ``import graphkit`` attaches them
(``graphkit.inspect.methods``). pandas is imported only by the functions that return
a DataFrame.

>>> from graphkit.inspect.examples import forecast_run
>>> run = forecast_run()
>>> run.to_frame("tasks")["node"].tolist()
['__input__', '__start__', 'planner', 'news', 'weather', 'summarize']
>>> print(run.why("summarize", step=3).summary)  # doctest: +NORMALIZE_WHITESPACE
summarize ran at step 3 because the waiting edge [weather, news] → summarize was
complete: both weather and news wrote in step 2.
>>> print(run.diff(2, 3))
From step 2 to step 3, 1 state key changed:
  summary  <empty> -> 'sunny; market up'
"""

from graphkit.inspect.diff import StateDiff, diff
from graphkit.inspect.explanation import Answer, Explanation, Reason
from graphkit.inspect.tables import KINDS, run_frame, run_rows, superstep_frame, superstep_rows
from graphkit.inspect.text import run_text
from graphkit.inspect.threads import checkpoints_frame, pending_writes_frame
from graphkit.inspect.timeline import run_timeline_svg, timeline_rows, timeline_svg
from graphkit.inspect.values import show
from graphkit.inspect.why import why

__all__ = [
    "KINDS",
    "Answer",
    "Explanation",
    "Reason",
    "StateDiff",
    "checkpoints_frame",
    "diff",
    "pending_writes_frame",
    "run_frame",
    "run_rows",
    "run_text",
    "run_timeline_svg",
    "show",
    "superstep_frame",
    "superstep_rows",
    "timeline_rows",
    "timeline_svg",
    "why",
]
