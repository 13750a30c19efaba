"""Tagger benchmark: items/s of the trained tagger in process (ONNX) against the zero-shot baseline
(MiniLM similarity) measured in the same run, and through the KServe server over gRPC and HTTP.

A version with a sentence-vector head is measured two ways: with the texts' stored vectors given (as
the retag and the ingest's tag worker give them) and with texts alone (the tagger encodes them with
MiniLM first, as a gRPC TagText call does), the latter on the zero-shot baseline's smaller sample.

Texts are corpus items of SCICUSTOM_HOME (question + answer, as `corpus tag` reads them), or
composed queries when the corpus is empty. The model is the current trained tagger of that home;
without one, an untrained ensemble of the production shape (TrainConfig's members, each 30,522 x 384
token vectors, 642 units) is exported: tagging cost depends on the shape, not on the weights.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np

from scicustom.adapters.onnx_tagger import OnnxTagger
from scicustom.adapters.tagger_artifact_store import current_artifact_dir, tagger_root
from scicustom.bootstrap import Context
from scicustom.core.errors import PreconditionFailed

N_TEXTS = int(os.environ.get("BENCH_TAGGER_TEXTS", "4000"))
N_ZEROSHOT = int(os.environ.get("BENCH_TAGGER_ZEROSHOT_TEXTS", "400"))
CLI = "from scicustom.cli import run; run()"


def bench_texts(ctx: Context, n: int) -> tuple[list[str], np.ndarray | None]:
    """Texts and, from the corpus, their stored vectors (None for composed queries)."""
    items = ctx.corpus.load_items()
    if items:
        from scicustom.app.ingest.item_embeddings import StoredEmbeddings

        rng = np.random.default_rng(0)
        picks = [items[i] for i in rng.choice(len(items), size=min(n, len(items)), replace=False)]
        return [it.text for it in picks], StoredEmbeddings(ctx.corpus, ctx.embedder).vectors(picks)[0]
    from scicustom.core.tagger_training.composer import OfflineComposer
    from scicustom.core.tagger_training.sampling import CompositionalSampler, unit_keywords_from_catalog

    sampler = CompositionalSampler(unit_keywords_from_catalog(ctx.catalog))
    rng = np.random.default_rng(0)
    return [OfflineComposer().compose(sampler.sample(rng), rng) for _ in range(n)], None


def artifact_home(ctx: Context, scratch: Path) -> tuple[Path, str]:
    try:
        current_artifact_dir(ctx.settings.home)
        return ctx.settings.home, "current trained tagger"
    except PreconditionFailed:
        pass
    from scicustom.adapters.packaged_models import minilm_path
    from scicustom.adapters.tagger_artifact_store import save_artifact
    from scicustom.adapters.torch_onnx_export import export_onnx
    from scicustom.adapters.torch_tagger_network import StaticTokenTagger
    from scicustom.core.tagger_training.train_config import TrainConfig

    units = ctx.catalog.units

    rng = np.random.default_rng(0)
    members = [StaticTokenTagger(rng.normal(size=(30522, 384)).astype(np.float32), np.zeros(30522, np.float32),
                                 len(units)) for _ in TrainConfig().ensemble_embedding_factors]
    save_artifact(tagger_root(scratch), export_onnx(members), (minilm_path() / "tokenizer.json").read_bytes(),
                  [u.id for u in units], [u.name for u in units], [u.domain for u in units],
                  np.full(len(units), 0.5, np.float32), 256, 8, {"note": "untrained, benchmark shape"})
    return scratch, "untrained network of the production shape (no trained tagger in this home)"


def rate(fn, texts: list[str], vectors: np.ndarray | None = None) -> float:  # type: ignore[no-untyped-def]
    """items/s of fn(texts) or, with `vectors`, of fn(texts, vectors)."""
    def call(n: int | None) -> None:
        chosen = texts[:n] if n else texts
        if vectors is None:
            fn(chosen)
        else:
            fn(chosen, vectors[: len(chosen)])

    call(32)  # warm-up: sessions, threads, connections
    started = time.perf_counter()
    call(None)
    return len(texts) / (time.perf_counter() - started)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def served_rates(home: Path, texts: list[str], vectors: np.ndarray | None, n_texts_only: int) -> dict[str, float]:
    http_port, grpc_port = free_port(), free_port()
    env = {**os.environ, "SCICUSTOM_HOME": str(home)}
    with tempfile.TemporaryFile() as log:
        return _served_rates(home, texts, vectors, n_texts_only, env, log, http_port, grpc_port)


def _served_rates(home: Path, texts: list[str], vectors: np.ndarray | None, n_texts_only: int, env: dict[str, str],
                  log: Any, http_port: int, grpc_port: int) -> dict[str, float]:
    from scicustom.adapters.triton_tagger import TritonTagger

    server = subprocess.Popen([sys.executable, "-c", CLI, "serve", "tagger", "--host", "127.0.0.1", "--http-port",
                               str(http_port), "--grpc-port", str(grpc_port)], env=env, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{http_port}/v2/models/tagger/ready", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    log.seek(0)
                    raise RuntimeError(f"tagger server did not start:\n{log.read().decode()[-3000:]}") from None
                time.sleep(0.2)
        out = {}
        for protocol, port in (("grpc", grpc_port), ("http", http_port)):
            remote = TritonTagger(f"127.0.0.1:{port}", protocol=protocol, batch_size=64, timeout_s=60)  # type: ignore[arg-type]
            out[protocol] = rate(remote.tag, texts, vectors)
            if vectors is not None:
                out[f"{protocol}_texts_only"] = rate(remote.tag, texts[:n_texts_only])
            remote.close()
        return out
    finally:
        server.terminate()
        server.wait(10)


def main() -> None:
    ctx = Context.from_environment()
    texts, stored = bench_texts(ctx, N_TEXTS)
    with tempfile.TemporaryDirectory() as scratch:
        home, what = artifact_home(ctx, Path(scratch))
        tagger = OnnxTagger(current_artifact_dir(home), embedder=ctx.embedder)
        vectors = stored if tagger.artifact.head is not None else None
        in_process = rate(tagger.tag, texts, vectors)
        threads2 = rate(OnnxTagger(current_artifact_dir(home), threads=2).tag, texts, vectors)
        texts_only = rate(tagger.tag, texts[:N_ZEROSHOT]) if vectors is not None else None
        from scicustom.core.zero_shot_tagger import ZeroShotParams, ZeroShotTagger

        baseline = ZeroShotTagger(ctx.embedder, ctx.catalog, ZeroShotParams(threshold=0.3))
        zero_shot = rate(baseline.tag, texts[:N_ZEROSHOT])
        served = served_rates(home, texts, vectors, N_ZEROSHOT)
    mean_tokens = float(np.mean([len(t.split()) for t in texts]))
    print(f"cores: {os.cpu_count()}; model: {what} ({tagger.version}); {len(texts)} texts, "
          f"{mean_tokens:.0f} words on average; load average {os.getloadavg()[0]:.1f}")
    given = " (texts' vectors given)" if vectors is not None else ""
    print(f"in process (onnxruntime, default threads): {in_process:8.0f} items/s{given}")
    print(f"in process (onnxruntime, 2 threads):       {threads2:8.0f} items/s{given}")
    if texts_only is not None:
        print(f"in process, texts only (MiniLM encodes):   {texts_only:8.0f} items/s")
    print(f"zero-shot baseline (MiniLM, torch):        {zero_shot:8.0f} items/s  -> trained/zero-shot "
          f"{in_process / zero_shot:.1f}x")
    print(f"KServe gRPC (batches of 64):               {served['grpc']:8.0f} items/s")
    print(f"KServe HTTP (batches of 64, binary):       {served['http']:8.0f} items/s")
    for protocol in ("grpc", "http"):
        if f"{protocol}_texts_only" in served:
            print(f"KServe {protocol}, texts only (server encodes): {served[f'{protocol}_texts_only']:8.0f} items/s")


if __name__ == "__main__":
    main()
