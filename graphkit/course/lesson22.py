"""Checks for lesson 22 · State schemas in depth: dataclass and pydantic state, defaults,
validation.

Each check runs the learner's state class in a graph of its own, on inputs of its own, and
reads what the nodes were given and what the run did: a hard-coded answer cannot pass.

- ``check_defaults(Booking)``: a dataclass state whose graph runs from an empty input,
  its nodes reading the defaults, its parallel notes kept by their reducer.
- ``check_validator(CheckedReading, where_it_fails)``: a pydantic validator that refuses a
  temperature below absolute zero, and where in the run it refuses a bad write.
- ``check_poll_model(PollModel)``: ``Poll``, a TypedDict state with reducers, as a pydantic
  model whose graph does what the TypedDict's did.

>>> from graphkit.course.solutions import lesson22 as solutions
>>> bool(check_defaults(solutions.Booking))
True
>>> bool(check_validator(solutions.CheckedReading, solutions.where_it_fails))
True
>>> bool(check_poll_model(solutions.PollModel))
True
"""

from __future__ import annotations

import dataclasses
import operator
import re
import typing
from typing import Annotated, Any, TypedDict

from pydantic import BaseModel, ValidationError

from graphkit.course.checking import Wrong, exercise

__all__ = [
    "ABSOLUTE_ZERO",
    "Poll",
    "Reading",
    "booking_graph",
    "check_defaults",
    "check_poll_model",
    "check_validator",
    "poll_graph",
    "sensor_graph",
]

_BEFORE_TASK = re.compile(r"Before task with name '([^']+)' \(step (-?\d+)\)")


def _refused_before(error: BaseException) -> tuple[str, int] | None:
    """The node and step whose state ``error`` was raised building, from graphkit's note
    ("Before task with name 'convert' (step 2): ..."); None for an error of a node's own."""
    for note in getattr(error, "__notes__", ()):
        if found := _BEFORE_TASK.match(note):
            return found[1], int(found[2])
    return None


def _first_line(error: BaseException) -> str:
    """A pydantic error in one line: its fields and what pydantic said of each."""
    if isinstance(error, ValidationError):
        said = [f"{'.'.join(map(str, e['loc'])) or '(state)'}: {e['msg']}" for e in error.errors()]
        return "; ".join(said)
    return str(error).splitlines()[0]


def _schema_name(schema: Any) -> str:
    return getattr(schema, "__name__", repr(schema))


def _not_an_instance(answer: Any, name: str) -> None:
    """A state schema is a class: an instance of one (``Booking()``) is told so."""
    if not isinstance(answer, type) and (
        dataclasses.is_dataclass(answer) or isinstance(answer, BaseModel)
    ):
        raise Wrong(
            f"{name} is an instance, {answer!r}: a graph's state schema is a class, which "
            "the graph builds an instance of for each node.",
            f"Pass the class itself, {name}, without the brackets that build an instance.",
        )


# -- 22.1 · defaults for a dataclass state ---------------------------------------------------------


def booking_graph(schema: Any, read: list[Any]) -> Any:
    """START → ``welcome`` → ``breakfast`` and ``parking`` in one step; every node appends
    to ``notes``. ``welcome`` adds what it read to ``read``."""
    from graphkit import START, StateGraph

    def welcome(state: Any) -> dict:
        read.append(state)
        requests = state.requests  # (a default that is no list is the check's to judge)
        count = len(requests) if isinstance(requests, list) else repr(requests)
        return {"notes": [f"{state.guest}: {state.nights} nights, {count} requests"]}

    builder = StateGraph(schema)
    builder.add_node("welcome", welcome)
    builder.add_node("breakfast", lambda state: {"notes": ["breakfast"]})
    builder.add_node("parking", lambda state: {"notes": ["parking"]})
    builder.add_edge(START, "welcome")
    builder.add_edge("welcome", "breakfast")
    builder.add_edge("welcome", "parking")
    return builder.compile()


BOOKINGS = (
    ({}, ("guest", 1, [])),
    ({"guest": "Ada", "nights": 3, "requests": ["quiet room"]}, ("Ada", 3, ["quiet room"])),
)


@exercise("22.1 · Defaults for a dataclass state")
def check_defaults(booking: Any) -> str:
    """``booking``: a dataclass with ``guest``, ``nights``, ``requests`` and ``notes``, run
    from an empty input and from a full one; ``welcome`` must read the defaults ("guest",
    1, an empty list), and the parallel notes must all be kept."""
    from graphkit.errors import InvalidUpdateError

    _not_an_instance(booking, "Booking")
    if not (isinstance(booking, type) and dataclasses.is_dataclass(booking)):
        pydantic = isinstance(booking, type) and issubclass(booking, BaseModel)
        kind = "a pydantic model" if pydantic else repr(booking)
        raise Wrong(f"Booking is {kind}, not a dataclass.", "Write it with @dataclass.")
    for given, (guest, nights, requests) in BOOKINGS:
        read: list[Any] = []
        try:
            result = booking_graph(booking, read).invoke(dict(given))
        except InvalidUpdateError as error:
            raise Wrong(
                f"(input {given}) the run failed: {str(error).splitlines()[0]}",
                "The notes field lost its reducer: a dataclass field declares it the same "
                "way a TypedDict key does (section 5).",
            ) from None
        except Exception as error:
            where = _refused_before(error)
            if where is None or "required" not in str(error):
                raise  # (a node's error, or one of the class's own, as __post_init__'s)
            raise Wrong(
                f"(input {given}) the run failed before node {where[0]} could start (step "
                f"{where[1]}): building Booking from the channels raised "
                f"{type(error).__name__}: {_first_line(error)}. No input and no node wrote "
                "those fields, so their channels hold nothing.",
                "A node reads an instance built from the channels that hold a value; a field "
                "a run may never write needs a value to fall back on (section 2).",
            ) from None
        seen = read[0]
        got = (seen.guest, seen.nights, seen.requests)
        if got != (guest, nights, requests):
            raise Wrong(
                f"(input {given}) welcome read guest={seen.guest!r}, nights={seen.nights!r}, "
                f"requests={seen.requests!r}; it should read guest={guest!r}, "
                f"nights={nights!r}, requests={requests!r}.",
                "A field the input leaves out reads its default: check each default's value.",
            )
        # (1.0 == 1 and True == 1: a dataclass keeps a default of the wrong type as it is)
        for name, value in (("guest", guest), ("nights", nights), ("requests", requests)):
            if type(getattr(seen, name)) is not type(value):
                kind = type(getattr(seen, name)).__name__
                raise Wrong(
                    f"(input {given}) welcome read {name}={getattr(seen, name)!r}, of type {kind}; "
                    f"it should read {value!r}, of type {type(value).__name__}.",
                    "A dataclass checks no type: give each default the type its field declares.",
                )
        notes = result.get("notes", [])
        if sorted(notes[1:]) != ["breakfast", "parking"]:
            raise Wrong(
                f"(input {given}) the run ended with notes {notes!r}: the three nodes' notes "
                "were not all kept.",
                "Keep the notes field's reducer, as the stub has it.",
            )
    return (
        "From an empty input, welcome read your defaults, which no channel holds (invoke "
        "returned only notes); the parallel notes met in the reducer."
    )


# -- 22.2 · a validator that catches a bad write ---------------------------------------------------

ABSOLUTE_ZERO = -273.15


class Reading(BaseModel):
    """A sensor's reading: ``raw`` in tenths of a degree, ``celsius`` and ``fahrenheit``
    written by the graph."""

    raw: float
    celsius: float | None = None
    fahrenheit: float | None = None


def sensor_graph(schema: Any) -> Any:
    """START → ``sensor`` (writes ``celsius``, raw / 10) → ``convert`` (writes
    ``fahrenheit``) → ``report``."""
    from graphkit import START, StateGraph

    def sensor(state: Any) -> dict:
        return {"celsius": round(state.raw / 10, 2)}

    def convert(state: Any) -> dict:
        return {"fahrenheit": round(state.celsius * 9 / 5 + 32, 2)}

    builder = StateGraph(schema)
    builder.add_node("sensor", sensor)
    builder.add_node("convert", convert)
    builder.add_node("report", lambda state: {})
    builder.add_edge(START, "sensor")
    builder.add_edge("sensor", "convert")
    builder.add_edge("convert", "report")
    return builder.compile()


GOOD_READINGS = {215.0: 70.7, -400.0: -40.0, -2731.5: -459.67, 1000.0: 212.0}
BAD_READING = -3000.0  # -300 °C


@exercise("22.2 · A validator that catches a bad write")
def check_validator(model: Any, where_it_fails: Any) -> str:
    """``model``: ``Reading`` with a validator that refuses a celsius below absolute zero;
    ``where_it_fails``: ``{"node": ..., "step": ...}``, where the run of a bad reading
    stops. Tried on readings of the check's own."""
    _not_an_instance(model, "CheckedReading")
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise Wrong(f"CheckedReading is {model!r}, not a pydantic model.", "Subclass Reading.")
    for raw, fahrenheit in GOOD_READINGS.items():
        try:
            result = sensor_graph(model).invoke({"raw": raw})
        except Exception as error:
            where = _refused_before(error)
            if where and where[0] == "sensor" and isinstance(error, ValidationError):
                raise Wrong(
                    f"(raw {raw}, {raw / 10} °C) your model refused the run's input, before "
                    f"sensor ran: {_first_line(error)}. raw is in tenths of a degree.",
                    "The value to check is the one sensor writes: celsius.",
                ) from None
            what = f"before node {where[0]} could start" if where else "in a node"
            raise Wrong(
                f"(raw {raw}, {raw / 10} °C) a valid reading failed {what}: "
                f"{type(error).__name__}: {_first_line(error)}.",
                "Refuse only what is below absolute zero, -273.15 °C itself is a valid "
                "temperature; and a validator returns the value it accepts.",
            ) from None
        if result.get("fahrenheit") != fahrenheit:
            raise Wrong(
                f"(raw {raw}) the run ended with {result}; fahrenheit should be {fahrenheit}.",
                "Change only what the model accepts, not the values.",
            )
    try:
        result = sensor_graph(model).invoke({"raw": BAD_READING})
    except ValidationError as error:
        where = _refused_before(error)
        refused = _first_line(error)
    except Exception as error:
        if (where := _refused_before(error)) is None:
            raise
        raise Wrong(
            f"(raw {BAD_READING}) your validator raised {type(error).__name__}: {error}, "
            f"building {where[0]}'s state: pydantic did not take it for a refusal, so the "
            "run failed on an error of your code, not a ValidationError.",
            "pydantic turns a ValueError (or a failed assert) raised in a validator into a "
            "ValidationError; any other exception escapes as it is.",
        ) from None
    else:
        celsius, fahrenheit = result.get("celsius"), result.get("fahrenheit")
        read = None if fahrenheit is None else round((fahrenheit - 32) * 5 / 9, 2)
        if read is not None and celsius is not None and read != round(celsius, 2):
            raise Wrong(  # the validator gave convert another value instead of refusing
                f"(raw {BAD_READING}) the run finished with celsius {celsius} and fahrenheit "
                f"{fahrenheit}: convert read {read} °C, so your validator changed the value "
                "in convert's copy of the state instead of refusing it.",
                "A validator refuses a value by raising ValueError; what it returns is the "
                "value the node reads.",
            )
        raise Wrong(
            f"(raw {BAD_READING}) the run finished with celsius {celsius} and "
            f"fahrenheit {fahrenheit}: nothing refused a temperature below "
            "absolute zero.",
            "pydantic checks a value when it builds an instance; tell it, in the model, what "
            "a temperature in celsius may not be (section 4).",
        )
    if where is None or where[0] == "sensor":
        raise Wrong(
            f"(raw {BAD_READING}) your model refused the run's input, before sensor ran: "
            "it checks raw, which is in tenths of a degree.",
            "The bad value is the one sensor writes: celsius.",
        )
    node, step = where
    if node != "convert":  # (sensor's celsius is first read by convert's state, in step 2)
        raise Wrong(
            f"(raw {BAD_READING}) your model let celsius -300.0 through, and refused the "
            f"state only before node {node!r}, in step {step}: {refused}.",
            "The value to refuse is celsius, the one sensor writes.",
        )
    if not isinstance(where_it_fails, dict):
        raise Wrong(
            f"where_it_fails is {where_it_fails!r}, a {type(where_it_fails).__name__}.",
            'Give it as the stub has it: {"node": a node\'s name, "step": a number}.',
        )
    guess = where_it_fails
    if guess.get("node") == node and not isinstance(guess.get("step"), int):
        given = guess.get("step")
        raise Wrong(
            f"where_it_fails's step is {given!r}, a {type(given).__name__}.",
            "Give the step as a number, as the records number them.",
        )
    if (guess.get("node"), guess.get("step")) != (node, step):
        # (say which half is wrong, not where the run stopped: that is the answer)
        guessed_node, guessed_step = guess.get("node"), guess.get("step")
        said = {
            (True, False): f"stopped before {node!r}, as you said, but not in step {guessed_step}",
            (False, True): f"stopped in step {step}, as you said, but not before {guessed_node!r}",
            (False, False): f"did not stop before {guessed_node!r}, nor in step {guessed_step}",
        }[guessed_node == node, guessed_step == step]
        raise Wrong(
            f"Your validator works: it refused -300.0 °C with a ValidationError. The run {said}.",
            "A node's return value is never validated: the Update applies it as it is. "
            "The check runs when an instance is built from the channels (section 4).",
        )
    return (
        f"Your validator refused -300.0 °C when step {step}'s Plan built {node}'s state, "
        "after sensor's write had been applied: the channel still holds it."
    )


# -- 22.3 · from TypedDict to pydantic -------------------------------------------------------------


class Poll(TypedDict):
    question: str
    votes: Annotated[list[str], operator.add]
    voters: Annotated[int, operator.add]
    result: str


def _get(state: Any, key: str) -> Any:
    return state[key] if isinstance(state, dict) else getattr(state, key)


def poll_graph(schema: Any) -> Any:
    """START → ``alice`` and ``bob`` in one step (each votes and counts one voter) →
    ``count``, which writes ``result``. The nodes read a dict or an instance."""
    from graphkit import START, StateGraph

    def vote(choice: str) -> Any:
        return lambda state: {"votes": [choice], "voters": 1}

    def count(state: Any) -> dict:
        votes, voters = _get(state, "votes"), _get(state, "voters")
        best = max(sorted(set(votes)), key=votes.count)
        return {"result": f"{_get(state, 'question')} {best} ({len(votes)} votes, {voters} voters)"}

    builder = StateGraph(schema)
    builder.add_node("alice", vote("tea"))
    builder.add_node("bob", vote("coffee"))
    builder.add_node("count", count)
    builder.add_edge(START, "alice")
    builder.add_edge(START, "bob")
    builder.add_edge(["alice", "bob"], "count")
    return builder.compile()


POLLS = (
    {"question": "Tea or coffee?"},
    {"question": "Which drink?", "votes": ["coffee", "coffee"], "voters": 2},
)


@exercise("22.3 · From TypedDict to pydantic")
def check_poll_model(model: Any) -> str:
    """``model``: ``Poll`` as a pydantic model. The poll graph runs on both, from inputs
    of the check's own, and must end the same."""
    from graphkit.errors import InvalidUpdateError

    _not_an_instance(model, "PollModel")
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise Wrong(f"PollModel is {model!r}, not a pydantic model.", "Subclass BaseModel.")
    for given in POLLS:
        expected = poll_graph(Poll).invoke(dict(given))
        try:
            result = poll_graph(model).invoke(dict(given))
        except InvalidUpdateError as error:
            named = re.search(r"Channel '(\w+)'", str(error))
            key = named[1] if named and named[1] in expected else "votes"
            raise Wrong(
                f"(input {given}) the run failed: {str(error).splitlines()[0]} The "
                f"TypedDict's graph kept both writes to {key}: it ended with {key} "
                f"{expected[key]!r}.",
                "The reducer is part of the field's type: Annotated[..., reducer] declares "
                "it in a pydantic field too (section 5).",
            ) from None
        except ValidationError as error:
            where = _refused_before(error)
            where = f"before node {where[0]} could start (step {where[1]})" if where else ""
            raise Wrong(
                f"(input {given}) the run failed {where}: {_schema_name(model)} refused the "
                f"state: {_first_line(error)}. The TypedDict's graph ended with "
                f"{expected['result']!r}.",
                "A node reads an instance built from the channels that hold a value; a field "
                "a run may leave empty needs a value to fall back on, and each field's type "
                "must fit what the nodes write (section 2).",
            ) from None
        if result != expected:
            raise Wrong(
                f"(input {given}) your model's graph returned {result}; the TypedDict's "
                f"returned {expected}.",
                "A default is what a node reads while a channel is empty: make each one what "
                "the TypedDict's nodes would find.",
            )
        try:  # (a field no node reads after its write is never checked by the run)
            model.model_validate(result)
        except ValidationError as error:
            field = str(error.errors()[0]["loc"][0]) if error.errors()[0]["loc"] else ""
            declared = getattr(typing.get_type_hints(Poll).get(field), "__name__", "type")
            raise Wrong(
                f"(input {given}) your model's graph ended as the TypedDict's did, but "
                f"{_schema_name(model)} refuses the state the run ended with: "
                f"{_first_line(error)}. No node read it after count wrote it; one that did "
                "would fail.",
                f"Give each field the type Poll gives it: {field} is a {declared}.",
            ) from None
    # (a reducer on question or result ends this graph the same, as each is written once;
    # a second run on a thread would join two questions)
    ours, polls = (
        {key: type(channel).__name__ for key, channel in poll_graph(schema).channels.items()}
        for schema in (model, Poll)
    )
    for key in Poll.__annotations__:
        if ours[key] != polls[key]:
            has = "has a reducer" if ours[key] == "BinaryOperatorAggregate" else "has none"
            raise Wrong(
                f"Your model's graph ended as the TypedDict's did, but {key} {has}: its "
                f"channel is a {ours[key]}, Poll's a {polls[key]}. This graph writes {key} "
                "once a run; a second run on one thread would tell them apart.",
                "Give a reducer to only the fields Poll gives one (section 5).",
            )
    return (
        "Your model's graph ended as the TypedDict's did: the votes and voters met in their "
        "reducers, and no default reached the channels."
    )
