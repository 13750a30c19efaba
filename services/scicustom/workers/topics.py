"""Topic names and the stage table: what each worker stage consumes and publishes."""

from __future__ import annotations

from dataclasses import dataclass

from scicustom.app.build.build_records import BUILD_STAGES

INGEST_STAGES = ("tag", "index")
STAGES = (*INGEST_STAGES, *BUILD_STAGES)

# Event types; the topic of a type is "<prefix>.<type>".
BUILD_REQUESTED = "build.requested"
BUILD_COMPLETED = "build.completed"
BUILD_FAILED = "build.failed"
ITEMS_IMPORTED = "ingest.items-imported"
ITEMS_TAGGED = "ingest.items-tagged"
ITEMS_INDEXED = "ingest.items-indexed"
_CONSUMES = {
    "tag": ITEMS_IMPORTED, "index": ITEMS_TAGGED,
    "vote": BUILD_REQUESTED, "candidates": "build.units-voted", "cutoff": "build.candidates-ready",
    "select": "build.cutoff-found", "generate": "build.subset-selected", "complete": "build.benchmark-generated",
}
_PUBLISHES = {
    "tag": ITEMS_TAGGED, "index": ITEMS_INDEXED,
    "vote": "build.units-voted", "candidates": "build.candidates-ready", "cutoff": "build.cutoff-found",
    "select": "build.subset-selected", "generate": "build.benchmark-generated", "complete": BUILD_COMPLETED,
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
        return sorted({self.of(t) for t in types} | {self.dead_letters(s) for s in STAGES})


def published_type(stage: str) -> str:
    return _PUBLISHES[stage]
