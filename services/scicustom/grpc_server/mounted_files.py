"""Notice when files mounted from a Kubernetes Secret change, without a restart.

The kubelet updates a Secret volume by writing a new timestamped folder and swapping the `..data`
symlink the file names point through, so the path stays and what it resolves to changes. A file is
therefore identified by what `os.stat` (following links) says of its target: device, inode, size
and modification time. `changed()` looks at most every `min_interval_s`, so a busy server stats
its files a few times a minute, not on every call. (A Secret mounted with subPath never updates:
mount the whole volume.)
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

FileStamp = tuple[int, int, int, int] | None  # (device, inode, size, mtime ns); None: cannot stat


def stamp(path: Path) -> FileStamp:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


class WatchedFiles:
    def __init__(self, paths: Sequence[Path], min_interval_s: float = 2.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.paths = tuple(paths)
        self._interval = min_interval_s
        self._clock = clock
        self._lock = threading.Lock()
        self._seen = self.stamps()
        self._checked = clock()

    def stamps(self) -> tuple[FileStamp, ...]:
        return tuple(stamp(p) for p in self.paths)

    def changed(self) -> bool:
        """True once after any of the files changed (looked at most every `min_interval_s`)."""
        with self._lock:
            now = self._clock()
            if now - self._checked < self._interval:
                return False
            self._checked = now
            current = self.stamps()
            if current == self._seen:
                return False
            self._seen = current
            return True
