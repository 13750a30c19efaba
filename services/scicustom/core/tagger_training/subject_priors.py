"""What a real item's source and subject say about its units.

Each known (source, subject) names the unit domains its questions belong to and, where one exists,
the unit that names the subject itself (MMLU virology -> "Virology"). Non-science subjects map to
Non-Scientific. Subjects whose science status is ambiguous (psychology, geography, trivia) have no
prior and are neither used for weak labels nor for domain agreement.
"""

from __future__ import annotations

from dataclasses import dataclass

from scicustom.core.zero_shot_tagger import NON_SCIENCE_SUBJECTS

LIFE = frozenset({"biology", "medicine", "anatomy"})
CHEMISTRY = frozenset({"chemistry"})
PHYSICS = frozenset({"physics"})
FORMAL = frozenset({"other"})
NON_SCIENTIFIC_DOMAIN = "non-scientific"
ANY_SCIENCE = frozenset({"biology", "medicine", "anatomy", "chemistry", "physics", "other"})


@dataclass(frozen=True)
class SubjectPrior:
    domains: frozenset[str]
    subject_units: tuple[str, ...] = ()  # unit names

    @property
    def non_scientific(self) -> bool:
        return self.domains == frozenset({NON_SCIENTIFIC_DOMAIN})


_NON_SCI = SubjectPrior(frozenset({NON_SCIENTIFIC_DOMAIN}))

MMLU_PRIORS: dict[str, SubjectPrior] = {
    "anatomy": SubjectPrior(frozenset({"anatomy", "medicine"}), ("Anatomy",)),
    "astronomy": SubjectPrior(PHYSICS, ("Astrophysics",)),
    "college_biology": SubjectPrior(LIFE),
    "high_school_biology": SubjectPrior(LIFE),
    "college_chemistry": SubjectPrior(CHEMISTRY),
    "high_school_chemistry": SubjectPrior(CHEMISTRY),
    "college_physics": SubjectPrior(PHYSICS, ("Physics",)),
    "high_school_physics": SubjectPrior(PHYSICS, ("Physics",)),
    "conceptual_physics": SubjectPrior(PHYSICS, ("Physics",)),
    "electrical_engineering": SubjectPrior(PHYSICS | FORMAL, ("Electromagnetism",)),
    "clinical_knowledge": SubjectPrior(LIFE),
    "college_medicine": SubjectPrior(LIFE),
    "professional_medicine": SubjectPrior(LIFE),
    "human_aging": SubjectPrior(LIFE, ("Human aging",)),
    "medical_genetics": SubjectPrior(LIFE, ("Medical genetics",)),
    "nutrition": SubjectPrior(LIFE | CHEMISTRY, ("Nutrition",)),
    "virology": SubjectPrior(LIFE, ("Virology",)),
    "abstract_algebra": SubjectPrior(FORMAL, ("Mathematics",)),
    "college_mathematics": SubjectPrior(FORMAL, ("Mathematics",)),
    "elementary_mathematics": SubjectPrior(FORMAL, ("Mathematics",)),
    "high_school_mathematics": SubjectPrior(FORMAL, ("Mathematics",)),
    "high_school_statistics": SubjectPrior(FORMAL, ("Mathematics",)),
    "college_computer_science": SubjectPrior(FORMAL, ("Computer science",)),
    "high_school_computer_science": SubjectPrior(FORMAL, ("Computer science",)),
    "machine_learning": SubjectPrior(FORMAL, ("Computer science",)),
    "computer_security": SubjectPrior(FORMAL, ("Computer science",)),
    **{subject: _NON_SCI for subject in NON_SCIENCE_SUBJECTS if subject != "miscellaneous"},
}

MEDMCQA_PRIORS: dict[str, SubjectPrior] = {
    "Anatomy": SubjectPrior(frozenset({"anatomy", "medicine"}), ("Anatomy",)),
    "Physiology": SubjectPrior(LIFE, ("Physiology",)),
    "Biochemistry": SubjectPrior(LIFE | CHEMISTRY, ("Biochemistry",)),
    "Pathology": SubjectPrior(LIFE, ("Pathology",)),
    "Pharmacology": SubjectPrior(LIFE | CHEMISTRY, ("Pharmacology",)),
    "Microbiology": SubjectPrior(LIFE, ("Microbiology",)),
    "Forensic Medicine": SubjectPrior(LIFE, ("Forensic pathology",)),
    "Social & Preventive Medicine": SubjectPrior(LIFE, ("Public health",)),
}
# The clinical MedMCQA subjects, MedQA and LAB-Bench have life-science questions without a single unit.
_CLINICAL = SubjectPrior(LIFE)
SOURCE_PRIORS: dict[str, SubjectPrior] = {
    "medqa": _CLINICAL,
    "lab_bench": SubjectPrior(frozenset({"biology"})),
}
# Elementary-science sources: scientific, any domain.
OPEN_SCIENCE_SOURCES = frozenset({"arc", "openbookqa", "sciq"})


def subject_prior(source: str, subject: str) -> SubjectPrior | None:
    if source == "mmlu":
        return MMLU_PRIORS.get(subject)
    if source == "medmcqa":
        base = subject.split(" / ")[0].strip()
        return MEDMCQA_PRIORS.get(base, _CLINICAL if base else None)
    if source in OPEN_SCIENCE_SOURCES:
        return SubjectPrior(ANY_SCIENCE)
    return SOURCE_PRIORS.get(source)


def domain_agreement_prior(source: str, subject: str) -> SubjectPrior | None:
    """The subject priors the paper-style domain agreement is measured on: MMLU and MedMCQA only."""
    if source not in ("mmlu", "medmcqa"):
        return None
    return subject_prior(source, subject)
