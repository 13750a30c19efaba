from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
import yaml

from scicustom.config import RESOURCES
from scicustom.core.sciif.catalog import Catalog, parse_catalog
from scicustom.core.sciif.evidence_rules import RuleVerifier
from scicustom.core.sciif.quantities import UnitParser
from scicustom.ports import Completion


@pytest.fixture(scope="session")
def catalog_data() -> dict[str, Any]:
    return yaml.safe_load((RESOURCES / "sciif" / "catalog.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def catalog(catalog_data: dict[str, Any]) -> Catalog:
    return parse_catalog(catalog_data)


@pytest.fixture(scope="session")
def units() -> UnitParser:
    return UnitParser()  # a pint registry takes ~0.5 s: one per session


@pytest.fixture(scope="session")
def verifier(units: UnitParser) -> RuleVerifier:
    return RuleVerifier(units)


class ScriptedLLM:
    """An LLM port whose reply is a function of (model, messages), so two judges can disagree."""

    def __init__(self, reply: Callable[[str, list[dict[str, str]]], str]) -> None:
        self._reply = reply
        self.calls: list[tuple[str, list[dict[str, str]]]] = []

    def complete(self, model: str, messages: Sequence[Mapping[str, str]], **params: Any) -> Completion:
        copied = [dict(m) for m in messages]
        self.calls.append((model, copied))
        return Completion(text=self._reply(model, copied), model=model)


def pointwise(*verdicts: str) -> str:
    lines = [f"POINT_{i}: {v}" + (" [missing]" if v == "NO" else "") for i, v in enumerate(verdicts, 1)]
    overall = "YES" if all(v == "YES" for v in verdicts) else "NO"
    return "\n".join([*lines, f"OVERALL: {overall}", "OVERALL_REASON: [-]"])


def is_correctness_prompt(messages: list[dict[str, str]]) -> bool:
    return "equivalent to the reference answer" in messages[0]["content"]
