"""ClientOptions from the platform's settings: the bearer token and the TLS files.

  SCICUSTOM_AUTH_TOKEN            sent as `authorization: Bearer <token>` on every call
  SCICUSTOM_TLS_CA_FILE           TLS, verifying the services against this CA (PEM)
  SCICUSTOM_TLS_CLIENT_CERT_FILE  this client's certificate and key (PEM), for mutual TLS
  SCICUSTOM_TLS_CLIENT_KEY_FILE
  SCICUSTOM_TLS_SERVER_NAME       the name in the services' certificate, when the address differs

The SDK reads them from the environment when a client is made without options (so a shell that
sourced the dev stack's cluster.env just works); the CLI takes them from its Settings.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scicustom.client.call_metadata import MetadataHook
from scicustom.client.connection import ClientOptions
from scicustom.config import Settings, revealed
from scicustom.core.errors import InvalidInput


def bearer_metadata(token: str) -> MetadataHook:
    if not token.strip() or any(c.isspace() for c in token.strip()):
        raise InvalidInput("auth_token", "is empty or contains whitespace")
    header = f"Bearer {token.strip()}"
    return lambda: [("authorization", header)]


def _pem(path: str | Path | None, field: str) -> bytes | None:
    if not path:
        return None
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise InvalidInput(field, f"cannot read {path}: {exc.strerror}") from None


def configured_options(*, token: str | None = None, ca_file: str | Path | None = None,
                       cert_file: str | Path | None = None, key_file: str | Path | None = None,
                       server_name: str | None = None, **fields: Any) -> ClientOptions:
    """Options with the token and TLS files; `fields` (any ClientOptions field) win over them."""
    configured: dict[str, Any] = {}
    if token:
        configured["metadata"] = bearer_metadata(token)
    roots = _pem(ca_file, "tls_ca_file")
    chain, key = _pem(cert_file, "tls_client_cert_file"), _pem(key_file, "tls_client_key_file")
    if roots is not None or chain is not None:
        configured.update(tls=True, root_certificates=roots, certificate_chain=chain, private_key=key)
    if server_name:
        configured["server_name"] = server_name
    return ClientOptions(**{**configured, **fields})


def options_from_environment(environ: Mapping[str, str] | None = None, **fields: Any) -> ClientOptions:
    env = os.environ if environ is None else environ
    return configured_options(token=env.get("SCICUSTOM_AUTH_TOKEN"), ca_file=env.get("SCICUSTOM_TLS_CA_FILE"),
                              cert_file=env.get("SCICUSTOM_TLS_CLIENT_CERT_FILE"),
                              key_file=env.get("SCICUSTOM_TLS_CLIENT_KEY_FILE"),
                              server_name=env.get("SCICUSTOM_TLS_SERVER_NAME"), **fields)


def options_from_settings(settings: Settings, **fields: Any) -> ClientOptions:
    return configured_options(token=revealed(settings.auth_token), ca_file=settings.tls_ca_file,
                              cert_file=settings.tls_client_cert_file, key_file=settings.tls_client_key_file,
                              server_name=settings.tls_server_name,
                              max_message_bytes=settings.grpc_max_message_bytes, **fields)
