"""LangGraph's import path of the step-counting managed values
(``langgraph.managed.is_last_step``).

>>> import graphkit.managed
>>> from graphkit.managed.is_last_step import RemainingSteps
>>> RemainingSteps is graphkit.managed.RemainingSteps
True
"""

from graphkit.managed import IsLastStep, RemainingSteps

__all__ = ["IsLastStep", "RemainingSteps"]
