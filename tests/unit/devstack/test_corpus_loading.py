"""`dev up` follows the bus load with GetBatch and says how far it is (batches, items, rate, ETA)."""

from __future__ import annotations

from scicustom.devstack.corpus_loading import BatchStatus, ImportedBatch, load_packaged_corpus, progress_line


class FakeIngest:
    """Three batches; each poll round moves one batch one state further."""

    def __init__(self, fail: str | None = None) -> None:
        self.batches = [ImportedBatch(f"b{i}", "mmlu", 1000 if i < 2 else 500) for i in range(3)]
        self.polls = {b.batch_id: 0 for b in self.batches}
        self.fail = fail
        self.imported_with: int | None = None

    def import_corpus(self, limit_per_source):
        self.imported_with = limit_per_source
        return self.batches

    def get(self, batch_id):
        self.polls[batch_id] += 1
        count = next(b.count for b in self.batches if b.batch_id == batch_id)
        n = self.polls[batch_id] - int(batch_id[1:])
        if batch_id == self.fail and n >= 1:
            return BatchStatus(batch_id, "failed", count, 0, "", "the index worker dead-lettered it")
        state = "imported" if n < 1 else "tagged" if n < 2 else "indexed"
        return BatchStatus(batch_id, state, count, count if state == "indexed" else 0, "trained-x", "")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_the_load_is_followed_to_the_end_with_progress_lines():
    client, clock, lines = FakeIngest(), Clock(), []
    report = load_packaged_corpus(client, 0, lines.append, clock=clock, sleep=clock.sleep, poll_s=10.0)
    assert client.imported_with == 0
    assert (report.batches, report.items, report.indexed, report.failed) == (3, 2500, 2500, {})
    assert report.tagger_versions == {"trained-x"}
    assert report.pipeline_s == 30.0 and report.items_per_s == 2500 / 30
    assert lines[0].startswith("imported 2,500 items in 3 batches")
    assert lines[-1] == "[   30s] indexed 3/3 batches, 2,500/2,500 items; tagged 3/3; 83 items/s; ETA 0s"
    assert any("indexed 1/3 batches, 1,000/2,500 items" in line and "ETA" in line for line in lines)


def test_a_failed_batch_ends_the_wait_and_is_reported():
    client, clock, lines = FakeIngest(fail="b2"), Clock(), []
    report = load_packaged_corpus(client, 0, lines.append, clock=clock, sleep=clock.sleep)
    assert report.failed == {"b2": "the index worker dead-lettered it"}
    assert report.indexed == 2000
    assert lines[-1].endswith("; 1 FAILED")


def test_progress_line_rate_and_eta():
    statuses = {"a": BatchStatus("a", "indexed", 1000, 1000, "v", ""),
                "b": BatchStatus("b", "tagged", 1000, 0, "v", ""),
                "c": BatchStatus("c", "imported", 1000, 0, "", "")}
    assert progress_line(20.0, statuses, 3000) == (
        "[   20s] indexed 1/3 batches, 1,000/3,000 items; tagged 2/3; 50 items/s; ETA 40s")
    assert progress_line(0.0, statuses, 3000).endswith("ETA ?")
    assert "ETA 4m10s" in progress_line(50.0, statuses, 3000 + 3000)
