"""Topic names and the stage table: what each worker stage consumes and publishes."""

from __future__ import annotations

from dataclasses import dataclass

from scicustom.app.build.build_records import BUILD_STAGES

INGEST_STAGES = ("tag", "index")
PAPER_STAGES = ("parse", "extract-qa", "extract-recipes", "extract-hypotheses")
STANDING_STAGES = ("standing", "standing-notify")
STAGES = (*INGEST_STAGES, *PAPER_STAGES, *BUILD_STAGES, *STANDING_STAGES)

# Event types; the topic of a type is "<prefix>.<type>".
BUILD_REQUESTED = "build.requested"
BUILD_COMPLETED = "build.completed"
BUILD_FAILED = "build.failed"
BUILD_UPDATED = "build.updated"
ITEMS_IMPORTED = "ingest.items-imported"
ITEMS_TAGGED = "ingest.items-tagged"
ITEMS_INDEXED = "ingest.items-indexed"
PAPER_SUBMITTED = "paper.submitted"
PAPER_PARSED = "paper.parsed"
_CONSUMES = {
    "tag": ITEMS_IMPORTED, "index": ITEMS_TAGGED,
    "parse": PAPER_SUBMITTED, "extract-qa": PAPER_PARSED, "extract-recipes": PAPER_PARSED,
    "extract-hypotheses": PAPER_PARSED,
    "vote": BUILD_REQUESTED, "candidates": "build.units-voted", "cutoff": "build.candidates-ready",
    "select": "build.cutoff-found", "generate": "build.subset-selected", "complete": "build.benchmark-generated",
    "standing": ITEMS_INDEXED, "standing-notify": BUILD_COMPLETED,
}
_PUBLISHES = {
    "tag": ITEMS_TAGGED, "index": ITEMS_INDEXED,
    "parse": PAPER_PARSED, "extract-qa": "paper.extracted-qa", "extract-recipes": "paper.extracted-recipes",
    "extract-hypotheses": "paper.extracted-hypotheses",
    "vote": "build.units-voted", "candidates": "build.candidates-ready", "cutoff": "build.cutoff-found",
    "select": "build.subset-selected", "generate": "build.benchmark-generated", "complete": BUILD_COMPLETED,
    "standing": BUILD_REQUESTED, "standing-notify": BUILD_UPDATED,
}


@dataclass(frozen=True)
class Topics:
    prefix: str = "scicustom"

    def of(self, event_type: str) -> str:
        return f"{self.prefix}.{event_type}"

    def consumed_by(self, stage: str) -> str:
        return self.of(_CONSUMES[stage])

    def published_by(self, stage: str) -> str:
        return self.of(_PUBLISHES[stage])

    def dead_letters(self, stage: str) -> str:
        return f"{self.prefix}.dlq.{stage}"

    def group(self, stage: str) -> str:
        return f"{self.prefix}-{stage}"

    def all(self) -> list[str]:
        """Every topic the platform uses (`scicustom cluster init` creates them)."""
        types = {*_CONSUMES.values(), *_PUBLISHES.values(), BUILD_FAILED}
        return sorted({self.of(t) for t in types} | {self.dead_letters(s) for s in (*STAGES, "submit")})


def published_type(stage: str) -> str:
    return _PUBLISHES[stage]
