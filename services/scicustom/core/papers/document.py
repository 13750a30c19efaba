"""The parsed form of a paper: metadata, body text, sections and sentences with character offsets.

Every parser produces a `PaperDraft` (metadata and sections of paragraphs, references already
stripped); `assemble` joins the sections into one text and records where each section and each
sentence lies in it, so every extracted instance can cite an exact character span.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scicustom.core.papers.sentences import split_sentences


class UnreadablePaper(ValueError):
    """A paper no retry can read: corrupt, encrypted, refused (entities, size), or without text."""


@dataclass(frozen=True)
class DraftSection:
    title: str
    paragraphs: tuple[str, ...]


@dataclass
class PaperDraft:
    format: str
    title: str = ""
    authors: list[str] = field(default_factory=list)
    doi: str = ""
    pmid: str = ""
    licence: str = ""
    sections: list[DraftSection] = field(default_factory=list)
    references_stripped: int = 0


@dataclass(frozen=True)
class Section:
    title: str
    start: int
    end: int


@dataclass(frozen=True)
class Sentence:
    section: int  # index into ParsedPaper.sections
    start: int
    end: int


@dataclass(frozen=True)
class ParsedPaper:
    format: str
    title: str
    authors: tuple[str, ...]
    doi: str
    pmid: str
    licence: str
    text: str
    sections: tuple[Section, ...]
    sentences: tuple[Sentence, ...]
    references_stripped: int

    def sentence_text(self, sentence: Sentence) -> str:
        return self.text[sentence.start:sentence.end]

    def to_record(self) -> dict[str, Any]:
        return {"format": self.format, "title": self.title, "authors": list(self.authors), "doi": self.doi,
                "pmid": self.pmid, "licence": self.licence, "text": self.text,
                "sections": [[s.title, s.start, s.end] for s in self.sections],
                "sentences": [[s.section, s.start, s.end] for s in self.sentences],
                "references_stripped": self.references_stripped}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> ParsedPaper:
        return cls(str(record["format"]), str(record["title"]), tuple(record["authors"]), str(record["doi"]),
                   str(record["pmid"]), str(record["licence"]), str(record["text"]),
                   tuple(Section(str(t), int(a), int(b)) for t, a, b in record["sections"]),
                   tuple(Sentence(int(i), int(a), int(b)) for i, a, b in record["sentences"]),
                   int(record["references_stripped"]))


def clean_space(text: str) -> str:
    return " ".join(text.split())


def normalise_doi(doi: str) -> str:
    doi = doi.strip()
    for prefix in ("https://doi.org/", "http://doi.org/", "http://dx.doi.org/", "https://dx.doi.org/", "doi:"):
        if doi.lower().startswith(prefix):
            doi = doi[len(prefix):]
    return doi.strip().lower()


def assemble(draft: PaperDraft) -> ParsedPaper:
    """Joins the draft's sections (paragraphs separated by blank lines) and splits sentences.

    UnreadablePaper when no section carries text.
    """
    parts: list[str] = []
    sections: list[Section] = []
    sentences: list[Sentence] = []
    offset = 0
    for draft_section in draft.sections:
        paragraphs = [p for p in (clean_space(p) for p in draft_section.paragraphs) if p]
        if not paragraphs:
            continue
        start = offset
        index = len(sections)
        for number, paragraph in enumerate(paragraphs):
            if parts:
                parts.append("\n\n")
                offset += 2
            if number == 0:
                start = offset
            for s_start, s_end in split_sentences(paragraph):
                sentences.append(Sentence(index, offset + s_start, offset + s_end))
            parts.append(paragraph)
            offset += len(paragraph)
        sections.append(Section(clean_space(draft_section.title), start, offset))
    text = "".join(parts)
    if not text.strip():
        raise UnreadablePaper("the paper has no text")
    authors = tuple(clean_space(a) for a in draft.authors if a.strip())
    return ParsedPaper(draft.format, clean_space(draft.title), authors,
                       normalise_doi(draft.doi), draft.pmid.strip(), clean_space(draft.licence), text,
                       tuple(sections), tuple(sentences), draft.references_stripped)
