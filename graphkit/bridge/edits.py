"""What an ``update_state`` step of a LangGraph thread wrote.

LangGraph 1.2 saves an edit of an older checkpoint (time travel) as the checkpoint it
made, not as its writes (a ``Send`` it queues aside). So an imported edit step read
``__update__ wrote nothing`` while its messages changed "(runtime)", as if the runtime
had made the edit. Every channel an edit changes
was written by it (it runs the node it is made as, ``as_node``, and that node's edges),
so each change is the edit's; its written value is the one, among a few candidates,
that the channel turns the value before into the value after: the value after itself
(a plain key), the items appended to a list (``operator.add``), the messages new or
changed by id (``add_messages``). A change none of them makes (another reducer) keeps
its writer and shows no write.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from graphkit.channels import EMPTY

__all__ = ["edit_writes"]


def edit_writes(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    changed: list[str],
    channels: Mapping[str, Any],
) -> tuple[tuple[str, Any], ...]:
    """The writes that turn ``before`` into ``after`` in the ``changed`` channels, one
    per channel whose change a candidate reproduces on a copy of its LangGraph
    ``channels`` entry."""
    writes = []
    for name in changed:
        channel = channels.get(name)
        if channel is None or name not in after:
            continue
        old = before.get(name, EMPTY)
        try:
            candidates = list(_candidates(old, after[name]))
        except Exception:  # (items that refuse to compare, as numpy arrays: none told)
            candidates = []
        for candidate in candidates:
            if _makes(channel, old, candidate, after[name]):
                writes.append((name, candidate))
                break
    return tuple(writes)


def _candidates(old: Any, new: Any) -> Iterator[Any]:
    if isinstance(old, list) and isinstance(new, list):
        if len(new) > len(old) and new[: len(old)] == old:
            yield new[len(old) :]
        known = {getattr(item, "id", None): item for item in old}
        fresh = [m for m in new if getattr(m, "id", None) is None or known.get(m.id) != m]
        if fresh and len(fresh) < len(new):
            yield fresh
    yield new


def _makes(channel: Any, old: Any, written: Any, new: Any) -> bool:
    """Whether ``channel``, holding ``old``, holds ``new`` once ``written`` is applied."""
    try:
        fresh = channel.copy() if old is EMPTY else channel.from_checkpoint(old)
        fresh.update([written])
        return bool(fresh.get() == new)
    except Exception:  # a value this channel refuses, or that cannot be compared
        return False
