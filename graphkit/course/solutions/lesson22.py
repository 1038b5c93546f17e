"""Solutions to lesson 22 · State schemas in depth: dataclass and pydantic state, defaults,
validation.

>>> from graphkit.course import lesson22
>>> bool(lesson22.check_defaults(Booking))
True
>>> bool(lesson22.check_validator(CheckedReading, where_it_fails))
True
>>> bool(lesson22.check_poll_model(PollModel))
True
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated

from pydantic import BaseModel, field_validator

from graphkit.course.lesson22 import ABSOLUTE_ZERO, Reading

__all__ = ["Booking", "CheckedReading", "PollModel", "where_it_fails"]


@dataclass
class Booking:
    """22.1: a default for each field the input may leave out; a list's default is made by
    a factory (a dataclass refuses one list shared by every instance). ``notes`` keeps its
    reducer; its channel starts as an empty list, whatever its default."""

    guest: str = "guest"
    nights: int = 1
    requests: list[str] = field(default_factory=list)
    notes: Annotated[list[str], operator.add] = field(default_factory=list)


class CheckedReading(Reading):
    """22.2: runs each time an instance is built, so each time a node's state is built
    from the channels."""

    @field_validator("celsius")
    @classmethod
    def above_absolute_zero(cls, celsius: float | None) -> float | None:
        if celsius is not None and celsius < ABSOLUTE_ZERO:
            raise ValueError(f"{celsius} °C is below absolute zero")
        return celsius


where_it_fails = {"node": "convert", "step": 2}
"""22.2: sensor's write (step 1) is applied by step 1's Update unchecked; step 2's Plan
builds convert's state from the channels, and the validator refuses it there."""


class PollModel(BaseModel):
    """22.3: the reducers go in ``Annotated`` as in the TypedDict; every field the input may
    leave out gets a default (the reducer fields' channels start empty anyway)."""

    question: str
    votes: Annotated[list[str], operator.add] = []
    voters: Annotated[int, operator.add] = 0
    result: str = ""
