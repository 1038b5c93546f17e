"""What graphkit says about the builder's arguments, refused as they are given.

``add_node``, ``add_sequence``, ``add_edge``, ``add_conditional_edges`` and
``compile``, one argument at a time: node names and actions, retry and timeout
policies, edges, routers, breakpoints and checkpointers. The arguments' names are
``arguments``' job, the state schema ``schemas``', and what only the finished graph
shows (an edge to a node never added, no entry point) waits for ``validate``, in
``graph``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from graphkit.constants import END, RESERVED_CHARACTERS, START
from graphkit.diagnostics import some_names
from graphkit.diagnostics.names import (
    into_start,
    near_miss,
    not_a_node_name,
    shown,
    unknown_node_fix,
)
from graphkit.types import RetryPolicy, is_langgraphs

_RUNS = ("invoke", "ainvoke", "stream", "astream", "batch", "abatch", "trace", "atrace", "stepper")
_MORE_RUNS = ("batch_as_completed", "abatch_as_completed", "astream_log", "with_config")
_EVENTS = ("astream_events", "stream_events")
_READS = ("get_graph", "aget_graph", "get_subgraphs", "aget_subgraphs", "spec")
_SCHEMAS = ("get_input_schema", "get_output_schema", "get_input_jsonschema")
_SCHEMAS += ("get_output_jsonschema", "get_context_jsonschema", "get_config_jsonschema")
_SCHEMAS += ("config_schema", "clear_cache", "aclear_cache")
_CHAINS = ("pipe", "bind", "with_retry", "with_fallbacks", "with_types", "with_listeners")
_CHAINS += ("with_alisteners", "as_tool", "transform", "atransform", "pick", "assign", "map")
_STATE = ("get_state", "get_state_history", "update_state", "bulk_update_state")
_ASYNC_STATE = tuple(f"a{name}" for name in _STATE)  # (aget_state: LangGraph's async code)
COMPILED_ONLY = frozenset(
    (*_RUNS, *_MORE_RUNS, *_EVENTS, *_READS, *_SCHEMAS, *_CHAINS, *_STATE, *_ASYNC_STATE)
)
"""What a compiled graph has and its builder has not: asked of the builder, the fix is
``compile()``."""


def not_compiled(builder: str, name: str) -> str:
    """The message of the AttributeError for ``builder.<name>``, missing on a builder.

    >>> "first, app = builder.compile(), then call app.invoke(...)" in not_compiled(
    ...     "StateGraph", "invoke"
    ... )
    True
    >>> not_compiled("StateGraph", "nodez")
    "'StateGraph' object has no attribute 'nodez'"
    """
    missing = f"{builder!r} object has no attribute {name!r}"
    if name not in COMPILED_ONLY:
        return missing
    use = "read app.spec" if name == "spec" else f"call app.{name}(...)"
    return (
        f"{missing}: a {builder} only declares the graph's nodes and edges. Compile it "
        f"first, app = builder.compile(), then {use}."
    )


# -- nodes: add_node, add_sequence --------------------------------------------------------


def check_action(node: Any, action: Any, where: str = "") -> None:
    """Refuse ``add_node(node, action)`` unless node is a name and action is callable;
    ``where``: the call that gave ``action``, when it is not ``add_node(node, ...)`` (an
    error handler's)."""
    if not isinstance(node, str):
        if isinstance(action, str) and callable(node):  # add_node(f, "name"): swapped
            name = shown(node)
            raise TypeError(
                f"add_node({name}, {action!r}): the node's name comes first, then its "
                f"function. Write add_node({action!r}, {name})."
            )
        raise TypeError(
            f"add_node({shown(node)}, ...): a node's name must be a string, got "
            f"{type(node).__name__}. Write add_node('name', function)."
        )
    if action is None:
        raise ValueError(f"add_node({node!r}) needs an action: a function or a runnable.")
    kind = type(action)
    if kind.__module__.startswith("langgraph.prebuilt."):  # (its ToolNode, ValidationNode)
        fix = (
            "Import graphkit's: from graphkit.prebuilt import ToolNode."
            if kind.__name__ == "ToolNode"
            else "graphkit has none: write the node as a function."
        )
        raise TypeError(
            f"Node {node!r} is LangGraph's {kind.__name__} (from langgraph.prebuilt), which "
            f"runs only on LangGraph's runtime. {fix}"
        )
    if not callable(action) and not callable(getattr(action, "invoke", None)):
        if where:
            raise TypeError(
                f"{where}: the error handler must be a function (state, error) -> update, "
                f"got {type(action).__name__} {action!r}."
            )
        raise TypeError(
            f"Node {node!r}: expected a function or an object with .invoke(), got "
            f"{type(action).__name__}."
        )


def check_node_name(name: str, nodes: Collection[str]) -> None:
    """Refuse START, END, names with a namespace separator and names taken."""
    if name in (START, END):
        raise ValueError(f"Node name {name!r} is reserved for the graph's start/end.")
    for character in RESERVED_CHARACTERS:
        if character in name:
            raise ValueError(
                f"Node name {name!r} contains {character!r}, which is reserved for "
                "subgraph namespaces; pick a name without ':' or '|'."
            )
    if name in nodes:
        raise ValueError(
            f"Node {name!r} already present; give the second one another name, e.g. "
            f"add_node('{name}_2', ...)."
        )


def check_sequence(nodes: Any) -> None:
    """Refuse ``add_sequence`` given something other than a list of nodes (LangGraph's
    TypeError too)."""
    if isinstance(nodes, Mapping):
        raise TypeError(
            "add_sequence takes a list of nodes, not a dict (which it would read as its "
            "keys, names without functions): write add_sequence(list(nodes.items())), "
            "a list of ('name', function) pairs."
        )
    if isinstance(nodes, str) or not isinstance(nodes, Iterable):
        raise TypeError(
            f"add_sequence takes a list of nodes, got {type(nodes).__name__}: write "
            f"add_sequence([{shown(nodes)}]) (functions, or ('name', function) pairs, in "
            "the order they run)."
        )


def check_sequence_item(item: Any) -> None:
    """Refuse an ``add_sequence`` item that is neither a node's function nor a
    ``('name', function)`` pair (LangGraph's TypeError too)."""
    if isinstance(item, tuple) and len(item) != 2:
        raise TypeError(
            f"add_sequence got {shown(item)}, a tuple of {len(item)}; each item is a "
            "function or a ('name', function) pair."
        )
    if isinstance(item, str):
        raise TypeError(
            f"add_sequence got {item!r}, a name without its function; each item is a "
            f"function (named after itself) or a pair: ({item!r}, function)."
        )


def duplicate_in_sequence(name: str, action: Any) -> str:
    return (
        f"add_sequence: node {name!r} already present; to run the same function twice, "
        f"give the second its own name with a pair: ('{name}_2', {shown(action)})."
    )


def node_added_after_compile(node: str) -> str:
    return (
        f"Node {node!r} was added after compile(); the compiled graph does not "
        "have it. Call compile() again."
    )


def edge_added_after_compile(edge: str) -> str:
    """``edge``: what was added, as a sentence starts (``"Edge 'a' → 'b'"``)."""
    return (
        f"{edge} was added after compile(); the compiled graph does not have it. "
        "Call compile() again."
    )


def as_graphkit_retry_policy(policy: Any) -> Any:
    """LangGraph's ``RetryPolicy`` (an import left as it was) as graphkit's, field for
    field, its default ``retry_on`` as graphkit's twin of it; anything else as it is.

    >>> from langgraph.types import RetryPolicy as Theirs
    >>> ours = as_graphkit_retry_policy(Theirs(max_attempts=5))
    >>> type(ours).__module__, ours.max_attempts, ours.retry_on.__module__
    ('graphkit.types', 5, 'graphkit.types')
    """
    if not is_langgraphs(policy, "RetryPolicy"):
        return policy
    fields = policy._asdict()
    if fields["retry_on"] is type(policy)._field_defaults.get("retry_on"):
        del fields["retry_on"]
    return RetryPolicy(**fields)


def retry_policies(where: str, retry_policy: Any) -> tuple[RetryPolicy, ...]:
    """Validate a ``retry_policy=...`` (``where`` names what took it, ``"Node 'fetch'"``):
    one RetryPolicy or a sequence of them, graphkit's or LangGraph's, each retrying on
    exception classes or on one predicate."""
    if retry_policy is None:
        return ()
    retry_policy = as_graphkit_retry_policy(retry_policy)
    policies = (retry_policy,) if isinstance(retry_policy, RetryPolicy) else retry_policy
    if isinstance(policies, (list, tuple)):
        policies = [as_graphkit_retry_policy(policy) for policy in policies]
    if not isinstance(policies, list) or not all(isinstance(p, RetryPolicy) for p in policies):
        raise TypeError(
            f"{where}: retry_policy must be a RetryPolicy or a list of them, got "
            f"{retry_policy!r}. Use e.g. RetryPolicy(max_attempts=3)."
        )
    for policy in policies:
        retry_on = policy.retry_on  # (an empty list retries nothing, as in LangGraph)
        classes = retry_on if isinstance(retry_on, (list, tuple)) else (retry_on,)
        for item in classes:
            is_exception_class = isinstance(item, type) and issubclass(item, BaseException)
            is_predicate = callable(item) and not isinstance(item, type) and len(classes) == 1
            if not (is_exception_class or is_predicate):
                raise TypeError(
                    f"{where}: RetryPolicy(retry_on={retry_on!r}) must be an exception "
                    "class, a list of exception classes, or a function (error) -> bool, e.g. "
                    "RetryPolicy(retry_on=ConnectionError)."
                )
    return tuple(policies)


def node_metadata(node: str, metadata: Any) -> dict[str, Any]:
    """``add_node(..., metadata=...)`` as a dict; the error ``dict()`` raises (as
    LangGraph's run does) says what metadata is."""
    try:
        return dict(metadata or {})
    except (TypeError, ValueError) as error:
        raise type(error)(
            f"add_node({node!r}, ..., metadata={metadata!r}): metadata is a dict of your "
            "own notes about the node, e.g. metadata={'owner': 'search'}."
        ) from None


def handler_exists(node: str, handler: str) -> str:
    return (
        f"add_node({node!r}, ..., error_handler=...): a node named {handler!r} (the name "
        "graphkit gives the handler, as LangGraph does) already exists. Rename that node."
    )


def timeout_policy(where: str, value: Any) -> Any:
    """``value`` as a ``TimeoutPolicy`` (None for no limit), or a ``ValueError`` that
    names ``where`` it was given."""
    from graphkit.types import TimeoutPolicy

    try:
        return TimeoutPolicy.coerce(value)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None


def sync_timeout(node: str) -> ValueError:
    """A ``timeout=`` on a node whose code is sync (LangGraph's message, and the fix)."""
    return ValueError(
        "Node timeouts are only supported for async nodes because sync Python execution "
        f"cannot be safely cancelled in-process. Node {node!r} is sync. Make it "
        "`async def`, or drop its `timeout=` (the run's `step_timeout` bounds a whole step)."
    )


# -- edges and routers: add_edge, add_conditional_edges -----------------------------------


def _spelt(name: Any) -> str:
    """How code names ``name``: the constant START or END, else the value's own text."""
    if isinstance(name, str) and name in (START, END):
        return "START" if name == START else "END"
    return shown(name)


def _check_one_end(start: Any, end: Any) -> None:
    """Refuse an edge's end that is several nodes (a list: LangGraph's TypeError too)."""
    if not isinstance(end, (list, set, dict)):
        return
    first = _spelt(next(iter(end), "b"))
    after = (
        " To run one node after several, put the list first: add_edge(['a', 'b'], 'c')."
        if isinstance(start, str)
        else ""
    )
    raise TypeError(
        f"add_edge({_spelt(start)}, {shown(end)}): an edge ends at one node. Add one edge "
        f"per node, e.g. add_edge({_spelt(start)}, {first}); they run in the same step." + after
    )


def waiting_starts(start: Any, end: Any) -> tuple[Any, ...]:
    """The nodes a waiting edge ``add_edge([...], end)`` waits for; a TypeError (as
    LangGraph's) when ``start`` is neither a name nor a list of names."""
    if isinstance(start, Iterable):
        _check_one_end(start, end)
        return tuple(start)
    raise TypeError(
        f"add_edge({shown(start)}, {_spelt(end)}): an edge starts at a node's name, or at a "
        f"list of names to wait for; {not_a_node_name(start, ())}."
    )


def check_edge(start: str, end: str) -> None:
    """Refuse an edge out of END or into START, or into several nodes."""
    _check_one_end(start, end)
    if start == END:
        raise ValueError("END cannot be the start of an edge; edges leave END nowhere.")
    if end == START:
        raise ValueError("START cannot be the end of an edge; nothing runs into START.")


def check_waiting_edge(starts: tuple[str, ...], end: str, nodes: Collection[str]) -> None:
    """Refuse a waiting edge out of END or START, into START, or between nodes not added
    yet."""
    for start in starts:
        if start == END:
            raise ValueError("END cannot be the start of an edge.")
        if start == START:  # as LangGraph: START is no node; it cannot be waited for
            raise ValueError(
                f"Waiting edge {list(starts)} -> {end!r} waits for START, which is not a "
                f"node; add_edge(START, {end!r}) starts {end!r} on its own."
            )
        if start not in nodes:
            fix = unknown_node_fix(start, nodes)
            raise ValueError(f"Waiting edge {shown(list(starts))} -> {shown(end)}: {fix}.")
    if end == START:
        raise ValueError("START cannot be the end of an edge.")
    if end not in nodes and end != END:
        fix = into_start(end, nodes) or unknown_node_fix(end, nodes)
        raise ValueError(f"Waiting edge {shown(list(starts))} -> {shown(end)}: {fix}.")


def check_branch_source(source: Any, path: Any) -> None:
    """Refuse ``add_conditional_edges`` from several nodes at once (a list: LangGraph's
    TypeError too, "unhashable type")."""
    if isinstance(source, (list, set, dict)):
        first = _spelt(next(iter(source), "a"))
        raise TypeError(
            f"add_conditional_edges({shown(source)}, {shown(path)}, ...): a conditional "
            f"edge starts at one node. Add one per node, e.g. "
            f"add_conditional_edges({first}, {shown(path)}, ...)."
        )


def path_not_callable(source: str, path: Any) -> str:
    """``add_conditional_edges(source, path)`` whose path is not a function (a node's name
    given for a fixed next step, or None)."""
    fix = "pass the function that returns where to go next, e.g. "
    fix += f"add_conditional_edges({_spelt(source)}, route, ['b', 'c'])"
    if isinstance(path, str):
        edge = f"add_edge({_spelt(source)}, {_spelt(path)})"
        fix = f"to always go to {_spelt(path)} next, write {edge}"
    return (
        f"add_conditional_edges({_spelt(source)}, {shown(path)}): the path must be a "
        f"function (state) -> the next node's name (a router), got {type(path).__name__}; "
        f"{fix}."
    )


def duplicate_branch(source: str, name: str) -> str:
    return (
        f"Node {source!r} already has a conditional edge named {name!r}; use "
        "a function with another name for the second one."
    )


# -- compile ------------------------------------------------------------------------------


def check_interrupts(before: Any, after: Any, nodes: Collection[str]) -> None:
    """Refuse ``compile(interrupt_before=[...])`` naming a node the graph does not have,
    or a bare node name instead of a list of them."""
    interrupts = {"interrupt_before": before, "interrupt_after": after}
    for option, names in interrupts.items():
        if isinstance(names, str) and names != "*":
            # LangGraph fails here too (a TypeError from inside compile); say why
            raise TypeError(
                f"compile({option}={names!r}): give a list of node names, "
                f"{option}=[{names!r}], or '*' for every node; a string would be read "
                "letter by letter."
            )
        _check_breakpoint_nodes("compile", option, names, nodes)


def check_run_interrupts(options: Mapping[str, Any], nodes: Collection[str]) -> None:
    """Refuse a run's own ``interrupt_before`` / ``interrupt_after`` (given to ``invoke``,
    ``stream``...) naming no node: LangGraph runs on without a word, so a typo reads as a
    breakpoint that never fired. One node's name alone is that node, as in LangGraph."""
    for option in ("interrupt_before", "interrupt_after"):
        names = options.get(option)
        if isinstance(names, str) and names != "*":
            if names not in nodes:
                raise ValueError(
                    f"invoke({option}={names!r}): there is no node {names!r}; "
                    f"{_meant(names, nodes, option)}nodes: {some_names(nodes)}."
                )
            continue
        _check_breakpoint_nodes("invoke", option, names, nodes)


def _check_breakpoint_nodes(call: str, option: str, names: Any, nodes: Collection[str]) -> None:
    if names is not None and not isinstance(names, Iterable):  # (LangGraph's TypeError)
        raise TypeError(
            f"{call}({option}={shown(names)}): give a list of node names, e.g. "
            f"{option}=['my_node'], or '*' for every node; got {type(names).__name__}."
        )
    for node in () if names == "*" else names or ():
        if node not in nodes:
            raise ValueError(
                f"{call}({option}=[{shown(node)}]): there is no node {shown(node)}; "
                f"{_meant(node, nodes, option)}nodes: {some_names(nodes)}."
            )


def _meant(node: Any, nodes: Collection[str], option: str) -> str:
    """What the name may have meant: each of these LangGraph takes and never stops at."""
    if not isinstance(node, str):
        return f"{not_a_node_name(node, nodes)}; "
    if node == "*":
        return f"'*' alone (not in a list) is every node: {option}='*'; "
    if node == END:
        return (
            "END is where a run finishes, not a node: to stop at the end, "
            "interrupt_after=[the last node]; "
        )
    if meant := near_miss(node, nodes):
        return f"did you mean {meant!r}? "
    if node == START:  # (a run's own breakpoint takes it, compile's does not)
        return ""
    # (a subgraph's node: the breakpoints stop at this graph's own nodes only)
    return (
        f"if {node!r} is a subgraph's node, compile that subgraph with "
        f"{option}=[{node!r}] (the parent keeps the checkpointer); "
    )


def refuse_langgraph_saver(where: str, checkpointer: Any) -> None:
    """Refuse LangGraph's own saver: graphkit's checkpoints are not LangGraph's, and such
    a saver would fail at the first save with an AttributeError naming neither.

    >>> class InMemorySaver: ...
    >>> InMemorySaver.__module__ = "langgraph.checkpoint.memory"
    >>> refuse_langgraph_saver("compile", InMemorySaver())
    Traceback (most recent call last):
    TypeError: compile(checkpointer=...) got LangGraph's InMemorySaver (langgraph.checkpoint.memory); graphkit saves its own checkpoints: use graphkit's, e.g. from graphkit.checkpoint import InMemorySaver (or SqliteSaver). To read a thread LangGraph saved, use graphkit.open_langgraph_thread.
    """  # noqa: E501
    kind = type(checkpointer)
    if isinstance(checkpointer, type):
        return
    # (a saver of one's own built on LangGraph's base class writes LangGraph's format too)
    theirs = [c for c in kind.__mro__ if c.__module__.partition(".")[0] == "langgraph"]
    if not theirs:
        return
    raise TypeError(
        f"{where}(checkpointer=...) got LangGraph's {theirs[0].__name__} ({theirs[0].__module__})"
        f"{'' if theirs[0] is kind else f', through {kind.__name__}'}; "
        "graphkit saves its own checkpoints: use graphkit's, e.g. from graphkit.checkpoint "
        "import InMemorySaver (or SqliteSaver). To read a thread LangGraph saved, use "
        "graphkit.open_langgraph_thread."
    )


def bad_checkpointer(checkpointer: Any) -> str:
    if isinstance(checkpointer, type):
        return (
            f"compile(checkpointer={checkpointer.__name__}) got the class; pass a saver, an "
            f"instance of it: compile(checkpointer={checkpointer.__name__}())."
        )
    return (
        f"compile(checkpointer=...) got a {type(checkpointer).__name__}: pass a saver "
        "(e.g. InMemorySaver(), SqliteSaver), or, for a subgraph, True (its own thread "
        "in its parent's), False (save nothing) or None (share the parent's)."
    )
