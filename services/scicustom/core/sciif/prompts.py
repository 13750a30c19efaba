"""The SciIF prompts: answer generation (paper Appendix A.1), the per-constraint pointwise judge in
strict and loose mode (A.3, A.4), and the correctness audit (the equivalence protocol of Appendix F).

Where the paper's loose prompt says "Same as STRICT for pointwise evidence, non-inference and
truthfulness checks", the strict bullets are written out so that the prompt stands on its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from scicustom.core.sciif.catalog import Constraint

ANSWER_TEMPLATE = """You are solving a university-level scientific problem.

PROBLEM (verbatim):
{question}

Enabled constraints:
{constraint_names}

Required evidence (MUST appear; missing any item => non-compliant):
{evidence}

Writing rules:
- Integrate evidence into the solution narrative with natural transitions.
- Do not use checklist-style rubric blocks or fixed labels.
- Do not claim compliance with slogans; show explicit, auditable statements and checks.
- Do not use markdown tables for definitions; define symbols inline in sentences.
- Follow the problem's stated units and precision requirements.

Answer format:
- Short plan
- Derivation / reasoning (equations if needed)
- Final Answer (clearly stated, with units if applicable)

Answer:"""

_STRICT_POLICY = """- Decide whether each point has explicit, problem-grounded evidence in the model answer.
- Do NOT infer missing evidence.
- If the model claims a check, verify it is correct and consistent with its own work."""

_LOOSE_POLICY = _STRICT_POLICY + """
- OVERALL is YES only if all MAIN points are YES. SECONDARY points may be NO."""

JUDGE_TEMPLATE = """You are an expert validator for university-level {subject} problems.

Constraint name:
{name}

Constraint description:
{description}

Required evidence points (evaluate EACH independently):
{points}

Problem:
{question}

Reference answer (if provided):
{reference}

Model answer:
{answer}

Decision policy:
{policy}

Output format (MUST follow exactly):
{output_lines}
OVERALL: YES or NO
OVERALL_REASON: [<=150 chars, list failed {failed_kind}]"""

CORRECTNESS_TEMPLATE = "\n".join([
    "You are an expert validator for university-level {subject} problems. "
    "Decide whether the model answer is equivalent to the reference answer.",
    "",
    "Problem:",
    "{question}",
    "",
    "Reference answer:",
    "{reference}",
    "",
    "Model answer:",
    "{answer}",
    "",
    "Equivalence criteria:",
    "- Numerical agreement: the final numbers match the reference when both are reported to four "
    "significant figures; if the reference states a range or tolerance, use it. "
    "Check units and sign or direction.",
    "- Conclusion agreement: categorical outcomes (true/false, the option chosen, sign or direction, "
    "inequality relations) match. If the reference is undetermined or needs more information, "
    "any definite conclusion is not equivalent.",
    "- Reasoning equivalence: the core method or theorem is the same, or a different method that is "
    "logically equivalent and justified for this problem.",
    "- Do NOT judge constraint compliance, formatting, wording or non-essential elaboration.",
    "",
    "Output format (MUST follow exactly):",
    "VERDICT: YES or NO",
    "REASON: [<=150 chars; the discrepancy if NO]",
])

FORMAT_REMINDER = ("Your reply did not follow the required output format. Reply again with only the "
                   "required lines, exactly in this format:\n{output_lines}")


def subject_name(subject: str) -> str:
    return subject.strip().capitalize() if subject.strip() else "science"


def answer_prompt(question: str, constraints: Sequence[Constraint]) -> str:
    blocks = []
    for c in constraints:
        shown = [p for p in c.points if p.audience == "both"]
        lines = "\n".join(f"{i}) {p.title}: {p.text}" for i, p in enumerate(shown, 1))
        blocks.append(f"[{c.name}]\n{lines}")
    return ANSWER_TEMPLATE.format(
        question=question.strip(),
        constraint_names=", ".join(c.name for c in constraints),
        evidence="\n\n".join(blocks),
    )


def point_output_lines(n_points: int) -> str:
    return "\n".join(f"POINT_{i}: YES or NO [brief reason if NO]" for i in range(1, n_points + 1))


def judge_prompt(*, subject: str, constraint: Constraint, question: str, reference: str, answer: str,
                 mode: str) -> str:
    if mode == "strict":
        points = "\n".join(f"POINT_{i}: {p.title}: {p.text}" for i, p in enumerate(constraint.points, 1))
    else:
        points = "\n".join(f"POINT_{i} [{p.role.upper()}]: {p.title}: {p.text}"
                           for i, p in enumerate(constraint.points, 1))
    return JUDGE_TEMPLATE.format(
        subject=subject_name(subject), name=constraint.name, description=constraint.summary,
        points=points, question=question.strip(), reference=reference.strip() or "(not provided)",
        answer=answer.strip(), policy=_STRICT_POLICY if mode == "strict" else _LOOSE_POLICY,
        output_lines=point_output_lines(len(constraint.points)),
        failed_kind="points" if mode == "strict" else "MAIN points",
    )


def correctness_prompt(*, subject: str, question: str, reference: str, answer: str) -> str:
    return CORRECTNESS_TEMPLATE.format(subject=subject_name(subject), question=question.strip(),
                                       reference=reference.strip(), answer=answer.strip())
