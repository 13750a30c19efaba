"""The SciIF constraint catalog: 10 atomic constraints in 3 families, each with evidence points.

The catalog is data (resources/sciif/catalog.yaml); this module validates it into typed objects and
resolves the many spellings of constraint names found in items ("Units standard + scientific
notation", "5. Terminology Constraints/Cross-disciplinary Term Disambiguation (...)").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from scicustom.core.errors import InvalidInput

Role = Literal["main", "secondary"]
Audience = Literal["both", "judge"]

RULE_KINDS = frozenset({
    "evidence_pattern", "final_answer_unit", "dimensionless_target", "unit_claims",
    "symbol_unit_drift", "constant_values", "arithmetic_claims", "numeric_anchors",
})


@dataclass(frozen=True)
class RuleSpec:
    kind: str
    patterns: tuple[str, ...] = ()
    scope: tuple[str, ...] = ()
    min_count: int = 1


@dataclass(frozen=True)
class EvidencePoint:
    id: str
    role: Role
    title: str
    text: str
    audience: Audience = "both"
    rules: tuple[RuleSpec, ...] = ()


@dataclass(frozen=True)
class Family:
    id: str
    name: str
    description: str


@dataclass(frozen=True)
class Constraint:
    id: str
    name: str
    abbrev: str
    family: str
    summary: str
    points: tuple[EvidencePoint, ...]
    aliases: tuple[str, ...] = ()

    def required_points(self, mode: str) -> tuple[EvidencePoint, ...]:
        """Strict requires every point; loose only the MAIN ones (paper Table 3)."""
        if mode == "strict":
            return self.points
        return tuple(p for p in self.points if p.role == "main")


@dataclass(frozen=True)
class RewardGroup:
    id: str
    weight: float
    members: Mapping[str, float]


@dataclass(frozen=True)
class RewardWeights:
    compliance_weight: float
    correctness_weight: float
    groups: tuple[RewardGroup, ...]


@dataclass(frozen=True)
class Catalog:
    version: str
    families: tuple[Family, ...]
    constraints: tuple[Constraint, ...]
    reward: RewardWeights
    _lookup: dict[str, Constraint] = field(init=False, repr=False, compare=False)
    _spellings: list[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        lookup: dict[str, Constraint] = {}
        for c in self.constraints:
            for spelling in (c.id, c.name, c.abbrev, *c.aliases):
                lookup.setdefault(_normalise(spelling), c)
        # Frozen dataclass: derived lookup tables are set once here.
        object.__setattr__(self, "_lookup", lookup)
        # Longest spellings first, so "units standard scientific notation" beats "units".
        object.__setattr__(self, "_spellings", sorted(lookup, key=len, reverse=True))

    def by_id(self, constraint_id: str) -> Constraint:
        for c in self.constraints:
            if c.id == constraint_id:
                return c
        raise KeyError(constraint_id)

    def resolve(self, name: str) -> Constraint:
        """The constraint a free-form name refers to; InvalidInput when none does."""
        key = _normalise(name)
        if key in self._lookup:
            return self._lookup[key]
        # Decorated names such as "2. Conditions Constraints/Boundary Conditions (Boundary Conditions)".
        for spelling in self._spellings:
            if len(spelling) > 3 and re.search(rf"(?:^| ){re.escape(spelling)}(?: |$)", key):
                return self._lookup[spelling]
        raise InvalidInput("constraints", f"unknown SciIF constraint {name!r}")

    def resolve_list(self, value: str | Sequence[str]) -> tuple[Constraint, ...]:
        """Enabled constraints of an item, in catalog order, without duplicates."""
        if isinstance(value, str):
            parts = [p for p in re.split(r"[、;,，；\n]+", value) if p.strip()]
        else:
            parts = [str(p) for p in value]
        found = {self.resolve(p).id for p in parts}
        return tuple(c for c in self.constraints if c.id in found)


def _normalise(name: str) -> str:
    text = name.casefold().replace("&", " and ").replace("+", " ")
    return " ".join(re.findall(r"[a-z0-9]+", text))


def parse_catalog(data: Mapping[str, Any]) -> Catalog:
    """Validate the YAML document of a catalog."""
    families = tuple(
        Family(id=_text(f, "id", "families"), name=_text(f, "name", "families"),
               description=str(f.get("description", "")))
        for f in _list(data, "families", "catalog")
    )
    family_ids = {f.id for f in families}
    constraints: list[Constraint] = []
    for i, raw in enumerate(_list(data, "constraints", "catalog")):
        where = f"constraints[{i}]"
        family = _text(raw, "family", where)
        if family not in family_ids:
            raise InvalidInput(f"{where}.family", f"unknown family {family!r}")
        points = tuple(_parse_point(p, f"{where}.points[{j}]")
                       for j, p in enumerate(_list(raw, "points", where)))
        if len({p.id for p in points}) != len(points):
            raise InvalidInput(f"{where}.points", "duplicate point id")
        if not any(p.role == "main" for p in points):
            raise InvalidInput(f"{where}.points", "needs at least one main point")
        constraints.append(Constraint(
            id=_text(raw, "id", where), name=_text(raw, "name", where), abbrev=_text(raw, "abbrev", where),
            family=family, summary=" ".join(_text(raw, "summary", where).split()), points=points,
            aliases=tuple(str(a) for a in raw.get("aliases") or ()),
        ))
    if len({c.id for c in constraints}) != len(constraints):
        raise InvalidInput("constraints", "duplicate constraint id")
    reward = _parse_reward(data.get("reward"), {c.id for c in constraints})
    return Catalog(version=str(data.get("version", "")), families=families,
                   constraints=tuple(constraints), reward=reward)


def _parse_point(raw: Any, where: str) -> EvidencePoint:
    role = _text(raw, "role", where)
    if role not in ("main", "secondary"):
        raise InvalidInput(f"{where}.role", "must be 'main' or 'secondary'")
    audience = str(raw.get("audience", "both"))
    if audience not in ("both", "judge"):
        raise InvalidInput(f"{where}.audience", "must be 'both' or 'judge'")
    rules = []
    for k, rule in enumerate(raw.get("rules") or ()):
        kind = _text(rule, "kind", f"{where}.rules[{k}]")
        if kind not in RULE_KINDS:
            raise InvalidInput(f"{where}.rules[{k}].kind", f"unknown rule kind {kind!r}")
        patterns = tuple(str(p) for p in rule.get("patterns") or ())
        scope = tuple(str(p) for p in rule.get("scope") or ())
        for pattern in (*patterns, *scope):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise InvalidInput(f"{where}.rules[{k}]", f"bad pattern {pattern!r}: {exc}") from exc
        if kind == "evidence_pattern" and not patterns:
            raise InvalidInput(f"{where}.rules[{k}].patterns", "an evidence_pattern rule needs patterns")
        rules.append(RuleSpec(kind=kind, patterns=patterns, scope=scope,
                              min_count=int(rule.get("min_count", 1))))
    return EvidencePoint(
        id=_text(raw, "id", where), role=role,  # type: ignore[arg-type]
        title=_text(raw, "title", where), text=" ".join(_text(raw, "text", where).split()),
        audience=audience, rules=tuple(rules),  # type: ignore[arg-type]
    )


def _parse_reward(raw: Any, constraint_ids: set[str]) -> RewardWeights:
    if not isinstance(raw, Mapping):
        raise InvalidInput("reward", "expected a mapping with compliance_weight, correctness_weight, groups")
    groups = []
    seen: set[str] = set()
    for i, g in enumerate(_list(raw, "groups", "reward")):
        members = g.get("members")
        if not isinstance(members, Mapping) or not members:
            raise InvalidInput(f"reward.groups[{i}].members", "expected a non-empty mapping")
        for member, weight in members.items():
            if member not in constraint_ids:
                raise InvalidInput(f"reward.groups[{i}].members", f"unknown constraint {member!r}")
            if member in seen:
                raise InvalidInput(f"reward.groups[{i}].members", f"{member!r} is in two groups")
            if float(weight) <= 0:
                raise InvalidInput(f"reward.groups[{i}].members.{member}", "weight must be positive")
            seen.add(member)
        weight = float(g.get("weight", 1.0))
        if weight <= 0:
            raise InvalidInput(f"reward.groups[{i}].weight", "must be positive")
        groups.append(RewardGroup(id=_text(g, "id", f"reward.groups[{i}]"), weight=weight,
                                  members={str(k): float(v) for k, v in members.items()}))
    if seen != constraint_ids:
        raise InvalidInput("reward.groups", f"constraints in no group: {sorted(constraint_ids - seen)}")
    return RewardWeights(compliance_weight=float(raw.get("compliance_weight", 0.7)),
                         correctness_weight=float(raw.get("correctness_weight", 0.3)),
                         groups=tuple(groups))


def _list(data: Any, key: str, where: str) -> list[Any]:
    value = data.get(key) if isinstance(data, Mapping) else None
    if not isinstance(value, list) or not value:
        raise InvalidInput(f"{where}.{key}", "expected a non-empty list")
    return value


def _text(data: Any, key: str, where: str) -> str:
    value = data.get(key) if isinstance(data, Mapping) else None
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{where}.{key}", "expected a non-empty string")
    return value
