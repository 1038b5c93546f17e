"""What ``SqliteSaver`` checks in the rows it reads back before it believes them.

A database file can be edited by anyone who can write it, and a disk can lose pages. So
a stored checkpoint row must have fields of the right types, a delta of the right shape,
fields that match the hash written with them, and values (blobs) and pending writes
that match the count and hash written with them. Each check here raises ``RowProblem``
saying what is wrong; the saver adds the thread and checkpoint and raises
``CheckpointDecodeError``.

>>> blob_check([("weather", "json", b'"sunny"')])
(1, 'b51b6dd758564e4c51bc1508e74850d0')
>>> read_delta({"values": [{}, []], "versions": [{"weather": 2}, []], "seen": 5})
Traceback (most recent call last):
...
graphkit.checkpoint.integrity.RowProblem: 'seen' is 5, not [changes, removed keys]
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

__all__ = [
    "Delta",
    "RowProblem",
    "blob_check",
    "check_blobs",
    "check_fields",
    "check_names",
    "check_row",
    "check_writes",
    "read_delta",
    "row_check",
    "write_check",
    "write_hash",
]


class RowProblem(ValueError):
    """What is wrong with a stored row, in words that fit after "checkpoint X of thread Y:"."""


# -- fields ------------------------------------------------------------------------------

_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "checkpoint_id": (str,),
    "parent_id": (str, type(None)),
    "step": (int,),
    "source": (str,),
    "created_at": (int, float),
    "depth": (int,),
}


def check_fields(row: Any) -> None:
    """Refuse a field of ``row`` (any object with these attributes) of the wrong type:
    SQLite keeps text in an INTEGER column.

    >>> from types import SimpleNamespace as Row
    >>> check_fields(Row(step="three"))
    Traceback (most recent call last):
    ...
    graphkit.checkpoint.integrity.RowProblem: its step is 'three' (a str), not an int
    """
    for name, allowed in _FIELD_TYPES.items():
        value = getattr(row, name, allowed[0]())  # a missing field is not checked
        if type(value) not in allowed:
            expected = " or ".join(
                "None" if kind is type(None) else kind.__name__ for kind in allowed
            )
            raise RowProblem(
                f"its {name} is {value!r} (a {type(value).__name__}), not {_a(expected)}"
            )


def check_names(names: Any) -> list[str]:
    """``names`` if it is a list of strings (a row's updated channels).

    >>> check_names(["weather"]), check_names(["weather", 1])
    Traceback (most recent call last):
    ...
    graphkit.checkpoint.integrity.RowProblem: ['weather', 1] is not a list of channel names
    """
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise RowProblem(f"{_short(names)} is not a list of channel names")
    return names


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


# -- deltas ------------------------------------------------------------------------------


class Delta(NamedTuple):
    """A row's delta, checked: each part is (keys set, keys removed)."""

    refs: tuple[dict[str, int], list[str]]  # channel -> seq of the row holding its value
    versions: tuple[dict[str, Any], list[str]]
    seen: tuple[dict[str, dict[str, Any]], list[str]]


def read_delta(delta: Any) -> Delta:
    """Check the shape of a decoded delta (``RowPlan.delta()`` wrote it) and return it.

    >>> read_delta({"values": [{"a": 1}, []], "versions": [{"a": 2}, []], "seen": [{}, []]})
    Delta(refs=({'a': 1}, []), versions=({'a': 2}, []), seen=({}, []))
    """
    if not isinstance(delta, dict):
        raise RowProblem(f"{_short(delta)} is not a dict")
    return Delta(_part(delta, "values"), _part(delta, "versions"), _part(delta, "seen"))


def _part(delta: dict[str, Any], key: str) -> tuple[dict[str, Any], list[str]]:
    part = delta.get(key)
    if not (type(part) is list and len(part) == 2):
        raise RowProblem(f"{key!r} is {_short(part)}, not [changes, removed keys]")
    changes, removed = part
    if not (type(changes) is dict and _VALID[key](changes.values())):
        raise RowProblem(f"{key!r} is {_short(part)}: its changes are not {_MEANING[key]}")
    if not (type(removed) is list and all(type(name) is str for name in removed)):
        raise RowProblem(f"{key!r} is {_short(part)}: its removed keys are not a list of names")
    return changes, removed


# exact types (JSON gives no subclasses), checked without a call per item: a snapshot
# of a 5,000-channel state has 5,000 of each
_VERSION_TYPES = (int, float, str)
_VALID = {
    "values": lambda seqs: all(type(seq) is int for seq in seqs),
    "versions": lambda versions: all(type(version) in _VERSION_TYPES for version in versions),
    "seen": lambda seen: all(
        type(node) is dict and all(type(version) in _VERSION_TYPES for version in node.values())
        for node in seen
    ),
}
_MEANING = {
    "values": "channel -> row number",
    "versions": "channel -> version (a number or a string)",
    "seen": "node -> {channel -> version}",
}


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


# -- values ------------------------------------------------------------------------------


def blob_check(blobs: Iterable[tuple[str, str, Any]]) -> tuple[int, str]:
    """The count and hash of the values a row wrote, ``(channel, type, value)`` each, in
    any order (wherever each is kept: ``graphkit_blobs`` or the row itself). Computed
    from what is written, so a put reads nothing back."""
    rows = sorted(blobs)  # a row's channels differ, so this sorts by channel
    channels, types, values = zip(*rows, strict=True) if rows else ((), (), ())
    values = [value if type(value) is bytes else _bytes(value) for value in values]
    # every length first, so that no two different sets of rows hash the same bytes
    sizes = array("q", [*map(len, channels), *map(len, types), *map(len, values)])
    digest = _ROW_HASH.copy()
    digest.update(sizes.tobytes() + _joined(channels) + _joined(types) + b"".join(values))
    return len(rows), digest.hexdigest()


def _joined(texts: tuple[Any, ...]) -> bytes:
    """The UTF-8 of each of ``texts`` (or its bytes), joined."""
    try:  # (the UTF-8 of the texts joined is that of each, joined)
        return "".join(texts).encode("utf-8", "surrogatepass")
    except TypeError:  # (not all text: a row read back from an edited file)
        return b"".join(map(_bytes, texts))


def _bytes(part: Any) -> bytes:
    return part.encode("utf-8", "surrogatepass") if isinstance(part, str) else bytes(part)


def check_blobs(
    expected: tuple[int | None, str | None], found: Mapping[str, tuple[str, Any]]
) -> None:
    """Refuse values that differ from the ``(count, hash)`` written with them
    (``(None, None)``: a row written before checks existed, taken as it is).

    >>> check_blobs((2, "0" * 32), {"a": ("json", b"1")})
    Traceback (most recent call last):
    ...
    graphkit.checkpoint.integrity.RowProblem: 2 values were written, 1 is left
    """
    count, hash_ = expected
    if count is None and hash_ is None:
        return
    for channel, (type_, value) in found.items():  # what SQLite keeps in any column
        if type(channel) is not str:
            raise RowProblem(f"a value's channel is {_short(channel)}, not text")
        if not (isinstance(type_, (str, bytes)) and isinstance(value, (str, bytes))):
            raise RowProblem(f"the value of {channel!r} holds {_short(value)}, not bytes")
    actual_count, actual_hash = blob_check([(channel, *typed) for channel, typed in found.items()])
    if actual_count != count:
        rows = "value was" if count == 1 else "values were"
        left = "is" if actual_count == 1 else "are"
        raise RowProblem(f"{count} {rows} written, {actual_count} {left} left")
    if actual_hash != hash_:
        raise RowProblem(f"the {count} values were changed after they were written")


# -- the checkpoint row itself -----------------------------------------------------------


def row_check(fields: Iterable[Any]) -> str:
    """The hash of a checkpoint row's fields (text, bytes, numbers or None), in order.

    >>> row_check(["t", 3, None]) == row_check(["t", "3", None])
    False
    """
    return _row_digest(fields).hex()


def _row_digest(fields: Iterable[Any]) -> bytes:
    # Each field is a tag and its text, after the length of both, so that no two rows
    # hash the same bytes; text and bytes share a tag (SQLite gives back whichever was
    # written). The bytes are joined and hashed at once, with the common types tested
    # first: every put hashes its row and its writes, every read each row it meets, and
    # one update call per field cost a third more. Text and bytes, most fields, go in as
    # three pieces (length, tag, payload) rather than joined twice (-30% a hash).
    parts: list[bytes] = []
    add = parts.extend
    for field in fields:
        kind = type(field)
        if kind is str or kind is bytes:
            data = field.encode("utf-8", "surrogatepass") if kind is str else field
            size = len(data) + 6  # (b"bytes:")
            add((_SIZES[size] if size < 256 else size.to_bytes(8, "big"), b"bytes:", data))
            continue
        if kind is int:
            part = b"int:%d" % field
        elif field is None:
            part = b"NoneType:None"
        elif isinstance(field, (str, bytes)):
            part = b"bytes:" + _bytes(field)
        else:
            part = f"{kind.__name__}:{field!r}".encode()
        size = len(part)
        add((_SIZES[size] if size < 256 else size.to_bytes(8, "big"), part))
    digest = _ROW_HASH.copy()
    digest.update(b"".join(parts))
    return digest.digest()


_SIZES = [size.to_bytes(8, "big") for size in range(256)]
_ROW_HASH = hashlib.blake2b(digest_size=16)  # (copied: quicker than parsing the arguments)


def check_row(expected: str | None, fields: Iterable[Any]) -> None:
    """Refuse a row whose fields differ from the hash written with them (``None``: a
    row written before rows were checked, taken as it is).

    >>> check_row(row_check(["t", 3]), ["t", 4])
    Traceback (most recent call last):
    ...
    graphkit.checkpoint.integrity.RowProblem: its fields were changed after they were written
    """
    if expected is not None and row_check(fields) != expected:
        raise RowProblem("its fields were changed after they were written")


# -- pending writes ----------------------------------------------------------------------

WRITE_SUM_MODULUS = 1 << 61
"""Sums of write hashes are kept below this, so that SQLite can add one more to a stored
sum without leaving its 64-bit integers."""


def write_hash(write: Iterable[Any]) -> int:
    """The hash of one pending-write row: every field that says where it belongs and what
    it holds (thread, namespace, checkpoint, task, index, channel, task path, type, value).
    """
    return int.from_bytes(_row_digest(write)[:8], "big") % WRITE_SUM_MODULUS


def write_check(writes: Iterable[Iterable[Any]]) -> tuple[int, int]:
    """The count of a checkpoint's pending-write rows and the sum of their hashes, which a
    put of more writes can extend without reading the earlier ones back.

    >>> write_check([("t", "", "c1", "task", 0, "x", "", "json", b"1")])[0]
    1
    """
    count, total = 0, 0
    for write in writes:
        count, total = count + 1, (total + write_hash(write)) % WRITE_SUM_MODULUS
    return count, total


def check_writes(expected: tuple[int | None, int | None], writes: Iterable[Iterable[Any]]) -> None:
    """Refuse pending-write rows that differ from the ``(count, sum)`` kept with their
    checkpoint (``(None, None)``: a checkpoint written before writes were checked).

    >>> check_writes((2, 0), [])
    Traceback (most recent call last):
    ...
    graphkit.checkpoint.integrity.RowProblem: 2 pending writes were saved, 0 are left
    """
    count, total = expected
    if count is None or total is None:
        return
    actual_count, actual_total = write_check(writes)
    if actual_count != count:
        saved = "pending write was" if count == 1 else "pending writes were"
        left = "is" if actual_count == 1 else "are"
        raise RowProblem(f"{count} {saved} saved, {actual_count} {left} left")
    if actual_total != total:
        raise RowProblem(f"its {count} pending writes were changed after they were saved")
