"""Mutual TLS of the gRPC services (grpc_server/tls.py) with the SDK's TLS options
(client/environment_options.py): a caller needs a certificate of the client CA and a token; health
checks get a plaintext port of their own; renewed certificate files are picked up."""

from __future__ import annotations

import logging

import grpc
import pytest
from grpc_health.v1 import health_pb2

from scicustom.client.connection import open_channel
from scicustom.client.environment_options import configured_options, options_from_environment
from scicustom.config import Settings
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.grpc_server.authentication import current_tenant
from scicustom.grpc_server.server import start_health_server, start_server
from scicustom.grpc_server.tls import ServerCertificateFiles, server_credentials
from tests.support.grpc_loopback import PROBE_SERVICE, health_status, probe_binding
from tests.support.tenant_tokens import tenants
from tests.support.throwaway_ca import ThrowawayCA

SERVER_NAME = "builds.scicustom.test"


def _tenant(request: bytes, context: grpc.ServicerContext) -> bytes:
    return current_tenant().encode()


def _ask(channel: grpc.Channel) -> bytes:
    return channel.unary_unary(f"/{PROBE_SERVICE}/Tenant")(b"", timeout=5)


def test_mutual_tls_needs_a_client_certificate_of_the_client_ca_and_still_a_token(tmp_path):
    ca, rogue = ThrowawayCA(tmp_path, "platform-ca"), ThrowawayCA(tmp_path, "rogue-ca")
    server_pair = ca.issue("server", SERVER_NAME, server=True)
    client, stranger = ca.issue("client", "acme-ci", server=False), rogue.issue("stranger", "x", server=False)
    known = tenants(tmp_path, "acme")
    credentials = server_credentials(Settings(tls_cert_file=server_pair.cert, tls_key_file=server_pair.key,
                                              tls_client_ca_file=ca.ca))
    server, health, port = start_server([probe_binding({"Tenant": _tenant})], "127.0.0.1", 0,
                                        max_message_bytes=1 << 20, interceptors=known.interceptors(),
                                        credentials=credentials)
    health_server, health_port = start_health_server(health, "127.0.0.1", 0)
    address = f"127.0.0.1:{port}"
    token = known.tokens["acme"]
    try:
        with open_channel(address, configured_options(token=token, ca_file=ca.ca, cert_file=client.cert,
                                                      key_file=client.key, server_name=SERVER_NAME)) as channel:
            assert _ask(channel) == b"acme"
        env = {"SCICUSTOM_AUTH_TOKEN": token, "SCICUSTOM_TLS_CA_FILE": str(ca.ca),
               "SCICUSTOM_TLS_CLIENT_CERT_FILE": str(client.cert), "SCICUSTOM_TLS_CLIENT_KEY_FILE": str(client.key)}
        with open_channel(address, options_from_environment(env)) as channel:  # 127.0.0.1 is in the certificate
            assert _ask(channel) == b"acme"
        refused = {
            "no client certificate": configured_options(token=token, ca_file=ca.ca),
            "a certificate of another CA": configured_options(token=token, ca_file=ca.ca, cert_file=stranger.cert,
                                                              key_file=stranger.key),
            "a server the client does not trust": configured_options(token=token, ca_file=rogue.ca,
                                                                     cert_file=client.cert, key_file=client.key),
            "plaintext": configured_options(token=token),
        }
        for why, options in refused.items():
            with open_channel(address, options) as channel, pytest.raises(grpc.RpcError) as error:
                _ask(channel)
            assert error.value.code() == grpc.StatusCode.UNAVAILABLE, why
        with open_channel(address, configured_options(ca_file=ca.ca, cert_file=client.cert,
                                                      key_file=client.key)) as channel:
            with pytest.raises(grpc.RpcError) as error:
                _ask(channel)  # a certificate is no token
            assert error.value.code() == grpc.StatusCode.UNAUTHENTICATED
        # Kubelet probes cannot speak TLS: the health port answers in plaintext, and nothing else there.
        with grpc.insecure_channel(f"127.0.0.1:{health_port}") as channel:
            assert health_status(channel, "") == health_pb2.HealthCheckResponse.SERVING
            with pytest.raises(grpc.RpcError) as error:
                _ask(channel)
            assert error.value.code() == grpc.StatusCode.UNIMPLEMENTED
    finally:
        health_server.stop(None)
        server.stop(None)


def test_renewed_certificate_files_are_read_again_and_broken_ones_keep_the_old(tmp_path, caplog):
    ca = ThrowawayCA(tmp_path)
    pair = ca.issue("server", SERVER_NAME, server=True)
    files = ServerCertificateFiles(pair.cert, pair.key, None, min_interval_s=0.0)
    assert files.fetch() is None  # unchanged: gRPC keeps what it has
    renewed = ca.issue("renewed", SERVER_NAME, server=True)
    pair.cert.write_bytes(renewed.cert.read_bytes())
    pair.key.write_bytes(renewed.key.read_bytes())
    assert isinstance(files.fetch(), grpc.ServerCertificateConfiguration)
    pair.cert.write_text("half a certificate")
    with caplog.at_level(logging.ERROR, logger="scicustom.grpc_server.tls"):
        assert files.fetch() is None
    assert "is not PEM; serving the certificate read before" in caplog.text


def test_tls_settings_that_cannot_work_are_refused(tmp_path):
    ca = ThrowawayCA(tmp_path)
    pair = ca.issue("server", SERVER_NAME, server=True)
    assert server_credentials(Settings()) is None
    with pytest.raises(PreconditionFailed, match="needs both SCICUSTOM_TLS_CERT_FILE and SCICUSTOM_TLS_KEY_FILE"):
        server_credentials(Settings(tls_cert_file=pair.cert))
    with pytest.raises(PreconditionFailed, match="mutual TLS is TLS first"):
        server_credentials(Settings(tls_client_ca_file=ca.ca))
    with pytest.raises(PreconditionFailed, match="cannot read the private key"):
        server_credentials(Settings(tls_cert_file=pair.cert, tls_key_file=tmp_path / "missing.key"))
    with pytest.raises(InvalidInput, match="tls_ca_file: cannot read"):
        configured_options(ca_file=tmp_path / "missing.crt")
    with pytest.raises(InvalidInput, match="certificate_chain: goes with private_key"):
        configured_options(cert_file=pair.cert)
