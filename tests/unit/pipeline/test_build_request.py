"""One validation of a build request: the CLI, BuildService and the remote-build client apply the
same limits and the same requirement-file detector (app/build/request.py)."""

from __future__ import annotations

import pytest

from scicustom.app.build.request import (
    MAX_TEXT_CHARS,
    MAX_YAML_BYTES,
    BuildOptions,
    RequirementSource,
    checked_request_id,
    is_requirement_file,
    requirement_argument,
    validated_request,
)
from scicustom.builds.servicer import build_options, requirement_source
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.client.build_client import create_request
from scicustom.config import RESOURCES
from scicustom.core.errors import InvalidInput

TEXT = "virology: virus capsid, viral genome and virus replication in the host cell"
VIROLOGY = RESOURCES / "requirements/healthcare_virology.yaml"
CLI_FIELDS = {"quantile_field": "--relevance-quantile", "llm_field": "--llm-judges"}


def _problem(call) -> str:
    with pytest.raises(InvalidInput) as raised:
        call()
    return str(raised.value)


@pytest.mark.parametrize(("options", "problem"), [
    (BuildOptions(k1=101), "k1: 101 is above the limit 100"),
    (BuildOptions(k2=1001), "k2: 1001 is above the limit 1000"),
    (BuildOptions(proxy_samples=1001), "proxy_samples: 1001 is above the limit 1000"),
    (BuildOptions(k2=0), "k2: must be >= 1"),
    (BuildOptions(method="magic"), "method: 'magic' is not one of"),
])
def test_the_cli_and_the_service_refuse_the_same_parameters(options, problem):
    cli = _problem(lambda: validated_request(RequirementSource(text=TEXT, text_field="requirement"), options,
                                             **CLI_FIELDS))
    assert cli.startswith(problem)
    service_request = pb.CreateBuildRequest(requirement_text=TEXT, method=options.method, k1=options.k1 or 0,
                                            k2=options.k2 or 0, proxy_samples=options.proxy_samples or 0)
    if options.k2 != 0:  # 0 on the wire means "not given"
        service = _problem(lambda: validated_request(requirement_source(service_request),
                                                     build_options(service_request)))
        assert service.startswith(problem)


def test_limits_are_inclusive_and_unset_counts_take_the_requirements():
    request = validated_request(requirement_argument(str(VIROLOGY)), BuildOptions(k1=100, k2=1000,
                                                                                   proxy_samples=1000))
    assert (request.params.k1, request.params.k2, request.params.proxy_samples) == (100, 1000, 1000)
    defaults = validated_request(requirement_argument(str(VIROLOGY)), BuildOptions())
    assert (defaults.params.k1, defaults.params.k2, defaults.params.proxy_samples) == (10, 100, 100)
    assert defaults.jury.relevance_quantile == 0.95 and not defaults.jury.llm_judges


def test_jury_options_name_the_callers_field():
    source = RequirementSource(text=TEXT)
    assert _problem(lambda: validated_request(source, BuildOptions(relevance_quantile=0.3), **CLI_FIELDS)) == \
        "--relevance-quantile: must be in [0.5, 1)"
    assert _problem(lambda: validated_request(source, BuildOptions(relevance_quantile=1.0))) == \
        "relevance_quantile: must be in [0.5, 1)"
    assert _problem(lambda: validated_request(source, BuildOptions(llm_judges=True), **CLI_FIELDS)) == \
        "--llm-judges: the requirement lists no voting_judges/relevance_judges"
    assert validated_request(requirement_argument(str(VIROLOGY)), BuildOptions(llm_judges=True)).jury.llm_judges


def test_one_detector_of_a_requirement_file(tmp_path):
    plain = tmp_path / "requirement"  # an existing file without a suffix is a file
    plain.write_text(VIROLOGY.read_text())
    assert is_requirement_file(str(plain)) and is_requirement_file(str(tmp_path / "missing.yml"))
    assert not is_requirement_file(TEXT)
    assert requirement_argument(str(plain)).yaml == VIROLOGY.read_text()
    assert requirement_argument(TEXT) == RequirementSource(text=TEXT, text_field="requirement")
    assert _problem(lambda: requirement_argument(str(tmp_path / "missing.yml"))) == \
        f"--requirement: {tmp_path / 'missing.yml'} is not a file"
    assert _problem(lambda: requirement_argument(str(tmp_path))) == f"--requirement: {tmp_path} is not a file"


def test_the_remote_build_sends_what_the_cli_validated(tmp_path):
    from_file = validated_request(requirement_argument(str(VIROLOGY)), BuildOptions(k2=12, seed=3), **CLI_FIELDS)
    sent = create_request(from_file)
    assert sent.WhichOneof("requirement") == "requirement_yaml" and sent.requirement_yaml == VIROLOGY.read_text()
    assert (sent.method, sent.k1, sent.k2, sent.proxy_samples, sent.seed) == ("scicustom", 10, 12, 100, 3)
    assert sent.relevance_quantile == pytest.approx(0.95) and not sent.llm_judges
    free = create_request(validated_request(requirement_argument(TEXT), BuildOptions()))
    assert free.WhichOneof("requirement") == "requirement_text" and free.requirement_text == TEXT
    # The service re-validates the same request with the same code and gets the same parameters.
    again = validated_request(requirement_source(sent), build_options(sent))
    assert (again.requirement, again.params, again.jury) == (from_file.requirement, from_file.params, from_file.jury)


def test_requirement_problems_name_the_field_or_the_files_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("requirement: x\ndescription: [unclosed\n")
    assert _problem(lambda: requirement_argument(str(bad)).requirement()) == \
        f"--requirement: {bad} is not valid YAML (ParserError)"
    no_description = tmp_path / "nodesc.yaml"
    no_description.write_text("requirement: x\n")
    assert _problem(lambda: requirement_argument(str(no_description)).requirement()) == \
        "description: missing or empty"
    assert _problem(lambda: RequirementSource(yaml="requirement: x\n").requirement()) == \
        "requirement_yaml.description: missing or empty"
    assert _problem(lambda: RequirementSource().requirement()) == \
        "requirement: give requirement_yaml or requirement_text"
    big = tmp_path / "big.yaml"
    big.write_text("description: " + "x" * MAX_YAML_BYTES + "\n")
    assert _problem(lambda: requirement_argument(str(big)).requirement()) == \
        f"--requirement: {big} is larger than {MAX_YAML_BYTES} bytes"
    assert _problem(lambda: requirement_argument("x" * (MAX_TEXT_CHARS + 1)).requirement()) == \
        f"requirement: is longer than {MAX_TEXT_CHARS} characters"
    assert _problem(lambda: requirement_argument("ab").requirement()) == \
        "requirement: free-text requirement is empty"


def test_request_ids_are_bounded():
    assert checked_request_id("r" * 128) == "r" * 128
    assert _problem(lambda: checked_request_id("r" * 129)) == "request_id: is longer than 128 characters"
