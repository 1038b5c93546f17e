"""Checks for lesson 01, "Your first graph" (``notebooks/01-first-graph.ipynb``).

Each check runs the learner's graph (or reads their answers against a real run) and
returns a ``Verdict``: it never raises, so the notebook runs top to bottom.

- ``check_chain(builder)``: a three-node chain, one node per step, partial updates.
- ``check_router(builder)``: a conditional edge that routes on a state value, tried on
  several inputs, and drawn with exactly its two choices.
- ``check_read_run(sign_step, text_after_2)``: two facts read off ``mystery_graph()``'s run.

>>> check_read_run(None, None).passed
False
"""

from __future__ import annotations

import inspect
import itertools
import warnings
from typing import Any, Literal, TypedDict

from graphkit import END, START, GraphkitWarning, StateGraph
from graphkit.course import Wrong, compiled, exercise, trace
from graphkit.course.answers import _and_dropped, no_nodes, whole_number
from graphkit.diagnostics.names import near_miss
from graphkit.inspect.values import show

__all__ = [
    "MYSTERY_INPUT",
    "check_chain",
    "check_read_run",
    "check_router",
    "mystery_graph",
]


def _steps(run: Any) -> list[tuple[int, list[str]]]:
    """The steps that ran the learner's nodes (1, 2, ...), each with its sorted nodes."""
    return [(s.step, sorted(s.plan.nodes)) for s in run.steps if s.step >= 1 and s.plan.nodes]


def _story(steps: list[tuple[int, list[str]]]) -> str:
    return "; ".join(f"step {n}: {', '.join(nodes)}" for n, nodes in steps) or "no step"


def _state_writes(run: Any, node: str, keys: tuple[str, ...]) -> list[str]:
    """The state keys ``node`` wrote in ``run`` (edges' writes to branch channels left out)."""
    written: list[str] = []
    for superstep in run.steps:
        for result in superstep.execution.results if superstep.execution else ():
            if result.task.node == node:
                written += [c for c, _ in result.writes if c in keys and c not in written]
    return written


# -- 1.1 · A three-node chain -----------------------------------------------------------

CHAIN_NODES = ("split_words", "count_words", "write_report")
_CHAIN_WRITES = {"split_words": ["words"], "count_words": ["count"], "write_report": ["text"]}
# (two spaces in one: text.split(" ") would count the empty string between them)
_CHAIN_INPUTS = ("graphs run in supersteps", "hello  world", "a b c d e f")


def _chain_expected(text: str) -> dict[str, Any]:
    words = text.split()
    return {"text": f"{len(words)} words", "words": words, "count": len(words)}


@exercise("1.1 · A three-node chain")
def check_chain(builder: Any) -> str:
    """The chain START → split_words → count_words → write_report → END: one node per
    step, each writing only its own key, ending in the expected state on several texts."""
    app = compiled(builder)
    missing = [n for n in CHAIN_NODES if n not in app.spec.nodes]
    if missing:
        raise Wrong(
            f"Your graph has {no_nodes(missing)}; its nodes are "
            f"{sorted(n for n in app.spec.nodes if n != START)}.",
            hint="A function is a node only once it is added to the builder, under its name, "
            "as split_words is.",
        )
    keys = app.spec.state_keys
    for text in _CHAIN_INPUTS:
        run = trace(app, {"text": text})
        steps = _steps(run)
        expected_steps = [(i + 1, [node]) for i, node in enumerate(CHAIN_NODES)]
        if steps != expected_steps:
            raise Wrong(
                f"On {{'text': {text!r}}} your run went {_story(steps)}. A chain runs one "
                "node per step: step 1: split_words; step 2: count_words; step 3: write_report.",
                hint="Chain them with add_edge: START → split_words → count_words → "
                "write_report → END, and no other edge.",
            )
        for node, wanted in _CHAIN_WRITES.items():
            wrote = _state_writes(run, node, keys)
            if wrote != wanted:
                said = ", ".join(wrote) if wrote else "nothing"
                said += "".join(
                    _and_dropped(result)
                    for superstep in run.steps
                    for result in (superstep.execution.results if superstep.execution else ())
                    if result.task.node == node
                )
                raise Wrong(
                    f"{node} wrote {said}; it should write only {wanted[0]}.",
                    hint=f"A node returns a partial update: just the keys it changes, "
                    f"here {{{wanted[0]!r}: ...}}. The other keys keep their values.",
                )
        expected = _chain_expected(text)
        for key, value in expected.items():
            if run.values.get(key) != value:
                raise Wrong(
                    f"On {{'text': {text!r}}} the final state has {key} = "
                    f"{show(run.values.get(key))}; expected {show(value)}.",
                    hint="words is text.split(), count is len(words), and write_report "
                    'sets text to f"{count} words". Try app.invoke({"text": ...}).',
                )
    chain = [START, *CHAIN_NODES, END]
    wanted_edges = set(itertools.pairwise(chain))
    extra = sorted(
        (e.source, e.target)
        for e in app.get_graph().edges
        if (e.source, e.target) not in wanted_edges
    )
    if extra:
        source, target = extra[0]
        name = {START: "START", END: "END"}
        code = ", ".join(name.get(n, repr(n)) for n in (source, target))
        edge = " → ".join(name.get(n, n) for n in (source, target))  # as the lesson writes it
        raise Wrong(
            f"It runs right, but your graph also has the edge {edge}. It "
            "changes nothing at run time, but the drawing now shows a path your chain "
            "does not have.",
            hint=f"Remove builder.add_edge({code}) (in the stub it was only a placeholder).",
        )
    return (
        "Three nodes, three supersteps, each writing one key: "
        f"{_chain_expected(_CHAIN_INPUTS[0])['text']!r} for {_CHAIN_INPUTS[0]!r}."
    )


# -- 1.2 · Route by a state value --------------------------------------------------------

# (9: a router comparing the reading "9 °C" >= "25" as text sends it to hot)
_TEMPERATURES = (30, 25, 24, -5, 12, 40, 9)


@exercise("1.2 · Route by temperature")
def check_router(builder: Any) -> str:
    """measure, then hot (25 °C or more) or cold (below): a conditional edge, tried on
    several temperatures, drawn with exactly the two choices."""
    with warnings.catch_warnings():  # "nothing leads to hot": said better below, with the fix
        warnings.simplefilter("ignore", GraphkitWarning)
        app = compiled(builder)
    missing = [n for n in ("measure", "hot", "cold") if n not in app.spec.nodes]
    if missing:
        raise Wrong(
            f"Your graph has {no_nodes(missing)}.",
            hint="Keep the nodes measure, hot and cold from the stub.",
        )
    out_of_measure = [e for e in app.get_graph().edges if e.source == "measure"]
    plain = [e.target for e in out_of_measure if e.kind == "edge"]
    if plain:
        raise Wrong(
            f"measure → {', '.join(plain)} is a plain edge: it is taken on every run, "
            "whatever the temperature.",
            hint="A plain edge is taken on every run; a router decides on each run. Give "
            "measure a conditional edge instead, whose function reads the state and names "
            "the node to run next.",
        )
    for temperature in _TEMPERATURES:
        wanted = "hot" if temperature >= 25 else "cold"
        advice = "shorts" if wanted == "hot" else "coat"
        with warnings.catch_warnings():  # "returned True, which is not a node": said below
            warnings.simplefilter("ignore", GraphkitWarning)
            try:
                run = trace(app, {"temperature": temperature})
            except Wrong:  # a router's True or None with the list ['hot', 'cold'] raises
                _nothing_chosen(app, _after_measure(temperature), temperature)
                raise
        steps = _steps(run)
        if steps == [(1, ["measure"])]:
            _nothing_chosen(app, dict(run.values), temperature)
        if steps != [(1, ["measure"]), (2, [wanted])]:
            raise Wrong(
                f"At {temperature} °C your run went {_story(steps)}; expected step 1: "
                f"measure; step 2: {wanted}.",
                hint="The router reads state['temperature'] and returns "
                '"hot" for 25 or more, else "cold".',
            )
        if run.values.get("advice") != advice:
            raise Wrong(
                f"At {temperature} °C the final advice is {show(run.values.get('advice'))}; "
                f"expected {advice!r}.",
                hint="Keep the nodes hot and cold from the stub.",
            )
    drawn = sorted(e.target for e in app.get_graph().edges if e.source == "measure")
    if drawn != ["cold", "hot"]:
        extra = sorted(set(drawn) - {"cold", "hot"})
        branches = getattr(app.builder, "branches", {}).get("measure", {}).values()
        if any(branch.path_map for branch in branches):  # the learner listed the choices
            raise Wrong(
                f"It runs right, but the drawing shows measure may also go to "
                f"{', '.join(extra)}: the choices you listed include "
                f"{'it' if len(extra) == 1 else 'them'}, and the router never returns "
                f"{'it' if len(extra) == 1 else 'them'}.",
                hint="List exactly the nodes the router returns: ['hot', 'cold'] (in a "
                "Literal annotation or as add_conditional_edges' third argument).",
            )
        raise Wrong(
            f"It runs right, but the drawing shows measure may go to {', '.join(drawn)}: "
            "graphkit cannot tell from your router which nodes it returns.",
            hint="Say which: annotate the router -> Literal['hot', 'cold'], or pass "
            "the list ['hot', 'cold'] as add_conditional_edges' third argument.",
        )
    return (
        f"measure's router chose hot or cold on all {len(_TEMPERATURES)} temperatures, and "
        "the drawing shows both choices as dashed (conditional) edges."
    )


def _after_measure(temperature: int) -> dict[str, Any]:
    """The state measure's router reads: the input and measure's write."""
    return {"temperature": temperature, "reading": f"{temperature} °C"}


def _nothing_chosen(app: Any, state: dict[str, Any], temperature: int) -> None:
    """Nothing ran after measure (or the run failed there): say what its router returned,
    if that was no node's name. The runtime's words for it (a path_map's keys, a
    destination) are not lesson 01's, and a router returning ``True`` is a slip of it."""
    for branch in app.builder.branches.get("measure", {}).values():
        if inspect.iscoroutinefunction(branch.path):  # (the run says it needs an async run)
            continue
        try:
            returned = branch.path(state)
        except Exception:  # (a router that fails fails in the run too, and is told so)
            continue
        names = branch.path_map or {name: name for name in app.spec.nodes}
        # (a node's name missing from a dict path_map: the run's words fit, the learner wrote one)
        try:
            if returned in names or returned in app.spec.nodes:
                continue
        except TypeError:  # (a list of names, a dict: unhashable, left to the run's words)
            continue
        slip = near_miss(returned, names)
        said = "END" if returned == END else f"{returned!r}, which is not a node's name"
        said += f" (did you mean {slip!r}?)" if slip else ""
        raise Wrong(
            f"At {temperature} °C your router returned {said}, so nothing ran after measure.",
            hint='A router returns the name of the node to run next, as a string: "hot" or "cold".',
        )


# -- 1.3 · Read a run ----------------------------------------------------------------------


class Greeting(TypedDict):
    name: str
    loud: bool
    text: str
    letters: int


def _greet(state: Greeting) -> dict:
    return {"text": f"hello {state['name']}"}


def _tone(state: Greeting) -> Literal["shout", "whisper"]:
    return "shout" if state["loud"] else "whisper"


def _shout(state: Greeting) -> dict:
    return {"text": state["text"].upper() + "!"}


def _whisper(state: Greeting) -> dict:
    return {"text": state["text"].lower() + "..."}


def _tally(state: Greeting) -> dict:
    return {"letters": len(state["name"])}


def _sign(state: Greeting) -> dict:
    return {"text": state["text"] + " (signed, graphkit)"}


MYSTERY_INPUT = {"name": "Ada", "loud": True}
"""The input the exercise asks about: ``mystery_graph().trace(MYSTERY_INPUT)``."""


def mystery_graph() -> Any:
    """A small graph to read without its code: greet, then shout or whisper (a router)
    next to tally, then sign."""
    builder = StateGraph(Greeting)
    for name, action in (
        ("greet", _greet),
        ("shout", _shout),
        ("whisper", _whisper),
        ("tally", _tally),
        ("sign", _sign),
    ):
        builder.add_node(name, action)
    builder.add_edge(START, "greet")
    builder.add_conditional_edges("greet", _tone)
    builder.add_edge("greet", "tally")
    builder.add_edge("shout", "sign")
    builder.add_edge("whisper", "sign")
    builder.add_edge("tally", END)
    builder.add_edge("sign", END)
    return builder.compile()


@exercise("1.3 · Read a run")
def check_read_run(sign_step: Any, text_after_2: Any) -> str:
    """Which step ran ``sign``, and what ``text`` held after step 2, in the run of
    ``mystery_graph()`` on ``MYSTERY_INPUT`` (checked against a real run)."""
    run = mystery_graph().trace(dict(MYSTERY_INPUT))
    truth = next(s.step for s in run.steps if "sign" in s.plan.nodes)
    if sign_step is None:
        raise Wrong(
            "sign_step is still None.",
            hint="Trace the run and look for sign in run.to_frame('tasks') or "
            "print(run.timeline()).",
        )
    if isinstance(sign_step, bool):  # (True == 1 in Python: it would pass as step 1)
        raise Wrong(
            f"sign_step is {sign_step}, a bool; it should be the step number, an int.",
            hint="The 'step' column of run.to_frame('tasks') is the step number.",
        )
    if (number := whole_number(sign_step)) is None:
        raise Wrong(
            f"sign_step is {sign_step!r}, not a number.",
            hint="Give the number in the 'step' column of run.to_frame('tasks'), e.g. 0.",
        )
    sign_step = number  # ("3", read off a table, is the step number 3)
    if sign_step != truth:
        position = next(i for i, s in enumerate(run.steps) if s.step == truth)
        if sign_step == position:
            raise Wrong(
                f"{sign_step} is where sign's superstep sits in run.steps, not its step "
                "number: run.steps starts with the input step -1, then step 0.",
                hint=f"Look at run.steps[{position}].step, or use run.step(n), which "
                "takes a step number.",
            )
        ran = next((s.plan.nodes for s in run.steps if s.step == sign_step), None)
        what = f"step {sign_step} ran {', '.join(ran)}" if ran else f"there is no step {sign_step}"
        raise Wrong(
            f"sign did not run in step {sign_step}: {what}.",
            hint="The 'step' column of run.to_frame('tasks') is the step number.",
        )
    if text_after_2 is None:
        raise Wrong(
            f"sign runs in step {truth}, right. text_after_2 is still None.",
            hint="run.to_frame('state') has one row per step, one column per key.",
        )
    states = {s.step: s.checkpoint.channel_values.get("text") for s in run.steps if s.update}
    if text_after_2 != states[2]:
        other = [n for n, value in states.items() if value == text_after_2 and n != 2]
        if other:
            misread = (  # the last row (the final state), or the row at position 2
                "not the last row, which is the final state"
                if other[0] == max(states)
                else "not the row at position 2"
            )
            raise Wrong(
                f"sign runs in step {truth}, right. But {show(text_after_2)} is what text "
                f"held after step {other[0]}, not after step 2.",
                hint="run.to_frame('state') has one row per step: read the row whose "
                f"step is 2 ({misread}).",
            )
        if text_after_2 in (f"'{states[2]}'", f'"{states[2]}"'):  # copied with its quotes
            raise Wrong(
                f"sign runs in step {truth}, right. Your text_after_2 is "
                f"{show(text_after_2)}: the value with its quotes inside the string.",
                hint="A readable table quotes a string to show it is one; the quotes "
                "are not part of the value. Drop the inner quotes.",
            )
        raise Wrong(
            f"sign runs in step {truth}, right. But text never held "
            f"{show(text_after_2)} after any step of this run.",
            hint="Copy the value from run.to_frame('state'), or from "
            "run.step(2).update.change('text').after.",
        )
    return (
        f"sign ran in step {truth}, and after step 2 text held {states[2]!r}: "
        "shout (chosen by greet's router) and tally ran side by side in step 2."
    )
