"""TaggerService: texts -> knowledge units through the Tagger port (`ctx.tagger`): the tritonclient
adapter to the OIP v2 `tagger` model when SCICUSTOM_TAGGER_URL is set, else the tagger in process."""

from __future__ import annotations

from collections.abc import Callable

import grpc

from scicustom.app.tagging.text_tagging import TaggedTexts, tag_text, tag_texts
from scicustom.bootstrap import Context
from scicustom.core.errors import RemoteTaggerError
from scicustom.core.units import UnitCatalog
from scicustom.grpc_server.server import ServiceBinding
from scicustom.ports import Tagger
from scicustom.tagger.v1 import tagger_pb2 as pb
from scicustom.tagger.v1 import tagger_pb2_grpc as pb_grpc

SERVICE_NAME = "scicustom.tagger.v1.TaggerService"


class TaggerServicer(pb_grpc.TaggerServiceServicer):
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def Tag(self, request: pb.TagRequest, context: grpc.ServicerContext) -> pb.TagResponse:
        result = self._call(lambda: tag_text(request.text, request.top_k, self._tagger, self._catalog), context)
        return pb.TagResponse(tags=_messages(result)[0], tagger_version=result.tagger_version)

    def TagBatch(self, request: pb.TagBatchRequest, context: grpc.ServicerContext) -> pb.TagBatchResponse:
        result = self._call(lambda: tag_texts(list(request.texts), request.top_k, self._tagger, self._catalog),
                            context)
        return pb.TagBatchResponse(tags=_messages(result), tagger_version=result.tagger_version)

    def _tagger(self) -> Tagger:
        return self.ctx.tagger

    def _catalog(self) -> UnitCatalog:
        return self.ctx.catalog

    @staticmethod
    def _call(use_case: Callable[[], TaggedTexts], context: grpc.ServicerContext) -> TaggedTexts:
        try:
            return use_case()
        except RemoteTaggerError as exc:  # the model server is down or failing: worth a retry
            context.abort(grpc.StatusCode.UNAVAILABLE, f"the tagger model server failed: {exc}")
            raise


def _messages(result: TaggedTexts) -> list[pb.TextTags]:
    return [pb.TextTags(units=[pb.UnitScore(unit_id=u.unit_id, unit_name=u.unit_name, score=u.score) for u in row])
            for row in result.tags]


def binding(ctx: Context) -> ServiceBinding:
    servicer = TaggerServicer(ctx)
    return ServiceBinding(SERVICE_NAME, lambda server: pb_grpc.add_TaggerServiceServicer_to_server(servicer, server))
