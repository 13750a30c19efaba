"""Standing builds as Kafka worker handlers (app/build/standing.py has the logic):

  standing         ingest.items-indexed -> counts the batch's items per standing build; when one has
                   enough new items on its voted units, build.requested for its next build
  standing-notify  build.completed -> build.updated when the build updates a standing build
"""

from __future__ import annotations

from scicustom.app.build.control import BuildControl, CreatedBuild
from scicustom.app.build.standing import StandingBuilds
from scicustom.app.ingest.item_batches import BatchKeys, is_batch_id, parse_tagged
from scicustom.bootstrap import Context
from scicustom.events.v1 import events_pb2 as ev
from scicustom.telemetry.metrics import process_metrics
from scicustom.workers.envelopes import PoisonEvent, envelope, get_artifact, ref_of
from scicustom.workers.stage_consumer import Outgoing
from scicustom.workers.topics import BUILD_REQUESTED, BUILD_UPDATED, Topics


class StandingCountHandler:
    stage = "standing"

    def __init__(self, ctx: Context, topics: Topics) -> None:
        self.ctx = ctx
        self.topics = topics
        self.standing = StandingBuilds(ctx)

    def handle(self, event: ev.Envelope) -> list[Outgoing]:
        if event.WhichOneof("body") != "items_batch" or not is_batch_id(event.batch_id):
            raise PoisonEvent("a standing worker handles items-indexed events of a batch")
        data = get_artifact(self.ctx.store, event.items_batch.items)  # PoisonEvent when missing or altered
        tagged, _ = parse_tagged(data, BatchKeys(event.batch_id).tagged)
        created = self.standing.count_batch(event.batch_id, [(t.item.id, [u for u, _ in t.tags]) for t in tagged],
                                            self._rebuild)
        out = []
        for build in created:
            assert build.spec is not None
            spec = ev.ArtifactRef(key=build.spec.key, sha256=build.spec.sha256, size_bytes=build.spec.size_bytes)
            out.append(Outgoing(self.topics.of(BUILD_REQUESTED), build.build_id,
                                envelope(BUILD_REQUESTED, build_id=build.build_id, tenant=build.tenant,
                                         build_requested=ev.BuildRequested(spec=spec))))
        if created:
            process_metrics().builds.labels("queued").inc(len(created))
        return out

    def _rebuild(self, spec_build_id: str, since_build_id: str, standing_id: str, tenant: str) -> CreatedBuild:
        """The next build of a standing build, as its own tenant's."""
        return BuildControl(self.ctx, tenant).rebuild(spec_build_id, since_build_id, standing_id)

    def on_dead_letter(self, event: ev.Envelope, error: str) -> list[Outgoing]:
        return []


class StandingNotifyHandler:
    stage = "standing-notify"

    def __init__(self, ctx: Context, topics: Topics) -> None:
        self.ctx = ctx
        self.topics = topics
        self.standing = StandingBuilds(ctx)

    def handle(self, event: ev.Envelope) -> list[Outgoing]:
        if event.WhichOneof("body") != "build_completed" or not event.build_id:
            raise PoisonEvent("a standing-notify worker handles build.completed events")
        updated = self.standing.updated(event.build_id, event.tenant)
        if updated is None:  # not a standing build's update: nothing to say
            return []
        body = ev.BuildUpdated(standing_id=updated.standing_id, previous_build_id=updated.previous_build_id,
                               diff=ref_of(self.ctx.store, updated.diff_key), added=updated.added,
                               removed=updated.removed, n_mcq=updated.n_mcq)
        return [Outgoing(self.topics.of(BUILD_UPDATED), event.build_id,
                         envelope(BUILD_UPDATED, build_id=event.build_id, tenant=event.tenant, build_updated=body))]

    def on_dead_letter(self, event: ev.Envelope, error: str) -> list[Outgoing]:
        return []


def stage_handlers(ctx: Context, stages: list[str],
                   topics: Topics) -> list[StandingCountHandler | StandingNotifyHandler]:
    kinds = {"standing": StandingCountHandler, "standing-notify": StandingNotifyHandler}
    return [kinds[s](ctx, topics) for s in stages]
