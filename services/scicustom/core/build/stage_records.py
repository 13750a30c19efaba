"""What each stage of a build hands to the next, and its exact JSON form.

A distributed build stores these records in the object store between Kafka stages; the embedded
build passes the objects directly. `to_record`/`from_record` round-trip exactly (floats through
JSON's shortest repr, Fractions as "n/d"), so both paths compute on identical values and give
byte-identical benchmarks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from scicustom.core.build.candidates import Candidate
from scicustom.core.build.mcq import MCQ
from scicustom.core.build.vote import VoteResult


def _number(value: Fraction | float) -> str | float:
    return f"{value.numerator}/{value.denominator}" if isinstance(value, Fraction) else float(value)


def _parse_number(value: str | float) -> Fraction | float:
    return Fraction(value) if isinstance(value, str) else float(value)


@dataclass(frozen=True)
class VotedUnits:
    votes: VoteResult | None       # None for the embedding baselines, which do not vote
    voting: dict[str, Any]         # the voting.json record
    judges: list[str]

    def to_record(self) -> dict[str, Any]:
        votes = None if self.votes is None else {
            "units": list(self.votes.units), "consensus": self.votes.consensus,
            "per_judge": self.votes.per_judge}
        return {"votes": votes, "voting": self.voting, "judges": self.judges}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> VotedUnits:
        raw = record["votes"]
        votes = None if raw is None else VoteResult(
            tuple(raw["units"]), {k: float(v) for k, v in raw["consensus"].items()},
            {k: list(v) for k, v in raw["per_judge"].items()})
        return cls(votes, record["voting"], list(record["judges"]))


@dataclass(frozen=True)
class CandidateList:
    candidates: list[Candidate]    # the paper's order (or similarity order for the baselines)
    similarity: dict[str, float]   # embedding baselines only

    def to_record(self) -> dict[str, Any]:
        return {"candidates": [[c.item_id, list(c.shared_units), _number(c.mean_rank)] for c in self.candidates],
                "similarity": self.similarity}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> CandidateList:
        return cls([Candidate(i, tuple(u), _parse_number(m)) for i, u, m in record["candidates"]],
                   {k: float(v) for k, v in record["similarity"].items()})


@dataclass(frozen=True)
class CutoffStage:
    kept: list[int]                # candidate positions within the cutoff
    record: dict[str, Any]         # the cutoff.json record
    judges: list[str]
    warnings: list[str]

    def to_record(self) -> dict[str, Any]:
        return {"kept": self.kept, "record": self.record, "judges": self.judges, "warnings": self.warnings}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> CutoffStage:
        return cls([int(k) for k in record["kept"]], record["record"], list(record["judges"]),
                   list(record["warnings"]))


@dataclass(frozen=True)
class Selection:
    chosen: list[int]              # candidate positions of the proxy subset, in benchmark order
    proxy: list[dict[str, Any]]    # the proxy.jsonl rows
    # Hardness and quality of every item of the cut set the subset was matched to (the build report
    # compares the two distributions); candidate order.
    cut_set: list[dict[str, Any]] = field(default_factory=list)

    def to_record(self) -> dict[str, Any]:
        return {"chosen": self.chosen, "proxy": self.proxy, "cut_set": self.cut_set}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Selection:
        return cls([int(c) for c in record["chosen"]], list(record["proxy"]), list(record.get("cut_set", [])))


@dataclass(frozen=True)
class Generated:
    benchmark: list[MCQ]
    warnings: list[str]

    def to_record(self) -> dict[str, Any]:
        return {"benchmark": [m.to_record() for m in self.benchmark], "warnings": self.warnings}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Generated:
        return cls([MCQ(m["id"], m["query"], m["answer"], m["provenance"], m["distractor_method"],
                        choices=tuple(m["choices"])) for m in record["benchmark"]], list(record["warnings"]))
