"""Checks for lesson 19 · How Plan chooses: channel versions and what each node has seen.

Each check runs graphs of its own on the real runtime and reads the records: the
versions and versions seen each step's Plan started from, the tasks it planned, the steps
a node ran at. A hard-coded answer cannot pass.

- ``check_plan_rule(nodes_to_run)``: the learner's Plan rule, compared with the real Plan
  at every step of several graphs (a chain, a fork into a node, a waiting edge, a loop,
  and a low-level ``Pregel`` graph whose trigger keeps its value).
- ``check_run_once(wire)``: the edges into ``report`` that make it run once, after all its
  sources, whatever their number and the length of their branches.
- ``check_woke(woke)``: from a thread's saved checkpoints, the trigger channel that woke a
  node at a step, compared with the task's ``triggers`` in the records.

>>> from graphkit.course.solutions import lesson19 as solutions
>>> bool(check_plan_rule(solutions.nodes_to_run)), bool(check_run_once(solutions.wire))
(True, True)
>>> bool(check_woke(solutions.woke))
True
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, TypedDict

from graphkit.course.checking import Wrong, exercise

__all__ = [
    "Notes",
    "check_plan_rule",
    "check_run_once",
    "check_woke",
    "plan_inputs",
    "saved_checkpoints",
    "sources_graph",
]


def _function(answer: Any, name: str) -> None:
    if not callable(answer):
        raise Wrong(f"{name} is {answer!r}, not a function.", f"Write {name} with def.")


# -- 19.1 · the Plan rule -------------------------------------------------------------------


class Notes(TypedDict, total=False):
    notes: Annotated[list, operator.add]
    rounds: int


def _noter(name: str) -> Callable[[Notes], dict]:
    def note(state: Notes) -> dict:
        return {"notes": [name]}

    note.__name__ = name
    return note


def _state_graph(edges: Iterable[tuple[Any, str]], loop: bool = False) -> Any:
    from graphkit import END, START, StateGraph

    builder = StateGraph(Notes)
    names = {name for source, target in edges for name in (*_names(source), target)}
    for name in sorted(names - {START, END, "poll", "report"} if loop else names - {START, END}):
        builder.add_node(name, _noter(name))
    for source, target in edges:
        builder.add_edge(source, target)
    if loop:  # poll again until it has run three times, then report

        def again(state: Notes) -> str:
            return "poll" if state["notes"].count("poll") < 3 else "report"

        builder.add_node("poll", _noter("poll"))
        builder.add_node("report", _noter("report"))
        builder.add_conditional_edges("poll", again, ["poll", "report"])
    return builder.compile()


def _names(source: Any) -> tuple[str, ...]:
    return (source,) if isinstance(source, str) else tuple(source)


def _countdown() -> Any:
    """A low-level Pregel graph (lesson 10): ``tick`` is woken by ``n``, a LastValue that
    keeps its value, and writes ``n - 1`` until it reaches 0."""
    from graphkit.channels import LastValue
    from graphkit.pregel import ChannelWriteEntry, NodeBuilder, Pregel

    tick = (
        NodeBuilder()
        .subscribe_only("n")
        .do(lambda n: n - 1 if n > 0 else None)
        .write_to(ChannelWriteEntry("n", skip_none=True))
    )
    return Pregel(
        nodes={"tick": tick},
        channels={"n": LastValue(int)},
        input_channels="n",
        output_channels="n",
    )


def _graphs() -> list[tuple[str, Any, Any]]:
    from graphkit import START

    return [
        (
            "the chain START → draft → review",
            _state_graph([(START, "draft"), ("draft", "review")]),
            {},
        ),
        (
            "the fork START → (a ∥ slow → b), with edges a → c and b → c",
            _state_graph([(START, "a"), (START, "slow"), ("slow", "b"), ("a", "c"), ("b", "c")]),
            {},
        ),
        (
            "the same fork with the waiting edge [a, b] → c",
            _state_graph([(START, "a"), (START, "slow"), ("slow", "b"), (("a", "b"), "c")]),
            {},
        ),
        ("the loop START → poll ⟲ → report", _state_graph([(START, "poll")], loop=True), {}),
        ("the low-level Pregel graph where tick counts n down", _countdown(), 3),
    ]


def plan_inputs(app: Any, checkpoint: Any) -> tuple[dict, dict, dict, set]:
    """What a Plan starts from, read from a graphkit ``Checkpoint`` of ``app``: each
    channel's version, the versions each node has seen, each node's triggers, and the
    channels that hold a value (a waiting edge's barrier only once all have written)."""
    from graphkit.pregel.phases import StepState

    triggers = {name: tuple(node.triggers) for name, node in app.nodes.items()}
    state = StepState.restored(app.spec, checkpoint)
    ready = {name for name, channel in state.channels.items() if channel.is_available()}
    seen = {node: dict(versions) for node, versions in checkpoint.versions_seen.items()}
    return dict(checkpoint.channel_versions), seen, triggers, ready


def _as_set(got: Any, where: str) -> set:
    if got is None or isinstance(got, str) or not isinstance(got, Iterable):
        raise Wrong(
            f"{where}, nodes_to_run returned {got!r}, not a set of node names.",
            "Return the set of the nodes the Plan runs (an empty set when none).",
        )
    return set(got)


def _why_plan(node: str, versions: Mapping, seen: Mapping, triggers: Mapping, ready: set) -> str:
    """The facts about ``node``'s triggers, in words: versions, what it saw, values."""
    parts = []
    for channel in triggers.get(node, ()):
        version, saw = versions.get(channel), seen.get(node, {}).get(channel)
        state = "holds a value" if channel in ready else "holds no value"
        parts.append(
            f"{channel} is at version {version if version is not None else 'none yet'}, "
            f"{node} saw {saw if saw is not None else 'none'}, and it {state}"
        )
    return "; ".join(parts)


@exercise("19.1 · Write the Plan rule")
def check_plan_rule(nodes_to_run: Any) -> str:
    """``nodes_to_run(versions, seen, triggers, ready)`` returns the nodes the next Plan
    runs (Sends aside); compared with the real Plan before every step of five graphs."""
    _function(nodes_to_run, "nodes_to_run")
    compared = 0
    for name, app, given in _graphs():
        run = app.trace(given)
        checkpoints = [(step.step, step.checkpoint_before) for step in run.steps]
        checkpoints.append((run.steps[-1].step + 1, run.steps[-1].checkpoint))  # the end
        planned = {
            step.step: {t.node for t in step.plan.tasks if t.kind == "pull"} for step in run.steps
        }
        for number, checkpoint in checkpoints:
            if number < 0:
                continue  # step -1 runs the input, which no channel wakes
            versions, seen, triggers, ready = plan_inputs(app, checkpoint)
            where = f"In {name}, before step {number}"
            got = _as_set(nodes_to_run(versions, seen, triggers, ready), where)
            expected = planned.get(number, set())
            compared += 1
            if got == expected:
                continue
            extra, missing = sorted(got - expected), sorted(expected - got)
            node = (extra or missing)[0]
            facts = _why_plan(node, versions, seen, triggers, ready)
            channels = triggers.get(node, ())
            newer = [c for c in channels if versions.get(c, 0) > seen.get(node, {}).get(c, 0)]
            if extra:
                told = f"you would run {node}, which the runtime did not run: {facts}."
                if number not in planned:
                    told += " The run had ended there."
                if any(c in ready and c not in newer for c in channels):
                    hint = (
                        "A value its node has already seen wakes it no more (a LastValue "
                        "channel keeps its value after the node read it): compare the "
                        "trigger's version with the one the node saw."
                    )
                else:
                    hint = (
                        "An Update that empties a channel gives it a new version too, and a "
                        "trigger with nothing in it wakes nobody."
                    )
            else:
                told = f"you would not run {node}, which the runtime ran: {facts}."
                if len(channels) > 1:
                    hint = "One trigger with something new is enough, whatever the others hold."
                elif node not in seen:
                    hint = (
                        f"{node} never ran, so it has seen no version of its trigger: any "
                        "version is new to it."
                    )
                else:
                    hint = "Compare the trigger's version with the one the node saw."
            raise Wrong(f"{where}: {told}", hint)
    return (
        f"Your rule planned what the runtime planned before all {compared} steps of the five "
        "graphs, the waiting edge and the Pregel channel that keeps its value included, and "
        "found nothing to run where each run ended."
    )


# -- 19.2 · run once, after every source ----------------------------------------------------


def sources_graph(wire: Callable[[Any, list[str]], Any], branches: Mapping[str, int]) -> Any:
    """START → each source, through ``branches[source] - 1`` nodes before it (so sources
    finish in different steps); ``wire(builder, sources)`` adds the edges into ``report``."""
    from graphkit import START, StateGraph

    builder = StateGraph(Notes)
    builder.add_node("report", lambda state: {"notes": [f"report saw {len(state['notes'])}"]})
    for source, length in branches.items():
        chain = [f"{source}_{i}" for i in range(1, length)] + [source]
        previous = START
        for name in chain:
            builder.add_node(name, _noter(name))
            builder.add_edge(previous, name)
            previous = name
    wire(builder, list(branches))
    return builder


@exercise("19.2 · Run report once")
def check_run_once(wire: Any) -> str:
    """``wire(builder, sources)`` adds edges so that ``report`` runs once, after every
    source has written; tried with sources and branch lengths of the check's own."""
    from graphkit.course.checking import compiled, ran_at, trace

    _function(wire, "wire")
    cases = [{"web": 2, "books": 1}, {"maps": 1, "news": 3, "radio": 2}, {"a": 1, "b": 1}]
    for branches in cases:
        app = compiled(sources_graph(wire, branches))
        run = trace(app, {})
        where = (
            f"With the sources {', '.join(f'{s} (ready at step {n})' for s, n in branches.items())}"
        )
        steps = ran_at(run, "report")
        last = max(branches.values())
        if not steps:
            raise Wrong(
                f"{where}: report never ran.",
                "Something must wake report: an edge into it that every source writes to.",
            )
        if len(steps) > 1:
            raise Wrong(
                f"{where}: report ran {len(steps)} times, at steps {steps}: each source's "
                "own edge wrote report's trigger in the step that source ran.",
                "An edge from one node wakes its target whenever that node runs. Make report "
                "wait for all of its sources with one channel they all write to.",
            )
        if steps[0] != last + 1:
            raise Wrong(
                f"{where}: report ran at step {steps[0]}, but the last source writes in step "
                f"{last}, so report should run at step {last + 1}.",
                "report must wait for every source, not for one of them.",
            )
    return (
        "report ran once in every graph, in the step after its last source wrote, whatever "
        "the number of sources and the length of their branches: the waiting edge's barrier "
        "held a value only once all had written."
    )


# -- 19.3 · what woke a node, from the thread's checkpoints -----------------------------------


def saved_checkpoints(app: Any, config: dict) -> dict[int, dict]:
    """The thread's saved checkpoints by step, oldest first (as the lesson's
    ``checkpoints(app, config)``): each a dict with ``channel_versions``,
    ``versions_seen`` and ``channel_values``."""
    saved = reversed(list(app.checkpointer.list(config)))
    return {entry.metadata["step"]: entry.checkpoint for entry in saved}


def _holding(channel: str, values: Mapping[str, Any]) -> str:
    """Whether a saved channel holds a value, in words: a waiting edge's barrier is saved
    as the set of sources heard so far, and holds a value once it has them all."""
    if channel not in values:
        return "empty"
    if channel.startswith("join:"):
        heard, sources = values[channel], channel.split(":")[1].split("+")
        if set(heard) != set(sources):
            return f"waiting (it has heard from {sorted(heard)} of {sources}: no value yet)"
    return "holding a value"


@exercise("19.3 · Name what woke a node")
def check_woke(woke: Any) -> str:
    """``woke(checkpoints, triggers, node, step)`` returns the trigger channel that woke
    ``node`` at ``step`` and the version it woke it at, read from the thread's saved
    checkpoints; compared with the records' ``trigger_versions`` for every task of four
    graphs."""
    from graphkit import START, InMemorySaver

    _function(woke, "woke")
    graphs = [
        ("the chain START → draft → review", [(START, "draft"), ("draft", "review")], False),
        (
            "the fork with edges a → c and b → c",
            [(START, "a"), (START, "slow"), ("slow", "b"), ("a", "c"), ("b", "c")],
            False,
        ),
        (
            "the fork with an edge d → c and the waiting edge [a, b] → c",
            [
                (START, "a"),
                (START, "d"),
                (START, "slow"),
                ("slow", "b"),
                ("d", "c"),
                (("a", "b"), "c"),
            ],
            False,
        ),
        ("the loop START → poll ⟲ → report", [(START, "poll")], True),
    ]
    asked = 0
    for name, edges, loop in graphs:
        app = _state_graph(edges, loop).builder.compile(checkpointer=InMemorySaver())
        thread = {"configurable": {"thread_id": "19.3"}}
        run = app.trace({}, thread)
        checkpoints = saved_checkpoints(app, thread)
        # Reversed: a waiting edge's barrier comes before branch:to:c, so a rule that takes
        # a half-filled barrier (saved, but holding no value) for a value names it.
        triggers = {node: tuple(reversed(spec.triggers)) for node, spec in app.nodes.items()}
        for step in run.steps:
            for task in step.plan.tasks:
                if task.kind != "pull":
                    continue
                expected = {(c, task.trigger_versions[c]) for c in task.triggers}
                got = woke(checkpoints, triggers, task.node, step.step)
                asked += 1
                if isinstance(got, list):
                    got = tuple(got)
                if got in expected:
                    continue
                before = checkpoints[step.step - 1]
                saw = dict(before["versions_seen"].get(task.node, {}))
                facts = ", ".join(
                    f"{trigger} at version {before['channel_versions'].get(trigger, 'none')} "
                    + _holding(trigger, before["channel_values"])
                    for trigger in triggers[task.node]
                )
                named = got[0] if isinstance(got, tuple) and got else None
                waiting = isinstance(named, str) and "waiting" in _holding(
                    named, before["channel_values"]
                )
                raise Wrong(
                    f"In {name}, {task.node} ran at step {step.step}, but "
                    f"woke(checkpoints, triggers, {task.node!r}, {step.step}) returned {got!r}. "
                    f"In the checkpoint of step {step.step - 1} its triggers were: {facts}; "
                    f"{task.node} had seen {saw or 'nothing'}.",
                    "A waiting edge's barrier is saved as the set of the sources it has heard "
                    "from, and holds a value only once that set has every source its name "
                    "lists (join:a+b:c waits for a and b)."
                    if waiting
                    else "Plan reads the checkpoint saved before the step it plans, not the "
                    "step's own (by then the node has seen what woke it). Look there for a "
                    "trigger that holds a value at a version the node has not seen; return "
                    "it and that version, as a pair.",
                )
    return (
        f"You named what woke each of the {asked} tasks of the four runs, and at which "
        "version, from the thread's checkpoints alone: the edges' branch:to: channels, "
        "__start__, and the waiting edge's barrier once complete, not the emptied "
        "branch:to:c beside it nor the barrier while it waited."
    )
