"""The order a step's async nodes start in on the run's event loop.

LangGraph creates a step's tasks on its loop in plan order, so coroutines that do not
wait end in plan order, and a retry, after its ``asyncio.sleep``, comes behind every
first attempt. graphkit runs each task on a pool thread that hands its coroutine to the
loop, so without this the loop saw them in the order the threads got there: a retried
node could end before a sibling whose thread was late, and a step's finish order varied
from run to run (decisions.md, "Async nodes").

``StartTurns`` gives each planned task's first attempt its turn in plan order: it starts
once every task planned before it has started its coroutine or will start none (a sync
node, a task that ended before its call). A later attempt (a retry) starts once every
planned task's first attempt has and, with no back-off, after the retries of attempts
that failed on the loop before its own did (``failed``): in LangGraph a retry follows its
``asyncio.sleep`` in the same task, so retries with no back-off end in the order their
failed attempts did; here each comes back through its pool thread, and the thread that
woke first won. (A retry after a back-off comes as its ``asyncio.sleep`` ends.)

Why this cannot deadlock, whatever the number of tasks, ``max_concurrency`` or nesting:
each task's pool thread waits for its coroutine, so a waiting turn holds a thread, and
must never wait for a task that has none. A first attempt waits only for tasks planned
before it, which were submitted to the same first-in-first-out pool before it, so a
thread took them before it took this one: they run (or ran), and the earliest of them
waits for nobody. A retry waits for every planned task, some perhaps still queued behind
busy threads: it starts a thread of its own that runs, one after another in plan order,
each task no thread has taken yet (``_drain``); a retry on that thread starts the next,
so again everything waited for runs. A retry with no back-off also waits for the retries
of attempts that failed before its own: each such task's thread, which ran that attempt,
is on its way here, or backs off (``backs_off``: not waited for), or ends its task
(``skip``), and waits for no one meanwhile. A retry may come before the stepper has
submitted every planned task (a one-thread executor ran the first while it submitted the rest):
its thread, finding none to run yet, is started again by the next ``expect``. Past
``_MOST_HELPERS`` such threads, retries wait for nobody, so their number stays bounded.
(A step run on an executor of the user's, which may not be first-in-first-out, starts
its tasks as they come.)

In a traced run (``reports``: its tasks' chain runs are reported to callbacks) LangGraph
reports every planned task's ``on_chain_start`` before any of the step's nodes runs:
it starts them all on its loop at once. Here each task's thread reports its own start,
so without more a node could run, and end, before a sibling whose thread was late had
reported its start (a ``Send`` fan-out, under load). So there the first coroutine waits
too until every planned task has reported its start (``reported``) or starts none. That
waits for tasks that may have no thread yet (every pool thread held): each one no thread
has taken is run on a thread of its own (counted with the retries' in ``_MOST_HELPERS``;
past it, the step's nodes wait for the reports of the tasks that have threads only).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Sequence

__all__ = ["StartTurns"]

_MOST_HELPERS = 16
"""How many threads of their own a step's retries start: each runs, in plan order, the
tasks the pool has not taken yet. Past it a retry waits for no first attempt (order
yields to a bounded thread count: 1,000 ``Send``s that all retry)."""

_STARTED, _NONE = "started", "none"
"""A planned task whose first coroutine started; one that starts none in its turn."""


class StartTurns:
    """The planned tasks of one async step, in plan order (the order they are submitted
    to the pool), and where their first attempts are. Its state is touched on the loop's
    thread only (``expect``'s claim and ``skip`` may be called from any thread)."""

    __slots__ = (
        "_claims", "_done", "_drain_owed", "_due", "_helpers", "_index", "_known", "_lock", "_loop",
        "_order", "_reported", "_reporting", "_resuming", "_retries", "_state", "_unsubmitted",
        "_waiting",
    )  # fmt: skip

    def __init__(
        self, loop: asyncio.AbstractEventLoop, planned: Sequence[str] = (), reports: bool = False
    ) -> None:
        """``planned``: the step's tasks, if all are submitted at once; else (under a
        ``max_concurrency``) each joins the order as it is submitted (``expect``);
        ``reports``: the tasks report their starts, which come before any node runs."""
        self._loop = loop
        self._order: list[str] = list(planned)  # planned task ids, in plan order
        self._index = {task_id: place for place, task_id in enumerate(planned)}
        self._known = frozenset(planned)
        self._state: dict[str, str] = {}  # by task id: _STARTED or _NONE once there
        self._done = 0  # how many of ``_order``'s first are _STARTED or _NONE
        self._waiting: dict[str, asyncio.Future[None]] = {}  # first attempts held
        self._retries: dict[str, asyncio.Future[None]] = {}  # later attempts held
        # tasks whose attempt failed (on the loop, so in its order) and that have not
        # started a retry with no back-off yet, nor ended: the order such retries start in
        self._due: dict[str, None] = {}
        self._resuming = 0  # attempts let go that have not resumed yet
        # by task id, how to run a submitted task no thread has taken yet
        self._claims: dict[str, Callable[[], None]] = {}
        self._lock = threading.Lock()
        self._helpers = 0  # threads started by retries (``_drain``), up to _MOST_HELPERS
        # planned tasks not submitted yet: a retry can come first (a one-thread executor
        # took and ran the first task as the stepper was still submitting the others)
        self._unsubmitted = len(planned)
        self._drain_owed = False  # a drain found nothing yet to run: ``expect`` restarts it
        # planned tasks whose start is not reported yet, while nodes wait for them
        self._reporting: set[str] | None = set(planned) if reports and planned else None
        self._reported = False  # (a first coroutine held for them: late tasks get threads)

    def expect(self, task_id: str, run: Callable[[], None]) -> Callable[[], None]:
        """(Before ``task_id`` is submitted) note it as the next planned task; return what
        the pool is to run: ``run``, unless a retry took the task first (``claim``)."""
        with self._lock:
            self._claims[task_id] = run
            if task_id in self._known:
                self._unsubmitted -= 1
            restart, self._drain_owed = self._drain_owed, False
        if restart:  # (a retry's drain that came before this task: it runs it now)
            threading.Thread(target=self._drain, name="graphkit-turn", daemon=True).start()
        if self._reported and task_id in self._known:  # (nodes wait for its start)
            self._loop.call_soon_threadsafe(self._give_threads)
        if task_id not in self._known:  # (posted before the pool can take the task, so
            self._loop.call_soon_threadsafe(self._expected, task_id)  # seen before it comes)
        return lambda: self._claimed(task_id)

    def _expected(self, task_id: str) -> None:
        self._index[task_id] = len(self._order)
        self._order.append(task_id)

    def failed(self, task_id: str) -> None:
        """(On the loop) an attempt of ``task_id`` failed: a retry of it comes next."""
        if task_id in self._index:
            self._due[task_id] = None

    def reported(self, task_id: str) -> None:
        """(From the task's thread) ``task_id``'s first attempt reported its start."""
        if self._reporting is not None:
            with contextlib.suppress(RuntimeError):  # (the loop closed: nothing waits)
                self._loop.call_soon_threadsafe(self._arrived, task_id)

    def _arrived(self, task_id: str) -> None:
        """``task_id``'s start is reported, or it reports none: once every planned
        task's is, the held first coroutines go in their turns."""
        if self._reporting is not None:
            self._reporting.discard(task_id)
            if not self._reporting:
                self._reporting = None
                self._advance()

    def _give_threads(self) -> None:
        """(Nodes wait for the starts of tasks no thread may come for) run each task no
        thread has taken yet on a thread of its own; past ``_MOST_HELPERS``, wait for
        none of those left without one."""
        if self._reporting is None:
            return
        with self._lock:
            unclaimed = [task_id for task_id in self._claims if task_id in self._reporting]
        for place, task_id in enumerate(unclaimed):
            if self._helpers >= _MOST_HELPERS:  # (the rest have no thread: wait for none)
                self._reporting.difference_update(unclaimed[place:])
                self._arrived(task_id)
                return
            self._helpers += 1
            threading.Thread(
                target=self._claimed, args=(task_id,), name="graphkit-turn", daemon=True
            ).start()

    def backs_off(self, task_id: str) -> None:
        """``task_id`` waits before its retry: the retries behind it do not."""
        with contextlib.suppress(RuntimeError):  # (the loop closed: nothing waits)
            self._loop.call_soon_threadsafe(self._not_due, task_id)

    def _claimed(self, task_id: str) -> None:
        with self._lock:
            run = self._claims.pop(task_id, None)
        if run is not None:
            run()

    async def wait(self, task_id: str) -> None:
        """(On the loop, before an attempt's coroutine) wait for the attempt's turn."""
        place = self._index.get(task_id)
        if place is None:
            return  # not a planned task: an error handler, a called task
        if task_id not in self._state:  # its first attempt
            self._arrived(task_id)  # (its own start was reported, if it has one)
            if self._reporting is not None and not self._reported:  # (see the module's
                self._reported = True  # docstring: tasks no thread has taken get one)
                self._give_threads()
            ready = self._reporting is None  # (every start reported)
            if self._done == place and not self._resuming and ready:  # its turn, none ahead
                self._state[task_id] = _STARTED
                self._advance()  # (those it lets go resume after this one goes on)
                return
            held = self._waiting[task_id] = self._loop.create_future()
            if self._done == place and ready:  # its turn: it goes, though behind those the loop
                self._advance()  # was told to resume already
        else:  # a retry: behind every first attempt, each of which has a thread
            if self._helpers >= _MOST_HELPERS:
                return  # (past the cap, retries wait for nobody: see _MOST_HELPERS)
            held = self._retries[task_id] = self._loop.create_future()
            if self._done == len(self._order):  # (still behind those told to resume)
                self._advance()
            with self._lock:  # (tasks not submitted yet have no thread either)
                unclaimed = bool(self._claims) or self._unsubmitted > 0
            if unclaimed:  # one thread runs those, in order; a retry it meets starts another
                self._helpers += 1
                threading.Thread(target=self._drain, name="graphkit-turn", daemon=True).start()
                if self._helpers >= _MOST_HELPERS:
                    self._let_retries_go(all_of_them=True)
        try:
            await held
        except asyncio.CancelledError:  # (cancelled while held: it starts nothing)
            if self._waiting.pop(task_id, None) is not None:
                self._state[task_id] = _NONE
                self._advance()
            elif self._retries.get(task_id) is held:  # (never let go: not counted on)
                del self._retries[task_id]
                self._not_due(task_id)
            else:  # (let go, it resumes no more)
                self._resuming -= 1
            raise
        self._resuming -= 1

    def skip(self, task_id: str) -> None:
        """``task_id`` starts no coroutine now (a sync node, or its task ended)."""
        with contextlib.suppress(RuntimeError):  # (the loop closed: nothing waits)
            self._loop.call_soon_threadsafe(self._skipped, task_id)

    def _skipped(self, task_id: str) -> None:
        if task_id in self._index and task_id not in self._state:
            self._state[task_id] = _NONE
            self._arrived(task_id)  # (it reports no start now)
            self._advance()
        else:  # (a retry that starts no coroutine, or whose task ended)
            self._not_due(task_id)

    def _not_due(self, task_id: str) -> None:
        """``task_id`` starts no retry in the order its attempt failed in."""
        if task_id in self._due:
            del self._due[task_id]
            if self._done == len(self._order):
                self._let_retries_go()

    def _advance(self) -> None:
        """Let go, in plan order, the held first attempts whose predecessors are all
        there; once every first attempt is there, the held retries."""
        order, state = self._order, self._state
        if self._reporting is not None:  # (no node runs before every start is reported)
            return
        while self._done < len(order):
            task_id = order[self._done]
            if task_id not in state:
                held = self._waiting.pop(task_id, None)
                if held is None:
                    return  # its coroutine has not come yet
                state[task_id] = _STARTED
                self._resuming += 1
                self._loop.call_soon(_let_go, held)
            self._done += 1
        self._let_retries_go()

    def _let_retries_go(self, all_of_them: bool = False) -> None:
        """Let the held retries go in the order their attempts failed, up to the first
        whose task is due to retry and not here yet; those that backed off, as they come
        (``all_of_them``: every one, in no order)."""
        retries, due = self._retries, self._due
        if all_of_them or self._helpers >= _MOST_HELPERS:
            due.clear()
        line: dict[str, None] = {}
        while due and (first := next(iter(due))) in retries:
            line[first] = None
            del due[first]
        line.update((task_id, None) for task_id in retries if task_id not in due)
        self._resuming += len(line)
        for task_id in line:
            self._loop.call_soon(_let_go, retries.pop(task_id))

    def _drain(self) -> None:
        """(On a thread of its own) run, in plan order, each submitted task no thread has
        taken yet; the pool's threads take their share meanwhile (``_claimed``)."""
        while True:
            with self._lock:
                if not self._claims:  # (planned tasks still to come: their ``expect``
                    self._drain_owed = self._unsubmitted > 0  # starts this drain again)
                    return
                run = self._claims.pop(next(iter(self._claims)))
            run()


def _let_go(held: asyncio.Future[None]) -> None:
    """Let a held attempt go. Always a loop turn later (``call_soon``), even for one that
    could go at once: the attempts let go before it resume first, in the order they were
    let go, and a done future awaited would not wait for them."""
    if not held.done():  # (cancelled meanwhile)
        held.set_result(None)
