"""GeneratorService: proto <-> the MCQ generation use case (app/mcq_generation.py): items -> MCQs
as a build's generation stage makes them."""

from __future__ import annotations

import grpc

from scicustom.app.build.output_writer import canonical_json_line
from scicustom.app.mcq_generation import InlineItem, ItemToConvert, MCQGenerator
from scicustom.bootstrap import Context
from scicustom.core.build.mcq import MCQ
from scicustom.generator.v1 import generator_pb2 as pb
from scicustom.generator.v1 import generator_pb2_grpc as pb_grpc
from scicustom.grpc_server.server import ServiceBinding
from scicustom.grpc_server.status_mapping import check_deadline

SERVICE_NAME = "scicustom.generator.v1.GeneratorService"


def item_to_convert(message: pb.ItemToConvert) -> ItemToConvert:
    form = message.WhichOneof("item")
    inline = None
    if form == "inline":
        m = message.inline
        inline = InlineItem(question=m.question, options=list(m.options), answer_index=m.answer_index,
                            answer=m.answer, id=m.id, source=m.source, licence=m.licence, unit_ids=list(m.unit_ids))
    provenance = message.provenance
    return ItemToConvert(item_id=message.item_id if form == "item_id" else None, inline=inline,
                         provenance_unit_ids=list(provenance.unit_ids),
                         candidate_rank=provenance.candidate_rank if provenance.HasField("candidate_rank") else None)


def mcq_message(mcq: MCQ) -> pb.MCQ:
    p = mcq.provenance
    provenance = pb.Provenance(source_item_id=p["source_item_id"], source=p["source"], licence=p["licence"],
                               units=p["units"])
    if "candidate_rank" in p:
        provenance.candidate_rank = p["candidate_rank"]
    # record_json: the question's line of benchmark.jsonl, without the newline
    return pb.MCQ(id=mcq.id, query=mcq.query, answer=mcq.answer, distractor_method=mcq.distractor_method,
                  provenance=provenance, record_json=canonical_json_line(mcq.to_record()))


class GeneratorServicer(pb_grpc.GeneratorServiceServicer):
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.generator = MCQGenerator(ctx)

    def ToMCQ(self, request: pb.ToMCQRequest, context: grpc.ServicerContext) -> pb.ToMCQResponse:
        done = self.generator.convert([item_to_convert(m) for m in request.items], request.seed,
                                      request.mcq_writer_model, request.domain, lambda: check_deadline(context))
        return pb.ToMCQResponse(results=[
            pb.ItemResult(item_id=r.item_id, left_out=r.left_out) if r.mcq is None
            else pb.ItemResult(item_id=r.item_id, mcq=mcq_message(r.mcq)) for r in done.results],
            warnings=done.warnings, mcq_writer=done.mcq_writer)


def binding(ctx: Context) -> ServiceBinding:
    servicer = GeneratorServicer(ctx)
    return ServiceBinding(SERVICE_NAME,
                          lambda server: pb_grpc.add_GeneratorServiceServicer_to_server(servicer, server))
