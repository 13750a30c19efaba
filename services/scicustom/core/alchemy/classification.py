"""Reading the classification reply (paper Figure 10): does the text hold a synthesis recipe, and
what target, material, application and synthesis-process category it describes."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

PROCESS_CATEGORIES = (
    "Solid-State", "Vapor Deposition", "Mechanochemical", "Hydrothermal", "Pyrolysis", "Melt Quenching",
    "Electrochemical", "Self-Assembly", "Solution-Based", "Biological", "Hybrid", "Others",
)


@dataclass(frozen=True)
class Classification:
    has_recipe: bool | None  # None: the reply did not say
    target: str = ""
    chemical_formula: str = ""
    material_name: str = ""
    material_class: str = ""
    application: str = ""
    process: str = ""
    process_category: str = ""  # one of PROCESS_CATEGORIES, or "" when unreadable

    def to_row(self) -> dict[str, Any]:
        return asdict(self)


def _field(text: str, label: str) -> str:
    m = re.search(rf"^[\s\-*\d.]*\**{label}\**\s*:\s*(.+)$", text, re.IGNORECASE | re.MULTILINE)
    if m is None:
        return ""
    value = m.group(1).strip().strip("*").strip()
    return "" if value.upper() in ("N/A", "NA", "NONE") else value


def process_category(process: str) -> str:
    key = re.sub(r"[^a-z]", "", process.casefold())
    for category in PROCESS_CATEGORIES:
        if key.startswith(re.sub(r"[^a-z]", "", category.casefold())):
            return category
    if key.startswith("other"):
        return "Others"
    return ""


def parse_classification(text: str) -> Classification:
    recipe = _field(text, r"synthesis recipe(?: classification)?")
    if recipe:
        has_recipe: bool | None = recipe.upper().startswith("YES")
    else:
        bare = re.match(r"\s*\**\s*(YES|NO)\b", text, re.IGNORECASE)
        has_recipe = bare.group(1).upper() == "YES" if bare else None
    process = _field(text, r"synthesis process(?: classification)?")
    return Classification(
        has_recipe=has_recipe,
        target=_field(text, r"target(?: classification)?"),
        chemical_formula=_field(text, "chemical formula"),
        material_name=_field(text, "material name"),
        material_class=_field(text, "material class"),
        application=_field(text, r"application domain"),
        process=process,
        process_category=process_category(process),
    )
