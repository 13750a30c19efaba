"""WorldCache keeps the last world while the index, seed and jury stay the same, and drops it before
assembling another, so a stage worker never holds two copies of the corpus embeddings."""

from __future__ import annotations

import gc
import weakref
from typing import Any

from scicustom.app.build.request import JuryOptions
from scicustom.app.build.world_cache import WorldCache
from scicustom.core.requirement import requirement_from_mapping

REQUIREMENT = requirement_from_mapping({"requirement": "virology", "domain": "virology",
                                        "description": "Viral replication."})


class _World:
    """Stands in for a BuildWorld: the cache only stores it and sets its clock."""

    clock: Any = None


def test_same_key_reuses_the_world_and_a_new_key_releases_the_old_one_first() -> None:
    index = {"tagger_version": "t1"}
    alive_during_assembly: list[bool] = []
    previous: list[weakref.ref[_World]] = []

    def assemble(requirement, seed, jury, progress):  # type: ignore[no-untyped-def]
        gc.collect()
        alive_during_assembly.append(any(ref() is not None for ref in previous))
        world = _World()
        previous.append(weakref.ref(world))
        return world, {"seed": seed}

    cache = WorldCache(lambda: dict(index), assemble)
    first, _ = cache.get(REQUIREMENT, 0, JuryOptions())
    assert cache.get(REQUIREMENT, 0, JuryOptions())[0] is first and cache.assembled == 1
    del first
    index["tagger_version"] = "t2"  # a retagged corpus: the next build needs a new world
    second, versions = cache.get(REQUIREMENT, 0, JuryOptions())
    assert cache.assembled == 2 and versions == {"seed": 0}
    assert alive_during_assembly == [False, False]  # the old world was gone before the new one was built
    assert cache.get(REQUIREMENT, 1, JuryOptions())[0] is not second  # another seed, another world
