from __future__ import annotations

from scicustom.app.ontology.unit_sets import selection_to_unit_set, unit_name
from scicustom.core.ontology.unit_selection import SelectedUnit, SelectionResult
from scicustom.core.units import UnitCatalog
from tests.unit.ontology.dag_builders import fan, make_dag


def test_unit_name_capitalises_like_the_default_set():
    assert unit_name("organic  chemistry") == "Organic chemistry"
    assert unit_name("pH") == "PH" and unit_name("DNA repair") == "DNA repair"


def test_same_label_in_two_sources_is_one_unit_with_two_anchors():
    chem = make_dag(fan("lipids", 3, "lipid kind "), source="chebi")
    nasa = make_dag(fan("lipid", 2, "fat "), source="nasa")
    result = SelectionResult(units=[SelectedUnit(chem.nodes["lipids"], 1, 3),
                                    SelectedUnit(nasa.nodes["lipid"], 2, 2)])
    data = selection_to_unit_set(result, [chem, nasa], judge_name="scripted", max_keywords=4)
    lipid, non_scientific = data["knowledge_units"]
    assert lipid["name"] == "Lipids" and lipid["domain"] == "chemistry"
    assert [(a["source"], a["node_id"], a["method"]) for a in lipid["anchors"]] == [
        ("chebi", "lipids", "selected"), ("nasa", "lipid", "selected")]
    assert lipid["keywords"] == ["lipid kind 0", "fat 0", "lipid kind 1", "fat 1"]
    assert non_scientific == {"id": "ku_002", "name": "Non-Scientific", "domain": "non-scientific",
                              "keywords": [], "anchors": []}
    assert data["n_units"] == 2 and len(UnitCatalog.from_mapping(data)) == 2
