"""GROBID TEI full texts: header metadata, abstract and body divisions; `back` (references) dropped."""

from __future__ import annotations

from typing import Any

from scicustom.core.papers.document import DraftSection, PaperDraft
from scicustom.core.papers.safe_xml import children, descendants, first, local, text_of

_SKIP = frozenset({"ref", "figure", "formula", "note"})


def _div_sections(container: Any, out: list[DraftSection]) -> None:
    for div in children(container, "div"):
        head = first(div, "head")
        title = text_of(head) if head is not None else ""
        paragraphs = [text_of(p, _SKIP) for p in div if local(p.tag) == "p"]
        if paragraphs:
            out.append(DraftSection(title, tuple(paragraphs)))
        _div_sections(div, out)


def parse_tei(root: Any) -> PaperDraft:
    draft = PaperDraft("tei")
    header = first(root, "teiHeader")
    if header is not None:
        title = first(header, "fileDesc", "titleStmt", "title")
        draft.title = text_of(title) if title is not None else ""
        analytic = next(iter(descendants(header, "analytic")), None)
        if analytic is not None:
            for pers in descendants(analytic, "persName"):
                names = [text_of(n) for n in pers if local(n.tag) in ("forename", "surname")]
                draft.authors.append(" ".join(n for n in names if n))
        for idno in descendants(header, "idno"):
            if (idno.get("type") or "").upper() == "DOI":
                draft.doi = text_of(idno)
            elif (idno.get("type") or "").upper() == "PMID":
                draft.pmid = text_of(idno)
        licence = next(iter(descendants(header, "licence")), None)
        if licence is not None:
            draft.licence = licence.get("target") or text_of(licence)[:300]
        abstract = next(iter(descendants(header, "abstract")), None)
        if abstract is not None:
            paragraphs = [text_of(p, _SKIP) for p in descendants(abstract, "p")]
            draft.sections.append(DraftSection("Abstract", tuple(paragraphs)))
    body = first(root, "text", "body")
    if body is not None:
        _div_sections(body, draft.sections)
    back = first(root, "text", "back")
    draft.references_stripped = len(descendants(back, "biblStruct")) if back is not None else 0
    return draft
