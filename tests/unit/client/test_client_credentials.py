"""The SDK and the CLI carry a bearer token: a client made without options reads SCICUSTOM_AUTH_TOKEN,
the CLI's `remote` commands take it from their settings, and a refused token is one clear error."""

from __future__ import annotations

import pytest

from scicustom.builds.servicer import binding
from scicustom.cli import main
from scicustom.client import BuildsClient, ClientOptions, UnauthenticatedError
from scicustom.client.environment_options import options_from_environment
from scicustom.grpc_server.server import start_server
from scicustom.workers.envelopes import envelope
from tests.support.tenant_tokens import tenants
from tests.unit.client.conftest import BUILD_OPTIONS
from tests.unit.workers.conftest import TEXT


@pytest.fixture
def address(ctx, tmp_path):
    known = tenants(tmp_path, "acme")
    server, _, port = start_server([binding(ctx)], "127.0.0.1", 0, max_message_bytes=1 << 24,
                                   interceptors=known.interceptors())
    try:
        yield f"127.0.0.1:{port}", known.tokens["acme"]
    finally:
        server.stop(None)


def test_a_client_without_options_sends_the_token_of_the_environment(address, monkeypatch):
    address, token = address
    monkeypatch.setenv("SCICUSTOM_AUTH_TOKEN", token)
    with BuildsClient(address) as builds:
        build = builds.create(TEXT, **BUILD_OPTIONS)
        assert [b.build_id for b in builds.list().builds] == [build.build_id]
    monkeypatch.delenv("SCICUSTOM_AUTH_TOKEN")
    with BuildsClient(address) as builds, pytest.raises(UnauthenticatedError) as refused:
        builds.list()
    assert str(refused.value).startswith(f"BuildService at {address} refused the call: missing or malformed")
    with BuildsClient(address, ClientOptions(metadata=lambda: [("authorization", "Bearer sct_revoked")])) as builds, \
            pytest.raises(UnauthenticatedError, match="unknown bearer token"):
        builds.list()


def test_the_remote_cli_takes_the_token_from_its_settings(address, monkeypatch, capsys):
    address, token = address
    monkeypatch.setenv("SCICUSTOM_BUILD_SERVICE_ADDRESS", address)
    monkeypatch.delenv("SCICUSTOM_AUTH_TOKEN", raising=False)
    assert main(["remote", "list"]) == 2
    assert "refused the call" in capsys.readouterr().err
    monkeypatch.setenv("SCICUSTOM_AUTH_TOKEN", token)
    assert main(["--json", "remote", "list"]) == 0
    assert '"builds": []' in capsys.readouterr().out


def test_environment_options_without_settings_are_plain_and_tokenless():
    options = options_from_environment({})
    assert options.metadata is None and not options.secure
    hook = options_from_environment({"SCICUSTOM_AUTH_TOKEN": "sct_abc\n"}).metadata
    assert hook is not None and list(hook()) == [("authorization", "Bearer sct_abc")]
    assert envelope("build.requested", build_id="b1", tenant="acme").event_id != \
        envelope("build.requested", build_id="b1").event_id == envelope("build.requested", build_id="b1",
                                                                          tenant="local").event_id
