"""Solutions to lesson 08 · Human in the loop.

>>> from graphkit.course import lesson08
>>> bool(lesson08.check_edit_at_breakpoint(fix_and_send))
True
"""

from __future__ import annotations

from typing import Any

from graphkit import InMemorySaver, interrupt

__all__ = ["approve_mail", "fix_and_send", "pause_before_send"]


def approve_mail(state: dict) -> dict:
    """8.1: show the draft, wait for the answer, approve only on "yes"."""
    answer = interrupt({"question": "Send this mail?", "draft": state["body"]})
    return {"approved": answer == "yes"}


def pause_before_send(builder: Any) -> Any:
    """8.2: a checkpointer, and a static breakpoint before ``send``."""
    return builder.compile(checkpointer=InMemorySaver(), interrupt_before=["send"])


def fix_and_send(app: Any, config: dict, address: str) -> Any:
    """8.3: edit ``to`` (as ``review``, the node that ran last, so ``send`` stays next),
    then resume with no new input."""
    app.update_state(config, {"to": address})
    return app.invoke(None, config)
