"""The SQLite file under ``SqliteSaver``: its tables, bringing a file written by an older
graphkit up to date, and SQLite's errors about the file in words that name it.

SQLite's own messages ("unable to open database file", "file is not a database") name
no file; ``file_error`` turns them into a ``CheckpointFileError`` that does.

>>> import sqlite3
>>> print(file_error("runs.db", sqlite3.DatabaseError("file is not a database")))
'runs.db' is not an SQLite database (SQLite says: file is not a database). Give SqliteSaver the path of a file it wrote, or of a new file.
"""  # noqa: E501

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any, NamedTuple

from graphkit.checkpoint.heads import HEADS

__all__ = [
    "LAYOUT",
    "NEW_FILE_SCHEMA",
    "SCHEMA",
    "CheckpointFileError",
    "Layout",
    "add_missing_columns",
    "database_path",
    "file_error",
    "prepare_file",
]

OPEN_WAIT_SECONDS = 5.0
"""How long opening a file retries while SQLite answers "busy" without waiting itself
(another connection is recovering the WAL file, or cleaning it up as it closes): as
long as sqlite3's own busy timeout."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS graphkit_checkpoints (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused, so rows can be cached by seq
    thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, checkpoint_id TEXT NOT NULL,
    parent_id TEXT, step INTEGER NOT NULL, source TEXT NOT NULL, created_at REAL NOT NULL,
    updated_channels TEXT NOT NULL,  -- a JSON list
    metadata_type TEXT NOT NULL, metadata BLOB NOT NULL,
    base_seq INTEGER,  -- the row the delta applies to, NULL for a snapshot
    depth INTEGER NOT NULL,  -- rows since the last snapshot
    delta_type TEXT NOT NULL, delta BLOB NOT NULL,
    replaced INTEGER NOT NULL DEFAULT 0,  -- 1: put again since (kept: later rows build on it)
    blob_count INTEGER, blob_hash TEXT,  -- its values' check; NULL: written before checks
    row_hash TEXT,  -- the check of the fields above (not seq, replaced); NULL: as blob_count
    write_count INTEGER, write_sum INTEGER,  -- its pending writes' check, kept up to date
    small_values TEXT  -- its values of a few bytes (sqlite/rows.py); a new file's only
);
CREATE UNIQUE INDEX IF NOT EXISTS graphkit_checkpoints_by_id
    ON graphkit_checkpoints (thread_id, checkpoint_ns, checkpoint_id) WHERE replaced = 0;
-- Values keep a rowid: SQLite keeps a row of a table without one in its key's b-tree,
-- where a row above about 1 KB of a 4 KB page spills to a page of its own (a 1.5 KB
-- message list took 2.25 times the room, and longer to commit). A pending write is keyed
-- by its columns (one b-tree, not a table and an index), its value kept apart when it
-- is larger than sqlite/writes.py's INLINE_WRITE_BYTES (value_seq, else value).
CREATE TABLE IF NOT EXISTS graphkit_blobs (
    checkpoint_seq INTEGER NOT NULL, channel TEXT NOT NULL,
    type TEXT NOT NULL, value BLOB NOT NULL,
    PRIMARY KEY (checkpoint_seq, channel)
);
CREATE TABLE IF NOT EXISTS graphkit_writes (
    thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, checkpoint_id TEXT NOT NULL,
    task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL,
    type TEXT NOT NULL, value BLOB, task_path TEXT NOT NULL,
    value_seq INTEGER,  -- its value's row in graphkit_write_values
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
) WITHOUT ROWID;
"""

NEW_FILE_SCHEMA = """
CREATE INDEX IF NOT EXISTS graphkit_checkpoints_replaced
    ON graphkit_checkpoints (thread_id, checkpoint_ns) WHERE replaced <> 0;
CREATE TABLE IF NOT EXISTS graphkit_write_values (seq INTEGER PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS graphkit_layout (version INTEGER NOT NULL);
INSERT INTO graphkit_layout (version) SELECT 2 WHERE NOT EXISTS (SELECT 1 FROM graphkit_layout);
"""
"""What a new file has beside ``SCHEMA``: an index of the rows put again, by thread (the
others are indexed by id; a file written before 2026-12-06 indexes every row by thread
instead, ``graphkit_checkpoints_by_thread``, which it keeps: an index every put writes
to, a page more in each put's commit), the table of the pending writes' larger values,
and ``graphkit_layout``, the number of its layout (``LAYOUT``). A file made before keeps
the tables ``SCHEMA`` made then: ``Layout`` says which."""

LAYOUT = 2
"""The layout of the files this graphkit creates, kept in their ``graphkit_layout``: 2,
small values in the checkpoint's row and pending writes keyed by their columns. A file
without that table was made before (its columns say what it keeps). A file of a higher
number was made by a newer graphkit, whose tables this one could misread: it is refused,
saying so, rather than read (an older graphkit reads a layout 2 file's small values as
missing, and calls its checkpoints damaged)."""


class Layout(NamedTuple):
    """What a file's tables keep, as the graphkit that created it made them."""

    small_values: bool  # a checkpoint row keeps its small values (sqlite/rows.py)
    keyed_writes: bool  # the pending writes are keyed by their columns (sqlite/writes.py)


class CheckpointFileError(sqlite3.DatabaseError):
    """The file given to ``SqliteSaver`` cannot be used: its folder is missing, it is not
    an SQLite database, it is damaged, full or read-only. The message names the file.

    It is also of the class SQLite raised (``sqlite3.OperationalError`` for a locked,
    read-only or full file), so an ``except`` written for LangGraph's saver catches it:

    >>> error = file_error("runs.db", sqlite3.OperationalError("database is locked"))
    >>> isinstance(error, CheckpointFileError), isinstance(error, sqlite3.OperationalError)
    (True, True)
    """

    def __reduce__(self) -> tuple[Any, tuple[str, type], dict[str, Any]]:
        # (the class made for SQLite's is not found by its name: rebuild it from that;
        # its attributes, sqlite_errorcode and notes, come back as its state)
        sqlite_class = next(c for c in type(self).__mro__ if c.__module__ == "sqlite3")
        return _rebuilt, (str(self), sqlite_class), self.__dict__


_WITH_SQLITES_CLASS: dict[type, type] = {}  # SQLite's error class -> CheckpointFileError's


def _checkpoint_file_error(message: str, cause: sqlite3.Error) -> CheckpointFileError:
    """A ``CheckpointFileError`` saying ``message`` that is also of ``cause``'s class,
    with its ``sqlite_errorcode`` and ``sqlite_errorname`` (what a retry may test)."""
    kind = type(cause)
    if kind is sqlite3.DatabaseError or not issubclass(kind, sqlite3.DatabaseError):
        error = CheckpointFileError(message)
    elif issubclass(kind, CheckpointFileError):
        error = kind(message)
    else:
        if kind not in _WITH_SQLITES_CLASS:
            # (named as the base, so tracebacks and reprs read CheckpointFileError)
            made = type("CheckpointFileError", (CheckpointFileError, kind), {})
            made.__module__ = __name__
            _WITH_SQLITES_CLASS[kind] = made
        error = _WITH_SQLITES_CLASS[kind](message)
    for code in ("sqlite_errorcode", "sqlite_errorname"):
        if hasattr(cause, code):
            setattr(error, code, getattr(cause, code))
    return error


def _rebuilt(message: str, sqlite_class: type) -> CheckpointFileError:
    return _checkpoint_file_error(message, sqlite_class(message))


# SQLite's message (a fragment of it) -> what it means and what to do.
_MEANINGS = [
    (
        "file is not a database",
        "is not an SQLite database",
        "Give SqliteSaver the path of a file it wrote, or of a new file.",
    ),
    (
        "malformed",
        "is damaged: it may have been truncated or partly overwritten",
        "Restore it from a backup, or start a new file.",
    ),
    (
        "readonly",
        "cannot be written (the file or its folder is read-only)",
        "Make both writable, or choose another path.",
    ),
    (
        "disk is full",
        "cannot grow: the disk is full",
        "Free some space; nothing after the last saved checkpoint was written.",
    ),
    (
        "locked",
        "is locked by another connection that has been writing for too long",
        "Retry, or find the process that keeps a transaction open.",
    ),
    (
        "unable to open",
        "cannot be opened",
        "Check that the path names a file (not a folder) you may read and write.",
    ),
]


def file_error(path: str, error: sqlite3.Error, thread: str | None = None) -> CheckpointFileError:
    """A ``CheckpointFileError`` for ``error``, raised by SQLite on the file ``path``
    (while working on ``thread``, if given)."""
    message = str(error)
    where = f"{path!r}" + (f" (reading or writing thread {thread!r})" if thread is not None else "")
    folder = Path(path).parent
    if path not in ("", ":memory:") and not folder.is_dir():
        return _checkpoint_file_error(
            f"Cannot open the checkpoint file {path!r}: its folder {str(folder)!r} does not "
            f"exist. Create it first (Path(...).mkdir(parents=True)), or choose another path.",
            error,
        )
    if Path(path).is_dir():
        return _checkpoint_file_error(
            f"Cannot open the checkpoint file {path!r}: it is a folder. Give the path of a "
            f"file in it, e.g. {str(Path(path) / 'checkpoints.db')!r}.",
            error,
        )
    for fragment, meaning, fix in _MEANINGS:
        if fragment in message:
            return _checkpoint_file_error(
                f"{where} {meaning} (SQLite says: {message}). {fix}", error
            )
    return _checkpoint_file_error(f"SQLite failed on {where}: {message}", error)


def database_path(conn: sqlite3.Connection) -> str:
    """The file ``conn`` has open, or ``':memory:'``."""
    files = [row[2] for row in conn.execute("PRAGMA database_list") if row[1] == "main"]
    return files[0] if files and files[0] else ":memory:"


def prepare_file(conn: sqlite3.Connection) -> Layout:
    """Make ``conn``'s file ready: WAL journal, the tables, the columns a file written by
    an older graphkit lacks; return its ``Layout``. SQLite refuses a connection that opens
    a WAL file while another runs recovery or closes it (no busy timeout applies): that
    is retried for up to ``OPEN_WAIT_SECONDS``, then raised."""
    if conn.in_transaction:  # the caller's (executescript would commit it, too)
        conn.commit()
    deadline = time.monotonic() + OPEN_WAIT_SECONDS
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            # In WAL mode NORMAL keeps the file consistent and loses nothing when the
            # process dies (the crash test kills it mid-step); only a power cut can
            # lose the last commits. FULL would fsync every task's writes.
            conn.execute("PRAGMA synchronous=NORMAL")
            new = not conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'graphkit_checkpoints'"
            ).fetchone()
            conn.executescript(f"BEGIN; {SCHEMA} {NEW_FILE_SCHEMA if new else ''} COMMIT;")
            return add_missing_columns(conn)
        except sqlite3.Error as error:
            if conn.in_transaction:  # (the schema script stopped half-way)
                conn.rollback()
            busy = "database is locked" in str(error)
            if not isinstance(error, sqlite3.OperationalError) or not busy:
                raise
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def add_missing_columns(conn: sqlite3.Connection) -> Layout:
    """Bring a file written by an older graphkit up to date: its rows keep NULL in the
    new columns (for the checks: not checked, as before), and its threads get a head
    (``heads.py``) naming their newest checkpoint. Only a file that needs it takes the
    write lock, and it looks again once it holds it, in case another process opening
    the file at the same time did it first. Returns the file's ``Layout``."""
    layout = Layout(small_values=False, keyed_writes=False)

    def missing() -> tuple[list[tuple[str, str]], bool]:
        nonlocal layout
        tables = {found[0] for found in conn.execute(_TABLES)}
        if "graphkit_layout" in tables:
            _check_layout(conn)
        have = {found[1] for found in conn.execute("PRAGMA table_info(graphkit_checkpoints)")}
        writes = {found[1] for found in conn.execute("PRAGMA table_info(graphkit_writes)")}
        layout = Layout("small_values" in have, "value_seq" in writes)
        columns = [(column, kind) for column, kind in _NEW_COLUMNS if column not in have]
        return columns, "graphkit_heads" not in tables

    if missing() == ([], False):
        return layout
    conn.execute("BEGIN IMMEDIATE")
    try:
        columns, no_heads = missing()
        for column, kind in columns:
            conn.execute(f"ALTER TABLE graphkit_checkpoints ADD COLUMN {column} {kind}")
        if no_heads:
            for statement in HEADS.split(";"):
                if statement.strip():
                    conn.execute(statement)
    except BaseException:
        conn.rollback()
        raise
    conn.commit()
    return layout


_TABLES = (
    "SELECT name FROM sqlite_master WHERE type = 'table'"
    " AND name IN ('graphkit_heads', 'graphkit_layout')"
)


def _check_layout(conn: sqlite3.Connection) -> None:
    """Refuse a file whose ``graphkit_layout`` names a layout this graphkit does not know.

    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.execute("CREATE TABLE graphkit_layout (version INTEGER NOT NULL)")
    >>> _ = conn.execute("INSERT INTO graphkit_layout VALUES (3)")
    >>> try:
    ...     _check_layout(conn)
    ... except CheckpointFileError as error:
    ...     print(str(error).partition(": ")[2].partition(" (")[0])
    a newer graphkit made it
    """
    versions = [found[0] for found in conn.execute("SELECT version FROM graphkit_layout")]
    if versions == [LAYOUT]:
        return
    from graphkit import __version__  # (graphkit imports this module)

    path = database_path(conn)
    if all(type(version) is int for version in versions) and max(versions, default=0) > LAYOUT:
        raise CheckpointFileError(
            f"Cannot open the checkpoint file {path!r}: a newer graphkit made it (its tables"
            f" have layout {max(versions)}; graphkit {__version__} reads layouts up to"
            f" {LAYOUT}), and this one could misread it. Upgrade graphkit (pip install -U"
            " graphkit) to open it."
        )
    raise CheckpointFileError(
        f"Cannot open the checkpoint file {path!r}: its table graphkit_layout holds"
        f" {versions!r}, not one layout number (graphkit {__version__} writes [{LAYOUT}]):"
        " the file was changed outside graphkit. Restore it from a backup, or start a new"
        " file."
    )


_NEW_COLUMNS = (
    ("blob_count", "INTEGER"),
    ("blob_hash", "TEXT"),
    ("row_hash", "TEXT"),
    ("write_count", "INTEGER"),
    ("write_sum", "INTEGER"),
)
