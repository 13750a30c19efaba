"""The machine a benchmark ran on, written beside its figures: figures from two machines, or from one
machine under another load, do not compare."""

from __future__ import annotations

import os
import platform


def machine_info(**versions: object) -> dict[str, object]:
    """Cores, platform, Python, processor, the versions a benchmark names, and the load average."""
    return {"cores": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
            "processor": platform.processor() or platform.machine(), **versions,
            "load_average": [round(x, 2) for x in os.getloadavg()]}
