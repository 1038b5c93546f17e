"""``StreamChannel``: the queue behind each projection of a v3 run (``run.values``...)."""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Generic, TypeVar

__all__ = ["StreamChannel"]

T = TypeVar("T")


class StreamChannel(Generic[T]):
    """A queue with one reader, filled by a transformer and read as the run goes.

    Reading an empty channel asks the run for its next event: the reader drives the
    graph, no thread does. Items are kept only once someone reads (from ``iter()`` on),
    so a projection nobody reads costs nothing; ``tee(n)`` gives several readers. A
    channel with a ``name`` also puts each item in the run's event log, as a ``name``
    event (a native transformer's) or ``custom:name``. The run closes its channels when
    it ends, or fails them with its error.

    >>> StreamChannel("steps")
    StreamChannel(name='steps', open, queued=0)
    """

    def __init__(self, name: str | None = None, *, maxlen: int | None = None) -> None:
        if maxlen is not None and (not isinstance(maxlen, int) or maxlen < 1):
            raise ValueError(f"StreamChannel maxlen must be a positive int or None, got {maxlen!r}")
        self.name = name
        self.maxlen = maxlen  # (accepted: a reader pulls one event at a time, so it stays short)
        self._queue: deque[tuple[int, T]] = deque()  # (arrival number, item)
        self._has_reader = False
        self._closed = False
        self._failure: BaseException | None = None
        self._pump: Any = None  # the run's: pull(), apull(), is_async, arrival()
        self._also: Callable[[T], None] | None = None  # (a named channel: into the log)

    def __repr__(self) -> str:
        state = "failed" if self._failure else "closed" if self._closed else "open"
        return f"StreamChannel(name={self.name!r}, {state}, queued={len(self._queue)})"

    def _attach(self, pump: Any, also: Callable[[T], None] | None = None) -> None:
        """Make this channel part of a run (by the run, when a transformer returns it)."""
        self._pump, self._also = pump, also

    # -- the writer's side ----------------------------------------------------------------

    def push(self, item: T) -> None:
        """Add ``item`` (kept if someone reads; always logged if the channel is named)."""
        if self._also is not None:
            self._also(item)
        if not self._has_reader:
            return
        if self._closed:
            raise RuntimeError(f"{self!r} was pushed to after its run ended")
        self._queue.append((self._pump.arrival(), item))

    def close(self) -> None:
        """No more items: a reader stops once it has the queued ones."""
        self._closed = True

    def fail(self, err: BaseException) -> None:
        """No more items: a reader gets the queued ones, then ``err`` raised."""
        self._failure, self._closed = err, True

    # -- the reader's side ----------------------------------------------------------------

    def _take_reader(self, asynchronous: bool) -> None:
        if self._pump is None:
            raise TypeError(
                "this StreamChannel belongs to no run yet: return it from a transformer's "
                "init(), then read it from the run (run.extensions[...])"
            )
        if self._pump.is_async != asynchronous:
            how = "async for" if self._pump.is_async else "for"
            raise TypeError(f"this StreamChannel's run is read with `{how}`")
        if self._has_reader:
            named = f" {self.name!r}" if self.name else ""
            raise RuntimeError(
                f"StreamChannel{named} already has a subscriber; use .tee(n) for fan-out."
            )
        self._has_reader = True

    def _ended(self) -> bool:
        """Nothing queued and no more coming (raises the channel's error, if failed)."""
        if self._queue or not self._closed:
            return False
        if self._failure is not None:
            raise self._failure
        return True

    def _next_arrival(self) -> int | None:
        return self._queue[0][0] if self._queue else None

    def _pop(self) -> T:
        return self._queue.popleft()[1]

    def __iter__(self) -> Iterator[T]:
        self._take_reader(asynchronous=False)  # (now, not at the first next())
        return self._drain()

    def _drain(self) -> Iterator[T]:
        while not self._ended():
            if self._queue:
                yield self._pop()
            elif not self._pump.pull() and not self._queue and not self._ended():
                return  # (the run stopped without closing this channel: aborted)

    def __aiter__(self) -> AsyncIterator[T]:
        self._take_reader(asynchronous=True)
        return self._adrain()

    async def _adrain(self) -> AsyncIterator[T]:
        while not self._ended():
            if self._queue:
                yield self._pop()
            elif not await self._pump.apull() and not self._queue and not self._ended():
                return

    def tee(self, n: int = 2) -> tuple[Iterator[T], ...]:
        """``n`` readers, each getting every item."""
        backlogs, source = _backlogs(n, "tee"), iter(self)

        def reader(mine: deque[T]) -> Iterator[T]:
            while mine or _deal(next(source, _DONE), backlogs):
                yield mine.popleft()

        return tuple(reader(backlog) for backlog in backlogs)

    def atee(self, n: int = 2) -> tuple[AsyncIterator[T], ...]:
        """``n`` async readers, each getting every item."""
        backlogs, source = _backlogs(n, "atee"), aiter(self)

        async def reader(mine: deque[T]) -> AsyncIterator[T]:
            while mine or _deal(await anext(source, _DONE), backlogs):
                yield mine.popleft()

        return tuple(reader(backlog) for backlog in backlogs)


_DONE: Any = object()


def _backlogs(n: int, method: str) -> list[deque[Any]]:
    """One queue per reader of ``tee(n)`` / ``atee(n)``: the items it has yet to read."""
    if n < 1:
        raise ValueError(f"{method}(n={n}): give at least one reader")
    return [deque() for _ in range(n)]


def _deal(item: Any, backlogs: list[deque[Any]]) -> bool:
    """Queue ``item``, the next from a tee's source, for every reader (whichever reader
    asked for it); False if the source has ended (``_DONE``)."""
    if item is _DONE:
        return False
    for backlog in backlogs:
        backlog.append(item)
    return True
