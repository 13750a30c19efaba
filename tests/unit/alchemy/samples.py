"""Hand-written texts shaped like the paper's Figure 3 example (Ni-V2O5 in an ionic liquid)."""

from __future__ import annotations

import json

EXTRACTION_REPLY = """## Key Contributions
- **Novel materials or compounds**: three-dimensional cross-linked Ni-V2O5 nanomaterial
- **Unique synthesis methods**: ionic-liquid assisted solvothermal synthesis
- **Specific applications or domains**: lithium-ion battery cathodes

## Materials
- NH4VO3, 0.585 g (99%, Aladdin)
- Ni(NO3)2·6H2O, 0.073 g
- [BMIM]BF4 ionic liquid, 10 mL

## Synthesis Equipment
- Teflon-lined stainless-steel autoclave, 50 mL
- Muffle furnace

## Synthesis Procedure
1. Dissolve NH4VO3 and Ni(NO3)2·6H2O in 30 mL water; add 10 mL [BMIM]BF4 and stir 30 min.
2. Heat in the autoclave at 180 °C for 24 h.
3. Wash, dry at 80 °C and anneal at 400 °C for 2 h in air (2 °C/min).

## Characterization Methods and Equipment
- XRD (Rigaku, Cu Kα), SEM, TEM, XPS

## Product Characteristics
- Initial discharge capacity 268 mAh/g at 100 mA/g
"""

CLASSIFICATION_REPLY = """1. Synthesis Recipe: YES
2. Target: Material
3. Material Identification:
- Chemical Formula: Ni-V2O5
- Material Name: Nickel-doped vanadium pentoxide
- Material Class: Metal oxide
4. Application Domain: Energy (lithium-ion batteries)
5. Synthesis Process: Hydrothermal (solvothermal)
"""

PAPER = ("Synthesis of a three-dimensional cross-linked Ni-V2O5 nanomaterial in an ionic liquid. "
         "NH4VO3 (0.585 g) and Ni(NO3)2·6H2O were dissolved ... heated at 180 °C for 24 h ... " * 3)


def judge_reply(scores=(4.0, 3.5, 4.5, 3.0, 4.0, 3.5, 2.5), overall=3.5, fenced=True) -> str:
    keys = ["materials_appropriateness_score", "equipment_appropriateness_score", "procedure_completeness_score",
            "procedure_similarity_score", "procedure_feasibility_score", "characterization_appropriateness_score",
            "characterization_similarity_score"]
    body = json.dumps({**dict(zip(keys, scores, strict=True)), "overall_score": overall}, indent=1)
    reasoning = "1. Materials: the precursors match the ground truth closely.\n2. Equipment: ...\n"
    return f"{reasoning}```json\n{body}\n```" if fenced else reasoning + body
