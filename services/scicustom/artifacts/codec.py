"""Conversions between core artifacts and their protobuf messages (scicustom.artifacts.v1),
the wire form services exchange."""

from __future__ import annotations

from scicustom.artifacts.v1 import artifacts_pb2 as pb
from scicustom.core.build.mcq import MCQ
from scicustom.core.build.pipeline import BuildParams
from scicustom.core.corpus_item import CorpusItem
from scicustom.core.requirement import Requirement
from scicustom.core.units import KnowledgeUnit

_FORMATS = {"mcq": pb.ITEM_FORMAT_MCQ, "open": pb.ITEM_FORMAT_OPEN}
_FORMAT_NAMES = {v: k for k, v in _FORMATS.items()}


def unit_to_proto(unit: KnowledgeUnit) -> pb.KnowledgeUnit:
    return pb.KnowledgeUnit(id=unit.id, name=unit.name, domain=unit.domain, keywords=list(unit.keywords))


def unit_from_proto(msg: pb.KnowledgeUnit) -> KnowledgeUnit:
    return KnowledgeUnit(id=msg.id, name=msg.name, domain=msg.domain, keywords=tuple(msg.keywords))


def item_to_proto(item: CorpusItem, unit_ids: list[str] | None = None, hardness: float = 0.0,
                  quality: float = 0.0) -> pb.CorpusItem:
    return pb.CorpusItem(
        id=item.id, source=item.source, licence=item.licence, subject=item.subject, question=item.question,
        options=list(item.options), answer_index=-1 if item.answer_index is None else item.answer_index,
        answer=item.answer, format=_FORMATS[item.format], unit_ids=unit_ids or [], hardness=hardness,
        quality=quality)


def item_from_proto(msg: pb.CorpusItem) -> CorpusItem:
    if msg.format not in _FORMAT_NAMES:
        raise ValueError(f"item {msg.id!r}: format is unspecified")
    return CorpusItem(id=msg.id, source=msg.source, licence=msg.licence, subject=msg.subject,
                      question=msg.question, options=tuple(msg.options),
                      answer_index=None if msg.answer_index < 0 else msg.answer_index, answer=msg.answer,
                      format=_FORMAT_NAMES[msg.format])  # type: ignore[arg-type]


def mcq_to_proto(mcq: MCQ) -> pb.MCQ:
    p = mcq.provenance
    return pb.MCQ(id=mcq.id, query=mcq.query, answer=mcq.answer, distractor_method=mcq.distractor_method,
                  choices=list(mcq.choices),
                  provenance=pb.Provenance(source_item_id=p["source_item_id"], source=p["source"],
                                           licence=p["licence"], units=list(p["units"]),
                                           candidate_rank=p["candidate_rank"]))


def mcq_from_proto(msg: pb.MCQ) -> MCQ:
    p = msg.provenance
    provenance = {"source_item_id": p.source_item_id, "source": p.source, "licence": p.licence,
                  "units": list(p.units), "candidate_rank": p.candidate_rank}
    return MCQ(msg.id, msg.query, msg.answer, provenance, msg.distractor_method, choices=tuple(msg.choices))


def build_spec_to_proto(requirement: Requirement, params: BuildParams, voting_judges: list[str],
                        relevance_judges: list[str], mcq_writer: str = "") -> pb.BuildSpec:
    return pb.BuildSpec(
        requirement_name=requirement.name, domain=requirement.domain, description=requirement.description,
        k1=params.k1, k2=params.k2, proxy_samples=params.proxy_samples, seed=params.seed, method=params.method,
        voting_judges=voting_judges, relevance_judges=relevance_judges, mcq_writer=mcq_writer)


def build_spec_from_proto(msg: pb.BuildSpec) -> tuple[Requirement, BuildParams]:
    requirement = Requirement(name=msg.requirement_name, domain=msg.domain, description=msg.description,
                              k1=msg.k1, k2=msg.k2, proxy_samples=msg.proxy_samples)
    params = BuildParams(method=msg.method, k1=msg.k1, k2=msg.k2, proxy_samples=msg.proxy_samples, seed=msg.seed)
    params.validate()
    return requirement, params
