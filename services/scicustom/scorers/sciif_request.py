"""AuditInstructionFollowing: SciIF items and answers as `scicustom score sciif` reads them (ITEMS.jsonl
and ANSWERS.jsonl rows), audited and reported by the same core calls; `report_json` is its REPORT.json."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from scicustom.core.errors import InvalidInput
from scicustom.core.sciif.audit import ItemAudit, Mode, SciIFAuditor, Status, generate_answer
from scicustom.core.sciif.catalog import Catalog
from scicustom.core.sciif.evidence_rules import RuleVerifier
from scicustom.core.sciif.items import DEFAULT_MODEL, ModelAnswer, SciIFItem, parse_answers, parse_items
from scicustom.core.sciif.quantities import UnitParser
from scicustom.core.sciif.report import build_report
from scicustom.grpc_server.field_checks import bounded, checked_text
from scicustom.ports import LLM
from scicustom.scorers.request_usage import MeteredLLM
from scicustom.scorers.v1 import scorers_pb2 as pb

MAX_ITEMS = 1000
MAX_ANSWERS = 5000
MAX_ID_CHARS = 256
MAX_QUESTION_CHARS = 32000
MAX_ANSWER_CHARS = 64000
MAX_SUBJECT_CHARS = 200
MAX_CONSTRAINTS = 10
MAX_TARGETS = 20
MAX_EXPRESSION_CHARS = 2000
MAX_JUDGES = 4
MAX_MODEL_CHARS = 200
MAX_WORKERS = 16
DEFAULT_WORKERS = 4  # the CLI's --workers
STATUS = {"pass": pb.AUDIT_STATUS_PASS, "fail": pb.AUDIT_STATUS_FAIL, "undecided": pb.AUDIT_STATUS_UNDECIDED}


def _count(values: Sequence[object], field: str, low: int, high: int) -> None:
    if not low <= len(values) <= high:
        raise InvalidInput(field, f"has {len(values)} entries; give {low}..{high}")


def target_row(target: pb.FinalAnswerTarget, where: str) -> dict[str, Any]:
    """The ITEMS.jsonl "final_answer" entry of a target (parse_targets checks the rest)."""
    kind = target.WhichOneof("target")
    row: dict[str, Any] = {}
    if kind == "value":
        row["value"] = target.value
    elif kind == "range":
        row["range"] = [target.range.low, target.range.high]
    elif kind == "expression":
        row["expression"] = checked_text(target.expression, f"{where}.expression", MAX_EXPRESSION_CHARS)
    elif kind == "choice":
        row["choice"] = target.choice
    for name in ("unit", "rel_tol", "abs_tol"):
        if target.HasField(name):
            row[name] = getattr(target, name)
    if target.sig_figs:
        row["sig_figs"] = target.sig_figs
    return row


def item_rows(items: Sequence[pb.SciIFItem]) -> list[tuple[str, dict[str, Any]]]:
    _count(items, "items", 1, MAX_ITEMS)
    rows = []
    for i, item in enumerate(items):
        where = f"items[{i}]"
        checked_text(item.id, f"{where}.id", MAX_ID_CHARS)
        checked_text(item.question, f"{where}.question", MAX_QUESTION_CHARS)
        _count(item.constraints, f"{where}.constraints", 1, MAX_CONSTRAINTS)
        _count(item.final_answer, f"{where}.final_answer", 0, MAX_TARGETS)
        if len(item.subject) > MAX_SUBJECT_CHARS:
            raise InvalidInput(f"{where}.subject", f"has more than {MAX_SUBJECT_CHARS} characters")
        if len(item.reference_answer) > MAX_QUESTION_CHARS:
            raise InvalidInput(f"{where}.reference_answer", f"has more than {MAX_QUESTION_CHARS} characters")
        row: dict[str, Any] = {"id": item.id, "question": item.question, "constraints": list(item.constraints),
                               "subject": item.subject, "reference_answer": item.reference_answer}
        if item.final_answer:
            row["final_answer"] = [target_row(t, f"{where}.final_answer[{j}]") for j, t in enumerate(item.final_answer)]
        rows.append((where, row))
    return rows


def answer_rows(answers: Sequence[pb.SciIFAnswer], item_ids: set[str]) -> list[tuple[str, dict[str, Any]]]:
    _count(answers, "answers", 0, MAX_ANSWERS)
    rows = []
    first: dict[tuple[str, str], int] = {}
    for i, answer in enumerate(answers):
        where = f"answers[{i}]"
        if answer.item_id not in item_ids:
            raise InvalidInput(f"{where}.item_id", f"no item with id {answer.item_id!r}")
        if len(answer.model) > MAX_MODEL_CHARS:
            raise InvalidInput(f"{where}.model", f"has more than {MAX_MODEL_CHARS} characters")
        if len(answer.answer) > MAX_ANSWER_CHARS:
            raise InvalidInput(f"{where}.answer", f"has more than {MAX_ANSWER_CHARS} characters")
        key = (answer.item_id, answer.model or DEFAULT_MODEL)
        if key in first:
            raise InvalidInput(where, f"second answer of model {key[1]!r} to item {key[0]!r} "
                                      f"(answers[{first[key]}])")
        first[key] = i
        rows.append((where, {"id": answer.item_id, "model": answer.model, "answer": answer.answer}))
    return rows


def _options(options: pb.SciIFOptions) -> tuple[list[str], Mode, int]:
    _count(options.judges, "options.judges", 0, MAX_JUDGES)
    for k, judge in enumerate(options.judges):
        checked_text(judge, f"options.judges[{k}]", MAX_MODEL_CHARS)
    if options.generate_with:
        checked_text(options.generate_with, "options.generate_with", MAX_MODEL_CHARS)
    mode: Mode = "loose" if options.mode == pb.AUDIT_MODE_LOOSE else "strict"
    return list(options.judges), mode, bounded(options.workers, "options.workers", MAX_WORKERS, DEFAULT_WORKERS)


def _generate_missing(llm: LLM, model: str, items: Sequence[SciIFItem], answers: Sequence[ModelAnswer],
                      workers: int) -> list[ModelAnswer]:
    """Answers of `model` to the items it has not answered yet, with the paper's answer prompt."""
    have = {(a.item_id, a.model) for a in answers}
    todo = [item for item in items if (item.id, model) not in have]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        texts = list(pool.map(lambda item: generate_answer(llm, model, item), todo))
    return [ModelAnswer(item_id=item.id, model=model, text=text) for item, text in zip(todo, texts, strict=True)]


def _rate(c: dict[str, Any]) -> pb.Rate:
    rate = pb.Rate(passed=c["pass"], failed=c["fail"], undecided=c["undecided"], total=c["total"])
    if c["rate"] is not None:
        rate.rate = c["rate"]
    if c["decided_rate"] is not None:
        rate.decided_rate = c["decided_rate"]
    return rate


def _status(status: Status) -> pb.AuditStatus:
    return STATUS[status]


def _audit(a: ItemAudit) -> pb.AnswerAudit:
    message = pb.AnswerAudit(
        item_id=a.item_id, model=a.model, k=a.k, compliance=_status(a.compliance),
        correctness=_status(a.correctness.status), compliance_gated=_status(a.compliance_gated),
        constraints=[pb.ConstraintResult(constraint_id=c.constraint_id, name=c.name, family=c.family,
                                         status=_status(c.status)) for c in a.constraints],
        judge_failures=a.judge_failures)
    if a.reward is not None:
        message.reward = a.reward
    return message


def _summary(model: str, s: dict[str, Any]) -> pb.SciIFModelSummary:
    message = pb.SciIFModelSummary(
        model=model, items=s["items"], correctness=_rate(s["correctness"]), compliance=_rate(s["compliance"]),
        single_constraint=_rate(s["single_constraint"]), multi_constraint=_rate(s["multi_constraint"]))
    if s["reward"]["mean"] is not None:
        message.mean_reward = s["reward"]["mean"]
    return message


def audit_instruction_following(request: pb.AuditInstructionFollowingRequest, catalog: Catalog,
                                llm: Callable[[], LLM],
                                between_steps: Callable[[], None]) -> pb.AuditInstructionFollowingResponse:
    """`llm` is called only with judges or generate_with; `between_steps` checks the deadline."""
    judges, mode, workers = _options(request.options)
    items = parse_items(item_rows(request.items), catalog)
    by_id = {item.id: item for item in items}
    answers = parse_answers(answer_rows(request.answers, set(by_id)), set(by_id))
    generate_with = request.options.generate_with
    if not answers and not generate_with:
        raise InvalidInput("answers", "is empty; give answers or options.generate_with")
    metered = MeteredLLM(llm()) if (judges or generate_with) else None
    generated: list[ModelAnswer] = []
    if generate_with and metered is not None:
        generated = _generate_missing(metered, generate_with, items, answers, workers)
        answers = [*answers, *generated]
        between_steps()
    verifier = RuleVerifier(UnitParser(), use_evidence_patterns=not request.options.no_evidence_patterns)
    auditor = SciIFAuditor(catalog, verifier, llm=metered, judges=judges, mode=mode)
    audits = auditor.audit_many(by_id, answers, workers=workers)
    answered = {(a.item_id, a.model) for a in answers}
    models = {a.model for a in answers}
    missing = sum(1 for m in models for item in items if (item.id, m) not in answered)
    report: dict[str, Any] = build_report(audits, catalog, mode=mode, judges=judges,
                                          gate_on_correctness=request.options.gate_on_correctness,
                                          missing_answers=missing)
    report["usage"] = metered.summary() if metered is not None else None
    usage = metered.summary() if metered is not None else {}
    return pb.AuditInstructionFollowingResponse(
        audits=[_audit(a) for a in audits],
        models=[_summary(m, s) for m, s in report["models"].items()],
        generated=[pb.GeneratedAnswer(item_id=a.item_id, model=a.model, answer=a.text) for a in generated],
        report_json=json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False) + "\n",
        usage=pb.LLMUsage(**usage))
