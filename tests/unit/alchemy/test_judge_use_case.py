"""The AlchemyBench judge use case: one set of parameter checks for the CLI and the service."""

from __future__ import annotations

import pytest

from scicustom.app.scoring.alchemy import JudgeRequest, judge_recipes
from scicustom.core.alchemy.judge import JudgeInput
from scicustom.core.alchemy.prediction import PredictionTarget
from scicustom.core.errors import InvalidInput

INPUTS = [JudgeInput(PredictionTarget(id="p0", contribution="c", recipe="## Materials\n- water"), "## Materials")]


def no_llm():
    raise AssertionError("a refused request calls no LLM")


@pytest.mark.parametrize(("change", "message"), [
    ({"judge": " "}, "judge: is empty"),
    ({"judge": "m" * 201}, "judge: has 201 characters, above the limit 200"),
    ({"workers": 0}, "workers: must be at least 1"),
    ({"workers": 33}, "workers: 33 is above the limit 32"),
])
def test_parameters_are_checked(change, message) -> None:
    request = JudgeRequest(**{"judge": "openai/judge", "inputs": INPUTS, "groups": ["m"], **change})
    with pytest.raises(InvalidInput) as error:
        judge_recipes(request, no_llm)
    assert str(error.value) == message
