"""Standing builds: a build that follows the literature.

A standing build (CreateBuild with `standing_min_new_items` > 0) keeps a record under
`standing/<id>.json`: its latest build, the last one that succeeded, and how many newly indexed
items carry one of that build's voted units. Each ingest.items-indexed batch is counted once (its
id is remembered); when the count reaches the threshold and the latest build is finished, a new
build with the same spec is created, compared with the last succeeded one (diff.json), and the
count starts again. The `standing` worker announces that build (build.requested); `standing-notify`
turns its build.completed into build.updated.

One `standing` worker runs (the chart pins it to one replica): the record is read, changed and
written back, and the object store has no compare-and-set.

The records are one platform-wide index (every indexed batch is counted against all of them), each
naming its tenant; the builds they make live under that tenant's prefix (app/tenancy.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from scicustom.app.build.build_records import BuildRecords, StoreHolder
from scicustom.app.stored_json import read_json, write_json
from scicustom.app.tenancy import LOCAL_TENANT
from scicustom.core.errors import InvalidInput

if TYPE_CHECKING:
    from scicustom.app.build.control import CreatedBuild

STANDING_PREFIX = "standing/"
REMEMBERED_BATCHES = 2000  # counted batch ids kept per record (redelivered events are recent)
# (spec of this build, compare with this build or "", standing id, tenant) -> the new build
RebuildFn = Callable[[str, str, str, str], "CreatedBuild"]


@dataclass
class StandingRecord:
    standing_id: str
    min_new_items: int
    latest_build_id: str
    last_succeeded_build_id: str = ""
    pending: int = 0                                   # new items carrying a voted unit since the latest build
    counted_batches: list[str] = field(default_factory=list)
    builds: list[str] = field(default_factory=list)    # every build of this standing build, oldest first
    tenant: str = LOCAL_TENANT                         # whose builds these are (records before tenancy: local)

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> StandingRecord:
        return cls(**record)


@dataclass(frozen=True)
class UpdatedBuild:
    """What build.updated says about a standing build's new build."""

    standing_id: str
    build_id: str
    previous_build_id: str
    diff_key: str
    added: int
    removed: int
    n_mcq: int


class StandingBuilds:
    def __init__(self, holder: StoreHolder) -> None:
        self._holder = holder

    def _key(self, standing_id: str) -> str:
        if not standing_id or "/" in standing_id or standing_id.startswith("."):
            raise InvalidInput("standing_id", f"{standing_id!r} is not a standing build id")
        return f"{STANDING_PREFIX}{standing_id}.json"

    def register(self, standing_id: str, build_id: str, min_new_items: int,
                 tenant: str = LOCAL_TENANT) -> StandingRecord:
        record = StandingRecord(standing_id, min_new_items, build_id, builds=[build_id], tenant=tenant)
        self._save(record)
        return record

    def get(self, standing_id: str) -> StandingRecord:
        record = read_json(self._holder.store, self._key(standing_id))
        if record is None:
            raise InvalidInput("standing_id", f"no standing build {standing_id!r}")
        return StandingRecord.from_record(record)

    def ids(self) -> list[str]:
        return sorted(k[len(STANDING_PREFIX):-len(".json")] for k in self._holder.store.list_keys(STANDING_PREFIX)
                      if k.endswith(".json"))

    def _save(self, record: StandingRecord) -> None:
        write_json(self._holder.store, self._key(record.standing_id), asdict(record))

    def count_batch(self, batch_id: str, tagged: Sequence[tuple[str, Iterable[str]]],
                    rebuild: RebuildFn) -> list[CreatedBuild]:
        """Counts an indexed batch (item id, its unit ids) towards every standing build; returns the
        builds this made (to announce). Counting the same batch again changes nothing."""
        created = []
        for standing_id in self.ids():
            record = self.get(standing_id)
            latest = BuildRecords(self._holder.store, record.latest_build_id, record.tenant)
            state = latest.state().state
            if state == "succeeded":
                record.last_succeeded_build_id = record.latest_build_id
            if batch_id not in record.counted_batches:
                voted = _voted_units(latest)
                record.pending += sum(1 for _, units in tagged if voted.intersection(units))
                record.counted_batches = [*record.counted_batches, batch_id][-REMEMBERED_BATCHES:]
            if record.pending >= record.min_new_items and state in ("succeeded", "failed", "cancelled"):
                build = rebuild(record.latest_build_id, record.last_succeeded_build_id, standing_id, record.tenant)
                record.latest_build_id, record.pending = build.build_id, 0
                record.builds.append(build.build_id)
                created.append(build)
            self._save(record)
        return created

    def updated(self, build_id: str, tenant: str = LOCAL_TENANT) -> UpdatedBuild | None:
        """build.updated for a finished build of a standing build that was compared with an earlier one."""
        records = BuildRecords(self._holder.store, build_id, tenant)
        if not records.exists():
            return None
        stored = records.read_json(records.spec_key)
        standing_id, previous = stored.get("standing_id", ""), stored.get("since_build_id", "")
        diff_key = records.output_key("diff.json")
        if not standing_id or not previous or not self._holder.store.exists(diff_key):
            return None
        diff = records.read_json(diff_key)
        return UpdatedBuild(standing_id, build_id, previous, diff_key, len(diff["questions"]["added"]),
                            len(diff["questions"]["removed"]), int(diff["questions"]["n_after"]))


def _voted_units(records: BuildRecords) -> set[str]:
    """The voted unit ids of a build once its vote stage is done (none for methods that do not vote)."""
    if not records.store.exists(records.stage_key("vote")):
        return set()
    votes = records.stage_record("vote").get("votes")
    return set(votes["units"]) if votes else set()
