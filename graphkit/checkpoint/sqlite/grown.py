"""Reading a list that grew: decode only what a newer blob added to the one read before.

A reducer field such as ``Annotated[list, operator.add]`` (or ``add_messages``) saves
its whole list at every step, so the blobs of a thread's checkpoints repeat each other:
step 2,000's holds the 1,999 items of step 1,999's, then one more. Reading a history
decoded every blob whole, 2,000 items 2,000 times over. ``GrownLists`` remembers, per
thread and channel, the JSON text of the last list it decoded and the list; a blob
that is that text with more items after it is decoded as the list plus its new items.

This holds for JSON because a list's text is its items' texts, each read on its own,
between commas: ``[1,2]`` then ``[1,2,3]`` reads as ``[1, 2] + [3]``. The bytes are
compared, not the values, so a list whose earlier items changed, even to equal ones, is
decoded whole; and the blobs compared are the ones the saver checked against their
hashes. A list is kept only with the serializer that read it, and only if every
class it names was built: one read back as plain data (its module not imported, or not
allowed) would be built by a later read, so keeping it would mix the two in one list.
The lists kept are the saver's own (readers get copies): the new list shares
its earlier items with the one kept, as two checkpoints of an in-memory thread share
unchanged values; a long list of atoms is kept as an ``AtomRope``
(``graphkit.checkpoint.copies``), which grows without a copy of the whole list and
whose reader's copy needs no check.

>>> from graphkit.checkpoint.serde import JsonPlusSerializer
>>> lists, serde = GrownLists(), JsonPlusSerializer()
>>> first = lists.read(("t", "", "log"), ("json", b"[1,2]"), serde)
>>> lists.read(("t", "", "log"), ("json", b"[1,2,3]"), serde), lists.grown
([1, 2, 3], 1)
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from graphkit.checkpoint.copies import AtomRope, all_atoms, atom_rope
from graphkit.checkpoint.serde import is_json_plus

__all__ = ["GrownLists"]


class GrownLists:
    """The last list decoded per (thread, namespace, channel), as JSON text and value;
    ``read`` decodes a blob, reusing it when the blob only adds items. Bounded: the
    ``limit`` keys read most recently. Only for the default serializer's blobs, whose
    JSON is written and read item by item (``is_json_plus``: not a subclass's)."""

    def __init__(self, limit: int = 64) -> None:
        self.limit = limit
        self.grown = 0  # blobs read as a kept list plus new items
        # key -> (the kept list's text without its closing "]", then ","; the list; the
        # serializer that read it)
        self._kept: OrderedDict[tuple[str, ...], tuple[bytes, Any, Any]] = OrderedDict()

    def read(
        self,
        key: tuple[str, ...],
        typed: tuple[str, Any],
        serde: Any,
        load: Callable[[Any], Any] | None = None,
    ) -> Any:
        """The value of blob ``typed``, written by ``serde``: ``load(typed)`` (by default
        ``serde.loads_typed``), or the list kept for ``key`` plus the items the blob adds
        (decoded by ``load`` too)."""
        load = serde.loads_typed if load is None else load
        kind, data = typed
        if kind != "json" or type(data) is not bytes or not is_json_plus(serde):
            return load(typed)
        kept, value = self._kept.get(key), None
        read_as_data = serde.classes_read_as_data
        if (
            kept is not None
            and kept[2] is serde  # (a copy with a wider allow-list builds more classes)
            and data.startswith(kept[0])
            and data.endswith(b"]")
        ):
            try:  # (the new items alone are a list's text once given their "[")
                added = load(("json", b"[" + data[len(kept[0]) :]))
            except Exception:  # (malformed: read whole, for the error that names it)
                added = None
            if type(added) is list and added:
                value, self.grown = _joined(kept[1], added), self.grown + 1
        if value is None:
            value = atom_rope(load(typed))
        if serde.classes_read_as_data != read_as_data:  # (see the module's docstring)
            self._kept.pop(key, None)
        elif type(value) in (list, AtomRope) and data.startswith(b"[") and data != b"[]":
            self._kept[key] = (data[:-1] + b",", value, serde)
            self._kept.move_to_end(key)
            while len(self._kept) > self.limit:
                self._kept.popitem(last=False)
        return value

    def forget_thread(self, thread_id: str) -> None:
        for key in [key for key in self._kept if key[0] == thread_id]:
            del self._kept[key]

    def __repr__(self) -> str:
        return f"GrownLists(kept={len(self._kept)}, grown={self.grown})"


def _joined(kept: list | AtomRope, added: list) -> list | AtomRope:
    """``kept + added``: an ``AtomRope`` grown by ``added`` if both hold only atoms
    (``kept`` says so by its type), so that neither the whole list is copied nor a
    reader's copy checks it again."""
    if type(kept) is AtomRope:
        if all_atoms(added):
            return kept.grown(added)
        return kept.head + kept.tail + added
    if len(kept) <= 8:  # (too short to be marked: checked whole, once it is long)
        return atom_rope(kept + added)
    return kept + added
