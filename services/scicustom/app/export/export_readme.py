"""The README.md of an export: how to load it with its tool, then the description every export
carries (requirement, voted units, licences, provenance; core/export/dataset_card.py)."""

from __future__ import annotations

from typing import Any

import yaml

from scicustom.app.export.finished_build import FinishedBuild
from scicustom.core.export.dataset_card import about_markdown


def export_readme(build: FinishedBuild, title: str, usage: str, header: dict[str, Any] | None = None) -> str:
    """`usage` is Markdown; `header`, when given, becomes the YAML front matter (a dataset card's)."""
    front = "" if header is None else f"---\n{yaml.safe_dump(header, sort_keys=False, allow_unicode=True)}---\n\n"
    summary = (f"{len(build.items)} multiple-choice questions built by SciCustom for the requirement "
               f"`{build.facts.requirement_name}`.")
    return f"{front}# {title}\n\n{summary}\n\n{usage.strip()}\n\n{about_markdown(build.facts, build.items)}"
