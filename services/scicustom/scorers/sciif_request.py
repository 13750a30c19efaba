"""AuditInstructionFollowing messages <-> the SciIF use case (`app.scoring.sciif`): items and answers
become the ITEMS.jsonl / ANSWERS.jsonl rows `scicustom score sciif` reads and go through the same
parsers. The limits here bound what one message may carry; the use case checks the parameters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scicustom.app.field_checks import checked_text
from scicustom.app.scoring.sciif import DEFAULT_WORKERS, AuditRequest, AuditResult
from scicustom.core.errors import InvalidInput
from scicustom.core.sciif.audit import ItemAudit, Mode, Status
from scicustom.core.sciif.catalog import Catalog
from scicustom.core.sciif.items import DEFAULT_MODEL, parse_answers, parse_items
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
MAX_MODEL_CHARS = 200
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


def audit_request(request: pb.AuditInstructionFollowingRequest, catalog: Catalog) -> AuditRequest:
    """The use case's request; unset workers (0) take the CLI's default."""
    options = request.options
    items = parse_items(item_rows(request.items), catalog)
    item_ids = {item.id for item in items}
    mode: Mode = "loose" if options.mode == pb.AUDIT_MODE_LOOSE else "strict"
    return AuditRequest(items=items, answers=parse_answers(answer_rows(request.answers, item_ids), item_ids),
                        judges=list(options.judges), mode=mode, gate_on_correctness=options.gate_on_correctness,
                        generate_with=options.generate_with, evidence_patterns=not options.no_evidence_patterns,
                        workers=options.workers or DEFAULT_WORKERS)


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


def audit_response(result: AuditResult) -> pb.AuditInstructionFollowingResponse:
    usage = result.usage.summary() if result.usage is not None else {}
    return pb.AuditInstructionFollowingResponse(
        audits=[_audit(a) for a in result.audits],
        models=[_summary(m, s) for m, s in result.report["models"].items()],
        generated=[pb.GeneratedAnswer(item_id=a.item_id, model=a.model, answer=a.text) for a in result.generated],
        report_json=result.report_json(), usage=pb.LLMUsage(**usage))
