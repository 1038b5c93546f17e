"""Solutions to lesson 07 · Checkpoints, memory and time travel.

>>> from graphkit.course import lesson07
>>> bool(lesson07.check_fix_city(fix_city))
True
"""

from __future__ import annotations

from typing import Any

__all__ = ["HISTORY_ANSWERS", "fix_city", "replay_from"]


def replay_from(app: Any, config: dict, node: str) -> Any:
    """7.1: find the checkpoint whose next is ``(node,)`` and invoke ``None`` on it."""
    before = next(s for s in app.get_state_history(config) if s.next == (node,))
    return app.invoke(None, before.config)


def fix_city(app: Any, config: dict, city: str) -> Any:
    """7.2: correct the city on the checkpoint before ``lookup`` ran, then resume from
    the new checkpoint. (``as_node`` defaults to the node that ran last there,
    ``__start__``, whose edge leads to ``lookup``, so ``lookup`` runs next.)"""
    before = next(s for s in app.get_state_history(config) if s.next == ("lookup",))
    fixed = app.update_state(before.config, {"city": city})
    return app.invoke(None, fixed)


HISTORY_ANSWERS = {"checkpoints": 6, "replay_step": 3}
"""7.3: two turns of three supersteps each (input, ``__start__``, ``chat``); the
second turn's checkpoint with next ``('chat',)`` is step 3, and chat ran in step 4."""
