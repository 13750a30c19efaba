"""Where the packaged data files live (vocabularies, knowledge units, gold sets).

A module of its own so that a command reading one of them (`score m2m` and its vocabulary) need not
import the settings, whose pydantic models take a good part of a second to import.
"""

from __future__ import annotations

from pathlib import Path

RESOURCES = Path(__file__).parent / "resources"
