"""An SQLite saver used the wrong way: given a path instead of a connection, used after the
``with from_conn_string(...)`` block closed it, or on a connection another thread opened
without ``check_same_thread=False``. LangGraph raises SQLite's bare error (or crashes
inside); graphkit raises the same class where LangGraph has one, naming the file, the
thread and the fix. And the first page of a long history reads as LangGraph's does."""

from __future__ import annotations

import operator
import sqlite3
import threading
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from .harness import Lib, load_graphkit, load_langgraph

THREAD = {"configurable": {"thread_id": "t1"}}


class State(TypedDict):
    n: Annotated[int, operator.add]


def saver_class(lib: Lib) -> Any:
    if lib.name == "langgraph":
        from langgraph.checkpoint.sqlite import SqliteSaver
    else:
        from graphkit.checkpoint.sqlite import SqliteSaver
    return SqliteSaver


def app_on(lib: Lib, saver: Any) -> Any:
    builder = lib.StateGraph(State).add_node("a", lambda state: {"n": 1})
    return builder.add_edge(lib.START, "a").compile(checkpointer=saver)


@pytest.fixture(params=["langgraph", "graphkit"])
def lib(request) -> Lib:
    return load_langgraph() if request.param == "langgraph" else load_graphkit()


def test_a_saver_used_after_its_with_block_says_so(lib, tmp_path):
    file = tmp_path / "runs.db"
    with saver_class(lib).from_conn_string(str(file)) as saver:
        app = app_on(lib, saver)
        app.invoke({"n": 0}, THREAD)
    with pytest.raises(sqlite3.ProgrammingError) as raised:
        app.invoke({"n": 0}, THREAD)
    if lib.name == "graphkit":
        message = str(raised.value)
        assert str(file) in message and "'t1'" in message, message
        assert "closed" in message and "inside that block" in message, message
        assert repr(saver) == f"SqliteSaver({str(file)!r})"  # a repr still works


def test_a_connection_of_another_thread_names_check_same_thread(lib, tmp_path):
    file = tmp_path / "runs.db"
    app = app_on(lib, saver_class(lib)(sqlite3.connect(file)))  # check_same_thread left on
    raised: list[BaseException] = []

    def run() -> None:
        try:
            app.invoke({"n": 0}, THREAD)
        except BaseException as error:  # (reported to the test's thread)
            raised.append(error)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    assert len(raised) == 1 and isinstance(raised[0], sqlite3.ProgrammingError), raised
    if lib.name == "graphkit":
        message = str(raised[0])
        assert str(file) in message and "'t1'" in message, message
        assert "check_same_thread=False" in message, message


@pytest.mark.parametrize("kind", [str, Path])
def test_a_path_instead_of_a_connection_is_refused(lib, tmp_path, kind):
    file = kind(tmp_path / "runs.db")
    if lib.name == "langgraph":  # made, then crashes inside: 'str' has no 'executescript'
        with pytest.raises(AttributeError):
            app_on(lib, saver_class(lib)(file)).invoke({"n": 0}, THREAD)
        return
    with pytest.raises(TypeError) as raised:
        saver_class(lib)(file)
    message = str(raised.value)
    assert f"not the path {str(file)!r}" in message, message
    assert f"SqliteSaver.from_conn_string({str(file)!r})" in message, message
    assert "check_same_thread=False" in message, message


def test_the_first_page_of_a_long_history_is_the_newest_checkpoints(lib, tmp_path):
    with saver_class(lib).from_conn_string(str(tmp_path / "runs.db")) as saver:
        app = app_on(lib, saver)
        for _ in range(6):
            app.invoke({"n": 0}, THREAD)
        every = [(s.values, s.metadata["step"]) for s in app.get_state_history(THREAD)]
        page = [(s.values, s.metadata["step"]) for s in app.get_state_history(THREAD, limit=3)]
        other = [s.values for s in app.get_state_history({"configurable": {"thread_id": "x"}})]
    assert page == every[:3] and len(every) == 18 and other == []


def test_a_locked_file_raises_sqlites_own_class(lib, tmp_path):
    """Another connection holds the file: LangGraph raises SQLite's OperationalError, which
    code written for it catches (to retry); graphkit's error, which names the file and
    the thread, is of that class too, and survives pickling (a worker process)."""
    import pickle

    file = tmp_path / "runs.db"
    app = app_on(lib, saver_class(lib)(sqlite3.connect(file, check_same_thread=False, timeout=0)))
    app.invoke({"n": 0}, THREAD)
    holder = sqlite3.connect(file, timeout=0)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(sqlite3.OperationalError) as raised:
            app.invoke({"n": 0}, THREAD, durability="sync")
    finally:
        holder.rollback()
        holder.close()
    assert "locked" in str(raised.value)
    # what a retry written for SQLite's error may test
    assert (raised.value.sqlite_errorcode, raised.value.sqlite_errorname) == (5, "SQLITE_BUSY")
    raised.value.add_note("seen by the caller")
    again = pickle.loads(pickle.dumps(raised.value))
    assert isinstance(again, sqlite3.OperationalError) and str(again) == str(raised.value)
    assert again.sqlite_errorname == "SQLITE_BUSY" and again.__notes__ == ["seen by the caller"]
    if lib.name == "graphkit":
        from graphkit.checkpoint import CheckpointFileError

        assert isinstance(raised.value, CheckpointFileError)
        assert str(file) in str(raised.value) and "'t1'" in str(raised.value)


@pytest.mark.parametrize("where", ["missing/runs.db", "."])
def test_a_file_that_cannot_be_opened_raises_sqlites_own_class(lib, tmp_path, where):
    """A path in a missing folder, or a folder: LangGraph raises SQLite's
    OperationalError ("unable to open database file"); graphkit's error, which says
    why, is of that class too."""
    opening = saver_class(lib).from_conn_string(str(tmp_path / where))
    with pytest.raises(sqlite3.OperationalError) as raised, opening:
        pass
    assert raised.value.sqlite_errorname == "SQLITE_CANTOPEN"
    if lib.name == "graphkit":
        assert "Cannot open the checkpoint file" in str(raised.value)
