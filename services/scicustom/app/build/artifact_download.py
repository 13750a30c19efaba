"""DownloadArtifacts' use case: a succeeded build's files in bounded chunks, read by the service
from its object store, so a caller never needs the store's credentials.

Each file is checked against the SHA-256 and size its manifest recorded before any of its chunks
goes out: a caller never receives bytes the build did not write. The ObjectStore port reads whole
objects, so one file at a time is held (build outputs are a few MB), never the whole build.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from scicustom.app.build.build_records import BuildState
from scicustom.app.build.control import BuildControl
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.ports import ObjectStore

CHUNK_BYTES = 1024 * 1024  # well below the services' 16 MiB message limit
MAX_NAMES = 64
_SHOWN_NAME = 80  # a refused name is echoed at most this long


@dataclass(frozen=True)
class FileChunk:
    name: str
    offset: int
    data: bytes
    last: bool
    sha256: str = ""      # the last chunk only
    size_bytes: int = 0   # the last chunk only


def selected_files(state: BuildState, names: Sequence[str]) -> list[dict[str, Any]]:
    """The manifest entries to send: every file, or `names` in the order given."""
    if state.state != "succeeded":
        raise PreconditionFailed(f"build {state.build_id} is {state.state}; only a succeeded build has files "
                                 "to download")
    if not names:
        return list(state.files)
    if len(names) > MAX_NAMES:
        raise InvalidInput("names", f"has {len(names)} entries, above the limit {MAX_NAMES}")
    by_name = {entry["name"]: entry for entry in state.files}
    seen: set[str] = set()
    for name in names:
        if name not in by_name:
            raise InvalidInput("names", f"{name[:_SHOWN_NAME]!r} is not a file of build {state.build_id} "
                                        f"(it has {', '.join(sorted(by_name))})")
        if name in seen:
            raise InvalidInput("names", f"{name!r} is named twice")
        seen.add(name)
    return [by_name[name] for name in names]


def file_chunks(store: ObjectStore, entry: dict[str, Any], chunk_bytes: int = CHUNK_BYTES) -> Iterator[FileChunk]:
    name = entry["name"]
    data = store.get_bytes(entry["key"])
    digest = hashlib.sha256(data).hexdigest()
    if digest != entry["sha256"] or len(data) != int(entry["size_bytes"]):
        raise PreconditionFailed(f"{name} of the build does not match its recorded sha256; the store changed "
                                 "under the build")
    offsets = range(0, len(data), chunk_bytes) if data else range(1)  # an empty file is one empty chunk
    for offset in offsets:
        piece = data[offset:offset + chunk_bytes]
        if offset + len(piece) < len(data):
            yield FileChunk(name, offset, piece, last=False)
        else:
            yield FileChunk(name, offset, piece, last=True, sha256=digest, size_bytes=len(data))


def artifact_chunks(control: BuildControl, build_id: str, names: Sequence[str],
                    chunk_bytes: int = CHUNK_BYTES) -> Iterator[FileChunk]:
    """Every chunk of the chosen files; the request is checked in full before the first chunk."""
    entries = selected_files(control.get(build_id), names)
    for entry in entries:
        yield from file_chunks(control.store, entry, chunk_bytes)
