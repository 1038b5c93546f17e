"""Checks for lesson 15 · What a node knows: config, context, remaining steps and the node
cache.

Each check builds a small graph around the learner's answer (a node, a router, a cache
key function), runs it on the real runtime with data and settings of its own — other
cities, other recursion limits, other requests — and reads what happened from the
records: what a node wrote, in which step a loop stopped, which tasks the node cache
served. A hard-coded answer cannot pass.

>>> from graphkit.course.solutions import lesson15 as solutions
>>> bool(check_context(solutions.describe))
True
"""

from __future__ import annotations

import inspect
import random
from dataclasses import dataclass
from typing import Any, TypedDict

from graphkit.course.checking import Wrong, counted, exercise, failed_run
from graphkit.errors import GraphRecursionError
from graphkit.managed import RemainingSteps

__all__ = [
    "Reading",
    "Request",
    "Search",
    "Units",
    "check_cache_key",
    "check_context",
    "check_stop_in_time",
    "search_graph",
    "translate_graph",
    "units_graph",
]


def _not_langgraph(answer: Any, name: str) -> None:
    """The checks read graphkit's records: a LangGraph object is told so."""
    if type(answer).__module__.partition(".")[0] == "langgraph":
        raise Wrong(
            f"{name} comes from LangGraph: the checks read the records graphkit makes of a run.",
            "Import from graphkit with the same names.",
        )


def _function(answer: Any, name: str) -> None:
    _not_langgraph(answer, name)
    if not callable(answer):
        raise Wrong(f"{name} is {answer!r}, not a function.", f"Write {name} with def.")


# -- 15.1 · a setting read from the context ----------------------------------------------


@dataclass
class Units:
    """The run's settings for the weather report: ``"metric"`` or ``"imperial"``."""

    units: str = "metric"


class Reading(TypedDict, total=False):
    city: str
    celsius: float
    report: str


def units_graph(describe: Any) -> Any:
    """START → describe, with ``Units`` as the run's context schema."""
    from graphkit import START, StateGraph

    builder = StateGraph(Reading, context_schema=Units)
    builder.add_node("describe", describe)
    builder.add_edge(START, "describe")
    return builder


def _report(city: str, celsius: float, units: str) -> str:
    if units == "imperial":
        return f"{city}: {celsius * 9 / 5 + 32:.1f} °F"
    return f"{city}: {celsius:.1f} °C"


@exercise("15.1 · Read the setting from the context")
def check_context(describe: Any) -> str:
    """``describe(state, runtime)`` writes ``report`` in the units the run's context
    asks for. Tried on cities, temperatures and units of the check's own."""
    _function(describe, "describe")
    app = units_graph(describe).compile()
    # (each city in both units: a report chosen by city, not by the context, cannot pass)
    tries = [
        ("Lima", 18.0, "imperial"),
        ("Oslo", -3.5, "metric"),
        ("Lima", 18.0, "metric"),
        ("Oslo", -3.5, "imperial"),
        ("Cairo", 31.0, "imperial"),
        ("Quito", 13.3, "imperial"),  # (55.94 °F: a report must round to one decimal)
    ]
    for city, celsius, units in tries:
        context = Units(units)
        try:
            run = app.trace({"city": city, "celsius": celsius}, context=context)
        except Exception as error:
            wrong = failed_run(app, error)
            missing = error.args[0] if isinstance(error, KeyError) and error.args else None
            if isinstance(missing, str) and missing not in _NOT_STATE_KEYS:
                raise Wrong(  # (a key of the state's, misspelt: the context is not the miss)
                    f"With context=Units(units={units!r}) and the state {{'city': {city!r}, "
                    f"'celsius': {celsius}}}: {wrong.message}",
                    "The state holds city and celsius (and report, once written): read "
                    "those keys from it, and the units from the run's context.",
                ) from error
            unread = _unfilled_parameter(describe, error)
            if unread is not None:
                raise Wrong(
                    f"With context=Units(units={units!r}) and the state {{'city': {city!r}, "
                    f"'celsius': {celsius}}}: {wrong.message}",
                    f"graphkit, like LangGraph, hands the runtime only to a parameter named "
                    f"runtime; one named {unread} gets nothing. The units are "
                    "runtime.context.units.",
                ) from error
            if isinstance(error, KeyError | TypeError | AttributeError):
                hint = (
                    "The units are not in the state, nor in config['configurable']: they "
                    "come with invoke(..., context=...). Give describe a parameter that "
                    "receives the run's runtime (section 1)."
                )
                if "runtime" in inspect.signature(describe).parameters:
                    hint = (
                        "runtime.context is the Units instance the invoke passed, a "
                        "dataclass with one field, units: read it as an attribute, as "
                        "section 1 reads runtime.context.language."
                    )
                raise Wrong(
                    f"With context=Units(units={units!r}) and the state {{'city': {city!r}, "
                    f"'celsius': {celsius}}}: {wrong.message}",
                    hint,
                ) from error
            raise wrong from error
        got, expected = run.values.get("report"), _report(city, celsius, units)
        [done] = [r for r in run.step(1).execution.results if r.task.node == "describe"]
        if done.output is None:
            raise Wrong(
                f"With context=Units(units={units!r}), describe returned None: a function "
                "that ends without a return statement returns None, so it wrote nothing.",
                "A node returns its writes as a dict: {'report': ...}.",
            )
        if isinstance(got, dict):
            raise Wrong(
                f"With context=Units(units={units!r}), report is a dict, {got!r}; expected "
                f"the text {expected!r}.",
                "The dict a node returns maps each key of the state to its new value: "
                "{'report': text}, one level.",
            )
        if got != expected:
            hint = (
                "Read the units from the run's context, which the check changes from run "
                "to run; the state holds only the city and the temperature."
            )
            other = "metric" if units == "imperial" else "imperial"
            if got == _report(city, celsius, other) and _swapped(app, city, celsius, other):
                hint = (
                    "Your describe reads the units from the context, the other way round: "
                    "imperial is °F, metric is °C."
                )
            elif got == _report(city, celsius, other) and _takes_runtime(describe):
                hint = (
                    "Your describe gave the same units whatever the context. runtime.context "
                    "is the Units instance the invoke passed, not a str: its field units "
                    "holds 'metric' or 'imperial'."
                )
            elif isinstance(got, str) and got.endswith(expected[-2:]):  # (the right units)
                hint = (
                    "The units are right; the number is not. °F = °C × 9 / 5 + 32, "
                    "written with one decimal, as {value:.1f} writes it."
                )
            raise Wrong(
                f"With context=Units(units={units!r}), describe wrote report = {got!r}; "
                f"expected {expected!r}.",
                hint,
            )
        if set(run.values) - {"city", "celsius", "report"}:
            raise Wrong(f"The state holds {sorted(run.values)}.", "Write only report.")
    return (
        "describe read the units from the run's context: the same graph reported in °F "
        "and in °C as each invoke asked, and the setting never entered the state or its "
        "checkpoints."
    )


_NOT_STATE_KEYS = ("units", "configurable", "context", "runtime")
"""Keys whose KeyError is no misspelt key of the state: the units looked for in the
state, in ``config["configurable"]``, or as ``config["context"]``."""


def _unfilled_parameter(describe: Any, error: BaseException) -> str | None:
    """The name of ``describe``'s parameter that the runtime left unfilled (one named
    ``context`` or ``rt``: the runtime goes only to ``runtime``), if that is ``error``."""
    if not isinstance(error, TypeError) or "required positional argument" not in str(error):
        return None
    try:
        names = list(inspect.signature(describe).parameters)[1:]
    except (TypeError, ValueError):
        return None
    return next((n for n in names if f"'{n}'" in str(error) and n != "runtime"), None)


def _takes_runtime(describe: Any) -> bool:
    try:
        return "runtime" in inspect.signature(describe).parameters
    except (TypeError, ValueError):
        return False


def _swapped(app: Any, city: str, celsius: float, units: str) -> bool:
    """Whether ``app`` writes, given ``units``, the report of the other units: a
    describe that reads the context but has °F and °C the other way round."""
    other = "metric" if units == "imperial" else "imperial"
    try:
        run = app.trace({"city": city, "celsius": celsius}, context=Units(units))
    except Exception:
        return False
    return run.values.get("report") == _report(city, celsius, other)


# -- 15.2 · a loop that stops in time ------------------------------------------------------


class Search(TypedDict, total=False):
    target: float
    low: float
    high: float
    rounds: int
    answer: str
    remaining_steps: RemainingSteps


def _narrow(state: Search) -> dict:
    """One round of bisection for the square root of ``target``: halve [low, high]."""
    low, high = state.get("low", 0.0), state.get("high", max(1.0, state["target"]))
    middle = (low + high) / 2
    if middle * middle < state["target"]:
        low = middle
    else:
        high = middle
    return {"low": low, "high": high, "rounds": state.get("rounds", 0) + 1}


def _conclude(state: Search) -> dict:
    """The best answer so far: the middle of what is left of the interval."""
    best = (state["low"] + state["high"]) / 2
    return {"answer": f"√{state['target']:g} ≈ {best:.6f} after {state['rounds']} rounds"}


def search_graph(route: Any) -> Any:
    """START → narrow, then ``route(state)`` picks ``"narrow"`` (another round) or
    ``"conclude"`` (write the answer and end)."""
    from graphkit import END, START, StateGraph

    builder = StateGraph(Search)
    builder.add_node("narrow", _narrow)
    builder.add_node("conclude", _conclude)
    builder.add_edge(START, "narrow")
    builder.add_conditional_edges("narrow", route, ["narrow", "conclude"])
    builder.add_edge("conclude", END)
    return builder


@exercise("15.2 · Stop in time, with the best answer")
def check_stop_in_time(route: Any) -> str:
    """``route(state)`` keeps ``narrow`` going while the run has steps for it, and leaves
    ``conclude`` the step it needs. Tried with recursion limits of the check's own."""
    _function(route, "route")
    app = search_graph(route).compile()
    # (3.0 twice, with two limits: a count of rounds chosen by target cannot pass)
    for target, limit in ((3.0, 9), (10.0, 13), (7.0, 6), (3.0, 7)):
        config = {"recursion_limit": limit}
        try:
            run = app.trace({"target": target}, config)
        except GraphRecursionError as error:
            raise _too_far(getattr(error, "run", None), limit) from error
        except KeyError as error:
            wrong = failed_run(app, error)
            if error.args != ("is_last_step",):
                raise wrong from error
            raise Wrong(
                wrong.message,
                "Search declares remaining_steps, not is_last_step: a managed value is in "
                "the state only when its schema declares it. (is_last_step would come a "
                "step too late here anyway: conclude needs a step after the route's.)",
            ) from error
        except Exception as error:
            raise failed_run(app, error) from error
        rounds = run.values.get("rounds", 0)
        best = limit - 2  # narrow in steps 1 … limit-2, conclude in step limit-1
        if rounds < best:
            stopped = max(s.step for s in run.steps if "narrow" in s.plan.nodes)
            raise Wrong(
                f"With recursion_limit={limit}, narrow ran {counted(rounds, 'round')} and "
                f"the loop stopped at step {stopped}, though "
                f"{counted(best - rounds, 'more round')} would have fit before conclude: its "
                "answer is coarser than it could be.",
                "Stop on what the run has left, not on a count of your own: another run "
                "has another limit.",
            )
        if not run.values.get("answer"):
            raise Wrong(
                f"With recursion_limit={limit} the run ended without an answer: conclude "
                "never ran.",
                "Route to conclude when the loop must stop.",
            )
    return (
        "Each run used every step its limit allowed: narrow ran until conclude's step was "
        "the last one left, and the run ended with its best answer, not an error."
    )


def _too_far(run: Any, limit: int) -> Wrong:
    """The ``Wrong`` for a search that ran into its recursion limit: where narrow's last
    round was, and what the route planned after it."""
    steps = run.steps if run is not None else []
    ran = [s.step for s in steps if s.execution is not None and "narrow" in s.plan.nodes]
    last = ran[-1] if ran else 0
    beyond = [s for s in steps if s.step > last and s.plan.nodes]
    planned = beyond[0].plan.nodes[0] if beyond else "narrow"
    return Wrong(
        f"With recursion_limit={limit}, narrow ran {counted(len(ran), 'round')}, the last "
        f"in step {last}, and your route then sent the run to {planned} in step "
        f"{last + 1}. With that limit a run ends cleanly only if its last task runs by "
        f"step {limit - 1}: the run raised GraphRecursionError and returned no answer.",
        "remaining_steps counts the step it is read in, and conclude needs a step of its "
        "own after the one your route runs in.",
    )


# -- 15.3 · a cache key of what the answer depends on --------------------------------------

PHRASES = {
    ("good night", "de"): "gute Nacht",
    ("good night", "it"): "buona notte",
    ("thank you", "it"): "grazie",
    ("thank you", "fr"): "merci",
}


class Request(TypedDict, total=False):
    text: str
    language: str
    request_id: int
    translation: str


def _translate(state: Request) -> dict:
    """The slow translation service: imagine a model call."""
    key = (state["text"], state["language"])
    return {"translation": PHRASES.get(key, f"<{state['language']}> {state['text']}")}


def translate_graph(key_func: Any) -> Any:
    """START → translate, cached with ``CachePolicy(key_func=key_func)``."""
    from graphkit import START, StateGraph
    from graphkit.types import CachePolicy

    builder = StateGraph(Request)
    builder.add_node("translate", _translate, cache_policy=CachePolicy(key_func=key_func))
    builder.add_edge(START, "translate")
    return builder


REQUESTS = [
    ("good night", "de", 101),
    ("good night", "de", 102),
    ("good night", "it", 103),
    ("thank you", "it", 104),
    ("thank you", "it", 105),
    ("thank you", "fr", 106),
]


def _a_str_key(key_func: Any) -> None:
    """``Wrong`` for a key function that returns no str (a tuple of the fields, say). The
    runtime's own error suggests a key on the input's first field, ``text``, which here is
    a wrong answer; this says how to make a str without naming fields."""
    text, language, request_id = REQUESTS[0]
    try:
        made = key_func({"text": text, "language": language, "request_id": request_id})
    except TypeError as error:
        if _required(key_func) > 1:
            raise Wrong(
                f"request_key takes {_required(key_func)} parameters; the cache calls it "
                "with the node's input alone, while the step is planned: there is no "
                "runtime, config or context to give it.",
                "Make the key from the input: one parameter, the state translate gets.",
            ) from error
        return  # (the run raises it again, and failed_run tells where)
    except KeyError as error:
        if error.args == ("translation",):
            raise Wrong(
                "request_key read state['translation'], which the node's input does not "
                "hold: translation is what translate writes, after its key is made.",
                "The input holds text, language and request_id: make the key from those.",
            ) from error
        return
    except Exception:  # (the run raises it again, and failed_run tells where)
        return
    if not isinstance(made, str | bytes):
        kind = type(made).__name__
        raise Wrong(
            f"request_key returned {'an' if kind[0] in 'aeiou' else 'a'} {kind}, {made!r}: "
            "a cache key must be a str or bytes (the cache hashes it).",
            "Make one str of what it holds, e.g. with an f-string or str.join.",
        )


def _required(function: Any) -> int:
    """How many arguments ``function`` needs, or 0 if its signature cannot be read."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 0
    return sum(
        p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        for p in parameters
    )


@exercise("15.3 · A key for what the answer depends on")
def check_cache_key(key_func: Any) -> str:
    """``key_func(state)`` makes ``translate``'s cache serve a request exactly when an
    earlier one asked for the same translation. Tried on requests of the check's own."""
    from graphkit.cache.memory import InMemoryCache

    _function(key_func, "request_key")
    _a_str_key(key_func)
    app = translate_graph(key_func).compile(cache=InMemoryCache())
    asked: dict[tuple[str, str], int] = {}  # (text, language) → the first request's id
    # (new ids for every check, as a caller makes them: a key by id cannot pass)
    ids = sorted(random.sample(range(100, 1000), len(REQUESTS)))
    for (text, language, _), request_id in zip(REQUESTS, ids, strict=True):
        try:
            run = app.trace({"text": text, "language": language, "request_id": request_id})
        except Exception as error:
            raise failed_run(app, error) from error
        [task] = [r for r in run.steps[-1].execution.results if r.task.node == "translate"]
        got, expected = (
            run.values.get("translation"),
            _translate({"text": text, "language": language})["translation"],
        )
        first = asked.setdefault((text, language), request_id)
        what = f"request {request_id} ({text!r} into {language})"
        if task.cached and got != expected:
            raise Wrong(
                f"{what} was served from the cache: {got!r}, another request's "
                f"translation, not {expected!r}. Your key was the same for two requests "
                "whose answers differ.",
                "A key must change whenever the node's answer would: look at everything "
                "translate reads.",
            )
        if not task.cached and first != request_id:
            raise Wrong(
                f"translate ran again for {what}, though request {first} had asked for "
                "the same translation: the two differed only in request_id, and your key "
                "changed with it, so the cache never served it.",
                "Leave out of the key what the answer does not depend on: what changes "
                "on every request makes every key new.",
            )
    return (
        "translate ran once per translation asked for and the cache served the repeats, "
        "whatever their request_id; a new language or text got a fresh answer."
    )
