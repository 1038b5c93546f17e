"""The default ``RetryPolicy().retry_on``: which errors LangGraph retries, including the
HTTP errors of httpx and requests (a requests ``HTTPError`` with a 4xx or 5xx response
is retried: LangGraph reads the response as a bool, which is then False)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import requests


def _requests_error(status: int | None) -> Exception:
    if status is None:
        return requests.HTTPError("no response")
    response = requests.Response()
    response.status_code = status
    return requests.HTTPError(f"{status}", response=response)


def _httpx_error(status: int, subclass: bool = False) -> Exception:
    request = httpx.Request("GET", "https://example.com")
    response = httpx.Response(status, request=request)
    kind: Any = type("Mine", (httpx.HTTPStatusError,), {}) if subclass else httpx.HTTPStatusError
    return kind(f"{status}", request=request, response=response)


ERRORS = {
    "connection": lambda: ConnectionError(),
    "value": lambda: ValueError(),
    "os": lambda: OSError(),
    "custom": lambda: type("Boom", (Exception,), {})(),
    "attribute": lambda: AttributeError(),  # (retried, though a programming error)
    "arithmetic": lambda: ZeroDivisionError(),
    "requests 404": lambda: _requests_error(404),
    "requests 503": lambda: _requests_error(503),
    "requests 200": lambda: _requests_error(200),
    "requests without a response": lambda: _requests_error(None),
    "requests connection": lambda: requests.ConnectionError(),
    "httpx 404": lambda: _httpx_error(404),
    "httpx 503": lambda: _httpx_error(503),
    "httpx subclass 404": lambda: _httpx_error(404, subclass=True),
    "httpx subclass 503": lambda: _httpx_error(503, subclass=True),
}


@pytest.mark.parametrize("error", list(ERRORS))
def test_the_default_retry_decision_is_langgraphs(error):
    from langgraph.types import RetryPolicy as Theirs

    from graphkit.types import RetryPolicy as Ours

    theirs = Theirs().retry_on(ERRORS[error]())
    assert Ours().should_retry(ERRORS[error]()) == theirs
