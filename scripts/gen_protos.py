"""Generate Python code for every proto under protos/ into a target root (default: services/).

`make proto` writes into services/; `make proto-check` generates into a temporary directory and
fails when the checked-in code differs.
"""

from __future__ import annotations

import filecmp
import shutil
import sys
import tempfile
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"
SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")


def generate(out: Path) -> list[Path]:
    files = sorted(PROTOS.rglob("*.proto"))
    include = str(Path(protoc.__file__).parent / "_proto")
    args = ["protoc", f"-I{PROTOS}", f"-I{include}", f"--python_out={out}", f"--pyi_out={out}",
            f"--grpc_python_out={out}", *map(str, files)]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    generated = sorted(p for p in out.rglob("*") if p.name.endswith(SUFFIXES))
    for path in generated:
        for directory in path.relative_to(out).parents:
            init = out / directory / "__init__.py"
            if directory != Path(".") and not init.exists():
                init.write_text("")
    return generated


def check() -> int:
    services = ROOT / "services"
    with tempfile.TemporaryDirectory() as tmp:
        fresh = generate(Path(tmp))
        drift = []
        for path in fresh:
            rel = path.relative_to(tmp)
            if not (services / rel).exists() or not filecmp.cmp(path, services / rel, shallow=False):
                drift.append(str(rel))
        expected = {str(p.relative_to(tmp)) for p in fresh}
        stale = [str(p.relative_to(services)) for p in services.rglob("*")
                 if p.name.endswith(SUFFIXES) and str(p.relative_to(services)) not in expected]
    if drift or stale:
        print("generated code is out of date; run `make proto`:", *drift, *stale, sep="\n  ")
        return 1
    print(f"generated code matches {len(expected)} files")
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        sys.exit(check())
    written = generate(ROOT / "services")
    shutil.rmtree(ROOT / "services" / "__pycache__", ignore_errors=True)
    print(f"wrote {len(written)} files")
