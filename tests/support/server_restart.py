"""Restart a real local server (tests/integration, tests/chaos) with the same command line: same port,
same data directory. The caller's ServerProcess then stops the new process at teardown."""

from __future__ import annotations

import os
from collections.abc import Callable

from scicustom.devstack.real_servers import ServerProcess, start_process


def restart_server(process: ServerProcess, ready: Callable[[ServerProcess], bool]) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(process.log_path.parent),
           "AWS_ACCESS_KEY_ID": "scicustom", "AWS_SECRET_ACCESS_KEY": "scicustom-secret"}
    fresh = start_process(process.name, process.argv, process.log_path.parent, ready, env)
    process.popen = fresh.popen
