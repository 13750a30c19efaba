"""Create, read, list, watch and cancel distributed builds (BuildService's use case).

Nothing is kept in memory (any replica can answer for any build): a build is what its request and
its stage workers wrote under builds/<id>/ (build_records.py). Creating a build stores its spec;
the caller announces it (build.requested) with the returned spec reference.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from scicustom.app.build.build_records import (
    REQUESTS_PREFIX,
    BuildRecords,
    BuildState,
    StoredObject,
    StoreHolder,
    list_build_ids,
    new_build_id,
    put_object,
)
from scicustom.app.build.build_spec import BuildSpec
from scicustom.app.build.request import BuildRequest, checked_request_id
from scicustom.app.build.standing import StandingBuilds
from scicustom.app.field_checks import at_most, bounded
from scicustom.core.canonical_json import canonical_bytes
from scicustom.core.errors import InvalidInput
from scicustom.ports import ObjectStore

MAX_PAGE = 100
DEFAULT_PAGE = 20
WATCH_POLL_S = 0.2
MAX_STANDING_MIN_NEW_ITEMS = 100000


@dataclass(frozen=True)
class CreatedBuild:
    build_id: str
    spec: StoredObject | None  # the stored spec of a new build; None when the request id had one


@dataclass(frozen=True)
class BuildPage:
    builds: list[BuildState]
    next_page_token: str  # empty on the last page


class BuildControl:
    def __init__(self, holder: StoreHolder) -> None:
        self._holder = holder

    @property
    def store(self) -> ObjectStore:
        return self._holder.store

    def records(self, build_id: str, field: str = "build_id") -> BuildRecords:
        if not build_id:
            raise InvalidInput(field, "is empty")
        if "/" in build_id or build_id.startswith("."):
            raise InvalidInput(field, f"{build_id!r} is not a build id")
        return BuildRecords(self.store, build_id)

    def create(self, request: BuildRequest, request_id: str = "", since_build_id: str = "",
               standing_min_new_items: int = 0) -> CreatedBuild:
        """Idempotent on `request_id`: a repeated id names the build the first request created.
        `since_build_id`: a succeeded build the outputs are compared with (diff.json);
        `standing_min_new_items` > 0 also makes the build standing (app/build/standing.py)."""
        checked_request_id(request_id)
        at_most(standing_min_new_items, "standing_min_new_items", MAX_STANDING_MIN_NEW_ITEMS)
        if since_build_id:
            previous = self.records(since_build_id, "since_build_id")
            if not previous.exists():
                raise InvalidInput("since_build_id", f"no build {since_build_id!r}")
            if previous.state().state != "succeeded":
                raise InvalidInput("since_build_id", f"build {since_build_id} has not succeeded")
        request_key = ""
        if request_id:
            request_key = f"{REQUESTS_PREFIX}{hashlib.sha256(request_id.encode()).hexdigest()}.json"
            if self.store.exists(request_key):
                return CreatedBuild(self.records(json.loads(self.store.get_bytes(request_key))["build_id"]).build_id,
                                    None)
        records = BuildRecords(self.store, new_build_id(request_id))
        standing_id = f"s{records.build_id[1:]}" if standing_min_new_items else ""
        created = self._store_spec(records, BuildSpec.of(request), request.requirement.name, request_id,
                                   since_build_id, standing_id)
        if standing_id:
            StandingBuilds(self._holder).register(standing_id, records.build_id, standing_min_new_items)
        if request_key:
            self.store.put_bytes(request_key, json.dumps({"build_id": records.build_id}).encode())
        return created

    def _store_spec(self, records: BuildRecords, spec: BuildSpec, requirement_name: str, request_id: str,
                    since_build_id: str, standing_id: str) -> CreatedBuild:
        stored = {"spec": spec.to_record(), "created": datetime.now(UTC).isoformat(),
                  "requirement_name": requirement_name, "request_id": request_id,
                  "since_build_id": since_build_id, "standing_id": standing_id}
        return CreatedBuild(records.build_id, put_object(self.store, records.spec_key, canonical_bytes(stored)))

    def rebuild(self, spec_build_id: str, since_build_id: str, standing_id: str) -> CreatedBuild:
        """A standing build's update: the spec of `spec_build_id` again, compared with `since_build_id`
        (its last succeeded build; empty when none succeeded)."""
        previous = self.records(spec_build_id)
        stored = previous.read_json(previous.spec_key)
        return self._store_spec(BuildRecords(self.store, new_build_id()), BuildSpec.from_record(stored["spec"]),
                                stored["requirement_name"], "", since_build_id, standing_id)

    def get(self, build_id: str) -> BuildState:
        return self.records(build_id).state()

    def list(self, page_size: int, page_token: str) -> BuildPage:
        """Newest first; `page_size` 0 takes the default page."""
        size = bounded(page_size, "page_size", MAX_PAGE, DEFAULT_PAGE)
        newest_first = list(reversed(list_build_ids(self.store)))
        if page_token:
            if page_token not in newest_first:
                raise InvalidInput("page_token", "is not a token this service returned")
            newest_first = newest_first[newest_first.index(page_token) + 1:]
        page = newest_first[:size]
        token = page[-1] if len(newest_first) > size else ""
        return BuildPage([self.records(b).state() for b in page], token)

    def watch(self, build_id: str, active: Callable[[], bool], poll_s: float = WATCH_POLL_S) -> Iterator[BuildState]:
        """Each change of the build's state, until it ends or the caller goes away."""
        records = self.records(build_id)
        last: BuildState | None = None
        while active():
            state = records.state()
            if state != last:
                yield state
                last = state
            if state.terminal:
                return
            time.sleep(poll_s)

    def cancel(self, build_id: str) -> BuildState:
        """Asks the build to stop at its next stage; a build that has ended is left as it is."""
        records = self.records(build_id)
        state = records.state()
        if not state.terminal and not self.store.exists(records.cancel_key):
            records.write_json(records.cancel_key, {"requested": datetime.now(UTC).isoformat()})
        return records.state()
