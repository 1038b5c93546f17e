"""Checks for lesson 05: ``Send`` and map-reduce, ``Command``, subgraphs.

Each check builds a small graph around the learner's function, runs it on the real
runtime on several inputs, and reads the records: which tasks were planned (pull or
push), what each task received, what a ``Command`` routed to, and which subgraph runs
a task holds in ``TaskResult.subruns``.

>>> from graphkit.course.solutions import lesson05 as solutions
>>> bool(check_fan_out(solutions.fan_out))
True
"""

from __future__ import annotations

import functools
import inspect
import operator
import typing
import warnings
from collections.abc import Hashable
from typing import Annotated, Any, TypedDict

from graphkit.course.checking import Wrong, counted, exercise, trace

__all__ = [
    "check_call_subgraph",
    "check_fan_out",
    "check_triage",
    "fan_out_graph",
    "triage_graph",
    "word_count_graph",
    "word_count_parent",
]


def _run(app: Any, input: Any) -> tuple[Any, list[str]]:
    """Trace ``app`` on ``input``; return the run and the GraphkitWarnings it raised."""
    from graphkit.errors import GraphkitWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", GraphkitWarning)
        run = trace(app, input)
    return run, [str(w.message) for w in caught if issubclass(w.category, GraphkitWarning)]


# -- 5.1 · Map with Send ------------------------------------------------------------------


class Batch(TypedDict):
    """The state of the map-reduce exercise: items in, one result per item out."""

    items: list[str]
    results: Annotated[list[str], operator.add]
    report: str


def _split(state: Batch) -> dict:
    return {"items": [item.strip() for item in state["items"]]}


def _work(state: dict) -> dict:
    # A push task gets the packet as its whole input; a pull task gets the whole state.
    item = state.get("item") if isinstance(state, dict) else None
    return {"results": [f"{item}".upper()]}


def _collect(state: Batch) -> dict:
    return {"report": ", ".join(sorted(state["results"]))}


def fan_out_graph(fan_out: Any) -> Any:
    """The exercise's graph: ``split`` → ``fan_out`` (your router) → ``work`` → ``collect``.

    ``work`` reads the item from its own input, ``{"item": ...}``, and writes
    ``{"results": [ITEM]}``; ``results`` adds up (``operator.add``).
    """
    from graphkit import END, START, StateGraph

    builder = StateGraph(Batch)
    builder.add_node("split", _split)
    builder.add_node("work", _work)
    builder.add_node("collect", _collect)
    builder.add_edge(START, "split")
    builder.add_conditional_edges("split", fan_out, ["work"])
    builder.add_edge("work", "collect")
    builder.add_edge("collect", END)
    return builder.compile()


@exercise("5.1 · Map with Send")
def check_fan_out(fan_out: Any) -> str:
    """``fan_out(state)`` must send one packet ``{"item": x}`` to ``work`` per item, so
    each item is its own PUSH task, all in one step, and ``results`` gets every result."""
    app = fan_out_graph(fan_out)
    # (a repeated item: one task per item, not per distinct item)
    for items in (
        ["ant", "bee", "cat"],
        ["solo"],
        ["ant", "bee", "ant"],
        ["a", "b", "c", "d", "e"],
    ):
        try:
            run, warned = _run(app, {"items": items, "results": []})
        except Wrong:
            _say_if_a_generator(fan_out, items)
            raise
        work = [t for s in run.steps for t in s.plan.tasks if t.node == "work"]
        steps = sorted({t.step for t in work})
        dropped = [w for w in warned if "a Send targets" in w]
        if not work and dropped:
            raise Wrong(
                f"With items {items}, `work` never ran: {dropped[0]}",
                hint="The first argument of Send is the name of the node to run: 'work'.",
            )
        if not work:
            raise Wrong(
                f"With items {items}, `work` never ran: fan_out sent nothing, so after "
                "`split` (step 1) no task was planned and the run ended.",
                hint="Return a list of Send('work', {...}) packets from fan_out.",
            )
        pulls = [t for t in work if t.kind != "push"]
        if pulls:
            raise Wrong(
                f"`work` ran as a {pulls[0].kind} task in step {pulls[0].step} (woken by "
                f"{', '.join(pulls[0].triggers)}), so it got the whole state instead of one "
                "item. Returning a node's name runs it once; a Send runs it once per packet.",
                hint="A router may return packets instead of names: a Send per item, each the "
                "input of its own work task.",
            )
        if len(steps) > 1:
            raise Wrong(
                f"The `work` tasks ran in steps {steps}; a fan-out puts them all in one step.",
                hint="Send every packet from one call of fan_out.",
            )
        inputs = [t.input for t in work]
        if len(work) != len(items):
            raise Wrong(
                f"With {len(items)} items {items}, step {steps[0]} planned "
                f"{counted(len(work), 'push task')} of `work`, with inputs {inputs}; one task "
                "per item was expected.",
                hint="One Send per item of state['items'].",
            )
        bad = [value for value in inputs if not (isinstance(value, dict) and "item" in value)]
        if bad:
            raise Wrong(
                f"A `work` task received {bad[0]!r} as its input; `work` reads its item from "
                "the key 'item' of its own input, e.g. {'item': 'ant'}.",
                hint="The second argument of Send is the task's whole input.",
            )
        sent = sorted(value["item"] for value in inputs)
        if sent != sorted(items):
            raise Wrong(
                f"The push tasks received the items {sent}, but the state's items were "
                f"{sorted(items)}: each item must go to exactly one task.",
                hint="Loop over state['items'].",
            )
        expected = sorted(item.upper() for item in items)
        if sorted(run.values["results"]) != expected:
            raise Wrong(
                f"`results` ended as {run.values['results']}, expected (in any order) {expected}.",
                hint="Keep `work` as it is; send it the items.",
            )
    return (
        "One push task per item, all in one step; the add reducer collected every result "
        "(5 items → 5 tasks in step 2, then `collect` once in step 3)."
    )


def _say_if_a_generator(fan_out: Any, items: list[str]) -> None:
    """A router that yields its packets (a generator expression, not a list): the run
    fails with a KeyError of the generator object, as in LangGraph."""
    if inspect.iscoroutinefunction(fan_out):
        return  # (the run says an async router needs an async run)
    try:
        returned = fan_out({"items": items, "results": []})
    except Exception:  # (a router that fails fails in the run too, and is told so)
        return
    if inspect.isgenerator(returned):
        raise Wrong(
            "fan_out returned a generator, not a list: a router's answer is read as a "
            "whole, so the run took the generator itself for a node's name and failed.",
            hint="Return a list: put the expression in square brackets, [Send(...) for ...].",
        )


# -- 5.2 · Command: update and route in one return -----------------------------------------


class Payment(TypedDict):
    """The state of the Command exercise."""

    amount: int
    level: str
    log: Annotated[list[str], operator.add]


_LEVELS = {"approve": "low", "review": "medium", "reject": "high"}
_LOGGED = "received"  # what the payment's log holds before triage runs


def _destination(name: str) -> Any:
    def node(state: Payment) -> dict:
        return {"log": [name]}

    node.__name__ = name
    return node


def triage_graph(triage: Any) -> Any:
    """The exercise's graph: START → ``triage`` (your node) → approve | review | reject.

    Only ``triage``'s ``Command`` leads to the three destinations: no edge does.
    """
    from graphkit import START, StateGraph

    builder = StateGraph(Payment)
    builder.add_node("triage", triage)
    for name in _LEVELS:
        builder.add_node(name, _destination(name))
    builder.add_edge(START, "triage")
    return builder.compile()


def _expected_route(amount: int) -> str:
    if amount <= 100:
        return "approve"
    return "review" if amount <= 1000 else "reject"


def _first_after_triage(run: Any) -> list[str]:
    """The nodes of the first step after triage's (step 1) that ran any task."""
    after = [s.plan.nodes for s in run.steps if s.step >= 2 and s.plan.tasks]
    return after[0] if after else []


@exercise("5.2 · Update and route with Command")
def check_triage(triage: Any) -> str:
    """``triage`` returns ``Command(update={"level": ...}, goto=...)``: amounts up to 100
    are approved (low), up to 1000 reviewed (medium), above rejected (high); its
    destinations are declared, so the graph knows (and draws) where it can go."""
    from graphkit.errors import GraphkitWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", GraphkitWarning)
        app = triage_graph(triage)
    never = [str(w.message) for w in caught if "nothing leads to it" in str(w.message)]
    if never:
        hint = "Annotate the node: def triage(state) -> Command[Literal['approve', ...]]:"
        if isinstance(triage, functools.partial):  # (LangGraph reads none through it either)
            hint = (
                "A functools.partial hides the annotation of the function it wraps from the "
                "graph: pass triage itself, annotated -> Command[Literal['approve', ...]]."
            )
        _refuse_langgraph_annotation(triage)
        raise Wrong(
            "The graph cannot see where triage goes: compiling it warned\n  " + never[0], hint
        )
    amounts = (5, 100, 101, 640, 1000, 1001, 50_000)
    # (a log already started shows an update that writes `log` again: its reducer adds it twice)
    runs = {amount: _run(app, {"amount": amount, "log": [_LOGGED]})[0] for amount in amounts}
    ran = {amount: _first_after_triage(run) for amount, run in runs.items()}
    misrouted = [a for a in amounts if ran[a] and ran[a] != [_expected_route(a)]]
    for amount in amounts:
        run, route = runs[amount], _expected_route(amount)
        if not ran[amount]:
            output = run.step(1).execution.results[0].output if len(run.steps) > 2 else None
            goto = getattr(output, "goto", None)
            if goto is not None and goto != () and goto != []:
                raise Wrong(
                    f"With amount={amount}, nothing ran after triage: its Command went to "
                    f"{goto!r}, which is not one of the nodes approve, review, reject"
                    + (" (END ends the run)." if goto == "__end__" else "."),
                    hint="goto names the node to run next, spelt as in the graph.",
                )
            raise Wrong(
                f"With amount={amount}, nothing ran after triage: it returned a "
                f"{type(output).__name__} ({output!r}), which updates the state but routes "
                "nowhere.",
                hint="Return Command(update={...}, goto='...'): both in one return.",
            )
        if amount in misrouted:
            only_boundaries = set(misrouted) <= {100, 101, 1000, 1001}
            raise Wrong(
                f"With amount={amount}, step 2 ran {ran[amount]}; expected [{route!r}] "
                "(≤ 100 approve, ≤ 1000 review, above reject).",
                hint="Check the boundaries: 100 is approved, 1000 is reviewed."
                if only_boundaries
                else "Compare state['amount'] with 100 and 1000 and go to a different node "
                "for each range.",
            )
        level = run.values.get("level")
        if level != _LEVELS[route]:
            raise Wrong(
                f"With amount={amount}, triage routed to {route} (right) but set level to "
                f"{level!r}; expected {_LEVELS[route]!r}.",
                hint="The Command's update carries the level; goto carries the route.",
            )
        _say_if_the_log_was_written_again(run, amount, route)
    return "triage updated `level` and routed in one return, right on all 7 amounts."


def _refuse_langgraph_annotation(triage: Any) -> None:
    """``-> Command[Literal[...]]`` written with LangGraph's Command: the graph reads
    destinations from graphkit's only, so "annotate the node" would not help."""
    try:
        returns = typing.get_type_hints(triage).get("return")
    except Exception:  # (no function, or an annotation that does not resolve)
        return
    origin = typing.get_origin(returns) or returns
    module = getattr(origin, "__module__", "")
    if module.partition(".")[0] == "langgraph":
        raise Wrong(
            f"triage is annotated with {getattr(origin, '__name__', origin)} from {module}, "
            "LangGraph's class: graphkit reads the destinations only from its own "
            "Command, so the graph cannot see where triage goes.",
            "Import it from graphkit: from graphkit import Command (keep the annotation).",
        )


def _say_if_the_log_was_written_again(run: Any, amount: int, route: str) -> None:
    """When triage's update wrote `log` too (the whole state, say), the add reducer
    appended what the log held a second time: name that write."""
    log, expected = run.values.get("log"), [_LOGGED, route]
    if log == expected:
        return
    wrote = [value for node, channel, value in run.step(1).execution.writes if channel == "log"]
    what = f"triage's Command wrote log = {wrote[0]!r} too" if wrote else "log was changed"
    raise Wrong(
        f"With amount={amount} and log = [{_LOGGED!r}], triage routed and set level right, "
        f"but log ended as {log!r} instead of {expected!r}: {what}, and log's add reducer "
        "appended it to what log held.",
        hint="Put in the update only the key triage changes: a Command's update, like a "
        "returned dict, is a set of writes, not the new state.",
    )


# -- 5.3 · A subgraph with its own schema ------------------------------------------------


class Counting(TypedDict):
    """The child graph's state: a document in, its word count out."""

    doc: str
    count: int


class Article(TypedDict):
    """The parent graph's state."""

    text: str
    words: int
    summary: str


def word_count_graph() -> Any:
    """The child graph: ``tokenize`` → ``tally``, on ``{"doc": str}`` → ``{"count": int}``."""
    from graphkit import END, START, StateGraph

    def tokenize(state: Counting) -> dict:
        return {"doc": " ".join(state["doc"].split())}

    def tally(state: Counting) -> dict:
        return {"count": len(state["doc"].split(" ")) if state["doc"] else 0}

    builder = StateGraph(Counting)
    builder.add_node("tokenize", tokenize)
    builder.add_node("tally", tally)
    builder.add_edge(START, "tokenize")
    builder.add_edge("tokenize", "tally")
    builder.add_edge("tally", END)
    return builder.compile()


def word_count_parent(count_words: Any) -> Any:
    """The exercise's parent graph: START → ``count_words`` (your node) → ``report``."""
    from graphkit import END, START, StateGraph

    def report(state: Article) -> dict:
        return {"summary": f"{state.get('words')} words"}

    builder = StateGraph(Article)
    builder.add_node("count_words", count_words)
    builder.add_node("report", report)
    builder.add_edge(START, "count_words")
    builder.add_edge("count_words", "report")
    builder.add_edge("report", END)
    return builder.compile()


def _refuse_the_child_as_the_node(count_words: Any) -> None:
    """A compiled graph of other keys given as count_words became the node itself: it got
    none of the parent's keys (the lesson's trap), so say that, not how it was invoked."""
    from graphkit.pregel.app import CompiledGraph

    if not isinstance(count_words, CompiledGraph):
        return
    keys = [key for key in count_words.stream_channels_list if not key.startswith("__")]
    if "text" in keys:
        return
    raise Wrong(
        "You passed word_counter itself as count_words, so it was added as the node. A "
        "subgraph added as a node gets only the parent's keys its own schema shares: its "
        f"keys are {', '.join(keys)}, so it got none of the parent's keys (text) to "
        "count, and nothing it returns lands in words.",
        hint="Write a node function, def count_words(state): ..., that invokes word_counter "
        "and translates the keys both ways.",
    )


def _say_if_the_child_failed(error: BaseException | None, text: str) -> None:
    """When the subgraph itself raised (a node of it read a key its input lacked), say
    so with the keys it was given; otherwise leave the failure as it was."""
    from graphkit.inspect.values import show, show_error

    run = getattr(error, "run", None)
    results = run.steps[-1].execution.results if run and run.steps[-1].execution else ()
    failed = [sub for result in results for sub in result.subruns if sub.status == "error"]
    if not failed:
        _say_if_the_childs_result_was_misread(error, results, text)
        _say_if_a_child_key_was_read_from_the_parent(error, results, text)
        return
    child = failed[0]
    execution = child.steps[-1].execution
    node = next((r.task.node for r in execution.results if r.error is not None), None)
    where = f", in its node {node}" if node else ""
    given = child.steps[0].execution.results[0].writes[0][1]  # the input step's one write
    keys = f"the keys {sorted(given)}" if isinstance(given, dict) else show(given)
    ignored = ", and it ignores a key it does not know" if isinstance(given, dict) else ""
    raise Wrong(
        f"With text={text!r}, word_counter itself failed{where}: "
        f"{show_error(error).rstrip('.')}. You invoked it with {keys}; its state has the "
        f"keys {list(child.state_keys)}{ignored}.",
        hint="Give the child its own keys: word_counter.invoke({'doc': ...}).",
    ) from error


def _say_if_the_childs_result_was_misread(
    error: BaseException | None, results: Any, text: str
) -> None:
    """When count_words read a key the child's result lacks (the parent's ``words``)
    after the child finished, say which keys that result has."""
    done = [sub for result in results for sub in result.subruns if sub.status == "done"]
    key = _missing_key(error)
    if not done or key is None:
        return
    values = dict(done[-1].values)
    if key in values:
        return
    raise Wrong(
        f"With text={text!r}, word_counter ran and finished, then count_words raised "
        f"KeyError: {key!r}. What word_counter.invoke returns is the child's state, "
        f"{values}: it has the child's keys {sorted(values)}, not the parent's.",
        hint="Translate on the way out too: read the child's key from the result, and "
        "return it under the parent's key.",
    ) from error


def _say_if_a_child_key_was_read_from_the_parent(
    error: BaseException | None, results: Any, text: str
) -> None:
    """When count_words read one of the child's keys (``doc``) from its own state, the
    parent's, before any subgraph ran: say whose keys those are."""
    ran = [sub for result in results for sub in result.subruns]
    key = _missing_key(error)
    if ran or key is None:
        return
    if key not in Counting.__annotations__ or key in Article.__annotations__:
        return
    raise Wrong(
        f"With text={text!r}, count_words raised KeyError: {key!r} before word_counter ran. "
        f"count_words receives the parent's state, whose keys are "
        f"{sorted(Article.__annotations__)}; {key!r} is a key of the child's state.",
        "Translate on the way in: read the parent's key, and hand it to the child under "
        "the child's key.",
    ) from error


def _missing_key(error: BaseException | None) -> Hashable | None:
    """The key a ``KeyError`` names, if it could be a dict's key: ``KeyError(['a'])``
    (raised by the learner's own code, or a pandas lookup) names none, and looking it
    up in a dict would raise ``TypeError`` inside the check."""
    if not (isinstance(error, KeyError) and error.args):
        return None
    key = error.args[0]
    try:
        hash(key)
    except TypeError:
        return None
    return key


@exercise("5.3 · Call a subgraph with another schema")
def check_call_subgraph(count_words: Any) -> str:
    """``count_words(state)`` invokes the word-count subgraph with ``{"doc": text}`` and
    returns ``{"words": count}``; its run must appear in the task's ``subruns``."""
    _refuse_the_child_as_the_node(count_words)
    app = word_count_parent(count_words)
    for text in ("the quick brown fox", "one", "  spaced   out  words  ", ""):
        try:
            run, warned = _run(app, {"text": text})
        except Wrong as wrong:
            _say_if_the_child_failed(wrong.__cause__, text)
            raise
        expected = len(text.split())
        result = run.step(1).execution.results[0]
        dropped = [w for w in warned if "not in the state schema" in w]
        if dropped:
            raise Wrong(
                f"With text={text!r}, graphkit dropped a write: {dropped[0]}",
                hint="Translate both ways: {'doc': ...} into the child, {'words': ...} out.",
            )
        if not result.subruns:
            raise Wrong(
                f"With text={text!r}, count_words ran no subgraph (its TaskResult has no "
                "subruns): the word-count graph must do the counting.",
                hint="Let the word-count graph count: inside count_words, run it on the text, in "
                "the keys of its own schema, and translate what it returns into yours.",
            )
        sub = result.subruns[0]
        counted = [dict(r.values).get("count") for r in result.subruns]
        if expected not in counted:
            doc = dict(result.subruns[0].values).get("doc")
            raise Wrong(
                f"With text={text!r}, the subgraph counted {counted[0]!r} (its doc was "
                f"{doc!r}), but the text has {expected} words: the subgraph must count the "
                "parent's text itself.",
                hint="Pass the parent's text in as the child's doc: word_counter.invoke({'doc': "
                "...}).",
            )
        if run.values.get("words") != expected:
            raise Wrong(
                f"With text={text!r}, `words` ended as {run.values.get('words')!r}; the "
                f"subgraph's own output was {dict(sub.values)!r}; expected {expected}.",
                hint="Return {'words': <the subgraph's count>}.",
            )
    return (
        f"The subgraph ran inside count_words (namespace {sub.namespace[0].split(':')[0]}:…) "
        "and its count came back as `words`, on all 4 texts."
    )
