"""Offline relevance judges that tell a requirement's topic from its wider field (issue 13).

Similarity alone cannot: for "pericyclic reactions" the closest corpus items are generic
"which is a chemical reaction?" questions, and a threshold at a background quantile accepts them
(they are closer than 95% of the corpus). Each judge here looks for evidence that is specific to
the topic *within its field*, and says why it voted as it did (the reason goes into cutoff.json):

  topic-terms        lexical: the item names a term of the requirement, or an exclusive keyword
                     (K_v) of a voted unit, that is rare in the topic's wider field (the 3000 corpus
                     items most similar to the topic), whose items lie near the topic on average, and
                     lean towards it away from the field at least as much as the field's own items do
                     (cosine to the topic less cosine to the field's centroid, on average).
                     "Vmax" and "uncompetitive" are such terms; "decline", "structure" or
                     "potential", rare as they are, are named by items all over the corpus; "gland"
                     and "electrolyte" for the renin-angiotensin system, "syndrome" and "infection"
                     for peptic ulcer, "chromosome" and "mutation" for Hardy-Weinberg equilibrium
                     name items near the topic that lean to the rest of its field. A word
                     of the domain never counts alone: each names a wider class ("insulators",
                     "enzymes", "renal" anything, the cell "nucleus" of "nuclear"; "photosynthesis"
                     for its light reactions); a domain of several words, and each concept phrase
                     of the requirement, counts where an item names all its words.
  topic-contrast     MiniLM: the item is an outlier towards the topic (z-score of its cosine over a
                     seeded background sample) *and* closer to the topic than to the centroid of the
                     topic's neighbourhood (the field the topic sits in).
  relevance-model    a logistic model over those signals (z, phrase z, specific-term count,
                     contrast) and whether the tagger gives the item one of the vote's top 3 units,
                     trained on the labelled development split of resources/relevance_gold
                     (`benchmarks/bench_relevance.py --train-model`); weights packaged.

The requirement's exclusions ("Avoid ...", "rather than ...") come first in every judge: an item
closer to an exclusion than to both the topic and its subject's name is voted irrelevant, with that
reason; so is, after a vote, an item mainly about a unit no voting judge ranked (unranked_subjects.py).
Next, an item whose source files it under the topic itself (MMLU `virology` for a virology requirement) is relevant in
every judge when it names a topic term or lies clearly closer to the requirement's text than to the
subject's bare name: the judges look for what sets a topic apart from its field, which a broad
topic's own questions need not show.
"""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from scicustom.core.build.source_subjects import filed_under_topic
from scicustom.core.build.term_postings import TermPostings
from scicustom.core.build.unranked_subjects import UnrankedSubjects
from scicustom.core.corpus_item import CorpusItem
from scicustom.core.lexical import hyphenated_parts, term_tokens
from scicustom.core.requirement import Requirement
from scicustom.core.units import KnowledgeUnit
from scicustom.ports import Embedder

NEIGHBOURHOOD = 3000       # corpus items nearest the topic: the wider field the topic sits in
SPECIFIC_DF = 0.05         # a term in more than this share of the neighbourhood is a field term
BACKGROUND_DF = 0.02       # ... and one in more than this share of the background is generic English
# ... and one whose items lie, on average, less than this many background standard deviations closer
# to the topic than a typical item is not about the topic ("structure", "decline", "potential")
TERM_TOPICALITY_Z = 1.2
TOPIC_Z = 4.0              # topic-contrast: cosine z-score over the background
# Veto when cos(item, exclusion) > max(cos(item, topic), cos(item, subject)) + margin. Against the topic
# text alone, terse anatomy questions ("Fovea palatine are mucosal salivary glands", 0.34 to "surgical
# procedures or pathological conditions", 0.31 to the topic) lay nearer the exclusion than the long topic
# text; their subject's name ("anatomy", 0.38) shows what they are about.
EXCLUSION_MARGIN = 0.02
# A filed item (source_subjects.py) that names no topic term is still the topic's when it lies this much
# closer to the requirement's own framing than to the bare subject name, and near one of its concept
# phrases (phrase z-score over the background; see EvidenceJudge).
NARROWING_MARGIN = 0.15
NARROWING_PHRASE_Z = 3.5
MAX_SPECIFIC = 3           # the model sees min(specific terms, 3)
TOP_VOTED_UNITS = 3        # ... and whether the item is tagged with one of the vote's first 3 units
                           # (as the earlier jury's top-units judge, local_judges.py, asked)
MAX_COMPOUND = 4           # words of a concept phrase matched as one term
# Words that are rare in a science neighbourhood but say nothing about a topic.
GENERIC_TERMS = frozenset(term_tokens(
    "requires required condition conditions outcome outcomes versus vs standard design plot plots number "
    "feature features determine relate relation relationship consideration behaviour behavior prediction "
    "predict identification role involvement consequence consequences trend trends class specific "
    "interpretation interpret experimental experiment level levels type types"))


@dataclass(frozen=True)
class Verdict:
    relevant: bool
    reason: str


def requirement_phrases(requirement: Requirement) -> list[str]:
    """The domain and the comma/colon separated concept phrases of the topic text."""
    parts = re.split(r"[,:;()]|\.\s|\bvs\.?\s|\bversus\b|\band\b", requirement.topic_text)
    phrases = [requirement.domain]
    for p in parts:
        p = p.strip(" .")
        if len(p) > 3 and p not in phrases:
            phrases.append(p)
    return phrases


def requirement_exclusions(requirement: Requirement) -> list[str]:
    """What the user does not want: "Avoid X", "Do not ...", "Y rather than X" (the X part)."""
    found = []
    for sentence in re.split(r"(?<=[.!?])\s+", requirement.description):
        m = re.match(r"^\s*(?:avoid|do not include|don't include|exclude|never include)\s+(.*)", sentence, re.I)
        if m:
            found.append(m.group(1).strip(" ."))
            continue
        m = re.search(r"\b(?:rather than|instead of)\s+(.*)", sentence, re.I)
        if m:
            found.append(m.group(1).strip(" ."))
    return [f for f in found if len(f) > 3]


def phrase_stems(phrase: str) -> frozenset[str]:
    """The content stems of a phrase, each part of a hyphenated word as a word of its own."""
    return frozenset(t for t in term_tokens(phrase.replace("-", " ")) if len(t) > 2)


def concept_compounds(phrases: Sequence[str]) -> list[frozenset[str]]:
    """The stems of each phrase of 2-4 content words, and the parts of each hyphenated word
    ("solid-state", "genotype-phenotype"), once each."""
    found: list[frozenset[str]] = []
    for phrase in phrases:
        parts = [frozenset(t for t in word if len(t) > 2) for word in hyphenated_parts(phrase)]
        for stems in (phrase_stems(phrase), *parts):
            if 2 <= len(stems) <= MAX_COMPOUND and stems not in found:
                found.append(stems)
    return found


def domain_words(domain: str) -> frozenset[str]:
    """The stemmed words of the domain. Alone, each names a class at least as wide as the topic: the
    head the class the modifiers narrow ("insulators" of "topological insulators"), a modifier
    everything about it ("enzyme" of "enzyme kinetics", "renal" of "renal physiology": kidney stones
    and dialysis too), a one-word domain all of the field the description narrows ("photosynthesis"
    for the light reactions: "What does photosynthesis produce?" is not about them). Each word in its
    regular singular and plural forms too, which the stemmer does not always join ("gas" is "ga",
    "gases" "gase")."""
    forms = []
    for word in re.findall(r"[a-z0-9]+", domain.lower()):
        forms += [word, word + "s", word + "es"]
        forms += [word[:-1]] if word.endswith("s") else []
        forms += [word[:-2]] if word.endswith("es") else []
    return frozenset(term_tokens(" ".join(forms)))


def exclusive_unit_terms(units: Sequence[KnowledgeUnit]) -> dict[str, list[str]]:
    """K_v: each unit's name and keyword tokens that no other of the given units has."""
    tokens = {u.id: set(term_tokens(" ".join([u.name, *u.keywords]), parts=False)) for u in units}
    counts: Counter[str] = Counter()
    for toks in tokens.values():
        counts.update(toks)
    return {u.id: sorted(t for t in tokens[u.id] if counts[t] == 1) for u in units}


@dataclass(frozen=True)
class RelevanceModel:
    """Logistic model weights, one per name of `features` (a subset of the evidence's `FEATURES`)."""

    weights: tuple[float, ...]
    bias: float
    threshold: float
    trained_on: str = ""
    features: tuple[str, ...] = ("z", "phrase_z", "specific_terms", "contrast")

    FEATURES = ("z", "phrase_z", "specific_terms", "contrast", "top_unit")  # what TopicEvidence.features gives

    def __post_init__(self) -> None:
        if len(self.weights) != len(self.features) or not set(self.features) <= set(self.FEATURES):
            raise ValueError(f"a weight per feature of {self.FEATURES} is needed, got {self.features}")

    def probability(self, features: Mapping[str, float]) -> float:
        x = sum(w * features[f] for w, f in zip(self.weights, self.features, strict=True)) + self.bias
        return float(1 / (1 + np.exp(-x)))

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> RelevanceModel:
        return cls(tuple(float(w) for w in record["weights"]), float(record["bias"]), float(record["threshold"]),
                   str(record.get("trained_on", "")), tuple(record.get("features", cls.features)))

    @classmethod
    def packaged(cls) -> RelevanceModel:
        path = resources.files("scicustom") / "resources" / "relevance_gold" / "model.json"
        return cls.from_record(json.loads(path.read_text(encoding="utf-8")))


def packaged_calibration() -> dict[str, Any]:
    """Measured precision counts of each offline judge and the jury on the development set."""
    path = resources.files("scicustom") / "resources" / "relevance_gold" / "calibration.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


class TopicEvidence:
    """Everything the offline judges know about one requirement; features of an item on demand."""

    def __init__(self, requirement: Requirement, embedder: Embedder, corpus_matrix: np.ndarray,
                 background_rows: Sequence[int], postings: TermPostings, unit_terms: Sequence[str] = (),
                 top_unit_items: frozenset[str] = frozenset()) -> None:
        """`corpus_matrix`, `background_rows` and `postings` index the same rows (the world's item order);
        `top_unit_items`: the items tagged with one of the vote's top units (TOP_VOTED_UNITS)."""
        self.requirement = requirement
        self.top_unit_items = top_unit_items
        self.phrases = requirement_phrases(requirement)
        self.exclusions = requirement_exclusions(requirement)
        encoded = embedder.encode([requirement.topic_text, requirement.domain, *self.phrases, *self.exclusions])
        self.topic, self.subject = encoded[0], encoded[1]
        self.phrase_vectors = encoded[2:2 + len(self.phrases)]
        self.exclusion_vectors = encoded[2 + len(self.phrases):]
        sims = corpus_matrix @ self.topic
        order = np.argsort(-sims, kind="stable")[:NEIGHBOURHOOD]
        near_rows = corpus_matrix[order]
        field = near_rows.astype(np.float64).mean(axis=0)
        self.field = (field / max(float(np.linalg.norm(field)), 1e-12)).astype(np.float32)
        background = corpus_matrix[list(background_rows)]
        bg_cos = background @ self.topic
        self._mu, self._sd = float(bg_cos.mean()), max(float(bg_cos.std()), 1e-9)
        bg_phrase = (background @ self.phrase_vectors.T).max(axis=1)
        self._pmu, self._psd = float(bg_phrase.mean()), max(float(bg_phrase.std()), 1e-9)
        near, bg = postings.mask(int(r) for r in order), postings.mask(background_rows)
        n_near, n_bg = max(len(order), 1), max(len(background_rows), 1)
        field_words = domain_words(requirement.domain)
        # A hyphenated word of the requirement counts whole; its parts only together (concept_compounds):
        # alone, "solid" of "solid-state" is school science.
        candidates = set(term_tokens(requirement.topic_text, parts=False)) | set(unit_terms)
        # A term no item names cannot be judged by its items (nor match one): it stays specific.
        self.topicality = {t: self._topicality(sims, postings.rows(t)) for t in candidates if len(postings.rows(t))}

        def rare(rows: np.ndarray) -> bool:
            return int(near[rows].sum()) / n_near <= SPECIFIC_DF and int(bg[rows].sum()) / n_bg <= BACKGROUND_DF

        # Rare in the field and in the corpus, whether or not their items lie near the topic: enough
        # for an item its source files under the topic (EvidenceJudge), whose subject says the rest.
        self.rare_terms = frozenset(
            t for t in candidates
            if t not in GENERIC_TERMS and len(t) > 2 and t not in field_words and rare(postings.rows(t)))
        # Towards the topic, and away from its field: the items naming the term lie on average at least
        # as far from the field's centroid towards the topic as the field's own items do.
        field_contrast = float((near_rows @ self.topic - near_rows @ self.field).mean())
        self.specific_terms = frozenset(
            t for t in self.rare_terms
            if self.topicality.get(t, np.inf) >= TERM_TOPICALITY_Z
            and self._term_contrast(corpus_matrix, postings.rows(t)) >= field_contrast)
        self.field_terms = frozenset(candidates - self.specific_terms)
        # A concept phrase whose words are each too common alone ("inheritance patterns", "enzyme
        # kinetics") is a term of its own where an item names all its words.
        self.specific_compounds: tuple[frozenset[str], ...] = ()
        whole_domain = phrase_stems(requirement.domain)
        for stems in concept_compounds(self.phrases):
            if stems & self.specific_terms or stems & GENERIC_TERMS:
                continue  # already evidence through one of its words, or says nothing
            if stems < whole_domain:
                continue  # part of the domain: a wider class, as each of its words ("acid-base" of "acid-base buffers")
            rows = postings.rows_naming_all(stems)
            if len(rows) and rare(rows) and self._topicality(sims, rows) >= TERM_TOPICALITY_Z:
                self.specific_compounds += (stems,)

    def _term_contrast(self, corpus_matrix: np.ndarray, rows: np.ndarray) -> float:
        """Mean (cosine to the topic - cosine to its field) of the corpus items naming a term; a term no
        item names is not judged by its items."""
        if not len(rows):
            return float("inf")
        named = corpus_matrix[rows]
        return float((named @ self.topic - named @ self.field).mean())

    def _topicality(self, sims: np.ndarray, rows: np.ndarray) -> float:
        """z-score (over the background) of the mean topic cosine of the corpus items naming a term."""
        return (float(sims[rows].mean()) - self._mu) / self._sd

    def phrase_z(self, vector: np.ndarray) -> float:
        """z-score (over the background) of the item's cosine to its nearest concept phrase."""
        return (float((self.phrase_vectors @ vector).max()) - self._pmu) / self._psd

    def features(self, item: CorpusItem, vector: np.ndarray) -> dict[str, float]:
        cos = float(vector @ self.topic)
        found = self.matched_terms(item)
        return {
            "z": (cos - self._mu) / self._sd,
            "phrase_z": self.phrase_z(vector),
            "specific_terms": float(min(len(found), MAX_SPECIFIC)),
            "contrast": cos - float(vector @ self.field),
            "top_unit": float(item.id in self.top_unit_items),
        }

    def matched_rare_terms(self, item: CorpusItem) -> list[str]:
        return sorted(self.rare_terms.intersection(term_tokens(item.text)))

    def matched_terms(self, item: CorpusItem) -> list[str]:
        """The specific terms the item names; a compound as its stems joined by '+'."""
        tokens = set(term_tokens(item.text))
        return sorted([*self.specific_terms.intersection(tokens),
                       *("+".join(sorted(c)) for c in self.specific_compounds if c <= tokens)])

    def narrowing(self, vector: np.ndarray) -> float:
        """How much closer the item is to the requirement's framing than to its bare subject name."""
        return float(vector @ self.topic) - float(vector @ self.subject)

    def excluded_by(self, vector: np.ndarray) -> str | None:
        if not self.exclusions:
            return None
        closest_topic = max(float(vector @ self.topic), float(vector @ self.subject))
        sims = self.exclusion_vectors @ vector
        best = int(np.argmax(sims))
        if float(sims[best]) > closest_topic + EXCLUSION_MARGIN:
            return self.exclusions[best]
        return None


class EvidenceJudge(ABC):
    """An offline judge: the requirement's exclusions veto first; an item its source files under the
    topic itself (source_subjects.py) is relevant when it names a topic term; or a rare term of the
    requirement whose items lie all over the corpus ("structure" of "viral structure") and it lies no
    further from the requirement's text than from the bare subject name (the subject vouches for the
    topic, the margin keeps out the subject's parts the requirement does not ask for: "The decline in
    working memory with advanced age", margin -0.18, for "biological mechanisms of human aging"); or
    when it lies at least NARROWING_MARGIN closer (cosine) to the requirement's text than to the bare
    subject name: the field contrast says nothing there, for a broad topic the field *is* the topic. Measured on
    resources/relevance_gold: the 18 filed items these rules accept through a topic term (17) or a
    rare term (1) are all relevant; the 9 filed items labelled irrelevant (the psychology of ageing
    under "human aging", which "biological mechanisms of human aging" does not ask for; diet
    supplements) lie no closer to the requirement's text than to the subject name (margin <= 0.0),
    so the margin rule leaves the labelled set as it was. Read in the virology build, MMLU
    virology's structure, replication and host-response questions without the requirement's words
    lie 0.15-0.3 closer to it than to "virology", its epidemiology and clinical ones mostly below;
    of those above, the laboratory-method and treatment questions lie far from every concept phrase
    (phrase z 2.6-3.2, the others 3.7-5.5). Everything else goes to `decide`."""

    kind = "local"
    name = "evidence"

    def __init__(self, evidence: TopicEvidence, vectors: Mapping[str, np.ndarray],
                 unranked: UnrankedSubjects | None = None) -> None:
        self.evidence = evidence
        self._vectors = vectors
        self._unranked = unranked

    def judge(self, requirement: Requirement, item: CorpusItem) -> Verdict:
        excluded = self.evidence.excluded_by(self._vectors[item.id])
        if excluded is not None:
            return Verdict(False, f"closer to the excluded {excluded!r} than to the topic")
        elsewhere = self._unranked.of(item.id) if self._unranked is not None else []
        if elsewhere:
            return Verdict(False, "mainly about " + ", ".join(repr(u) for u in elsewhere)
                           + ", which no voting judge ranked for the requirement")
        if filed_under_topic(item.subject, requirement.domain, requirement.name):
            filed = f"its source ({item.source}) files it under {item.subject!r}, the topic itself, and "
            found = self.evidence.matched_terms(item)
            if found:
                return Verdict(True, filed + "it names topic terms: " + ", ".join(found[:5]))
            vector = self._vectors[item.id]
            margin, phrase_z = self.evidence.narrowing(vector), self.evidence.phrase_z(vector)
            rare = self.evidence.matched_rare_terms(item)
            if rare and margin >= 0:
                return Verdict(True, filed + "it names rare terms of the requirement (" + ", ".join(rare[:5])
                               + f") and lies no further from it than from {requirement.domain!r} alone")
            if margin >= NARROWING_MARGIN and phrase_z >= NARROWING_PHRASE_Z:
                return Verdict(True, filed + f"it is {margin:.3f} closer to the requirement than to "
                                             f"{requirement.domain!r} alone, near one of its concepts "
                                             f"(phrase z {phrase_z:.2f})")
        return self.decide(item)

    @abstractmethod
    def decide(self, item: CorpusItem) -> Verdict: ...

    def is_relevant(self, requirement: Requirement, item: CorpusItem) -> bool:
        return self.judge(requirement, item).relevant


class TopicTermsJudge(EvidenceJudge):
    name = "topic-terms"

    def decide(self, item: CorpusItem) -> Verdict:
        found = self.evidence.matched_terms(item)
        if found:
            return Verdict(True, "names topic-specific terms: " + ", ".join(found[:5]))
        return Verdict(False, "names no term specific to the topic within its field")


class TopicContrastJudge(EvidenceJudge):
    name = "topic-contrast"

    def decide(self, item: CorpusItem) -> Verdict:
        f = self.evidence.features(item, self._vectors[item.id])
        if f["z"] < TOPIC_Z:
            return Verdict(False, f"not an outlier towards the topic (z {f['z']:.2f} < {TOPIC_Z})")
        if f["contrast"] <= 0:
            return Verdict(False, f"closer to the topic's field than to the topic (contrast {f['contrast']:.3f})")
        return Verdict(True, f"towards the topic (z {f['z']:.2f}), away from its field (contrast {f['contrast']:.3f})")


class RelevanceModelJudge(EvidenceJudge):
    name = "relevance-model"

    def __init__(self, evidence: TopicEvidence, vectors: Mapping[str, np.ndarray], model: RelevanceModel,
                 unranked: UnrankedSubjects | None = None) -> None:
        super().__init__(evidence, vectors, unranked)
        self._model = model

    def decide(self, item: CorpusItem) -> Verdict:
        p = self._model.probability(self.evidence.features(item, self._vectors[item.id]))
        verdict = p >= self._model.threshold
        return Verdict(verdict, f"model probability {p:.3f} {'>=' if verdict else '<'} {self._model.threshold:.3f}")


def offline_relevance_jury(evidence: TopicEvidence, vectors: Mapping[str, np.ndarray], model: RelevanceModel,
                           unranked: UnrankedSubjects | None = None) -> list[EvidenceJudge]:
    """The three offline judges; each applies the requirement's exclusions first, then (after a vote)
    rejects an item mainly about a unit no voting judge ranked."""
    return [TopicTermsJudge(evidence, vectors, unranked), TopicContrastJudge(evidence, vectors, unranked),
            RelevanceModelJudge(evidence, vectors, model, unranked)]
