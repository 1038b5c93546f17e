"""Give every course check (lessons' ``@exercise`` functions) a wrong kind of answer and
count the verdicts that show a Python error the learner did not write.

    .venv/bin/python scripts/drive_wrong_answers.py            # counts, by answer kind
    .venv/bin/python scripts/drive_wrong_answers.py --show     # and each unhelpful verdict

The wrong kinds: None, a str (the parameter's name in quotes), the ``StateGraph`` class, a
graphkit builder, a graphkit compiled graph and a LangGraph compiled graph, given as every
parameter of the check. A verdict is unhelpful when its message or hint carries Python's
own wording ("object is not callable", "has no attribute", "__init__()", ...) or a
library's refusal of a call the learner did not write ("a schema is a class"), or when
the check itself broke, or when a wrong kind of answer passed. A place to look, not a
test: a lesson's own tests pin the verdicts it means.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import inspect
import re
import warnings
from collections.abc import Callable, Iterator
from typing import Any

LESSONS = range(1, 28)

_PYTHONS_WORDS = re.compile(
    r"object is not callable|takes \d+ positional argument|positional argument|"
    r"has no attribute|__init__\(\)|object is not (subscriptable|iterable)|"
    r"unsupported operand|not supported between|unhashable type|"
    r"argument of type|object of type|must be str|expected str|"
    r"missing \d+ required|got an unexpected keyword|can only concatenate|"
    r"object cannot be interpreted|has no len\(\)|The check itself raised|"
    # (StateGraph's own refusals, for a call the learner did not write: the class called
    # with the check's values, StateGraph({...}), as if it were their function)
    r"a schema is a class|State schema |KeyError: 'state_schema'|"
    # (langchain_core's, for a graph given where a function goes)
    r"for tool decorator"
)


def wrong_answers() -> dict[str, Callable[[str], Any]]:
    """Each wrong kind of answer, made for a parameter's name."""
    from typing import TypedDict

    from langgraph.graph import StateGraph as LangGraphStateGraph

    from graphkit import START, StateGraph

    class State(TypedDict):
        n: int

    def builder() -> Any:
        return StateGraph(State).add_node("a", lambda s: {"n": 1}).add_edge(START, "a")

    def langgraph_app() -> Any:
        graph = LangGraphStateGraph(State)
        graph.add_node("a", lambda s: {"n": 1})
        graph.add_edge(START, "a")
        return graph.compile()

    return {
        "None": lambda name: None,
        "str": lambda name: name,
        "class": lambda name: StateGraph,
        "builder": lambda name: builder(),
        "app": lambda name: builder().compile(),
        "langgraph": lambda name: langgraph_app(),
    }


def exercises() -> Iterator[Callable[..., Any]]:
    """Every check of lessons 1-27, in lesson order."""
    for number in LESSONS:
        module = importlib.import_module(f"graphkit.course.lesson{number:02d}")
        for value in vars(module).values():
            if hasattr(value, "exercise") and value.__module__ == module.__name__:
                yield value


def unhelpful(verdict: Any) -> bool:
    if verdict.passed or verdict.check_error is not None:
        return True
    return bool(_PYTHONS_WORDS.search(f"{verdict.message}\n{verdict.hint}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--show", action="store_true", help="print each unhelpful verdict")
    shown = parser.parse_args().show
    warnings.simplefilter("ignore")
    kinds, total, bad = wrong_answers(), 0, collections.Counter()
    for check in exercises():
        names = list(inspect.signature(check).parameters)
        for kind, make in kinds.items():
            total += 1
            verdict = check(*[make(name) for name in names])
            if unhelpful(verdict):
                bad[kind] += 1
                if shown:
                    print(f"[{kind}] {check.exercise}: {verdict.message} | {verdict.hint}\n")
    print(f"unhelpful: {sum(bad.values())} of {total}  ({dict(bad)})")


if __name__ == "__main__":
    main()
