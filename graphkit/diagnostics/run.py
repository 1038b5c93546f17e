"""What a run says when a step goes wrong: the texts the stepper and the phases raise."""

from __future__ import annotations

import ast
import linecache
from collections.abc import Collection, Iterable, Mapping, Sequence
from types import CodeType
from typing import TYPE_CHECKING, Any

from graphkit.constants import CONFIG_KEYS, START
from graphkit.diagnostics import some_names
from graphkit.diagnostics.channels import plain_field_written_twice
from graphkit.errors import ErrorCode, GraphRecursionError, create_error_message

if TYPE_CHECKING:
    from graphkit.pregel.records import Plan, Task

__all__ = [
    "async_node_in_sync_run",
    "invalid_update",
    "packet_key_read",
    "phase_out_of_order",
    "recursion_limit",
    "reducer_raised",
    "run_is_over",
    "subscript_read",
    "subscripted",
    "unknown_channel",
    "unknown_send_target",
    "unreadable_state",
    "unset_key_read",
]


def _names(writers: Iterable[str]) -> str:
    return " and ".join(repr(writer) for writer in dict.fromkeys(writers))


def unknown_send_target(step: int, target: str, nodes: Iterable[str], input_node: str) -> str:
    nodes = some_names(name for name in nodes if name != input_node)
    # the packet was written the step before (a Topic of one step's Sends), by a node
    # or a router of that step, or by the input (a Command) at step -1
    sent = "with the run's input" if step <= 0 else f"in step {step - 1}"
    return (
        f"Step {step}: a Send targets {target!r}, which is not a node of this graph "
        f"(nodes: {nodes}); it was sent {sent}, and step {step} drops it, as in "
        "LangGraph. Fix the node name in the Send."
    )


def unknown_channel(step: int, node: str, channel: str, nodes: Iterable[str]) -> str:
    """The warning for a write to a channel the graph does not have."""
    if not channel.startswith("branch:to:"):
        return (
            f"Step {step}: node {node!r} wrote to {channel!r}, which is not a channel of this "
            "graph; the write is dropped (as in LangGraph)."
        )
    nodes = some_names(name for name in nodes if name != START)
    return (
        f"Step {step}: the router or Command(goto=...) of {node!r} returned "
        f"{channel[len('branch:to:') :]!r}, which is not a node (nodes: {nodes}); nothing runs "
        "for it, as in LangGraph. Return a node name or END, or give add_conditional_edges "
        "a path_map."
    )


def unreadable_state(node: str, step: int, error: Exception, a_node_ran: bool) -> str:
    """The note on the error of a node's schema refusing the values it reads."""
    schema = getattr(error, "title", None) or "the node's state schema"  # pydantic's title
    source = (
        "a node or update_state wrote a value it refuses"
        if a_node_ran
        else "the values come from the run's input, so fix the input"
    )
    return (
        f"Before task with name {node!r} (step {step}): its state could not "
        f"be read as {schema}; {source}."
    )


def unset_key_read(
    node: str, step: int, key: str, cleared: str | None = None, subgraph: bool = False
) -> str:
    """The note on the ``KeyError`` of a node reading a state key that has no value.
    ``cleared``: the kind of its channel when a write reached it before and the channel
    let it go (an ``EphemeralValue``): then something did put it in the state.
    ``subgraph``: the node is a subgraph's, whose input is no ``app.invoke(...)``."""
    if cleared is not None:
        kind = f"{'an' if cleared[0] in 'AEIOU' else 'a'} {cleared}"
        return (
            f"Node {node!r} (step {step}) read state[{key!r}], which has no value in this "
            f"step: a write put it in the state before, but its channel, {kind}, keeps a "
            f"write only for the step after it. Read it in that step, or with "
            f"state.get({key!r})."
        )
    # (the input gives it only through the input schema: an input that gave a key the
    # schema lacks was dropped, and "give it in the input" alone would repeat that)
    given = (
        "the subgraph's input",
        "as a key of its input schema (its parent passes its own state, or the dict the "
        "subgraph is invoked with)",
    )
    if not subgraph:
        given = ("the input", f"as a key of the input schema (app.invoke({{..., {key!r}: ...}}))")
    return (
        f"Node {node!r} (step {step}) read state[{key!r}], which has no value yet: neither "
        f"{given[0]} nor a node put it in the state. Give it in {given[0]}, {given[1]}, "
        f"have a node that runs earlier write it, or read it with state.get({key!r})."
    )


def packet_key_read(
    node: str, step: int, key: str, packet: Mapping[str, Any], in_state: bool = True
) -> str:
    """The note on the ``KeyError`` of a task started by a Send reading a key its packet
    lacks: the packet is the task's whole input, the graph's state is not merged in.
    ``in_state``: the graph's state has a value for ``key`` (else copying it from there
    would raise in the router)."""
    has = f"the packet's keys: {some_names(map(str, packet))}" if packet else "the packet is empty"
    said = (
        f"Node {node!r} (step {step}) read state[{key!r}], but a Send started this task, "
        f"and a Send's packet is the task's whole input, not the graph's state ({has})."
    )
    if not in_state:
        return (
            f"{said} The graph's state has no value for {key!r} either: give it one (in "
            f"the input, or from a node that runs before the Send), then put it in the "
            f"packet, or read it with state.get({key!r})."
        )
    return (
        f"{said} Put the key in the packet, e.g. Send({node!r}, {{..., {key!r}: state[{key!r}]}})."
    )


def unannotated_error(error: BaseException, calls: Collection[CodeType], node: str) -> bool:
    """Explain, in ``error``'s own text, an error handler whose ``error`` parameter lacks
    its ``NodeError`` annotation: the runtime hands the failure only to a parameter so
    annotated (LangGraph's rule), so calling it raised the bare ``TypeError: missing 1
    required positional argument: 'error'``. It stays a ``TypeError``, as in LangGraph.
    ``calls``: the code of what calls a node's functions (the error was raised by such a
    call, not inside the handler). Whether it was that error."""
    traceback = error.__traceback__
    while traceback is not None and traceback.tb_next is not None:
        traceback = traceback.tb_next
    if not (
        isinstance(error, TypeError)
        and "argument: 'error'" in str(error)
        and traceback is not None
        and traceback.tb_frame.f_code in calls
    ):
        return False
    error.args = (
        f"{error}: the error handler of node {node!r} has a parameter "
        "'error' without the NodeError annotation, and the runtime hands a handler the "
        "failure only through a parameter annotated NodeError, so it passed the state "
        "alone. Annotate it: def handler(state, error: NodeError) (from graphkit.errors "
        "import NodeError).",
    )
    return True


def subscripted(error: BaseException, mapping: Any) -> bool:
    """Whether ``error`` was raised where its code subscripts ``mapping`` itself by a name
    (``state["key"]``): the innermost frame of its traceback, read back from its source.
    A ``KeyError`` of another dict (``other["key"]``, ``state["a"]["key"]``), raised on
    purpose or from code whose source cannot be read is not."""
    return mapping is not None and subscript_read(error) is mapping


def subscript_read(error: BaseException) -> Any:
    """What the code that raised ``error`` subscripted by a name (``state`` of
    ``state["key"]``), read back from the source of its traceback's innermost frame;
    None where that frame does not read ``name[...]`` or its source cannot be read."""
    traceback = error.__traceback__
    while traceback is not None and traceback.tb_next is not None:
        traceback = traceback.tb_next
    if traceback is None:
        return None
    frame = traceback.tb_frame
    positions = list(frame.f_code.co_positions())
    start, end, column, end_column = positions[traceback.tb_lasti // 2]
    lines = linecache.getlines(frame.f_code.co_filename, frame.f_globals)
    if None in (start, end, column, end_column) or end > len(lines):  # type: ignore[operator]
        return None
    text = lines[start - 1 : end]  # type: ignore[operator]
    text[-1] = text[-1].encode()[:end_column].decode(errors="ignore")
    text[0] = text[0].encode()[column:].decode(errors="ignore")
    try:
        read = ast.parse("".join(text).strip(), mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(read, ast.Subscript) and isinstance(read.value, ast.Name)):
        return None
    name = read.value.id
    return frame.f_locals.get(name, frame.f_globals.get(name))


def async_node_in_sync_run(
    node: str, inside: str | None = None, stepped: bool = False
) -> TypeError:
    """(A TypeError, as LangGraph's.) ``inside``: the node of a parent graph that runs
    this graph with ``.invoke``/``.stream``, a sync run, which refuses async nodes under
    every call, as LangGraph's does; ``stepped``: the run was started by ``trace``,
    ``atrace``, a ``Stepper`` or the debugger, which run the async nodes they find
    before the run (``runs_coroutines``) on an event loop."""
    if inside is None:
        where = "this run is synchronous"
        fix = "Run the graph with `await app.ainvoke(...)` or `app.astream(...)`"
        if stepped:
            fix = "Record the graph with `await app.atrace(...)`"
    else:
        from graphkit.streaming.aio import current_async_run

        where = (
            f"it is in a graph that node {inside!r} runs synchronously (`.invoke`/`.stream`): "
            "a sync run of a graph refuses async nodes whatever call ran the outer graph "
            "(`ainvoke`, `trace` and `atrace` too), as LangGraph's does"
        )
        fix = (
            f"Make {inside!r} an async def that awaits the inner graph's `ainvoke(...)`, "
            "as LangGraph requires"
        )
        if stepped:
            fix += " (trace, atrace, the stepper and the debugger then run it)"
        elif current_async_run() is None:  # (invoke/stream: the outer run is sync too)
            fix += ", and run the graph with `await app.ainvoke(...)` or `app.astream(...)`"
    return TypeError(
        f"Node {node!r} is an async function, and {where}. {fix}; or make {node!r} a plain def."
    )


def timed_node_in_sync_run(node: str, sent: bool = False) -> ValueError:
    """``sent``: the timeout is a ``Send``'s, not the node's."""
    whose = "a Send to it carries" if sent else "it has"
    drop = "the Send's `timeout=`" if sent else "the node's `timeout=`"
    return ValueError(
        f"Node {node!r} cannot run with the timeout {whose} in a sync run: only an async run "
        "can enforce one (sync Python code cannot be cancelled in-process). Run the graph "
        f"with `await app.ainvoke(...)` or `app.astream(...)`, or drop {drop}."
    )


def invalid_update(
    step: int,
    writers: Sequence[str],
    channel: str,
    error: Exception,
    tasks: Sequence[Task] = (),
    low_level: bool = False,
) -> str:
    """``tasks``: the step's tasks that wrote ``channel`` (a node that ran twice is
    said to, and why); ``low_level``: the graph is a low-level Pregel, whose channels
    take no reducer (the fix names channel classes instead)."""
    said = getattr(error, "plain_field", None)
    if low_level and said is not None:
        error = plain_field_written_twice(*said, low_level=True)
    return f"Step {step}: {_names(writers)} wrote {channel!r}{_ran_twice(tasks)}. {error}"


def _ran_twice(tasks: Sequence[Task]) -> str:
    """Why a node ran more than once in the step: each run's cause. A node run only by
    ``Send``s is a map step, meant to run once per packet: its writes want the reducer
    the error goes on to suggest, not fewer ways in."""
    runs: dict[str, list[str]] = {}
    for task in tasks:
        runs.setdefault(task.node, []).append(
            "once for a Send, from a Command(goto=Send(...)) or a router"
            if task.kind == "push"
            else f"once because an edge or a Command(goto={task.node!r}) led to it"
        )
    return "".join(
        f"; {node!r} ran {len(why)} times in this step, once for each Send"
        if all(task.kind == "push" for task in tasks if task.node == node)
        else f"; {node!r} ran {len(why)} times in this step ({', '.join(why)}): "
        "lead it there one way only"
        for node, why in runs.items()
        if len(why) > 1
    )


def reducer_raised(
    step: int, channel: str, reducer: str, writers: Sequence[str], held_none: bool = False
) -> str:
    """``held_none``: the channel held None before the step, most likely what the
    reducer returned when it last ran (LangGraph stores it too, without a word)."""
    said = (
        f"While step {step} applied its writes to channel {channel!r}: its "
        f"reducer {reducer} raised (writers: {_names(writers)}); the state is "
        "left as it was before the step."
    )
    if held_none:
        said += (
            f" The channel held None before this step, most likely what {reducer} returned "
            "when it last ran (a reducer that changes its first argument in place returns "
            "nothing). "
            "Make it return the new value, e.g. `return left + right`."
        )
    return said


def recursion_limit(limit: int, step: int, plan: Plan) -> GraphRecursionError:
    pending = (
        f"Step {step} was about to run {plan.nodes}."
        if plan.tasks
        else f"Step {step} had no task left, but as in LangGraph the limit is checked first."
    )
    # LangGraph's line first, whole (a `match=` copied from LangGraph finds it); then
    # ours, broken at clauses, not at a width: a notebook breaks a long printed line
    # wherever it meets the edge, mid-word.
    message = (
        f"Recursion limit of {limit} reached without hitting a stop condition. You can "
        "increase the limit by setting the `recursion_limit` config key.\n"
        f"{pending}\nIf the graph really needs more steps, raise the limit:\n"
        f"app.invoke(input, {{'recursion_limit': {limit * 2}}}).\n"
        "If it loops forever, check that a conditional edge eventually routes to END."
    )
    return GraphRecursionError(
        create_error_message(message=message, error_code=ErrorCode.GRAPH_RECURSION_LIMIT)
    )


def run_is_over(status: str, rest: str) -> RuntimeError:
    return RuntimeError(f"The run is over (status {status!r}); {rest}.")


def phase_out_of_order(step: int, waiting_for: str | None, called: str) -> RuntimeError:
    return RuntimeError(
        f"Step {step} is waiting for its {waiting_for} phase, "
        f"not {called}; call stepper.{waiting_for}() first, or stepper.step()."
    )


def step_timed_out(
    step: int, timeout: float | None, running: list[str], cancelled: bool
) -> TimeoutError:
    """The graph's ``step_timeout`` passed while tasks of ``step`` still ran
    (``cancelled``: an async run, where they were cancelled)."""
    fate = (
        "They were cancelled, each failing with CancelledError (a sync node's thread "
        "cannot be stopped: it is left to finish, and what it returns is dropped)"
        if cancelled
        else "Their writes are dropped"
    )
    return TimeoutError(
        f"Timed out: step {step} ran past the graph's step_timeout of {timeout} s while "
        f"{', '.join(repr(node) for node in running) or 'no task'} still ran. {fate}; the "
        "tasks that finished are saved. Raise `step_timeout`, or give the slow node a "
        "`timeout=` (async nodes) so that it fails alone and can be retried."
    )


def unknown_output_keys(unknown: Sequence[str], keys: Sequence[str]) -> str:
    """``output_keys`` naming what is no channel of the graph."""
    return (
        f"output_keys names {', '.join(map(repr, unknown))}, not a key of this graph's "
        f"state (its keys: {', '.join(map(repr, keys))}). Name state keys, or leave "
        "output_keys out for the whole output."
    )


def durability_without_checkpointer(durability: str) -> str:
    """``durability=`` given to a run that saves nothing (LangGraph's words first, so a
    warnings filter written for LangGraph matches)."""
    return (
        "`durability` has no effect when no checkpointer is present. This run saves "
        f"nothing, so durability={durability!r} changes nothing: compile the graph with "
        "checkpointer=... to save its steps, or leave durability out."
    )


def unknown_run_options(names: list[str]) -> str:
    """A keyword argument of ``invoke`` / ``stream`` that is not one of their options."""
    config_keys = [name for name in names if name in CONFIG_KEYS]
    fix = (
        f"put {' and '.join(config_keys)} in the config instead: app.invoke(input, "
        f"{{{config_keys[0]!r}: ...}})"
        if config_keys
        else "the run options are interrupt_before, interrupt_after, durability, executor, "
        "context, stream_mode, output_keys, subgraphs, print_mode, debug and version"
    )
    return f"invoke() / stream() got unexpected keyword argument(s) {names}; {fix}."


def context_does_not_fit(schema: Any, given: Mapping[str, Any]) -> str:
    name = getattr(schema, "__name__", repr(schema))
    return (
        f"graphkit: context={dict(given)!r} does not fit the graph's context_schema {name} "
        f"(a dict given as context becomes a {name}, as in LangGraph). Pass the fields "
        f"{name} takes, or a {name} instance."
    )


def context_schema_not_a_class(schema: Any) -> str:
    """A run given a context, of a graph whose ``context_schema`` is no class."""
    return (
        f"This run was given a context, and the graph's context_schema is {schema!r} "
        f"({type(schema).__name__}), not a class. Declare the context as a class (a "
        "dataclass, a TypedDict or a pydantic model) and pass it: StateGraph(State, "
        "context_schema=Context)."
    )


def not_names(option: str, value: Any, example: str) -> str:
    """A run's ``stream_mode`` or ``output_keys`` that is neither a name nor a list."""
    return (
        f"{option}={value!r}: give a name or a list of names, e.g. {option}={example}; "
        f"got {type(value).__name__}."
    )
