"""Checkpoint records (and, later, the savers that persist them)."""

from graphkit.checkpoint.base import Checkpoint, new_checkpoint_id
from graphkit.checkpoint.delta_map import DeltaMap

__all__ = ["Checkpoint", "DeltaMap", "new_checkpoint_id"]
