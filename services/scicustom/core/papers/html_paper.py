"""HTML papers (lxml.html, no network): `citation_*` meta tags or <title>/<h1> for metadata, h1-h4
headings start sections, p/li are text; scripts, styles, navigation and the references are dropped."""

from __future__ import annotations

from typing import Any

from lxml import etree, html

from scicustom.core.papers.document import DraftSection, PaperDraft, UnreadablePaper
from scicustom.core.papers.reference_headings import starts_back_matter

_HEADINGS = {"h1", "h2", "h3", "h4"}
_DROP = ("script", "style", "nav", "header", "footer", "aside", "form", "noscript", "template")


def _meta(doc: Any, name: str) -> list[str]:
    return [str(m.get("content", "")).strip() for m in doc.iter("meta")
            if str(m.get("name", "")).lower() == name and m.get("content")]


def parse_html(data: bytes) -> PaperDraft:
    # A page that declares no charset is read as UTF-8 (libxml2 would guess Latin-1).
    declared = b"charset" in data[:4096].lower()
    parser = html.HTMLParser(no_network=True, remove_comments=True, remove_pis=True, huge_tree=False,
                             encoding=None if declared else "utf-8")
    try:
        doc = html.document_fromstring(data, parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise UnreadablePaper(f"unreadable HTML: {exc}") from None
    draft = PaperDraft("html")
    draft.title = next(iter(_meta(doc, "citation_title") + _meta(doc, "dc.title")), "")
    draft.authors = _meta(doc, "citation_author")
    draft.doi = next(iter(_meta(doc, "citation_doi") + _meta(doc, "dc.identifier")), "")
    draft.licence = next(iter(_meta(doc, "dc.rights") + _meta(doc, "citation_license")), "")
    for element in list(doc.iter(*_DROP)):
        element.drop_tree()
    if not draft.title:
        title = doc.find(".//title")
        draft.title = " ".join(title.text_content().split()) if title is not None else ""
    title, paragraphs = "", list[str]()
    in_back = False
    for element in doc.iter(*_HEADINGS, "p", "li"):
        text = " ".join(element.text_content().split())
        if element.tag in _HEADINGS:
            if not draft.title:
                draft.title = text
                continue
            in_back = starts_back_matter(text)
            if in_back:
                continue
            if paragraphs:
                draft.sections.append(DraftSection(title, tuple(paragraphs)))
            title, paragraphs = text, []
        elif element.tag == "li" and element.getparent() is not None and element.find(".//p") is not None:
            continue  # its paragraphs are read on their own
        elif in_back:
            draft.references_stripped += 1
        elif text:
            paragraphs.append(text)
    if paragraphs:
        draft.sections.append(DraftSection(title, tuple(paragraphs)))
    return draft
