from __future__ import annotations

from scicustom.core.alchemy.classification import parse_classification, process_category
from scicustom.core.alchemy.recipe import parse_recipe
from tests.unit.alchemy.samples import CLASSIFICATION_REPLY, EXTRACTION_REPLY


def test_extraction_reply_splits_into_the_five_sections():
    recipe = parse_recipe("zhao2020", EXTRACTION_REPLY)
    assert recipe is not None
    assert recipe.contribution.startswith("- **Novel materials or compounds**: three-dimensional")
    assert "NH4VO3, 0.585 g" in recipe.materials and "autoclave" not in recipe.materials
    assert "Teflon-lined" in recipe.equipment and "Muffle furnace" in recipe.equipment
    assert recipe.procedure.startswith("1. Dissolve") and "400 °C" in recipe.procedure
    # Y_C holds the methods and the product's measured characteristics.
    assert "XRD" in recipe.characterization and "268 mAh/g" in recipe.characterization
    text = recipe.recipe_text
    assert text.startswith("## Materials\n") and "Key Contributions" not in text and "## Synthesis Procedure" in text
    assert set(recipe.to_row()) == {"id", "contribution", "recipe", "materials", "equipment", "procedure",
                                    "characterization"}


def test_not_a_synthesis_paper():
    assert parse_recipe("x", "NOT A MATERIAL SYNTHESIS PAPER") is None
    assert parse_recipe("x", "## Key Contributions\n- a review of battery literature\n") is None


def test_unheaded_preamble_becomes_x_when_there_is_no_contributions_heading():
    recipe = parse_recipe("y", "ZnO nanorods for photocatalysis.\n\n### Materials\n- Zn(OAc)2\n### Procedure\n- stir")
    assert recipe is not None
    assert recipe.contribution == "ZnO nanorods for photocatalysis."
    assert recipe.materials == "- Zn(OAc)2" and recipe.procedure == "- stir"


def test_classification_reply():
    c = parse_classification(CLASSIFICATION_REPLY)
    assert c.has_recipe is True and c.target == "Material"
    assert (c.chemical_formula, c.material_class) == ("Ni-V2O5", "Metal oxide")
    assert c.application.startswith("Energy") and c.process_category == "Hydrothermal"
    assert parse_classification("1. Synthesis Recipe: NO").has_recipe is False
    assert parse_classification("NO").has_recipe is False
    assert parse_classification("I am not sure.").has_recipe is None


def test_process_categories():
    assert process_category("Solution-Based (sol-gel)") == "Solution-Based"
    assert process_category("Vapor deposition: ALD") == "Vapor Deposition"
    assert process_category("Others (laser writing)") == "Others"
    assert process_category("Hybrid") == "Hybrid" and process_category("N/A") == ""
