"""The names docs/compatibility.md's "Not yet" lists are really not in graphkit.

Each exists in LangGraph 1.2 at its import path, and the same import from graphkit fails
with Python's ``ImportError``, as the page says. When one of them is built, this test
fails, and the page's list is due for the same change.
"""

from __future__ import annotations

import pytest

NOT_YET = [
    ("langgraph.prebuilt", "ValidationNode"),
    ("langgraph.prebuilt.interrupt", "HumanInterrupt"),
    ("langgraph.graph.ui", "push_ui_message"),
    ("langgraph.checkpoint.serde.encrypted", "EncryptedSerializer"),
    ("langgraph.pregel.remote", "RemoteGraph"),
    ("langgraph.cache.redis", "RedisCache"),
    ("langgraph.store.base.batch", "AsyncBatchedBaseStore"),
]


def _import(module: str, name: str) -> object:
    # The statement a user writes, so a module without the name fails as it does for them.
    namespace: dict[str, object] = {}
    exec(f"from {module} import {name}", namespace)
    return namespace[name]


@pytest.mark.parametrize(("module", "name"), NOT_YET, ids=[n for _, n in NOT_YET])
def test_a_name_listed_as_not_yet_is_in_langgraph_and_not_in_graphkit(
    module: str, name: str
) -> None:
    pytest.importorskip("langgraph")
    assert _import(module, name) is not None
    ours = module.replace("langgraph", "graphkit", 1)
    with pytest.raises(ImportError):
        _import(ours, name)
