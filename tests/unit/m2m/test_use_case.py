"""The M2M use case applies one set of parameter checks, named as the request names them; the CLI
reports the same problems under its flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from scicustom.app.scoring.m2m import M2MRequest, score_hypotheses
from scicustom.cli import main
from scicustom.core.errors import InvalidInput
from tests.unit.m2m.conftest import csv_records
from tests.unit.m2m.synthetic_rows import rows_to_csv, synthetic_rows


def unused() -> None:
    raise AssertionError("no report here needs an LLM or embeddings")


@pytest.mark.parametrize(("options", "message"), [
    ({"attacks": True, "attack_sample": 10001}, "options.attack_sample: 10001 is above the limit 10000"),
    ({"min_group_size": 100001}, "options.min_group_size: 100001 is above the limit 100000"),
    ({"judge_models": ["openai/j"]}, "options.judge_models: the pairwise judge compares systems: give a system_column"),
    ({"system_column": "system", "judge_models": ["a", "b", "c", "d", "e"]},
     "options.judge_models: has 5 entries, above the limit 4"),
    ({"system_column": "system", "judge_models": ["openai/j"], "judge_problems": 1001},
     "options.judge_problems: 1001 is above the limit 1000"),
    ({"group_by": "lab"}, "options.group_by: no record has a column 'lab'"),
    ({"id_column": "row"}, "options.id_column: no record has a column 'row'"),
])
def test_parameters_are_checked_before_scoring(vocabulary, options, message) -> None:
    rows = [{**r, "system": "a" if i % 2 else "b"} for i, r in enumerate(synthetic_rows(6, seed=3))]
    request = M2MRequest(records=csv_records(rows, vocabulary), **options)
    with pytest.raises(InvalidInput) as error:
        score_hypotheses(request, vocabulary, unused, unused)
    assert str(error.value) == message


def test_the_cli_names_its_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "in.csv").write_bytes(rows_to_csv(synthetic_rows(6, seed=3)))
    argv = ["score", "m2m", "--input", str(tmp_path / "in.csv"), "--output", str(tmp_path / "out.json")]
    assert main([*argv, "--report", str(tmp_path / "r.json"), "--attacks", "--attack-sample", "20000"]) == 2
    assert capsys.readouterr().err.strip() == "scicustom: error: --attack-sample: 20000 is above the limit 10000"
    assert main([*argv, "--group-by", "lab"]) == 2
    assert capsys.readouterr().err.strip() == "scicustom: error: --group-by: no record has a column 'lab'"
    assert not (tmp_path / "out.json").exists()
