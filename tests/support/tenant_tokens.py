"""Tenants with bearer tokens for loopback servers: a tokens file, the interceptor chain
`scicustom service` installs with authentication on, and the call metadata of each tenant."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import grpc

from scicustom.commands.service import server_interceptors
from scicustom.grpc_server.auth_tokens import Role, new_token, token_line
from scicustom.grpc_server.authentication import AuthenticationInterceptor, TokenFile


@dataclass
class Tenants:
    path: Path                 # the tokens file
    tokens: dict[str, str]     # tenant -> its token
    token_file: TokenFile

    def interceptors(self) -> list[grpc.ServerInterceptor]:
        return server_interceptors(authentication=AuthenticationInterceptor(self.token_file))

    def metadata(self, tenant: str) -> list[tuple[str, str]]:
        return [("authorization", f"Bearer {self.tokens[tenant]}")]


def tenants(folder: Path, *names: str, min_interval_s: float = 0.0, admins: tuple[str, ...] = ()) -> Tenants:
    """A tokens file with one fresh token per tenant (those in `admins` with the admin role); re-read
    at once when it changes (interval 0)."""
    tokens = {name: new_token() for name in (*names, *admins)}
    path = folder / "tokens"
    path.write_text("".join(token_line(name, token, Role.ADMIN if name in admins else Role.TENANT) + "\n"
                            for name, token in tokens.items()))
    return Tenants(path, tokens, TokenFile(path, min_interval_s=min_interval_s))
