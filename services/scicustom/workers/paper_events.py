"""The events that start a paper's stages: paper.submitted for a stored paper, and the dead-letter
record of a submission refused before any stage ran (over the size limit, empty). The CLI, the gRPC
servicer and the incoming-prefix poller hand these to the submission use cases (app/papers)."""

from __future__ import annotations

from dataclasses import dataclass

from scicustom.app.papers.paper_records import PaperKeys
from scicustom.events.v1 import events_pb2 as ev
from scicustom.ports import EventBus, ObjectStore
from scicustom.workers.envelopes import envelope, publish, ref_of
from scicustom.workers.topics import PAPER_SUBMITTED, Topics


@dataclass(frozen=True)
class PaperSubmittedPublisher:
    """Announces a stored paper on paper.submitted and waits until that is durable (the `announce` of
    the submission use cases)."""

    store: ObjectStore
    bus: EventBus
    topics: Topics

    def __call__(self, paper_id: str, file_name: str) -> None:
        body = ev.PaperEvent(artifact=ref_of(self.store, PaperKeys(paper_id).source), file_name=file_name)
        publish(self.bus, self.topics.of(PAPER_SUBMITTED), paper_id,
                envelope(PAPER_SUBMITTED, batch_id=paper_id, paper=body))
        self.bus.flush()


@dataclass(frozen=True)
class RefusedPaperDeadLetters:
    """The dead-letter record of a submission refused before any stage (over the size limit, empty)."""

    bus: EventBus
    topics: Topics

    def __call__(self, paper_id: str, stage: str, reason: str) -> None:
        letter = ev.DeadLetter(stage=stage, topic="", error=reason[:2000], attempts=1)
        self.bus.send(self.topics.dead_letters(stage), letter.SerializeToString(), key=paper_id)
        self.bus.flush()
