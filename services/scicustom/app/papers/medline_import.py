"""`papers import --medline FILE.xml.gz`: each PubmedArticle of a MEDLINE/PubMed file is submitted as a
paper of its own (its abstract), through the same submission checks and stages as any upload."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from scicustom.app.papers.paper_records import PaperStatus
from scicustom.app.papers.submission import AnnouncePaper, DeadLetterPaper, SubmitLimits, submit_paper_bytes
from scicustom.core.errors import InvalidInput
from scicustom.core.papers.document import UnreadablePaper
from scicustom.core.papers.medline import split_medline
from scicustom.ports import ObjectStore


@dataclass
class MedlineImport:
    articles: int = 0
    submitted: int = 0
    duplicates: int = 0
    failed: int = 0
    papers: list[PaperStatus] = field(default_factory=list)


def medline_articles(path: Path, limit: int | None = None) -> Iterator[bytes]:
    """The file's articles (gzip or plain XML), each as a document of its own, at most `limit`."""
    if not path.is_file():
        raise InvalidInput("--medline", f"{path} is not a file")
    with path.open("rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        stream: IO[bytes] = gzip.GzipFile(fileobj=raw) if gzipped else raw  # type: ignore[assignment]
        for n, article in enumerate(split_medline(stream)):
            if limit is not None and n >= limit:
                return
            yield article


def import_medline(store: ObjectStore, announce: AnnouncePaper, dead_letter: DeadLetterPaper, path: Path,
                   limits: SubmitLimits, limit: int | None = None, keep_statuses: bool = True) -> MedlineImport:
    """Submits each article of the file (at most `limit`); InvalidInput when the file is unreadable."""
    report = MedlineImport()
    try:
        for n, article in enumerate(medline_articles(path, limit)):
            report.articles += 1
            status = submit_paper_bytes(store, announce, dead_letter, f"{path.name}#{n + 1}.xml", article, limits)
            report.duplicates += status.duplicate
            report.failed += status.state == "failed"
            report.submitted += not status.duplicate and status.state != "failed"
            if keep_statuses:
                report.papers.append(status)
    except (UnreadablePaper, OSError, EOFError) as exc:
        raise InvalidInput("--medline", f"{path}: {exc}") from None
    return report
