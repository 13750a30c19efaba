from __future__ import annotations

import csv
import io
from collections.abc import Mapping

import pytest

from scicustom.app.scoring.m2m import load_vocabulary
from scicustom.core.m2m.records import M2MRecords, records_from_csv
from scicustom.core.m2m.vocabulary import M2MVocabulary


@pytest.fixture(scope="session")
def vocabulary() -> M2MVocabulary:
    return load_vocabulary()


def csv_records(rows: list[Mapping[str, str]], vocabulary: M2MVocabulary, **kwargs: bool) -> M2MRecords:
    """Rows written as a CSV and read back the way the reference reads its input."""
    names = list(dict.fromkeys(name for row in rows for name in row))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=names)
    writer.writeheader()
    writer.writerows(rows)
    return records_from_csv(buffer.getvalue().encode("utf-8"), vocabulary.text_columns, **kwargs)
