"""MEDLINE / PubMed XML: one `PubmedArticle` is one paper (title, authors, ids, abstract)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

from lxml import etree

from scicustom.core.papers.document import DraftSection, PaperDraft, UnreadablePaper
from scicustom.core.papers.safe_xml import children, descendants, first, text_of

MEDLINE_LICENCE = "MEDLINE abstract (copyright of the publisher; NLM terms)"


def parse_medline(root: Any) -> PaperDraft:
    """The first PubmedArticle of a PubmedArticleSet (or the article element itself)."""
    article = root if root.tag == "PubmedArticle" else first(root, "PubmedArticle")
    if article is None:
        raise UnreadablePaper("a MEDLINE document without a PubmedArticle")
    draft = PaperDraft("medline", licence=MEDLINE_LICENCE)
    citation = first(article, "MedlineCitation")
    if citation is None:
        raise UnreadablePaper("a PubmedArticle without MedlineCitation")
    pmid = first(citation, "PMID")
    draft.pmid = text_of(pmid) if pmid is not None else ""
    body = first(citation, "Article")
    if body is not None:
        title = first(body, "ArticleTitle")
        draft.title = text_of(title) if title is not None else ""
        for author in descendants(body, "Author"):
            fore, last = first(author, "ForeName"), first(author, "LastName")
            collective = first(author, "CollectiveName")
            name = " ".join(text_of(n) for n in (fore, last) if n is not None)
            draft.authors.append(name or (text_of(collective) if collective is not None else ""))
        for location in children(body, "ELocationID"):
            if location.get("EIdType") == "doi":
                draft.doi = text_of(location)
        abstract = first(body, "Abstract")
        if abstract is not None:
            for part in children(abstract, "AbstractText"):
                label = part.get("Label") or "Abstract"
                draft.sections.append(DraftSection(str(label).title(), (text_of(part),)))
    if not draft.doi:
        for article_id in descendants(article, "ArticleId"):
            if article_id.get("IdType") == "doi":
                draft.doi = text_of(article_id)
                break
    return draft


def split_medline(stream: IO[bytes]) -> Iterator[bytes]:
    """Each PubmedArticle of a (decompressed) MEDLINE file as a document of its own, streamed."""
    context = etree.iterparse(stream, events=("end",), tag="PubmedArticle", resolve_entities=False,
                              no_network=True, huge_tree=False, load_dtd=False, remove_comments=True)
    try:
        for _, element in context:
            yield b"<PubmedArticleSet>" + etree.tostring(element) + b"</PubmedArticleSet>"
            element.clear()
            parent = element.getparent()
            while parent is not None and element.getprevious() is not None:
                del parent[0]
    except etree.XMLSyntaxError as exc:
        raise UnreadablePaper(f"malformed MEDLINE file: {exc}") from None
