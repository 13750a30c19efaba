"""A build request and its one validation: the CLI, BuildService, JuryService and the stage workers
all parse a requirement and check the parameters here, with the same limits.

A problem names what the caller gave: a request field (`requirement_yaml`, `k1`) or a CLI flag
(`--requirement`, `--relevance-quantile`). A problem inside a requirement *file* names the file's
own key (`description`), since that is what its author must fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scicustom.app.field_checks import at_most
from scicustom.app.yaml_documents import load_plain_yaml
from scicustom.core.build.pipeline import DEFAULT_MIN_ITEMS, BuildParams
from scicustom.core.errors import InvalidInput
from scicustom.core.requirement import Requirement, requirement_from_mapping, requirement_from_text

MAX_K1 = 100                 # voted units kept
MAX_K2 = 1000                # benchmark size
MAX_PROXY_SAMPLES = 1000     # candidate subsets drawn
MAX_REQUEST_ID = 128
MAX_YAML_BYTES = 64 * 1024
MAX_TEXT_CHARS = 4000
DEFAULT_METHOD = "scicustom"
DEFAULT_RELEVANCE_QUANTILE = 0.95
REQUIREMENT_FILE_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class JuryOptions:
    llm_judges: bool = False          # use the requirement file's LLM judges instead of local ones
    relevance_quantile: float = DEFAULT_RELEVANCE_QUANTILE


# -- the requirement ------------------------------------------------------------------------------
def requirement_from_yaml_text(text: str, field: str, file: str | None = None) -> Requirement:
    """`file`: the path the text was read from; a problem inside a file keeps the file's key."""
    subject = f"{file} " if file else ""
    if len(text.encode()) > MAX_YAML_BYTES:
        raise InvalidInput(field, f"{subject}is larger than {MAX_YAML_BYTES} bytes")
    data = load_plain_yaml(text, field, subject)
    if file:
        return requirement_from_mapping(data)
    try:
        return requirement_from_mapping(data)
    except InvalidInput as exc:  # the key inside the document, under the request's field
        raise InvalidInput(field if exc.field == "requirement" else f"{field}.{exc.field}", exc.problem) from None


def requirement_from_free_text(text: str, field: str) -> Requirement:
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidInput(field, f"is longer than {MAX_TEXT_CHARS} characters")
    try:
        return requirement_from_text(text)
    except InvalidInput as exc:
        raise InvalidInput(field, exc.problem) from None


def requirement_from_fields(name: str, domain: str, description: str, field: str) -> Requirement:
    """A requirement given as its fields (JuryService); a problem names `<field>.<key>`."""
    if len(description) > MAX_TEXT_CHARS:
        raise InvalidInput(f"{field}.description", f"is longer than {MAX_TEXT_CHARS} characters")
    data = {"description": description, "requirement": name or None, "domain": domain or None}
    try:
        return requirement_from_mapping(data)
    except InvalidInput as exc:
        raise InvalidInput(f"{field}.{exc.field}", exc.problem) from None


def is_requirement_file(value: str) -> bool:
    """The one test of whether a `--requirement` value names a file (else it is free text)."""
    path = Path(value)
    if path.suffix in REQUIREMENT_FILE_SUFFIXES:
        return True
    try:
        return path.exists()
    except OSError:  # e.g. a free text longer than a file name may be
        return False


@dataclass(frozen=True)
class RequirementSource:
    """A requirement as given: YAML text (read from `file` on the CLI) or free text, and the fields
    that gave it, which its problems name."""

    yaml: str | None = None
    text: str | None = None
    yaml_field: str = "requirement_yaml"
    text_field: str = "requirement_text"
    file: str | None = None

    def requirement(self) -> Requirement:
        if self.yaml is not None:
            return requirement_from_yaml_text(self.yaml, self.yaml_field, self.file)
        if self.text is None:
            raise InvalidInput("requirement", f"give {self.yaml_field} or {self.text_field}")
        return requirement_from_free_text(self.text, self.text_field)


def requirement_argument(value: str, flag: str = "--requirement") -> RequirementSource:
    """A CLI value: a requirement file (read here) or free text."""
    if not is_requirement_file(value):
        return RequirementSource(text=value, text_field="requirement")
    path = Path(value)
    if not path.is_file():
        raise InvalidInput(flag, f"{value} is not a file")
    return RequirementSource(yaml=path.read_text(encoding="utf-8"), yaml_field=flag, file=value)


# -- the parameters -------------------------------------------------------------------------------
@dataclass(frozen=True)
class BuildOptions:
    """A build's options as a caller gave them; None takes the requirement's value or the default."""

    method: str = DEFAULT_METHOD
    k1: int | None = None
    k2: int | None = None
    proxy_samples: int | None = None
    seed: int = 0
    llm_judges: bool = False
    relevance_quantile: float | None = None
    min_items: int | None = None      # the thin-coverage floor (default DEFAULT_MIN_ITEMS)


def _count(value: int | None, field: str, high: int, default: int) -> int:
    # Below 1 is BuildParams.validate's problem ("must be >= 1").
    return default if value is None else at_most(value, field, high)


def build_params(requirement: Requirement, options: BuildOptions) -> BuildParams:
    params = BuildParams(
        method=options.method,
        k1=_count(options.k1, "k1", MAX_K1, requirement.k1),
        k2=_count(options.k2, "k2", MAX_K2, requirement.k2),
        proxy_samples=_count(options.proxy_samples, "proxy_samples", MAX_PROXY_SAMPLES, requirement.proxy_samples),
        seed=options.seed,
        min_items=_count(options.min_items, "min_items", MAX_K2, DEFAULT_MIN_ITEMS))
    params.validate()
    return params


def jury_options(requirement: Requirement, llm_judges: bool, relevance_quantile: float | None,
                 quantile_field: str = "relevance_quantile", llm_field: str = "llm_judges") -> JuryOptions:
    quantile = DEFAULT_RELEVANCE_QUANTILE if relevance_quantile is None else relevance_quantile
    if not 0.5 <= quantile < 1:
        raise InvalidInput(quantile_field, "must be in [0.5, 1)")
    if llm_judges and (not requirement.voting_judges or not requirement.relevance_judges):
        raise InvalidInput(llm_field, "the requirement lists no voting_judges/relevance_judges")
    return JuryOptions(llm_judges=llm_judges, relevance_quantile=quantile)


def checked_request_id(request_id: str) -> str:
    if len(request_id) > MAX_REQUEST_ID:
        raise InvalidInput("request_id", f"is longer than {MAX_REQUEST_ID} characters")
    return request_id


@dataclass(frozen=True)
class BuildRequest:
    """A validated build request: the requirement as given and as parsed, the parameters, the jury."""

    source: RequirementSource
    requirement: Requirement
    params: BuildParams
    jury: JuryOptions


def validated_request(source: RequirementSource, options: BuildOptions,
                      quantile_field: str = "relevance_quantile", llm_field: str = "llm_judges") -> BuildRequest:
    requirement = source.requirement()
    params = build_params(requirement, options)
    jury = jury_options(requirement, options.llm_judges, options.relevance_quantile, quantile_field, llm_field)
    return BuildRequest(source, requirement, params, jury)
