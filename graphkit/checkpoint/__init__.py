"""Checkpoint records, and the savers that keep them."""

from graphkit.checkpoint.base import Checkpoint, new_checkpoint_id
from graphkit.checkpoint.delta_map import DeltaMap
from graphkit.checkpoint.memory import InMemorySaver, MemorySaver
from graphkit.checkpoint.saver import BaseCheckpointSaver, CheckpointTuple, checkpoint_config

__all__ = [
    "BaseCheckpointSaver",
    "Checkpoint",
    "CheckpointTuple",
    "DeltaMap",
    "InMemorySaver",
    "MemorySaver",
    "checkpoint_config",
    "new_checkpoint_id",
]
