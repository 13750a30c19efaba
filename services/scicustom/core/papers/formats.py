"""Which parser reads a paper: by content first (magic bytes, XML root), the file name second."""

from __future__ import annotations

import re

from scicustom.core.papers.document import ParsedPaper, UnreadablePaper, assemble
from scicustom.core.papers.html_paper import parse_html
from scicustom.core.papers.jats import parse_jats
from scicustom.core.papers.markdown_paper import parse_markdown
from scicustom.core.papers.medline import parse_medline
from scicustom.core.papers.pdf_paper import parse_pdf
from scicustom.core.papers.safe_xml import local, parse_xml
from scicustom.core.papers.tei import parse_tei

FORMATS = ("pdf", "jats", "tei", "medline", "markdown", "html")
_HTML = re.compile(rb"^\s*(<!doctype html|<html)", re.IGNORECASE)
_XML = re.compile(rb"^\s*(<\?xml|<!DOCTYPE|<[A-Za-z])")


def detect_format(data: bytes, file_name: str = "") -> str:
    """One of FORMATS; UnreadablePaper when neither the bytes nor the name tell."""
    head = data[:2048].lstrip(b"\xef\xbb\xbf")
    name = file_name.lower()
    if head.startswith(b"%PDF-"):
        return "pdf"
    if _HTML.match(head) or name.endswith((".html", ".htm")):
        return "html"
    if name.endswith((".md", ".markdown")):
        return "markdown"
    if _XML.match(head):
        if b"<PubmedArticle" in data[:8192]:
            return "medline"
        if b"<TEI" in data[:8192] or b"tei-c.org" in data[:8192]:
            return "tei"
        if b"<article" in data[:16384]:
            return "jats"
        return "xml"
    if name.endswith(".pdf"):
        return "pdf"
    if name.endswith((".txt", ".text")) or head.startswith(b"#"):
        return "markdown"  # plain text reads as Markdown paragraphs
    raise UnreadablePaper(f"unknown paper format (file name {file_name!r}); "
                          f"give one of: {', '.join(FORMATS)}")


def parse_paper(data: bytes, file_name: str = "") -> ParsedPaper:
    """The parsed paper; UnreadablePaper with the reason for bad input (never a partial result)."""
    if not data.strip():
        raise UnreadablePaper("the paper is empty")
    kind = detect_format(data, file_name)
    if kind == "pdf":
        draft = parse_pdf(data)
    elif kind == "markdown":
        draft = parse_markdown(data)
    elif kind == "html":
        draft = parse_html(data)
    else:
        root = parse_xml(data)
        name = local(root.tag)
        if name in ("PubmedArticleSet", "PubmedArticle"):
            draft = parse_medline(root)
        elif name == "TEI":
            draft = parse_tei(root)
        elif name == "article":
            draft = parse_jats(root)
        else:
            raise UnreadablePaper(f"XML root <{name}> is none of JATS <article>, TEI, MEDLINE <PubmedArticleSet>")
    return assemble(draft)
