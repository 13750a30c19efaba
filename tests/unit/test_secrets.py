"""Secrets stay secret: settings hide them, and no command line takes one."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from scicustom.cli import main
from scicustom.config import Settings, revealed

PLANTED = "sk-planted-7f3a9c"
SECRET_SETTINGS = ("llm_api_key", "s3_access_key", "s3_secret_key", "kafka_sasl_password", "elasticsearch_password")


def test_settings_never_show_a_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in SECRET_SETTINGS:
        monkeypatch.setenv(f"SCICUSTOM_{name.upper()}", PLANTED)
    settings = Settings()
    for shown in (repr(settings), str(settings), settings.model_dump_json(), str(settings.model_dump())):
        assert PLANTED not in shown
    assert all(revealed(getattr(settings, name)) == PLANTED for name in SECRET_SETTINGS)


def test_a_verbose_command_logs_no_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path))
    monkeypatch.setenv("SCICUSTOM_LLM_API_KEY", PLANTED)
    monkeypatch.setenv("SCICUSTOM_S3_SECRET_KEY", PLANTED)
    with caplog.at_level(logging.DEBUG):
        assert main(["-v", "--json", "papers", "list"]) == 0
    captured = capsys.readouterr()
    assert PLANTED not in captured.out + captured.err + caplog.text


def test_no_command_takes_a_key_as_an_argument(capsys: pytest.CaptureFixture[str]) -> None:
    """A key in argv is visible to every user of the machine (`ps`) and in shell history."""
    assert main(["score", "m2m", "--input", "x.csv", "--output", "y.json", "--llm-api-key", PLANTED]) == 2
    assert "unrecognized arguments" in capsys.readouterr().err
