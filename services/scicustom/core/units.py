"""Knowledge units: the ontology-grounded label space every corpus item is tagged with."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scicustom.core.errors import InvalidInput

NON_SCIENTIFIC = "Non-Scientific"


@dataclass(frozen=True)
class KnowledgeUnit:
    id: str
    name: str
    domain: str
    keywords: tuple[str, ...] = field(default=())

    @property
    def is_scientific(self) -> bool:
        return self.name != NON_SCIENTIFIC

    def describe(self) -> str:
        """Text used by embedding and lexical judges: the name, then keywords when known."""
        if not self.keywords:
            return self.name
        return f"{self.name}: {', '.join(self.keywords)}"


class UnitCatalog:
    """An ordered, immutable set of units; the position of a unit is its column in the index."""

    def __init__(self, units: Iterable[KnowledgeUnit], version: str = "") -> None:
        self.units: tuple[KnowledgeUnit, ...] = tuple(units)
        self.version = version
        self._by_id = {u.id: i for i, u in enumerate(self.units)}
        self._by_name = {u.name.casefold(): i for i, u in enumerate(self.units)}
        if len(self._by_id) != len(self.units):
            raise InvalidInput("knowledge_units", "duplicate unit id")
        if len(self._by_name) != len(self.units):
            raise InvalidInput("knowledge_units", "duplicate unit name")

    @classmethod
    def from_file(cls, path: Path, field: str) -> UnitCatalog:
        """A units JSON file; a missing or unreadable file is `field`'s fault."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InvalidInput(field, f"{path} does not exist") from None
        except json.JSONDecodeError as exc:
            raise InvalidInput(field, f"{path} is not JSON: {exc}") from None
        return cls.from_mapping(data)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> UnitCatalog:
        raw = data.get("knowledge_units")
        if not isinstance(raw, list) or not raw:
            raise InvalidInput("knowledge_units", "expected a non-empty list")
        units = []
        for i, entry in enumerate(raw):
            if not isinstance(entry, Mapping) or not entry.get("id") or not entry.get("name"):
                raise InvalidInput(f"knowledge_units[{i}]", "needs 'id' and 'name'")
            keywords = entry.get("keywords") or ()
            units.append(
                KnowledgeUnit(
                    id=str(entry["id"]),
                    name=str(entry["name"]),
                    domain=str(entry.get("domain", "")),
                    keywords=tuple(str(k) for k in keywords),
                )
            )
        return cls(units, version=str(data.get("version", "")))

    def __len__(self) -> int:
        return len(self.units)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.units)

    def index_of(self, unit_id: str) -> int:
        return self._by_id[unit_id]

    def by_id(self, unit_id: str) -> KnowledgeUnit:
        return self.units[self._by_id[unit_id]]

    def find_name(self, name: str) -> KnowledgeUnit | None:
        i = self._by_name.get(name.strip().casefold())
        return None if i is None else self.units[i]

    def scientific(self) -> list[KnowledgeUnit]:
        return [u for u in self.units if u.is_scientific]

    def non_scientific(self) -> KnowledgeUnit | None:
        return self.find_name(NON_SCIENTIFIC)
