"""What the redaction masks, and what it leaves readable."""

from __future__ import annotations

import pytest

from scicustom.telemetry.redaction import MASK, redact, register_secrets


@pytest.mark.parametrize(("text", "secret", "kept"), [
    ("GET https://user:hunter2pass@minio.local:9000/b", "hunter2pass", "https://***@minio.local:9000/b"),
    ("authorization: Bearer eyJhbGciOi.payload.sig", "eyJhbGciOi", "Bearer ***"),
    ("openai error: invalid key sk-proj-abcdef123456", "abcdef123456", "invalid key sk-***"),
    ("connect(api_key='abc123xyz', timeout=5)", "abc123xyz", "timeout=5"),
    ("password=Pa55word& user=bob", "Pa55word", "user=bob"),
])
def test_secret_shapes_are_masked(text: str, secret: str, kept: str) -> None:
    masked = redact(text)
    assert secret not in masked and MASK in masked and kept in masked


def test_known_values_are_masked_anywhere_and_ordinary_text_is_kept() -> None:
    register_secrets(["zq-known-value-981", None, "ab"])  # None and too-short values are ignored
    assert redact("minio said: zq-known-value-981 is wrong") == f"minio said: {MASK} is wrong"
    ordinary = "KeyError: 'k2' in build 7f3a; token count 12; the answer is about tabulated data"
    assert redact(ordinary) == ordinary
