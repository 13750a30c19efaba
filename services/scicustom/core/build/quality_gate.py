"""The MCQ quality gate (issue 13): drop items a benchmark must not carry, counted per reason.

  missing-context     the question refers to a figure, diagram, graph, table, image, passage or a
                      pictured ECG, radiograph or instrument the corpus item does not contain (the
                      corpora are text only), "shown below" with nothing shown after it, or another
                      question of its source's exam ("Refer to question 15 for details on the squirrel
                      population")
  empty-option        an option is empty
  duplicate-options   two options are the same text after normalisation
  doubtful-key        offline checks find the key doubtful: a NOT/EXCEPT question keyed "all of the
                      above/these", a key that is "none of the above" while another option repeats
                      it, or an open item whose answer is empty or only punctuation
  near-duplicate      the same question as an earlier item (same or another source): normalised
                      question tokens overlap >= 0.8 (Jaccard) with the same key, half the options
                      shared, or the same words in a stem of 12 or more; or the item embeddings'
                      cosine >= 0.97; or a paraphrase: the same key, half the options shared and
                      cosine >= 0.8 ("on addition of calcium and thromboplastin to platelet poor
                      plasma, which pathway is activated?" and "in a platelet poor plasma sample
                      calcium and tissue thromboplastin is added: which pathway is assessed?"); or the
                      same question asked again by another source with its own options: cosine >= 0.85
                      and the key in (mostly) the same words ("What keeps the planets in orbit around
                      the Sun? gravity" and "The force necessary to keep planets in orbit around the
                      Sun is gravity.")

The first item in candidate order wins a near-duplicate pair, so the gate is deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from scicustom.core.corpus_item import CorpusItem, normalise_text

REASONS = ("missing-context", "empty-option", "duplicate-options", "doubtful-key", "near-duplicate")
NEAR_DUP_JACCARD = 0.8
NEAR_DUP_COSINE = 0.97
# Two different questions with the same key and options lay at 0.56-0.64 in the packaged builds ("which
# pattern of inheritance does consanguinity / autozygosity mapping show?"); the one paraphrase, at 0.82.
PARAPHRASE_COSINE = 0.8
# A stem this long asked again word for word is the same question whatever its options ("Which human
# gene ... interacts with the viral protein X according to database Y?" with three option sets); a short
# one ("Which of the following is true?") is not, nor a template filled in differently (another miRNA).
SAME_STEM_TOKENS = 12
# The same question from another source, options its own: stems at 0.85-0.94 with the key in the same words
# ("dimming the lights" / "dimming lights"; "how the rocks were formed" / "the way the rocks were formed"),
# in the relevance set's train split, where 22 of 32 labelled near-duplicates passed the earlier rules.
RESTATED_COSINE = 0.85
RESTATED_KEY_JACCARD = 0.5

_MEDIA = r"(?:figure|fig\.|diagram|graph|table|chart|image|picture|photograph|photo|map|illustration|drawing|plot)"
_MISSING = [
    re.compile(rf"\b(?:shown|given|depicted|illustrated|presented|pictured|displayed)\s+(?:in|on|below|above)\s+"
               rf"(?:the\s+)?(?:following\s+|accompanying\s+|attached\s+)?{_MEDIA}", re.I),
    # ... but not a medium the question describes in words or names as a concept: "the graph of ln [A] versus
    # time", "the chart that makes it easy to find the genotypes", the optics "image formed by a mirror".
    re.compile(rf"\b(?:the|this|following|accompanying|above|below)\s+{_MEDIA}s?\b"
               rf"(?!\s+(?:of|that|which|formed|produced|distance|height|is\s+(?:real|virtual|inverted|upright|erect))\b)",
               re.I),
    re.compile(r"\b(?:the|this|following|above|preceding)\s+(?:passage|excerpt|paragraph|text|article)\b", re.I),
    re.compile(r"\b(?:in|from)\s+(?:figure|fig\.|table)\s*\d", re.I),
    # A passage's author, not "the author who proposed natural selection".
    re.compile(r"\bthe author(?:'s)?\b(?!\s+(?:who|that|of)\b)", re.I),
    # Structures pointed at in an image the corpus did not keep (MedMCQA/MedQA: "marked (with arrow)").
    re.compile(r"\b(?:marked|labell?ed|shown|indicated)\b[^.?]{0,20}\barrows?\b|\(\s*(?:with\s+)?arrows?\s*\)", re.I),
    re.compile(r"\bmarked\s+(?:muscles?|structures?|areas?|parts?|bones?|regions?|vessels?|nerves?|organs?|points?"
               r"|cells?)\b|\b(?:structure|area|part|region|bone|muscle|vessel|nerve|point)\s+(?:marked|labell?ed)\s+"
               r"(?:as\s+)?['\"]?[A-Z0-9]\b", re.I),
]
# Clinical images and pictured objects (an ECG, a radiograph, an instrument) the corpus did not keep. Their
# names alone do not count: "the ECG shows ST elevation in V1-V3" describes one in words. They count where
# the question points at one: shown in/given below, "the given X", "Diagnosis of the following ECG-" at its
# end ("which of the following radiographs" lists kinds, not a picture). On the corpus these match 8
# questions, each pointing at an image that is not there.
_PICTURED = (r"(?:ecg|ekg|electrocardiogram|x-?ray|radiograph|skiagram|ct(?:\s+scan)?|mri|usg|ultrasound|sonogram"
             r"|angiogram|smear|slide|photomicrograph|specimen|instrument|clinical\s+(?:picture|photograph))s?")
_NOT_A_CHOICE = r"(?<!which of the )(?<!all of the )(?<!each of the )(?<!one of the )(?<!any of the )(?<!none of the )"
_MISSING += [
    re.compile(rf"\b(?:shown|seen|given|depicted|illustrated|displayed)\s+(?:in|on)\s+(?:the\s+)?"
               rf"(?:following\s+|accompanying\s+|attached\s+|given\s+)?{_PICTURED}\s+(?:below|above)\b", re.I),
    re.compile(rf"\b{_PICTURED}\s+(?:given|shown|provided|attached)\s+(?:below|above|here)\b", re.I),
    re.compile(rf"\b{_NOT_A_CHOICE}(?:following|given|accompanying|attached)\s+{_PICTURED}\s*[-:?.]*\s*$", re.I),
    re.compile(r"\b(?:shows?|showed|shown|reveals?|revealed)\s+the\s+following\s+"
               r"(?:pathology|findings?|lesions?|picture|image|appearance)\s*[-:?.]*\s*$", re.I),
    re.compile(rf"\bthe\s+given\s+{_PICTURED}", re.I),
    # Another question of the source's exam, which the corpus keeps as an item of its own, if at all. A
    # question's own label ("Question 13. A buyer sent ...") is not a reference.
    re.compile(r"\b(?:refer(?:ring)?\s+to|see|of|in|given\s+in|that\s+of|from)\s+(?:the\s+)?questions?\s+#?\d+\b",
               re.I),
]
_ALL_ABOVE = re.compile(r"^(?:all of (?:the )?(?:above|these|the following)|all are (?:true|correct))\.?$", re.I)
_NONE_ABOVE = re.compile(r"^none of (?:the )?(?:above|these)\.?$", re.I)
_NEGATED = re.compile(r"\b(?:except|not|false|incorrect|least likely)\b", re.I)
_WORD = re.compile(r"[a-z0-9]+")
LONG_QUESTION = 600  # a question this long usually carries its own passage or table ...
# ... but never its picture (the corpora are text only): whatever its length, a question that says where its
# image is points at one that is not there ("His peripheral blood smear is shown in the picture", "noted by the
# arrow in the image": 31 MedQA vignettes of 600+ characters, 2 shorter ones). A picture word alone is not
# enough in a long question: "the photographs were developed", "the figure was not necessary", "was given the
# photograph" tell a story.
_POINTS_AT_PICTURE = re.compile(r"\b(?:shown|seen|illustrated|presented|displayed|noted|indicated|marked|refer)\b"
                                r"[^.?\n]{0,25}\b(?:(?:figure|image|picture|photograph|photo|diagram|arrow)s?\b|fig\.)",
                                re.I)

# Whatever its length, a question whose "shown below" (or "given above") is followed by nothing but its own
# question ("CECT is shown below. Which is best management of this condition?", "The x-ray after the fall is
# given below:") shows nothing: what it points at is missing. Lab values, an equation or data after it
# (digits, "=", "->", a new line) are what it shows. On the corpus: 15 questions, none caught otherwise.
_SHOWS_NOTHING = re.compile(r"\b(?:shown|given|depicted|illustrated|displayed|pictured)\s+(?:below|above)\s*[.:]\s*"
                            r"(?:[A-Z][^\n:=\d<>+]{0,150}?[?:.]?\s*)?$")


def check_item(item: CorpusItem) -> str | None:
    """The first reason the item is malformed, or None."""
    if len(item.question) < LONG_QUESTION and any(p.search(item.question) for p in _MISSING):
        return "missing-context"
    if _POINTS_AT_PICTURE.search(item.question) or _SHOWS_NOTHING.search(item.question):
        return "missing-context"
    options = [normalise_text(o) for o in item.options]
    if any(not o.strip(" .") for o in options):
        return "empty-option"
    if len(set(options)) < len(options):
        return "duplicate-options"
    if item.format == "mcq" and item.answer_index is not None:
        key = options[item.answer_index]
        if _ALL_ABOVE.match(key) and _NEGATED.search(item.question):
            return "doubtful-key"
    elif not normalise_text(item.answer).strip(" .,;:-"):
        return "doubtful-key"
    return None


def _tokens(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(normalise_text(text)))


def quality_gate(items: Sequence[CorpusItem], vectors: Sequence[np.ndarray]) -> tuple[list[int], dict[str, Any]]:
    """Indices of the items that pass, and the counts per reason (plus a few examples)."""
    counts = dict.fromkeys(REASONS, 0)
    examples: dict[str, list[str]] = {r: [] for r in REASONS}
    passed: list[int] = []
    kept_tokens: list[tuple[frozenset[str], str, frozenset[str], frozenset[str]]] = []
    kept_vectors: list[np.ndarray] = []
    for i, item in enumerate(items):
        reason = check_item(item)
        if reason is None:
            toks = _tokens(item.question)
            vec = np.asarray(vectors[i], dtype=np.float32)
            cos = np.stack(kept_vectors) @ vec if kept_vectors else np.zeros(0, dtype=np.float32)
            if cos.size and float(cos.max()) >= NEAR_DUP_COSINE:
                reason = "near-duplicate"
            answer = normalise_text(item.answer)
            answer_words = _tokens(item.answer)
            options = frozenset(normalise_text(o) for o in item.options)
            if reason is None and toks:
                for k, (other, other_answer, other_options, other_words) in enumerate(kept_tokens):
                    shared = len(options & other_options) / max(len(options | other_options), 1)
                    if answer == other_answer and shared >= 0.5 and cos[k] >= PARAPHRASE_COSINE:
                        reason = "near-duplicate"
                        break
                    same_key = len(answer_words & other_words) / max(len(answer_words | other_words), 1)
                    if cos[k] >= RESTATED_COSINE and same_key >= RESTATED_KEY_JACCARD:
                        reason = "near-duplicate"
                        break
                    if len(toks & other) / len(toks | other) < NEAR_DUP_JACCARD:
                        continue
                    same_long_stem = toks == other and len(toks) >= SAME_STEM_TOKENS
                    if answer == other_answer or shared >= 0.5 or same_long_stem:
                        reason = "near-duplicate"
                        break
            if reason is None:
                passed.append(i)
                kept_tokens.append((toks, answer, options, answer_words))
                kept_vectors.append(vec)
                continue
        counts[reason] += 1
        if len(examples[reason]) < 3:
            examples[reason].append(item.id)
    return passed, {"checked": len(items), "passed": len(passed), "dropped": counts,
                    "examples": {r: e for r, e in examples.items() if e}}
