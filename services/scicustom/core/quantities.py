"""Quantities in text (a number with a unit), shared by the paper cloze generator, which blanks them,
and the MCQ stage, which gives a quantity answer only quantity distractors of the same unit."""

from __future__ import annotations

import re

UNITS = (r"%|°C|℃|K|kg|mg|µg|μg|ng|g|mL|ml|µL|μL|L|mM|µM|μM|nM|pM|M|mmol|µmol|μmol|mol|h|hr|min|s|ms|"
         r"days?|weeks?|months?|years?|nm|µm|μm|mm|cm|km|m|eV|meV|keV|mV|kV|V|mA|µA|A|mW|kW|W|kHz|MHz|GHz|Hz|"
         r"kPa|MPa|GPa|Pa|bar|atm|rpm|kcal ?mol[-−]1|kJ ?mol[-−]1|kJ|J|kcal|Da|kDa|mAh ?g[−-]1|mAh/g|"
         r"wt ?%|at ?%|vol ?%|ppm|bp|kb")
QUANTITY = re.compile(rf"(?<![\w.,\-−])([-−]?\d+(?:\.\d+)?(?:\s?[-–]\s?\d+(?:\.\d+)?)?)\s?({UNITS})(?![\w/])")
_NUMBER = re.compile(r"[-−]?\d+(?:[.,]\d+)?")


def answer_shape(text: str) -> str:
    """"quantity:<unit>" for a number with a unit, "number" for a bare number, else "text"."""
    stripped = text.strip().rstrip(".")
    match = QUANTITY.fullmatch(stripped)
    if match:
        return "quantity:" + re.sub(r"\s", "", match.group(2))
    return "number" if _NUMBER.fullmatch(stripped) else "text"
