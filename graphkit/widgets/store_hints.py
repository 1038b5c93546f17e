"""A hint beside a store look-up that found nothing: where the store does keep items.

A memory saved under ``("memories", user_id)`` and searched under ``(user_id,
"memories")`` is never found, and the store tab said only that the search returned
``[]``. The debugger has the graph's store, so for an empty ``search`` or ``get`` it
names the namespaces the store holds now with the same labels in another order (the
usual slip) or with these labels and more, saying which; it cannot know what the store
held at that step. The note is a sentence above the table (``frame.attrs["notes"]``,
which ``frame_html`` shows): in the ``returned`` cell it ran past the table box's edge,
out of view.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

__all__ = ["with_store_hints"]

_EMPTY = ("[]", "None")  # (what ``show`` makes of a search and a get that found nothing)
_MOST = 3


def with_store_hints(frame: pandas.DataFrame, store: Any) -> pandas.DataFrame:
    """``frame`` (a readable store table) with a note for each empty look-up naming the
    store's namespaces that hold its labels otherwise (in ``attrs["notes"]``), its
    ``returned`` cell pointing to it; as it was if none do (or the store cannot list
    its namespaces)."""
    looked = frame["op"].isin(("search", "get")) & frame["returned"].isin(_EMPTY)
    if store is None or not looked.any():
        return frame
    try:
        kept = [tuple(space) for space in store.list_namespaces(limit=1000)]
    except Exception:  # (a store of another kind, or one that is closed: no hint)
        return frame
    frame, notes = frame.copy(), []
    for index in frame.index[looked]:
        row = frame.loc[index]
        asked = tuple(str(row["namespace"]).split("/"))
        near = [space for space in kept if _misordered(asked, space)]
        if near:
            key = f" {row['key']}" if row["op"] == "get" and row["key"] else ""
            notes.append(
                f"step {row['step']}, {row['node']}: {row['op']} {row['namespace']}{key} "
                f"returned {row['returned']}, but the store has {_kept_words(asked, near)}"
            )
            frame.at[index, "returned"] = f"{row['returned']} (see the note above)"
    frame.attrs["notes"] = notes
    return frame


def _kept_words(asked: tuple[str, ...], near: list[tuple[str, ...]]) -> str:
    """The namespaces ``near`` ``asked``, said as what they are: the same labels in
    another order, or these labels and more (a namespace with an extra label is not
    the same labels).

    >>> print(_kept_words(("ada", "memories"), [("memories", "ada")]))
    memories/ada (the same labels, in another order)
    >>> print(_kept_words(("ada", "memories"), [("memories", "ada", "old"), ("memories", "ada")]))
    memories/ada (the same labels, in another order) and memories/ada/old (these labels and more)
    """
    same = [space for space in near if sorted(space) == sorted(asked)]
    more = [space for space in near if sorted(space) != sorted(asked)]
    groups = ((same, "the same labels, in another order"), (more, "these labels and more"))
    said = []
    for spaces, words in groups:
        if spaces:
            named = ", ".join("/".join(space) for space in spaces[:_MOST])
            others = f" and {len(spaces) - _MOST} more" if len(spaces) > _MOST else ""
            said.append(f"{named}{others} ({words})")
    return " and ".join(said)


def _misordered(asked: tuple[str, ...], space: tuple[str, ...]) -> bool:
    """True when ``space`` holds every label of ``asked`` but does not start with them.

    >>> _misordered(("ada", "memories"), ("memories", "ada"))
    True
    >>> _misordered(("ada",), ("ada", "memories")), _misordered(("bob",), ("memories", "ada"))
    (False, False)
    """
    return set(asked) <= set(space) and space[: len(asked)] != asked
