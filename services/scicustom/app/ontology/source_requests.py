"""Which sources an import request names, checked the same way for the CLI and OntologyService:
packaged sources by name, or one user file (a local path, or bytes uploaded to the service)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from scicustom.app.ontology.importing import SourceRead, SourceReader
from scicustom.core.atomic_files import write_bytes_atomic
from scicustom.core.errors import InvalidInput
from scicustom.core.ontology.dag import OntologyDAG, SourceInfo

SOURCE_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]*")
MAX_SOURCE_NAME = 64  # part of the upload's file name and of the store's keys
FILE_SUFFIXES = {"obo": ".obo", "owl": ".owl"}  # OWL in RDF/XML
FileReader = Callable[[Path, str], tuple[SourceInfo, OntologyDAG]]


@dataclass(frozen=True)
class OntologySources:
    """What can be imported: the packaged sources (by name, in import order) and a reader of a
    user's OBO/OWL file."""

    packaged: Mapping[str, SourceReader]
    read_file: FileReader

    def packaged_reads(self, names: Sequence[str]) -> list[SourceRead]:
        """The named packaged sources, each once, in the order given; every one when none is named."""
        unknown = sorted(set(names) - set(self.packaged))
        if unknown:
            raise InvalidInput("sources", f"unknown {unknown}; choose from {sorted(self.packaged)}")
        chosen = list(dict.fromkeys(names)) or list(self.packaged)
        return [SourceRead(name, self.packaged[name], strict=False) for name in chosen]

    def file_read(self, name: str, path: Path, *, packaged_too: Sequence[str] = ()) -> SourceRead:
        """A user's file at `path`, imported as source `name`."""
        source = self._user_source_name(name, packaged_too)
        return SourceRead(source, partial(self.read_file, path, source), strict=True)

    def upload_read(self, name: str, file_format: str, content: bytes, uploads: Path, *,
                    packaged_too: Sequence[str] = ()) -> SourceRead:
        """An uploaded file, kept under `uploads` by content (the source's recorded origin names
        the file, so it is not a temporary one). A file already there is not written again; one this
        call stores is removed by the read's `discard` when the import fails (no trace of a refused
        request)."""
        source = self._user_source_name(name, packaged_too)
        suffix = FILE_SUFFIXES.get(file_format)
        if suffix is None:
            raise InvalidInput("file.format", "give OBO or OWL")
        if not content:
            raise InvalidInput("file.content", "is empty")
        path = uploads / f"{source}-{hashlib.sha256(content).hexdigest()[:16]}{suffix}"
        if path.exists():
            return SourceRead(source, partial(self.read_file, path, source), strict=True)
        write_bytes_atomic(path, content)
        return SourceRead(source, partial(self.read_file, path, source), strict=True,
                          discard=partial(path.unlink, missing_ok=True))

    def _user_source_name(self, name: str, packaged_too: Sequence[str]) -> str:
        if packaged_too:
            raise InvalidInput("sources", "give either packaged sources or one file")
        source = name.lower()
        if not SOURCE_NAME.fullmatch(source):
            raise InvalidInput("file.name", f"{name[:80]!r} is not a valid source name (a-z, 0-9, _ . -)")
        if len(source) > MAX_SOURCE_NAME:
            raise InvalidInput("file.name", f"has {len(source)} characters, above the limit {MAX_SOURCE_NAME}")
        if source in self.packaged:
            raise InvalidInput("file.name", f"{source!r} is a packaged source; choose another name")
        return source
