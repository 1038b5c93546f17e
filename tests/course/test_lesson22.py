"""Lesson 22's checks on their solutions, on typical wrong answers and on the notebook's
stubs; and the lesson's claims on LangGraph: its graph cells run there too (imports
swapped), showing the same, and what graphkit's records show (a returned instance's
writes, where a wrong-typed write is refused, what the channels keep) is read from
LangGraph's own stream, notes and checkpoints."""

from __future__ import annotations

import json
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import pytest
from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from graphkit.course import assert_fails, assert_passes, lesson22
from graphkit.course.solutions import lesson22 as solutions
from tests.course.cells import (
    cells_showing_an_id,
    code_cells,
    lines_too_long,
    run_again_in_reverse,
    run_cells,
    stub_names,
)

LESSON = Path(__file__).parents[2] / "notebooks" / "22-state-schemas-in-depth.ipynb"
IMPORT = "from graphkit.course import lesson22"


def stub_cells() -> dict:
    return stub_names(
        LESSON,
        lesson22,
        (
            "@dataclass\nclass Booking:",
            "class CheckedReading(",
            "where_it_fails =",
            "class PollModel(",
        ),
    )


def test_the_notebooks_stubs_fail_their_checks():
    stubs = stub_cells()
    assert_fails(
        lesson22.check_defaults(stubs["Booking"]),
        "missing 3 required positional arguments",
        hint="a value to fall back on",
    )
    assert_fails(
        lesson22.check_validator(stubs["CheckedReading"], stubs["where_it_fails"]),
        "nothing refused a temperature below absolute zero",
        hint="builds an instance",
    )
    assert_fails(
        lesson22.check_poll_model(stubs["PollModel"]),
        "votes: Field required; voters: Field required; result: Field required",
        hint="a value to fall back on",
    )


def test_the_lessons_cells_show_the_same_when_run_again():
    """Every cell that runs a graph shows the same when run again, in any order: each
    builds its own graph, and clears what it collects."""
    shown = run_again_in_reverse(
        LESSON, IMPORT, lambda source: "trace(" in source or "invoke(" in source
    )
    said = "\n".join(out for out, _ in shown.values())
    assert "log: ['asked by mail', 'asked by mail', '270 euros']" in said
    assert "calls: 2 · given: [' oslo ', ' oslo ']" in said


def test_no_cell_shows_an_id():
    assert cells_showing_an_id(LESSON, IMPORT) == {}


def test_q1s_cell_does_not_name_the_error_it_asks_about():
    """The learner reads Q1's cell while guessing: `except KeyError` in it said one schema
    fails, and how."""
    q1 = next(source for _, source in code_cells(LESSON) if "{my_no_nights}" in source)
    assert "KeyError" not in q1


def test_every_code_line_fits_the_cell():
    """JupyterLab at the course's reading width shows about 105 characters of a code line;
    a longer one scrolls sideways, hiding its end."""
    assert lines_too_long(LESSON) == []


# -- the lesson's claims on LangGraph

LANGGRAPH_IMPORTS = {
    "from graphkit import START, InMemorySaver, StateGraph": (
        "from langgraph.checkpoint.memory import InMemorySaver\n"
        "from langgraph.graph import START, StateGraph"
    ),
}


def to_langgraph(cell: str, source: str) -> str | None:
    """The cell for LangGraph, or None for one that reads graphkit's records."""
    if ".trace(" in source or "to_frame" in source or source.startswith("fan_out_changes"):
        return None
    for ours, theirs in LANGGRAPH_IMPORTS.items():
        source = source.replace(ours, theirs)
    assert "from graphkit import" not in source
    return source


def run_lesson(library: str) -> tuple[dict, dict]:
    """Sections 1 to 5's code cells on ``library``: what each showed, and the names."""
    names: dict = {"display": print}
    source_of = to_langgraph if library == "langgraph" else (lambda cell, source: source)
    return run_cells(LESSON, until=IMPORT, names=names, source_of=source_of), names


def observe(names: dict) -> dict:
    """What the lesson shows with graphkit's records, computed from its own graphs with
    the library's stream, notes and checkpointer (no graphkit records)."""
    seen: dict = {}
    trip_graph, model = names["trip_graph"], names["TripModel"]
    # Q1's state table: nights is in no values chunk
    chunks = list(trip_graph(model).stream({"city": "Oslo"}, stream_mode="values"))
    seen["nights in a chunk"] = any("nights" in chunk for chunk in chunks)
    # Q2: what plan wrote, and the log at the end
    given = {"city": "Oslo", "log": ["asked by mail"]}
    updates = list(
        trip_graph(model, plan=names["stay_longer"]).stream(given, stream_mode="updates")
    )
    seen["Q2 plan wrote"] = updates[0]["plan"]
    seen["Q2 log"] = trip_graph(model, plan=names["stay_longer"]).invoke(given)["log"]
    # Q3: refused before price's task, the channels holding "three", get_state too
    saver = names["InMemorySaver"]()
    app = trip_graph(model, plan=names["plan_typo"], checkpointer=saver)
    config = {"configurable": {"thread_id": "typo"}}
    chunks = []
    with pytest.raises(names["ValidationError"]) as raised:
        for chunk in app.stream({"city": "Oslo"}, config, stream_mode="values"):
            chunks.append(chunk)
    seen["Q3 before"] = raised.value.__notes__[0].startswith("Before task with name 'price'")
    seen["Q3 chunks"] = chunks
    seen["Q3 saved nights"] = saver.get_tuple(config).checkpoint["channel_values"]["nights"]
    with pytest.raises(names["ValidationError"]):
        app.get_state(config)
    # Q3's aside: the last node's bad write is never read
    builder = names["StateGraph"](model)
    builder.add_node("plan", names["plan_typo"])
    builder.add_edge(names["START"], "plan")
    seen["Q3 unread"] = builder.compile().invoke({"city": "Oslo"})
    # section 4's strict model refuses "3"
    from pydantic import ConfigDict, ValidationError

    strict = type("Strict", (model,), {"model_config": ConfigDict(strict=True)})
    with pytest.raises(ValidationError):
        trip_graph(strict, plan=names["plan_text"]).invoke({"city": "Oslo"})
    # Q4 with a router reading the state: one call more
    validated = names["validated"]
    validated.clear()
    routed = names["StateGraph"](names["TripChecked"])
    routed.add_node("plan", names["plan"])
    routed.add_node("price", names["price"])
    routed.add_edge(names["START"], "plan")
    routed.add_conditional_edges("plan", lambda state: "price", ["price"])
    routed.compile().invoke({"city": " oslo "})
    seen["Q4 calls with a router"] = len(validated)
    # section 5: the reducer in a dataclass field, one Update of two writes
    updates = list(
        names["fan_out"](names["TripData"]).stream({"city": "Oslo"}, stream_mode="updates")
    )
    seen["fan-out writes"] = sorted(str(update) for update in updates)
    return seen


def test_the_lessons_claims_hold_on_langgraph():
    pytest.importorskip("langgraph")
    ours, our_names = run_lesson("graphkit")
    theirs, their_names = run_lesson("langgraph")
    # the cells that run on both show the same (the drawing aside)
    assert theirs == {cell: ours[cell] for cell in theirs}
    assert len(theirs) >= 15
    seen = observe(our_names)
    assert seen == observe(their_names)
    assert seen["nights in a chunk"] is False
    assert seen["Q2 plan wrote"] == {"city": "Oslo", "nights": 3, "log": ["asked by mail"]}
    assert seen["Q2 log"] == ["asked by mail", "asked by mail", "270 euros"]
    assert seen["Q3 before"] is True
    assert seen["Q3 saved nights"] == "three"
    assert seen["Q3 unread"]["nights"] == "three"
    assert seen["Q4 calls with a router"] == 3
    assert seen["fan-out writes"] == [
        "{'hotel': {'log': ['hotel']}}",
        "{'train': {'log': ['train']}}",
    ]


def test_the_lessons_cells_print_what_the_lesson_says():
    shown, _ = run_lesson("graphkit")
    said = "\n".join(out for out, _ in shown.values())
    shown_values = "\n".join(str(value) for _, value in shown.values())
    assert "TripData: plan received a TripData, invoke returned a dict" in said
    assert "  plan received   TripData(city='Oslo', nights=2, log=[])" in said
    assert said.count(", invoke returned a dict\n") == 3
    assert "TripDict: KeyError 'nights' in plan, which received {'city': 'Oslo', 'log': []}" in said
    assert "TripModel: plan read nights=1\n  invoke returned {'city': 'Oslo', 'log': [" in said
    assert "the thread's values: {'city': 'Oslo', 'log': [" in said
    assert "{'city': 'Oslo', 'nights': 1, 'log': [" in shown_values  # an instance as the input
    assert "note: Before task with name 'price' (step 2)" in said
    assert "TripData: price read nights='3', invoke returned nights='3'" in said
    assert (
        "TripModel: price read nights=3, invoke returned nights='3'\n  price wrote '270 euros'"
        in said
    )
    assert f"  price wrote {'3' * 30!r}" in said
    assert "plan read 'Oslo' · invoke returned ' oslo '" in said
    assert said.count("log ['hotel', 'train']") == 3
    assert "{'city': 'Oslo', 'log': ['plan read []']}" in shown_values
    assert "'LastValue'" not in shown_values or "BinaryOperatorAggregate" in shown_values


# -- 22.1 · Defaults for a dataclass state


def test_defaults_passes_on_the_solution():
    assert_passes(lesson22.check_defaults(solutions.Booking))


@dataclass
class BookingWithoutReducer:
    guest: str = "guest"
    nights: int = 1
    requests: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class BookingWithZeroNights:
    notes: Annotated[list[str], operator.add]
    guest: str = "guest"
    nights: int = 0
    requests: list[str] = field(default_factory=list)


@dataclass
class BookingWithoutRequests:
    notes: Annotated[list[str], operator.add]
    guest: str = "guest"
    nights: int = 1
    requests: list[str] = None


@dataclass
class BookingWithFloatNights:
    guest: str = "guest"
    nights: int = 1.0  # 1.0 == 1, but a dataclass keeps the float its field says is an int
    requests: list[str] = field(default_factory=list)
    notes: Annotated[list[str], operator.add] = field(default_factory=list)


@dataclass
class BookingNotesFirst:
    """Right, written otherwise: notes keeps no default (its channel starts as [])."""

    notes: Annotated[list[str], operator.add]
    guest: str = "guest"
    nights: int = 1
    requests: list[str] = field(default_factory=lambda: [])


@dataclass
class BookingThatRaises:
    guest: str = "guest"
    nights: int = 1
    requests: list[str] = field(default_factory=list)
    notes: Annotated[list[str], operator.add] = field(default_factory=list)

    def __post_init__(self):
        raise RuntimeError("no rooms")


def test_defaults_an_error_of_the_class_is_not_blamed_on_a_missing_value():
    verdict = assert_fails(lesson22.check_defaults(BookingThatRaises), "RuntimeError: no rooms")
    assert "no node wrote" not in verdict.message


def test_defaults_passes_on_an_answer_written_otherwise():
    assert_passes(lesson22.check_defaults(BookingNotesFirst))


class BookingModel(BaseModel):
    guest: str = "guest"
    nights: int = 1
    requests: list[str] = []
    notes: Annotated[list[str], operator.add] = []


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (BookingWithoutReducer, "received 2 values in one step", "lost its reducer"),
        (BookingWithZeroNights, "nights=0", "check each default"),
        # welcome's len() of None is the check's code failing, not the learner's: the
        # verdict says what welcome read, not "Your code raised TypeError"
        (BookingWithoutRequests, "requests=None; it should read", "check each default"),
        (BookingModel, "a pydantic model, not a dataclass", "@dataclass"),
        (BookingWithFloatNights, "nights=1.0, of type float", "the type its field declares"),
    ],
)
def test_defaults_wrong_answers(answer, said, hint):
    assert_fails(lesson22.check_defaults(answer), said, hint=hint)


# -- 22.2 · A validator that catches a bad write


class RefusesAbsoluteZero(lesson22.Reading):
    @field_validator("celsius")
    @classmethod
    def above(cls, celsius):
        if celsius is not None and celsius <= lesson22.ABSOLUTE_ZERO:
            raise ValueError("too cold")
        return celsius


class ReturnsNothing(lesson22.Reading):
    @field_validator("celsius")
    @classmethod
    def above(cls, celsius):
        if celsius is not None and celsius < lesson22.ABSOLUTE_ZERO:
            raise ValueError("too cold")


class ChecksRaw(lesson22.Reading):
    @field_validator("raw")
    @classmethod
    def above(cls, raw):
        if raw < lesson22.ABSOLUTE_ZERO:
            raise ValueError("too cold")
        return raw


class RaisesTypeError(lesson22.Reading):
    @field_validator("celsius")
    @classmethod
    def above(cls, celsius):
        if celsius is not None and celsius < lesson22.ABSOLUTE_ZERO:
            raise TypeError("too cold")
        return celsius


class ChecksFahrenheit(lesson22.Reading):
    """Refuses fahrenheit below absolute zero (-459.67 °F): the bad celsius goes through
    convert's state, and the run stops one step later."""

    @field_validator("fahrenheit")
    @classmethod
    def above(cls, fahrenheit):
        if fahrenheit is not None and fahrenheit < -459.67:
            raise ValueError("too cold")
        return fahrenheit


class ClampsToAbsoluteZero(lesson22.Reading):
    """Returns absolute zero for a colder reading, instead of refusing it."""

    @field_validator("celsius")
    @classmethod
    def above(cls, celsius):
        if celsius is not None and celsius < lesson22.ABSOLUTE_ZERO:
            return lesson22.ABSOLUTE_ZERO
        return celsius


class CheckedBefore(lesson22.Reading):
    @field_validator("celsius", mode="before")
    @classmethod
    def above(cls, celsius):
        if celsius is not None and celsius < lesson22.ABSOLUTE_ZERO:
            raise ValueError("too cold")
        return celsius


class CheckedByTheModel(lesson22.Reading):
    @model_validator(mode="after")
    def above(self):
        assert self.celsius is None or self.celsius >= lesson22.ABSOLUTE_ZERO, "too cold"
        return self


class CheckedByAField(lesson22.Reading):
    celsius: float | None = Field(default=None, ge=lesson22.ABSOLUTE_ZERO)


@pytest.mark.parametrize("answer", [CheckedBefore, CheckedByTheModel, CheckedByAField])
def test_validator_passes_on_answers_written_otherwise(answer):
    assert_passes(lesson22.check_validator(answer, solutions.where_it_fails))


@pytest.mark.parametrize(
    "where", [{"node": "sensor", "step": 1}, {"node": "convert", "step": 1}, {"node": "report"}]
)
def test_validator_a_wrong_prediction_is_not_told_the_answer(where):
    verdict = assert_fails(lesson22.check_validator(solutions.CheckedReading, where))
    said = verdict.message + verdict.hint
    assert not all(part in said for part in ("'convert'", "step 2")), said


def test_validator_passes_on_the_solution():
    assert_passes(lesson22.check_validator(solutions.CheckedReading, solutions.where_it_fails))


@pytest.mark.parametrize(
    ("answer", "where", "said", "hint"),
    [
        (RefusesAbsoluteZero, solutions.where_it_fails, "(raw -2731.5, -273.15 °C)", "itself"),
        (ReturnsNothing, solutions.where_it_fails, "'NoneType' and 'int'", "returns the value"),
        (ChecksRaw, solutions.where_it_fails, "before sensor ran", "celsius"),
        (
            solutions.CheckedReading,
            {"node": "sensor", "step": 1},
            "not stop before 'sensor'",
            "never",
        ),
        (solutions.CheckedReading, {"node": "convert", "step": 1}, "not in step 1", "Update"),
        (solutions.CheckedReading, {"node": "report", "step": 2}, "not before 'report'", "Update"),
        (lesson22.Poll, {}, "not a pydantic model", "Subclass Reading"),
        (RaisesTypeError, solutions.where_it_fails, "raised TypeError: too cold", "ValueError"),
        # it does tell the model what celsius may not be: the hint says how to refuse
        (ClampsToAbsoluteZero, solutions.where_it_fails, "convert read -273.15", "raising"),
        (ChecksFahrenheit, {"node": "report", "step": 3}, "let celsius -300.0 through", "celsius"),
        (solutions.CheckedReading, ("convert", 2), "a tuple", '{"node": '),
        (solutions.CheckedReading, {"node": "convert", "step": "2"}, "'2', a str", "number"),
    ],
)
def test_validator_wrong_answers(answer, where, said, hint):
    assert_fails(lesson22.check_validator(answer, where), said, hint=hint)


# -- 22.3 · From TypedDict to pydantic


def test_poll_model_passes_on_the_solution():
    assert_passes(lesson22.check_poll_model(solutions.PollModel))


class PollWithoutReducers(BaseModel):
    question: str
    votes: list[str] = []
    voters: int = 0
    result: str = ""


class PollWithoutAVotersReducer(BaseModel):
    """The votes' reducer kept, the voters' forgotten: the verdict names voters."""

    question: str
    votes: Annotated[list[str], operator.add] = []
    voters: int = 0
    result: str = ""


class PollOfNumbers(BaseModel):
    question: str
    votes: Annotated[list[int], operator.add] = []
    voters: Annotated[int, operator.add] = 0
    result: str = ""


class PollWithoutAResultDefault(BaseModel):
    question: str
    votes: Annotated[list[str], operator.add]
    voters: Annotated[int, operator.add]
    result: str


class PollWithANumberForResult(BaseModel):
    """No node reads result after count writes it, so no instance refused the text: the
    run ended as Poll's did, and the check praised a model that cannot hold its own end."""

    question: str
    votes: Annotated[list[str], operator.add] = []
    voters: Annotated[int, operator.add] = 0
    result: int = 0


class PollWithReducersEverywhere(BaseModel):
    """Ends as Poll's graph does, since question and result are written once; a second
    run on a thread would join two questions."""

    question: Annotated[str, operator.add] = ""
    votes: Annotated[list[str], operator.add] = []
    voters: Annotated[int, operator.add] = 0
    result: Annotated[str, operator.add] = ""


class PollWrittenOtherwise(BaseModel):
    question: str
    votes: Annotated[list[str], lambda old, new: old + new] = Field(default_factory=list)
    voters: Annotated[int, operator.add]
    result: str | None = None


def test_poll_model_passes_on_an_answer_written_otherwise():
    assert_passes(lesson22.check_poll_model(PollWrittenOtherwise))


@pytest.mark.parametrize(
    ("answer", "said", "hint"),
    [
        (PollWithReducersEverywhere, "question has a reducer", "only the fields"),
        (PollWithoutReducers, "received 2 values in one step", "Annotated"),
        (
            PollWithoutAVotersReducer,
            "wrote 'voters'. Channel 'voters' received 2 values in one step; a plain field keeps "
            "one value per step. Give it a reducer in the state schema, e.g. voters: "
            "Annotated[int, operator.add], or write it from one node per step. The TypedDict's "
            "graph kept both writes to voters: it ended with voters 2.",
            "Annotated",
        ),
        (PollOfNumbers, "before node count could start (step 2)", "type must fit"),
        (PollWithoutAResultDefault, "result: Field required", "fall back on"),
        (PollWithANumberForResult, "refuses the state the run ended with: result", "str"),
        (lesson22.Poll, "not a pydantic model", "BaseModel"),
    ],
)
def test_poll_model_wrong_answers(answer, said, hint):
    assert_fails(lesson22.check_poll_model(answer), said, hint=hint)


def test_the_exercises_graphs_behave_the_same_on_langgraph():
    """22.2's and 22.3's solutions in LangGraph's own graphs: the validator refuses the
    bad reading before convert's task, and the poll model ends as the TypedDict does."""
    pytest.importorskip("langgraph")
    from langgraph.graph import START, StateGraph
    from pydantic import ValidationError

    def sensor_graph(schema):
        builder = StateGraph(schema)
        builder.add_node("sensor", lambda state: {"celsius": round(state.raw / 10, 2)})
        builder.add_node("convert", lambda state: {"fahrenheit": state.celsius * 9 / 5 + 32})
        builder.add_edge(START, "sensor")
        builder.add_edge("sensor", "convert")
        return builder.compile()

    assert sensor_graph(solutions.CheckedReading).invoke({"raw": -400.0})["fahrenheit"] == -40.0
    with pytest.raises(ValidationError) as raised:
        sensor_graph(solutions.CheckedReading).invoke({"raw": lesson22.BAD_READING})
    assert raised.value.__notes__[0].startswith("Before task with name 'convert'")

    def poll_graph(schema):
        builder = StateGraph(schema)
        for name, choice in (("alice", "tea"), ("bob", "coffee")):
            builder.add_node(name, lambda state, choice=choice: {"votes": [choice], "voters": 1})
            builder.add_edge(START, name)
        builder.add_node("count", lambda state: {"result": str(lesson22._get(state, "votes"))})
        builder.add_edge(["alice", "bob"], "count")
        return builder.compile()

    for given in lesson22.POLLS:
        theirs = poll_graph(solutions.PollModel).invoke(dict(given))
        assert theirs == poll_graph(lesson22.Poll).invoke(dict(given))
        ours = lesson22.poll_graph(solutions.PollModel).invoke(dict(given))
        assert (ours["votes"], ours["voters"]) == (theirs["votes"], theirs["voters"])


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_what_a_returned_instance_writes(library):
    """Section 3's asides, on both libraries: a dataclass instance is written field by
    field too (its reducer's list doubles), and a pydantic field left unset whose value
    and default are both None is the one field an instance does not write."""
    if library == "langgraph":
        StateGraph = pytest.importorskip("langgraph.graph").StateGraph
        from langgraph.graph import START
    else:
        from graphkit import START, StateGraph

    @dataclass
    class Stay:
        nights: int = 1
        log: Annotated[list[str], operator.add] = field(default_factory=list)

    class Note(BaseModel):
        city: str
        note: str | None = None

    def run(schema, node, given):
        builder = StateGraph(schema)
        builder.add_node("node", node)
        builder.add_edge(START, "node")
        return builder.compile().invoke(given)

    assert run(Stay, lambda state: state, {"log": ["a"]}) == {"nights": 1, "log": ["a", "a"]}
    given = {"city": "Oslo", "note": "by mail"}
    assert run(Note, lambda state: Note(city="Rome"), given)["note"] == "by mail"
    assert run(Note, lambda state: Note(city="Rome", note=None), given)["note"] is None


def keep_higher(old: int | None, new: int | None) -> int | None:
    return max(value for value in (old, new, 0) if value is not None)


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_a_reducer_field_with_no_empty_value_reads_its_default(library):
    """Section 5's caveat, on both libraries: a reducer field's channel starts with its
    type's empty value (``list[str]()``, ``int()``), so its default is never read; a type
    that cannot be called empty (``int | None``) leaves the channel empty, and the node
    reads the default as for any other field."""
    if library == "langgraph":
        StateGraph = pytest.importorskip("langgraph.graph").StateGraph
        from langgraph.graph import START
    else:
        from graphkit import START, StateGraph

    class Best(BaseModel):
        log: Annotated[list[str], operator.add] = ["never read"]
        count: Annotated[int, operator.add] = 7
        best: Annotated[int | None, keep_higher] = 5

    read = []
    builder = StateGraph(Best)
    builder.add_node("node", lambda state: read.append(state) or {})
    builder.add_edge(START, "node")
    builder.compile().invoke({})
    assert (read[0].log, read[0].count, read[0].best) == ([], 0, 5)
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    said = "".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    assert "`int | None`" in said


@pytest.mark.parametrize("library", ["graphkit", "langgraph"])
def test_a_v2_result_is_an_instance_with_its_defaults(library):
    """The exception to "invoke returns a dict, never an instance, and no result holds a
    default": with version="v2" (lesson 27), invoke's ``.value`` and each values part are
    instances of the state class, built from the channels as a node's state is, so a
    default shows there and pydantic validates the result; the default invoke's dict has
    no default and keeps a wrong-typed value no node read, on both libraries."""
    if library == "langgraph":
        StateGraph = pytest.importorskip("langgraph.graph").StateGraph
        from langgraph.graph import START
    else:
        from graphkit import START, StateGraph

    @dataclass
    class Trip:
        city: str
        nights: int = 1

    class Model(BaseModel):
        city: str
        nights: int = 1

    for schema in (Trip, Model):
        builder = StateGraph(schema)
        builder.add_node("plan", lambda state: {})
        builder.add_edge(START, "plan")
        app = builder.compile()
        assert app.invoke({"city": "Oslo"}) == {"city": "Oslo"}
        assert app.invoke({"city": "Oslo"}, version="v2").value == schema(city="Oslo")
        parts = list(app.stream({"city": "Oslo"}, stream_mode="values", version="v2"))
        assert parts[-1]["data"] == schema(city="Oslo", nights=1)

    # a wrong-typed write no node reads: kept by the dict result, refused by the v2 one
    builder = StateGraph(Model)
    builder.add_node("plan", lambda state: {"nights": "three"})
    builder.add_edge(START, "plan")
    app = builder.compile()
    assert app.invoke({"city": "Oslo"})["nights"] == "three"
    with pytest.raises(ValidationError):
        app.invoke({"city": "Oslo"}, version="v2")


def test_the_text_names_version_v2_where_it_says_invoke_returns_a_dict():
    """Section 1 said invoke returns a dict, never an instance, Q1's answer that a default
    is in no values chunk nor result, and the summary both, and that pydantic validates
    each task's state only: with version="v2" the result is an instance too, defaults filled
    in and validated (the tests around). Each place now says so."""
    cells = json.loads(LESSON.read_text(encoding="utf-8"))["cells"]
    text = [" ".join("".join(cell["source"]).split()) for cell in cells]
    assert not any(re.search(r"\bnever an instance", cell) for cell in text)
    places = [
        next(cell for cell in text if cell.startswith("To work with an instance")),
        next(cell for cell in text if "and nowhere else" in cell),
        next(cell for cell in text if "## Summary" in cell).split("## Summary")[1],
    ]
    for said in places:
        assert 'version="v2"' in said, said[:300]
    validates = places[-1].split("pydantic validates")[1].split(" - ")[0]
    assert 'and a `version="v2"` result' in validates, validates


@pytest.mark.parametrize(
    ("check", "instance", "name"),
    [
        (lesson22.check_defaults, solutions.Booking(), "Booking"),
        (
            lambda model: lesson22.check_validator(model, solutions.where_it_fails),
            solutions.CheckedReading(raw=215.0),
            "CheckedReading",
        ),
        (lesson22.check_poll_model, solutions.PollModel(question="Tea?"), "PollModel"),
    ],
)
def test_an_instance_given_for_the_class_is_told_to_pass_the_class(check, instance, name):
    """`check_defaults(Booking())`: the verdict said "Booking is Booking(...), not a
    dataclass. Write it with @dataclass.", but an instance of a dataclass is one, and the
    learner had written it with @dataclass. The schema is the class itself."""
    verdict = assert_fails(check(instance), "an instance", hint=f"the class itself, {name}")
    assert "not a dataclass" not in verdict.message
    assert "not a pydantic model" not in verdict.message
