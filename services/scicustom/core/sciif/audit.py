"""Generate-then-audit (SciIF Appendix A.1-A.2): each enabled constraint is audited on its own,
rules first, then two LLM judges with the pointwise prompt; a point passes only if every judge
passes it; item compliance is the AND over enabled constraints; correctness is a separate axis.

Decisions are three-valued: "pass", "fail", or "undecided" (no judge configured, or a judge reply
that stayed malformed after one retry). AND is Kleene's: any fail fails, else any undecided is
undecided. Nothing undecided is ever counted as passed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

from scicustom.core.sciif.catalog import Catalog, Constraint
from scicustom.core.sciif.evidence_rules import AnswerView, RuleVerifier
from scicustom.core.sciif.final_answer import CorrectnessRule
from scicustom.core.sciif.items import ModelAnswer, SciIFItem
from scicustom.core.sciif.judge_output import parse_pointwise, parse_verdict
from scicustom.core.sciif.prompts import (
    FORMAT_REMINDER,
    answer_prompt,
    correctness_prompt,
    judge_prompt,
    point_output_lines,
)
from scicustom.core.sciif.reward import item_reward
from scicustom.ports import LLM

Status = Literal["pass", "fail", "undecided"]
Mode = Literal["strict", "loose"]
JUDGE_PARAMS: Mapping[str, Any] = {"temperature": 0, "max_tokens": 4096}  # paper Appendix D.1


def all_of(statuses: Sequence[Status]) -> Status:
    if "fail" in statuses:
        return "fail"
    if "undecided" in statuses:
        return "undecided"
    return "pass"


@dataclass(frozen=True)
class JudgeVote:
    judge: str
    verdict: bool | None  # None: the reply stayed malformed or the call failed
    reason: str = ""


@dataclass(frozen=True)
class PointAudit:
    point_id: str
    role: str
    required: bool
    status: Status | Literal["skipped"]
    decided_by: Literal["rule", "judges", "none"]
    reason: str = ""
    votes: tuple[JudgeVote, ...] = ()


@dataclass(frozen=True)
class ConstraintAudit:
    constraint_id: str
    name: str
    family: str
    status: Status
    points: tuple[PointAudit, ...]


@dataclass(frozen=True)
class CorrectnessAudit:
    status: Status
    decided_by: Literal["rule", "judges", "none"]
    reason: str = ""
    votes: tuple[JudgeVote, ...] = ()


@dataclass(frozen=True)
class ItemAudit:
    item_id: str
    model: str
    k: int
    constraints: tuple[ConstraintAudit, ...]
    compliance: Status
    correctness: CorrectnessAudit
    compliance_gated: Status  # compliance AND correctness
    reward: float | None
    judge_failures: int = 0


@dataclass(frozen=True)
class _JudgeReply:
    text: str | None
    error: str = ""


class SciIFAuditor:
    def __init__(self, catalog: Catalog, verifier: RuleVerifier, *, llm: LLM | None = None,
                 judges: Sequence[str] = (), mode: Mode = "strict") -> None:
        if judges and llm is None:
            raise ValueError("judges need an LLM port")
        self.catalog = catalog
        self.mode: Mode = mode
        self._verifier = verifier
        self._correctness = CorrectnessRule(verifier.units)
        self._llm = llm
        self._judges = tuple(judges)

    def audit_many(self, items: Mapping[str, SciIFItem], answers: Sequence[ModelAnswer],
                   workers: int = 4) -> list[ItemAudit]:
        """Every answer audited; results in the order of `answers`."""
        if workers <= 1:
            return [self.audit(items[a.item_id], a) for a in answers]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(lambda a: self.audit(items[a.item_id], a), answers))

    def audit(self, item: SciIFItem, answer: ModelAnswer) -> ItemAudit:
        view = self._verifier.view(answer.text, item.targets)
        constraints = tuple(self._audit_constraint(item, c, view) for c in item.constraints)
        compliance = all_of([c.status for c in constraints])
        correctness = self._audit_correctness(item, view)
        failures = sum(1 for c in constraints for p in c.points for v in p.votes if v.verdict is None)
        failures += sum(1 for v in correctness.votes if v.verdict is None)
        return ItemAudit(
            item_id=item.id, model=answer.model, k=item.k, constraints=constraints, compliance=compliance,
            correctness=correctness, compliance_gated=all_of([compliance, correctness.status]),
            reward=item_reward(self.catalog.reward, {c.constraint_id: c.status for c in constraints},
                               correctness.status),
            judge_failures=failures,
        )

    def _audit_constraint(self, item: SciIFItem, constraint: Constraint, view: AnswerView) -> ConstraintAudit:
        required = {p.id for p in constraint.required_points(self.mode)}
        rule_failures = {p.id: self._verifier.check_point(p, view) for p in constraint.points}
        decided_by_rules = any(rule_failures[pid] is not None for pid in required)
        votes: dict[str, list[JudgeVote]] = {p.id: [] for p in constraint.points}
        if self._judges and not decided_by_rules:
            prompt = judge_prompt(subject=item.subject, constraint=constraint, question=item.question,
                                  reference=item.reference_text(), answer=view.text, mode=self.mode)
            lines = point_output_lines(len(constraint.points))
            for judge in self._judges:
                reply = self._ask(judge, prompt, lambda text: parse_pointwise(text).complete(
                    len(constraint.points)), lines)
                parsed = parse_pointwise(reply.text) if reply.text is not None else None
                for i, point in enumerate(constraint.points, 1):
                    verdict = parsed.verdicts.get(i) if parsed is not None else None
                    if verdict is None:
                        reason = reply.error or "no verdict for this point"
                    else:
                        reason = parsed.reasons.get(i, "") if parsed is not None else ""
                    votes[point.id].append(JudgeVote(judge, verdict, reason))
        points = []
        for point in constraint.points:
            failure = rule_failures[point.id]
            point_votes = tuple(votes[point.id])
            if failure is not None:
                points.append(PointAudit(point.id, point.role, point.id in required, "fail", "rule",
                                         failure.reason, point_votes))
            elif decided_by_rules:
                points.append(PointAudit(point.id, point.role, point.id in required, "skipped", "none",
                                         "constraint already failed by a rule"))
            elif not point_votes:
                points.append(PointAudit(point.id, point.role, point.id in required, "undecided", "none",
                                         "no rule decides this point and no judge is configured"))
            else:
                points.append(PointAudit(point.id, point.role, point.id in required,
                                         _combine(point_votes), "judges",
                                         "; ".join(f"{v.judge}: {v.reason}" for v in point_votes if v.reason),
                                         point_votes))
        status = all_of([p.status for p in points if p.required and p.status != "skipped"])
        return ConstraintAudit(constraint.id, constraint.name, constraint.family, status, tuple(points))

    def _audit_correctness(self, item: SciIFItem, view: AnswerView) -> CorrectnessAudit:
        outcome = self._correctness.check(view.text, item.targets)
        if outcome.verdict != "undecided":
            return CorrectnessAudit(outcome.verdict, "rule", outcome.reason)
        reference = item.reference_text()
        if not self._judges or not reference:
            why = "no judge is configured" if reference else "the item has no reference answer"
            return CorrectnessAudit("undecided", "none", f"{outcome.reason}; {why}")
        prompt = correctness_prompt(subject=item.subject, question=item.question, reference=reference,
                                    answer=view.text)
        votes = []
        for judge in self._judges:
            reply = self._ask(judge, prompt, lambda text: parse_verdict(text).verdict is not None,
                              "VERDICT: YES or NO\nREASON: [<=150 chars; the discrepancy if NO]")
            parsed = parse_verdict(reply.text) if reply.text is not None else None
            votes.append(JudgeVote(judge, parsed.verdict if parsed else None,
                                   parsed.reason if parsed else reply.error))
        return CorrectnessAudit(_combine(tuple(votes)), "judges",
                                "; ".join(f"{v.judge}: {v.reason}" for v in votes if v.reason), tuple(votes))

    def _ask(self, judge: str, prompt: str, well_formed: Callable[[str], bool], lines: str) -> _JudgeReply:
        """One judge call, and one retry with a format reminder when the reply is malformed."""
        assert self._llm is not None
        messages = [{"role": "user", "content": prompt}]
        try:
            first = self._llm.complete(judge, messages, **JUDGE_PARAMS).text
            if well_formed(first):
                return _JudgeReply(first)
            retry = [*messages, {"role": "assistant", "content": first},
                     {"role": "user", "content": FORMAT_REMINDER.format(output_lines=lines)}]
            second = self._llm.complete(judge, retry, **JUDGE_PARAMS).text
        except Exception as exc:  # the port's failures vary by adapter; the point stays undecided
            return _JudgeReply(None, f"judge call failed: {type(exc).__name__}: {exc}")
        if well_formed(second):
            return _JudgeReply(second)
        # Still malformed: keep whatever verdicts it does give; the missing ones stay undecided.
        return _JudgeReply(second, "malformed judge reply after one retry")


def _combine(votes: tuple[JudgeVote, ...]) -> Status:
    """Dual-judge rule: pass only if every judge says YES; any NO fails."""
    verdicts = [v.verdict for v in votes]
    if any(v is False for v in verdicts):
        return "fail"
    if all(v is True for v in verdicts):
        return "pass"
    return "undecided"


def generate_answer(llm: LLM, model: str, item: SciIFItem, **params: Any) -> str:
    """The answer of the model under test, prompted with the paper's answer prompt (A.1)."""
    prompt = answer_prompt(item.question, item.constraints)
    merged = {**JUDGE_PARAMS, **params}
    return llm.complete(model, [{"role": "user", "content": prompt}], **merged).text
