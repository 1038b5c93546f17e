"""The process-wide pool the steps' tasks run on (``StepWork`` submits to ``POOL``).

An async node's task holds its thread while it waits for its coroutine on the run's
loop (``run_on_loop``), as a sync node's does while it waits for a call's ``result()``.
With every thread of the pool held so, what those tasks wait for would never start if
it needs a thread too: the ``@task`` calls a node awaits (80 ``Send``s of a node that
gathers 10 calls hung), the tasks of a subgraph it runs. (LangGraph runs an async run's
tasks on its loop, with no thread to hold.) So once all ``WORKERS`` threads have started,
each job is also owned by the task that submitted it (the ``TaskScope`` current then),
and a thread of the pool waiting for its task's coroutine or call (``settle``) runs its
task's own jobs that no other thread took yet itself, oldest first. What a task waits
for then always runs: a job it owns runs on its thread if no other takes it, and the
jobs that job waits for run on that one's thread in turn, like nested calls; the number
of threads stays ``WORKERS``. The price, only while every thread is busy: a task's calls
run one after another on its thread.

Until then it is ``ThreadPoolExecutor``: a job starts a thread unless one is idle, so
every job has a thread coming for it. The fast path stays as cheap: a C queue, a C lock
only to count idle threads while threads may still start, and once they all have, the
owner's bookkeeping is a deque append; a job is claimed once (``_Job.once``) by
whichever thread gets to it first, the other skips it.

The pool's threads take jobs first in, first out; a task's thread takes its own jobs in
the order it submitted them. ``StartTurns`` relies on it: of a step's tasks, all
submitted by one task (or by a stepper outside any task), one planned earlier was taken
before one planned later.
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

from graphkit.pregel.task_scope import current_scope

__all__ = ["POOL", "Pool"]

WORKERS = 64
"""Threads in the shared pool: wide, so that tasks that wait seldom leave it without a
thread to start; creating threads per run would cost more than most nodes."""


class _Job:
    __slots__ = ("args", "fn", "future", "kwargs", "once", "running")

    def __init__(self, future: Future[Any], fn: Callable[..., Any], args: Any, kwargs: Any):
        self.future, self.fn, self.args, self.kwargs = future, fn, args, kwargs
        self.once = iter((True,))  # (``next`` on it is atomic: the job's one claim)
        self.running = 0  # (threads running jobs: a ``Pool.idle`` wait counts them)


class Pool(Executor):
    """Up to ``workers`` daemon threads (started as jobs need them, never retired, as
    ``ThreadPoolExecutor``'s) taking jobs first in, first out; ``settle`` lets a thread
    of the pool run its task's queued jobs while it waits for a future."""

    def __init__(self, workers: int, name: str) -> None:
        self._most, self._name = workers, name
        self._queue: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0  # threads done with a job and not yet promised another
        self._threads = 0
        self.full = False  # every thread started: jobs have owners, waiting threads help
        self._busy = 0  # jobs submitted and not yet finished or skipped (for ``idle``)
        self._numbers = itertools.count()
        self._ours = threading.local()  # ``helps``: set on this pool's threads

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        job = _Job(future, fn, args, kwargs)
        if self.full:
            with self._lock:
                self._busy += 1
            owner = current_scope()
            if owner is not None:
                _own(owner, job)
            self._queue.put(job)
            return future
        self._queue.put(job)
        with self._lock:
            self._busy += 1
            if self._idle:
                self._idle -= 1
            elif self._threads < self._most:
                self._threads += 1
                name = f"{self._name}_{next(self._numbers)}"
                threading.Thread(target=self._work, name=name, daemon=True).start()
                self.full = self._threads == self._most
        return future

    def _work(self) -> None:
        self._ours.helps = True
        get, run, lock = self._queue.get, self._run, self._lock
        while True:
            job = get()
            run(job)
            del job  # (an idle thread holds no run)
            if not self.full:
                with lock:
                    self._idle += 1

    def settle(self, future: Future[Any]) -> None:
        """Return once ``future`` is done, or at once if this thread cannot help (then
        ``future.result()`` waits); on a thread of a full pool, run meanwhile the queued
        jobs the current task owns (see the module)."""
        if not self.full or future.done() or not getattr(self._ours, "helps", False):
            return
        owner = current_scope()
        if owner is None:
            return
        inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        outer, owner.pool_inbox = owner.pool_inbox, inbox
        future.add_done_callback(lambda _: inbox.put(None))
        try:
            while not future.done():
                jobs = owner.pool_jobs
                while jobs:  # (set before looking: a job owned after it is put in the inbox)
                    job = jobs.popleft()
                    self._run(job)
                    del job
                    if future.done():
                        return
                inbox.get()
        finally:
            owner.pool_inbox = outer

    def _run(self, job: _Job) -> None:
        """Run ``job`` unless another thread of the pool took it."""
        if not next(job.once, False):
            return
        job.running = 1
        future = job.future
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(job.fn(*job.args, **job.kwargs))
            except BaseException as error:  # (the job's own; handed to its caller)
                future.set_exception(error)
        with self._lock:
            self._busy -= 1

    def wait(self, future: Future[Any]) -> Any:
        """``future.result()``, waited for as ``settle`` does."""
        self.settle(future)
        return future.result()

    def idle(self, limit: float) -> bool:
        """Wait up to ``limit`` seconds for every job submitted to have finished (a test
        leaving no work behind for the next); whether they had."""
        deadline = time.monotonic() + limit
        while self._busy > 0:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
        return True

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """The shared pool lives as long as the process: nothing to shut down."""


def _own(owner: Any, job: _Job) -> None:
    """Note ``job`` as ``owner``'s (a ``TaskScope``); wake its thread if it waits."""
    jobs = owner.pool_jobs
    if jobs is None:
        jobs = owner.pool_jobs = deque()
    while jobs and jobs[0].running:  # (taken by another thread: forgotten)
        jobs.popleft()
    jobs.append(job)
    inbox = owner.pool_inbox
    if inbox is not None:
        inbox.put(job)


POOL = Pool(WORKERS, "graphkit")
