"""Checks for lesson 14 · Long-term memory: the Store, outside the superstep.

Each check runs the learner's node (or program) on the real runtime, with a store, users
and threads of its own, then reads the store back and the records of each run (the
``store`` table: which step searched, with what filter). A hard-coded answer cannot pass.

>>> from graphkit.course.solutions import lesson14 as solutions
>>> bool(check_profile(solutions.remember))
True
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any, TypedDict

from graphkit.course.checking import Wrong, exercise, trace

__all__ = [
    "Chat",
    "Who",
    "check_allergies",
    "check_profile",
    "check_time_travel",
    "parse_fact",
    "visits_program",
]


@dataclass
class Who:
    """The run's context: who is talking (``invoke(..., context=Who("ada"))``)."""

    user_id: str


class Chat(TypedDict, total=False):
    text: str
    reply: str
    avoid: list[str]


FACTS = {
    "name": re.compile(r"my name is (\w+)", re.I),
    "city": re.compile(r"i live in (\w+)", re.I),
}


def parse_fact(text: str) -> tuple[str, str] | None:
    """``("name", "Zoe")`` for "My name is Zoe", ``("city", "Lima")`` for "I live in Lima",
    None for anything else.

    >>> parse_fact("My name is Zoe"), parse_fact("I live in Lima"), parse_fact("hi")
    (('name', 'Zoe'), ('city', 'Lima'), None)
    """
    for field, pattern in FACTS.items():
        if found := pattern.search(text):
            return field, found[1]
    return None


def _ops(run: Any, node: str) -> list[Any]:
    """Every store operation ``node``'s tasks made in ``run`` (``StoreOp``): on any
    graphkit store, the run's or another (each reports to the task calling it)."""
    steps = (step.execution for step in run.steps if step.execution is not None)
    results = (result for execution in steps for result in execution.results)
    return [op for result in results if result.task.node == node for op in result.store_ops]


def _node(answer: Any, name: str) -> Any:
    """The learner's node, or ``Wrong`` saying what it is instead."""
    if not callable(answer):
        raise Wrong(
            f"{name} is {answer!r}, not a function: give the node itself.",
            f"Pass the function you wrote, {name}, without calling it.",
        )
    return answer


def _app(node: Any, name: str, store: Any, after: Any = None) -> Any:
    """START → ``node`` (→ ``after``), with a checkpointer, ``store`` and ``Who`` as its
    context."""
    from graphkit import START, InMemorySaver, StateGraph

    builder = StateGraph(Chat, context_schema=Who)
    builder.add_node(name, node)
    builder.add_edge(START, name)
    if after is not None:
        builder.add_node("greet", after)
        builder.add_edge(name, "greet")
    return builder.compile(checkpointer=InMemorySaver(), store=store)


_threads = itertools.count(1)


def _thread(label: str) -> dict:
    return {"configurable": {"thread_id": f"check-14-{next(_threads)}-{label}"}}


def _turn(app: Any, text: str, user: str) -> Any:
    """One turn of ``user`` on a new thread, traced; a run that failed on a wrong turn
    toward the user or the store gets a hint (Python's error alone has none)."""
    try:
        return trace(app, {"text": text}, _thread(user), context=Who(user))
    except Wrong as failed:
        error, hint = failed.__cause__, ""
        said = str(error)
        if isinstance(error, KeyError) and error.args == ("user_id",):
            hint = (
                "The user's id is in neither the state nor config['configurable']: it is the "
                "run's context, runtime.context.user_id (a parameter runtime: Runtime[Who], "
                "section 2)."
            )
        elif isinstance(error, TypeError) and "'Who' object is not subscriptable" in said:
            hint = (
                "runtime.context is the Who the run was given, not a dict: read its field "
                "as an attribute, runtime.context.user_id."
            )
        elif isinstance(error, AttributeError) and "'str' object has no attribute 'items'" in said:
            hint = (  # (search's filter, given as a str)
                "search's filter is a dict, not a str: filter={field: value} keeps the items "
                "whose value has that field equal to that value."
            )
        elif isinstance(error, AttributeError) and "'NoneType'" in said:
            hint = (
                "store.get returns None where nothing was put yet: a user's first fact finds "
                "no profile to add to."
            )
        if not hint:
            raise
        raise Wrong(failed.message, hint) from error


def _spelt_out(run: Any, node: str, last: str) -> Wrong | None:
    """``Wrong`` for a namespace given as a str, which a store (LangGraph's too) takes
    as the tuple of its letters: ``"users"`` becomes ``("u", "s", "e", "r", "s")``."""
    for op in _ops(run, node):
        labels = op.namespace
        if len(labels) > 1 and all(isinstance(x, str) and len(x) == 1 for x in labels):
            return Wrong(
                f"Your node's {op.kind} was given a namespace as a str, {''.join(labels)!r}, "
                f"read letter by letter: {'/'.join(labels)}.",
                'A namespace is a tuple of labels, one per level: ("users", '
                f'runtime.context.user_id, "{last}"), with commas, not one str with slashes.',
            )
    return None


# -- 14.1 · a profile kept across threads ------------------------------------------------

PROFILE = ("users", "{user}", "profile")


def _profile_of(store: Any, user: str) -> dict | None:
    item = store.get(("users", user, "profile"), "profile")
    return None if item is None else item.value


def _greet(state: Chat, runtime: Any) -> dict:
    """The check's own node, on another thread: what does it find of the user?"""
    profile = _profile_of(runtime.store, runtime.context.user_id) or {}
    return {"reply": f"hello {profile.get('name', '?')} from {profile.get('city', '?')}"}


@exercise("14.1 · A profile kept across threads")
def check_profile(remember: Any) -> str:
    """``remember(state, runtime)`` keeps the fact in ``state["text"]`` (``parse_fact``)
    in the user's profile: one item, key ``"profile"``, in namespace ``("users",
    <user_id>, "profile")``, with the facts told before kept. Tried with two users, each
    telling one fact per thread."""
    from graphkit.store.memory import InMemoryStore

    node = _node(remember, "remember")
    store = InMemoryStore()
    app = _app(node, "remember", store, after=_greet)
    told = [("zoe", "My name is Zoe"), ("max", "I live in Quito"), ("zoe", "I live in Lima")]
    told += [("max", "My name is Max")]
    expected: dict[str, dict] = {}
    for n, (user, text) in enumerate(told, 1):
        field, value = parse_fact(text)  # type: ignore[misc]
        expected.setdefault(user, {})[field] = value
        run = _turn(app, text, user)
        got = _profile_of(store, user)
        where = f"After thread {n} ({user} said {text!r})"
        if got is None and (spelt := _spelt_out(run, "remember", "profile")):
            raise spelt
        if got is None:
            kept = sorted(
                f"{'/'.join(ns)} · {item.key}"
                for ns in store.list_namespaces()
                for item in store.search(ns)
            )
            state = {k: v for k, v in run.values.items() if k not in Chat.__annotations__}
            said = (
                f"the store held {', '.join(kept)}, but nothing for {user} where the "
                f"check looks: key 'profile' in users/{user}/profile"
                if kept
                else "the store was empty"
            )
            puts = [op for op in _ops(run, "remember") if op.kind == "put"]
            if not kept and puts:  # (every graphkit store a task calls reports to it)
                said += (
                    f", though your node made a put ({puts[0].kind} "
                    f"{'/'.join(puts[0].namespace)} · {puts[0].key}): it went to another "
                    "store, not the one the run gives your node (runtime.store)"
                )
            elif not kept and _ops(run, "remember"):
                said += ": your node read the run's store but put nothing in it"
            elif not kept:
                said += (
                    ": your node made no call on the run's store (the check gives it a "
                    "store of its own, as runtime.store)"
                )
            if state:
                said += f"; your node wrote {state} to the thread's state"
            hint = (
                "The state (and its checkpoints) belongs to one thread; what another "
                "thread of the same user must find goes in the store, in a namespace of "
                "that user's (section 2)."
            )
            if kept:  # (it did use the store: the namespace or the key is the miss)
                hint = (
                    'The check reads one item per user: key "profile" in the namespace '
                    '("users", <user id>, "profile"), the user id from the run\'s context '
                    "(runtime.context.user_id, section 2)."
                )
            elif puts:
                hint = "Put the profile in runtime.store, the store the graph was compiled with."
            raise Wrong(
                f"{where}, {said}. A new thread of {user}'s, in the check, found nothing "
                "to greet them with.",
                hint,
            )
        others = {u: _profile_of(store, u) for u in expected if u != user}
        if got != expected[user]:
            profile = got if isinstance(got, dict) else {}
            lost = {k: v for k, v in expected[user].items() if profile.get(k) != v}
            if any(p == got for p in others.values()) or any(
                v in expected.get(u, {}).values() for u in others for v in got.values()
            ):
                raise Wrong(
                    f"{where}, {user}'s profile was {got}: it holds another user's facts.",
                    "Each user needs a namespace of their own: build it from the run's "
                    "context, not from a name written in the code.",
                )
            if field in lost or not isinstance(got, dict):  # (this thread's fact: kept otherwise)
                raise Wrong(
                    f"{where}, {user}'s profile was {got}, not {expected[user]}: the fact "
                    f"just told, {field} = {value!r}, is not in it as parse_fact gives it.",
                    "The profile is one dict of field → value, the pair parse_fact returns "
                    f"put in as it is: profile[field] = value ({{{field!r}: {value!r}}}).",
                )
            raise Wrong(
                f"{where}, {user}'s profile was {got}, not {expected[user]}: it lost "
                f"{lost}, told on an earlier thread.",
                "A put replaces the whole value under its key. Read what the profile "
                "holds first, and put it back with the new fact added.",
            )
        if not any(op.kind == "put" for op in _ops(run, "remember")):
            raise Wrong(
                f"{where}, {user}'s profile held the new fact, but your node made no put: it "
                "changed the profile get returned, in place, with no put. The in-memory store "
                "hands out the very dict it keeps, so the change showed; a store kept on disk "
                "(SqliteStore, say) hands out a copy, and the fact would be lost.",
                "Put the profile back once the fact is in it: runtime.store.put(namespace, "
                '"profile", profile).',
            )
        reply = run.values.get("reply")
        if reply != f"hello {got.get('name', '?')} from {got.get('city', '?')}":
            raise Wrong(
                f"{where}, the check's greet node, run after yours, replied {reply!r}.",
                "Return a dict of state updates from your node (an empty one is fine).",
            )
    return (
        "Each user's facts met in one profile, found from every thread of theirs and by "
        "no other user: zoe's is {'name': 'Zoe', 'city': 'Lima'}."
    )


# -- 14.2 · recall with a filter ---------------------------------------------------------

MEMORIES = {
    "ada": [("tea", "like"), ("nuts", "allergy"), ("jazz", "like"), ("shellfish", "allergy")],
    "bo": [("milk", "allergy"), ("chess", "like")],
    "cy": [("football", "like")],
}


@exercise("14.2 · Recall with a filter")
def check_allergies(recall: Any) -> str:
    """``recall(state, runtime)`` returns ``{"avoid": [...]}``: what the run's user is
    allergic to, sorted, from the memories in ``("users", <user_id>, "memories")`` (each
    ``{"what": ..., "kind": "like" | "allergy"}``), asking the store for the allergies
    only (a search with a filter). Tried with three users of the check's own."""
    from graphkit.store.memory import InMemoryStore

    node = _node(recall, "recall")
    store = InMemoryStore()
    for user, memories in MEMORIES.items():
        for what, kind in memories:
            store.put(("users", user, "memories"), what, {"what": what, "kind": kind})
    app = _app(node, "recall", store)
    for user, memories in MEMORIES.items():
        run = _turn(app, "what should I avoid?", user)
        expected = sorted(what for what, kind in memories if kind == "allergy")
        got = run.values.get("avoid")
        if got != expected and (spelt := _spelt_out(run, "recall", "memories")):
            raise spelt
        if got != expected:
            mine = {what: kind for what, kind in memories}
            listed = isinstance(got, list | tuple | set | frozenset)
            words = [w for w in got if isinstance(w, str)] if listed else []
            if not isinstance(got, list) and words and sorted(words) == expected:
                raise Wrong(
                    f"For {user}, your node returned avoid={got!r}: the right allergies, "
                    f"as a {type(got).__name__}.",
                    f"Return them as a sorted list: sorted(...) gives one, {expected!r}.",
                )
            strangers = [w for w in words if w not in mine]
            likes = [w for w in words if mine.get(w) == "like"]
            if strangers:
                verb = "is" if len(strangers) == 1 else "are"
                said = f"{', '.join(strangers)} {verb} another user's"
                hint = "Search in this user's namespace only: the run's context names the user."
            elif likes:
                said = f"{', '.join(likes)} {'is' if len(likes) == 1 else 'are'} only liked"
                hint = "The memories say what kind they are: ask search for one kind only."
            else:
                said = f"{user}'s allergies are {expected}"
                hint = "Return {'avoid': [...]}: the 'what' of each allergy, sorted."
                if not words:  # (nothing found: another store, or another namespace?)
                    hint = (
                        "Search the run's store (runtime.store: the check fills it) in "
                        "the user's memories, and return the 'what' of each allergy, sorted."
                    )
                if not words and (empty := _found_nothing(run, user)):  # (or the filter?)
                    said = (
                        f"your search of users/{user}/memories with filter {empty!r} found nothing"
                    )
                    hint = (
                        "A filter keeps the items whose fields equal its values: each "
                        "memory's kind is 'like' or 'allergy'."
                    )
            raise Wrong(f"For {user}, your node returned avoid={got!r}, but {said}.", hint)
        searches = [op for op in _ops(run, "recall") if op.kind == "search"]
        mine = ("users", user, "memories")
        if wide := [op for op in searches if op.namespace != mine]:
            where = "/".join(wide[0].namespace) or "the whole store"
            raise Wrong(
                f"For {user}, the answer was right, but your node searched {where}: the "
                "store handed it other users' memories, which it had to sort out itself.",
                "Search in this user's namespace only: the run's context names the user.",
            )
        allergies = {what for what, kind in memories if kind == "allergy"}
        wasted = [op for op in searches if set(op.returned or ()) - allergies]
        found = [op for op in searches if op.returned and set(op.returned) <= allergies]
        if wasted and found and isinstance(given := wasted[0].given, dict) and given.get("filter"):
            others = ", ".join(k for k in wasted[0].returned if k not in allergies)
            raise Wrong(
                f"For {user}, the answer was right, but your node searched {len(searches)} "
                f"times: your search with filter {given['filter']!r} brought back {others}, "
                "which the answer does not use.",
                "One search, filtered on the allergies, is all recall needs.",
            )
        if more := [k for op in searches for k in op.returned or () if k not in allergies]:
            found = len({k for op in searches for k in op.returned or ()})
            unfiltered = not all(
                isinstance(op.given, dict) and op.given.get("filter") for op in searches
            )
            raise Wrong(
                f"For {user}, the answer was right, but your search"
                f"{' (with no filter)' if unfiltered else ''} brought back {found} "
                f"{'memory' if found == 1 else 'memories'}, {', '.join(dict.fromkeys(more))} "
                "among them, and your code picked the allergies: the store table shows what "
                "each search returned.",
                "Let the store leave out what you do not want: search takes a filter "
                "on the item's fields (section 1).",
            )
    return (
        "For each user, one search in their own namespace, filtered on the kind, brought "
        "back their allergies only."
    )


def _found_nothing(run: Any, user: str) -> Any:
    """The filter of a search of ``user``'s memories that matches none of them (a kind
    misspelt), if the node made one; a filter that matches some, searched in a store that
    found nothing, is another store's fault."""
    mine = ("users", user, "memories")
    memories = [{"what": what, "kind": kind} for what, kind in MEMORIES[user]]
    for op in _ops(run, "recall"):
        given = op.given if isinstance(op.given, dict) else {}
        wanted = given.get("filter")
        if op.kind != "search" or op.namespace != mine or not isinstance(wanted, dict):
            continue
        if any(isinstance(value, dict) for value in wanted.values()):
            continue  # (an operator such as $ne: not a misspelt value)
        if wanted and not any(all(m.get(k) == v for k, v in wanted.items()) for m in memories):
            return wanted
    return None


# -- 14.3 · what time travel rewinds ----------------------------------------------------


def visits_program() -> tuple[Any, Any]:
    """A graph of one node, ``visit``, that counts a user's visits twice: in the thread's
    state (``visits``) and in the store (item ``("visits", <user_id>)`` / ``"count"``);
    and its store."""
    from graphkit import START, InMemorySaver, Runtime, StateGraph
    from graphkit.store.memory import InMemoryStore

    class Visits(TypedDict, total=False):
        visits: int

    def visit(state: Visits, runtime: Runtime[Who]) -> dict:
        where = ("visits", runtime.context.user_id)
        saved = runtime.store.get(where, "count")
        runtime.store.put(where, "count", {"n": (saved.value["n"] if saved else 0) + 1})
        return {"visits": state.get("visits", 0) + 1}

    builder = StateGraph(Visits, context_schema=Who)
    builder.add_node("visit", visit)
    builder.add_edge(START, "visit")
    store = InMemoryStore()
    return builder.compile(checkpointer=InMemorySaver(), store=store), store


def replay_second_visit() -> tuple[int, int]:
    """Three visits on one thread, then a replay from the checkpoint before the second
    visit ran: the state's count and the store's, after it."""
    app, store = visits_program()
    config, ada = {"configurable": {"thread_id": "visits"}}, Who("ada")
    for _ in range(3):
        app.invoke({}, config, context=ada)
    befores = [s for s in app.get_state_history(config) if s.next == ("visit",)]
    app.invoke(None, befores[-2].config, context=ada)  # (newest first: the 2nd visit's)
    return app.get_state(config).values["visits"], store.get(("visits", "ada"), "count").value["n"]


@exercise("14.3 · What time travel rewinds")
def check_time_travel(state_visits: Any, store_visits: Any) -> str:
    """After three visits and a replay from the checkpoint before the second ``visit``
    ran: ``state_visits``, the thread's ``visits``; ``store_visits``, the store's count.
    Judged against the runtime: the check runs the program."""
    for name, value in (("state_visits", state_visits), ("store_visits", store_visits)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise Wrong(f"{name} is {value!r}; give a whole number.", "Count the visits.")
    state_truth, store_truth = replay_second_visit()
    wrong, hints = [], []
    if state_visits != state_truth:
        wrong.append(f"state_visits is not {state_visits}")
        hints.append(_state_hint(state_visits, state_truth))
    if store_visits != store_truth:
        wrong.append(f"store_visits is not {store_visits}")
        hints.append(_store_hint(store_visits, state_truth))
    if wrong:
        # (which one is wrong, and why that guess is tempting: never "too few", which
        # with numbers this small hands the answer over in a try or two)
        raise Wrong("; ".join(wrong) + ".", " ".join(hints))
    return (
        f"The replay rewound the state to the checkpoint (visits {state_truth}) but not the "
        f"store, where visit's put counted on ({store_truth})."
    )


VISITS = 3
"""How many visits ``replay_second_visit`` makes before its replay."""


def _state_hint(said: int, truth: int) -> str:
    """Why ``said`` is a tempting wrong count of the thread's ``visits``."""
    if said == VISITS:  # the count before the replay
        return (
            "The replay's run is saved on the thread too: get_state reads the newest "
            "checkpoint, the one the replayed visit made."
        )
    if said > VISITS:  # the replay counted on from the latest state
        return (
            "A replay starts from the checkpoint you pick, on the state saved in it, not "
            "on the thread's latest state."
        )
    if said == truth - 1:  # the checkpoint's own count
        return "A replay runs the nodes after the checkpoint again (lesson 07)."
    return (
        "A replay starts from the checkpoint you pick, on the state saved in it, and runs "
        "the nodes after it again (lesson 07)."
    )


def _store_hint(said: int, state: int) -> str:
    """Why ``said`` is a tempting wrong count in the store."""
    if said == VISITS:  # as if the replay left the store alone
        return "In the replay, visit's code ran again: its get and its put too."
    if said <= state:  # as if the store went back with the state
        return "No checkpoint holds the store, so no replay rewinds it: a put stays."
    return "The store counts each time visit's code ran, the replay's included, and no more."
