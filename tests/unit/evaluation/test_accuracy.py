from __future__ import annotations

import numpy as np
import pytest

from scicustom.core.evaluation.accuracy import (
    bootstrap_indices,
    bootstrap_interval,
    interval_from_means,
    score_run,
)
from scicustom.core.evaluation.responses import ItemResponse
from scicustom.core.evaluation.run import ModelRun


def test_percentile_interval_on_a_hand_case() -> None:
    # Outcomes [1, 0]; the four resamples (0,0), (0,1), (1,1), (1,0) have means 1, .5, 0, .5.
    outcomes = np.array([1.0, 0.0])
    indices = np.array([[0, 0], [0, 1], [1, 1], [1, 0]])
    means = outcomes[indices].mean(axis=1)
    assert means.tolist() == [1.0, 0.5, 0.0, 0.5]
    # Sorted 0, .5, .5, 1; 2.5th percentile at position .075 -> .0375; 97.5th at 2.925 -> .9625.
    assert interval_from_means(means) == pytest.approx((0.0375, 0.9625))


def test_interval_is_the_percentiles_of_the_seeded_resample_means() -> None:
    outcomes = np.array([1, 1, 0, 1, 0, 0, 1, 1, 1, 0], dtype=float)
    expected = interval_from_means(outcomes[bootstrap_indices(10, 500, seed=7)].mean(axis=1))
    assert bootstrap_interval(outcomes, 500, seed=7) == expected
    assert bootstrap_interval(outcomes, 500, seed=7) == bootstrap_interval(outcomes, 500, seed=7)
    assert not np.array_equal(bootstrap_indices(10, 500, seed=8), bootstrap_indices(10, 500, seed=7))


def test_degenerate_outcomes_give_a_point_interval() -> None:
    assert bootstrap_interval([True] * 5, 200, seed=0) == (1.0, 1.0)
    assert bootstrap_interval([False] * 5, 200, seed=0) == (0.0, 0.0)


def test_interval_width_matches_the_normal_approximation() -> None:
    outcomes = np.arange(400) % 2 == 0  # accuracy .5 over 400 items
    low, high = bootstrap_interval(outcomes, 2000, seed=1)
    half = 1.96 * np.sqrt(0.25 / 400)  # 0.049
    assert low == pytest.approx(0.5 - half, abs=0.01)
    assert high == pytest.approx(0.5 + half, abs=0.01)


def test_indices_come_in_blocks_without_changing_the_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    from scicustom.core.evaluation import accuracy

    whole = bootstrap_indices(10, 30, seed=3)
    monkeypatch.setattr(accuracy, "_RESAMPLE_CELLS", 100)  # 10 resamples per block
    blocked = bootstrap_indices(10, 30, seed=3)
    assert blocked.shape == (30, 10)
    assert np.array_equal(whole, blocked)
    assert bootstrap_interval(np.arange(10) % 3 == 0, 30, seed=3) == interval_from_means(
        (np.arange(10) % 3 == 0)[blocked].mean(axis=1))


def _response(item_id: str, answer: str, chosen: str | None, tokens: int = 10) -> ItemResponse:
    return ItemResponse(item_id=item_id, query_sha="x", answer=answer, chosen=chosen,
                        correct=chosen == answer, rule="r", text="t", prompt_tokens=tokens,
                        completion_tokens=2, cost_usd=0.001, cached=False, scores=None)


def test_score_counts_unparsed_and_failed_items_as_wrong() -> None:
    run = ModelRun("m", [_response("a", "A", "A"), _response("b", "B", None), _response("d", "D", "D")],
                   errors={"c": "LLMCallFailed: boom"})
    score = score_run(run, ["a", "b", "c", "d"], resamples=100, seed=0)
    assert (score.accuracy, score.n, score.n_correct, score.n_unparsed, score.n_errors) == (0.5, 4, 2, 1, 1)
    assert (score.prompt_tokens, score.completion_tokens) == (30, 6)
    assert score.cost_usd == pytest.approx(0.003)
    assert score.ci_low <= 0.5 <= score.ci_high
    record = score.to_record()
    assert record["tokens"] == {"prompt": 30, "completion": 6, "total": 36}
    assert record["ci95"] == {"low": score.ci_low, "high": score.ci_high}
