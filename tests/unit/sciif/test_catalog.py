from __future__ import annotations

import copy

import pytest

from scicustom.core.errors import InvalidInput
from scicustom.core.sciif.catalog import parse_catalog

PAPER_ORDER = [
    ("Assumptions", "condition", 8), ("Boundary Conditions", "condition", 5),
    ("Applicability Range", "condition", 2), ("Units Standard", "condition", 5),
    ("Cross-disciplinary Term Disambiguation", "terminology", 7),
    ("Intra-discipline Term Definitions", "terminology", 9),
    ("Symbols & Constants Standardization", "terminology", 4),
    ("Variable Naming Consistency", "terminology", 3),
    ("Numerical Methods", "process", 6), ("Experimental Methods", "process", 7),
]
# MAIN points of the released loose table.
MAIN = {
    "Assumptions": {"point_1", "point_2", "point_3"}, "Boundary Conditions": {"point_1", "point_2"},
    "Applicability Range": {"point_1", "point_2"}, "Units Standard": {"point_1"},
    "Cross-disciplinary Term Disambiguation": {"point_1", "point_2"},
    "Intra-discipline Term Definitions": {"point_1", "point_2", "point_5", "point_8"},
    "Symbols & Constants Standardization": {"point_1", "point_4"},
    "Variable Naming Consistency": {"point_1", "point_2", "point_3"},
    "Numerical Methods": {"point_1", "point_2", "point_4"},
    "Experimental Methods": {"point_1", "point_3", "point_5"},
}


def test_ten_constraints_in_three_families_with_the_papers_point_counts(catalog):
    assert [(c.name, c.family, len(c.points)) for c in catalog.constraints] == PAPER_ORDER
    assert [f.name for f in catalog.families] == ["Condition", "Terminology", "Process"]
    assert sum(len(c.points) for c in catalog.constraints) == 56


def test_main_and_secondary_split(catalog):
    for c in catalog.constraints:
        assert {p.id for p in c.points if p.role == "main"} == MAIN[c.name]
        assert [p.id for p in c.points] == [f"point_{i}" for i in range(1, len(c.points) + 1)]
        assert c.required_points("strict") == c.points
        assert {p.id for p in c.required_points("loose")} == MAIN[c.name]


def test_only_the_units_scope_note_is_judge_only(catalog):
    judge_only = [(c.name, p.id) for c in catalog.constraints for p in c.points if p.audience == "judge"]
    assert judge_only == [("Units Standard", "point_5")]


@pytest.mark.parametrize(("spelling", "expected"), [
    ("Units standard + scientific notation", "units_standard"),
    ("units and notation", "units_standard"),
    ("Symbols and constants standardization", "symbols_constants_standardization"),
    ("VNC", "variable_naming_consistency"),
    ("5. Terminology Constraints/Cross-disciplinary Term Disambiguation (Cross-disciplinary term disambiguation)",
     "cross_disciplinary_term_disambiguation"),
    ("2. Conditions Constraints/Boundary Conditions (Boundary Conditions)", "boundary_conditions"),
    ("intra-discipline definitions", "intra_discipline_term_definitions"),
])
def test_resolves_the_spellings_found_in_items(catalog, spelling, expected):
    assert catalog.resolve(spelling).id == expected


def test_resolve_list_splits_release_separators_and_keeps_catalog_order(catalog):
    got = catalog.resolve_list("Symbols & Constants Standardization、Assumptions, Assumptions；Numerical Methods")
    assert [c.id for c in got] == ["assumptions", "symbols_constants_standardization", "numerical_methods"]


def test_unknown_constraint_is_invalid_input(catalog):
    with pytest.raises(InvalidInput, match="unknown SciIF constraint 'Good Vibes'"):
        catalog.resolve("Good Vibes")


@pytest.mark.parametrize(("mutate", "field"), [
    (lambda d: d["constraints"][0]["points"][0]["rules"].append({"kind": "telepathy"}), "rules[1].kind"),
    (lambda d: d["constraints"][0]["points"][0]["rules"][0]["patterns"].append("(unclosed"), "rules[0]"),
    (lambda d: d["constraints"][1].update(family="alchemy"), "constraints[1].family"),
    (lambda d: d["constraints"][2]["points"][0].update(role="optional"), "points[0].role"),
    (lambda d: d["reward"]["groups"][2]["members"].pop("numerical_methods"), "reward.groups"),
    (lambda d: d["reward"]["groups"][0]["members"].update(assumptions=0), "reward.groups[0].members.assumptions"),
])
def test_malformed_catalogs_name_the_field(catalog_data, mutate, field):
    data = copy.deepcopy(catalog_data)
    mutate(data)
    with pytest.raises(InvalidInput) as info:
        parse_catalog(data)
    assert field in info.value.field
