"""TaggerService: texts -> knowledge units through the Tagger port (`ctx.tagger`): the tritonclient
adapter to the OIP v2 `tagger` model when SCICUSTOM_TAGGER_URL is set, else the tagger in process."""

from __future__ import annotations

import grpc

from scicustom.bootstrap import Context
from scicustom.core.errors import PreconditionFailed
from scicustom.grpc_server.field_checks import checked_list, checked_text
from scicustom.grpc_server.server import ServiceBinding
from scicustom.ports import UnitScore
from scicustom.tagger.v1 import tagger_pb2 as pb
from scicustom.tagger.v1 import tagger_pb2_grpc as pb_grpc

SERVICE_NAME = "scicustom.tagger.v1.TaggerService"
MAX_BATCH = 256


class TaggerServicer(pb_grpc.TaggerServiceServicer):
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def Tag(self, request: pb.TagRequest, context: grpc.ServicerContext) -> pb.TagResponse:
        checked_text(request.text, "text")
        (tags,), version = self._tag([request.text], request.top_k, context)
        return pb.TagResponse(tags=tags, tagger_version=version)

    def TagBatch(self, request: pb.TagBatchRequest, context: grpc.ServicerContext) -> pb.TagBatchResponse:
        checked_list(request.texts, "texts", MAX_BATCH)
        for i, text in enumerate(request.texts):
            checked_text(text, f"texts[{i}]")
        tags, version = self._tag(list(request.texts), request.top_k, context)
        return pb.TagBatchResponse(tags=tags, tagger_version=version)

    def _tag(self, texts: list[str], top_k: int, context: grpc.ServicerContext) -> tuple[list[pb.TextTags], str]:
        tagger = self.ctx.tagger
        try:
            assigned = tagger.tag(texts)
        except Exception as exc:
            from scicustom.adapters.triton_tagger import RemoteTaggerError

            if isinstance(exc, RemoteTaggerError):  # the model server is down or failing: worth a retry
                context.abort(grpc.StatusCode.UNAVAILABLE, f"the tagger model server failed: {exc}")
            raise
        return [self._message(units[:top_k] if top_k else units) for units in assigned], tagger.version

    def _message(self, units: list[UnitScore]) -> pb.TextTags:
        catalog = self.ctx.catalog
        scores = []
        for unit in units:
            try:
                name = catalog.by_id(unit.unit_id).name
            except KeyError:
                raise PreconditionFailed(f"the tagger assigns unit {unit.unit_id!r}, which the unit set "
                                         "does not have; tag with a tagger trained on this unit set") from None
            scores.append(pb.UnitScore(unit_id=unit.unit_id, unit_name=name, score=unit.score))
        return pb.TextTags(units=scores)


def binding(ctx: Context) -> ServiceBinding:
    servicer = TaggerServicer(ctx)
    return ServiceBinding(SERVICE_NAME, lambda server: pb_grpc.add_TaggerServiceServicer_to_server(servicer, server))
