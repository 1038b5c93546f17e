"""Node policies for the fuzz suite (property 9): an error handler, a retry policy with
`retry_on`, a cache policy, and a way for the node to fail, drawn per node and applied
by `graphs.build` through `Way.policies`.

Every call of a policy's node or handler is counted in `CALLS` (per library, reset by the
property before each run), so retries and cache hits show even where the state does not.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from tests.conformance.harness import Lib, canonical
from tests.fuzz.graphs import END, Blueprint, extras, named_in

CALLS: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
"""Per library, how often each node and handler ran (attempts, not tasks)."""


class Broken(ValueError):
    """What a "value" failure raises (a `ValueError`: `retry_on=ValueError` retries it)."""


class Missing(KeyError):
    """What a "key" failure raises (a `KeyError`: `retry_on=ValueError` does not)."""


class HandlerFailed(RuntimeError):
    """What a "raises" error handler raises."""


FAILURES = ("never", "never", "value", "key", "first")
"""How the node fails: not at all, always with `Broken` or `Missing`, or with `Broken` on
its first attempt at each state (then works)."""

HANDLERS = (None, None, "update", "command", "raises", "asks")
RETRIES = (None, None, "value", "both", "predicate", "list", "default")


@dataclass(frozen=True)
class Policy:
    """One node's policies: how it `fails`, its `handler` kind (None, "update",
    "command" to `goto`, "raises", "asks": an `interrupt()`), its `retry` ("value":
    `retry_on=ValueError`, "both": `(ValueError, KeyError)`, "predicate": a function
    taking `KeyError`, "list": two policies, "default": LangGraph's default `retry_on`)
    with `attempts`, and whether it is `cached` (keyed by value)."""

    fails: str = "never"
    handler: str | None = None
    goto: str = END
    retry: str | None = None
    attempts: int = 2
    cached: bool = False

    def apply(
        self, lib: Lib, name: str, function: Callable[[Any], Any]
    ) -> tuple[Any, dict[str, Any]]:
        """The node's function (failing and counted as drawn) and its `add_node` options."""
        options: dict[str, Any] = {}
        if self.retry is not None:
            options["retry_policy"] = self._retry_policy(lib)
        if self.cached:
            options["cache_policy"] = named_in(lib, "types", "CachePolicy")(key_func=canonical)
        if self.handler is not None:
            options["error_handler"] = self._handler(lib, name)
        if not callable(function) or hasattr(function, "invoke"):
            return function, options  # a subgraph: its policies only
        return self._failing(lib.name, name, function), options

    def _failing(self, library: str, name: str, function: Callable) -> Callable[[Any], Any]:
        seen: set[str] = set()
        fails = self.fails

        def node(state: Any) -> Any:
            CALLS[library][name] += 1
            if fails == "value" or (fails == "first" and canonical(state) not in seen):
                seen.add(canonical(state))
                raise Broken("the node is broken")
            if fails == "key":
                raise Missing("the node misses a key")
            return function(state)

        return node

    def _retry_policy(self, lib: Lib) -> Any:
        def policy(retry_on: Any = None) -> Any:
            more = {} if retry_on is None else {"retry_on": retry_on}
            return lib.RetryPolicy(
                max_attempts=self.attempts, initial_interval=0.0, jitter=False, **more
            )

        if self.retry == "value":
            return policy(ValueError)
        if self.retry == "both":
            return policy((ValueError, KeyError))
        if self.retry == "predicate":
            return policy(lambda error: isinstance(error, KeyError))
        if self.retry == "list":
            return [policy(KeyError), policy(ValueError)]
        return policy()

    def _handler(self, lib: Lib, name: str) -> Callable[..., Any]:
        kind, goto, library = self.handler, self.goto, lib.name
        interrupt = extras(library)[0]

        def handler(state: Any, error: Any) -> Any:
            CALLS[library][f"handler of {name}"] += 1
            note = f"handled {error.node}"
            if kind == "raises":
                raise HandlerFailed(f"the handler of {error.node} fails too")
            if kind == "asks":
                note += f" {interrupt(f'{error.node} failed?')}"
            if kind == "command":
                return lib.Command(update={"log": [note]}, goto=goto)
            return {"log": [note]}

        # the annotation (a class, not a string) is what makes the error injected
        handler.__annotations__ = {"state": dict, "error": named_in(lib, "errors", "NodeError")}
        return handler


@st.composite
def policies(draw: st.DrawFn, blueprint: Blueprint) -> tuple[tuple[str, Policy], ...]:
    """Policies for one to three of the blueprint's nodes."""
    names = draw(st.lists(st.sampled_from(blueprint.names), min_size=1, max_size=3, unique=True))
    drawn = []
    for name in names:
        policy = Policy(
            fails=draw(st.sampled_from(FAILURES)),
            handler=draw(st.sampled_from(HANDLERS)),
            goto=draw(st.sampled_from([*blueprint.names, END])),
            retry=draw(st.sampled_from(RETRIES)),
            attempts=draw(st.integers(1, 3)),
            cached=draw(st.booleans()),
        )
        drawn.append((name, policy))
    return tuple(drawn)
