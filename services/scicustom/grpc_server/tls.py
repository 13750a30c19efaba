"""TLS (optionally mutual) for the gRPC services, from PEM files mounted from a Secret.

SCICUSTOM_TLS_CERT_FILE + SCICUSTOM_TLS_KEY_FILE turn TLS on; SCICUSTOM_TLS_CLIENT_CA_FILE also
requires every caller to present a certificate signed by that CA (mutual TLS). The files are read
again on the first handshake after they change, so a certificate cert-manager renews into the
Secret is served without a restart; files that cannot be read keep the pair served before.
"""

from __future__ import annotations

import logging
from pathlib import Path

import grpc

from scicustom.config import Settings
from scicustom.core.errors import PreconditionFailed
from scicustom.grpc_server.mounted_files import WatchedFiles

log = logging.getLogger(__name__)
RELOAD_INTERVAL_S = 10.0


def _read(path: Path, what: str) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise PreconditionFailed(f"TLS: cannot read the {what} {path}: {exc.strerror}") from None
    if b"-----BEGIN " not in data:
        raise PreconditionFailed(f"TLS: the {what} {path} is not PEM")
    return data


class ServerCertificateFiles:
    def __init__(self, cert: Path, key: Path, client_ca: Path | None,
                 min_interval_s: float = RELOAD_INTERVAL_S) -> None:
        self.cert, self.key, self.client_ca = cert, key, client_ca
        self._watch = WatchedFiles([p for p in (cert, key, client_ca) if p is not None], min_interval_s)

    def configuration(self) -> grpc.ServerCertificateConfiguration:
        pair = (_read(self.key, "private key"), _read(self.cert, "certificate"))
        roots = _read(self.client_ca, "client CA") if self.client_ca is not None else None
        return grpc.ssl_server_certificate_configuration([pair], root_certificates=roots)

    def fetch(self) -> grpc.ServerCertificateConfiguration | None:
        """gRPC asks before each new handshake; None keeps the configuration it has."""
        if not self._watch.changed():
            return None
        try:
            configuration = self.configuration()
        except PreconditionFailed as exc:
            log.error("%s; serving the certificate read before", exc)
            return None
        log.info("TLS: %s reloaded", self.cert)
        return configuration


def server_credentials(settings: Settings) -> grpc.ServerCredentials | None:
    """The services' TLS credentials, or None for plaintext (no certificate configured)."""
    cert, key, client_ca = settings.tls_cert_file, settings.tls_key_file, settings.tls_client_ca_file
    if cert is None and key is None:
        if client_ca is not None:
            raise PreconditionFailed("SCICUSTOM_TLS_CLIENT_CA_FILE needs SCICUSTOM_TLS_CERT_FILE and "
                                     "SCICUSTOM_TLS_KEY_FILE (mutual TLS is TLS first)")
        return None
    if cert is None or key is None:
        raise PreconditionFailed("TLS needs both SCICUSTOM_TLS_CERT_FILE and SCICUSTOM_TLS_KEY_FILE")
    files = ServerCertificateFiles(cert, key, client_ca)
    return grpc.dynamic_ssl_server_credentials(files.configuration(), files.fetch,
                                               require_client_authentication=client_ca is not None)
