"""Checks for lesson 07 · Checkpoints, memory and time travel.

Each check builds its own checkpointed graph and a fresh thread, runs the learner's
function on it, and then reads the thread back (``get_state``, ``get_state_history``) to
see what really happened: which checkpoint was replayed, which nodes ran again, where
``update_state`` wrote. The learner's code cannot pass by returning the right words.

>>> from graphkit.course.solutions import lesson07 as solutions
>>> bool(check_replay(solutions.replay_from))
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, TypedDict

from graphkit.course.answers import refuse_unread_stream, whole_number
from graphkit.course.checking import Wrong, counted, exercise, ran_again, what_was_given

__all__ = ["check_fix_city", "check_history", "check_replay", "forecast_app", "pipeline_app"]


# -- the graphs the checks run ----------------------------------------------------------


class Doc(TypedDict, total=False):
    url: str
    text: str
    cleaned: str
    summary: str


def pipeline_app() -> tuple[Any, Counter[str]]:
    """``fetch → clean → summarize`` with an ``InMemorySaver``, and a counter of how many
    times each node ran (the counter lives outside the state, like any side effect)."""
    from graphkit import END, START, InMemorySaver, StateGraph

    calls: Counter[str] = Counter()

    def fetch(state: Doc) -> dict:
        calls["fetch"] += 1
        return {"text": f"  <p>News from {state['url']}</p>  "}

    def clean(state: Doc) -> dict:
        calls["clean"] += 1
        return {"cleaned": state["text"].strip().removeprefix("<p>").removesuffix("</p>")}

    def summarize(state: Doc) -> dict:
        calls["summarize"] += 1
        return {"summary": state["cleaned"][:20]}

    builder = StateGraph(Doc)
    for node in (fetch, clean, summarize):
        builder.add_node(node.__name__, node)
    builder.add_edge(START, "fetch")
    builder.add_edge("fetch", "clean")
    builder.add_edge("clean", "summarize")
    builder.add_edge("summarize", END)
    return builder.compile(checkpointer=InMemorySaver()), calls


WEATHER = {"Paris": "Sunny", "London": "Rainy", "Oslo": "Snowy", "Rome": "Hot"}


class Forecast(TypedDict, total=False):
    city: str
    forecast: str
    report: str


def forecast_app() -> tuple[Any, Counter[str]]:
    """``lookup → compose`` with an ``InMemorySaver``: ``lookup`` finds the city's weather
    (``"unknown"`` for a misspelt city), ``compose`` writes the report
    ``"<forecast> in <city>"``."""
    from graphkit import END, START, InMemorySaver, StateGraph

    calls: Counter[str] = Counter()

    def lookup(state: Forecast) -> dict:
        calls["lookup"] += 1
        return {"forecast": WEATHER.get(state["city"], "unknown")}

    def compose(state: Forecast) -> dict:
        calls["compose"] += 1
        # .get: an edit counted as lookup's output makes compose run with no forecast
        return {"report": f"{state.get('forecast', 'no forecast')} in {state['city']}"}

    builder = StateGraph(Forecast)
    builder.add_node("lookup", lookup)
    builder.add_node("compose", compose)
    builder.add_edge(START, "lookup")
    builder.add_edge("lookup", "compose")
    builder.add_edge("compose", END)
    return builder.compile(checkpointer=InMemorySaver()), calls


def _thread(name: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": name}}


def _history(app: Any, config: Mapping[str, Any]) -> list[Any]:
    return list(app.get_state_history(_latest(config)))


def _latest(config: Mapping[str, Any]) -> dict[str, Any]:
    """The thread's config without a checkpoint id: its latest checkpoint."""
    configurable = dict(config.get("configurable") or {})
    configurable.pop("checkpoint_id", None)
    return {**config, "configurable": configurable}


def _source(snapshot: Any) -> str | None:
    """Where a checkpoint came from: input, loop, update or fork."""
    return (snapshot.metadata or {}).get("source")


def _run(
    answer: Callable[..., Any], app: Any, config: dict[str, Any], argument: str, node: str
) -> Any:
    """Call the learner's function; a ``next(...)`` in it that found no checkpoint (a bare
    ``StopIteration``, with no message) becomes ``Wrong`` saying what to compare, with
    ``node``, a node of the exercise's own graph, as the example."""
    try:
        returned = answer(app, config, argument)
    except StopIteration:
        raise Wrong(
            "Your code raised StopIteration: a next(...) over the history found no "
            "checkpoint matching your condition.",
            f"A checkpoint's .next is a tuple of node names, such as ({node!r},): compare it "
            f"with a tuple, not with the string {node!r} or the list [{node!r}].",
        ) from None
    except IndexError as error:
        if str(error) != "tuple index out of range":  # (.next is a tuple; others are not)
            raise
        raise Wrong(
            f"Your code raised IndexError: {error}.",
            "If it came from indexing a checkpoint's .next: the newest checkpoint of a "
            "finished run has next () (nothing left to run), so .next[0] fails there. "
            f"Compare the whole tuple instead, as in s.next == ({node!r},).",
        ) from None
    refuse_unread_stream(returned)
    return returned


# -- 7.1 --------------------------------------------------------------------------------


@exercise("7.1 · Replay from before a node")
def check_replay(replay_from: Callable[[Any, dict, str], Any]) -> str:
    """``replay_from(app, config, node)`` must replay the finished thread ``config`` from
    the checkpoint just before ``node`` ran: ``node`` and what follows run again, the
    nodes before it do not, and the thread forks at that checkpoint. Tried for ``clean``
    and for ``summarize``."""
    order = ["fetch", "clean", "summarize"]
    for node in ("clean", "summarize"):
        app, calls = pipeline_app()
        config = _thread(f"check-7.1-{node}")
        app.invoke({"url": "example.org"}, config)
        inputs = sum(1 for s in _history(app, config) if _source(s) == "input")
        ran_before = Counter(calls)
        _run(replay_from, app, dict(config), node, node)
        again = {name: calls[name] - ran_before[name] for name in order}
        history = _history(app, config)
        forks = [s for s in history if _source(s) == "fork"]
        new_inputs = sum(1 for s in history if _source(s) == "input")
        if new_inputs > inputs:
            raise Wrong(
                f"(replaying {node!r}) the thread got a new input step: invoking with input "
                "starts a new run on top of the thread, so every node ran again "
                f"({', '.join(n for n in order if again[n])}).",
                "Replay means invoke(None, config) where config names an older checkpoint "
                "(its checkpoint_id).",
            )
        if not forks and any(_source(s) == "update" for s in history) and again[node]:
            raise Wrong(
                f"(replaying {node!r}) {node} ran again, but from a checkpoint you made with "
                "update_state (source `update`), not by replaying one: an edit, even an "
                "empty one, is a new checkpoint of its own.",
                "A replay needs no edit: invoke(None, config) with the config of the "
                f"checkpoint whose .next is ({node!r},).",
            )
        if not forks:
            raise Wrong(
                f"(replaying {node!r}) nothing was replayed: the thread has no `fork` "
                f"checkpoint and {ran_again(node, again[node])}. Invoking the "
                "latest checkpoint of a finished thread has nothing left to run.",
                f"The checkpoint just before {node} ran is the one whose .next is ({node!r},): "
                "find it in app.get_state_history(config), and replay from its config.",
            )
        fork = forks[0]
        replayed = app.get_state(fork.parent_config)
        step = (replayed.metadata or {}).get("step")
        if replayed.next != (node,):
            earlier = [n for n in order[: order.index(node)] if again[n]]
            detail = (
                f"so {', '.join(earlier)} ran again too (too early)"
                if earlier
                else f"so {node} did not run again (too late)"
            )
            raise Wrong(
                f"(replaying {node!r}) you replayed from the checkpoint of step {step}, whose "
                f"next is {replayed.next}, {detail}.",
                f"The checkpoint before {node} ran is the one whose .next is ({node!r},).",
            )
        if again[node] != 1 or any(again[n] for n in order[: order.index(node)]):
            raise Wrong(
                f"(replaying {node!r}) the nodes ran again {dict(again)} times; a replay "
                f"from before {node} runs {node} and what follows once, and nothing before it.",
                "Replay once, with invoke(None, config_of_that_checkpoint).",
            )
    return (
        "Replaying from the checkpoint whose next is ('clean',) re-ran clean and summarize, "
        "not fetch; the thread forked there (a `fork` checkpoint whose parent is the one "
        "you chose). Same for summarize."
    )


# -- 7.2 --------------------------------------------------------------------------------


@exercise("7.2 · Fix a wrong value with update_state")
def check_fix_city(fix_city: Callable[[Any, dict, str], Any]) -> str:
    """``fix_city(app, config, city)`` gets a finished thread of ``lookup → compose`` that
    ran on a misspelt city, and must use ``update_state`` to correct the city at the
    checkpoint before ``lookup`` ran, then resume, so that ``lookup`` and ``compose`` run
    again and the final report is right. Tried with two cities."""
    for typo, city in (("Pari", "Paris"), ("Lodon", "London")):
        app, calls = forecast_app()
        config = _thread(f"check-7.2-{city}")
        app.invoke({"city": typo}, config)
        ran_before = Counter(calls)
        _run(fix_city, app, dict(config), city, "lookup")
        expected = f"{WEATHER[city]} in {city}"
        history = _history(app, config)
        latest = app.get_state(_latest(config))
        sources = [_source(s) for s in history]
        report = latest.values.get("report")
        if "update" not in sources:
            raise Wrong(
                f"(fixing {typo!r} → {city!r}) the thread has no `update` checkpoint: "
                "update_state was never called on it"
                + (
                    " (you started a new run with new input)."
                    if sources.count("input") > 1
                    else "."
                )
                + f" The report is {report!r}.",
                "Call app.update_state(config_of_a_checkpoint, {'city': ...}, as_node=...).",
            )
        if sources.count("input") > 1:  # (history is newest first)
            after = "input" in sources[: sources.index("update")]
            raise Wrong(
                f"(fixing {typo!r} → {city!r}) the report is {report!r}, but not from your "
                + ("update: after it" if after else "update: before your update")
                + f" you invoked with new input, so the thread has "
                f"{sources.count('input')} input steps and the city came from that input, "
                "as in a new run.",
                "Resume the edit with invoke(None, the_config_update_state_returns): None "
                "goes on from the checkpoint, while any input starts a new run.",
            )
        if latest.next:
            raise Wrong(
                f"(fixing {typo!r} → {city!r}) the thread stopped at your update: its latest "
                f"checkpoint's next is {latest.next}, nothing has run since.",
                "After update_state, resume with app.invoke(None, the_config_it_returned).",
            )
        if report == expected and calls["lookup"] == ran_before["lookup"]:
            raise Wrong(
                f"(fixing {typo!r} → {city!r}) the report is right, but lookup never ran "
                "again: you wrote the answer yourself instead of fixing the input.",
                "Correct only the city, at the checkpoint before lookup ran, and let the "
                "nodes compute the rest.",
            )
        update = next(s for s in history if _source(s) == "update")
        edited = app.get_state(update.parent_config)
        if edited.next == () and report == expected:
            raise Wrong(
                f"(fixing {typo!r} → {city!r}) the report is right, but your update_state "
                f"edited the last checkpoint, step {(edited.metadata or {}).get('step')}, where "
                "the run had already finished: lookup and compose ran again on top of the "
                "old run, whose forecast and report were still in the state (a reducer, a "
                "messages list, would have kept the old results beside the new ones).",
                "Edit the checkpoint from before lookup ran (its .next is ('lookup',)), as a "
                "replay would start from it; the old run stays a branch of its own.",
            )
        if report != expected and update.values.get("city") == typo:
            raise Wrong(
                f"(fixing {typo!r} → {city!r}) the final report is {report!r}, expected "
                f"{expected!r}. Your update did not change city: it is still {typo!r} at "
                "your update's checkpoint. update_state writes only the keys the state has "
                f"({', '.join(Forecast.__annotations__)}) and drops any other key, with a "
                "warning that names it.",
                "Give update_state the key city itself, spelt as in the state, with the "
                "corrected city as its value.",
            )
        if report != expected:
            step = (update.metadata or {}).get("step")
            reran = calls["lookup"] - ran_before["lookup"]
            if update.next != ("lookup",) and edited.next == ("lookup",):
                raise Wrong(
                    f"(fixing {typo!r} → {city!r}) the final report is {report!r}, expected "
                    f"{expected!r}. You edited the right checkpoint, the one whose next is "
                    f"('lookup',), but your edit made next {update.next}: with as_node, the "
                    "edit counts as that node's output, and that node's edges chose what "
                    "runs next, so lookup never ran on the corrected city.",
                    "For lookup to be next, the edit must count as the output of the node "
                    "whose edge leads to lookup: the node that ran last before that "
                    "checkpoint (which is what update_state takes when as_node is left out).",
                )
            if update.next != ("lookup",):
                why = (
                    "lookup is not next there, so lookup never ran on the corrected city "
                    "(after an edit, as_node decides what is next: the edit counts as that "
                    "node's output, and its edges choose)."
                )
            elif reran:
                why = (
                    f"{ran_again('lookup', reran)}, but not from your update: the run "
                    f"resumed from another checkpoint, whose city is still {typo!r}."
                )
            else:
                why = f"{ran_again('lookup', 0)}."
            raise Wrong(
                f"(fixing {typo!r} → {city!r}) the final report is {report!r}, expected "
                f"{expected!r}. Your update made the checkpoint of step {step} with next "
                f"{update.next} and city {update.values.get('city')!r}; {why}",
                "Update the checkpoint whose .next is ('lookup',) (as_node: the node that "
                "ran just before it) and then invoke(None, ...) from the config update_state "
                "returns.",
            )
    return (
        "update_state wrote the city as a new checkpoint (source `update`) from which lookup "
        "runs again, and invoke(None, ...) ran lookup and compose: 'Sunny in Paris', "
        "'Rainy in London'."
    )


# -- 7.3 --------------------------------------------------------------------------------


def _whole_number(answer: Any, name: str, what: str) -> int:
    """``answer`` as an int ("6", read off a table, is 6), or ``Wrong`` saying it is not one."""
    if (number := whole_number(answer)) is not None:
        return number
    raise Wrong(
        f"{name} is {answer!r}; give {what}, a whole number.",
        "Read it off checkpoints_frame(app, config): one row per checkpoint, with its step.",
    )


def _steps(history: list[Any]) -> list[int]:
    return [(snapshot.metadata or {}).get("step", -1) for snapshot in history]


@exercise("7.3 · Read the history")
def check_history(app: Any, config: Mapping[str, Any], checkpoints: int, replay_step: int) -> str:
    """Compare the learner's answers with the real thread ``config``: how many checkpoints
    it holds, and the step of the checkpoint to replay from to re-run ``chat`` for the
    last question (the latest checkpoint whose next is ``('chat',)``)."""
    hint = (
        "Pass the lesson's quiz_app (compiled with its checkpointer), then quiz, its "
        "thread's config: check_history(quiz_app, quiz, checkpoints=checkpoints, "
        "replay_step=replay_step)."
    )
    if isinstance(app, type) or not hasattr(app, "get_state_history"):
        raise Wrong(
            f"check_history() got {what_was_given(app)} as app: it reads the thread's checkpoints "
            "with app.get_state_history(config).",
            hint,
        )
    if not isinstance(config, Mapping):
        raise Wrong(
            f"check_history() got {what_was_given(config)} as config, where the thread's config "
            "goes, e.g. {'configurable': {'thread_id': 'quiz'}}.",
            hint,
        )
    history = _history(app, config)
    before_chat = [s for s in history if s.next == ("chat",)]
    turns = sum(1 for s in history if _source(s) == "input")
    if turns < 2 or not before_chat:
        raise Wrong(
            f"The thread {config.get('configurable', {}).get('thread_id')!r} has "
            f"{counted(turns, 'turn')}; the exercise needs the two-turn chat.",
            "Run the cell above that makes the thread, then check again.",
        )
    real_count = len(history)
    real_step = (before_chat[0].metadata or {}).get("step")
    thread = config.get("configurable", {}).get("thread_id")
    checkpoints = _whole_number(checkpoints, "checkpoints", "a count of checkpoints")
    replay_step = _whole_number(replay_step, "replay_step", "a step number")
    if checkpoints != real_count:
        per_turn = real_count // turns
        if checkpoints == per_turn:
            detail = f"that is one turn's worth, and thread {thread!r} has {turns} turns"
        elif checkpoints in (last_step := max(_steps(history)), last_step + 1):
            which = "the last" if checkpoints == last_step else "one past the last"
            detail = (
                f"{checkpoints} is {which} checkpoint's step, not how many there are: steps "
                "start at -1 (the first input step), and the table's index is the step, not "
                "a row count"
            )
            if checkpoints == real_count - turns:
                detail += "; if you counted, you left out the input steps"
        elif checkpoints == real_count - turns:
            detail = "you left out the input steps: each turn's input is a superstep too"
        else:
            detail = f"thread {thread!r} holds {'more' if real_count > checkpoints else 'fewer'}"
        raise Wrong(
            f"You said {counted(checkpoints, 'checkpoint')}; {detail}.",
            "One checkpoint per superstep, and the input step is a superstep: count the "
            "rows of checkpoints_frame(app, config), or len(list(get_state_history(config))).",
        )
    if replay_step != real_step:
        ran = real_step + 1
        first_turn = [(s.metadata or {}).get("step") for s in before_chat[1:]]
        if replay_step == ran:
            why = (
                f"step {ran} is the step in which chat ran, its checkpoint has next () — "
                "replaying it runs nothing"
            )
        elif replay_step == real_step - 1:
            why = (
                f"replaying the checkpoint of step {replay_step} (next ('__start__',), the "
                "second question's input) runs chat again, but __start__ first; the "
                "exercise asks for the checkpoint just before chat"
            )
        elif replay_step in first_turn:
            why = (
                f"the checkpoint of step {replay_step} is the one before chat answered the "
                "first question, not the second"
            )
        else:
            nexts = [s.next for s in history if (s.metadata or {}).get("step") == replay_step]
            why = (
                f"the checkpoint of step {replay_step} has next {nexts[0]}, not ('chat',): "
                "it is not the one just before chat's last run"
                if nexts
                else f"thread {thread!r} has no checkpoint of step {replay_step}"
            )
        raise Wrong(
            f"You said step {replay_step}; {why}.",
            "Look for the newest row whose next is ('chat',) in the checkpoints table.",
        )
    return (
        f"{real_count} checkpoints ({real_count // turns} per turn: input, __start__, chat); "
        f"the checkpoint of step {real_step} has next ('chat',), so chat answered the last "
        f"question in step {real_step + 1}."
    )
