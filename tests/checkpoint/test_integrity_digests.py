"""The integrity hashes are the digests every file already holds: the quicker functions
give the same bytes as the functions graphkit wrote them with (copied below as they
were at a3ad7cd), for any field a row or a crafted file can hold."""

from __future__ import annotations

import hashlib
from array import array
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graphkit.checkpoint.integrity import WRITE_SUM_MODULUS, blob_check, row_check, write_hash

# -- as written up to a3ad7cd -------------------------------------------------------------


def _old_bytes(part: Any) -> bytes:
    return part.encode("utf-8", "surrogatepass") if isinstance(part, str) else bytes(part)


def old_blob_check(blobs):
    rows = sorted(blobs)
    channels = [row[0] for row in rows]
    types = [row[1] for row in rows]
    values = [row[2] if type(row[2]) is bytes else _old_bytes(row[2]) for row in rows]
    sizes = array("q", [*map(len, channels), *map(len, types), *map(len, values)])
    digest = hashlib.blake2b(sizes.tobytes(), digest_size=16)
    digest.update(b"".join(map(_old_bytes, channels)))
    digest.update(b"".join(map(_old_bytes, types)))
    digest.update(b"".join(values))
    return len(rows), digest.hexdigest()


def old_row_check(fields):
    digest = hashlib.blake2b(digest_size=16)
    for field in fields:
        if isinstance(field, (str, bytes)):
            part = b"bytes:" + _old_bytes(field)
        else:
            part = f"{type(field).__name__}:{field!r}".encode()
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def old_write_hash(write):
    return int(old_row_check(write)[:16], 16) % WRITE_SUM_MODULUS


# -- what a row can hold ------------------------------------------------------------------


class Text(str):
    pass


class Data(bytes):
    pass


class Number(int):
    pass


text = st.text(st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF), max_size=40)
fields = st.one_of(
    text,
    text.map(Text),
    st.text(min_size=250, max_size=270),  # (a field past 255 bytes takes a longer size)
    st.binary(max_size=300),
    st.binary(max_size=8).map(Data),
    st.binary(max_size=8).map(bytearray),
    st.integers(min_value=-(2**130), max_value=2**130),
    st.integers().map(Number),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.just(-0.0),
    st.lists(st.integers(), max_size=2),
)


def outcome(function, *args):
    try:
        return function(*args)
    except (TypeError, ValueError) as error:
        return type(error)


@settings(max_examples=500)
@given(st.lists(fields, max_size=16))
def test_a_rows_check_and_a_writes_hash_are_the_digests_files_hold(row):
    assert outcome(row_check, row) == outcome(old_row_check, row)
    assert outcome(row_check, iter(row)) == outcome(old_row_check, row)
    assert outcome(write_hash, row) == outcome(old_write_hash, row)


names = st.one_of(text, text.map(Text), st.binary(max_size=8), st.integers(0, 50), st.none())


@settings(max_examples=500)
@given(
    st.lists(
        st.tuples(names, names, st.one_of(st.binary(max_size=60), text, st.integers(0, 9))),
        max_size=10,
        unique_by=lambda row: (type(row[0]).__name__, row[0]),
    )
)
def test_the_check_of_value_rows_is_the_digest_files_hold(rows):
    assert outcome(blob_check, rows) == outcome(old_blob_check, rows)
    assert outcome(blob_check, iter(rows)) == outcome(old_blob_check, rows)
