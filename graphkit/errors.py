"""Exceptions and warnings raised by graphkit.

Class names match LangGraph's, so code that catches ``GraphRecursionError`` or
``InvalidUpdateError`` keeps working when its imports move to graphkit.
"""

from __future__ import annotations

import linecache
import sys
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from graphkit.types import Interrupt

__all__ = [
    "CheckpointNotFoundError",
    "EmptyChannelError",
    "EmptyInputError",
    "ErrorCode",
    "GraphBubbleUp",
    "GraphDrained",
    "GraphInterrupt",
    "GraphRecursionError",
    "GraphkitWarning",
    "InvalidUpdateError",
    "LangGraphDeprecatedSinceV05",
    "LangGraphDeprecatedSinceV10",
    "LangGraphDeprecatedSinceV11",
    "LangGraphDeprecationWarning",
    "NodeCancelledError",
    "NodeError",
    "NodeInterrupt",
    "NodeTimeoutError",
    "ParentCommand",
    "TaskNotFound",
    "UnknownInterruptError",
    "create_error_message",
    "is_invalid_resume",
    "warn",
]


class ErrorCode(Enum):
    """LangGraph's troubleshooting codes: each names a page of its error guide (see
    ``create_error_message``)."""

    GRAPH_RECURSION_LIMIT = "GRAPH_RECURSION_LIMIT"
    INVALID_CONCURRENT_GRAPH_UPDATE = "INVALID_CONCURRENT_GRAPH_UPDATE"
    INVALID_GRAPH_NODE_RETURN_VALUE = "INVALID_GRAPH_NODE_RETURN_VALUE"
    MULTIPLE_SUBGRAPHS = "MULTIPLE_SUBGRAPHS"
    INVALID_CHAT_HISTORY = "INVALID_CHAT_HISTORY"


def create_error_message(*, message: str, error_code: ErrorCode) -> str:
    """``message`` followed by the address of the LangGraph guide page for
    ``error_code``, as LangGraph words it (for code that builds its errors this way).

    >>> print(create_error_message(message="Too deep.", error_code=ErrorCode.GRAPH_RECURSION_LIMIT))
    Too deep.
    For troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/GRAPH_RECURSION_LIMIT
    """
    return (
        f"{message}\nFor troubleshooting, visit: "
        f"https://docs.langchain.com/oss/python/langgraph/errors/{error_code.value}"
    )


class GraphBubbleUp(Exception):
    """The base of what a run raises through node code on purpose: a pause
    (``GraphInterrupt``), a route to the parent graph (``ParentCommand``) and a drain
    (``GraphDrained``). Node code that catches ``Exception`` should re-raise it, as in
    LangGraph:

    >>> issubclass(GraphInterrupt, GraphBubbleUp), issubclass(ParentCommand, GraphBubbleUp)
    (True, True)
    """


class GraphDrained(GraphBubbleUp):
    """A run stopped at a superstep boundary because its ``RunControl`` was asked to
    drain (``reason`` says why); where it stopped is saved, and ``invoke(None, config)``
    goes on from there.

    >>> GraphDrained("deploy").reason, str(GraphDrained())
    ('deploy', 'Graph drained: shutdown')
    """

    def __init__(self, reason: str = "shutdown") -> None:
        super().__init__(f"Graph drained: {reason}")
        self.reason = reason


class EmptyChannelError(Exception):
    """Raised by ``Channel.get()`` when the channel holds no value yet.

    >>> from graphkit.channels import LastValue
    >>> LastValue(int).get()
    Traceback (most recent call last):
    ...
    graphkit.errors.EmptyChannelError: LastValue channel is empty
    """


class InvalidUpdateError(Exception):
    """Raised when a step's writes cannot be applied, or a node returns something
    that is not a state update (same name as LangGraph's)."""


class GraphRecursionError(RecursionError):
    """Raised when a run reaches its ``recursion_limit`` before the graph stopped."""


class EmptyInputError(Exception):
    """Raised when a run starts with no input and there is nothing to resume."""


class TaskNotFound(Exception):
    """LangGraph's error for a task its distributed executor cannot find. graphkit runs
    every task in the process that planned it, so it never raises this; the name is
    here for code that catches it."""


class CheckpointNotFoundError(ValueError):
    """Raised when a config names a ``checkpoint_id`` its thread does not have (LangGraph
    would return an empty snapshot, or start from nothing); the message lists the
    thread's newest checkpoint ids."""


class GraphkitWarning(UserWarning):
    """Something LangGraph accepts silently but that is very likely a mistake.

    graphkit warns instead of raising so that graphs stay compatible with LangGraph.
    """


class ParentCommand(GraphBubbleUp):
    """Carries a ``Command(graph=Command.PARENT)`` from a subgraph to the graph that
    runs it; reaches the caller only when there is no such graph (LangGraph's name).
    As in LangGraph, ``args[0]`` is the ``Command``; ``str()`` is the ``message``
    saying what happened, when one was given."""

    def __init__(self, command: object, message: str | None = None) -> None:
        super().__init__(command)
        self.command, self.message = command, message

    def __str__(self) -> str:
        return self.message if self.message is not None else super().__str__()


class GraphInterrupt(GraphBubbleUp):
    """Raised inside a node by ``interrupt()`` to pause the run; the runtime catches it,
    saves the step's other writes, and stops until ``Command(resume=...)``. Its
    argument is the tuple of ``Interrupt`` records, empty when none is given.

    >>> GraphInterrupt().args
    ((),)
    """

    def __init__(self, interrupts: Sequence[Interrupt] = ()) -> None:
        super().__init__(interrupts)


class NodeInterrupt(GraphInterrupt):
    """Deprecated (LangGraph 1.0): raise it in a node to pause the run with ``value``;
    call ``interrupt(value)`` instead, which can also be resumed with an answer.

    Like LangGraph's, it warns (``LangGraphDeprecatedSinceV10``) when it is created, and
    the pause it causes has the id ``"placeholder-id"``.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     NodeInterrupt("approve?").args[0]
    (Interrupt(value='approve?', id='placeholder-id', response_schema=None),)
    """

    def __init__(self, value: Any, id: str | None = None) -> None:
        warnings.warn(
            "NodeInterrupt is deprecated. Please use `graphkit.types.interrupt` instead: call "
            "interrupt(value) in the node.",
            LangGraphDeprecatedSinceV10,
            stacklevel=2,
        )
        super().__init__((Interrupt(value=value, id=id or "placeholder-id"),))


class UnknownInterruptError(Exception):
    """``Command(resume=...)`` does not match the interrupts waiting, in strict resume
    mode (``configurable["__pregel_strict_resume"]``, LangGraph's key, which its server
    sets). ``reason``: ``"empty_map"`` (a map that answers nothing), ``"not_pending"``
    (the map names ids nobody waits for: ``interrupt_ids``) or ``"ambiguous"`` (one
    answer, several waiting). ``pending_ids`` are the ids still waiting; nothing was
    written, so they can be answered again.

    >>> error = UnknownInterruptError("no", reason="empty_map", pending_ids=["a1"])
    >>> error.reason, error.interrupt_ids, error.pending_ids
    ('empty_map', (), ('a1',))
    """

    def __init__(
        self,
        message: str,
        *,
        reason: Literal["not_pending", "empty_map", "ambiguous"],
        interrupt_ids: Sequence[str] = (),
        pending_ids: Sequence[str] = (),
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.interrupt_ids = tuple(interrupt_ids)
        self.pending_ids = tuple(pending_ids)


@dataclass(frozen=True, slots=True)
class NodeError:
    """What an error handler (``add_node(..., error_handler=handler)``) is told about the
    failure it handles: the failed ``node`` and its last ``error``. A handler receives it
    by declaring a parameter ``error: NodeError``, as in LangGraph.

    >>> NodeError("fetch", ValueError("timeout")).node
    'fetch'
    """

    node: str
    error: BaseException


class NodeCancelledError(Exception):
    """A node raised ``asyncio.CancelledError`` itself (nothing cancelled its run): it
    fails like any other error, so retry policies and error handlers see it, as in
    LangGraph.

    >>> NodeCancelledError("fetch").node
    'fetch'
    """

    def __init__(self, node: str, message: str | None = None) -> None:
        super().__init__(message or f"Node {node!r} raised asyncio.CancelledError")
        self.node = node


class NodeTimeoutError(Exception):
    """An attempt of a node ran past its ``timeout`` (a ``TimeoutPolicy``): ``kind`` is
    ``"run"`` (the attempt's wall-clock limit) or ``"idle"`` (no progress for that long);
    ``timeout`` is the limit that fired and ``elapsed`` how long the attempt ran. Not a
    ``TimeoutError``, so the default retry policy retries it (as LangGraph's).

    >>> NodeTimeoutError("fetch", 2.01, kind="run", run_timeout=2.0).timeout
    2.0
    """

    def __init__(
        self,
        node: str,
        elapsed: float,
        *,
        kind: Literal["idle", "run"],
        idle_timeout: float | None = None,
        run_timeout: float | None = None,
    ) -> None:
        limit = idle_timeout if kind == "idle" else run_timeout
        if kind not in ("idle", "run") or limit is None:
            raise ValueError(f"NodeTimeoutError(kind={kind!r}) needs a {kind}_timeout.")
        if kind == "idle":
            what = f"its idle timeout of {limit:.3f}s without making progress"
        else:
            what = f"its run timeout of {limit:.3f}s"
        super().__init__(f"Node '{node}' exceeded {what} (elapsed: {elapsed:.3f}s).")
        self.node, self.elapsed, self.kind, self.timeout = node, elapsed, kind, limit
        self.idle_timeout, self.run_timeout = idle_timeout, run_timeout


class LangGraphDeprecationWarning(DeprecationWarning):
    """A LangGraph API that still works but is deprecated, under LangGraph's class name,
    so that a filter written for LangGraph (``warnings.filterwarnings("error",
    category=LangGraphDeprecatedSinceV10)``) works on graphkit too. ``since`` is the
    LangGraph version that deprecated it, ``expected_removal`` the one that drops it.

    >>> str(LangGraphDeprecatedSinceV10("MessageGraph is deprecated."))
    'MessageGraph is deprecated (since LangGraph 1.0; to be removed in 2.0).'
    """

    def __init__(
        self, message: str, *args: object, since: tuple[int, int], expected_removal: tuple[int, int]
    ) -> None:
        super().__init__(message, *args)
        self.message = message.rstrip(".")
        self.since = since
        self.expected_removal = expected_removal

    def __str__(self) -> str:
        since, removal = (".".join(map(str, v)) for v in (self.since, self.expected_removal))
        return f"{self.message} (since LangGraph {since}; to be removed in {removal})."


class LangGraphDeprecatedSinceV05(LangGraphDeprecationWarning):
    """Deprecated since LangGraph 0.5 (to be removed in 2.0)."""

    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args, since=(0, 5), expected_removal=(2, 0))


class LangGraphDeprecatedSinceV10(LangGraphDeprecationWarning):
    """Deprecated since LangGraph 1.0 (to be removed in 2.0)."""

    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args, since=(1, 0), expected_removal=(2, 0))


class LangGraphDeprecatedSinceV11(LangGraphDeprecationWarning):
    """Deprecated since LangGraph 1.1 (to be removed in 3.0)."""

    def __init__(self, message: str, *args: object) -> None:
        super().__init__(message, *args, since=(1, 1), expected_removal=(3, 0))


_PACKAGE = str(Path(__file__).resolve().parent)


def warn(message: str, category: type[Warning] = GraphkitWarning) -> None:
    """Warn with ``message``, located at the first caller outside graphkit: the line of
    the user's ``compile``/``invoke``/``trace``, not a line of graphkit's own code (a
    learner should see where *their* call was). In a worker thread, where no user frame
    is on the stack, it is the thread's entry point."""
    level, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    cell = None if frame is None else _cell_name(frame.f_code.co_filename)
    if cell is None:
        warnings.warn(message, category, stacklevel=level)
        return
    # what warnings.warn does with stacklevel, but with the cell's name for its file
    warnings.warn_explicit(
        message,
        category,
        cell,
        frame.f_lineno,
        module=frame.f_globals.get("__name__", "<string>"),
        registry=frame.f_globals.setdefault("__warningregistry__", {}),
    )


def _cell_name(filename: str) -> str | None:
    """``'Cell In[7]'`` when ``filename`` is a notebook cell's code, as IPython names the
    cell in a traceback; its file is a temporary path (``/tmp/ipykernel_31768/34024.py``)
    that means nothing to a learner. None outside IPython or for a real file."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    format_code_name = getattr(getattr(shell, "compile", None), "format_code_name", None)
    name = format_code_name(filename) if format_code_name is not None else None
    if name is None:
        return None
    cell = " ".join(name)
    # a warning shows its line of code as linecache has it for its filename: IPython keeps
    # the cell's lines under the temporary file's name, so they are kept under the cell's too
    lines = linecache.getlines(filename)
    if lines:
        linecache.cache[cell] = (sum(map(len, lines)), None, lines, cell)
    return cell


_INVALID_RESUME = "_langgraph_invalid_resume"  # LangGraph's mark: its is_invalid_resume knows it


def mark_invalid_resume(error: BaseException) -> None:
    """Mark ``error`` as raised because an answer did not fit its interrupt's schema."""
    setattr(error, _INVALID_RESUME, True)


def is_invalid_resume(error: BaseException) -> bool:
    """True when ``error`` (a pydantic ``ValidationError``) was raised because an answer
    given with ``Command(resume=...)`` did not fit the ``response_schema`` its
    ``interrupt()`` asked with, as LangGraph's ``is_invalid_resume`` says. Such an error
    does not stop the step's other tasks, and the interrupt can be answered again.

    >>> is_invalid_resume(ValueError("not an answer"))
    False
    """
    return getattr(error, _INVALID_RESUME, False) is True
