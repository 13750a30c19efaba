"""The ObjectStore port on a local directory: keys are relative paths, writes are atomic renames."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from scicustom.adapters.object_keys import check_key


class FilesystemObjectStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        return self.root / check_key(key)

    def put_bytes(self, key: str, data: bytes) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def get_bytes(self, key: str) -> bytes:
        path = self._path(key)
        if not path.is_file():
            raise KeyError(key)
        return path.read_bytes()

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def list_keys(self, prefix: str) -> list[str]:
        """Keys starting with `prefix` as a string (like S3): "x" lists "x/1" and "x2/1"."""
        parts = prefix.split("/")
        if any(p.startswith(".") for p in parts) or not all(parts[:-1]):
            return []  # no valid key starts so (and ".." must not leave the root)
        start = self.root / prefix.rsplit("/", 1)[0] if "/" in prefix else self.root
        if not start.is_dir():
            return []
        keys = []
        for path in start.rglob("*"):
            if path.is_file() and not path.name.startswith("."):
                key = path.relative_to(self.root).as_posix()
                if key.startswith(prefix):
                    keys.append(key)
        return sorted(keys)

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)
