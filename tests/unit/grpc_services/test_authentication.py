"""Bearer-token authentication of every RPC (grpc_server/authentication.py): the tokens file, the
interceptor on a loopback server, rotation without a restart, and when a service refuses to start."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2

from scicustom.cli import main
from scicustom.commands.service import server_interceptors
from scicustom.config import Settings
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.grpc_server.auth_tokens import Role, new_token, parse_tokens, token_digest, token_line
from scicustom.grpc_server.authentication import (
    AuthenticationInterceptor,
    TokenFile,
    authentication_for,
    bearer_token,
    current_tenant,
)
from tests.support.grpc_loopback import (
    PROBE_SERVICE,
    health_status,
    loopback,
    probe_binding,
    reflected_services,
    rpc_error,
)
from tests.support.tenant_tokens import tenants


def test_tokens_file_lines_yaml_and_json_map_digests_to_tenants():
    a, b, c = new_token(), new_token(), new_token()
    lines = f"# rotation under way: two tokens of acme\n{token_line('acme', a)}\nacme sha256:{token_digest(b)}  # new\n"
    assert {parse_tokens(lines).tenant_of(t) for t in (a, b, c)} == {"acme", None}
    as_yaml = f"# tenant -> digests\nacme:\n  - {token_digest(a)}\nglobex: {token_digest(c)}\n"
    as_json = json.dumps({"acme": [token_digest(a)], "globex": [token_digest(c)]})
    for text in (as_yaml, as_json):
        table = parse_tokens(text)
        assert (table.tenant_of(a), table.tenant_of(c), table.tenant_of(b)) == ("acme", "globex", None)
    assert parse_tokens("").records_by_digest == {}


@pytest.mark.parametrize(("text", "message"), [
    ("acme not-a-digest\n", "auth_tokens_file: line 1: not a SHA-256 hex digest"),
    ("acme\n", "auth_tokens_file: line 1: expected `<tenant> <sha256 of the token> [role=admin] [expires=<time>]`"),
    (f"local {'0' * 64}\n", "'local' is reserved"),
    (f"Acme {'0' * 64}\n", "is not a tenant id"),
    (f"acme {'0' * 64}\nglobex {'0' * 64}\n", "line 2: the same token is listed for tenants 'acme' and 'globex'"),
    ("acme: [1, 2]\n", "tenant 'acme' entry 1: not a SHA-256 hex digest"),
    ("{acme: [\n", "is not valid YAML/JSON"),
])
def test_a_bad_tokens_file_is_refused_naming_the_line(text, message):
    with pytest.raises(InvalidInput, match=message.replace("[", r"\[").replace("`", ".")):
        parse_tokens(text)


@pytest.mark.parametrize(("metadata", "token"), [
    ([("authorization", "Bearer abc")], "abc"),
    ([("authorization", "bearer  abc ")], "abc"),
    ([], None),
    ([("authorization", "Basic abc")], None),
    ([("authorization", "Bearer")], None),
    ([("authorization", "Bearer a b")], None),
    ([("authorization", "Bearer a"), ("authorization", "Bearer b")], None),  # ambiguous
])
def test_bearer_token_from_metadata(metadata, token):
    assert bearer_token(metadata) == token


def _probe(calls: list[str]):
    def tenant(request: bytes, context: grpc.ServicerContext) -> bytes:
        calls.append(current_tenant())
        return current_tenant().encode()

    def tenants_stream(request: bytes, context: grpc.ServicerContext):
        calls.append(current_tenant())
        yield current_tenant().encode()
        yield current_tenant().encode()

    return probe_binding({"Tenant": tenant}, {"Stream": tenants_stream})


def _call(channel: grpc.Channel, metadata=None) -> bytes:
    return channel.unary_unary(f"/{PROBE_SERVICE}/Tenant")(b"", metadata=metadata, timeout=5)


def _stream(channel: grpc.Channel, metadata=None) -> list[bytes]:
    return list(channel.unary_stream(f"/{PROBE_SERVICE}/Stream")(b"", metadata=metadata, timeout=5))


def test_every_rpc_needs_a_known_token_and_the_handler_sees_its_tenant(tmp_path):
    known = tenants(tmp_path, "acme", "globex")
    calls: list[str] = []
    with loopback([_probe(calls)], interceptors=known.interceptors()) as channel:
        for refused in (None, [("authorization", "Bearer " + new_token())], [("authorization", "Basic x")],
                        [("authorization", known.tokens["acme"])]):
            for call in (_call, _stream):
                error = rpc_error(lambda: call(channel, refused))  # noqa: B023
                assert error.code() == grpc.StatusCode.UNAUTHENTICATED, error.details()
        assert calls == []  # no refused call reached a handler
        assert _call(channel, known.metadata("acme")) == b"acme"
        assert _stream(channel, known.metadata("globex")) == [b"globex", b"globex"]
        # Health checking and reflection answer without a token.
        assert health_status(channel, "") == health_pb2.HealthCheckResponse.SERVING
        assert PROBE_SERVICE in reflected_services(channel)
    assert calls == ["acme", "globex"]
    assert current_tenant() == "local"  # nothing leaked into this thread


def _swap_like_kubelet(mount: Path, text: str, generation: int) -> None:
    """A Secret volume update: a new timestamped folder, then `..data` swapped to it atomically."""
    folder = mount / f"..{generation}"
    folder.mkdir()
    (folder / "tokens").write_text(text)
    link = mount / "..data_tmp"
    link.symlink_to(folder.name)
    os.replace(link, mount / "..data")


def test_rotation_takes_effect_without_a_restart_and_a_bad_file_keeps_the_last_good_set(tmp_path, caplog):
    mount = tmp_path / "secret"
    mount.mkdir()
    old, new = new_token(), new_token()
    _swap_like_kubelet(mount, token_line("acme", old) + "\n", 1)
    (mount / "tokens").symlink_to("..data/tokens")
    token_file = TokenFile(mount / "tokens", min_interval_s=0.0)
    bearer = lambda token: [("authorization", f"Bearer {token}")]  # noqa: E731
    chain = server_interceptors(authentication=AuthenticationInterceptor(token_file))
    with loopback([_probe([])], interceptors=chain) as channel:
        assert _call(channel, bearer(old)) == b"acme"
        _swap_like_kubelet(mount, token_line("acme", new) + "\n", 2)
        assert _call(channel, bearer(new)) == b"acme"
        assert rpc_error(lambda: _call(channel, bearer(old))).code() == grpc.StatusCode.UNAUTHENTICATED
        with caplog.at_level(logging.ERROR, logger="scicustom.grpc_server.authentication"):
            _swap_like_kubelet(mount, "acme not-a-digest\n", 3)
            assert _call(channel, bearer(new)) == b"acme"  # never opened, never locked out
        assert "line 1: not a SHA-256 hex digest" in caplog.text and "keeping the 1 tokens read before" in caplog.text
        assert new not in caplog.text and token_digest(new) not in caplog.text


def test_the_file_is_looked_at_at_most_every_interval(tmp_path):
    now = [0.0]
    path = tmp_path / "tokens"
    first, second = new_token(), new_token()
    path.write_text(token_line("acme", first) + "\n")
    token_file = TokenFile(path, min_interval_s=5.0, clock=lambda: now[0])
    path.write_text(token_line("globex", second) + "\n")
    now[0] = 4.0
    assert (token_file.tenant_of(first), token_file.tenant_of(second)) == ("acme", None)
    now[0] = 5.5
    assert (token_file.tenant_of(first), token_file.tenant_of(second)) == (None, "globex")


def test_which_profile_needs_what(tmp_path):
    path = tmp_path / "tokens"
    path.write_text(token_line("acme", new_token()) + "\n")
    assert authentication_for(Settings(profile="local")) is None
    assert authentication_for(Settings(profile="cluster", auth_disabled=True)) is None
    assert isinstance(authentication_for(Settings(profile="cluster", auth_tokens_file=path)),
                      AuthenticationInterceptor)
    assert isinstance(authentication_for(Settings(profile="local", auth_tokens_file=path)),
                      AuthenticationInterceptor)
    with pytest.raises(PreconditionFailed, match="the cluster profile authenticates every RPC"):
        authentication_for(Settings(profile="cluster"))
    with pytest.raises(PreconditionFailed, match="contradict"):
        authentication_for(Settings(profile="cluster", auth_tokens_file=path, auth_disabled=True))
    with pytest.raises(PreconditionFailed, match="cannot read"):
        authentication_for(Settings(profile="cluster", auth_tokens_file=tmp_path / "missing"))


def test_a_cluster_service_without_tokens_refuses_to_start(monkeypatch, capsys):
    monkeypatch.delenv("SCICUSTOM_AUTH_TOKENS_FILE", raising=False)
    monkeypatch.delenv("SCICUSTOM_AUTH_DISABLED", raising=False)
    assert main(["--profile", "cluster", "service", "ontology", "--port", "0"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("scicustom: error: the cluster profile authenticates every RPC: set "
                           "SCICUSTOM_AUTH_TOKENS_FILE")


def test_auth_token_command_prints_a_token_whose_line_lets_it_in(tmp_path, capsys):
    path = tmp_path / "tokens"
    assert main(["auth", "token", "--tenant", "acme", "--append", str(path)]) == 0
    token = capsys.readouterr().out.strip()
    assert main(["--json", "auth", "token", "--tenant", "globex", "--append", str(path)]) == 0
    made = json.loads(capsys.readouterr().out)
    assert made["line"] == f"globex {token_digest(made['token'])}"
    table = TokenFile(path).table
    assert (table.tenant_of(token), table.tenant_of(made["token"])) == ("acme", "globex")
    assert token not in path.read_text()  # the file holds digests only
    assert main(["auth", "check", str(path)]) == 0
    assert capsys.readouterr().out.strip() == f"{path}: 2 tokens of 2 tenants (acme, globex)"
    assert main(["auth", "token", "--tenant", "local"]) == 2
    assert "'local' is reserved" in capsys.readouterr().err
    path.write_text("acme nope\n")
    assert main(["auth", "check", str(path)]) == 2
    assert main(["auth", "token", "--tenant", "acme", "--append", str(path)]) == 2  # never appends to a bad file
    assert path.read_text() == "acme nope\n"


def test_a_local_cluster_gets_a_fresh_token_its_services_accept(tmp_path):
    from scicustom.devstack.platform_processes import DEV_TENANT, dev_credentials

    env = dev_credentials(tmp_path / "home")
    path = Path(env["SCICUSTOM_AUTH_TOKENS_FILE"])
    assert TokenFile(path).tenant_of(env["SCICUSTOM_AUTH_TOKEN"]) == DEV_TENANT
    assert TokenFile(path).record_of(env["SCICUSTOM_AUTH_TOKEN"]).role is Role.ADMIN  # its one user operates it
    assert path.stat().st_mode & 0o777 == 0o600 and env["SCICUSTOM_AUTH_TOKEN"] not in path.read_text()
    assert dev_credentials(tmp_path / "home")["SCICUSTOM_AUTH_TOKEN"] != env["SCICUSTOM_AUTH_TOKEN"]


def test_a_token_is_masked_wherever_it_would_be_logged():
    from scicustom.telemetry.redaction import redact

    token = new_token()
    assert token not in redact(f"client sent {token}; header authorization=Bearer {token}")
