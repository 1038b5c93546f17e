"""Solutions to lesson 14 · Long-term memory: the Store, outside the superstep.

>>> from graphkit.course import lesson14
>>> bool(lesson14.check_allergies(recall)), bool(lesson14.check_time_travel(**REPLAY_ANSWERS))
(True, True)
"""

from __future__ import annotations

from graphkit import Runtime
from graphkit.course.lesson14 import Chat, Who, parse_fact

__all__ = ["REPLAY_ANSWERS", "recall", "remember"]


def remember(state: Chat, runtime: Runtime[Who]) -> dict:
    """14.1: read the user's profile (if any), add the fact, put the whole profile back
    in a namespace of that user's, so every thread of theirs finds it."""
    fact = parse_fact(state["text"])
    if fact is not None:
        where = ("users", runtime.context.user_id, "profile")
        saved = runtime.store.get(where, "profile")
        profile = dict(saved.value) if saved is not None else {}
        profile[fact[0]] = fact[1]
        runtime.store.put(where, "profile", profile)
    return {}


def recall(state: Chat, runtime: Runtime[Who]) -> dict:
    """14.2: one search in the user's namespace, which leaves out all but the allergies."""
    where = ("users", runtime.context.user_id, "memories")
    found = runtime.store.search(where, filter={"kind": "allergy"})
    return {"avoid": sorted(item.value["what"] for item in found)}


# 14.3: the replay starts from the checkpoint before the second visit (state: 1 visit)
# and runs visit again (2); the store is not rewound: 3 visits, and the replay's put (4).
REPLAY_ANSWERS = {"state_visits": 2, "store_visits": 4}
