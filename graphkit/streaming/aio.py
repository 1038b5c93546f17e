"""The async interface: ``astream`` runs ``stream`` (the one loop) in a worker thread
and hands its chunks to the event loop, where async nodes are scheduled (so a
superstep's async tasks run concurrently there)."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import AsyncIterator, Callable, Generator
from typing import Any

__all__ = ["astream_from"]

_DONE = object()


async def astream_from(
    start: Callable[[asyncio.AbstractEventLoop], Generator[Any, None, None]],
) -> AsyncIterator[Any]:
    """Yield, on the running event loop, the chunks of ``start(loop)`` run in a thread.

    The thread computes a chunk only when the consumer asks for one (as a plain
    generator would), so closing the async iterator early stops the run right there."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[Any, BaseException | None]] = asyncio.Queue()
    demand = threading.Semaphore(0)
    stop = threading.Event()

    def produce() -> None:
        chunks = start(loop)
        try:
            while True:
                demand.acquire()
                if stop.is_set():
                    return
                chunk = next(chunks, _DONE)
                loop.call_soon_threadsafe(queue.put_nowait, (chunk, None))
                if chunk is _DONE:
                    return
        except BaseException as error:  # handed to the consumer, raised there
            loop.call_soon_threadsafe(queue.put_nowait, (_DONE, error))
        finally:
            chunks.close()

    # The producer thread sees this coroutine's context variables, so a graph awaited
    # inside a running node knows it is that node's subgraph.
    producer = loop.run_in_executor(None, contextvars.copy_context().run, produce)
    try:
        while True:
            demand.release()
            chunk, error = await queue.get()
            if error is not None:
                raise error
            if chunk is _DONE:
                break
            yield chunk
    finally:
        stop.set()
        demand.release()
        await producer
