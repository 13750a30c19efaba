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
from scicustom.app.field_checks import bounded
from scicustom.core.canonical_json import canonical_bytes
from scicustom.core.errors import InvalidInput
from scicustom.ports import ObjectStore

MAX_PAGE = 100
DEFAULT_PAGE = 20
WATCH_POLL_S = 0.2


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

    def records(self, build_id: str) -> BuildRecords:
        if not build_id:
            raise InvalidInput("build_id", "is empty")
        if "/" in build_id or build_id.startswith("."):
            raise InvalidInput("build_id", f"{build_id!r} is not a build id")
        return BuildRecords(self.store, build_id)

    def create(self, request: BuildRequest, request_id: str = "") -> CreatedBuild:
        """Idempotent on `request_id`: a repeated id names the build the first request created."""
        checked_request_id(request_id)
        request_key = ""
        if request_id:
            request_key = f"{REQUESTS_PREFIX}{hashlib.sha256(request_id.encode()).hexdigest()}.json"
            if self.store.exists(request_key):
                return CreatedBuild(self.records(json.loads(self.store.get_bytes(request_key))["build_id"]).build_id,
                                    None)
        records = BuildRecords(self.store, new_build_id(request_id))
        stored = {"spec": BuildSpec.of(request).to_record(), "created": datetime.now(UTC).isoformat(),
                  "requirement_name": request.requirement.name, "request_id": request_id}
        spec = put_object(self.store, records.spec_key, canonical_bytes(stored))
        if request_key:
            self.store.put_bytes(request_key, json.dumps({"build_id": records.build_id}).encode())
        return CreatedBuild(records.build_id, spec)

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
