"""How long the inspection views of a 1,000-step run take to build (not a test).

Run it with ``.venv/bin/python benchmarks/inspect_tables.py``. The run is a node whose
router sends it back to itself 1,000 times, with two state keys and a reducer.
"""

from __future__ import annotations

import operator
import time
from typing import Annotated, TypedDict

from graphkit import START, StateGraph
from graphkit.inspect.tables import KINDS


class State(TypedDict):
    x: int
    log: Annotated[list, operator.add]


def long_run(steps: int = 1000):
    builder = StateGraph(State)
    builder.add_node("spin", lambda state: {"x": state["x"] + 1, "log": [state["x"]]})
    builder.add_edge(START, "spin")
    builder.add_conditional_edges("spin", lambda state: "spin" if state["x"] < steps else "__end__")
    return builder.compile().trace({"x": 0, "log": []}, {"recursion_limit": steps + 10})


def best_of(function, repeat: int = 5) -> float:
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        timings.append(time.perf_counter() - started)
    return min(timings)


def main() -> None:
    run = long_run()
    print(f"{len(run.steps)} supersteps")
    import pandas  # noqa: F401  (imported once up front, so it is not timed)

    for kind in KINDS:
        for readable in (False, True):
            seconds = best_of(lambda: run.to_frame(kind, readable=readable))  # noqa: B023
            label = f"to_frame({kind!r}{', readable=True' if readable else ''})"
            print(f"  {label:<36} {seconds * 1000:7.1f} ms")
    views = {
        "step(500).to_frame()": lambda: run.step(500).to_frame(),
        "timeline()  (text)": run.timeline,
        "timeline_svg()": run.timeline_svg,
        "_repr_html_()": run._repr_html_,
        "why('spin', 500)": lambda: run.why("spin", 500),
        "why('spin')  (every step)": lambda: run.why("spin"),
        "diff(0, 1000)": lambda: run.diff(0, 1000),
    }
    for label, view in views.items():
        print(f"  {label:<36} {best_of(view) * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
