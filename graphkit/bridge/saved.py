"""What LangGraph saved, as the bridge reads it: each checkpoint of a thread's lineage
(``SavedCheckpoint``: its snapshot, channels, versions and pending writes), the graph's
channels and subgraphs (``GraphInfo``), and the errors LangGraph keeps only as text
(``SavedError``). Everything goes through LangGraph's public API (``get_state_history``,
the checkpointer's ``get_tuple``); its control-flow objects become graphkit's.
"""

from __future__ import annotations

import ast
import asyncio
import copy
import functools
import itertools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphkit.bridge.calls import callable_tasks
from graphkit.bridge.interop import to_graphkit
from graphkit.bridge.unsaved import NodeWrites, node_writes
from graphkit.channels import EMPTY
from graphkit.graph.schema import coerce_to_schema
from graphkit.pregel.records import Run

__all__ = [
    "ERROR",
    "INTERRUPT",
    "RESUME",
    "RETURN",
    "SPECIAL",
    "GraphInfo",
    "SavedCheckpoint",
    "SavedError",
    "checkpointer_of",
    "lineage",
    "reducer_name",
    "saved_error",
    "version_number",
]

ERROR, INTERRUPT, RESUME, RETURN = "__error__", "__interrupt__", "__resume__", "__return__"
SPECIAL = (ERROR, INTERRUPT, RESUME, "__no_writes__", RETURN)
"""LangGraph's own pending-write channels: a task's error, interrupts, resume answers,
the marker of a task that wrote nothing, and a functional entrypoint's return value."""


class SavedError(Exception):
    """A task error LangGraph saved as text (its ``repr``): the class is known only by
    name, so each imported error is an instance of a ``SavedError`` subclass with the
    original class name (``type(error).__name__ == "ValueError"``); a ``KeyError`` (or a
    subclass loaded here) and a ``CancelledError`` are instances of that class too.

    >>> error = saved_error("ValueError('n must be zero')")
    >>> type(error).__name__, str(error), isinstance(error, SavedError)
    ('ValueError', 'n must be zero', True)
    """

    text: str = ""

    def __str__(self) -> str:
        # Python prints a KeyError's one argument as its repr (KeyError: 'user_id'), a
        # subclass's too, as graphkit shows one its own runtime raised; every other
        # class prints its text
        if isinstance(self, KeyError) and len(self.args) == 1:
            return repr(self.args[0])
        return super().__str__()

    def __reduce__(self) -> tuple[Any, ...]:
        # its class is made at import time, not found by name in this module: a copy
        # or a pickle (of a Run read from LangGraph) makes it again from the saved text
        return (_rebuilt, (self.text, self.__dict__))


def _rebuilt(text: str, state: dict[str, Any]) -> BaseException:
    error = saved_error(text)
    error.__dict__.update(state)
    return error


def _saved_error_class(name: str) -> type[SavedError]:
    return _error_class(name, _builtin_base(name))


@functools.cache
def _error_class(name: str, base: type[BaseException] | None) -> type[SavedError]:
    bases = (SavedError,) if base is None else (SavedError, base)
    return type(name, bases, {"__module__": __name__})


def _builtin_base(name: str) -> type[BaseException] | None:
    """The built-in class a saved error of class ``name`` is also an instance of:
    ``CancelledError`` (a cancelled async task is told from one that raised by its
    class), ``KeyError`` (it prints its key quoted). LangGraph saves an error's repr,
    which names its class but neither its module nor its bases, so a subclass
    (``class MissingKey(KeyError)``) is told only by a class of that name among
    KeyError's subclasses loaded in this process: ``open_langgraph_thread`` runs beside
    the graph's code, so a node's own class is loaded; where it is not (or a class of
    another kind shares its name) the error reads as any other class would."""
    if name == "CancelledError":
        return asyncio.CancelledError
    found, todo = False, [KeyError]
    while todo and not found:
        kind = todo.pop()
        found = kind.__name__ == name
        todo.extend(kind.__subclasses__())
    return KeyError if found else None


def saved_error(saved: Any) -> BaseException:
    """The exception a saved ``__error__`` write stands for: the exception itself when
    the saver kept it, else a ``SavedError`` named after the class in its text.

    >>> saved_error("Boom()").args, saved_error(KeyError("k"))
    ((), KeyError('k'))
    """
    if isinstance(saved, BaseException):
        return saved
    text = str(saved)
    match = re.fullmatch(r"([A-Za-z_][\w.]*)\((.*)\)", text, flags=re.DOTALL)
    if match is None:
        error = _saved_error_class("SavedError")(text)
    else:
        name, inner = match.group(1).rsplit(".", 1)[-1], match.group(2)
        try:
            args = ast.literal_eval(f"({inner},)") if inner else ()
        except (ValueError, SyntaxError):
            args = (inner,)
        error = _saved_error_class(name)(*args)
    error.text = text
    return error


@dataclass(frozen=True)
class SavedCheckpoint:
    """One checkpoint as LangGraph returns it: the snapshot and the saver's tuple."""

    snapshot: Any
    checkpoint: Mapping[str, Any]
    pending_writes: tuple[tuple[str, str, Any], ...]
    values: Mapping[str, Any]
    """The channels that hold a value (an empty ``Topic``'s ``[]`` does not)."""

    @property
    def id(self) -> str:
        return self.snapshot.config["configurable"]["checkpoint_id"]

    @property
    def step(self) -> int:
        return int(self.snapshot.metadata.get("step", -1))

    @property
    def source(self) -> str:
        return str(self.snapshot.metadata.get("source", "loop"))

    def versions(self) -> dict[str, int | None]:
        return {
            k: version_number(v) for k, v in (self.checkpoint.get("channel_versions") or {}).items()
        }


# -- reading LangGraph's objects ----------------------------------------------------------


def checkpointer_of(compiled: Any) -> Any:
    if not callable(getattr(compiled, "get_state_history", None)) or not type(
        compiled
    ).__module__.startswith("langgraph"):
        raise TypeError(
            f"open_langgraph_thread() reads a compiled LangGraph graph, not "
            f"{type(compiled).__name__}; pass what StateGraph(...).compile() returned in "
            f"LangGraph (a graphkit graph's threads are read with get_state_history)."
        )
    checkpointer = getattr(compiled, "checkpointer", None)
    if checkpointer is None or checkpointer is True or checkpointer is False:
        raise ValueError(
            "open_langgraph_thread() needs the saver that holds the thread, and this "
            "graph was compiled without one; compile it with checkpointer=<the saver> "
            "(e.g. SqliteSaver on the thread's database file)."
        )
    return checkpointer


def lineage(
    compiled: Any, checkpointer: Any, config: Mapping[str, Any], info: GraphInfo
) -> list[SavedCheckpoint]:
    """The checkpoints from the thread's first to the one ``config`` names, oldest first."""
    configurable = dict(config.get("configurable") or {})
    if "thread_id" not in configurable:
        raise ValueError(
            'open_langgraph_thread() needs the thread to read: config={"configurable": '
            '{"thread_id": ...}} (add "checkpoint_id" to read up to an older checkpoint).'
        )
    wanted = configurable.pop("checkpoint_id", None)
    thread = {**config, "configurable": configurable}
    try:
        history = list(compiled.get_state_history(thread))
    except Exception as error:
        error.add_note(
            f"open_langgraph_thread(): LangGraph's get_state_history() failed on thread "
            f"{configurable['thread_id']!r}, so its checkpoints cannot be read."
        )
        raise
    snapshots = {s.config["configurable"]["checkpoint_id"]: s for s in history}
    if not snapshots:
        raise ValueError(
            f"Thread {configurable['thread_id']!r} has no checkpoints in "
            f"{type(checkpointer).__name__}; run the graph on it first, or check the "
            "thread_id and the saver (a SqliteSaver must open the file the run wrote). A "
            "run with durability='exit' saves its checkpoint only when it ends, so one "
            "whose process was killed mid-run saved nothing (invoke(None, config) then "
            "raises EmptyInputError): run it again with its input, and with "
            "durability='sync' to keep every step."
        )
    at = wanted if wanted is not None else next(iter(snapshots))
    if at not in snapshots:
        raise ValueError(
            f"Thread {configurable['thread_id']!r} has no checkpoint {at!r}; its "
            f"checkpoints are {sorted(snapshots)}."
        )
    chain = []
    while at is not None and at in snapshots:
        snapshot = snapshots[at]
        saved = checkpointer.get_tuple(snapshot.config)
        # LangGraph's Send / Command / Interrupt objects become graphkit's, as records hold
        pending = tuple((t, c, to_graphkit(v)) for t, c, v in (saved.pending_writes or ()))
        raw = {**(saved.checkpoint.get("channel_values") or {}), **info.rebuilt(snapshot)}
        values = info.present({key: to_graphkit(value) for key, value in raw.items()})
        chain.append(SavedCheckpoint(snapshot, saved.checkpoint, pending, values))
        parent = snapshot.parent_config
        at = parent["configurable"].get("checkpoint_id") if parent else None
    return chain[::-1]


def version_number(version: Any) -> int | None:
    """LangGraph's channel version as a number: an int, or the leading number of its
    string versions (``"00…02.0.6500…"`` is 2)."""
    if isinstance(version, bool) or version is None:
        return None
    if isinstance(version, int | float):
        return int(version)
    head = str(version).split(".", 1)[0]
    return int(head) if head.isdigit() else None


@dataclass(frozen=True)
class GraphInfo:
    """What the records need from the compiled graph: its state keys, each node's
    trigger channels, what it reads and the class it reads it as, and each channel's
    reducer name."""

    state_keys: tuple[str, ...]
    triggers: Mapping[str, tuple[str, ...]]
    reducers: Mapping[str, str]
    interrupt_before: Any
    interrupt_after: Any
    channels: Mapping[str, Any]
    root: Any
    """The root graph: its ``get_state_history`` and checkpointer read every namespace."""
    reads: Mapping[str, str | tuple[str, ...]]
    """Per node, the one channel whose value it reads (``__start__``: the run's input),
    or the channels of its input schema."""
    coercers: Mapping[str, Callable[[dict[str, Any]], Any] | None]
    """Per node, what turns those channels into its input schema's class (a dataclass,
    a pydantic model), as graphkit's own runs do; None for a dict."""
    cached: frozenset[str] = frozenset()
    """The nodes and called tasks whose writes a node cache may have served (a
    ``CachePolicy`` of their own or the graph's, and a cache given to this graph or, for
    a subgraph, to its root): LangGraph does not save which."""
    writes: Mapping[str, NodeWrites] = field(default_factory=dict)
    """Per node, what its writers may write: who made a change whose writes a killed
    process never saved (``graphkit.bridge.unsaved``)."""
    calls: tuple[str, ...] = ()
    """The names of the ``@task`` functions the graph's functions may call (functional
    API): what an id LangGraph saved writes under, planned by no one, is matched to."""
    handlers: Mapping[str, str] = field(default_factory=dict)
    """Per node added with ``error_handler=``, its handler's node name: the task that
    took over a failure it saved as handed over (``graphkit.bridge.handlers``)."""

    @classmethod
    def of(cls, compiled: Any, root: Any) -> GraphInfo:
        keys = getattr(compiled, "stream_channels", None) or ()
        keys = (keys,) if isinstance(keys, str) else tuple(keys)
        nodes = getattr(compiled, "nodes", {}) or {}
        triggers = {
            name: tuple(getattr(node, "triggers", ()) or ()) for name, node in nodes.items()
        }
        channels = getattr(compiled, "channels", {}) or {}
        reducers = {name: reducer_name(channel) for name, channel in channels.items()}
        before = getattr(compiled, "interrupt_before_nodes", ()) or ()
        after = getattr(compiled, "interrupt_after_nodes", ()) or ()
        reads = {name: _reads(node, keys) for name, node in nodes.items()}
        declared = getattr(getattr(compiled, "builder", None), "nodes", None) or {}
        coercers = {
            name: coerce_to_schema(getattr(declared.get(name), "input_schema", None))
            for name in nodes
        }
        cache = getattr(compiled, "cache", None) or getattr(root, "cache", None)
        # a graph's own policy (Pregel's, entrypoint(cache_policy=...)) covers each node
        # and called task that has none
        policy = getattr(compiled, "cache_policy", None)
        calls = callable_tasks(compiled)
        policies = {name: getattr(node, "cache_policy", None) for name, node in nodes.items()}
        cached = frozenset(
            name
            for name, own in {**calls, **policies}.items()
            if cache is not None and (own is not None or policy is not None)
        )
        writes = {name: node_writes(node) for name, node in nodes.items()}
        return cls(
            *(keys, triggers, reducers, before, after, channels, root, reads, coercers),
            *(cached, writes, tuple(calls)),
            dict(getattr(compiled, "node_error_handler_map", None) or {}),
        )

    def node_input(self, name: str, values: Mapping[str, Any]) -> Any:
        """What node ``name`` received when a step read a checkpoint's ``values``: the
        one channel it reads (``__start__``: the run's input), else the channels of its
        input schema (a reducer's key that nothing wrote yet as its channel starts),
        as an instance of the schema's class when it has one (its defaults filled in).

        >>> from langgraph.graph import START, StateGraph
        >>> from pydantic import BaseModel
        >>> class State(BaseModel):
        ...     n: int
        ...     name: str = "anon"
        >>> builder = StateGraph(State).add_node("a", lambda s: {})
        >>> app = builder.add_edge(START, "a").compile()
        >>> info = GraphInfo.of(app, app)
        >>> info.node_input("__start__", {"__start__": {"n": 1}, "n": 1})
        {'n': 1}
        >>> info.node_input("a", {"n": 1})
        State(n=1, name='anon')
        """
        reads = self.reads.get(name, self.state_keys)
        if isinstance(reads, str):
            return values.get(reads, self.initial(reads))
        state = {key: values.get(key, self.initial(key)) for key in reads}
        state = {key: value for key, value in state.items() if value is not EMPTY}
        coerce = self.coercers.get(name)
        if coerce is None:
            return state
        try:
            return coerce(state)
        except Exception:  # (LangGraph's node failed on it too): the channels as saved
            return state

    def subruns(self, planned: Any) -> tuple[Run, ...]:
        """The runs of the subgraph a task ran, read from the namespaces LangGraph saved
        them under: the one the task's ``state`` names, then ``|1``, ``|2``... for each
        further call from the same task; () for a task that ran none."""
        state = getattr(planned, "state", None)
        configurable = (state.get("configurable") or {}) if isinstance(state, Mapping) else {}
        namespace = configurable.get("checkpoint_ns")
        if not namespace:
            return ()
        nodes = "|".join(part.split(":")[0] for part in namespace.split("|"))
        subgraph = dict(self.root.get_subgraphs(recurse=True)).get(nodes)
        if subgraph is None:
            return ()
        from graphkit.bridge.threads import read_run  # it reads this graph's subgraphs

        info, runs = GraphInfo.of(subgraph, self.root), []
        for call in itertools.count():
            where = namespace if call == 0 else f"{namespace}|{call}"
            config = {**state, "configurable": {**configurable, "checkpoint_ns": where}}
            try:
                runs.append(read_run(self.root, info, config))
            except ValueError:  # nothing (more) saved (e.g. compiled checkpointer=False)
                break
        return tuple(runs)

    def rebuilt(self, snapshot: Any) -> dict[str, Any]:
        """The values of the ``DeltaChannel`` fields at ``snapshot``: LangGraph saves
        such a field as the writes that built it (and now and then a snapshot of it), not
        as a channel value, and its snapshot's values are what it rebuilt from them."""
        shown = snapshot.values if isinstance(snapshot.values, Mapping) else {}
        return {
            name: shown[name]
            for name, channel in self.channels.items()
            if type(channel).__name__ == "DeltaChannel" and name in shown
        }

    def present(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The saved values of channels that hold one, asked of each channel itself
        (LangGraph saves a consumed ``Topic`` as ``[]``; graphkit shows it empty)."""
        kept = {}
        for name, value in values.items():
            channel = self.channels.get(name)
            try:
                available = channel is None or channel.from_checkpoint(value).is_available()
            except Exception:  # a channel that cannot say: keep what was saved
                available = True
            if available:
                kept[name] = value
        return kept

    def initial(self, name: str) -> Any:
        """What channel ``name`` holds before anything writes it, asked of LangGraph's
        channel (a reducer's ``[]`` or ``0``: a node reads it, though no saver keeps it),
        as a copy; ``EMPTY`` for a channel that starts empty."""
        channel = self.channels.get(name)
        try:
            if channel is None or isinstance(channel, type) or not channel.is_available():
                return EMPTY
            return copy.copy(channel.get())
        except Exception:  # a channel that cannot say: it holds nothing we know of
            return EMPTY

    def known(self, channel: str) -> bool:
        """False for a write LangGraph saved but never applies (a managed value's key)."""
        if not self.channels:
            return True
        return channel in self.channels and not isinstance(self.channels[channel], type)


def _reads(node: Any, state_keys: tuple[str, ...]) -> str | tuple[str, ...]:
    """The channels a compiled LangGraph node reads: one name, or its input's keys."""
    channels = getattr(node, "channels", None)
    if isinstance(channels, str):
        return channels
    return tuple(channels) if channels else state_keys


def reducer_name(channel: Any) -> str:
    """A reducer's function name, else the channel class (as graphkit's changes table)."""
    operator = getattr(channel, "operator", None)
    if operator is not None:
        return getattr(operator, "__name__", repr(operator))
    return type(channel).__name__
