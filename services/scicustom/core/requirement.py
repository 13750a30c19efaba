"""An evaluation requirement r: what the user wants a benchmark for."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scicustom.core.errors import InvalidInput


@dataclass(frozen=True)
class JudgeSpec:
    """A configured LLM judge (`provider/model` for litellm)."""

    provider: str
    model: str

    @property
    def litellm_model(self) -> str:
        """litellm's `provider/model` name; the release's provider "google" is litellm's "gemini"."""
        if "/" in self.model or not self.provider:
            return self.model
        provider = {"google": "gemini"}.get(self.provider, self.provider)
        return f"{provider}/{self.model}"


@dataclass(frozen=True)
class Requirement:
    name: str
    domain: str
    description: str
    k1: int = 10
    k2: int = 100
    proxy_samples: int = 100
    voting_judges: tuple[JudgeSpec, ...] = ()
    relevance_judges: tuple[JudgeSpec, ...] = ()
    mcq_writer: JudgeSpec | None = None

    @property
    def text(self) -> str:
        """The domain name and the description, as a user wrote them."""
        return f"{self.domain}. {self.description}"

    @property
    def topic_text(self) -> str:
        """What local judges compare items with: the description without its instructions.

        Requirement texts are instructions to a question writer. Their meta-language ("Generate
        questions that test...") matches questions about testing and research methods, and their
        exclusions ("Avoid clinical treatment guidelines") pull in exactly what they exclude; both
        are dropped so that only the scientific topic remains.
        """
        kept = [_CONTRAST.split(s)[0] for s in re.split(r"(?<=[.!?])\s+", self.description)
                if s and not _EXCLUSION.match(s)]
        words = [w for w in " ".join(kept).split() if w.strip(".,;:()").lower() not in _INSTRUCTION_WORDS]
        return f"{self.domain}. {' '.join(words)}".strip()


_EXCLUSION = re.compile(r"^\s*(avoid|do not|don't|exclude|never)\b", re.IGNORECASE)
# "X rather than Y", "X over Y", "isolate X from general Y": Y is what the user does not want.
_CONTRAST = re.compile(r"\b(?:rather than|instead of|over|from general)\b", re.IGNORECASE)
_INSTRUCTION_WORDS = frozenset({
    "generate", "construct", "questions", "question", "that", "test", "tests", "assess", "assesses",
    "evaluate", "evaluates", "probe", "the", "should", "benchmark", "targeting", "knowledge", "reasoning",
    "understanding", "conceptual", "core", "focus", "on", "emphasize", "in", "and", "of", "a", "an",
    "skills", "wide", "range", "such", "as", "rather", "than", "coverage", "include",
    "isolate", "from", "this", "these", "class", "related", "to", "with", "e.g.", "etc.",
})


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:60] or "requirement"


def _positive_int(data: Mapping[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidInput(key, f"must be a positive integer, got {value!r}")
    return value


# The keys of the release's requirement format; `encoder_name` and `fuzzy_threshold` configure the
# release's own tagger and are accepted and ignored. Any other key is refused: a typo such as `k_2`
# must not silently leave the default in place.
REQUIREMENT_KEYS = ("requirement", "domain", "description", "k1", "k2", "proxy_samples", "voting_judges",
                    "relevance_judges", "mcq_writer", "encoder_name", "fuzzy_threshold")
JUDGE_KEYS = ("provider", "model")


_PLAIN_KEY = re.compile(r"[\w-]+")


def _known_keys(data: Mapping[Any, Any], known: Sequence[str], where: str) -> None:
    for key in data:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"known keys: {', '.join(known)}"
            if _PLAIN_KEY.fullmatch(str(key)):
                raise InvalidInput(f"{where}{key}", f"unknown key; {hint}")
            # A key that cannot be read as a field name (empty, spaces, ':' or '.'): the mapping
            # that holds it is named, the key quoted in the problem.
            raise InvalidInput(where.rstrip(".") or "requirement", f"unknown key {str(key)[:80]!r}; {hint}")


def _judge(entry: Any, field: str) -> JudgeSpec:
    if not isinstance(entry, Mapping) or not entry.get("model"):
        raise InvalidInput(field, "needs 'model'")
    _known_keys(entry, JUDGE_KEYS, f"{field}.")
    return JudgeSpec(provider=str(entry.get("provider", "")), model=str(entry["model"]))


def _judges(data: Mapping[str, Any], key: str) -> tuple[JudgeSpec, ...]:
    raw = data.get(key) or []
    if not isinstance(raw, list):
        raise InvalidInput(key, "must be a list of {provider, model}")
    return tuple(_judge(entry, f"{key}[{i}]") for i, entry in enumerate(raw))


def requirement_from_mapping(data: Any) -> Requirement:
    """Parse the requirement YAML format of the SciCustom release."""
    if not isinstance(data, Mapping):
        raise InvalidInput("requirement", "the file must hold a mapping")
    _known_keys(data, REQUIREMENT_KEYS, "")
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise InvalidInput("description", "missing or empty")
    name = data.get("requirement") or data.get("domain") or _slug(description)
    domain = data.get("domain") or str(name).replace("_", " ")
    writer = data.get("mcq_writer")
    writer_spec = _judge(writer, "mcq_writer") if writer else None
    return Requirement(
        name=_slug(str(name)),
        domain=str(domain).strip(),
        description=" ".join(description.split()),
        k1=_positive_int(data, "k1", 10),
        k2=_positive_int(data, "k2", 100),
        proxy_samples=_positive_int(data, "proxy_samples", 100),
        voting_judges=_judges(data, "voting_judges"),
        relevance_judges=_judges(data, "relevance_judges"),
        mcq_writer=writer_spec,
    )


def requirement_from_text(text: str) -> Requirement:
    text = " ".join(text.split())
    if len(text) < 3:
        raise InvalidInput("requirement", "free-text requirement is empty")
    return Requirement(name=_slug(text), domain=text[:80], description=text)
