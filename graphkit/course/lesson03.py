"""Checks for lesson 03, "State, channels and reducers" (``notebooks/03-state-channels-reducers``).

Each check runs the learner's answer on the real runtime and says what the records
show when it is wrong: which step, which node, which channel, which values.

>>> from graphkit.course.solutions import lesson03 as solutions
>>> bool(check_best_scores(solutions.best_scores))
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from graphkit.channels import EMPTY
from graphkit.course.checking import Wrong, compiled, exercise, failed_run
from graphkit.diagnostics.names import near_miss
from graphkit.errors import InvalidUpdateError
from graphkit.inspect.values import join_names, same_value

__all__ = ["check_best_scores", "check_fix_conflict", "check_output_schema"]


def _trace_or_wrong(app: Any, input: dict[str, Any]) -> Any:
    """``app.trace(input)``; a LastValue conflict or any other failure becomes ``Wrong``
    naming the step where it happened."""
    try:
        return app.trace(input)
    except InvalidUpdateError as error:
        raise Wrong(
            _conflict(app, error),
            "Keep both writes: give `results` a reducer (section 3), with "
            "Annotated[list, <a function that combines two lists>].",
        ) from error
    except Exception as error:
        _say_if_the_reducer_returns_none(app.spec.channels.get("results"))
        _say_if_it_starts_from_no_list(app.spec.channels.get("results"))
        raise failed_run(app, error) from error


def _conflict(app: Any, error: InvalidUpdateError) -> str:
    """What the failed Update met, from the records: the step, who wrote `results` what,
    and the channel's rule. (The runtime's own message ends with the fix, which is the
    exercise's answer: the hint points at it instead.)"""
    run = getattr(error, "run", None)
    last = run.steps[-1] if run is not None and run.steps else None
    results = last.execution.results if last is not None and last.execution else ()
    writes = [
        (result.task.node, value)
        for result in results
        for channel, value in result.writes
        if channel == "results"
    ]
    kind = type(app.spec.channels.get("results")).__name__
    rule = (
        "a plain key (a LastValue channel)"
        if kind == "LastValue"
        else f"{'an' if kind[0] in 'AEIOU' else 'a'} {kind} channel"
    )
    if last is None or len(writes) < 2:
        return f"The run failed in an Update with InvalidUpdateError: `results` is {rule}."
    writers = join_names([node for node, _ in writes])
    values = ", ".join(f"{value!r} from {node}" for node, value in writes)
    return (
        f"The run failed in step {last.step}'s Update with InvalidUpdateError: {writers} "
        f"{'both ' if len(writes) == 2 else ''}wrote `results` in that step ({values}), "
        f"and `results` is {rule}, which "
        "keeps one value per step. Of writes made at the same time none is the last, so "
        "the Update refused them."
    )


def _say_if_the_reducer_returns_none(channel: Any) -> None:
    """A reducer that returns None (``list.append``, or a function that extends
    ``current`` and forgets to return it): the next write meets None, and the run fails
    with a TypeError that does not say why."""
    reducer = getattr(channel, "operator", None)
    try:
        returned = reducer([], ["apple"]) if reducer is not None else ...
    except Exception:
        return
    if returned is None:
        raise Wrong(
            "Your reducer returned None when called with current = [] and update = "
            "['apple']. The Update keeps what the reducer returns, so the next write met "
            "None and the run failed. (list.append changes a list in place and returns None.)",
            "Return the combined list: a new list holding the items of both.",
        )


def _say_if_it_starts_from_no_list(channel: Any) -> None:
    """``Annotated[int, operator.add]`` (tokens' line, copied): the channel starts from
    ``int()``, and the first fold, ``0 + ['seed']``, fails with a TypeError that does not
    say where the 0 came from."""
    if getattr(channel, "operator", None) is None:
        return
    start = channel.checkpoint()
    if isinstance(start, list) or start is None or start is EMPTY:
        return
    kind = type(start).__name__
    empty = f"{kind}()" if repr(start) == f"{kind}()" else f"{kind}() = {start!r}"  # (set())
    raise Wrong(
        f"`results` is declared Annotated[{kind}, ...], so its channel starts from "
        f"{empty}, and its reducer failed folding the first list into "
        f"{start!r}: a reducer's channel starts from the empty value of the declared type.",
        "The nodes write lists: declare Annotated[list, ...].",
    )


def _items(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _refuse_in_place(channel: Any) -> None:
    """A reducer that changes the list it is given: graphkit folds into a copy, but in
    LangGraph the checkpoints it saves in the background and the chunks already streamed
    can share that list."""
    reducer = getattr(channel, "operator", None)
    current = ["seed"]
    if reducer is None:
        return
    try:
        reducer(current, ["new"])
    except Exception:  # (the runs above already passed: an odd probe proves nothing)
        return
    if current != ["seed"]:
        raise Wrong(
            "Your reducer changes the list it is given in place: called with current = "
            f"['seed'] and update = ['new'], it left current = {current!r}. graphkit folds "
            "into a copy, but in LangGraph a checkpoint saved in the background, or a "
            "chunk already streamed, can share that list: the history gets rewritten.",
            "Leave `current` as it is (no append, extend or += on it): build a new list "
            "holding the items of both, and return that. (Section 4 does the same for a "
            "dict.)",
        )


@exercise("3.1 · Fix the conflict")
def check_fix_conflict(builder: Any) -> str:
    """``a`` and ``b`` run in the same step and both write ``results``; both writes
    must reach the channel (and a value given as input must be kept)."""
    app = compiled(builder)
    missing = [node for node in ("a", "b") if node not in app.spec.nodes]
    if missing:
        raise Wrong(
            f"Your graph has no node {' or '.join(map(repr, missing))}; its nodes are "
            f"{sorted(n for n in app.spec.nodes if not n.startswith('__'))}.",
            "Keep the nodes a and b as they were; change only the state schema.",
        )
    run = _trace_or_wrong(app, {"results": []})
    steps = {s.step: s.plan.nodes for s in run.steps if s.step >= 0}
    step_of = {node: [n for n, nodes in steps.items() if node in nodes] for node in ("a", "b")}
    for node, ran in step_of.items():
        if not ran:
            raise Wrong(
                f"{node} never ran: the run's steps ran {steps}.",
                "Keep the edges START → a and START → b.",
            )
    if step_of["a"][0] != step_of["b"][0]:
        raise Wrong(
            f"a ran at step {step_of['a'][0]} and b at step {step_of['b'][0]}: they no longer "
            "run in parallel, so there is no conflict left to fix.",
            "Keep the edges START → a and START → b, and fix the state schema instead.",
        )
    step = run.step(step_of["a"][0])
    writes = {
        result.task.node: value
        for result in step.execution.results
        for channel, value in result.writes
        if channel == "results"
    }
    if set(writes) != {"a", "b"}:
        raise Wrong(
            f"In step {step.step}, only {sorted(writes) or 'no node'} wrote `results`.",
            "Keep both nodes writing `results`: the point is to keep both writes.",
        )
    change = step.update.change("results")
    after = change.after if change is not None else None
    if after is not None and not isinstance(after, (list, tuple)):  # ('apple' in text: kept)
        raise Wrong(
            f"Step {step.step} had two writes to `results`, {writes['a']!r} from a and "
            f"{writes['b']!r} from b, and after its Update `results` is {after!r}, "
            f"{'an' if type(after).__name__[0] in 'aeiou' else 'a'} {type(after).__name__}, "
            "not a list.",
            "A reducer for a plain list returns a list: the items of both lists in one new list.",
        )
    lost = [node for node, value in writes.items() if not _kept(value, after)]
    written = [item for node in ("a", "b") for item in _items(writes[node])]
    if lost and all(_nested(writes[node], after) for node in lost):
        raise Wrong(*_kept_whole(app, step.step, writes, after))
    if lost and _changed(written, after):
        raise Wrong(*_changed_items(app, step.step, writes, after))
    if lost:
        raise Wrong(
            f"Step {step.step} had two writes to `results`, {writes['a']!r} from a and "
            f"{writes['b']!r} from b, but after its Update `results` is {after!r}: the write "
            f"of {' and '.join(lost)} was lost.{_kind_says(app)}",
            "Your reducer must combine the value so far with each new write, not replace it.",
        )
    seeded = _trace_or_wrong(app, {"results": ["seed"]})
    if "seed" not in _items(seeded.values.get("results")):
        raise Wrong(
            f"Started from results=['seed'], the run ended with results="
            f"{seeded.values.get('results')!r}: the input's value was lost.{_kind_says(app)}",
            "The reducer also combines the input with the channel's starting value, and "
            "then every write with the value so far: keep the old items.",
        )
    # (from ['seed'] too: a reducer that stops adding past two items kept both from [])
    lost = [node for node, value in writes.items() if not _kept(value, seeded.values["results"])]
    if lost:
        raise Wrong(
            f"Started from results=['seed'], the run ended with results="
            f"{seeded.values['results']!r}: the write of {' and '.join(lost)} was lost.",
            "Your reducer must combine the value so far with each new write, whatever "
            "the value so far holds.",
        )
    _refuse_in_place(app.spec.channels.get("results"))
    return (
        f"Both writes reached `results` in step {step.step}: {change.values!r} met in the "
        f"reducer {change.reducer}, giving {after!r}."
    )


_KINDS = {  # what lesson 03's table says of each kind a learner may pick instead
    "Topic": "it holds one step's writes, and a step without a write clears it",
    "AnyValue": "it keeps one of a step's writes, assuming they are equal",
    "EphemeralValue": "it holds only the previous step's write",
}


def _kind_says(app: Any) -> str:
    """For `results` declared as a channel kind rather than with a reducer: that kind's
    rule, and that a reducer is what keeps every write."""
    kind = type(app.spec.channels.get("results")).__name__
    if kind not in _KINDS:
        return ""
    return (
        f" `results` is {'an' if kind[0] in 'AEIOU' else 'a'} {kind} channel: {_KINDS[kind]}. "
        "A reducer, "
        "Annotated[list, <a function that combines two lists>], keeps every write."
    )


def _changed(written: list[Any], after: Any) -> bool:
    """Whether ``after`` holds as many items as were ``written``, none of them one written
    and none a list (those are a write kept whole): each item was changed."""
    if not isinstance(after, list) or len(after) != len(written):
        return False
    return not any(isinstance(item, list) for item in after) and not any(
        _kept([item], after) for item in written
    )


def _nested(value: Any, after: Any) -> bool:
    """Whether the write ``value`` is an item of ``after``, or of a list inside it
    (``current + [new]`` keeps each write whole, as one item)."""
    if not isinstance(after, list):
        return False
    return any(same_value(item, value) or _nested(value, item) for item in after)


def _your_reducer(app: Any) -> tuple[str, str]:
    """``Your reducer, <its name>,`` (no name for a lambda: ``<lambda>`` names nothing
    a learner wrote), and that name."""
    reducer = getattr(app.spec.channels.get("results"), "operator", None)
    name = getattr(reducer, "__name__", "<lambda>")
    return ("Your reducer" if name == "<lambda>" else f"Your reducer, {name},"), name


def _kept_whole(app: Any, step: int, writes: dict[str, Any], after: list) -> tuple[str, str]:
    """For a reducer that put each list it was given into `results` as one item
    (``current + [new]``): what it did, and a hint. "Lost" would be untrue."""
    yours, _ = _your_reducer(app)
    return (
        f"Step {step} had two writes to `results`, {writes['a']!r} from a and "
        f"{writes['b']!r} from b, and after its Update `results` is {after!r}: each write is "
        f"in it as one item: a list inside the list. {yours} added the list it was given "
        "as a whole.",
        "Add the items of the new list, not the list itself: a reducer for a plain list "
        "returns the items of both lists in one new list.",
    )


def _changed_items(app: Any, step: int, writes: dict[str, Any], after: list) -> tuple[str, str]:
    """For a reducer that kept as many items as were written, but not those (add_messages
    makes a message of each string): what it did, and a hint. "Lost" would be untrue."""
    yours, name = _your_reducer(app)
    count = {1: "one", 2: "two", 3: "three"}.get(len(after), str(len(after)))
    shown = repr(after)  # (a chat message's repr runs past a line: then its kind is shown)
    if len(shown) > 60:
        shown = "[" + ", ".join(type(item).__name__ for item in after) + "]"
    what = (
        " (it makes a chat message of each: it is the reducer of a list of messages)"
        if name == "add_messages"
        else ""
    )
    return (
        f"Step {step} had two writes to `results`, {writes['a']!r} from a and "
        f"{writes['b']!r} from b, and after its Update `results` holds {count} items, but "
        f"not those: {shown}. {yours} changed each item it was given{what}.",
        "Keep the items as they were written: a reducer for a plain list returns the items "
        "of both lists, unchanged, in one new list.",
    )


def _kept(value: Any, after: Any) -> bool:
    try:
        return all(item in after for item in _items(value))
    except TypeError:
        return False


_SCORE_CASES: tuple[tuple[dict[str, int], dict[str, int], dict[str, int]], ...] = (
    ({}, {"ann": 3}, {"ann": 3}),
    ({"ann": 3}, {"ann": 5, "bob": 1}, {"ann": 5, "bob": 1}),
    ({"ann": 5, "bob": 1}, {"ann": 2}, {"ann": 5, "bob": 1}),
    ({"cy": -2}, {"cy": -7, "dee": 0}, {"cy": -2, "dee": 0}),
    ({"ann": 4, "bob": 4}, {}, {"ann": 4, "bob": 4}),
    # a player on one side only keeps a negative score (a default of 0 would lift it)
    ({"ann": 1}, {"zed": -3}, {"ann": 1, "zed": -3}),
    ({"zed": -3}, {"ann": 1}, {"zed": -3, "ann": 1}),
)


@exercise("3.2 · A reducer that keeps the best score")
def check_best_scores(reducer: Callable[[Any, Any], Any]) -> str:
    """``reducer(current, update)`` merges two score dicts, keeping the higher score
    per player, without changing its arguments; then it runs as the reducer of a
    channel written by three judges at once."""
    if not callable(reducer):
        raise Wrong(
            f"Expected a function (current, update) -> new value, got {type(reducer).__name__}.",
            "Define def best_scores(current: dict, update: dict) -> dict.",
        )
    for current, update, expected in _SCORE_CASES:
        before = (dict(current), dict(update))
        got = reducer(current, update)
        if (current, update) != before:
            raise Wrong(
                f"best_scores({before[0]!r}, {before[1]!r}) changed its arguments (they became "
                f"{current!r} and {update!r}).",
                "A reducer must not change the value it is given (in LangGraph a saved "
                "checkpoint or a streamed chunk may still hold it): build a new dict, e.g. "
                "merged = dict(current), and change that.",
            )
        if got != expected:
            raise Wrong(
                f"best_scores({current!r}, {update!r}) returned {got!r}; expected {expected!r}.",
                "Start from every player in current, then for each player in update keep the "
                "higher of the two scores (a player in only one of them keeps theirs).",
            )
    return _judges_run(reducer)


def _judges_run(reducer: Callable[[Any, Any], Any]) -> str:
    from graphkit import START, StateGraph

    # The functional form: a class body's annotations would be read as strings here,
    # and the local name `reducer` could not be resolved from them.
    judged = TypedDict("Judged", {"scores": Annotated[dict, reducer]})  # noqa: UP013
    builder = StateGraph(judged)
    judges = {"judge_1": {"ann": 4}, "judge_2": {"ann": 9, "bob": 2}, "judge_3": {"bob": 7}}
    for name, scores in judges.items():
        builder.add_node(name, lambda state, scores=scores: {"scores": scores})
        builder.add_edge(START, name)
    builder.add_node("late", lambda state: {"scores": {"ann": 1, "cy": 5}})
    builder.add_edge("judge_1", "late")
    run = builder.compile().trace({"scores": {}})
    expected = {"ann": 9, "bob": 7, "cy": 5}
    if run.values.get("scores") != expected:
        raise Wrong(
            f"As the reducer of `scores`, with three judges writing {list(judges.values())} in "
            f"step 1 and {{'ann': 1, 'cy': 5}} in step 2, the run ended with "
            f"{run.values.get('scores')!r}; expected {expected!r}.",
            "Run the judges' graph yourself and read run.to_frame('changes').",
        )
    change = run.step(1).update.change("scores")
    return (
        f"Right on every case. In a graph, step 1's three writes met in your reducer "
        f"({change.before!r} → {change.after!r}) and step 2 kept ann's 9: {expected!r}."
    )


_TOPICS = ("tides", "volcanoes", "bees")


def _invoke_failed(app: Any, topic: str, error: Exception) -> Wrong:
    """``invoke({"topic": topic})`` raised ``error``: traced again, the step and node that
    failed, and for a key the state never got (a `topic` the input schema dropped), why."""
    try:
        app.trace({"topic": topic})
    except Exception as traced:
        error = traced  # (the same failure, now with its run: error.run)
    wrong = failed_run(app, error)
    if "topic" in str(error):
        hint = (
            "The input still needs `topic`: keep the input schema (or the state schema) "
            "holding it, and change only what invoke returns."
        )
    elif isinstance(error, KeyError):
        hint = (
            "Keep every key the nodes read (topic, notes) in the state schema; the "
            "output schema only chooses what invoke returns."
        )
    else:  # (a node changed: it returns no dict, or raises)
        hint = "Keep research and write as they were: only the StateGraph(...) line changes."
    invoked = f"invoke({{'topic': {topic!r}}})"
    return Wrong(wrong.message.replace("Running your graph", invoked, 1), hint)


def _returned_nothing(app: Any, topic: str, returned: Any) -> Wrong:
    """invoke returned no dict: the output schema has no key, or only keys no node writes."""
    invoked = f"invoke({{'topic': {topic!r}}}) returned {returned!r}, not a dict"
    hint = (
        "StateGraph(State, output_schema=...) takes a TypedDict whose keys are what invoke returns."
    )
    keys = list(app.spec.output_keys)
    if not keys:
        return Wrong(f"{invoked}: your output schema names no key.", hint)
    slip = near_miss(keys[0], ["report"]) if len(keys) == 1 else None
    meant = f" (did you mean {slip!r}?)" if slip else ""
    return Wrong(
        f"{invoked}: no node writes {join_names(keys)}{meant}, the "
        f"key{'s' if len(keys) > 1 else ''} your output schema names, so invoke had "
        "nothing to return.",
        hint + " Name there a key that a node writes.",
    )


def _say_if_given_as_the_context_schema(app: Any, topic: str, returned: dict) -> None:
    """StateGraph(State, Output): the second positional argument is the context schema."""
    builder = app.builder
    context = getattr(builder, "context_schema", None)
    if context is None or builder.output_schema is not builder.state_schema:
        return  # (an output schema was given: its keys are said below)
    name = getattr(context, "__name__", repr(context))
    raise Wrong(
        f"invoke({{'topic': {topic!r}}}) returned the keys {sorted(returned)}: {name} "
        "became your graph's context schema, not its output schema. StateGraph's second "
        "argument, given without a name, is the context schema (what a run is given "
        "besides its state).",
        f"Pass it by name: StateGraph(ReportState, output_schema={name}).",
    )


@exercise("3.3 · Return only the report")
def check_output_schema(builder: Any) -> str:
    """``invoke({"topic": ...})`` returns only ``{"report": ...}``, while the graph's
    state still keeps its working keys (``notes``)."""
    app = compiled(builder)
    for topic in _TOPICS:
        try:
            returned = app.invoke({"topic": topic})
        except Exception as error:
            raise _invoke_failed(app, topic, error) from error
        if not isinstance(returned, dict):
            raise _returned_nothing(app, topic, returned)
        if set(returned) != {"report"}:
            _say_if_given_as_the_context_schema(app, topic, returned)
            raise Wrong(
                f"invoke({{'topic': {topic!r}}}) returned the keys {sorted(returned)}; "
                "expected only ['report'].",
                "StateGraph(State, output_schema=...) takes a TypedDict whose keys are what "
                "invoke returns.",
            )
        if topic not in str(returned["report"]):
            raise Wrong(
                f"For topic {topic!r} the report is {returned['report']!r}, which does not "
                "mention the topic.",
                "Keep the nodes research and write as they were.",
            )
    run = app.trace({"topic": _TOPICS[0]})
    if "notes" not in run.values:
        raise Wrong(
            f"The run's state has no `notes` any more (its keys: {sorted(run.values)}); "
            "research's notes were dropped instead of kept private.",
            "Keep `notes` in the state schema; the output schema only chooses what invoke returns.",
        )
    return (
        f"invoke returns {returned!r}, while the state still holds "
        f"{sorted(run.values)} (see app.trace(...).values)."
    )
