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

from graphkit.course.checking import Wrong, counted, exercise, trace

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
        run = trace(app, {"text": text}, _thread(user), context=Who(user))
        got = _profile_of(store, user)
        where = f"After thread {n} ({user} said {text!r})"
        if got is None:
            kept = sorted("/".join(ns) for ns in store.list_namespaces())
            state = {k: v for k, v in run.values.items() if k not in Chat.__annotations__}
            said = (
                f"the store held {', '.join(kept)}, but nothing for {user} where the "
                f"check looks: key 'profile' in users/{user}/profile"
                if kept
                else "the store was empty"
            )
            if state:
                said += f"; your node wrote {state} to the thread's state"
            raise Wrong(
                f"{where}, {said}. A new thread of {user}'s, in the check, found nothing "
                "to greet them with.",
                "The state (and its checkpoints) belongs to one thread; what another "
                "thread of the same user must find goes in the store, in a namespace of "
                "that user's (section 2).",
            )
        others = {u: _profile_of(store, u) for u in expected if u != user}
        if got != expected[user]:
            lost = {k: v for k, v in expected[user].items() if got.get(k) != v}
            if any(p == got for p in others.values()) or any(
                v in expected.get(u, {}).values() for u in others for v in got.values()
            ):
                raise Wrong(
                    f"{where}, {user}'s profile was {got}: it holds another user's facts.",
                    "Each user needs a namespace of their own: build it from the run's "
                    "context, not from a name written in the code.",
                )
            raise Wrong(
                f"{where}, {user}'s profile was {got}, not {expected[user]}: it lost "
                f"{lost}, told on an earlier thread.",
                "A put replaces the whole value under its key. Read what the profile "
                "holds first, and put it back with the new fact added.",
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
        run = trace(app, {"text": "what should I avoid?"}, _thread(user), context=Who(user))
        expected = sorted(what for what, kind in memories if kind == "allergy")
        got = run.values.get("avoid")
        if got != expected:
            mine = {what: kind for what, kind in memories}
            words = [w for w in got if isinstance(w, str)] if isinstance(got, list) else []
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
            raise Wrong(f"For {user}, your node returned avoid={got!r}, but {said}.", hint)
        searches = run.to_frame("store").query("op == 'search'")
        filtered = [g for g in searches["given"] if isinstance(g, dict) and g.get("filter")]
        if not filtered:
            read = counted(len(memories), "memory")
            raise Wrong(
                f"For {user}, the answer was right, but your search brought back every "
                f"memory ({read}) and your code picked the allergies: the store table shows "
                "a search with no filter.",
                "Let the store leave out what you do not want: search takes a filter "
                "on the item's fields (section 1).",
            )
    return (
        "For each user, one search in their own namespace, filtered on the kind, brought "
        "back their allergies only."
    )


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
        why = (
            "the replay's state is the one saved in the checkpoint it started from, not "
            "the thread's latest"
            if state_visits > state_truth
            else "visit ran again in the replay, on the checkpoint's state"
        )
        wrong.append(
            f"state_visits: you said {state_visits}, too "
            f"{'many' if state_visits > state_truth else 'few'}: {why}"
        )
        hints.append(
            "a replay starts from the checkpoint you pick and runs the nodes after it "
            "again (lesson 07)"
        )
    if store_visits != store_truth:
        why = (
            "no replay rewinds the store, and visit's code ran again"
            if store_visits < store_truth
            else "the store counted each time visit's code ran, and no more"
        )
        wrong.append(
            f"store_visits: you said {store_visits}, too "
            f"{'few' if store_visits < store_truth else 'many'}: {why}"
        )
        hints.append(
            "the store is outside the checkpoints: a put stays, and a node that runs "
            "again puts again"
        )
    if wrong:
        raise Wrong("; ".join(wrong) + ".", "Remember: " + "; ".join(hints) + ".")
    return (
        f"The replay rewound the state to the checkpoint (visits {state_truth}) but not the "
        f"store, where visit's put counted on ({store_truth})."
    )
