"""Checks for lesson 19 · How Plan chooses: channel versions and what each node has seen.

Each check runs graphs of its own on the real runtime and reads the records: the
versions and versions seen each step's Plan started from, the tasks it planned, the steps
a node ran at. A hard-coded answer cannot pass.

- ``check_plan_rule(nodes_to_run)``: the learner's Plan rule, compared with the real Plan
  at every step of several graphs (a chain, a fork into a node, a waiting edge, a loop,
  and a low-level ``Pregel`` graph whose trigger keeps its value).
- ``check_alert_on_change(feed)``: the ``feed`` of a low-level ``Pregel`` program
  (``ticker``) that wakes ``alert`` only when the price changes, run on quotes of the
  check's own (a write of the same value would wake it: it moves the version).
- ``check_woke(woke)``: from a thread's saved checkpoints, the trigger channel that woke a
  node at a step, compared with the task's ``triggers`` in the records.

>>> from graphkit.course.solutions import lesson19 as solutions
>>> bool(check_plan_rule(solutions.nodes_to_run)), bool(check_alert_on_change(solutions.feed))
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
    "QUOTES",
    "Notes",
    "check_alert_on_change",
    "check_plan_rule",
    "check_woke",
    "plan_inputs",
    "saved_checkpoints",
    "ticker",
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
    if isinstance(got, Mapping):  # (set() of a dict is its keys, whatever their values)
        raise Wrong(
            f"{where}, nodes_to_run returned a dict, {got!r}: the check reads the set of its "
            "keys, every node in it, whatever its value says.",
            "Return the set of the nodes the Plan runs, and only them: {node for ... if ...}.",
        )
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
        at = "has no version yet" if version is None else f"is at version {version}"
        parts.append(
            f"{channel} {at}, {node} saw {saw if saw is not None else 'none'}, and it {state}"
        )
    return "; ".join(parts)


def _missing_entry(
    error: KeyError, versions: Mapping, seen: Mapping, triggers: Mapping, where: str
) -> Wrong | None:
    """``Wrong`` for a rule that read a node ``seen`` has no entry for (it never ran), or
    a channel ``versions`` has none for (nothing changed it yet); else None."""
    key = error.args[0] if error.args else None
    said = f"{where}: your code raised KeyError: {key!r}"
    if key in triggers and key not in seen:
        return Wrong(
            f"{said}: seen has no entry for {key}, which has not run yet.",
            "A node that never ran has seen no version of any trigger: read seen with a "
            "default for it, as a node with nothing seen.",
        )
    if key not in versions and any(key in channels for channels in triggers.values()):
        return Wrong(
            f"{said}: versions has no entry for {key}, a channel nothing has changed yet.",
            "A channel with no version yet holds no value and wakes nobody: read versions "
            "with a default for it.",
        )
    return None


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
            try:
                answer = nodes_to_run(versions, seen, triggers, ready)
            except KeyError as error:
                missing = _missing_entry(error, versions, seen, triggers, where)
                if missing is None:
                    raise  # (another KeyError: the check reports it as any error)
                raise missing from error
            got = _as_set(answer, where)
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


# -- 19.2 · wake alert only when the price changes -------------------------------------------


QUOTES = (
    (100.0, 100.0, 101.5, 101.5, 101.5, 100.0),  # a run of repeats, then back
    (100.0, 100.0, 100.0, 99.5),  # repeats at the start, of the last program's price
    (99.5, 101.0, 102.5, 101.0),  # each differs from the one before it
    (101.0, 101.0, 101.0),  # all equal
    (98.0,),
    (98.0, 97.5, 97.5),  # a repeat at the end
)
"""The quotes the check feeds ``ticker(feed)``: each program but the first starts with the
price the one before it ended on, so a ``feed`` that remembers a price of its own between
runs misses a first quote."""


def ticker(feed: Callable[[dict], Any]) -> Any:
    """A low-level ``Pregel`` program (lesson 10) around ``feed``. ``feed`` is woken by
    ``quotes`` (a ``LastValue``: the quotes still to come, the input) and reads ``price``
    too; the dict it returns is its writes, as a ``StateGraph`` node's update. ``alert`` is
    woken by ``price`` and adds the price to ``alerts``, the program's output.

    >>> from graphkit.course.solutions.lesson19 import feed
    >>> ticker(feed).invoke([100.0, 100.0, 101.5])
    [100.0, 101.5]
    """
    from graphkit.channels import BinaryOperatorAggregate, LastValue
    from graphkit.pregel import NodeBuilder, Pregel
    from graphkit.pregel.node_builder import SKIP_WRITE, ChannelWriteEntry

    def take(x: dict) -> dict:
        # A copy: a feed that pops from the list would change the value the records keep.
        writes = feed({**x, "quotes": list(x["quotes"])})
        if not isinstance(writes, Mapping):
            raise TypeError(
                f"feed returned {writes!r}, not a dict of writes: return a dict whose keys "
                "are the channels it writes, as a StateGraph node returns its update."
            )
        if unknown := sorted(set(writes) - {"quotes", "price"}):
            raise ValueError(f"feed returned writes to {unknown}: it writes quotes and price.")
        return dict(writes)

    def alert(price: float) -> list:
        return [price]

    # Each key of the returned dict is a write, as a StateGraph node's update: a key left
    # out is none (SKIP_WRITE), a key set to None writes None.
    writes = [
        ChannelWriteEntry(key, mapper=lambda out, key=key: out.get(key, SKIP_WRITE))
        for key in ("quotes", "price")
    ]
    return Pregel(
        nodes={
            "feed": NodeBuilder()
            .subscribe_to("quotes")
            .read_from("price")
            .do(take)
            .write_to(*writes),
            "alert": NodeBuilder().subscribe_only("price").do(alert).write_to("alerts"),
        },
        channels={
            "quotes": LastValue(list),
            "price": LastValue(float),
            "alerts": BinaryOperatorAggregate(list, operator.add),
        },
        input_channels="quotes",
        output_channels="alerts",
    )


def _price_change(run: Any, step: int) -> str:
    """What step ``step``'s Update did to ``price``, in words."""
    change = run.step(step).update.change("price")
    if change is None:
        return f"step {step}'s Update left price alone"
    return (
        f"step {step}'s Update moved price from version {change.version_before} to "
        f"{change.version_after}, its value from {change.before!r} to {change.after!r}"
    )


def _fed_every_quote(run: Any, quotes: tuple, where: str) -> None:
    from graphkit.course.checking import ran_at

    fed = ran_at(run, "feed")
    if fed == list(range(len(quotes))):
        return
    last = fed[-1]
    wrote = {c: v for node, c, v in run.step(last).execution.writes if node == "feed"}
    raise Wrong(
        f"{where}: feed ran at steps {fed}, one step per quote, but there are "
        f"{len(quotes)} quotes (steps 0 to {len(quotes) - 1}). At step {last} it wrote "
        f"{wrote or 'nothing'}"
        + (", no quotes, so nothing woke it again." if "quotes" not in wrote else "."),
        "feed is woken by quotes: it runs in a step only after it wrote quotes, whatever it "
        "did with price. Keep writing the quotes still to come while there are any.",
    )


def _alerts_wrong(run: Any, quotes: tuple, where: str) -> Wrong | None:
    """The first step where ``alert`` ran on a repeat, missed a change, or saw another
    price than the quote that changed it."""
    from graphkit.course.checking import ran_at

    saw = dict(zip(ran_at(run, "alert"), run.values.get("alerts", []), strict=False))
    for i, quote in enumerate(quotes):
        step, before = i + 1, quotes[i - 1] if i else None
        changed = i == 0 or quote != before
        if step in saw and not changed:
            told = (
                f"{where}: alert ran at step {step}, woken by price holding {saw[step]!r}, "
                f"though quote {i} ({quote}) repeats quote {i - 1}: {_price_change(run, i)}."
            )
            if saw[step] is None:
                return Wrong(
                    told + " feed wrote None to price.",
                    "None is a value like any other: a write of None gives price a new "
                    "version, and alert wakes on a version of price it has not seen.",
                )
            return Wrong(
                told,
                "alert wakes on a version of price it has not seen, not on a new value, and "
                "every write moves the version, even of the same value.",
            )
        if step not in saw and changed:
            if i == 0:
                return Wrong(
                    f"{where}: alert did not run at step 1, though quote 0 ({quote}) is the "
                    f"first price: {_price_change(run, 0)}.",
                    "Before the first write, price holds nothing (x has no 'price'), so the "
                    "first quote is news. A variable outside feed that remembers a price "
                    "still holds the last program's: the check runs several, one after "
                    "another.",
                )
            return Wrong(
                f"{where}: quote {i} ({quote}) differs from quote {i - 1} ({before}), but "
                f"alert did not run at step {step}: {_price_change(run, i)}.",
                "The last quote counts too: feed has no quotes left to write then, but its "
                "price can still be news."
                if i == len(quotes) - 1
                else "Compare each quote with the last price feed wrote, which price still "
                "holds (a LastValue keeps its value), not with another quote.",
            )
        if step in saw and saw[step] != quote:
            return Wrong(
                f"{where}: alert ran at step {step} with price {saw[step]!r}, but quote {i} "
                f"is {quote}: {_price_change(run, i)}.",
                "Write the quote feed takes at that step to price.",
            )
    return None


@exercise("19.2 · Wake alert only when the price changes")
def check_alert_on_change(feed: Any) -> str:
    """``feed(x)`` takes the next quote off ``x["quotes"]`` and returns its writes; run in
    ``ticker(feed)`` on the check's own quotes, ``alert`` must run in the step after each
    quote that differs from the one before it (the first included), and at no other step."""
    from graphkit.course.checking import trace

    _function(feed, "feed")
    try:  # what feed is given at step 0, with no price yet
        feed({"quotes": list(QUOTES[0])})
    except KeyError as error:
        if error.args != ("price",):
            raise
        raise Wrong(
            f"feed({{'quotes': {list(QUOTES[0])}}}) raised KeyError: 'price'. That is what "
            "feed gets at step 0: before the first write, price holds nothing, so x has no "
            "'price'.",
            "Read a key that may be missing with x.get(...), as lesson 10's vertices read "
            "their distance.",
        ) from error
    last = QUOTES[4]  # (one quote: feed takes the last one)
    writes = feed({"quotes": list(last)})
    if isinstance(writes, Mapping) and "quotes" in writes and not writes["quotes"]:
        raise Wrong(
            f"feed({{'quotes': {list(last)}}}) returned {writes!r}: with the last quote "
            f"taken, it still writes quotes, an empty list. A write of {writes['quotes']!r} "
            "is a write: it moves quotes' version and wakes feed again, with no quote "
            "to take.",
            "Write quotes only while some remain: a key left out of the dict is no write, "
            "and wakes nobody.",
        )
    alerts = 0
    for quotes in QUOTES:
        run = trace(ticker(feed), list(quotes))
        where = f"With the quotes {list(quotes)}"
        _fed_every_quote(run, quotes, where)
        wrong = _alerts_wrong(run, quotes, where)
        if wrong is not None:
            raise wrong
        alerts += len(run.values["alerts"])
    quotes = sum(len(q) for q in QUOTES)
    return (
        f"alert ran {alerts} times for the {quotes} quotes of the {len(QUOTES)} programs, once "
        "per change, and feed took every quote: in a step where feed wrote no price, price "
        "got no new version, so alert had nothing new to wake it."
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
                if got is not None and not (isinstance(got, tuple) and len(got) == 2):
                    raise Wrong(
                        f"In {name}, woke(checkpoints, triggers, {task.node!r}, {step.step}) "
                        f"returned {got!r}, not a pair.",
                        "Return the trigger and its version as a pair: (channel, version).",
                    )
                if any(got == pair for pair in expected):  # (a pair may hold a dict)
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
