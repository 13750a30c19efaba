"""Markdown papers (markdown-it-py, CommonMark): the first heading is the title, later headings
start sections, paragraphs and list items are text; the references section and what follows are
dropped (their list items counted)."""

from __future__ import annotations

import re
from typing import Any

from markdown_it import MarkdownIt

from scicustom.core.papers.document import DraftSection, PaperDraft, UnreadablePaper
from scicustom.core.papers.reference_headings import starts_back_matter

_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>)\]]+)")


def _plain(token: Any) -> str:
    if not token.children:
        return str(token.content)
    return "".join(" " if c.type in ("softbreak", "hardbreak") else str(c.content) for c in token.children
                   if c.type in ("text", "code_inline", "softbreak", "hardbreak"))


def parse_markdown(data: bytes) -> PaperDraft:
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadablePaper(f"Markdown that is not UTF-8: {exc}") from None
    tokens = MarkdownIt("commonmark").parse(source)
    draft = PaperDraft("markdown")
    title, paragraphs = "", list[str]()
    in_heading = in_back = False
    for token in tokens:
        if token.type == "heading_open":
            in_heading = True
        elif token.type == "heading_close":
            in_heading = False
        elif token.type == "inline" and in_heading:
            heading = _plain(token).strip()
            if not draft.title:
                draft.title = heading
                continue
            if starts_back_matter(heading):
                in_back = True
            if in_back:
                continue
            if paragraphs:
                draft.sections.append(DraftSection(title, tuple(paragraphs)))
            title, paragraphs = heading, []
        elif token.type == "inline":
            text = " ".join(_plain(token).split())
            if in_back:
                draft.references_stripped += 1
            elif text:
                paragraphs.append(text)
    if paragraphs:
        draft.sections.append(DraftSection(title, tuple(paragraphs)))
    found = _DOI.search(source[:5000])
    if found:
        draft.doi = found.group(1).rstrip(".,;")
    if not draft.sections and not draft.title:
        raise UnreadablePaper("the Markdown document has no text")
    return draft
