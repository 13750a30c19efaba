"""JATS / NXML full texts (PubMed Central open access): metadata, abstract and body sections.

The reference list (`back/ref-list`) is dropped and counted; citation markers (`xref` to
bibliography entries), tables, figures and formulas' markup are left out of the text.
"""

from __future__ import annotations

from typing import Any

from scicustom.core.papers.document import DraftSection, PaperDraft
from scicustom.core.papers.safe_xml import children, descendants, first, local, text_of

_SKIP = frozenset({"xref", "table-wrap", "fig", "disp-formula", "supplementary-material", "label", "ref-list"})
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"


def _paragraphs(element: Any) -> list[str]:
    return [text_of(p, _SKIP) for p in children(element, "p")]


def _sections(sec: Any, prefix: str, out: list[DraftSection]) -> None:
    title_el = first(sec, "title")
    title = text_of(title_el) if title_el is not None else ""
    full = f"{prefix} / {title}" if prefix and title else (title or prefix)
    paragraphs = _paragraphs(sec)
    if paragraphs:
        out.append(DraftSection(full, tuple(paragraphs)))
    for child in children(sec, "sec"):
        _sections(child, full, out)


def _licence(meta: Any) -> str:
    for licence in descendants(meta, "license"):
        href = licence.get(_XLINK_HREF) or licence.get("href")
        if href:
            return str(href)
        ali = [c for c in licence.iter() if local(c.tag) == "license_ref"]
        if ali and ali[0].text:
            return str(ali[0].text).strip()
        return text_of(licence)[:300]
    return ""


def parse_jats(root: Any) -> PaperDraft:
    draft = PaperDraft("jats")
    meta = first(root, "front", "article-meta")
    if meta is not None:
        title = first(meta, "title-group", "article-title")
        draft.title = text_of(title) if title is not None else ""
        for contrib in descendants(meta, "contrib"):
            if contrib.get("contrib-type", "author") != "author":
                continue
            name = first(contrib, "name")
            if name is not None:
                given, surname = first(name, "given-names"), first(name, "surname")
                draft.authors.append(" ".join(text_of(n) for n in (given, surname) if n is not None))
        for article_id in children(meta, "article-id"):
            kind = article_id.get("pub-id-type")
            if kind == "doi":
                draft.doi = text_of(article_id)
            elif kind == "pmid":
                draft.pmid = text_of(article_id)
        draft.licence = _licence(meta)
        for abstract in children(meta, "abstract"):
            if abstract.get("abstract-type") not in (None, "", "summary"):
                continue
            paragraphs = [text_of(p, _SKIP) for p in descendants(abstract, "p")]
            draft.sections.append(DraftSection("Abstract", tuple(paragraphs)))
            break
    body = first(root, "body")
    if body is not None:
        loose = _paragraphs(body)
        if loose:
            draft.sections.append(DraftSection("", tuple(loose)))
        for sec in children(body, "sec"):
            _sections(sec, "", draft.sections)
    draft.references_stripped = len(descendants(root, "ref"))
    return draft
