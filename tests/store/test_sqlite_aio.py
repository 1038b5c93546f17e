"""AsyncSqliteStore: SqliteStore under LangGraph's async store's name and awaited openers."""

from __future__ import annotations

import asyncio
import time
import warnings
from pathlib import Path

import pytest

from graphkit.store.sqlite import SqliteStore
from graphkit.store.sqlite.aio import AsyncSqliteStore


def test_the_async_store_is_made_and_swept_without_a_stray_coroutine(tmp_path: Path):
    async def main() -> tuple[int, bool]:
        async with AsyncSqliteStore.from_conn_string(str(tmp_path / "s.db")) as store:
            assert isinstance(store, SqliteStore)
            await store.aput(("a",), "gone", {"v": 1}, ttl=0.0001)
            await store.aput(("a",), "kept", {"v": 2})
            time.sleep(0.01)
            swept = await store.sweep_ttl()
            await store.start_ttl_sweeper(0.0001)  # its thread sweeps with the sync verb
            time.sleep(0.05)
            return swept, await store.stop_ttl_sweeper()

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "coroutine ... was never awaited" would fail here
        assert asyncio.run(main()) == (1, True)
    with SqliteStore.from_conn_string(str(tmp_path / "s.db")) as again:
        assert [item.key for item in again.search(("a",))] == ["kept"]


def test_an_aiosqlite_like_connection_is_refused_with_the_fix():
    with pytest.raises(TypeError, match="from_conn_string"):
        AsyncSqliteStore(object())  # type: ignore[arg-type]
