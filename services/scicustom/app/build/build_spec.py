"""A build request as stored with the build: the requirement's source text, parameters, jury options.

Workers re-parse the same text with the same code as the embedded CLI, so every stage sees the
same Requirement. Problems name the request field (BuildService) they came from.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from scicustom.app.build.request import BuildRequest, JuryOptions, RequirementSource, jury_options
from scicustom.core.build.pipeline import BuildParams
from scicustom.core.requirement import Requirement


@dataclass(frozen=True)
class BuildSpec:
    requirement_yaml: str | None
    requirement_text: str | None
    params: BuildParams
    jury: JuryOptions

    @classmethod
    def of(cls, request: BuildRequest) -> BuildSpec:
        return cls(request.source.yaml, request.source.text, request.params, request.jury)

    def requirement(self) -> Requirement:
        return RequirementSource(self.requirement_yaml, self.requirement_text).requirement()

    def validate(self) -> Requirement:
        requirement = self.requirement()
        self.params.validate()
        jury_options(requirement, self.jury.llm_judges, self.jury.relevance_quantile)
        return requirement

    def to_record(self) -> dict[str, Any]:
        return {"requirement_yaml": self.requirement_yaml, "requirement_text": self.requirement_text,
                "params": asdict(self.params), "jury": asdict(self.jury)}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> BuildSpec:
        return cls(record["requirement_yaml"], record["requirement_text"], BuildParams(**record["params"]),
                   JuryOptions(**record["jury"]))
