"""Managed values: state keys the runtime computes for each task instead of storing.

Declare them in the state schema, as in LangGraph:

>>> from typing import TypedDict
>>> class State(TypedDict):
...     remaining_steps: RemainingSteps
...     is_last_step: IsLastStep
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Annotated, ClassVar

__all__ = ["IsLastStep", "ManagedValue", "RemainingSteps", "managed_value_of"]


class ManagedValue(ABC):
    """A value computed from the step being planned and LangGraph's ``stop`` (the run's
    first step plus its recursion limit plus one: the last step number it may plan)."""

    name: ClassVar[str] = "managed value"

    @staticmethod
    @abstractmethod
    def get(step: int, stop: int) -> object:
        """The value for a task of step ``step``."""


class RemainingStepsManager(ManagedValue):
    """How many more supersteps the run may take, this one included."""

    name = "RemainingSteps"

    @staticmethod
    def get(step: int, stop: int) -> int:
        return stop - step


class IsLastStepManager(ManagedValue):
    """True in the last superstep the recursion limit allows."""

    name = "IsLastStep"

    @staticmethod
    def get(step: int, stop: int) -> bool:
        return step == stop - 1


RemainingSteps = Annotated[int, RemainingStepsManager]
IsLastStep = Annotated[bool, IsLastStepManager]


def managed_value_of(annotation: object) -> type[ManagedValue] | None:
    """The manager an ``Annotated[..., Manager]`` annotation names, if any.

    >>> managed_value_of(RemainingSteps).__name__
    'RemainingStepsManager'
    >>> managed_value_of(int) is None
    True
    """
    for item in getattr(annotation, "__metadata__", ()):
        if isinstance(item, type) and issubclass(item, ManagedValue):
            return item
    return None
