"""Managed values: state keys the runtime computes for each task instead of storing.

Declare them in the state schema, as in LangGraph:

>>> from typing import TypedDict
>>> class State(TypedDict):
...     remaining_steps: RemainingSteps
...     is_last_step: IsLastStep
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Annotated, ClassVar, get_args, get_origin

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


_LANGGRAPHS = {kind.__name__: kind for kind in (RemainingStepsManager, IsLastStepManager)}

RemainingSteps = Annotated[int, RemainingStepsManager]
IsLastStep = Annotated[bool, IsLastStepManager]


def managed_value_of(annotation: object) -> type[ManagedValue] | None:
    """The manager an annotation names, by LangGraph's rule: the last item of an
    ``Annotated[...]``, else the first argument of a generic (``Optional[RemainingSteps]``
    is managed; ``Annotated[RemainingSteps, "doc"]`` is a plain field, as a reducer
    followed by a note is).

    >>> managed_value_of(RemainingSteps).__name__
    'RemainingStepsManager'
    >>> from typing import Optional
    >>> managed_value_of(Optional[IsLastStep]).__name__
    'IsLastStepManager'
    >>> managed_value_of(Annotated[RemainingSteps, "doc"]) is None
    True
    """
    metadata = getattr(annotation, "__metadata__", ())
    if metadata:
        last = get_origin(metadata[-1]) or metadata[-1]
        if isinstance(last, type) and issubclass(last, ManagedValue):
            return last
        if isinstance(last, type) and last.__module__.startswith("langgraph.managed."):
            # LangGraph's own (an import left as it was): the same marker, read as ours
            return _LANGGRAPHS.get(last.__name__)
    arguments = get_args(annotation) if get_origin(annotation) is not None else ()
    return managed_value_of(arguments[0]) if arguments else None
