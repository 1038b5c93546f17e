"""Checkpoint records, and the savers that keep them."""

from graphkit.checkpoint.allowlist import SAFE_CLASSES, allow_schema_classes, schema_classes
from graphkit.checkpoint.base import Checkpoint, new_checkpoint_id
from graphkit.checkpoint.delta_map import DeltaMap
from graphkit.checkpoint.memory import InMemorySaver, MemorySaver
from graphkit.checkpoint.saver import BaseCheckpointSaver, CheckpointTuple, checkpoint_config
from graphkit.checkpoint.serde import CheckpointDecodeError, JsonPlusSerializer, PickleSerializer
from graphkit.checkpoint.sqlite import CheckpointFileError, SqliteSaver

__all__ = [
    "SAFE_CLASSES",
    "BaseCheckpointSaver",
    "Checkpoint",
    "CheckpointDecodeError",
    "CheckpointFileError",
    "CheckpointTuple",
    "DeltaMap",
    "InMemorySaver",
    "JsonPlusSerializer",
    "MemorySaver",
    "PickleSerializer",
    "SqliteSaver",
    "allow_schema_classes",
    "checkpoint_config",
    "new_checkpoint_id",
    "schema_classes",
]
