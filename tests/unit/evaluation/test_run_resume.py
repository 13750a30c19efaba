"""Resume after interruption: a kill after k items, then a rerun that repeats none of them."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from scicustom.adapters.evaluation_files import ProgressFiles
from scicustom.adapters.litellm_llm import LiteLLMAdapter
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.core.errors import LLMCallFailed
from scicustom.core.evaluation.benchmark_lines import MCQItem
from scicustom.core.evaluation.chat_answerer import ChatMCQAnswerer
from scicustom.core.evaluation.responses import ItemResponse, ModelAnswer
from scicustom.core.evaluation.run import run_model
from scicustom.ports import LLM, Completion
from tests.support.recorded_llm_server import RecordedLLMServer
from tests.unit.evaluation.benchmark_fixtures import REPLIES_A, asked, items, record


class SimulatedKill(Exception):
    pass


class KilledAfter:
    """The LLM port, but the process 'dies' on the call after the first `k`."""

    def __init__(self, inner: LLM, k: int) -> None:
        self._inner, self._left = inner, k

    def complete(self, model: str, messages: Sequence[Mapping[str, str]], **params: Any) -> Completion:
        if self._left == 0:
            raise SimulatedKill
        self._left -= 1
        return self._inner.complete(model, messages, **params)


def _llm(cache_path: Path, server: RecordedLLMServer, **kw: Any) -> LiteLLMAdapter:
    return LiteLLMAdapter(LLMResponseCache(cache_path), api_base=server.api_base, api_key="test",
                          backoff_s=0.0, **kw)


def _answerer(llm: LLM) -> ChatMCQAnswerer:
    return ChatMCQAnswerer("judge-a", llm, "openai/judge-a", {"temperature": 0})


def test_kill_after_k_items_then_rerun_repeats_none(tmp_path: Path, recorded_llm: RecordedLLMServer) -> None:
    record(recorded_llm, REPLIES_A)
    progress = ProgressFiles(tmp_path / "progress")
    killed = _answerer(KilledAfter(_llm(tmp_path / "c1.sqlite", recorded_llm), k=2))
    with pytest.raises(SimulatedKill):
        run_model(killed, items(), progress, concurrency=1, save_every=100)
    assert asked(recorded_llm) == {"q1": 1, "q2": 1, "q3": 0, "q4": 0}
    saved = json.loads(progress.path("judge-a").read_text())
    assert [r["item_id"] for r in saved["responses"]] == ["q1", "q2"]  # saved on the way out
    # A fresh, empty response cache: only the progress file keeps q1 and q2 from being asked again.
    run = run_model(_answerer(_llm(tmp_path / "c2.sqlite", recorded_llm)), items(), progress, concurrency=1)
    assert asked(recorded_llm) == {"q1": 1, "q2": 1, "q3": 1, "q4": 1}
    assert (run.resumed, run.answered, run.errors) == (2, 2, {})
    assert [r.chosen for r in run.responses] == ["A", "B", "C", "C"]


def test_kill_with_calls_in_flight_loses_no_finished_answer(tmp_path: Path,
                                                            recorded_llm: RecordedLLMServer) -> None:
    record(recorded_llm, REPLIES_A)
    progress = ProgressFiles(tmp_path / "progress")
    killed = _answerer(KilledAfter(_llm(tmp_path / "c1.sqlite", recorded_llm), k=3))
    with pytest.raises(SimulatedKill):
        run_model(killed, items(), progress, concurrency=3, save_every=100)
    assert sum(asked(recorded_llm).values()) == 3
    run = run_model(_answerer(_llm(tmp_path / "c2.sqlite", recorded_llm)), items(), progress, concurrency=3)
    assert asked(recorded_llm) == {"q1": 1, "q2": 1, "q3": 1, "q4": 1}
    assert run.resumed == 3 and len(run.responses) == 4


def test_progress_lost_in_a_hard_kill_is_covered_by_the_response_cache(
        tmp_path: Path, recorded_llm: RecordedLLMServer) -> None:
    record(recorded_llm, REPLIES_A)
    progress = ProgressFiles(tmp_path / "progress")
    cache = tmp_path / "cache.sqlite"
    with pytest.raises(SimulatedKill):
        run_model(_answerer(KilledAfter(_llm(cache, recorded_llm), k=3)), items(), progress, concurrency=1)
    progress.path("judge-a").unlink()  # SIGKILL before any save
    llm = _llm(cache, recorded_llm)
    run = run_model(_answerer(llm), items(), progress, concurrency=1)
    assert asked(recorded_llm) == {"q1": 1, "q2": 1, "q3": 1, "q4": 1}
    assert (llm.usage.calls, llm.usage.cached_calls, run.resumed) == (1, 3, 0)


def test_failed_calls_are_errors_and_are_not_saved(tmp_path: Path, recorded_llm: RecordedLLMServer) -> None:
    record(recorded_llm, REPLIES_A)
    recorded_llm.fail_next = 1
    progress = ProgressFiles(tmp_path / "progress")
    llm = _llm(tmp_path / "c.sqlite", recorded_llm, max_retries=0)
    run = run_model(_answerer(llm), items(), progress, concurrency=1, failures=(LLMCallFailed,))
    assert list(run.errors) == ["q1"] and "injected failure" in run.errors["q1"]
    assert [r.item_id for r in run.responses] == ["q2", "q3", "q4"]
    again = run_model(_answerer(llm), items(), progress, concurrency=1, failures=(LLMCallFailed,))
    assert (again.resumed, again.answered, again.errors) == (3, 1, {})


def test_an_undeclared_exception_stops_the_run(tmp_path: Path, recorded_llm: RecordedLLMServer) -> None:
    recorded_llm.fail_next = 1
    llm = _llm(tmp_path / "c.sqlite", recorded_llm, max_retries=0)
    with pytest.raises(LLMCallFailed):
        run_model(_answerer(llm), items(), ProgressFiles(tmp_path / "p"), concurrency=1)
    assert len(recorded_llm.calls) == 1


class MemoryProgress:
    """The ProgressStore in memory, counting saves."""

    def __init__(self) -> None:
        self.saved: dict[tuple[str, str], list[ItemResponse]] = {}
        self.saves = 0

    def load(self, model: str, fingerprint: str) -> list[ItemResponse]:
        return list(self.saved.get((model, fingerprint), []))

    def save(self, model: str, fingerprint: str, responses: Sequence[ItemResponse]) -> None:
        self.saves += 1
        self.saved[(model, fingerprint)] = list(responses)


class FirstLabel:
    """A real (if poor) answerer: always the first option, in batches."""

    name = "first"
    max_workers = 1

    def __init__(self, batch_size: int, fingerprint: str = "v1") -> None:
        self.batch_size = batch_size
        self._fingerprint = fingerprint
        self.batches: list[list[str]] = []

    def fingerprint(self) -> str:
        return self._fingerprint

    def answer_batch(self, batch: Sequence[MCQItem]) -> list[ModelAnswer]:
        self.batches.append([item.id for item in batch])
        return [ModelAnswer(text="A", chosen="A", rule="first") for _ in batch]


def test_batches_and_periodic_saves() -> None:
    progress, answerer = MemoryProgress(), FirstLabel(batch_size=3)
    run = run_model(answerer, items(), progress, save_every=2)
    assert answerer.batches == [["q1", "q2", "q3"], ["q4"]]
    assert progress.saves == 2  # after 3 answers, then after the 4th
    assert [r.correct for r in run.responses] == [True, False, False, False]


def test_changed_settings_or_questions_are_asked_again() -> None:
    progress = MemoryProgress()
    run_model(FirstLabel(batch_size=4), items(), progress)
    changed = FirstLabel(batch_size=4, fingerprint="v2")
    run_model(changed, items(), progress)
    assert changed.batches == [["q1", "q2", "q3", "q4"]]
    edited = [*items()[:3], MCQItem("q4", "New?\nA. x\nB. y", "B", "New?", {"A": "x", "B": "y"})]
    same = FirstLabel(batch_size=4, fingerprint="v2")
    run = run_model(same, edited, progress)
    assert same.batches == [["q4"]] and run.resumed == 3


def test_progress_files_round_trip_and_ignore_other_fingerprints(tmp_path: Path) -> None:
    store = ProgressFiles(tmp_path)
    response = ItemResponse("q1", "s", "A", "A", True, "r", "t", 1, 2, 0.5, False, {"A": -0.1})
    store.save("openai/gpt-4o", "f1", [response])
    assert store.load("openai/gpt-4o", "f1") == [response]
    assert store.load("openai/gpt-4o", "f2") == []
    assert store.path("openai/gpt-4o").name.startswith("openai_gpt-4o-")
    assert store.path("openai/gpt-4o") != store.path("openai_gpt-4o")
    assert [p.name for p in tmp_path.iterdir()] == [store.path("openai/gpt-4o").name]  # no temp files left
