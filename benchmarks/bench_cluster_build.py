"""End-to-end build time: cluster mode (BuildService + stage workers over Kafka, S3, Elasticsearch
API on loopback) against embedded mode, same slice, requirement and seed, measured in one run.

Cold: the first build of each mode (cluster workers assemble their worlds); warm: a second build
with another seed. The ratio is cluster / embedded. The servers start from the installed packages.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scicustom.config import RESOURCES  # noqa: E402
from scicustom.devstack.platform_processes import (  # noqa: E402
    cluster_env,
    scicustom_command,
    start_service,
    start_worker,
)
from scicustom.devstack.real_servers import start_noida_elasticsearch, start_seaweedfs, start_tansu  # noqa: E402

SLICE = os.environ.get("BENCH_SLICE", "150")
BUILD = ["--requirement", str(RESOURCES / "requirements/healthcare_virology.yaml"), "--k2", "30"]
CACHES = {"SCICUSTOM_WHEEL_CACHE_DIR": str(ROOT / ".scicustom/cache/wheels"),
          "SCICUSTOM_MODEL_CACHE_DIR": str(ROOT / ".scicustom/cache/models")}


def _run(args: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run([scicustom_command(), *args], env=env, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    servers = [start_seaweedfs(work, bucket="bench"), start_tansu(work), start_noida_elasticsearch(work)]
    processes = [s.process for s in servers]
    try:
        env = cluster_env(*servers, work / "home", extra=CACHES)  # type: ignore[arg-type]
        local = {k: v for k, v in env.items() if not k.startswith("SCICUSTOM_")} | CACHES
        local["SCICUSTOM_HOME"] = str(work / "local")
        for step in (["corpus", "import", "--limit-per-source", SLICE], ["corpus", "tag"]):
            _run(step, local, work)
        for step in (["cluster", "init", "--partitions", "2"], ["corpus", "import", "--limit-per-source", SLICE],
                     ["corpus", "tag"], ["corpus", "index"]):
            _run(step, env, work)
        service, port = start_service("builds", env, work / "logs")
        processes.append(service)
        env["SCICUSTOM_BUILD_SERVICE_ADDRESS"] = f"127.0.0.1:{port}"
        for stages in (["vote", "candidates"], ["cutoff"], ["select", "generate", "complete"]):
            processes.append(start_worker(stages, {**env, "SCICUSTOM_GRPC_PORT": "0"}, work / "logs")[0])
        print(f"slice {SLICE}/source, k2 30, cores {os.cpu_count()}")
        for label, seed in (("cold", "0"), ("warm", "1")):
            embedded = _run(["build", *BUILD, "--seed", seed, "--out", f"e-{label}"], local, work)
            cluster = _run(["build", *BUILD, "--seed", seed, "--out", f"c-{label}"], env, work)
            reference = (work / f"e-{label}/benchmark.jsonl").read_bytes()
            same = (work / f"c-{label}/benchmark.jsonl").read_bytes() == reference
            print(f"{label}: embedded {embedded:6.1f} s   cluster {cluster:6.1f} s   "
                  f"ratio {cluster / embedded:4.2f}x   benchmark.jsonl identical: {same}")
    finally:
        for process in reversed(processes):
            process.stop(grace_s=15)


if __name__ == "__main__":
    main()
