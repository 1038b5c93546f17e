"""LangChain's batch methods on a compiled graph: ``batch`` / ``abatch`` run several
inputs at once (at most ``max_concurrency``) and return their outputs in order;
``batch_as_completed`` / ``abatch_as_completed`` yield each ``(index, output)`` as its
run ends. A config is one for all inputs or one per input."""

from __future__ import annotations

import asyncio
import contextvars
import warnings
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

__all__ = ["BatchMethods"]


class BatchMethods:
    """Mixed into ``CompiledGraph``: what these methods need is its ``invoke`` and
    ``ainvoke``."""

    invoke: Any
    ainvoke: Any

    def batch(
        self,
        inputs: Sequence[Any],
        config: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """``invoke`` each input, several at once (at most ``config["max_concurrency"]``),
        and return their outputs in order. ``config``: one for all, or one per input;
        ``return_exceptions``: an input's error is its output instead of being raised.

        >>> from typing import TypedDict
        >>> from graphkit import StateGraph, START
        >>> builder = StateGraph(TypedDict("S", {"n": int}))
        >>> builder = builder.add_node("double", lambda state: {"n": state["n"] * 2})
        >>> app = builder.add_edge(START, "double").compile()
        >>> app.batch([{"n": 1}, {"n": 2}])
        [{'n': 2}, {'n': 4}]
        >>> app.batch([{"n": 1}, {"n": None}], return_exceptions=True)[1]
        TypeError("unsupported operand type(s) for *: 'NoneType' and 'int'")
        """
        configs = _one_per_input("batch", config, len(inputs))
        one = _run_one(self.invoke, return_exceptions, kwargs)
        pairs = list(zip(inputs, configs, strict=True))
        if len(pairs) <= 1:
            return [one(given, given_config) for given, given_config in pairs]
        limit = (configs[0] or {}).get("max_concurrency") or None
        with ThreadPoolExecutor(max_workers=limit or len(pairs)) as pool:
            # each run sees the caller's context (a graph batched inside a node: its task)
            futures = [
                pool.submit(contextvars.copy_context().run, one, given, given_config)
                for given, given_config in pairs
            ]
            return [future.result() for future in futures]

    async def abatch(
        self,
        inputs: Sequence[Any],
        config: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> list[Any]:
        """``ainvoke`` each input concurrently (at most ``config["max_concurrency"]`` at
        once); as ``batch``."""
        configs = _one_per_input("abatch", config, len(inputs))
        one = _await_one(self.ainvoke, configs, return_exceptions, kwargs)
        runs = [one(given, config) for given, config in zip(inputs, configs, strict=True)]
        return list(await asyncio.gather(*runs))

    def batch_as_completed(
        self,
        inputs: Sequence[Any],
        config: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> Iterator[tuple[int, Any]]:
        """``batch``, yielding ``(index, output)`` as each run ends (LangGraph's).

        >>> from typing import TypedDict
        >>> from graphkit import StateGraph, START
        >>> builder = StateGraph(TypedDict("S", {"n": int}))
        >>> builder = builder.add_node("double", lambda state: {"n": state["n"] * 2})
        >>> app = builder.add_edge(START, "double").compile()
        >>> sorted(app.batch_as_completed([{"n": 1}, {"n": 2}]))
        [(0, {'n': 2}), (1, {'n': 4})]
        """
        configs = _one_per_input("batch_as_completed", config, len(inputs))
        one = _run_one(self.invoke, return_exceptions, kwargs)
        limit = (configs[0] or {}).get("max_concurrency") if configs else None
        with ThreadPoolExecutor(max_workers=limit or max(len(inputs), 1)) as pool:
            started = {
                pool.submit(contextvars.copy_context().run, one, given, given_config): index
                for index, (given, given_config) in enumerate(zip(inputs, configs, strict=True))
            }
            for future in as_completed(started):
                yield started[future], future.result()

    async def abatch_as_completed(
        self,
        inputs: Sequence[Any],
        config: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None,
        *,
        return_exceptions: bool = False,
        **kwargs: Any,
    ) -> AsyncIterator[tuple[int, Any]]:
        """``abatch``, yielding ``(index, output)`` as each run ends (LangGraph's)."""
        configs = _one_per_input("abatch_as_completed", config, len(inputs))
        one = _await_one(self.ainvoke, configs, return_exceptions, kwargs)

        async def numbered(index: int, given: Any, given_config: Any) -> tuple[int, Any]:
            return index, await one(given, given_config)

        pairs = enumerate(zip(inputs, configs, strict=True))
        for finished in asyncio.as_completed([numbered(i, g, c) for i, (g, c) in pairs]):
            yield await finished


def _run_one(invoke: Any, return_exceptions: bool, kwargs: dict[str, Any]) -> Any:
    """``invoke(given, config)`` with the batch's kwargs; its error returned instead of
    raised when ``return_exceptions``."""

    def one(given: Any, given_config: Any) -> Any:
        try:
            return invoke(given, given_config, **kwargs)
        except Exception as error:
            if return_exceptions:
                return error
            raise

    return one


def _await_one(
    ainvoke: Any, configs: list[Any], return_exceptions: bool, kwargs: dict[str, Any]
) -> Any:
    """``_run_one`` for ``ainvoke``, at most ``max_concurrency`` (of the first config) at
    once."""
    limit = (configs[0] or {}).get("max_concurrency") if configs else None
    gate = asyncio.Semaphore(limit) if limit else None

    async def one(given: Any, given_config: Any) -> Any:
        try:
            if gate is None:
                return await ainvoke(given, given_config, **kwargs)
            async with gate:
                return await ainvoke(given, given_config, **kwargs)
        except Exception as error:
            if return_exceptions:
                return error
            raise

    return one


def _one_per_input(method: str, config: Any, count: int) -> list[Any]:
    if isinstance(config, Sequence) and not isinstance(config, (str, Mapping)):
        if len(config) != count:
            raise ValueError(
                f"{method}() was given {len(config)} configs for {count} inputs: give one "
                "config for all, or exactly one per input."
            )
        return list(config)
    if count > 1 and isinstance(config, Mapping) and config.get("run_id") is not None:
        # one run id names one run: LangChain's batch gives it to the first input only
        warnings.warn(
            "Provided run_id be used only for the first element of the batch.",
            RuntimeWarning,
            stacklevel=3,
        )
        rest = {key: value for key, value in config.items() if key != "run_id"}
        return [config, *[rest] * (count - 1)]
    return [config] * count
