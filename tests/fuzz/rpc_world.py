"""Every gRPC service of the platform on one loopback server, over a tiny tagged home.

The real servicers and the real interceptor chain (`scicustom service`'s) run; only the heavy or
remote ports are doubles, so a generated request that passes validation runs its real OK path
cheaply: a scripted LLM (no provider, no network), a keyword tagger (no model), a two-source
packaged corpus (no wheels) and one tiny packaged ontology (no package cache). The embedder and
perplexity are the hashing/length doubles of the existing service tests.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scicustom.adapters.ontology_obo_file import read_ontology_file
from scicustom.app.ontology.source_requests import OntologySources
from scicustom.bootstrap import Context
from scicustom.core.corpus_import import RawRecord
from scicustom.core.ontology.dag import OntologyDAG, OntologyNode, SourceInfo
from scicustom.ports import Completion, CorpusSource, ObjectStore, UnitScore
from tests.unit.grpc_scorers_selector_generator.corpus_world import tagged_context

SERVICES = ("builds", "generator", "ingest", "jury", "ontology", "papers", "retrieval", "scorers", "selector", "tagger")

# Replies of every shape the platform's LLM parsers meet: valid-looking, partial and garbage.
LLM_REPLIES = (
    "A", "yes", "no", "", "I cannot help with that.", "1. u1\n2. u2\n3. u4",
    '{"query": "Which part protects the viral genome?\\nA. capsid\\nB. ribosome\\nC. mitochondrion\\n'
    'D. nucleolus", "answer": "A"}',
    '{"score": 5, "reason": "ok"}', "moderate", "coarse", "fine", "```json\n{\"verdict\": \"A\"}\n```",
    "Score: 3\nReason: partly", "[[A]]", "\x00\ufffd" * 20,
)


@dataclass
class ScriptedLLM:
    """An LLM port that answers at once, the same reply for the same prompt (no provider, no network)."""

    calls: int = 0

    def complete(self, model: str, messages: Sequence[Mapping[str, str]], **params: Any) -> Completion:
        self.calls += 1
        digest = hashlib.sha256(repr((model, list(messages))).encode()).digest()
        return Completion(text=LLM_REPLIES[digest[0] % len(LLM_REPLIES)], model=model)


class KeywordTagger:
    """The tagger port without a model: units from words in the text."""

    version = "keywords-fuzz-v1"

    def tag(self, texts: Sequence[str], vectors: object = None) -> list[list[UnitScore]]:
        return [[UnitScore(u, s) for word, u, s in (("virus", "u1", 0.9), ("bone", "u3", 0.7), ("immune", "u4", 0.5))
                 if word in text.lower()] for text in texts]


@dataclass
class TinyPackagedCorpus:
    """Two packaged sources of a few records each, one with a broken record."""

    records_by_source: dict[str, list[RawRecord]] = field(default_factory=lambda: {
        "tinyqa": [RawRecord("tinyqa/1", "bio", "What protects the viral genome?", ["capsid", "ribosome", "wall"], 0),
                   RawRecord("tinyqa/2", "bio", "Which cells make antibodies?", ["B cells", "neurons"], 0),
                   RawRecord("tinyqa/3", "bio", "", ["a", "b"], 0)],
        "tinyopen": [RawRecord("tinyopen/1", "geo", "What moves tectonic plates?", answer="mantle convection")],
    })

    def sources(self) -> list[CorpusSource]:
        return [CorpusSource(name, "CC0", "1") for name in self.records_by_source]

    def records(self, name: str) -> Iterator[RawRecord]:
        return iter(self.records_by_source[name])


def _tiny_ontology() -> tuple[SourceInfo, OntologyDAG]:
    nodes = [OntologyNode(f"T:{i}", f"term {i}", "tinyonto") for i in range(12)]
    edges = [(f"T:{i}", f"T:{(i - 1) // 2}") for i in range(1, 12)]  # (child, parent): a binary tree
    return SourceInfo("tinyonto", "1", "test:tinyonto"), OntologyDAG.build("tinyonto", nodes, edges)


class RecordingStore:
    """The object store, noting every key written or deleted: a call that fails must have written none."""

    def __init__(self, inner: ObjectStore) -> None:
        self.inner = inner
        self.changed: list[str] = []

    def put_bytes(self, key: str, data: bytes) -> None:
        self.changed.append(key)
        self.inner.put_bytes(key, data)

    def delete(self, key: str) -> None:
        self.changed.append(key)
        self.inner.delete(key)

    def __getattr__(self, name: str) -> Any:  # reads go straight through
        return getattr(self.inner, name)


def rpc_context(home: Path) -> Context:
    ctx = tagged_context(home)
    ctx.store = RecordingStore(ctx.store)  # type: ignore[misc]
    ctx.tagger = KeywordTagger()  # type: ignore[misc]
    ctx.llm = ScriptedLLM()  # type: ignore[misc]
    ctx.packaged_corpus = TinyPackagedCorpus()  # type: ignore[misc]
    ctx.ontology_sources = OntologySources({"tinyonto": _tiny_ontology}, read_ontology_file)  # type: ignore[misc]
    return ctx


def bindings(ctx: Context) -> list[Any]:
    """Each service's own `binding(ctx)`, as `scicustom service <name>` registers it."""
    return [importlib.import_module(f"scicustom.{name}.servicer").binding(ctx) for name in SERVICES]
