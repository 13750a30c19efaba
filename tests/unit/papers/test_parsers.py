"""Each format read from real open papers (fetched at test time): metadata, sections with offsets,
references stripped, sentences; hostile and broken input refused with a reason."""

from __future__ import annotations

import gzip
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from pypdf import PdfReader, PdfWriter

from scicustom.core.papers.document import DraftSection, PaperDraft, ParsedPaper, UnreadablePaper, assemble
from scicustom.core.papers.formats import detect_format, parse_paper
from scicustom.core.papers.medline import split_medline
from scicustom.core.papers.sentences import split_sentences
from tests.support.real_papers import (
    JATS,
    MARKDOWN,
    MEDLINE_FILE,
    MEDLINE_SMALL,
    PDF,
    PDF_TEI,
    TEI,
    TEI_WITHDRAWN,
    member,
)


def _well_formed(paper: ParsedPaper) -> None:
    assert paper.text and paper.sections and paper.sentences
    for section in paper.sections:
        assert 0 <= section.start < section.end <= len(paper.text)
    for sentence in paper.sentences:
        section = paper.sections[sentence.section]
        assert section.start <= sentence.start < sentence.end <= section.end
        text = paper.sentence_text(sentence)
        assert text == text.strip() and text
    starts = [s.start for s in paper.sentences]
    assert starts == sorted(starts)
    assert ParsedPaper.from_record(paper.to_record()) == paper


def test_jats_full_text():
    paper = parse_paper(member("pubmed", JATS[0]), "pone.0046493.nxml")
    _well_formed(paper)
    assert paper.format == "jats"
    assert paper.title.startswith("MmPPOX Inhibits Mycobacterium tuberculosis Lipolytic Enzymes")
    assert paper.doi == "10.1371/journal.pone.0046493" and paper.pmid == "23029536"
    assert len(paper.authors) == 9
    assert "open-access" in paper.licence
    titles = [s.title for s in paper.sections]
    assert titles[0] == "Abstract" and any("Materials and Methods" in t for t in titles)
    assert paper.references_stripped > 20
    # Reference entries are not body text.
    assert not any(t.lower().startswith("references") for t in titles)


def test_every_jats_file_parses():
    for path in JATS:
        paper = parse_paper(member("pubmed", path), path)
        _well_formed(paper)
        assert paper.doi.startswith("10.") and paper.pmid


def test_medline_article_and_file_split():
    paper = parse_paper(member("pubmed", MEDLINE_SMALL), "pubmed-29768149.xml")
    _well_formed(paper)
    assert paper.format == "medline" and paper.pmid == "29768149"
    assert paper.doi == "10.1056/nejmoa1715274"
    assert paper.title.startswith("Inhaled Combined Budesonide-Formoterol")
    articles = []
    with gzip.open(io.BytesIO(member("pubmed", MEDLINE_FILE))) as stream:
        for n, article in enumerate(split_medline(stream)):
            articles.append(article)
            if n == 199:
                break
    parsed = []
    for article in articles:
        try:
            parsed.append(parse_paper(article, "a.xml"))
        except UnreadablePaper as exc:
            assert "no text" in str(exc)  # MEDLINE citations without an abstract
    assert len(parsed) > 50 and all(p.pmid and p.format == "medline" for p in parsed)


def test_tei_and_the_pdf_it_came_from():
    tei = parse_paper(member("grobid", PDF_TEI), "a.tei.xml")
    pdf = parse_paper(member("grobid", PDF), "a.pdf")
    for paper in (tei, pdf):
        _well_formed(paper)
        assert paper.doi == "10.1186/s12984-016-0129-6"
        assert paper.title.startswith("Multi-contact functional electrical stimulation for hand opening")
    assert tei.format == "tei" and pdf.format == "pdf"
    assert "creative commons" in pdf.licence.lower()
    assert tei.references_stripped > 20 and pdf.references_stripped > 20
    # The PDF's text and GROBID's share the paper's sentences.
    phrase = "Functional Electrical Stimulation (FES)"
    assert phrase in tei.text and phrase in pdf.text
    for path in TEI:
        _well_formed(parse_paper(member("grobid", path), path))


def test_markdown_and_html_of_the_same_paper():
    source = member("grobid", MARKDOWN)
    markdown = parse_paper(source, "ijms-24-05988.md")
    _well_formed(markdown)
    assert markdown.title.startswith("Variation in Lipid Species Profiles among Leukemic")
    html = MarkdownIt("commonmark").render(source.decode()).encode()
    page = b"<!DOCTYPE html><html><head><title>t</title><meta name='citation_doi' content='10.3390/ijms24065988'>" \
           b"<script>var x = 1;</script></head><body>" + html + b"</body></html>"
    parsed = parse_paper(page, "paper.html")
    _well_formed(parsed)
    assert parsed.format == "html" and parsed.doi == "10.3390/ijms24065988"
    assert "var x" not in parsed.text
    # The same paragraphs, whichever way the paper arrived.
    assert markdown.text[:2000] in parsed.text


def test_a_paper_without_text_is_refused():
    with pytest.raises(UnreadablePaper, match="no text"):
        parse_paper(member("grobid", TEI_WITHDRAWN), "withdrawn.tei.xml")


def test_corrupt_and_encrypted_pdfs_are_refused():
    data = member("grobid", PDF)
    with pytest.raises(UnreadablePaper, match="corrupt PDF"):
        parse_paper(data[: len(data) // 3], "cut.pdf")
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt("secret")
    out = io.BytesIO()
    writer.write(out)
    with pytest.raises(UnreadablePaper, match="encrypted"):
        parse_paper(out.getvalue(), "locked.pdf")


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE article [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<article><body><p>&lol3;</p></body></article>"""
EXTERNAL = b"""<?xml version="1.0"?><!DOCTYPE article [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<article><body><p>&x;</p></body></article>"""


def test_xml_bombs_and_external_entities_are_refused():
    for data in (BILLION_LAUGHS, EXTERNAL):
        with pytest.raises(UnreadablePaper, match="declares entities"):
            parse_paper(data, "bomb.xml")
    with pytest.raises(UnreadablePaper, match="malformed XML"):
        parse_paper(member("pubmed", JATS[0])[:5000], "cut.nxml")


def test_format_detection():
    assert detect_format(member("grobid", PDF), "x") == "pdf"
    assert detect_format(member("pubmed", JATS[0]), "x") == "jats"
    assert detect_format(member("grobid", PDF_TEI), "x") == "tei"
    assert detect_format(member("pubmed", MEDLINE_SMALL), "x") == "medline"
    assert detect_format(b"# Title\n\ntext", "x.md") == "markdown"
    with pytest.raises(UnreadablePaper, match="unknown paper format"):
        detect_format(b"\x00\x01\x02", "blob.bin")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=0, max_size=200),
                min_size=1, max_size=6))
def test_assembled_offsets_hold_for_any_text(paragraphs):
    draft = PaperDraft("markdown", title="t", sections=[DraftSection("S", tuple(paragraphs))])
    if not any(p.strip() for p in paragraphs):
        with pytest.raises(UnreadablePaper):
            assemble(draft)
        return
    paper = assemble(draft)
    assert paper.sections[0].start == 0 and paper.sections[0].end == len(paper.text)
    for sentence in paper.sentences:
        assert 0 <= sentence.start < sentence.end <= len(paper.text)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=400))
def test_sentence_spans_are_ordered_slices(text):
    previous = 0
    for start, end in split_sentences(text):
        assert previous <= start < end <= len(text)
        assert text[start:end] == text[start:end].strip()
        previous = end
