"""PDF papers (pypdf): text per page, metadata from the document info and the first page; section
headings found by their shape (numbered or well-known names on a line of their own); everything
from the references heading on is dropped. Encrypted or corrupt files are UnreadablePaper."""

from __future__ import annotations

import io
import logging
import re

from pypdf import PdfReader
from pypdf.errors import PdfReadError, PyPdfError

from scicustom.core.papers.document import DraftSection, PaperDraft, UnreadablePaper
from scicustom.core.papers.reference_headings import starts_back_matter

MAX_PAGES = 500
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)")
_KNOWN = re.compile(r"^(?:\d+(?:\.\d+)*\.?\s+)?(abstract|introduction|background|methods?|materials and methods|"
                    r"experimental(?: section)?|results(?: and discussion)?|discussion|conclusions?|"
                    r"acknowledge?ments?|summary)\s*$", re.IGNORECASE)
_NUMBERED = re.compile(r"^\d+(?:\.\d+)*\.?\s+[A-Z][A-Za-z ,\-]{2,60}$")
_LICENCE = re.compile(r"(creative commons[^.\n]*|CC[ -]BY(?:[- ](?:NC|SA|ND))*(?:[ -]\d\.\d)?)", re.IGNORECASE)


def _is_heading(line: str) -> bool:
    return bool(_KNOWN.match(line) or starts_back_matter(line) or (_NUMBERED.match(line) and len(line) < 70))


def _join_lines(lines: list[str]) -> str:
    text = ""
    for line in lines:
        hyphenated = text.endswith("-") and line[:1].islower()  # a word broken across lines
        text = text[:-1] + line if hyphenated else (f"{text} {line}" if text else line)
    return text


def parse_pdf(data: bytes) -> PaperDraft:
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # font-encoding notes are not the caller's business
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            raise UnreadablePaper("the PDF is encrypted")
        if len(reader.pages) > MAX_PAGES:
            raise UnreadablePaper(f"the PDF has {len(reader.pages)} pages, above the limit {MAX_PAGES}")
        pages = [page.extract_text() or "" for page in reader.pages]
        info = reader.metadata
    except UnreadablePaper:
        raise
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, OSError, RecursionError) as exc:
        raise UnreadablePaper(f"corrupt PDF: {type(exc).__name__}: {exc}") from None
    draft = PaperDraft("pdf")
    if info is not None and info.title:
        draft.title = str(info.title)
    if info is not None and info.author:
        draft.authors = [a.strip() for a in re.split(r";|,| and ", str(info.author)) if a.strip()]
    head = "\n".join(pages[:2])
    found = _DOI.search(head)
    if found:
        draft.doi = found.group(1).rstrip(".,;")
    licence = _LICENCE.search(head)
    if licence:
        draft.licence = " ".join(licence.group(1).split())
    lines = [" ".join(line.split()) for page in pages for line in page.splitlines()]
    lines = [line for line in lines if line]
    if not draft.title and lines:
        draft.title = lines[0]
    title, paragraph_lines = "", list[str]()
    paragraphs: list[str] = []
    in_back = False
    for line in lines:
        if _is_heading(line):
            if paragraph_lines:
                paragraphs.append(_join_lines(paragraph_lines))
                paragraph_lines = []
            if in_back:
                continue
            if starts_back_matter(line):
                in_back = True
            if paragraphs:
                draft.sections.append(DraftSection(title, tuple(paragraphs)))
            title, paragraphs = line, []
            continue
        if in_back:
            draft.references_stripped += 1
            continue
        paragraph_lines.append(line)
        if line.endswith((".", "?", "!")) and len(line) < 60:  # a short last line ends a paragraph
            paragraphs.append(_join_lines(paragraph_lines))
            paragraph_lines = []
    if paragraph_lines and not in_back:
        paragraphs.append(_join_lines(paragraph_lines))
    if paragraphs and not in_back:
        draft.sections.append(DraftSection(title, tuple(paragraphs)))
    return draft
