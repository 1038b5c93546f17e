"""The process-wide pool the steps' tasks run on (``StepWork`` submits to ``POOL``).

An async node's task holds its thread while it waits for its coroutine on the run's
loop (``run_on_loop``), as a sync node's does while it waits for a call's ``result()``.
With every thread of the pool held so, what those tasks wait for would never start if
it needs a thread too: the ``@task`` calls a node awaits (80 ``Send``s of a node that
gathers 10 calls hung), the tasks of a subgraph it runs. (LangGraph runs an async run's
tasks on its loop, with no thread to hold.) So each job is owned by the task that
submitted it (the ``TaskScope`` current then), and a thread of the pool waiting for its
task's coroutine or call (``settle``), when the pool has no thread left to start, runs
its task's own queued jobs itself, oldest first. What a task waits for then always
runs: a job it owns runs on its thread if no other takes it, and the jobs that job
waits for run on that one's thread in turn, like nested calls; the number of threads
stays ``WORKERS``. The price, only while all of them are busy: a task's calls run one
after another on its thread.

The pool's threads take jobs first in, first out; a task's thread takes its own jobs in
the order it submitted them. ``StartTurns`` relies on it: of a step's tasks, all
submitted by one task (or by a stepper outside any task), one planned earlier was taken
before one planned later.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import threading
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
    __slots__ = ("future", "owner", "run", "taken")

    def __init__(self, future: Future[Any], run: Callable[[], Any], owner: Any) -> None:
        self.future, self.run, self.owner, self.taken = future, run, owner, False


class Pool(Executor):
    """Up to ``workers`` daemon threads (started as jobs need them, never retired, as
    ``ThreadPoolExecutor``'s) taking jobs first in, first out; ``settle`` lets a thread
    of the pool run its task's queued jobs while it waits for a future."""

    def __init__(self, workers: int, name: str, owner: Callable[[], Any] = current_scope) -> None:
        self._most, self._name, self._owner = workers, name, owner
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)  # idle threads wait on it
        self._jobs: deque[_Job] = deque()  # in order; those taken by their owner skipped
        self._pending = 0  # jobs not taken yet
        self._owned: dict[int, deque[_Job]] = {}  # by id of owner, jobs not taken (some may be)
        self._helpers: dict[int, list[threading.Event]] = {}  # by id of owner, threads waiting
        self._idle = 0  # threads waiting for a job, not yet woken for one
        self._threads = 0
        self._numbers = itertools.count()
        self._ours = threading.local()  # ``helps``: set on this pool's threads

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        job = _Job(future, lambda: fn(*args, **kwargs), self._owner())
        with self._lock:
            self._jobs.append(job)
            self._pending += 1
            if job.owner is not None:
                self._owned.setdefault(id(job.owner), deque()).append(job)
            if self._idle:
                self._idle -= 1
                self._ready.notify()
            elif self._threads < self._most:
                self._threads += 1
                name = f"{self._name}_{next(self._numbers)}"
                threading.Thread(target=self._work, name=name, daemon=True).start()
                if self._threads == self._most:  # (the waiting look again: they may help now)
                    for waiting in self._helpers.values():
                        for event in waiting:
                            event.set()
            elif job.owner is not None:  # every thread busy: its owner's, if it waits, runs it
                for waiting in self._helpers.get(id(job.owner), ()):
                    waiting.set()
        return future

    def _work(self) -> None:
        self._ours.helps = True
        while True:
            with self._lock:
                while not self._pending:
                    self._idle += 1
                    self._ready.wait()
                job = self._take_next()
            _run(job)
            del job  # (an idle thread holds no run)

    def _take_next(self) -> _Job:
        """(Holding the lock, a job pending) the oldest job not taken."""
        jobs = self._jobs
        while jobs[0].taken:
            jobs.popleft()
        job = jobs.popleft()
        if job.owner is not None:  # (the oldest of its owner's too: first in its deque)
            self._take_owned(id(job.owner))
        else:
            job.taken = True
            self._pending -= 1
        return job

    def _take_owned(self, key: int) -> _Job | None:
        """(Holding the lock) the oldest job not taken that the task ``key`` owns."""
        owned = self._owned.get(key)
        while owned and owned[0].taken:
            owned.popleft()
        if not owned:
            self._owned.pop(key, None)
            return None
        job = owned.popleft()
        if not owned:
            del self._owned[key]
        job.taken = True
        self._pending -= 1
        return job

    def settle(self, future: Future[Any]) -> None:
        """Wait until ``future`` is done; on a thread of this pool, with every thread
        busy, run meanwhile the queued jobs the current task owns (see the module)."""
        owner = self._owner() if getattr(self._ours, "helps", False) else None
        if owner is None:
            concurrent.futures.wait((future,))
            return
        key = id(owner)
        woken = threading.Event()
        future.add_done_callback(lambda _: woken.set())
        while not future.done():
            with self._lock:
                job = self._take_owned(key) if self._threads >= self._most else None
                if job is None and not future.done():
                    self._helpers.setdefault(key, []).append(woken)
            if job is not None:
                _run(job)
                del job
                continue
            woken.wait()
            with self._lock:
                woken.clear()  # (before looking again: a wake-up after it is kept)
                waiting = self._helpers.get(key, [])
                if woken in waiting:
                    waiting.remove(woken)
                    if not waiting:
                        del self._helpers[key]

    def wait(self, future: Future[Any]) -> Any:
        """``future.result()``, waited for as ``settle`` does."""
        self.settle(future)
        return future.result()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """The shared pool lives as long as the process: nothing to shut down."""


def _run(job: _Job) -> None:
    if job.future.set_running_or_notify_cancel():
        try:
            job.future.set_result(job.run())
        except BaseException as error:  # (the job's own; handed to its caller)
            job.future.set_exception(error)


POOL = Pool(WORKERS, "graphkit")
