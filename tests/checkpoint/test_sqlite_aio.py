"""AsyncSqliteSaver: SqliteSaver under LangGraph's async saver's name and openers."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from graphkit.checkpoint import Checkpoint, CheckpointFileError, SqliteSaver
from graphkit.checkpoint.sqlite.aio import AsyncSqliteSaver


def test_from_conn_string_is_an_async_context_manager_that_closes_the_file(tmp_path: Path):
    async def main() -> AsyncSqliteSaver:
        async with AsyncSqliteSaver.from_conn_string(str(tmp_path / "a.db")) as saver:
            await saver.setup()
            empty = Checkpoint.empty()
            config = await saver.aput({"configurable": {"thread_id": "1"}}, empty, {}, {})
            assert (await saver.aget_tuple(config)).checkpoint == empty
            assert saver.get_tuple(config) is not None  # sync calls work on the loop's thread
            assert isinstance(saver, SqliteSaver)
        return saver

    saver = asyncio.run(main())
    with pytest.raises(sqlite3.ProgrammingError):
        saver.conn.execute("SELECT 1")


def test_an_aiosqlite_like_connection_is_refused_with_the_fix():
    with pytest.raises(TypeError, match="from_conn_string"):
        AsyncSqliteSaver(object())  # type: ignore[arg-type]


def test_a_path_in_a_missing_folder_is_a_checkpoint_file_error(tmp_path: Path):
    async def main() -> None:
        async with AsyncSqliteSaver.from_conn_string(str(tmp_path / "no" / "a.db")):
            pass

    with pytest.raises(CheckpointFileError, match="does not exist"):
        asyncio.run(main())


def test_a_saver_used_after_its_async_with_block_shows_its_own_opener(tmp_path: Path):
    # (the message showed SqliteSaver's `with` block, which an async saver does not have)
    async def main() -> None:
        async with AsyncSqliteSaver.from_conn_string(str(tmp_path / "a.db")) as saver:
            pass
        with pytest.raises(sqlite3.ProgrammingError) as closed:
            await saver.aget_tuple({"configurable": {"thread_id": "1"}})
        message = str(closed.value)
        assert "`async with AsyncSqliteSaver.from_conn_string(path) as saver:`" in message
        assert "yourself, AsyncSqliteSaver(sqlite3.connect(path" in message

    asyncio.run(main())
