"""Issue 13: judges that tell a topic from its field, the never-pad gate, thin coverage, the MCQ
quality gate and the validity estimate."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.app.build.output_files import render_files
from scicustom.app.build.request import BuildOptions, RequirementSource, validated_request
from scicustom.core.build.pipeline import BuildPipeline, BuildWorld
from scicustom.core.build.quality_gate import check_item, quality_gate
from scicustom.core.build.relevance import (
    TERM_TOPICALITY_Z,
    RelevanceModel,
    TopicEvidence,
    domain_words,
    exclusive_unit_terms,
    offline_relevance_jury,
    requirement_exclusions,
)
from scicustom.core.build.term_postings import TermPostings
from scicustom.core.build.validity import between_requirement_concentration, estimate_validity
from scicustom.core.build.vote import prefer_specific
from scicustom.core.corpus_item import make_item
from scicustom.core.requirement import Requirement
from scicustom.core.units import KnowledgeUnit
from tests.support.hashing_embedder import HashingEmbedder
from tests.support.synthetic_world import synthetic_world

KINETICS = Requirement("enzyme_kinetics", "enzyme kinetics",
                       "Questions on enzyme kinetics: Vmax, Km and uncompetitive inhibition. "
                       "Avoid hospital billing codes.")


def _corpus() -> list:
    items = [make_item("t", "CC0", "s", f"Which enzyme digests substrate {k} in the enzyme pathway?",
                       ["amylase", "lipase", "pepsin", "trypsin"], k % 4) for k in range(60)]
    items += [make_item("t", "CC0", "s", f"An uncompetitive inhibitor changes Vmax and Km of enzyme {k} how?",
                        ["both fall", "Vmax rises", "Km rises", "neither"], 0) for k in range(4)]
    items += [make_item("t", "CC0", "s", f"Which hospital billing code applies to visit {k}?",
                        ["A", "B", "C", "D"], 1) for k in range(20)]
    items += [make_item("t", "CC0", "s", f"What colour is the sky over town {k}?", ["blue", "red", "green", "grey"], 0)
              for k in range(200)]
    return items


def _evidence(unit_terms=()):
    items = _corpus()
    embedder = HashingEmbedder()
    ids = [it.id for it in items]
    matrix = embedder.encode([it.text for it in items])
    evidence = TopicEvidence(KINETICS, embedder, matrix, list(range(0, len(ids), 2)),
                             TermPostings([it.text for it in items]), unit_terms)
    return items, evidence, {i: matrix[r] for r, i in enumerate(ids)}


def test_field_words_are_not_topic_evidence_but_specific_terms_are():
    items, evidence, vectors = _evidence()
    assert "vmax" in evidence.specific_terms and "uncompetit" in evidence.specific_terms
    assert "enzym" not in evidence.specific_terms  # everywhere around the topic: the field
    terms, *_ = offline_relevance_jury(evidence, vectors, RelevanceModel.packaged())
    generic, specific = items[0], items[60]
    yes, no = terms.judge(KINETICS, specific), terms.judge(KINETICS, generic)
    assert yes.relevant and "vmax" in yes.reason
    assert not no.relevant and "no term specific" in no.reason


def _evidence_over(requirement, groups):
    """Items from (question with {k}, how many) groups, and the evidence over all of them."""
    items = [make_item("t", "CC0", "s", question.format(k=k), ["a", "b"], 0)
             for question, count in groups for k in range(count)]
    embedder = HashingEmbedder()
    matrix = embedder.encode([it.text for it in items])
    return items, TopicEvidence(requirement, embedder, matrix, list(range(len(items))),
                                TermPostings([it.text for it in items]))


def test_a_rare_word_named_by_items_all_over_the_corpus_is_not_a_topic_term():
    """"Decline" is rare, but the items naming it are about anything; "senescence"'s are about the topic."""
    aging = Requirement("aging", "human aging", "Questions on cellular senescence and the decline of tissues.")
    # A corpus whose typical item shares a word with the topic, as real ones do: "decline"'s items lie
    # no closer to the topic than that.
    items, evidence = _evidence_over(aging, [
        ("How does cellular senescence of tissue {k} arise?", 3),
        ("Why did the price of stock {k} decline in the market?", 3),
        ("What colour are the tissues of plant {k}?", 150), ("What colour is the sky over town {k}?", 50)])
    assert evidence.topicality["senesc"] > TERM_TOPICALITY_Z > evidence.topicality["declin"]
    assert "senesc" in evidence.specific_terms and "declin" in evidence.field_terms
    assert "senesc" in evidence.matched_terms(items[0]) and not evidence.matched_terms(items[3])


class _TopicAxis:
    """Every requirement text is the first axis: the corpus vectors below place the items around it."""

    name = "topic-axis"

    def encode(self, texts):
        out = np.zeros((len(texts), 4), dtype=np.float32)
        out[:, 0] = 1.0
        return out


def test_a_topical_term_whose_items_lean_to_the_field_is_not_a_topic_term():
    """"citric" (the K_v word of a neighbouring voted unit, "Citric acid cycle") is rare and its items lie
    near the Calvin cycle, but they lean further towards the field's centre (mitochondrial metabolism)
    than the field's own items do on average; "rubisco"'s lean towards the topic."""
    calvin = Requirement("calvin", "Calvin cycle", "Questions on the Calvin cycle and rubisco.")

    def direction(*xs):
        v = np.array(xs, dtype=np.float32)
        return v / np.linalg.norm(v)

    groups = [("rubisco fixes carbon", direction(1, 0, 0, 0), 40),
              ("citric acid cycle enzyme", direction(0.6, 0.8, 0, 0), 30),
              ("mitochondrial enzyme", direction(0.5, 0.866, 0, 0), 1430),
              ("plant leaves", direction(0.7, 0, 0.714, 0), 1500),  # the topic's neighbourhood: 3000 items
              ("the sky is blue", direction(0, 0, 0, 1), 3000)]
    texts = [text for text, _, n in groups for _ in range(n)]
    matrix = np.stack([vector for _, vector, n in groups for _ in range(n)])
    background = list(range(3000, 6000)) + list(range(0, 3000, 10))
    evidence = TopicEvidence(calvin, _TopicAxis(), matrix, background, TermPostings(texts), ["citric"])
    assert evidence.topicality["citric"] >= TERM_TOPICALITY_Z and "citric" in evidence.rare_terms
    assert "rubisco" in evidence.specific_terms and "citric" not in evidence.specific_terms
    assert "citric" in evidence.field_terms


def test_a_concept_phrase_whose_words_are_common_alone_is_a_term_where_an_item_names_them_all():
    genetics = Requirement("genetics", "medical genetics", "Questions on inheritance patterns, in humans.")
    items, evidence = _evidence_over(genetics, [
        ("Which inheritance pattern does disorder {k} show?", 4),
        ("Which pattern of stripes does animal {k} show?", 40),
        ("Is the inheritance of trait {k} in peas dominant?", 40), ("What colour is the sky over town {k}?", 400)])
    assert {"pattern", "inherit"} <= evidence.field_terms  # each too common alone
    assert frozenset({"inherit", "pattern"}) in evidence.specific_compounds
    assert evidence.matched_terms(items[0]) == ["inherit+pattern"]
    assert not evidence.matched_terms(items[4]) and not evidence.matched_terms(items[44])


def test_each_word_of_a_domain_of_several_is_a_field_term_alone_and_the_whole_domain_a_compound():
    insulators = Requirement("topological_insulators", "topological insulators",
                             "Questions on topological insulators: Chern numbers and protected surface states.")
    items, evidence = _evidence_over(insulators, [
        ("Which household object {k} is a good electrical insulator?", 3),
        ("Which topological feature {k} has this knot?", 3),
        ("Why do topological insulators {k} conduct electricity?", 3), ("What colour is the sky over town {k}?", 200)])
    assert "chern" in evidence.specific_terms  # rare, and it narrows the class
    assert {"insul", "topolog"} <= evidence.field_terms and not {"insul", "topolog"} & evidence.specific_terms
    assert not evidence.matched_terms(items[0])  # an insulator is not a topological insulator
    assert not evidence.matched_terms(items[3])  # nor is a knot's topology
    assert "insul+topolog" in evidence.matched_terms(items[6])


def test_a_hyphenated_word_matches_written_either_way_and_its_parts_count_only_together():
    solids = Requirement("solids", "materials", "Questions on solid-state structures and non-competitive binding.")
    items, evidence = _evidence_over(solids, [
        ("Which solid state structure has crystal {k}?", 3), ("Is ice {k} a solid?", 3),
        ("Which noncompetitive binding does ligand {k} show?", 3), ("What colour is the sky over town {k}?", 200)])
    assert frozenset({"solid", "state"}) in evidence.specific_compounds
    assert "solid" not in evidence.specific_terms | evidence.field_terms  # never a candidate alone
    assert "solid+state" in evidence.matched_terms(items[0]) and not evidence.matched_terms(items[3])
    assert "noncompetit" in evidence.matched_terms(items[6])


def test_a_hyphenated_word_of_the_domain_is_a_wider_class_even_with_both_its_parts():
    buffers = Requirement("buffers", "acid-base buffers", "Questions on acid-base buffers and pKa.")
    items, evidence = _evidence_over(buffers, [
        ("Is the acid or the base stronger in pair {k}?", 3), ("Which acid-base buffer {k} holds pH best?", 3),
        ("What colour is the sky over town {k}?", 400)])
    assert frozenset({"acid", "base"}) not in evidence.specific_compounds
    assert not evidence.matched_terms(items[0])  # acids and bases: the field
    assert "acid+base+buffer" in evidence.matched_terms(items[3])  # the whole domain


@pytest.mark.parametrize(("requirement", "field_item", "field_word", "topic_item", "topic_word"), [
    # a one-word domain the description narrows
    (Requirement("light", "photosynthesis", "Questions on the light reactions: photosystems and the thylakoid."),
     "What does photosynthesis in plant {k} produce?", "photosynthesi",
     "Which photosystem of thylakoid {k} splits water?", "thylakoid"),
    # the plural of a domain word, which the stemmer does not join to it ("gas" is "ga")
    (Requirement("gas", "gas laws", "Questions on Boyle's law and the deviations of real gases from ideality."),
     "Gases in jar {k} have no definite shape or what?", "gase", "What does Boyle's law say of piston {k}?", "boyl"),
])
def test_a_word_of_the_domain_is_a_field_word(requirement, field_item, field_word, topic_item, topic_word):
    items, evidence = _evidence_over(requirement, [(field_item, 3), (topic_item, 3),
                                                   ("What colour is the sky over town {k}?", 400)])
    assert field_word in evidence.field_terms and topic_word in evidence.specific_terms
    assert not evidence.matched_terms(items[0]) and topic_word in evidence.matched_terms(items[3])


@pytest.mark.parametrize(("domain", "words"), [
    ("topological insulators", {"topolog", "insul"}), ("Enzyme Kinetics", {"enzym", "kinet"}),
    ("renal physiology", {"renal", "physiolog"}), ("virology", {"virolog"}), ("the study of", {"studi"}),
    ("gas laws", {"ga", "gase", "law"})])  # the stemmer makes "gas" "ga" but "gases" "gase"
def test_the_domain_words_are_its_stemmed_words_singular_and_plural(domain, words):
    assert words <= domain_words(domain)
    assert domain_words("") == frozenset()



def test_an_item_closer_to_an_exclusion_is_voted_irrelevant_by_every_offline_judge_with_the_reason():
    assert requirement_exclusions(KINETICS) == ["hospital billing codes"]
    items, evidence, vectors = _evidence()
    billing = items[64]
    for judge in offline_relevance_jury(evidence, vectors, RelevanceModel.packaged()):
        verdict = judge.judge(KINETICS, billing)
        assert not verdict.relevant and "excluded 'hospital billing codes'" in verdict.reason


def test_an_exclusion_vetoes_only_an_item_nearer_to_it_than_to_the_topic_and_to_its_subject():
    _, evidence, _ = _evidence()
    exclusion, topic, subject = evidence.exclusion_vectors[0], evidence.topic, evidence.subject

    def unit(v: np.ndarray) -> np.ndarray:
        return v / np.linalg.norm(v)

    # Nearer the exclusion than the topic text, but as near the subject's bare name as the exclusion.
    beside_topic = unit(subject - float(subject @ topic) * topic)
    terse = unit(exclusion + 2.2 * beside_topic)
    assert float(terse @ exclusion) > float(terse @ topic) + 0.02
    assert evidence.excluded_by(terse) is None
    assert evidence.excluded_by(unit(2 * exclusion + 0.1 * topic)) == "hospital billing codes"


def test_exclusive_keywords_are_those_no_other_voted_unit_has():
    a = KnowledgeUnit("a", "Enzyme kinetics", "bio", ("Michaelis constant", "enzyme"))
    b = KnowledgeUnit("b", "Enzyme", "bio", ("enzyme", "catalysis"))
    terms = exclusive_unit_terms([a, b])
    assert "micha" in terms["a"] and "kinet" in terms["a"] and "enzym" not in terms["a"]
    assert terms["b"] == ["catalysi"]


def test_the_packaged_model_loads_and_is_monotone_in_its_evidence():
    model = RelevanceModel.packaged()
    assert model.features == RelevanceModel.FEATURES
    low = {"z": 1.0, "phrase_z": 1.0, "specific_terms": 0.0, "contrast": -0.05, "top_unit": 0.0}
    high = {"z": 6.0, "phrase_z": 6.0, "specific_terms": 2.0, "contrast": 0.1, "top_unit": 1.0}
    assert 0 <= model.probability(low) < model.probability(high) <= 1
    assert model.probability(low) < model.probability({**low, "top_unit": 1.0})


def test_a_model_names_the_features_its_weights_are_for():
    four = RelevanceModel.from_record({"weights": [1, 0, 0, 0], "bias": 0, "threshold": 0.5})
    assert four.features == ("z", "phrase_z", "specific_terms", "contrast")
    assert four.probability({"z": 2.0, "phrase_z": 9.0, "specific_terms": 9.0, "contrast": 9.0}) == pytest.approx(
        1 / (1 + np.exp(-2.0)))
    for bad in ({"weights": [1, 2], "bias": 0, "threshold": 0.5},
                {"weights": [1], "bias": 0, "threshold": 0.5, "features": ["colour"]}):
        with pytest.raises(ValueError):
            RelevanceModel.from_record(bad)


def test_the_model_sees_whether_an_item_carries_one_of_the_votes_top_units():
    items = [make_item("t", "CC0", "s", f"Which enzyme digests substrate {k}?", ["a", "b"], 0) for k in range(4)]
    embedder = HashingEmbedder()
    matrix = embedder.encode([it.text for it in items])
    evidence = TopicEvidence(KINETICS, embedder, matrix, [0, 1, 2, 3], TermPostings([it.text for it in items]),
                             top_unit_items=frozenset({items[1].id}))
    assert [evidence.features(it, matrix[k])["top_unit"] for k, it in enumerate(items)] == [0.0, 1.0, 0.0, 0.0]


def test_broad_ancestors_give_way_to_specific_units_unless_the_requirement_names_them():
    names = {"p": "Physiology", "r": "Renal physiology", "d": "Drug", "k": "Kidney"}
    counts = {"p": 10, "r": 10, "d": 900, "k": 10}
    order, demoted = prefer_specific(["p", "d", "r", "k"], names, counts, 10_000, "renal physiology of the nephron")
    assert order == ["r", "k", "p", "d"] and demoted == ["p", "d"]
    order, demoted = prefer_specific(["p", "r"], names, counts, 10_000, "a benchmark on physiology")
    assert order == ["p", "r"] and demoted == []


def _mcq(question, options, key=0):
    return make_item("t", "CC0", "s", question, options, key)


def test_the_quality_gate_names_each_reason():
    assert check_item(_mcq("Based on the graph shown in the figure, which curve is fastest?", ["A", "B", "C", "D"])) \
        == "missing-context"
    assert check_item(_mcq("According to the passage, why did he leave?", ["a", "b", "c", "d"])) == "missing-context"
    for pointed in ("Action of the muscle marked (with arrow) on mandible is", "Name the structure marked with arrow",
                    "Which of the following marked muscles is involved in opening of jaw?",
                    "A biopsy specimen is shown (arrow). What is the diagnosis?"):
        assert check_item(_mcq(pointed, ["a", "b", "c", "d"])) == "missing-context", pointed
    for pointed in ("Refer to question 15 for details on the squirrel population. Which condition is required?",
                    "The regression analysis of question 20 indicated that R-sq = 98.1%. Which is true?",
                    "Consider an identical situation to that of question 21, except that a 2-sided test is used."):
        assert check_item(_mcq(pointed, ["a", "b", "c", "d"])) == "missing-context", pointed
    for pointed in ("Xray is as shown below. What is the likely diagnosis?",
                    "The x - ray after the fall is given below:",
                    "A set of hybrid sp^3 orbitals for a carbon atom is given above. Which is NOT true about them?"):
        assert check_item(_mcq(pointed, ["a", "b", "c", "d"])) == "missing-context", pointed
    for shown in ("Labs are drawn, as shown below:\n\nHemoglobin: 20 g/dL", "What are the products in the reaction "
                  "shown below? HCl + NaOH ->", "The mathematical model is shown below. Speed = distance/time.",
                  "The stages of a life cycle are shown below. birth -> growth -> reproduction"):
        assert check_item(_mcq(shown, ["a", "b", "c", "d"])) is None, shown
    assert check_item(_mcq("Question 13. A buyer sent a signed letter to a seller. Is it a contract?",
                           ["a", "b", "c", "d"])) is None  # its own label
    # A medium or an author the question describes in words, or an optical image, is no missing context.
    for described in ("What happens to the image formed by a concave mirror as the object nears the focal point?",
                      "The graph of ln [A] versus time is curved; the graph of 1/[A] versus time is straight. Why?",
                      "What is the name of the chart that makes it easy to find the genotypes of offspring?",
                      "What is the name of the author who proposed natural selection?"):
        assert check_item(_mcq(described, ["a", "b", "c", "d"])) is None, described
    # An arrow that is part of the question, not of a missing image, stays.
    assert check_item(_mcq("A compass arrow points north. Which way is west?", ["a", "b", "c", "d"])) is None
    assert check_item(_mcq("Which is a noble gas?", ["Neon", "neon ", "Iron", "Tin"])) == "duplicate-options"
    assert check_item(_mcq("All are true about CRISPR except", ["x", "y", "z", "All of these"], 3)) == "doubtful-key"
    assert check_item(_mcq("Which is a noble gas?", ["Neon", "Iron", "Tin", "Lead"])) is None
    assert check_item(_mcq("A table of contents lists what?", ["chapters", "prices", "dates", "names"])) is None


def test_a_pictured_ecg_radiograph_or_instrument_is_missing_context_but_one_described_in_words_is_not():
    for pointed in ("Diagnosis of the following ECG-", "History of fall on outstretched hand with the given xray:",
                    "Definitive treatment for the condition shown in radiograph below is?",
                    "What is the most probable diagnosis based on the findings in the CT scan given below?",
                    "All of the following are true about the given instrument except",
                    "A chest xray was done which shown the following pathology:"):
        assert check_item(_mcq(pointed, ["a", "b", "c", "d"])) == "missing-context", pointed
    for described in ("A 36-year-old man has syncope. The ECG shows ST elevation in V1-V3. What is the diagnosis?",
                      "A dentist planning to remove an impacted tooth will need which of the following radiographs:",
                      "The following ECG changes are seen in hyperkalemia except:",
                      "An x-ray of the chest shows a coin lesion. What is the next step?",
                      "Which instrument is used to measure blood pressure?"):
        assert check_item(_mcq(described, ["a", "b", "c", "d"])) is None, described


def test_a_long_vignette_that_says_where_its_image_is_is_missing_context_a_long_story_is_not():
    history = "A 15-year-old boy presents with fatigue and shortness of breath. " * 10  # past the length limit
    for pointed in ("His peripheral blood smear is shown in the picture. Which inheritance pattern is likely?",
                    "The inclusions indicated by the arrows are made of which protein?",
                    "An ECG is performed and shown in the image below. What is the next step?"):
        assert check_item(_mcq(history + pointed, ["a", "b", "c", "d"])) == "missing-context", pointed
    for story in ("The attorney was given the photograph by the man. Is it admissible?",
                  "The figure was not necessary for his reelection. Why did he win?",
                  "The lab results are shown in the following table:\nSodium 140 mEq/L\nWhat is the diagnosis?"):
        assert check_item(_mcq(history + story, ["a", "b", "c", "d"])) is None, story


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["Neon", "Argon", "Iron", "Tin", "Lead"]), min_size=2, max_size=5))
def test_duplicate_options_are_found_whatever_their_case_and_spacing(options):
    item = _mcq("Which element is meant?", [o.upper() if i % 2 else f" {o} " for i, o in enumerate(options)])
    assert (check_item(item) == "duplicate-options") == (len(set(options)) < len(options))


def test_near_duplicates_across_sources_keep_the_first():
    a = make_item("mmlu", "MIT", "s", "What is the powerhouse of the cell?", ["mitochondrion", "ribosome"], 0)
    b = make_item("sciq", "CC", "s", "What is the powerhouse of the cell ?", ["ribosome", "mitochondrion"], 1)
    c = make_item("arc", "CC", "s", "Which planet is largest?", ["Jupiter", "Mars"], 0)
    vectors = HashingEmbedder().encode([x.question for x in (a, b, c)])
    passed, counts = quality_gate([a, b, c], list(vectors))
    assert passed == [0, 2] and counts["dropped"]["near-duplicate"] == 1


def test_a_long_stem_asked_again_is_a_near_duplicate_whatever_its_options_a_short_one_is_not():
    stem = ("Which of the following human genes encodes a protein that is predicted to interact with the viral "
            "protein Variola virus DNA topoisomerase type I according to the P-HIPSter database?")
    first = make_item("lab_bench", "CC", "s", stem, ["SH3RF2", "HDDC3", "TP53", "LRTM1"], 0)
    again = make_item("lab_bench", "CC", "s", stem, ["AP1M1", "BAG3", "SORL1", "TBPL1"], 1)
    template = make_item("lab_bench", "CC", "s", stem.replace("Variola", "Vaccinia"), ["A", "B", "C", "D"], 2)
    short = [make_item("mmlu", "MIT", "s", "Which of the following is true?", opts, 0)
             for opts in (["Ice is cold", "Fire is wet"], ["Lead is light", "Neon is a gas"])]
    items = [first, again, template, *short]
    vectors = np.eye(len(items), dtype=np.float32)  # no two alike by embedding: the stems decide
    passed, counts = quality_gate(items, list(vectors))
    assert passed == [0, 2, 3, 4] and counts["dropped"]["near-duplicate"] == 1


def test_a_paraphrase_with_the_same_key_and_options_is_a_near_duplicate_a_different_question_is_not():
    options = ["Extrinsic", "Intrinsic", "Fibrinolysis", "Common"]
    first = make_item("medmcqa", "MIT", "s", "In PT estimation, calcium and thromboplastin are added to platelet "
                      "poor plasma. Which pathway is activated?", options, 0)
    paraphrase = make_item("medmcqa", "MIT", "s", "A platelet poor plasma sample gets calcium and tissue "
                           "thromboplastin. This assesses which pathway?", [*options[:3], "Common pathway"], 0)
    other_key = make_item("medmcqa", "MIT", "s", "Which pathway does aPTT assess?", options, 1)
    far = make_item("medmcqa", "MIT", "s", "Tissue factor starts which pathway?", options, 0)
    unit = np.array([1.0, 0.0], dtype=np.float32)
    at = [unit, np.array([0.85, np.sqrt(1 - 0.85**2)], dtype=np.float32),
          np.array([0.9, np.sqrt(1 - 0.81)], dtype=np.float32), np.array([0.6, 0.8], dtype=np.float32)]
    passed, counts = quality_gate([first, paraphrase, other_key, far], at)
    # The paraphrase (cosine 0.85, same key, 3 of 5 options shared) goes; the other key and the distant
    # question with the same key (cosine 0.6) stay.
    assert passed == [0, 2, 3] and counts["dropped"]["near-duplicate"] == 1


def test_a_question_restated_by_another_source_with_its_own_options_is_a_near_duplicate():
    first = make_item("arc", "CC-BY-SA-4.0", "s", "What keeps the planets in orbit around the Sun?",
                      ["gravity", "light", "magnetism", "wind"], 0)
    restated = make_item("sciq", "CC-BY-NC-3.0", "s", "The force necessary to keep planets in orbit around the "
                         "Sun is", ["friction.", "gravity.", "inertia.", "tension."], 1)
    other_key = make_item("sciq", "CC-BY-NC-3.0", "s", "Which force slows a rolling ball?",
                          ["friction", "gravity", "inertia", "lift"], 0)
    far = make_item("arc", "CC-BY-SA-4.0", "s", "Which force pulls a dropped apple down?",
                    ["gravity", "friction", "lift", "drag"], 0)
    unit = np.array([1.0, 0.0], dtype=np.float32)
    at = [unit, np.array([0.86, np.sqrt(1 - 0.86**2)], dtype=np.float32),
          np.array([0.9, np.sqrt(1 - 0.81)], dtype=np.float32), np.array([0.8, -0.6], dtype=np.float32)]
    passed, counts = quality_gate([first, restated, other_key, far], at)
    # The restatement (cosine 0.86, the key in the same word, no option shared) goes; a near question with
    # another key (0.9) and one with the same key further away (0.8) stay.
    assert passed == [0, 2, 3] and counts["dropped"]["near-duplicate"] == 1


def test_the_spread_between_requirements_is_small_when_they_agree_and_large_when_they_differ():
    assert between_requirement_concentration([(8, 2)] * 10) > 500
    assert between_requirement_concentration([(10, 0), (0, 10)] * 3) < 1
    with pytest.raises(ValueError):
        between_requirement_concentration([(0, 0)])


def test_a_spread_between_requirements_widens_the_interval():
    votes = [{"x": True, "y": True, "z": True}] * 40
    pooled = {"judges": ["x", "y", "z"], "jury": {"tp": 70, "fp": 30},
              "jury_by_agreement": {"3": {"tp": 70, "fp": 30}}}
    agreeing = estimate_validity(votes, {**pooled, "between_requirements": {"concentration": 1000.0}})
    differing = estimate_validity(votes, {**pooled, "between_requirements": {"concentration": 3.0}})
    assert agreeing["estimated_on_topic"] == differing["estimated_on_topic"] == pytest.approx(71 / 102, abs=1e-4)
    (lo_a, hi_a), (lo_d, hi_d) = agreeing["ci95"], differing["ci95"]
    assert lo_d < lo_a < 0.7 < hi_a < hi_d
    assert lo_a > 0.5 and hi_a < 0.87  # binomial noise of 40 items and the pooled counts' own error only
    assert lo_d < 0.35 and hi_d > 0.95


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 150), st.integers(0, 60), st.integers(0, 60), st.floats(0.5, 1000.0))
def test_the_interval_is_a_pair_of_shares(n, tp, fp, concentration):
    calibration = {"judges": ["x"], "jury": {"tp": tp, "fp": fp}, "jury_by_agreement": {"1": {"tp": tp, "fp": fp}},
                   "between_requirements": {"concentration": concentration}}
    lo, hi = estimate_validity([{"x": True}] * n, calibration)["ci95"]
    assert 0.0 <= lo <= hi <= 1.0
    for share in (lo, hi):  # a count of on-topic items, as a share rounded to 4 decimals
        assert abs(share * n - round(share * n)) <= n * 5e-5 + 1e-9


def test_validity_is_a_share_with_an_interval_from_the_calibration():
    calibration = {"judges": ["x", "y", "z"], "jury": {"tp": 45, "fp": 5},
                   "jury_by_agreement": {"3": {"tp": 30, "fp": 1}, "2": {"tp": 15, "fp": 4}}}
    votes = [{"x": True, "y": True, "z": True}] * 8 + [{"x": True, "y": False, "z": True}] * 2
    v = estimate_validity(votes, calibration)
    lo, hi = v["ci95"]
    assert 0 <= lo < v["estimated_on_topic"] < hi <= 1
    assert v["items_by_offline_agreement"] == {"2": 2, "3": 8} and v["judge_acceptance"]["y"] == 0.8
    assert estimate_validity([], calibration)["estimated_on_topic"] is None


class _Only:
    """A judge that accepts exactly the given items."""

    kind = "local"

    def __init__(self, name, accepted):
        self.name, self._accepted = name, accepted

    def is_relevant(self, requirement, item):
        return item.id in self._accepted


def _request(text, **options):
    return validated_request(RequirementSource(text=text),
                             BuildOptions(k1=2, k2=20, proxy_samples=10, seed=1, **options))


def test_the_cutoff_never_pads_and_a_thin_build_says_which_units_need_data():
    world = synthetic_world()
    request = _request("virology: virus capsid, viral genome and virus replication in the host cell")
    candidates = BuildPipeline(world).run(request.requirement, request.params).candidates
    # The jury accepts only the first three candidates and one far below: the binary search's cutoff
    # may reach past items it never probed, and each of those must pass the jury itself.
    accepted = {c["id"] for c in candidates[:3]} | {candidates[-1]["id"]}
    world.relevance_jury = lambda req, votes: [_Only(n, accepted) for n in ("a", "b", "c")]
    result = BuildPipeline(world).run(request.requirement, request.params)
    ids = {m.provenance["source_item_id"] for m in result.benchmark}
    assert ids <= accepted and len(result.benchmark) <= 4
    assert result.thin and result.status["thin_units"]
    assert "ingest papers" in result.status["suggestion"]
    assert all("relevant" in u for u in result.coverage["units"])
    assert any("thin coverage" in w for w in result.warnings)


def test_a_build_nothing_is_relevant_to_still_gives_its_files():
    world: BuildWorld = synthetic_world()
    world.relevance_jury = lambda req, votes: [_Only(n, set()) for n in ("a", "b", "c")]
    request = _request("virology: virus capsid, viral genome and virus replication in the host cell", min_items=5)
    result = BuildPipeline(world).run(request.requirement, request.params)
    assert result.benchmark == [] and result.thin and result.status["min_items"] == 5
    files = render_files(request.requirement, request.params, request.jury, {}, result, None)
    assert files["benchmark.jsonl"] == "" and '"status": "thin"' in files["config.json"]


def test_offline_jury_builds_are_byte_identical_per_seed_and_record_reasons():
    request = _request("virology: virus capsid, viral genome and virus replication in the host cell")
    runs = [render_files(request.requirement, request.params, request.jury, {},
                         BuildPipeline(synthetic_world(offline_jury=True)).run(request.requirement, request.params),
                         None) for _ in range(2)]
    assert runs[0] == runs[1]
    assert '"reasons"' in runs[0]["cutoff.json"] and '"validity"' in runs[0]["config.json"]
    assert np.isfinite(len(runs[0]["benchmark.jsonl"]))


def test_llm_judges_join_the_offline_jury_through_litellm_and_their_agreement_is_reported(tmp_path, recorded_llm):
    from scicustom.adapters.litellm_llm import LiteLLMAdapter
    from scicustom.adapters.llm_response_cache import LLMResponseCache
    from scicustom.core.build.llm_judges import LLMRelevanceJudge

    recorded_llm.rules.append(("Is this item relevant", "No"))
    llm = LiteLLMAdapter(LLMResponseCache(tmp_path / "c.sqlite"), api_base=recorded_llm.api_base, api_key="t",
                         backoff_s=0)
    world = synthetic_world(offline_jury=True)
    offline = world.relevance_jury
    world.relevance_jury = lambda req, votes: [*offline(req, votes), LLMRelevanceJudge(llm, "openai/judge-a")]
    request = _request("virology: virus capsid, viral genome and virus replication in the host cell")
    result = BuildPipeline(world).run(request.requirement, request.params)
    agreement = result.cutoff["agreement"]
    assert agreement["offline_judges"] == ["topic-terms", "topic-contrast", "relevance-model"]
    assert 0 <= agreement["llm:openai/judge-a"] <= 1 and agreement["n_items"] >= 1
    assert result.judges["relevance"][-1] == "llm:openai/judge-a" and recorded_llm.calls
    # The LLM judge says no to everything: it takes part in every majority (4 judges need 3 yes).
    for votes in result.cutoff["accepted_votes"].values():
        assert votes["llm:openai/judge-a"] is False and sum(votes.values()) >= 3


def test_the_cli_exits_with_the_documented_thin_coverage_code_and_says_why(tmp_path, capsys):
    import argparse
    from types import SimpleNamespace

    from scicustom.client.build_client import EXIT_THIN_COVERAGE as REMOTE_CODE
    from scicustom.commands.build import EXIT_THIN_COVERAGE, run_build

    def assemble(requirement, seed, jury, progress):
        world = synthetic_world()
        world.relevance_jury = lambda req, votes: [_Only(n, set()) for n in ("a", "b", "c")]
        return world, {}

    args = argparse.Namespace(
        requirement="virology: virus capsid, viral genome and virus replication in the host cell",
        out=tmp_path / "out", k1=2, k2=20, proxy_samples=10, seed=1, method="scicustom", relevance_quantile=None,
        llm_judges=False, force=False, summary_json=None, min_items=None, since=None)
    code = run_build(args, SimpleNamespace(cluster=False, build_world=assemble))
    assert code == EXIT_THIN_COVERAGE == REMOTE_CODE == 3
    err = capsys.readouterr().err
    assert "thin coverage" in err and "ingest papers" in err
    assert (tmp_path / "out" / "config.json").exists() and (tmp_path / "out" / "benchmark.jsonl").read_text() == ""


def test_the_grpc_build_status_names_the_thin_units():
    from scicustom.app.build.build_records import BuildState
    from scicustom.app.build.stages import _coverage_summary
    from scicustom.builds.servicer import build_message

    status = {"status": "thin", "thin_units": ["Pericyclic reaction"], "message": "thin coverage: only 0",
              "suggestion": "ingest papers on these topics"}
    state = BuildState("b1", "succeeded", "2026-11-25T00:00:00+00:00",
                       {"requirement_name": "r", "spec": {"params": {"method": "scicustom"}}},
                       coverage=_coverage_summary(status))
    message = build_message(state)
    assert message.coverage_status == "thin" and list(message.thin_units) == ["Pericyclic reaction"]
    assert "ingest papers" in message.coverage_message
