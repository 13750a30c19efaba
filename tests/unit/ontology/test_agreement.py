from __future__ import annotations

from scicustom.core.ontology.agreement import agreement, held_out_agreement, match_matrix


def test_match_matrix_uses_ratio_85_on_normalised_names():
    m = match_matrix(["Ketones", "Organic chemistry", "Zoology"], ["Ketone", "organic chemistry!", "Botany"])
    assert m.tolist() == [[True, False, False], [False, True, False], [False, False, False]]
    # "Cell differentiation" vs "Cellular differentiation": ratio 90.9 -> match; "Heart"/"Hearth" 90.9 too.
    assert match_matrix(["Cell differentiation"], ["Cellular differentiation"]).all()
    assert not match_matrix(["Acid"], ["Acids and bases"]).any()


def test_agreement_precision_and_recall():
    a = agreement(["Ketone", "Ketones", "Alkane", "Spaceship"], ["Ketone", "Alkane", "Ester"])
    assert (a.found, a.found_matched, a.reference, a.reference_matched) == (4, 3, 3, 2)
    assert a.precision == 0.75 and a.recall == 2 / 3
    empty = agreement([], ["x"])
    assert empty.precision == 0.0 and empty.recall == 0.0


def test_held_out_agreement_sets_aside_units_taught_in_training():
    found = ["Ketone", "Ester", "Spaceship", "Amine"]
    a = held_out_agreement(found, train=["Ketone"], test=["Ester", "Alkene", "Amines"])
    # Ketone is a training unit: not counted. Of Ester/Spaceship/Amine, two match held-out units.
    assert (a.found, a.found_matched) == (3, 2)
    assert (a.reference, a.reference_matched) == (3, 2)
