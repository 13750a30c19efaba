"""Structural checks of a Dockerfile with dockerfile-parse, for what hadolint does not enforce:
every base image pinned to a version or digest, every deliverable stage (one no other stage
copies from) ends as a non-root user and has a HEALTHCHECK, no credential-like ENV/ARG name."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from dockerfile_parse import DockerfileParser

SECRET_NAME = re.compile(r"KEY|SECRET|PASSWORD|TOKEN|CREDENTIAL", re.IGNORECASE)
PINNED_TAG = re.compile(r"^[^:@]+(:(?P<tag>[^@]+))?(@sha256:[0-9a-f]{64})?$")


@dataclass
class Stage:
    name: str
    base: str
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def last(self, instruction: str) -> str | None:
        values = [v for i, v in self.instructions if i == instruction]
        return values[-1] if values else None

    def env(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for instruction, value in self.instructions:
            if instruction == "ENV":
                for word in shlex.split(value):
                    key, _, val = word.partition("=")
                    found[key] = val
        return found


def stages(path: Path) -> list[Stage]:
    out: list[Stage] = []
    for item in DockerfileParser(path=str(path)).structure:
        instruction, value = item["instruction"], item["value"]
        if instruction == "FROM":
            words = value.split()
            name = words[2] if len(words) == 3 and words[1].upper() == "AS" else str(len(out))
            out.append(Stage(name, words[0]))
        elif instruction != "COMMENT" and out:
            out[-1].instructions.append((instruction, value))
    return out


def problems(path: Path) -> list[str]:
    found: list[str] = []
    all_stages = stages(path)
    names = {s.name for s in all_stages}
    sources = {re.sub(r"^--from=", "", v.split()[0]) for s in all_stages for i, v in s.instructions
               if i == "COPY" and v.startswith("--from=")}
    for stage in all_stages:
        if stage.base not in names:
            match = PINNED_TAG.match(stage.base)
            pinned = match and ("@sha256:" in stage.base or
                                (match["tag"] and match["tag"] != "latest" and re.search(r"\d", match["tag"])))
            if not pinned:
                found.append(f"{stage.name}: base image {stage.base} is not pinned to a version or digest")
        for instruction, value in stage.instructions:
            if instruction in ("ENV", "ARG"):
                keys = [w.partition("=")[0] for w in shlex.split(value)]
                found += [f"{stage.name}: {instruction} {k} looks like a credential" for k in keys
                          if SECRET_NAME.search(k)]
        if stage.name in sources or any(s.base == stage.name for s in all_stages):
            continue  # a build stage: its user and health check never run
        user = stage.last("USER")
        if user is None or user.split(":")[0] in ("root", "0"):
            found.append(f"{stage.name}: runs as root (no non-root USER)")
        if stage.last("HEALTHCHECK") is None:
            found.append(f"{stage.name}: no HEALTHCHECK")
    return found
