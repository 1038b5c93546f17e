"""The runtime a node sees, where LangGraph keeps it (``langgraph.runtime``): ``Runtime``,
its ``ExecutionInfo``, ``ServerInfo`` (and its user's ``BaseUser`` protocol) and
``RunControl``, and ``get_runtime()``.

>>> from graphkit.runtime import Runtime
>>> Runtime(context={"user": "ada"}).context
{'user': 'ada'}
"""

from collections.abc import Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

from graphkit.pregel.runtime import ExecutionInfo, RunControl, Runtime, ServerInfo, get_runtime

__all__ = ["BaseUser", "ExecutionInfo", "RunControl", "Runtime", "ServerInfo", "get_runtime"]


@runtime_checkable
class BaseUser(Protocol):
    """What ``ServerInfo.user`` is, as LangGraph names it (``langgraph_sdk``'s protocol
    of an authenticated user): read by attribute (``user.identity``) or like a dict
    (``user["identity"]``)."""

    @property
    def is_authenticated(self) -> bool: ...

    @property
    def display_name(self) -> str: ...

    @property
    def identity(self) -> str: ...

    @property
    def permissions(self) -> Sequence[str]: ...

    def __getitem__(self, key: str) -> Any: ...

    def __contains__(self, key: str) -> bool: ...

    def __iter__(self) -> Iterator[str]: ...
