"""Create, read, list, watch and cancel distributed builds (BuildService's use case).

Nothing is kept in memory (any replica can answer for any build): a build is what its request and
its stage workers wrote under builds/<id>/ (build_records.py). Creating a build stores its spec,
then the caller's `announce` publishes build.requested, and only then is the idempotency key
recorded: a publish that fails leaves no key behind, so the caller's retry publishes again, and a
build without a key withdraws its spec (no QUEUED build whose event never went out). A keyed build's
id is derived from tenant + key (build_records.keyed_build_id): racing calls write the same bytes
and publish the same event id, which the idempotent stage workers handle once.

A BuildControl acts for one tenant (app/tenancy.py): it reads, lists, watches and cancels only that
tenant's builds, and another tenant's build id is NotFound, the same as an id that never existed.
Idempotency keys are the tenant's own too. A tenant may have at most `max_active` builds queued or
running at once; one more is QuotaExceeded. Two calls racing past the check may each create one,
so the bound can be passed by the number of concurrent calls, never by more.
"""

from __future__ import annotations

import hashlib
import json
import logging
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
    active_build_ids,
    creation_stamp,
    is_build_id,
    keyed_build_id,
    list_build_ids,
    new_build_id,
    put_object,
)
from scicustom.app.build.build_spec import BuildSpec
from scicustom.app.build.request import BuildRequest, checked_request_id
from scicustom.app.build.standing import StandingBuilds
from scicustom.app.field_checks import at_most, bounded
from scicustom.app.tenancy import LOCAL_TENANT, tenant_prefix
from scicustom.core.canonical_json import canonical_bytes
from scicustom.core.errors import InvalidInput, QuotaExceeded
from scicustom.ports import ObjectStore

log = logging.getLogger(__name__)
MAX_PAGE = 100
DEFAULT_PAGE = 20
WATCH_POLL_S = 0.2
MAX_WATCH_POLL_S = 1.0
MAX_STANDING_MIN_NEW_ITEMS = 100000
DEFAULT_MAX_ACTIVE_BUILDS = 20  # the setting max_active_builds_per_tenant's default


@dataclass(frozen=True)
class CreatedBuild:
    build_id: str
    spec: StoredObject | None  # the stored spec of a new build; None when the request id had one
    tenant: str = LOCAL_TENANT


@dataclass(frozen=True)
class BuildPage:
    builds: list[BuildState]
    next_page_token: str  # empty on the last page


class BuildControl:
    def __init__(self, holder: StoreHolder, tenant: str = LOCAL_TENANT,
                 max_active: int = DEFAULT_MAX_ACTIVE_BUILDS) -> None:
        self._holder = holder
        self.tenant = tenant
        self.max_active = max_active

    @property
    def store(self) -> ObjectStore:
        return self._holder.store

    def records(self, build_id: str, field: str = "build_id") -> BuildRecords:
        if not build_id:
            raise InvalidInput(field, "is empty")
        if not is_build_id(build_id):
            raise InvalidInput(field, f"{build_id[:80]!r} is not a build id")
        return BuildRecords(self.store, build_id, self.tenant)

    def create(self, request: BuildRequest, request_id: str = "", since_build_id: str = "",
               standing_min_new_items: int = 0,
               announce: Callable[[CreatedBuild], None] = lambda created: None) -> CreatedBuild:
        """Idempotent on `request_id`: a repeated id names the build the first request created.
        `since_build_id`: a succeeded build the outputs are compared with (diff.json);
        `standing_min_new_items` > 0 also makes the build standing (app/build/standing.py).
        `announce(created)` publishes the new build's build.requested (and flushes); its error is
        raised after the build is withdrawn (see the module's docstring)."""
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
            digest = hashlib.sha256(request_id.encode()).hexdigest()
            request_key = f"{tenant_prefix(self.tenant)}{REQUESTS_PREFIX}{digest}.json"
            if self.store.exists(request_key):
                return CreatedBuild(self.records(json.loads(self.store.get_bytes(request_key))["build_id"]).build_id,
                                    None, self.tenant)
            self._check_quota()  # after the lookup: a retry of a build already made is never refused
            records = self.records(keyed_build_id(self.tenant, request_id))
            # Each call leaves its own time marker (the earliest is the build's); the spec has no
            # time, so racing calls write equal bytes and announce equal spec hashes.
            self.store.put_bytes(records.created_key(creation_stamp()), b"{}")
        else:
            self._check_quota()
            records = self.records(new_build_id())
        standing_id = f"s{records.build_id[1:]}" if standing_min_new_items else ""
        created = self._store_spec(records, BuildSpec.of(request), request.requirement.name, request_id,
                                   since_build_id, standing_id, timed=not request_id)
        try:
            announce(created)
        except Exception:
            if not request_id:  # a keyed build may be a racing call's: its retry or the reaper announces it
                self._withdraw(records)
            raise
        if standing_id:
            StandingBuilds(self._holder).register(standing_id, records.build_id, standing_min_new_items, self.tenant)
        if request_key:
            self.store.put_bytes(request_key, json.dumps({"build_id": records.build_id}).encode())
        return created

    def _check_quota(self) -> None:
        active = len(active_build_ids(self.store, self.tenant))
        if active >= self.max_active:
            raise QuotaExceeded(f"max_active_builds_per_tenant: tenant {self.tenant!r} has {active} queued or "
                                f"running builds, the most it may have at once ({self.max_active}); retry when "
                                "one has ended, or cancel one")

    def _withdraw(self, records: BuildRecords) -> None:
        """Removes a build whose announcement failed; if the store fails too, the reaper announces it."""
        try:
            self.store.delete(records.spec_key)
        except Exception:
            log.warning("build %s: spec not withdrawn after a failed announcement", records.build_id, exc_info=True)

    def _store_spec(self, records: BuildRecords, spec: BuildSpec, requirement_name: str, request_id: str,
                    since_build_id: str, standing_id: str, timed: bool = True) -> CreatedBuild:
        """`timed`: the spec carries its creation time (a keyed build's is in its created/ markers)."""
        stored = {"spec": spec.to_record(), "requirement_name": requirement_name, "request_id": request_id,
                  "since_build_id": since_build_id, "standing_id": standing_id}
        if timed:
            stored["created"] = datetime.now(UTC).isoformat()
        return CreatedBuild(records.build_id, put_object(self.store, records.spec_key, canonical_bytes(stored)),
                            records.tenant)

    def rebuild(self, spec_build_id: str, since_build_id: str, standing_id: str) -> CreatedBuild:
        """A standing build's update: the spec of `spec_build_id` again, compared with `since_build_id`
        (its last succeeded build; empty when none succeeded)."""
        previous = self.records(spec_build_id)
        stored = previous.read_json(previous.spec_key)
        return self._store_spec(self.records(new_build_id()), BuildSpec.from_record(stored["spec"]),
                                stored["requirement_name"], "", since_build_id, standing_id)

    def get(self, build_id: str) -> BuildState:
        return self.records(build_id).state()

    def list(self, page_size: int, page_token: str) -> BuildPage:
        """Newest first; `page_size` 0 takes the default page."""
        size = bounded(page_size, "page_size", MAX_PAGE, DEFAULT_PAGE)
        newest_first = list(reversed(list_build_ids(self.store, self.tenant)))
        if page_token:
            if page_token not in newest_first:
                raise InvalidInput("page_token", "is not a token this service returned")
            newest_first = newest_first[newest_first.index(page_token) + 1:]
        page = newest_first[:size]
        token = page[-1] if len(newest_first) > size else ""
        return BuildPage([self.records(b).state() for b in page], token)

    def watch(self, build_id: str, active: Callable[[], bool], poll_s: float = WATCH_POLL_S,
              wait: Callable[[float], object] = time.sleep) -> Iterator[BuildState]:
        """Each change of the build's state, until it ends or the caller goes away. The pause between
        reads starts at `poll_s` and doubles up to MAX_WATCH_POLL_S while nothing changes (a stage runs
        for seconds to minutes: many watchers cost the store few reads); `wait(seconds)` is the pause,
        which an edge may end early when its caller leaves."""
        records = self.records(build_id)
        last: BuildState | None = None
        pause = poll_s
        while active():
            state = records.state()
            if state != last:
                yield state
                last, pause = state, poll_s
            else:
                pause = min(pause * 2, max(poll_s, MAX_WATCH_POLL_S))
            if state.terminal:
                return
            wait(pause)

    def cancel(self, build_id: str) -> BuildState:
        """Asks the build to stop at its next stage; a build that has ended is left as it is."""
        records = self.records(build_id)
        state = records.state()
        if not state.terminal and not self.store.exists(records.cancel_key):
            records.write_json(records.cancel_key, {"requested": datetime.now(UTC).isoformat()})
        return records.state()
