"""A synthesis recipe split into the AlchemyBench sections: X (key contributions: target material,
method, application), Y_M materials, Y_E equipment, Y_P procedure, Y_C characterization (methods and
the product's measured characteristics)."""

from __future__ import annotations

import re
from dataclasses import dataclass

NOT_SYNTHESIS = "NOT A MATERIAL SYNTHESIS PAPER"
SECTIONS = ("contribution", "materials", "equipment", "procedure", "characterization")
_HEADING = re.compile(r"^#{2,3}\s+(.+?)\s*#*\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Recipe:
    id: str
    contribution: str  # X
    materials: str  # Y_M
    equipment: str  # Y_E
    procedure: str  # Y_P
    characterization: str  # Y_C

    @property
    def recipe_text(self) -> str:
        """The recipe without X: what a prediction is compared with and what retrieval shows."""
        parts = [("Materials", self.materials), ("Synthesis Equipment", self.equipment),
                 ("Synthesis Procedure", self.procedure), ("Characterization", self.characterization)]
        return "\n\n".join(f"## {title}\n{body}" for title, body in parts if body)

    def to_row(self) -> dict[str, str]:
        return {"id": self.id, "contribution": self.contribution, "recipe": self.recipe_text,
                "materials": self.materials, "equipment": self.equipment, "procedure": self.procedure,
                "characterization": self.characterization}


def _section_of(heading: str) -> str | None:
    h = heading.casefold()
    if "characteri" in h or "product" in h:
        return "characterization"
    if "equipment" in h or "apparatus" in h:
        return "equipment"
    if "procedure" in h or "method" in h or "step" in h:
        return "procedure"
    if "material" in h or "precursor" in h or "reagent" in h:
        return "materials"
    if "contribution" in h:
        return "contribution"
    return None


def parse_recipe(recipe_id: str, markdown: str) -> Recipe | None:
    """Sections of an extraction reply; None when the model found no synthesis in the paper.

    Text under an unknown heading stays with the section before it; text before the first heading is
    part of X when the reply has no Key Contributions heading.
    """
    if NOT_SYNTHESIS.casefold() in markdown.casefold() and not _HEADING.search(markdown):
        return None
    sections: dict[str, list[str]] = {k: [] for k in SECTIONS}
    headings = list(_HEADING.finditer(markdown))
    preamble = markdown[:headings[0].start()] if headings else markdown
    current = "contribution"
    if preamble.strip() and not any(_section_of(h.group(1)) == "contribution" for h in headings):
        sections["contribution"].append(preamble.strip())
    for i, m in enumerate(headings):
        body_end = headings[i + 1].start() if i + 1 < len(headings) else len(markdown)
        body = markdown[m.end():body_end].strip()
        section = _section_of(m.group(1))
        if section is not None:
            current = section
            if current == "characterization" and body:
                body = f"### {m.group(1).strip()}\n{body}"  # keep methods and results apart
        if body:
            sections[current].append(body)
    joined = {k: "\n\n".join(v).strip() for k, v in sections.items()}
    if not any(joined[k] for k in ("materials", "equipment", "procedure")):
        return None
    return Recipe(id=recipe_id, **joined)
