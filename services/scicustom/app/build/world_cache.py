"""The last assembled build world, kept while the corpus index, seed and jury stay the same:
assembling loads the corpus, embeddings and judges (seconds), and consecutive builds and jury calls
usually share them. Stage workers and JuryService use it alike."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

from scicustom.app.build.request import JuryOptions
from scicustom.app.build.world import AssembleWorld
from scicustom.core.build.pipeline import BuildWorld
from scicustom.core.progress import no_progress
from scicustom.core.requirement import Requirement


class WorldCache:
    def __init__(self, current_index: Callable[[], dict[str, str]], assemble: AssembleWorld) -> None:
        self._current_index = current_index
        self._assemble = assemble
        self._key: str | None = None
        self._value: tuple[BuildWorld, dict[str, Any]] | None = None
        self._lock = threading.Lock()  # threads share it; one assembles, the others wait for it
        self.assembled = 0

    def get(self, requirement: Requirement, seed: int, jury: JuryOptions) -> tuple[BuildWorld, dict[str, Any]]:
        # Local judges do not depend on the requirement; LLM judges are the requirement's own.
        judges = ([j.litellm_model for j in (*requirement.voting_judges, *requirement.relevance_judges)]
                  if jury.llm_judges else [])
        key = json.dumps([self._current_index(), seed, jury.llm_judges, jury.relevance_quantile, judges],
                         sort_keys=True)
        with self._lock:
            if key != self._key or self._value is None:
                # Drop the old world first: two worlds would hold two copies of the corpus embeddings.
                self._key, self._value = None, None
                world, versions = self._assemble(requirement, seed, jury, no_progress)
                world.clock = time.perf_counter  # the stages time themselves
                self._key, self._value = key, (world, versions)
                self.assembled += 1
            return self._value
