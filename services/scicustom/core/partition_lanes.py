"""Keys that put events on chosen partitions, so builds can be dealt out evenly to a topic's workers.

A bus sends a keyed record to the partition its hash of the key picks. A few builds hashed by their
ids land unevenly (5 of 16 on one partition and none on another is common at 8), and the worker
owning the fullest partition sets when the batch ends. With one lane key per partition, the build
service deals builds out in turn instead.
"""

from __future__ import annotations

from collections.abc import Callable

LANE_PREFIX = "lane-"


def lane_keys(partitions: int, partition_of: Callable[[bytes], int]) -> list[str]:
    """Per partition i, the first key `lane-<n>` that `partition_of` (the bus's own key hash, modulo
    the partition count) sends to partition i."""
    if partitions < 1:
        raise ValueError("partitions must be >= 1")
    keys: list[str | None] = [None] * partitions
    missing, n = partitions, 0
    while missing:
        if n > 1000 * partitions:  # a hash that never reaches some partition is no hash of keys
            raise ValueError(f"no key found for each of {partitions} partitions")
        key = f"{LANE_PREFIX}{n}"
        partition = partition_of(key.encode())
        if not 0 <= partition < partitions:
            raise ValueError(f"partition_of gave {partition} for {partitions} partitions")
        if keys[partition] is None:
            keys[partition] = key
            missing -= 1
        n += 1
    return [k for k in keys if k is not None]
