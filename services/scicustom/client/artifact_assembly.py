"""Files from a DownloadArtifacts stream, trusted only once checked: each name a plain file name,
each file's chunks contiguous and in order, its bytes matching the SHA-256 and size the build
recorded (Build.files, from GetBuild) and the service's last chunk."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.client.build_types import OutputFile
from scicustom.client.rpc_errors import ArtifactIntegrityError, UnsafeArtifactName

_SHOWN_NAME = 80


def check_artifact_name(name: str) -> str:
    """A name from the service, to be joined to a local directory: a plain file name or refused."""
    shown = repr(name[:_SHOWN_NAME])
    if not name or name in (".", ".."):
        raise UnsafeArtifactName(f"the service named a file {shown}, which is not a file name")
    if "/" in name or "\\" in name:
        raise UnsafeArtifactName(f"the service named a file {shown} with a path separator; only plain file "
                                 "names are written")
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise UnsafeArtifactName(f"the service named a file {shown} with control characters")
    if len(name.encode("utf-8")) > 255:
        raise UnsafeArtifactName(f"the service named a file {shown}... longer than a file name may be")
    return name


class ArtifactAssembly:
    """Collects the chunks of the `expected` files (name -> what the build recorded)."""

    def __init__(self, expected: Mapping[str, OutputFile]) -> None:
        for name in expected:
            check_artifact_name(name)
        self._expected = dict(expected)
        self._done: dict[str, bytes] = {}
        self._name = ""               # the file being received
        self._data = bytearray()
        self._digest = hashlib.sha256()

    def missing(self) -> list[str]:
        """The expected files not complete yet, in the order the build listed them."""
        return [name for name in self._expected if name not in self._done]

    def restart(self) -> None:
        """Drops a partly received file (a broken stream is reopened for what is missing)."""
        self._name, self._data, self._digest = "", bytearray(), hashlib.sha256()

    def add(self, chunk: pb.ArtifactChunk) -> None:
        name = check_artifact_name(chunk.name)
        entry = self._expected.get(name)
        if entry is None:
            raise ArtifactIntegrityError(f"the service sent {name!r}, which was not asked for")
        if name in self._done:
            raise ArtifactIntegrityError(f"the service sent {name} twice")
        if self._name and name != self._name:
            raise ArtifactIntegrityError(f"the service sent {name} before the end of {self._name}")
        if chunk.offset != len(self._data):
            raise ArtifactIntegrityError(f"{name}: a chunk at offset {chunk.offset}, expected {len(self._data)}")
        if len(self._data) + len(chunk.data) > entry.size_bytes:
            raise ArtifactIntegrityError(f"{name}: more than the {entry.size_bytes} bytes the build recorded")
        self._name = name
        self._data += chunk.data
        self._digest.update(chunk.data)
        if chunk.last:
            self._finish(name, entry, chunk)

    def _finish(self, name: str, entry: OutputFile, chunk: pb.ArtifactChunk) -> None:
        digest = self._digest.hexdigest()
        if len(self._data) != entry.size_bytes or chunk.size_bytes != entry.size_bytes:
            raise ArtifactIntegrityError(f"{name}: {len(self._data)} bytes received, the build recorded "
                                         f"{entry.size_bytes}")
        if digest != entry.sha256 or chunk.sha256 != entry.sha256:
            raise ArtifactIntegrityError(f"{name}: sha256 {digest} does not match the build's {entry.sha256}")
        self._done[name] = bytes(self._data)
        self.restart()

    def files(self) -> dict[str, bytes]:
        """Every expected file, checked; an error names what the stream did not deliver."""
        missing = self.missing()
        if missing:
            raise ArtifactIntegrityError(f"the download ended without {', '.join(missing)}")
        return {name: self._done[name] for name in self._expected}
