"""A build request as stored with the build: the requirement's source text, parameters, jury options.

Workers re-parse the same text with the same code as the embedded CLI, so every stage sees the
same Requirement. Problems name the request field (BuildService) they came from.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import yaml

from scicustom.builds.build_world import JuryOptions
from scicustom.core.build.pipeline import BuildParams
from scicustom.core.errors import InvalidInput
from scicustom.core.requirement import Requirement, requirement_from_mapping, requirement_from_text

MAX_YAML_BYTES = 64 * 1024
MAX_TEXT_CHARS = 4000


def requirement_from_yaml_text(text: str, field: str) -> Requirement:
    if len(text.encode()) > MAX_YAML_BYTES:
        raise InvalidInput(field, f"is larger than {MAX_YAML_BYTES} bytes")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InvalidInput(field, f"is not valid YAML ({type(exc).__name__})") from None
    try:
        return requirement_from_mapping(data)
    except InvalidInput as exc:
        raise InvalidInput(field, exc.problem) from None


@dataclass(frozen=True)
class BuildSpec:
    requirement_yaml: str | None
    requirement_text: str | None
    params: BuildParams
    jury: JuryOptions

    def requirement(self) -> Requirement:
        if self.requirement_yaml is not None:
            return requirement_from_yaml_text(self.requirement_yaml, "requirement_yaml")
        if self.requirement_text is None:
            raise InvalidInput("requirement", "give requirement_yaml or requirement_text")
        if len(self.requirement_text) > MAX_TEXT_CHARS:
            raise InvalidInput("requirement_text", f"is longer than {MAX_TEXT_CHARS} characters")
        try:
            return requirement_from_text(self.requirement_text)
        except InvalidInput as exc:
            raise InvalidInput("requirement_text", exc.problem) from None

    def validate(self) -> Requirement:
        requirement = self.requirement()
        self.params.validate()
        if not 0.5 <= self.jury.relevance_quantile < 1:
            raise InvalidInput("relevance_quantile", "must be in [0.5, 1)")
        if self.jury.llm_judges and (not requirement.voting_judges or not requirement.relevance_judges):
            raise InvalidInput("llm_judges", "the requirement lists no voting_judges/relevance_judges")
        return requirement

    def to_record(self) -> dict[str, Any]:
        return {"requirement_yaml": self.requirement_yaml, "requirement_text": self.requirement_text,
                "params": asdict(self.params), "jury": asdict(self.jury)}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> BuildSpec:
        return cls(record["requirement_yaml"], record["requirement_text"], BuildParams(**record["params"]),
                   JuryOptions(**record["jury"]))
