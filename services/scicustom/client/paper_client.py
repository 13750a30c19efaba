"""`scicustom papers submit` against a remote PaperService (`SCICUSTOM_PAPER_SERVICE_ADDRESS`), through
the SDK's PapersClient: the caller holds no object-store or Kafka credentials; `--wait` follows each
paper until it is terminal or the time is up (then it reports where the paper got to)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from scicustom.app.papers.paper_records import PaperStatus
from scicustom.client.connection import ClientOptions
from scicustom.client.papers import PapersClient
from scicustom.client.rpc_errors import WaitTimeout


def submit_remote(address: str, paths: Sequence[Path], wait: bool, timeout_s: float,
                  options: ClientOptions | None = None) -> list[PaperStatus]:
    """Each file's paper after submission, or after it settled when `wait` (until `timeout_s`).
    `options`: the token and TLS (client/environment_options.py); None reads them from the environment."""
    with PapersClient(address, options) as client:
        papers = [client.submit(path) for path in paths]
        if wait:
            deadline = time.monotonic() + timeout_s
            papers = [_settled(client, paper, deadline) for paper in papers]
    return papers


def _settled(client: PapersClient, paper: PaperStatus, deadline: float) -> PaperStatus:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return paper
    try:
        last = client.wait(paper.paper_id, remaining)
    except WaitTimeout as timeout:  # out of time: report where it got to
        last = timeout.last if isinstance(timeout.last, PaperStatus) else paper
    last.duplicate = paper.duplicate
    return last
