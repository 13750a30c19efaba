from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.tagger.tiny_world import train_tiny


@pytest.fixture(scope="session")
def tiny_trained(tmp_path_factory: pytest.TempPathFactory):
    """One tiny trained tagger per test session (home/models/tagger layout), shared read-only."""
    home = tmp_path_factory.mktemp("tagger_home")
    result = train_tiny(Path(home) / "models" / "tagger")
    return home, result
