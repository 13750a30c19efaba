"""Whether an item's own source filed it under the requirement's topic.

The corpus keeps each item's subject as its source published it (MMLU `virology`, MedMCQA
`Biochemistry / AIIMS 2018`, ...). When that subject *is* the requirement's topic, a person filed the
question there, which is stronger evidence than any similarity: the evidence judges were built to
tell a narrow topic from its field, and for a broad topic ("virology") the field's items are the
topic's items, so they rejected most of them. Only an exact match counts: a subject that is merely
the topic's field ("physiology" for "renal physiology", "college chemistry" for "organic chemistry")
says nothing about the narrower topic, and the other judges decide those items. Likewise a domain
that is only the requirement's field ("quantum error correction" filed in the domain "physics"):
the domain stands for the topic only when the requirement is named for it (every word of the domain
is a word of the requirement's name, as in each packaged requirement); otherwise no subject vouches.
"""

from __future__ import annotations

import re

# Level and exam qualifiers that say where a question was used, not what it is about (any run of
# them: removing one must not leave another for a second pass).
_QUALIFIERS = re.compile(r"^(?:(?:high school|college|professional|elementary|conceptual)\s+)+")
_EXAM = re.compile(r"\s*/.*$")  # MedMCQA "Pathology / AIIMS 2018"


def normalised_subject(subject: str) -> str:
    # Whitespace first: the exam suffix runs to the end of the line, and a line break inside a
    # subject would otherwise survive the first pass as a space and be cut by the second.
    text = _EXAM.sub("", " ".join(subject.replace("_", " ").split())).lower()
    return " ".join(_QUALIFIERS.sub("", text).split())


def normalised_topic(domain: str) -> str:
    return " ".join(domain.lower().split()).strip(" .")


def named_for_domain(name: str, domain: str) -> bool:
    """Whether the requirement's name carries every word of its domain ("fresh_gas_laws", "gas laws")."""
    words = set(normalised_topic(name.replace("_", " ").replace("-", " ")).split())
    domain_words = normalised_topic(domain.replace("-", " ")).split()
    return bool(domain_words) and set(domain_words) <= words


def filed_under_topic(subject: str, domain: str, name: str) -> bool:
    """True when the requirement (`name`) is named for its domain and the item's source subject names
    exactly that domain (case, level qualifiers such as "high school" and exam suffixes aside)."""
    topic = normalised_topic(domain)
    return bool(topic) and named_for_domain(name, domain) and normalised_subject(subject) == topic
