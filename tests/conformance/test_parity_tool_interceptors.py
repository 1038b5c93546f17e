"""ToolNode's interceptors as LangGraph's own tests use them, on both libraries:
assigning a ``ToolCallRequest`` field warns in LangGraph's words, which tests match
with ``pytest.warns``."""

import importlib
import warnings
from typing import Any

import pytest


@pytest.mark.parametrize("field", ["tool_call", "tool", "state", "runtime"])
def test_assigning_a_request_field_warns_in_langgraphs_words(field: str) -> None:
    def run(side: str) -> Any:
        request_class = importlib.import_module(f"{side}.prebuilt.tool_node").ToolCallRequest
        call = {"name": "add", "args": {}, "id": "c1"}
        request = request_class(tool_call=call, tool=None, state={}, runtime=None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            setattr(request, field, None)
        (warning,) = caught
        return warning.category, str(warning.message).split(". ")[0], getattr(request, field)

    assert (
        run("langgraph")
        == run("graphkit")
        == (
            DeprecationWarning,
            f"Setting attribute '{field}' on ToolCallRequest is deprecated",
            None,
        )
    )
