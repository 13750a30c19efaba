"""Serving the trained tagger: `tagger export-triton` (a Triton model repository for the GPU
deployment) and the checks `serve tagger` makes before it starts the KServe model server."""

from __future__ import annotations

from pathlib import Path

from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.core.tagger_training.artifact import TaggerArtifact
from scicustom.ports import TaggerArtifacts, TaggerModelRepository


def export_triton(artifacts: TaggerArtifacts, repository: TaggerModelRepository, version: str | None, out: Path,
                  max_batch: int) -> tuple[TaggerArtifact, Path]:
    """The version (default: the current one) as a model repository at `out`; returns it and the path."""
    artifact = artifacts.load(version)
    return artifact, repository.write(artifact, out, max_batch)


def serving_directory(artifacts: TaggerArtifacts, version: str | None, http_port: int, grpc_port: int,
                      max_batch: int) -> Path:
    """The folder of the version to serve, once the ports and the batch limit are valid."""
    for flag, port in (("--http-port", http_port), ("--grpc-port", grpc_port)):
        if not 0 < port < 65536:
            raise InvalidInput(flag, f"{port} is not a port")
    if max_batch < 1:
        raise InvalidInput("--max-batch", "must be >= 1")
    directory = artifacts.directory(version)
    try:
        artifacts.load(version)
    except PreconditionFailed:
        raise InvalidInput("--version", f"no trained tagger in {directory}") from None
    return directory
