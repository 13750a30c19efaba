"""SciIF items and model answers as read from JSONL rows.

ITEMS row: {"id", "question", "constraints": [names] | "A、B, C", "subject"?, "reference_answer"?,
"final_answer"? (see final_answer.parse_targets)}. Rows of the authors' release are accepted as
they are: "question_with_constraints" stands for "question" and "answer" for "reference_answer".
ANSWERS row: {"id", "answer", "model"?} (model defaults to "model").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from scicustom.core.errors import InvalidInput
from scicustom.core.sciif.catalog import Catalog, Constraint
from scicustom.core.sciif.final_answer import Target, parse_targets

DEFAULT_MODEL = "model"


@dataclass(frozen=True)
class SciIFItem:
    id: str
    question: str
    constraints: tuple[Constraint, ...]
    subject: str = ""
    reference_answer: str = ""
    targets: tuple[Target, ...] = ()

    @property
    def k(self) -> int:
        return len(self.constraints)

    def reference_text(self) -> str:
        """What the correctness judge compares against: the reference answer, else the targets."""
        if self.reference_answer:
            return self.reference_answer
        parts = []
        for t in self.targets:
            if t.kind == "number":
                value = f"[{t.low:g}, {t.high:g}]" if t.low is not None else f"{t.value:g}"
                parts.append(f"{value} {t.unit or ''}".strip())
            elif t.kind == "expression":
                parts.append(str(t.expression))
            else:
                parts.append(f"option {t.choice}")
        return "; ".join(parts)


@dataclass(frozen=True)
class ModelAnswer:
    item_id: str
    model: str
    text: str


def parse_item(raw: Mapping[str, Any], catalog: Catalog, where: str) -> SciIFItem:
    item_id = raw.get("id")
    if not isinstance(item_id, str | int) or str(item_id) == "":
        raise InvalidInput(f"{where}.id", "expected a non-empty id")
    question = raw.get("question", raw.get("question_with_constraints"))
    if not isinstance(question, str) or not question.strip():
        raise InvalidInput(f"{where}.question", "expected the problem text")
    names = raw.get("constraints")
    if not isinstance(names, str | list) or not names:
        raise InvalidInput(f"{where}.constraints", "expected a list of constraint names")
    try:
        constraints = catalog.resolve_list(names)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}.constraints", exc.problem) from exc
    reference = raw.get("reference_answer", raw.get("answer", ""))
    return SciIFItem(
        id=str(item_id), question=question, constraints=constraints, subject=str(raw.get("subject", "")),
        reference_answer=str(reference or ""),
        targets=parse_targets(raw.get("final_answer"), f"{where}.final_answer"),
    )


def parse_items(rows: Iterable[tuple[str, Mapping[str, Any]]], catalog: Catalog) -> list[SciIFItem]:
    items: list[SciIFItem] = []
    seen: set[str] = set()
    for where, raw in rows:
        item = parse_item(raw, catalog, where)
        if item.id in seen:
            raise InvalidInput(f"{where}.id", f"duplicate item id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    return items


def parse_answers(rows: Iterable[tuple[str, Mapping[str, Any]]], item_ids: set[str]) -> list[ModelAnswer]:
    answers: list[ModelAnswer] = []
    seen: set[tuple[str, str]] = set()
    for where, raw in rows:
        item_id = str(raw.get("id", ""))
        if item_id not in item_ids:
            raise InvalidInput(f"{where}.id", f"no item with id {item_id!r}")
        text = raw.get("answer")
        if not isinstance(text, str):
            raise InvalidInput(f"{where}.answer", "expected the model's answer text")
        model = str(raw.get("model") or DEFAULT_MODEL)
        if (item_id, model) in seen:
            raise InvalidInput(f"{where}", f"second answer of model {model!r} to item {item_id!r}")
        seen.add((item_id, model))
        answers.append(ModelAnswer(item_id=item_id, model=model, text=text))
    return answers
