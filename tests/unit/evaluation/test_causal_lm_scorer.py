"""The local log-likelihood scorer on the packaged SmolLM2-135M (slow: loads the model)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from scicustom.adapters.causal_lm_mcq_scorer import CausalLMMCQScorer, load_local_causal_lm
from scicustom.adapters.packaged_models import SMOLLM_NAME, load_smollm
from scicustom.cli import main
from scicustom.config import Settings
from scicustom.core.errors import PreconditionFailed
from scicustom.core.evaluation.benchmark_lines import parse_item
from scicustom.core.evaluation.prompt import scoring_prompt

MCQS = [
    {"id": "capital", "query": "What is the capital of France?\nA. Berlin\nB. Paris\nC. Madrid\nD. Rome",
     "answer": "B"},
    {"id": "photosynthesis", "query": "Which gas do plants absorb from the air for photosynthesis?\n"
     "A. Oxygen\nB. Nitrogen\nC. Carbon dioxide\nD. Helium", "answer": "C"},
    {"id": "spider", "query": "How many legs does a spider have?\nA. Six\nB. Four\nC. Ten\nD. Eight",
     "answer": "D"},
]


@pytest.mark.slow
def test_smollm2_scores_three_hand_written_mcqs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    loaded = load_smollm(Settings().model_cache)
    tokenizer = loaded[0]
    items = [parse_item(q, q["id"]) for q in MCQS]

    def scorer(scoring: Any, batch_size: int, max_length: int = 1024) -> CausalLMMCQScorer:
        return CausalLMMCQScorer("smollm2", "smollm2", lambda: loaded, scoring=scoring,
                                 batch_size=batch_size, max_length=max_length)

    # Cloze scoring on the option texts gets the two easy questions right.
    text = scorer("text", 3).answer_batch(items)
    assert [a.chosen for a in text[:2]] == ["B", "C"]
    for answer in text:
        assert answer.chosen == max(answer.scores, key=answer.scores.get)  # type: ignore[arg-type]
        assert all(v < 0 for v in answer.scores.values())  # type: ignore[union-attr]
    # Batching (right padding) changes no score; the first item is the shortest, padded most.
    one_by_one = [scorer("text", 1).answer_batch([item])[0] for item in items[:2]]
    for batched, single in zip(text[:2], one_by_one, strict=True):
        assert batched.scores == pytest.approx(single.scores, abs=1e-4)

    # Label scoring: every label is one token, so each item is one sequence, the prompt itself,
    # and the labels' probabilities are parts of one next-token distribution.
    labels = scorer("label", 3).answer_batch(items)
    for item, answer in zip(items, labels, strict=True):
        assert set(answer.scores) == {"A", "B", "C", "D"}  # type: ignore[arg-type]
        assert sum(math.exp(v) for v in answer.scores.values()) < 1.0  # type: ignore[union-attr]
        prompt = tokenizer(scoring_prompt(item, with_options=True), add_special_tokens=False)["input_ids"]
        assert answer.prompt_tokens == len(prompt)
        assert answer.rule == "log-likelihood (label)" and answer.text == answer.chosen

    # Long prompts keep their last tokens and still score.
    short = scorer("label", 1, max_length=8).answer_batch(items[:1])
    assert short[0].prompt_tokens == 8 and short[0].chosen in "ABCD"

    # Through the command, with the model given as a folder (the converted SmolLM2): the same
    # choices, and a rerun resumes without loading the model.
    bench, models = tmp_path / "bench.jsonl", tmp_path / "models.yaml"
    bench.write_text("".join(json.dumps(q) + "\n" for q in MCQS))
    folder = Settings().model_cache / SMOLLM_NAME
    models.write_text(f"models:\n  - {{name: smol, kind: local, path: '{folder}', scoring: text}}\n")
    argv = ["evaluate", "--benchmark", str(bench), "--models", str(models), "--out", str(tmp_path / "out"),
            "--bootstrap", "50"]
    assert main(argv) == 0
    lines = (tmp_path / "out" / "responses" / "smol.jsonl").read_text().splitlines()
    assert [json.loads(line)["chosen"] for line in lines] == [a.chosen for a in text]
    results = json.loads((tmp_path / "out" / "results.json").read_text())["models"]["smol"]
    assert (results["kind"], results["model"], results["n"], results["n_unparsed"]) == ("local", str(folder), 3, 0)
    assert main(argv) == 0
    assert "(resumed 3, answered 0)" in capsys.readouterr().out


def test_a_folder_without_a_model_is_a_precondition_failure(tmp_path: Path) -> None:
    with pytest.raises(PreconditionFailed, match=r"no config\.json"):
        load_local_causal_lm(tmp_path)
