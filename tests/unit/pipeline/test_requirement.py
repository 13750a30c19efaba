from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from scicustom.config import RESOURCES
from scicustom.core.errors import InvalidInput
from scicustom.core.requirement import requirement_from_mapping, requirement_from_text

REQUIREMENTS = sorted((RESOURCES / "requirements").glob("*.yaml"))


def test_all_twelve_packaged_requirements_parse():
    assert len(REQUIREMENTS) == 12
    for path in REQUIREMENTS:
        req = requirement_from_mapping(yaml.safe_load(path.read_text()))
        assert req.k1 == 10 and req.k2 == 100 and len(req.voting_judges) == 3
        assert req.voting_judges[0].litellm_model == "openai/gpt-5"


def test_virology_fields():
    req = requirement_from_mapping(yaml.safe_load((RESOURCES / "requirements/healthcare_virology.yaml").read_text()))
    assert req.name == "virology" and req.domain == "virology"
    assert req.description.startswith("Generate questions that test conceptual understanding in virology.")


@pytest.mark.parametrize("data, field", [
    ([], "requirement"),
    ({"domain": "x"}, "description"),
    ({"description": "ok", "k1": 0}, "k1"),
    ({"description": "ok", "k2": "many"}, "k2"),
    ({"description": "ok", "voting_judges": [{"provider": "openai"}]}, "voting_judges[0]"),
])
def test_bad_requirements_name_the_field(data, field):
    with pytest.raises(InvalidInput) as err:
        requirement_from_mapping(data)
    assert err.value.field == field


def test_free_text_requirement():
    req = requirement_from_text("  battery cathode   degradation ")
    assert req.name == "battery_cathode_degradation" and req.description == "battery cathode degradation"
    with pytest.raises(InvalidInput):
        requirement_from_text(" ")


def test_vendored_data_matches_shared_copy():
    shared = Path(__file__).resolve().parents[3].parent / "shared" / "data"
    if not shared.exists():
        pytest.fail(f"expected the shared data folder beside the repository at {shared}")
    assert (RESOURCES / "knowledge_units.json").read_bytes() == (shared / "knowledge_units.json").read_bytes()
    assert (RESOURCES / "m2m_vocabulary.json").read_bytes() == (shared / "m2m_vocabulary.json").read_bytes()
    for path in (shared / "requirements").glob("*.yaml"):
        assert (RESOURCES / "requirements" / path.name).read_bytes() == path.read_bytes()


@pytest.mark.parametrize(("text", "field", "message"), [
    ("description: enzymes\nk_2: 50\n", "k_2", "did you mean 'k2'"),
    ("description: enzymes\nexclusions: [x]\n", "exclusions", "known keys"),
    ("description: enzymes\nvoting_judges:\n  - {model: m, temprature: 0}\n", "voting_judges[0].temprature",
     "unknown key"),
    ("description: enzymes\nmcq_writer: {model: m, providr: x}\n", "mcq_writer.providr", "did you mean 'provider'"),
])
def test_unknown_keys_are_refused_by_name(text: str, field: str, message: str) -> None:
    from scicustom.app.build.request import requirement_from_yaml_text

    with pytest.raises(InvalidInput) as refused:
        requirement_from_yaml_text(text, "requirement_yaml", "req.yaml")  # a file: its own keys
    assert refused.value.field == field and message in refused.value.problem
    with pytest.raises(InvalidInput) as refused:
        requirement_from_yaml_text(text, "requirement_yaml")  # a request field: the key under it
    assert refused.value.field == f"requirement_yaml.{field}"


def test_yaml_aliases_are_refused_before_anything_expands_them() -> None:
    from scicustom.app.build.request import requirement_from_yaml_text

    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + k)}: &{chr(98 + k)} [*{chr(97 + k)}, *{chr(97 + k)}, *{chr(97 + k)}, *{chr(97 + k)}]\n"
        for k in range(8)) + "description: *i\n"
    with pytest.raises(InvalidInput, match="anchors or aliases") as refused:
        requirement_from_yaml_text(bomb, "requirement_yaml")
    assert refused.value.field == "requirement_yaml"
