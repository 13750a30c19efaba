"""The build world a jury call runs in: `assemble_world`, exactly as a build assembles it, kept
while the corpus index, seed and jury options stay the same (assembling takes seconds)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from scicustom.bootstrap import Context
from scicustom.builds.build_world import JuryOptions, assemble_world
from scicustom.core.build.pipeline import BuildWorld
from scicustom.core.requirement import Requirement

Assemble = Callable[[Context, Requirement, int, JuryOptions, Callable[[str, int, int], None]],
                    tuple[BuildWorld, dict[str, Any]]]


class JuryWorlds:
    def __init__(self, ctx: Context, assemble: Assemble = assemble_world) -> None:
        self.ctx = ctx
        self._assemble = assemble
        self._key: str | None = None
        self._world: BuildWorld | None = None
        self._lock = threading.Lock()  # RPC threads share it; one assembles, the others wait for it
        self.assembled = 0

    def get(self, requirement: Requirement, seed: int, options: JuryOptions) -> BuildWorld:
        # Local judges do not depend on the requirement; LLM judges are the requirement's own.
        judges = ([j.litellm_model for j in (*requirement.voting_judges, *requirement.relevance_judges)]
                  if options.llm_judges else [])
        key = json.dumps([self.ctx.current_index(), seed, options.llm_judges, options.relevance_quantile, judges],
                         sort_keys=True)
        with self._lock:
            if key != self._key or self._world is None:
                self._world, _ = self._assemble(self.ctx, requirement, seed, options, lambda stage, done, total: None)
                self._key = key
                self.assembled += 1
            return self._world
