"""The watched incoming prefix: each new object under it becomes a paper submission.

The object store's bucket notifications are not available everywhere (SeaweedFS has none), so the
poller lists the prefix; a marker per object key (and its size) records that it was taken, so a
restarted poller submits nothing twice, and a changed object under the same key is a new submission.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from scicustom.app.papers.paper_records import PaperStatus
from scicustom.app.papers.submission import AnnouncePaper, DeadLetterPaper, SubmitLimits, submit_paper_stream
from scicustom.app.stored_json import read_json, write_json
from scicustom.ports import ObjectStore

INCOMING_PREFIX = "incoming/"
SEEN_PREFIX = "papers/incoming-seen/"


@dataclass(frozen=True)
class IncomingPoller:
    store: ObjectStore
    announce: AnnouncePaper
    dead_letter: DeadLetterPaper
    limits: SubmitLimits = field(default_factory=SubmitLimits)
    prefix: str = INCOMING_PREFIX

    def poll(self) -> list[PaperStatus]:
        """Submits every object under the prefix not taken yet; their statuses, in key order."""
        taken = []
        for key in sorted(self.store.list_keys(self.prefix)):
            if key.endswith("/"):
                continue
            data = self.store.get_bytes(key)
            seen = hashlib.sha256(f"{key}\x1f{hashlib.sha256(data).hexdigest()}".encode()).hexdigest()[:32]
            marker = f"{SEEN_PREFIX}{seen}.json"
            if read_json(self.store, marker) is not None:
                continue
            status = submit_paper_stream(self.store, self.announce, self.dead_letter, key, [data], self.limits,
                                         declared_size=len(data))
            write_json(self.store, marker, {"key": key, "paper_id": status.paper_id})
            taken.append(status)
        return taken
