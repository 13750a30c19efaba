"""`make dev-up` / `make dev-down`: the whole platform on loopback, from the installed packages.

Up starts SeaweedFS (S3), tansu (Kafka), noida-db (Elasticsearch API), creates topics, bucket and
index, then every gRPC service and one worker process per stage, and loads the corpus.

With a trained tagger in --tagger-home (the local home), the KServe tagger model server serves it,
`cluster use-served-tagger` makes it the cluster's current index, `corpus seed-embeddings` copies
the home's stored item vectors into the cluster's object store, and the whole packaged corpus goes
through the bus: ImportCorpus on IngestService -> items-imported -> tag worker (embeds only the
items without a stored vector, tags over OIP v2) -> index worker (Elasticsearch, corpus shards),
with progress on the terminal. Without one, a 150-per-source slice is loaded with the CLI steps
(`corpus import`, `corpus tag` with the zero-shot tagger, `corpus index`) before the services start.

Every process is recorded in <dir>/state.json with its PID and command (written before the load,
so `scicustom dev status` answers during it); down stops exactly those PIDs.
Logs: <dir>/logs/<name>.log. <dir>/cluster.env holds the settings to talk to it, the bearer token
of its one tenant included (SCICUSTOM_AUTH_TOKEN; the services check it against
<dir>/home/auth/tokens), so it is readable by this user only.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from scicustom.bootstrap import Context
from scicustom.core.errors import PreconditionFailed
from scicustom.devstack.platform_processes import (
    SERVICES,
    cluster_env,
    scicustom_command,
    start_service,
    start_worker,
)
from scicustom.devstack.real_servers import (
    ServerProcess,
    free_port,
    start_noida_elasticsearch,
    start_process,
    start_seaweedfs,
    start_tansu,
)
from scicustom.workers.topics import STAGES

STOP_GRACE_S = 30.0  # a worker finishes its in-flight record before it exits


SLICE_PER_SOURCE = 150  # the corpus slice loaded without a trained tagger (the CLI path)


@dataclass(frozen=True)
class DevOptions:
    directory: Path
    # Items per packaged source, 0: all. None: the whole corpus through the bus with a trained tagger,
    # else SLICE_PER_SOURCE (the zero-shot CLI path scores hardness for every item: hours for all).
    limit_per_source: int | None = None
    load_corpus: bool = True
    tagger_home: Path | None = None         # a home with a trained tagger to serve over KServe
    seed_embeddings: bool = True            # copy the tagger home's stored item vectors first


def _run(argv: Sequence[str], env: Mapping[str, str], log: Path) -> None:
    with open(log, "ab") as out:
        code = subprocess.run(list(argv), env=dict(env), stdout=out, stderr=subprocess.STDOUT, check=False).returncode
    if code != 0:
        raise PreconditionFailed(f"`{shlex.join(argv)}` failed with exit code {code}; see {log}")


def _record(state: dict[str, dict[str, object]], process: ServerProcess, port: int | None = None) -> None:
    state[process.name] = {"pid": process.popen.pid, "command": process.argv[0], "port": port,
                           "log": str(process.log_path)}


def up(options: DevOptions, say: Callable[[str], None] = print) -> dict[str, dict[str, object]]:
    root = options.directory.resolve()
    state_file = root / "state.json"
    if state_file.exists() and any(_alive(e) for e in json.loads(state_file.read_text()).values()):
        raise PreconditionFailed(f"the dev cluster in {root} is already up; run `make dev-down` first")
    logs = root / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    state: dict[str, dict[str, object]] = {}
    started: list[ServerProcess] = []
    began = time.monotonic()
    try:
        s3 = start_seaweedfs(logs, bucket="scicustom")
        kafka = start_tansu(logs)
        es = start_noida_elasticsearch(logs)
        for server in (s3.process, kafka.process, es.process):
            started.append(server)
            _record(state, server)
        say(f"servers: S3 {s3.endpoint}  Kafka {kafka.bootstrap}  Elasticsearch {es.url}")
        extra: dict[str, str] = {}
        if options.tagger_home and Context.has_trained_tagger(options.tagger_home):
            tagger = _start_tagger_server(options.tagger_home, logs)
            started.append(tagger[0])
            _record(state, tagger[0], tagger[1])
            extra["SCICUSTOM_TAGGER_URL"] = f"127.0.0.1:{tagger[1]}"
        env = cluster_env(s3, kafka, es, root / "home", extra=extra)
        command = scicustom_command()
        _run([command, "cluster", "init"], env, logs / "setup.log")
        through_bus = options.load_corpus and "SCICUSTOM_TAGGER_URL" in extra
        if through_bus:
            _run([command, "cluster", "use-served-tagger"], env, logs / "setup.log")
            if options.seed_embeddings and options.tagger_home is not None:
                say(f"seeding the item vectors stored in {options.tagger_home} into the cluster's object store ...")
                _run([command, "corpus", "seed-embeddings", "--from-home", str(options.tagger_home)], env,
                     logs / "setup.log")
        elif options.load_corpus:
            limit = SLICE_PER_SOURCE if options.limit_per_source is None else options.limit_per_source
            slice_args = ["--limit-per-source", str(limit)] if limit else []
            say(f"no trained tagger in --tagger-home: loading {f'{limit} items per source' if limit else 'the corpus'} "
                "with the zero-shot tagger through the cluster profile (import, tag, index) ...")
            for step in (["corpus", "import", *slice_args], ["corpus", "tag"],
                         ["corpus", "index"]):
                _run([command, *step], env, logs / "setup.log")
        say(f"starting {len(SERVICES)} gRPC services and {len(STAGES)} stage workers ...")
        ports: dict[str, int] = {}
        for name in SERVICES:
            process, ports[name] = start_service(name, env, logs)
            started.append(process)
            _record(state, process, ports[name])
        env["SCICUSTOM_BUILD_SERVICE_ADDRESS"] = f"127.0.0.1:{ports['builds']}"
        for stage in STAGES:
            process, port = start_worker([stage], {**env, "SCICUSTOM_GRPC_PORT": "0"}, logs)
            started.append(process)
            _record(state, process, port)
        _write_settings(root, env)
        state_file.write_text(json.dumps(state, indent=1))
        say(f"{len(state)} processes up ({_since(began)}); `scicustom dev status --dir {options.directory}` "
            "lists them")
        if through_bus:
            _load_through_bus(f"127.0.0.1:{ports['ingest']}", env, options.limit_per_source or 0, logs, say)
    except BaseException:
        for process in reversed(started):
            process.stop()
        state_file.unlink(missing_ok=True)
        raise
    say(f"up in {_since(began)}; logs in {logs}; `source {root / 'cluster.env'}` then "
        "`scicustom build --requirement ... --out ...` goes through BuildService")
    return state


def _since(began: float) -> str:
    seconds = int(time.monotonic() - began)
    return f"{seconds // 60}m{seconds % 60:02d}s"


def _write_settings(root: Path, env: Mapping[str, str]) -> None:
    settings_file = root / "cluster.env"
    settings_file.touch(mode=0o600)
    settings_file.chmod(0o600)  # it holds the token and the S3 keys
    settings_file.write_text("".join(f"export {k}={shlex.quote(v)}\n" for k, v in sorted(env.items())
                                     if k.startswith(("SCICUSTOM_", "OTEL_"))))


def _load_through_bus(address: str, env: Mapping[str, str], limit_per_source: int, logs: Path,
                      say: Callable[[str], None]) -> None:
    from scicustom.devstack.corpus_loading import GrpcIngest, load_packaged_corpus

    what = "the whole packaged corpus" if not limit_per_source else f"{limit_per_source} items per source"
    say(f"loading {what} through the bus: ImportCorpus -> items-imported -> tag worker (trained tagger on the "
        "KServe model server) -> index worker ...")
    client = GrpcIngest(address, env["SCICUSTOM_AUTH_TOKEN"])
    try:
        report = load_packaged_corpus(client, limit_per_source, say)
    finally:
        client.close()
    if report.failed:
        first = next(iter(report.failed.items()))
        raise PreconditionFailed(f"{len(report.failed)} of {report.batches} batches failed (batch {first[0]}: "
                                 f"{first[1]}); see the worker logs in {logs}")
    say(f"corpus loaded: {report.indexed:,} of {report.items:,} items indexed by tagger "
        f"{', '.join(sorted(report.tagger_versions))} in {report.pipeline_s:.0f} s after the import "
        f"({report.import_s:.0f} s; {report.items_per_s:.0f} items/s)")


def _start_tagger_server(home: Path, logs: Path) -> tuple[ServerProcess, int]:
    from scicustom.devstack.real_servers import accepts_connections

    http, grpc_port = free_port(), free_port()
    argv = [scicustom_command(), "serve", "tagger", "--host", "127.0.0.1", "--http-port", str(http),
            "--grpc-port", str(grpc_port)]
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG")} | {
        "HOME": str(home), "SCICUSTOM_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    process = start_process("tagger-model-server", argv, logs, lambda _: accepts_connections(grpc_port), env,
                            timeout_s=120)
    return process, grpc_port


def _alive(entry: Mapping[str, object]) -> bool:
    """True when the recorded PID still runs the recorded command (not a reused PID)."""
    pid = int(str(entry["pid"]))
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return str(entry["command"]).encode() in cmdline


def down(directory: Path, say: Callable[[str], None] = print) -> int:
    state_file = directory.resolve() / "state.json"
    if not state_file.exists():
        say("no dev cluster recorded; nothing to stop")
        return 0
    state = json.loads(state_file.read_text())
    # Platform processes first (they drain and commit), the servers they talk to last.
    entries = list(reversed(list(state.items())))
    for _, entry in entries:
        if _alive(entry):
            os.kill(int(entry["pid"]), signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_S
    while any(_alive(e) for _, e in entries) and time.monotonic() < deadline:
        time.sleep(0.2)
    killed = 0
    for _, entry in entries:
        if _alive(entry):
            os.kill(int(entry["pid"]), signal.SIGKILL)
            killed += 1
    state_file.unlink()
    say(f"stopped {len(entries)} processes" + (f" ({killed} had to be killed)" if killed else ""))
    return len(entries)


def status(directory: Path) -> dict[str, bool]:
    state_file = directory.resolve() / "state.json"
    if not state_file.exists():
        return {}
    return {name: _alive(entry) for name, entry in json.loads(state_file.read_text()).items()}
