"""What graphkit says about a graph being declared, compiled or returning updates.

Message builders and checks for ``graphkit.graph``: the builder's arguments, the
writers' refusals of what a node or router returned, and ``validate``, which checks a
declared graph before it compiles.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, get_origin

from graphkit.constants import END, RESERVED_CHARACTERS, RESERVED_NAMES, START, TASKS
from graphkit.diagnostics import some_names
from graphkit.errors import (
    ErrorCode,
    InvalidUpdateError,
    LangGraphDeprecatedSinceV05,
    LangGraphDeprecatedSinceV10,
    create_error_message,
    warn,
)
from graphkit.types import Command, RetryPolicy, Send

if TYPE_CHECKING:
    from graphkit.graph.state import StateGraph

# -- building: StateGraph's arguments -----------------------------------------------------

_RENAMED = {
    "input": ("input_schema", LangGraphDeprecatedSinceV05),
    "output": ("output_schema", LangGraphDeprecatedSinceV05),
    "config_schema": ("context_schema", LangGraphDeprecatedSinceV10),
}
"""LangGraph's old ``StateGraph`` argument names, which it still accepts with a warning
of the class of the release that renamed them."""

_NODE_RENAMED = {
    "input": ("input_schema", LangGraphDeprecatedSinceV05),
    "retry": ("retry_policy", LangGraphDeprecatedSinceV05),
}
"""LangGraph's old ``add_node`` argument names, accepted with a warning."""


def _renamed(
    call: str, given: dict[str, Any], renames: Mapping[str, tuple[str, type[Warning]]]
) -> dict[str, Any]:
    """Map the old argument names in ``given`` to the new ones, warning about each (in
    LangGraph's words first, so that a warnings filter written for LangGraph matches)."""
    for old, (new, category) in renames.items():
        if old in given:
            warn(
                f"`{old}` is deprecated and will be removed. Please use `{new}` instead: "
                f"write {call}(..., {new}=...).",
                category,
            )
    return {renames[old][0]: value for old, value in given.items() if old in renames}


def renamed_arguments(given: dict[str, Any]) -> dict[str, Any]:
    """Map ``StateGraph(input=..., output=..., config_schema=...)`` to the new names,
    warning (``LangGraphDeprecatedSinceV05``/``V10``, as LangGraph does) about each."""
    unknown = sorted(set(given) - set(_RENAMED))
    if unknown:
        raise TypeError(
            f"StateGraph() got unexpected keyword argument(s) {unknown}; it takes "
            "state_schema, context_schema, input_schema and output_schema."
        )
    return _renamed("StateGraph", given, _RENAMED)


_NODE_OPTIONS = (
    "defer", "metadata", "input_schema", "retry_policy", "cache_policy", "destinations",
    "error_handler", "timeout",
)  # fmt: skip
"""The keyword arguments ``add_node`` takes (LangGraph's, but ``trace_policy``)."""

COMPILE_OPTIONS = (
    "checkpointer", "store", "cache", "interrupt_before", "interrupt_after", "debug", "name",
    "transformers", "executor",
)  # fmt: skip
"""The keyword arguments ``compile`` takes (LangGraph's, and ``executor``)."""


def renamed_node_arguments(given: dict[str, Any]) -> dict[str, Any]:
    """``add_node``'s extra keywords: the old names LangGraph still accepts (``retry``,
    ``input``: mapped to ``retry_policy``, ``input_schema``, with a warning); LangGraph's
    ``trace_policy`` is not supported yet, and any other name is a mistake."""
    rest = {key: value for key, value in given.items() if key not in _NODE_RENAMED}
    refuse_unsupported("add_node(..., {}=...)", trace_policy=rest.pop("trace_policy", None))
    refuse_unknown("add_node", rest, _NODE_OPTIONS)
    return _renamed("add_node", given, _NODE_RENAMED)


def refuse_unknown(call: str, given: Mapping[str, Any], takes: Sequence[str]) -> None:
    """Raise Python's TypeError for a keyword argument ``call`` does not take, naming the
    one it probably means and the ones it takes.

    >>> refuse_unknown("compile", {"checkpoint": None}, COMPILE_OPTIONS)
    Traceback (most recent call last):
    TypeError: compile() got an unexpected keyword argument 'checkpoint'. Did you mean checkpointer=...? It takes checkpointer, store, cache, interrupt_before, interrupt_after, debug, name, transformers and executor.
    """  # noqa: E501
    for name in given:
        close = difflib.get_close_matches(name, takes, n=1, cutoff=0.6)
        meant = f"Did you mean {close[0]}=...? " if close else ""
        raise TypeError(
            f"{call}() got an unexpected keyword argument {name!r}. {meant}It takes "
            f"{', '.join(takes[:-1])} and {takes[-1]}."
        )


def renamed_pregel_argument(options: dict[str, Any], context_schema: Any) -> Any:
    """``Pregel``'s context schema: ``config_type=...`` (LangGraph's old name, popped from
    ``options``, with its ``LangGraphDeprecatedSinceV10`` warning), else ``context_schema``."""
    if "config_type" not in options:
        return context_schema
    given = {"config_type": options.pop("config_type")}
    renames = {"config_type": ("context_schema", LangGraphDeprecatedSinceV10)}
    return _renamed("Pregel", given, renames)["context_schema"]


def refuse_unsupported(call: str, /, **options: Any) -> None:
    """Raise NotImplementedError for a LangGraph option graphkit does not support yet."""
    for option, value in options.items():
        if value:
            raise NotImplementedError(f"{call.format(option)} is not supported by graphkit yet.")


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


def shown(value: Any) -> str:
    """``value`` as a message shows it: a function, a class or a named runnable by its
    name (what the learner wrote), not by a repr with a memory address; else its repr.

    >>> def route(state): ...
    >>> shown(route), shown("a"), shown(("a", route))
    ('route', "'a'", "('a', route)")
    """
    if isinstance(value, tuple):
        inner = ", ".join(map(shown, value))
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return f"[{', '.join(map(shown, value))}]"
    name = getattr(value, "__name__", None) or getattr(value, "name", None)
    if callable(value) and isinstance(name, str) and name.isidentifier():
        return name
    return "lambda state: ..." if name == "<lambda>" else repr(value)


def not_a_node_name(value: Any, known: Collection[str]) -> str:
    """What to do about ``value`` given where a node's name goes (a function, a list,
    None...): a node is named by a string.

    >>> def shout(state): ...
    >>> not_a_node_name(shout, ["shout"])
    "nodes are named by strings: write 'shout', not the function shout itself"
    >>> not_a_node_name(shout, [])
    "nodes are named by strings: add_node('shout', shout) first, then write 'shout'"
    """
    name = getattr(value, "__name__", None) or getattr(value, "name", None)
    if callable(value) and isinstance(name, str) and name.isidentifier():
        kind = "class" if isinstance(value, type) else "function"
        if name in known:
            return f"nodes are named by strings: write {name!r}, not the {kind} {name} itself"
        return f"nodes are named by strings: add_node({name!r}, {name}) first, then write {name!r}"
    if value is None:
        return "to end the run there, use END (from graphkit import END)"
    if isinstance(value, (list, tuple, set, frozenset)):
        return (
            "one node is named by one string; for several nodes, add an edge to each "
            "(they run in the same step)"
        )
    return f"a node's name is a string, not {type(value).__name__}"


def _spelt(name: Any) -> str:
    """How code names ``name``: the constant START or END, else the value's own text."""
    if isinstance(name, str) and name in (START, END):
        return "START" if name == START else "END"
    return shown(name)


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


def retry_policies(node: str, retry_policy: Any) -> tuple[RetryPolicy, ...]:
    """Validate ``add_node(retry_policy=...)``: one RetryPolicy or a sequence of them, each
    retrying on exception classes or on one predicate."""
    if retry_policy is None:
        return ()
    policies = (retry_policy,) if isinstance(retry_policy, RetryPolicy) else retry_policy
    if not isinstance(policies, (list, tuple)) or not all(
        isinstance(p, RetryPolicy) for p in policies
    ):
        raise TypeError(
            f"Node {node!r}: retry_policy must be a RetryPolicy or a list of them, got "
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
                    f"Node {node!r}: RetryPolicy(retry_on={retry_on!r}) must be an exception "
                    "class, a list of exception classes, or a function (error) -> bool, e.g. "
                    "RetryPolicy(retry_on=ConnectionError)."
                )
    return tuple(policies)


def _constant_meant(name: Any) -> str:
    """``"END"`` or ``"START"`` when ``name`` spells one of them as a plain string (a
    learner's ``"END"`` for the constant, whose value is ``"__end__"``), else ``""``."""
    if not isinstance(name, str) or name in (END, START):
        return ""
    spelt = name.strip("_ ").upper()
    return spelt if spelt in ("END", "START") else ""


def _use_the_constant(name: str, verb: str = "use") -> str:
    constant = _constant_meant(name)
    value, purpose = (END, "end the run") if constant == "END" else (START, "start the run")
    return (
        f"to {purpose}, {verb} the constant {constant} (from graphkit import {constant}), "
        f"whose value is {value!r}, not the string {name!r}"
    )


def _near_miss(name: Any, known: Collection[str]) -> str:
    """The known name ``name`` is probably a slip for (case or spelling), or ``""``."""
    if not isinstance(name, str):
        return ""
    same_case = [node for node in known if node.lower() == name.lower()]
    # two letters swapped ("bgu" for "bug") is a common slip that difflib rates low
    swapped = [node for node in sorted(known) if _one_swap(name.lower(), node.lower())]
    close = same_case or swapped or difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    return close[0] if close else ""


def _one_swap(typed: str, known: str) -> bool:
    """Whether ``typed`` is ``known`` with two neighbouring letters swapped.

    >>> _one_swap("bgu", "bug"), _one_swap("bug", "bug"), _one_swap("gub", "bug")
    (True, False, False)
    """
    if len(typed) != len(known) or typed == known:
        return False
    differ = [i for i, (a, b) in enumerate(zip(typed, known, strict=True)) if a != b]
    return (
        len(differ) == 2
        and differ[1] == differ[0] + 1
        and typed[differ[0]] == known[differ[1]]
        and typed[differ[1]] == known[differ[0]]
    )


def _constant_or_slip(name: Any, known: Collection[str], verb: str = "use") -> str:
    """For ``name`` spelling START or END: use the constant, or, when it is also a slip
    for a node, both: a node spelt the same but for case (``"end"`` for ``"End"``) first,
    another near name (``"end"`` for ``"send"``) after the constant; else ``""``.

    >>> _constant_or_slip("end", ["End"])[:56]
    "did you mean 'End'? Or, to end the run, use the constant"
    >>> _constant_or_slip("END", ["End"])[-45:]
    "not the string 'END' (or did you mean 'End'?)"
    >>> _constant_or_slip("end", ["send"])[-46:]
    "not the string 'end' (or did you mean 'send'?)"
    """
    if not _constant_meant(name):
        return ""
    constant, slip = _use_the_constant(name, verb), _near_miss(name, known)
    # "END" is the constant's own name: the constant comes first, as for any other slip
    if slip and slip.lower() == name.lower() and name != _constant_meant(name):
        return f"did you mean {slip!r}? Or, {constant}"
    return f"{constant} (or did you mean {slip!r}?)" if slip else constant


def unknown_node_fix(name: str, known: Collection[str]) -> str:
    """What to do about an edge to or from ``name``, which is not a node: use the
    constant START/END, fix a slip, or add the node.

    >>> unknown_node_fix("END", ["a"])[:56]
    'to end the run, use the constant END (from graphkit impo'
    >>> unknown_node_fix("news2", ["news_1", "news_2"]), unknown_node_fix("zzz", ["a"])
    ("did you mean 'news_2'? Otherwise add_node('news2', ...) first", "add_node('zzz', ...) first")
    """
    if not isinstance(name, str):
        return not_a_node_name(name, known)
    if constant := _constant_or_slip(name, known):
        return constant
    if slip := _near_miss(name, known):
        return f"did you mean {slip!r}? Otherwise add_node({name!r}, ...) first"
    return f"add_node({name!r}, ...) first"


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
        fix = unknown_node_fix(end, nodes)
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
        if names is not None and not isinstance(names, Iterable):  # (LangGraph's TypeError)
            raise TypeError(
                f"compile({option}={shown(names)}): give a list of node names, e.g. "
                f"{option}=['my_node'], or '*' for every node; got {type(names).__name__}."
            )
        for node in () if names == "*" else names or ():
            if node not in nodes:
                if isinstance(node, str):
                    meant = _near_miss(node, nodes)
                    fix = f"did you mean {meant!r}? " if meant else ""
                else:
                    fix = f"{not_a_node_name(node, nodes)}; "
                raise ValueError(
                    f"compile({option}=[{shown(node)}]): there is no node {shown(node)}; "
                    f"{fix}nodes: {some_names(nodes)}."
                )


# -- building: state schemas --------------------------------------------------------------


def check_schema(schema: Any, where: str, of_the_state: bool = False) -> None:
    """Refuse a value given where a schema class goes (a dict of values, a list of key
    names: LangGraph's TypeError too, "unhashable type"); ``where``: the call, with
    ``{}`` for the schema. A state schema that is no type is refused where its keys
    are read (``schema_without_fields``)."""
    try:
        hash(schema)
        is_type = inspect.isclass(schema) or hasattr(schema, "__annotations__")
        if of_the_state or is_type or get_origin(schema) is not None:
            return
    except TypeError:
        pass
    call = (where or "{}").format(shown(schema))
    if isinstance(schema, dict):
        types = all(isinstance(value, type) for value in schema.values())
        fields = {k: (v if types else type(v)).__name__ for k, v in schema.items()}
        declared = "{" + ", ".join(f"{key!r}: {kind}" for key, kind in fields.items()) + "}"
        raise TypeError(
            f"{call}: a schema is a class whose annotated fields are the keys, not a dict"
            f"{'' if types else ' of values'}. Declare one, e.g. State = TypedDict('State', "
            f"{declared}) (from typing import TypedDict), and pass State"
            f"{'.' if types else '; values go to invoke().'}"
        )
    if isinstance(schema, (list, tuple, set)) and all(isinstance(k, str) for k in schema):
        declared = "{" + ", ".join(f"{key!r}: str" for key in schema) + "}"
        raise TypeError(
            f"{call}: a schema is a class whose annotated fields are the keys, not a "
            f"{type(schema).__name__} of names. Declare one, e.g. State = TypedDict('State', "
            f"{declared}) (each key with its type), and pass State."
        )
    raise TypeError(
        f"{call}: a schema is a class (a TypedDict, a dataclass or a pydantic model) whose "
        f"annotated fields are the keys, got {type(schema).__name__} {schema!r}."
    )


def schema_without_fields(schema: Any) -> str:
    return (
        f"State schema {schema!r} has no fields. Use a TypedDict, a dataclass or a "
        "pydantic model whose annotated fields are the state keys, or a type for a "
        "single-value state, e.g. StateGraph(int) or StateGraph(Annotated[list, operator.add])."
    )


def unresolved_annotations(schema: Any, error: NameError) -> str:
    return (
        f"Cannot resolve the annotations of state schema {schema.__name__}: {error}. "
        "Define every type the schema names before building the graph, at module level: "
        "annotations written as strings (`from __future__ import annotations`) are looked "
        "up in the schema's module, where a type defined inside a function is not found."
    )


def schema_without_annotated_fields(schema: Any) -> str:
    return (
        f"State schema {schema!r} has no annotated fields, so its graph would have no "
        "state. Annotate the fields that are the state keys (e.g. `count: int`), or use "
        "a type for a single-value state, e.g. StateGraph(int)."
    )


def check_reducer(name: str, reducer: Callable[..., Any]) -> None:
    """Refuse a reducer that does not take (current, update)."""
    try:
        parameters = inspect.signature(reducer).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature, e.g. operator.add
        return
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) != 2:
        raise ValueError(
            f"The reducer of state key {name!r} must take two arguments (current, update) "
            f"and return the new value; {getattr(reducer, '__name__', reducer)!r} takes "
            f"{inspect.signature(reducer)}."
        )


# -- running: what a node or a router returned --------------------------------------------


def unknown_key(node: str, key: str, keys: Collection[str], input_schema: str) -> str:
    """A returned key (or an input key, for START) that no channel has."""
    where = "The input has" if node == START else f"Node {node!r} returned"
    schema = f"the input schema {input_schema}" if input_schema else "the state schema"
    return (
        f"{where} key {key!r}, which is not in {schema} (keys: {sorted(keys)}); the "
        f"write is dropped, as in LangGraph. Add the key to {input_schema or 'the schema'} "
        "or fix its name."
    )


def managed_key(node: str, key: str) -> str:
    return (
        f"Node {node!r} returned {key!r}, a managed value the runtime computes for "
        "each step; the write is dropped. Store your own value under another key."
    )


def state_key_is_internal(key: str) -> str:
    """A state key named like a channel the runtime makes for itself."""
    return (
        f"State key {key!r} has the name of a channel the runtime makes for itself (the "
        "input is '__start__', the edges into node X 'branch:to:X', a wait for several "
        "nodes 'join:...'). Rename the key."
    )


def no_input_channel_named(input_keys: Sequence[str], given: Any) -> str:
    """A low-level ``Pregel``'s dict input naming none of its input channels."""
    return (
        f"Received no input for {list(input_keys)}: the input {given!r} names none of the "
        f"input channels, so the run has nothing to start from. Pass e.g. "
        f"{{{input_keys[0]!r}: ...}}."
    )


def not_a_dict(node: str, returned: Any) -> str:
    if node == START:
        message = (
            f"Expected dict, got {returned!r}: the run's input must be a dict of state keys "
            f"(or a state object), not {type(returned).__name__}. "
            "Pass e.g. app.invoke({'key': value})."
        )
    else:
        message = (
            f"Expected dict, got {returned!r}: node {node!r} returned a value of type "
            f"{type(returned).__name__}, and a node must return a dict of state keys (or a "
            "state object, a Command, or None). Return e.g. {'key': value}."
        )
    code = ErrorCode.INVALID_GRAPH_NODE_RETURN_VALUE
    return create_error_message(message=message, error_code=code)


def refuse_langgraph_class(what: str, value: Any) -> None:
    """Refuse LangGraph's own Command or Send by name: read as a plain object, it would
    silently lose its update and its route."""
    module = type(value).__module__
    if module.partition(".")[0] == "langgraph":
        name = type(value).__name__
        raise InvalidUpdateError(
            f"{what} returned a {name} from {module}, LangGraph's class; graphkit routes "
            f"and updates with its own. Import it from graphkit: from graphkit import {name}."
        )


def raised_by_router(name: str, source: str) -> str:
    return f"Raised by the router {name} of node {source!r} (add_conditional_edges)."


def async_router_in_sync_run(name: str, source: str) -> TypeError:
    """An ``async def`` router met in a synchronous run (LangGraph raises TypeError too)."""
    where = "the input" if source == START else f"node {source!r}"
    return TypeError(
        f"The router {name} of {where} (add_conditional_edges) is an async function, "
        "and this run is synchronous. Run the graph with `await app.ainvoke(...)` or "
        "`app.astream(...)`, or make the router a plain def."
    )


def bad_goto(node: str, command: Command) -> str:
    return (
        f"Node {node!r} returned {command!r}: goto takes a node name, END, a Send, "
        f"or a list of them, not {type(command.goto).__name__}."
    )


def command_without_parent(node: str, command: Command) -> str:
    return (
        f"Node {node!r} returned {command!r}, but this graph is not running as a subgraph, "
        "so there is no parent graph to send it to. Drop graph=Command.PARENT, or add "
        "this graph as a node of a parent graph."
    )


def bad_command_update(node: str, update: Any) -> str:
    what = type(update).__name__
    if isinstance(update, (list, tuple)):  # pairs gone wrong: say what pairs are
        what += f" {update!r}, which is not a list of (key, value) tuples with string keys"
    return (
        f"Node {node!r} returned a Command whose update is {what}; "
        "use a dict of state keys, e.g. Command(update={'key': value})."
    )


def send_to_end(router: str, send: Send) -> str:
    return (
        f"{router} returned {send!r}: a Send cannot go to END, which runs nothing. "
        "Return END itself to stop, or Send to a node."
    )


def invalid_destination(router: str, choice: Any) -> str:
    return (
        f"{router} returned {choice!r}, which is not a valid destination; return a node "
        "name, a list of names, or END."
    )


def managed_in_io_schema(schema: Any, keys: list[str]) -> str:
    name = getattr(schema, "__name__", repr(schema))
    return (
        f"The input or output schema {name} declares managed values {keys}; they are "
        "computed for nodes, never given or returned: declare them in the state schema only."
    )


def channel_redeclared(schema: Any, key: str, known: Any, declared: Any) -> str:
    name = getattr(schema, "__name__", repr(schema))
    return (
        f"{name} declares {key!r} as {_kind(declared)}, but another schema of this graph "
        f"declared it as {_kind(known)}; a key has one reducer: annotate it the same way "
        "in every schema (or as a plain type, which keeps the first one)."
    )


def _kind(channel: Any) -> str:
    operator = getattr(channel, "operator", None)
    if operator is not None:
        kind = f"{type(channel).__name__} with reducer {getattr(operator, '__name__', operator)!r}"
        frequency = getattr(channel, "snapshot_frequency", None)  # (a DeltaChannel's)
        return kind if frequency is None else f"{kind} and snapshot_frequency={frequency}"
    return getattr(channel, "__name__", type(channel).__name__)


def unknown_path_key(
    router: str, choice: Any, path_map: Mapping[Any, str], map_source: str = "path_map"
) -> str:
    fix = "add it there or return one of those"
    keys = [key for key in path_map if isinstance(key, str)]
    if _constant_meant(choice) == "END" and END in path_map:
        fix = _constant_or_slip(choice, keys, verb="return")
    elif slip := _near_miss(choice, keys):
        fix = f"did you mean {slip!r}? Otherwise {fix}"
    return (
        f"{router} returned {choice!r}, which is not a key of its {map_source} "
        f"{sorted(map(str, path_map))}; {fix}."
    )


def unhashable_choice(router: str, choice: Any, path_map: Mapping[Any, str]) -> str:
    """A router returned a value that cannot be a path_map key (a dict, a set)."""
    names = sorted(map(str, path_map))
    update = (
        " It looks like a state update: a node returns one; a router only chooses where to go."
        if isinstance(choice, dict)
        else ""
    )
    return (
        f"{router} returned {choice!r}, a {type(choice).__name__}, which cannot name a "
        f"destination; return the name of the node to run next (one of {names}).{update}"
    )


# -- validating a declared graph ----------------------------------------------------------


def validate(builder: StateGraph) -> None:
    """Raise ValueError for what cannot run; warn about what probably should not."""
    known = set(builder.nodes)
    # (by the names' text: an edge to a function or a number cannot be compared with one to a name)
    for start, end in sorted(builder.edges, key=lambda edge: [str(node) for node in edge]):
        for role, node, outside in (("starts", start, START), ("ends", end, END)):
            if node != outside and node not in known:
                what = f"unknown node {node!r}"
                if not isinstance(node, str):
                    what = f"{shown(node)}, which is not a node's name"
                raise ValueError(
                    f"Edge {shown(start)} -> {shown(end)} {role} at {what}; "
                    f"{unknown_node_fix(node, known)}. Nodes: {some_names(known)}."
                )
    for source, branches in builder.branches.items():
        if source == END:  # (LangGraph: "unknown node '__end__'")
            raise ValueError(
                "A conditional edge cannot start at END: nothing runs after END. Start it "
                "at the node whose result it routes, e.g. add_conditional_edges('my_node', ...)."
            )
        if source != START and source not in known:
            what, fix = f"unknown node {source!r}", f"add_node({source!r}, ...) first"
            if not isinstance(source, str):
                what = f"{shown(source)}, which is not a node's name"
                fix = not_a_node_name(source, known)
            raise ValueError(
                f"Conditional edge starts at {what}; {fix}. Nodes: {some_names(known)}."
            )
        for branch in branches.values():
            for key, target in (branch.path_map or {}).items():
                if not isinstance(target, str):  # (LangGraph: "found unknown target 'None'")
                    raise ValueError(_no_node_target(branch, key, target))
            for key, target in (branch.path_map or {}).items():
                if target != END and target not in known:
                    raise ValueError(_unknown_target(branch, key, target, known))
    _check_destinations(builder, known)
    if START not in _successors(builder):
        raise ValueError(
            "Graph must have an entrypoint: add an edge from START, e.g. "
            f"add_edge(START, {next(iter(builder.nodes), 'my_node')!r})."
        )
    # (a state key may not be the channel Send packets travel in, either)
    for kind, names, reserved in (
        ("State key", builder.channels, RESERVED_NAMES | {TASKS}),
        ("Node", builder.nodes, RESERVED_NAMES),
    ):
        if taken := sorted(reserved.intersection(names)):
            raise ValueError(
                f"{kind} name {taken[0]!r} is reserved by the runtime (LangGraph refuses it "
                "too); rename it."
            )
    _warn_about_suspicious_shapes(builder)


def _no_node_target(branch: Any, key: Any, target: Any) -> str:
    """A path map entry whose value is no node's name (``'empty': None``): name the key,
    and what it can map to instead.

    >>> from graphkit.graph.declaration import Branch
    >>> branch = Branch("triage", len, {"empty": None, "other": "human"}, "route")
    >>> print(_no_node_target(branch, "empty", None).replace("; ", ";\\n"))
    Conditional edge 'route' of 'triage': its path_map maps 'empty' to None, which is no node;
    map 'empty' to END (from graphkit import END) to end the run there, or to the name of a node.
    """
    where = f"Conditional edge {branch.name!r} of {branch.source!r}: its {branch.map_source}"
    if key == target:  # (a list, or a Literal annotation: each name is its own key)
        return (
            f"{where} lists {target!r}, which is no node; list END (from graphkit import "
            "END) or the name of a node instead."
        )
    return (
        f"{where} maps {key!r} to {target!r}, which is no node; map {key!r} to END (from "
        "graphkit import END) to end the run there, or to the name of a node."
    )


def _unknown_target(branch: Any, key: Any, target: str, known: Collection[str]) -> str:
    """A path map entry whose value names no node (``'bug': 'bgu'``): name the key, as
    for a value of None, and the fix (the constant END, a slip, or a node to add).

    >>> from graphkit.graph.declaration import Branch
    >>> branch = Branch("triage", len, {"other": "humna"}, "route")
    >>> print(_unknown_target(branch, "other", "humna", ["bug", "human"]).replace("; ", ";\\n"))
    Conditional edge 'route' of 'triage': its path_map maps 'other' to unknown node 'humna';
    fix its path_map (did you mean 'human'?) or add_node('humna', ...).
    """
    where = f"Conditional edge {branch.name!r} of {branch.source!r}: its {branch.map_source}"
    # (a list, or a Literal annotation: each name is its own key)
    node = f"unknown node {target!r}"
    entry = f"lists {node}" if key == target else f"maps {key!r} to {node}"
    fix = f"fix its {branch.map_source} or add_node({target!r}, ...)"
    if constant := _constant_or_slip(target, known):
        fix = constant
    elif slip := _near_miss(target, known):
        fix = f"fix its {branch.map_source} (did you mean {slip!r}?) or add_node({target!r}, ...)"
    return f"{where} {entry}; {fix}."


def _check_destinations(builder: StateGraph, known: set[str]) -> None:
    """A node's declared ``destinations`` (or ``-> Command[Literal[...]]``) must name
    nodes, as in LangGraph."""
    for name, declaration in builder.nodes.items():
        destinations = declaration.destinations
        if destinations is not None and not isinstance(destinations, (tuple, Mapping)):
            raise TypeError(  # (LangGraph's, here too: "'int' object is not iterable")
                f"add_node({name!r}, ..., destinations={shown(destinations)}): give the nodes "
                "it may go to as a tuple of names, e.g. destinations=('a', 'b'), or a dict "
                "of names to edge labels."
            )
        for target in destinations or ():
            if isinstance(target, (list, set, dict)):  # (LangGraph's: "unhashable type")
                raise TypeError(
                    f"add_node({name!r}, ..., destinations=...) lists {shown(target)}; give "
                    "one flat tuple of node names, e.g. destinations=('a', 'b')."
                )
            if target != END and target not in known:
                fix = "fix its destinations (or its Command[Literal[...]] annotation) or "
                fix += f"add_node({target!r}, ...)"
                if not isinstance(target, str):
                    fix = not_a_node_name(target, known)
                raise ValueError(
                    f"Node {name!r} declares destination {shown(target)}, which is not a "
                    f"node; {fix}. Nodes: {some_names(known)}."
                )


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


def _warn_about_suspicious_shapes(builder: StateGraph) -> None:
    """Warn about a node named like a state key, and about nodes nothing leads to."""
    for node in builder.nodes:
        if node in builder.channels:
            warn(
                f"Node {node!r} has the same name as a state key; updates and the drawn "
                "graph are easy to misread. Consider renaming the node."
            )
    successors, seen, frontier = _successors(builder), {START}, [START]
    while frontier:
        new = successors.get(frontier.pop(), set()) - seen
        seen |= new
        frontier += new
    for node in builder.nodes:
        if node not in seen:
            warn(
                f"Node {node!r}: nothing leads to it from START (no edge, conditional edge "
                "or declared destination), so it runs only if a Command(goto=...) or a "
                "Send(...) goes there unannounced, and the drawing shows no way in. Add an "
                f"edge to it, e.g. "
                f"add_edge(START, {node!r}); if a node reaches it with Command(goto=...) "
                "or a router with Send(...), declare that: add_node(..., destinations=(...)) "
                "or annotate the node -> Command[Literal[...]]."
            )


def _successors(builder: StateGraph) -> dict[str, set[str]]:
    """Where each node (and START) may lead: edges, routes and declared destinations."""
    successors: dict[str, set[str]] = {}
    for start, end in builder.edges:
        successors.setdefault(start, set()).add(end)
    for starts, end in builder.waiting_edges:
        for start in starts:
            successors.setdefault(start, set()).add(end)
    for source, branches in builder.branches.items():
        for branch in branches.values():
            targets = branch.targets()
            successors.setdefault(source, set()).update(
                builder.nodes if targets is None else targets
            )
    handles_all = builder.default_error_handler is not None
    for name, declaration in builder.nodes.items():
        successors.setdefault(name, set()).update(declaration.destinations or ())
        if declaration.error_handler is not None:  # a failure leads to its handler
            successors[name].add(declaration.error_handler)
        if declaration.is_error_handler and not declaration.destinations:
            successors[name].update(builder.nodes)  # its Command may go anywhere
    if handles_all:  # the default handler's Command may go anywhere
        for name in builder.nodes:
            successors[name].update(builder.nodes)
    return successors


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


# -- deprecated: CompiledGraph.config_schema() ------------------------------------------


def legacy_config_model(
    graph_name: str, context_schema: Any, include: Sequence[str], method: str = "config_schema"
) -> Any:
    """What LangGraph's deprecated ``compiled.config_schema()`` returns: a pydantic model
    named ``<graph name>Config`` with a ``configurable`` field typed by the context schema
    (when there is one) and the RunnableConfig keys named in ``include``. It warns
    ``LangGraphDeprecatedSinceV10`` (in LangGraph's words for ``method``, the deprecated
    method called); read ``compiled.context_schema`` instead. Needs pydantic
    (``pip install graphkit[agents]``)."""
    replacement = "for the relevant schema " if method == "config_schema" else ""
    warn(
        f"`{method}` is deprecated. Use `get_context_jsonschema` {replacement}instead. "
        "(Configuration moved to the context schema: read compiled.context_schema, given "
        "as StateGraph(..., context_schema=...).)",
        LangGraphDeprecatedSinceV10,
    )
    try:
        from pydantic import create_model
    except ImportError as missing:  # pragma: no cover - pydantic comes with the extra
        raise ImportError(
            "compiled.config_schema() builds a pydantic model: pip install graphkit[agents], "
            "or read the context schema (compiled.builder.context_schema) instead."
        ) from missing
    fields: dict[str, Any] = {}
    if context_schema is not None:
        fields["configurable"] = (context_schema, None)
    keys = [key for key in include if key != "configurable"]
    if keys:
        from typing import get_type_hints

        from langchain_core.runnables import RunnableConfig

        hints = get_type_hints(RunnableConfig)
        fields |= {key: (hints[key], None) for key in keys if key in hints}
    suffix = "Config" if graph_name[:1].isupper() else "_config"
    return create_model(graph_name + suffix, **fields)


def sync_timeout(node: str) -> ValueError:
    """A ``timeout=`` on a node whose code is sync (LangGraph's message, and the fix)."""
    return ValueError(
        "Node timeouts are only supported for async nodes because sync Python execution "
        f"cannot be safely cancelled in-process. Node {node!r} is sync. Make it "
        "`async def`, or drop its `timeout=` (the run's `step_timeout` bounds a whole step)."
    )


def timeout_policy(where: str, value: Any) -> Any:
    """``value`` as a ``TimeoutPolicy`` (None for no limit), or a ``ValueError`` that
    names ``where`` it was given."""
    from graphkit.types import TimeoutPolicy

    try:
        return TimeoutPolicy.coerce(value)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None


def handler_exists(node: str, handler: str) -> str:
    return (
        f"add_node({node!r}, ..., error_handler=...): a node named {handler!r} (the name "
        "graphkit gives the handler, as LangGraph does) already exists. Rename that node."
    )
