"""Roles and expiry of bearer tokens (grpc_server/auth_tokens.py, authorisation.py): the RPCs that
change state every tenant shares answer PERMISSION_DENIED to a tenant's token and run for an admin's;
an expired token is UNAUTHENTICATED; a tokens file written before roles keeps working."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import grpc
import pytest
from google.protobuf import descriptor_pool

from scicustom.builds.v1 import builds_pb2
from scicustom.cli import main
from scicustom.core.errors import InvalidInput
from scicustom.grpc_server.auth_tokens import (
    Role,
    TokenRecord,
    lifetime,
    new_token,
    parse_tokens,
    token_digest,
    token_line,
)
from scicustom.grpc_server.authentication import AuthenticationInterceptor, TokenFile, current_tenant
from scicustom.grpc_server.authorisation import ADMIN_METHODS
from scicustom.grpc_server.server import ServiceBinding
from scicustom.ingest.v1 import ingest_pb2
from scicustom.ontology.servicer import binding as ontology_binding
from scicustom.ontology.v1 import ontology_pb2, ontology_pb2_grpc
from tests.support.grpc_loopback import loopback, rpc_error
from tests.support.tenant_tokens import tenants
from tests.unit.grpc_services.corpus_home import empty_home

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


def _method_descriptor(method: str):
    service, name = method.lstrip("/").split("/")
    return descriptor_pool.Default().FindServiceByName(service).methods_by_name.get(name)


def test_the_guarded_methods_are_real_rpcs_and_cover_every_shared_state_change():
    assert builds_pb2 and ontology_pb2  # their services are in the descriptor pool
    missing = [m for m in ADMIN_METHODS if _method_descriptor(m) is None]
    assert missing == []  # a renamed RPC must not fall out of the guard unnoticed
    ingest = ingest_pb2.DESCRIPTOR.services_by_name["IngestService"]
    assert {f"/{ingest.full_name}/{m.name}" for m in ingest.methods} <= ADMIN_METHODS
    assert {"/scicustom.ontology.v1.OntologyService/ImportOntology",
            "/scicustom.builds.v1.BuildService/RedriveDeadLetters"} <= ADMIN_METHODS
    assert "/scicustom.ontology.v1.OntologyService/ListUnits" not in ADMIN_METHODS


def _recording_bindings(methods: list[str], calls: list[tuple[str, str]]) -> list[ServiceBinding]:
    """Raw-bytes handlers registered under the real service and method names."""
    by_service: dict[str, dict[str, grpc.RpcMethodHandler]] = {}
    for method in methods:
        service, name = method.lstrip("/").split("/")

        def handler(request: bytes, context: grpc.ServicerContext, method: str = method) -> bytes:
            calls.append((method, current_tenant()))
            return current_tenant().encode()
        by_service.setdefault(service, {})[name] = grpc.unary_unary_rpc_method_handler(handler)
    bindings = []
    for service, handlers in by_service.items():
        generic = grpc.method_handlers_generic_handler(service, handlers)
        bindings.append(ServiceBinding(service, lambda server, g=generic: server.add_generic_rpc_handlers((g,))))
    return bindings


def test_each_shared_state_rpc_is_denied_to_a_tenant_and_allowed_to_an_admin(tmp_path):
    known = tenants(tmp_path, "acme", admins=("ops",))
    open_method = "/scicustom.ontology.v1.OntologyService/ListUnits"
    calls: list[tuple[str, str]] = []
    with loopback(_recording_bindings([*sorted(ADMIN_METHODS), open_method], calls),
                  interceptors=known.interceptors()) as channel:
        for method in sorted(ADMIN_METHODS):
            error = rpc_error(lambda: channel.unary_unary(method)(b"", metadata=known.metadata("acme"),  # noqa: B023
                                                                  timeout=5))
            assert error.code() == grpc.StatusCode.PERMISSION_DENIED, method
            assert error.details() == (f"{method.lstrip('/')} changes state shared by every tenant and needs a "
                                       "token with the admin role")
            assert calls == []  # refused before the handler
        for method in sorted(ADMIN_METHODS):
            assert channel.unary_unary(method)(b"", metadata=known.metadata("ops"), timeout=5) == b"ops"
        assert channel.unary_unary(open_method)(b"", metadata=known.metadata("acme"), timeout=5) == b"acme"
    assert calls == [(m, "ops") for m in sorted(ADMIN_METHODS)] + [(open_method, "acme")]


def test_import_ontology_on_the_real_servicer_needs_the_admin_role(tmp_path):
    known = tenants(tmp_path, "acme", admins=("ops",))
    request = ontology_pb2.ImportOntologyRequest(
        file=ontology_pb2.OntologyFile(name="t", format=ontology_pb2.ONTOLOGY_FILE_FORMAT_OBO))
    with loopback([ontology_binding(empty_home(tmp_path))], interceptors=known.interceptors()) as channel:
        stub = ontology_pb2_grpc.OntologyServiceStub(channel)
        denied = rpc_error(lambda: stub.ImportOntology(request, metadata=known.metadata("acme"), timeout=10))
        assert denied.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "scicustom.ontology.v1.OntologyService/ImportOntology" in denied.details()
        # The admin's call reaches the servicer, whose validation answers it.
        reached = rpc_error(lambda: stub.ImportOntology(request, metadata=known.metadata("ops"), timeout=10))
        assert (reached.code(), reached.details()) == (grpc.StatusCode.INVALID_ARGUMENT, "file.content: is empty")
        listed = stub.ListUnits(ontology_pb2.ListUnitsRequest(), metadata=known.metadata("acme"), timeout=10)
        assert listed.units  # reading the shared ontology stays open to tenants


def test_a_tokens_file_without_roles_keeps_working_as_tenants():
    token = new_token()
    old_file = f"acme {token_digest(token)}\n"
    assert parse_tokens(old_file).record_of(token) == TokenRecord("acme", Role.TENANT, None)
    assert token_line("acme", token) == old_file.strip()  # a tenant's line is written as before


def test_roles_and_expiries_in_lines_yaml_and_json():
    admin, tenant, other = new_token(), new_token(), new_token()
    lines = (f"{token_line('ops', admin, Role.ADMIN)}\n"
             f"acme {token_digest(tenant)} expires=2027-01-31T00:00:00+01:00  # until then\n")
    as_yaml = (f"ops:\n  - {{digest: {token_digest(admin)}, role: admin}}\n"
               f"acme:\n  - digest: {token_digest(tenant)}\n    expires_at: 2027-01-30T23:00:00Z\n")
    as_json = json.dumps({"ops": [{"digest": token_digest(admin), "role": "admin"}],
                          "acme": [{"digest": token_digest(tenant), "expires_at": "2027-01-30T23:00:00Z"}]})
    for text in (lines, as_yaml, as_json):
        table = parse_tokens(text)
        assert table.record_of(admin) == TokenRecord("ops", Role.ADMIN, None)
        assert table.record_of(tenant) == TokenRecord("acme", Role.TENANT, datetime(2027, 1, 30, 23, tzinfo=UTC))
        assert table.record_of(other) is None
        assert (table.count(Role.ADMIN), table.expired(datetime(2027, 1, 31, tzinfo=UTC))) == (1, 1)


@pytest.mark.parametrize(("text", "message"), [
    (f"acme {'0' * 64} role=root\n", "line 1: role 'root' is not one of tenant, admin"),
    (f"acme {'0' * 64} expires=soon\n", "line 1: expiry 'soon' is not an ISO 8601 time"),
    (f"acme {'0' * 64} expires=2027-01-01T00:00:00\n", "line 1: expiry '2027-01-01T00:00:00' has no time zone"),
    (f"acme {'0' * 64} admin\n", "line 1: 'admin' is not role=<role> or expires=<time>"),
    (f"acme {'0' * 64} role=admin expires=2027-01-01T00:00:00Z x=1\n", "line 1: expected"),
    (f"acme {'0' * 64}\nacme {'0' * 64} role=admin\n", "line 2: the same token is listed twice for tenant 'acme'"),
    (f"acme:\n  - {{digest: '{'0' * 64}', rol: admin}}\n", "tenant 'acme' entry 1: unknown key 'rol'"),
    (f"acme:\n  - {{digest: '{'0' * 64}', expires_at: 2027-01-01}}\n", "entry 1: expiry '2027-01-01' has no time zone"),
])
def test_a_bad_role_or_expiry_is_refused_naming_the_line(text, message):
    with pytest.raises(InvalidInput, match=message.replace("[", r"\[")):
        parse_tokens(text)


def test_lifetimes():
    assert lifetime("30d") == timedelta(days=30)
    assert lifetime("12h") == timedelta(hours=12)
    assert lifetime("90m") == timedelta(minutes=90)
    assert lifetime("45s") == timedelta(seconds=45)
    for bad in ("", "0d", "-1d", "3w", "1.5d", "d"):
        with pytest.raises(InvalidInput, match=r"--expires-in: .* is not a lifetime"):
            lifetime(bad)


def test_an_expired_token_is_unauthenticated_and_rotation_needs_no_restart(tmp_path):
    clock = [NOW]
    old, new = new_token(), new_token()
    path = tmp_path / "tokens"
    path.write_text(token_line("acme", old, expires_at=NOW + timedelta(hours=1)) + "\n")
    token_file = TokenFile(path, min_interval_s=0.0)
    from scicustom.commands.service import server_interceptors

    chain = server_interceptors(authentication=AuthenticationInterceptor(token_file, now=lambda: clock[0]))
    calls: list[tuple[str, str]] = []
    method = "/scicustom.ontology.v1.OntologyService/ListUnits"
    bearer = lambda token: [("authorization", f"Bearer {token}")]  # noqa: E731
    with loopback(_recording_bindings([method], calls), interceptors=chain) as channel:
        call = channel.unary_unary(method)
        assert call(b"", metadata=bearer(old), timeout=5) == b"acme"
        clock[0] = NOW + timedelta(hours=1)  # expiry is exclusive: at that instant the token is refused
        error = rpc_error(lambda: call(b"", metadata=bearer(old), timeout=5))
        assert (error.code(), error.details()) == (grpc.StatusCode.UNAUTHENTICATED,
                                                   "token expired at 2026-11-26T13:00:00Z")
        # Rotation: the new token's line is added to the same file; the server picks it up as it runs.
        with path.open("a") as handle:
            handle.write(token_line("acme", new, expires_at=NOW + timedelta(days=30)) + "\n")
        assert call(b"", metadata=bearer(new), timeout=5) == b"acme"
        assert rpc_error(lambda: call(b"", metadata=bearer(old), timeout=5)).code() == grpc.StatusCode.UNAUTHENTICATED
    assert calls == [(method, "acme"), (method, "acme")]


def test_auth_token_mints_an_admin_token_with_an_expiry(tmp_path, capsys):
    path = tmp_path / "tokens"
    assert main(["--json", "auth", "token", "--tenant", "ops", "--admin", "--expires-in", "30d",
                 "--append", str(path)]) == 0
    made = json.loads(capsys.readouterr().out)
    expires = datetime.fromisoformat(made["expires_at"])
    assert timedelta(days=30) - timedelta(minutes=5) < expires - datetime.now(UTC) <= timedelta(days=30)
    assert made["role"] == "admin"
    assert made["line"] == f"ops {token_digest(made['token'])} role=admin expires={made['expires_at']}"
    assert TokenFile(path).record_of(made["token"]) == TokenRecord("ops", Role.ADMIN, expires)
    assert main(["auth", "token", "--tenant", "acme", "--append", str(path)]) == 0
    capsys.readouterr()
    assert main(["auth", "check", str(path)]) == 0
    assert capsys.readouterr().out.strip() == f"{path}: 2 tokens of 2 tenants (acme, ops); 1 admin"
    assert main(["auth", "token", "--tenant", "acme", "--expires-in", "3w"]) == 2
    assert "--expires-in: '3w' is not a lifetime" in capsys.readouterr().err
