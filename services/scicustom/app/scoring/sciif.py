"""Audit model answers for scientific instruction following (SciIF, paper 002): `scicustom score
sciif` and ScorerService.AuditInstructionFollowing.

Without judges only the rules decide: points they cannot decide are undecided, never passed. With
`generate_with`, the answers that model has not given yet are first generated with the paper's
answer prompt.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scicustom.app.field_checks import at_most, checked_text
from scicustom.app.yaml_documents import load_plain_yaml
from scicustom.config import RESOURCES
from scicustom.core.errors import InvalidInput
from scicustom.core.llm_usage import LLMUsage, MeteredLLM
from scicustom.core.sciif.audit import ItemAudit, Mode, SciIFAuditor, generate_answer
from scicustom.core.sciif.catalog import Catalog, parse_catalog
from scicustom.core.sciif.evidence_rules import RuleVerifier
from scicustom.core.sciif.items import ModelAnswer, SciIFItem
from scicustom.core.sciif.quantities import UnitParser
from scicustom.core.sciif.report import build_report
from scicustom.ports import LLM

DEFAULT_CATALOG = RESOURCES / "sciif" / "catalog.yaml"
MAX_JUDGES = 4
MAX_MODEL_CHARS = 200
MAX_WORKERS = 16
DEFAULT_WORKERS = 4


def load_catalog(path: Path = DEFAULT_CATALOG) -> Catalog:
    if not path.is_file():
        raise InvalidInput("--catalog", f"{path} does not exist")
    data = load_plain_yaml(path.read_text(encoding="utf-8"), "--catalog")
    if not isinstance(data, dict):
        raise InvalidInput("--catalog", "expected a mapping")
    return parse_catalog(data)


@dataclass(frozen=True)
class AuditRequest:
    items: Sequence[SciIFItem]
    answers: Sequence[ModelAnswer]
    judges: Sequence[str] = ()  # a point passes only if every judge passes it
    mode: Mode = "strict"  # loose: only the MAIN evidence points must pass
    gate_on_correctness: bool = False
    generate_with: str = ""
    evidence_patterns: bool = True  # missing evidence patterns fail a point
    workers: int = DEFAULT_WORKERS


@dataclass(frozen=True)
class AuditResult:
    audits: list[ItemAudit]
    report: dict[str, Any]  # REPORT.json; its "usage" is None when no LLM was called
    generated: list[ModelAnswer]
    usage: LLMUsage | None

    def report_json(self) -> str:
        return json.dumps(self.report, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def audit_answers(request: AuditRequest, catalog: Catalog, llm: Callable[[], LLM],
                  after_generation: Callable[[Sequence[ModelAnswer]], None] = lambda generated: None) -> AuditResult:
    """`llm` is called only with judges or generate_with; `after_generation` gets the generated
    answers before the audit starts (the CLI saves them, the service checks its deadline)."""
    _check(request)
    items, judges = request.items, list(request.judges)
    answers = list(request.answers)
    metered = MeteredLLM(llm()) if (judges or request.generate_with) else None
    generated: list[ModelAnswer] = []
    if request.generate_with and metered is not None:
        generated = generate_missing(metered, request.generate_with, items, answers, request.workers)
        answers = [*answers, *generated]
        after_generation(generated)
    verifier = RuleVerifier(UnitParser(), use_evidence_patterns=request.evidence_patterns)
    auditor = SciIFAuditor(catalog, verifier, llm=metered, judges=judges, mode=request.mode)
    audits = auditor.audit_many({item.id: item for item in items}, answers, workers=request.workers)
    answered = {(a.item_id, a.model) for a in answers}
    models = {a.model for a in answers}
    missing = sum(1 for m in models for item in items if (item.id, m) not in answered)
    report: dict[str, Any] = build_report(audits, catalog, mode=request.mode, judges=judges,
                                          gate_on_correctness=request.gate_on_correctness, missing_answers=missing)
    usage = metered.usage if metered is not None else None
    report["usage"] = usage.summary() if usage is not None else None
    return AuditResult(audits=audits, report=report, generated=generated, usage=usage)


def _check(request: AuditRequest) -> None:
    if len(request.judges) > MAX_JUDGES:
        raise InvalidInput("options.judges", f"has {len(request.judges)} entries; give 0..{MAX_JUDGES}")
    for k, judge in enumerate(request.judges):
        checked_text(judge, f"options.judges[{k}]", MAX_MODEL_CHARS)
    if request.generate_with:
        checked_text(request.generate_with, "options.generate_with", MAX_MODEL_CHARS)
    if request.workers < 1:
        raise InvalidInput("options.workers", "must be at least 1")
    at_most(request.workers, "options.workers", MAX_WORKERS)
    if not request.answers and not request.generate_with:
        raise InvalidInput("answers", "is empty; give answers or options.generate_with")


def generate_missing(llm: LLM, model: str, items: Sequence[SciIFItem], answers: Sequence[ModelAnswer],
                     workers: int) -> list[ModelAnswer]:
    """Answers of `model` to the items it has not answered yet (the response cache makes reruns free)."""
    have = {(a.item_id, a.model) for a in answers}
    todo = [item for item in items if (item.id, model) not in have]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        texts = list(pool.map(lambda item: generate_answer(llm, model, item), todo))
    return [ModelAnswer(item_id=item.id, model=model, text=text) for item, text in zip(todo, texts, strict=True)]
