"""Submitting papers: bytes (streamed in chunks) under a size limit, hashed, de-duplicated by content,
stored, then announced (paper.submitted). The same checks serve the CLI, the gRPC upload, the watched
incoming prefix and the MEDLINE import.

A submission that cannot be taken (over the size limit, empty, a bad file name) is FAILED at once
with the reason, and its dead-letter record is the caller's `dead_letter`; nothing else is stored.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from scicustom.app.papers.paper_records import (
    PaperKeys,
    PaperStatus,
    paper_id_of,
    paper_status,
    record_failure,
)
from scicustom.app.stored_json import read_json, write_json
from scicustom.core.errors import InvalidInput
from scicustom.ports import ObjectStore

MAX_PAPER_BYTES = 64 * 1024 * 1024
MAX_FILE_NAME = 255

# Announces a stored paper (paper id, file name) on paper.submitted; returns once that is durable.
AnnouncePaper = Callable[[str, str], None]
# Records a submission that was refused (paper id, stage, reason) on the dead-letter path.
DeadLetterPaper = Callable[[str, str, str], None]


@dataclass(frozen=True)
class SubmitLimits:
    max_bytes: int = MAX_PAPER_BYTES


def check_file_name(name: str) -> str:
    """The base name of an uploaded file (remote input: no folders, no control characters)."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not base or base in (".", ".."):
        raise InvalidInput("file_name", "is empty")
    if len(base) > MAX_FILE_NAME:
        raise InvalidInput("file_name", f"has {len(base)} characters, above the limit {MAX_FILE_NAME}")
    if any(ord(c) < 32 or ord(c) == 127 for c in base):
        raise InvalidInput("file_name", "contains control characters")
    return base


def _refuse(store: ObjectStore, dead_letter: DeadLetterPaper, paper_id: str, file_name: str, size: int,
            reason: str) -> PaperStatus:
    record_failure(store, paper_id, "submit", reason, file_name)
    dead_letter(paper_id, "submit", reason)
    return PaperStatus(paper_id, file_name, "failed", reason=reason, failed_stage="submit", size_bytes=size)


def submit_paper_stream(store: ObjectStore, announce: AnnouncePaper, dead_letter: DeadLetterPaper,
                        file_name: str, chunks: Iterable[bytes], limits: SubmitLimits = SubmitLimits(),
                        declared_size: int | None = None) -> PaperStatus:
    """Stores one paper from its chunks and announces it; the same bytes again return the stored
    paper (duplicate=True, nothing announced twice). Over the limit: FAILED without reading on."""
    name = check_file_name(file_name)
    digest = hashlib.sha256()
    parts: list[bytes] = []
    size = 0
    if declared_size is not None and declared_size > limits.max_bytes:
        refused = hashlib.sha256(f"oversize\x1f{name}\x1f{declared_size}".encode()).hexdigest()
        return _refuse(store, dead_letter, paper_id_of(refused), name, declared_size,
                       f"the paper is {declared_size} bytes, above the limit of {limits.max_bytes} bytes")
    for chunk in chunks:
        size += len(chunk)
        digest.update(chunk)
        if size > limits.max_bytes:
            refused = hashlib.sha256(f"oversize\x1f{name}\x1f{digest.hexdigest()}".encode()).hexdigest()
            return _refuse(store, dead_letter, paper_id_of(refused), name, size,
                           f"the upload passed the limit of {limits.max_bytes} bytes")
        parts.append(chunk)
    sha256 = digest.hexdigest()
    paper_id = paper_id_of(sha256)
    keys = PaperKeys(paper_id)
    if size == 0:
        return _refuse(store, dead_letter, paper_id, name, 0, "the paper is empty")
    if read_json(store, keys.meta) is not None:
        status = paper_status(store, paper_id)
        status.duplicate = True
        return status
    store.put_bytes(keys.source, b"".join(parts))
    write_json(store, keys.meta, {"paper_id": paper_id, "file_name": name, "size_bytes": size, "sha256": sha256})
    announce(paper_id, name)
    return paper_status(store, paper_id)


def submit_paper_bytes(store: ObjectStore, announce: AnnouncePaper, dead_letter: DeadLetterPaper, file_name: str,
                       data: bytes, limits: SubmitLimits = SubmitLimits()) -> PaperStatus:
    return submit_paper_stream(store, announce, dead_letter, file_name, [data], limits)


def submit_stored_object(store: ObjectStore, announce: AnnouncePaper, dead_letter: DeadLetterPaper, key: str,
                         limits: SubmitLimits = SubmitLimits()) -> PaperStatus:
    """A paper already in the object store (an upload to the incoming prefix), by its key."""
    try:
        data = store.get_bytes(key)
    except KeyError:
        raise InvalidInput("object_key", f"no object {key[:200]!r}") from None
    except ValueError:  # every store refuses a key outside its key rule ('/', '..', empty segments)
        raise InvalidInput("object_key", f"{key[:200]!r} is not an object key") from None
    return submit_paper_stream(store, announce, dead_letter, key, [data], limits, declared_size=len(data))
