"""`scicustom auth ...`: bearer tokens of the platform's gRPC services (SECURITY.md).

  auth token --tenant T [--admin] [--expires-in 30d] [--append FILE]
                                          a new random token for tenant T, and the tokens-file line
                                          (its SHA-256) that lets it in; --admin: it may also change
                                          shared state (grpc_server/authorisation.py); --expires-in:
                                          refused after that long; --append adds the line to FILE
  auth check FILE                         read a tokens file as a service would (before a rotation)

The token is printed once, on stdout; only its digest goes into the file (the Secret), so the file
lets no one in. Tokens are never taken as arguments (argv is visible to every user of the host).
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from scicustom.commands.command_output import emit

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("auth", help="bearer tokens of the gRPC services: create, check the tokens file")
    actions = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    token = actions.add_parser("token", help="print a new token for a tenant and the tokens-file line for it")
    token.add_argument("--tenant", required=True, help="tenant id: 1-40 of a-z, 0-9 and inner '-'")
    token.add_argument("--admin", action="store_true",
                       help="the admin role: may also ingest, import ontologies and redrive dead letters")
    token.add_argument("--expires-in", metavar="LIFETIME",
                       help="refused after this long: a whole number and s, m, h or d (e.g. 30d); default never")
    token.add_argument("--append", type=Path, metavar="FILE",
                       help="also append the line to this tokens file (created if missing)")
    token.set_defaults(handler=_token)
    check = actions.add_parser("check", help="read a tokens file as the services do; exit 2 naming a bad line")
    check.add_argument("file", type=Path)
    check.set_defaults(handler=_check)


def _token(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.grpc_server.auth_tokens import Role, lifetime, new_token, read_tokens, token_line, utc_text

    expires_at = None if args.expires_in is None else datetime.now(UTC) + lifetime(args.expires_in)
    role = Role.ADMIN if args.admin else Role.TENANT
    token = new_token()
    line = token_line(args.tenant, token, role, expires_at)  # checks the tenant id first
    if args.append is not None:
        if args.append.exists():
            read_tokens(args.append)  # never append to a file the services would refuse
        with open(args.append, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
    emit(args, {"tenant": args.tenant, "role": role.value, "token": token, "line": line,
                "expires_at": None if expires_at is None else utc_text(expires_at)}, lambda: token)
    if not getattr(args, "json", False):  # stdout is the token alone, for `TOKEN=$(scicustom auth token ...)`
        print(f"added to {args.append}: {line}" if args.append is not None else
              f"add this line to the tokens file (SCICUSTOM_AUTH_TOKENS_FILE):\n{line}", file=sys.stderr)
    return 0


def _check(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.grpc_server.auth_tokens import Role, read_tokens

    table = read_tokens(args.file)
    tenants = sorted(table.tenants)
    admins, expired = table.count(Role.ADMIN), table.expired(datetime.now(UTC))
    notes = "".join([f"; {admins} admin" if admins else "", f"; {expired} expired" if expired else ""])
    emit(args, {"file": str(args.file), "tokens": len(table.records_by_digest), "tenants": tenants,
                "admin_tokens": admins, "expired_tokens": expired},
         lambda: f"{args.file}: {len(table.records_by_digest)} tokens of {len(tenants)} tenants "
                 f"({', '.join(tenants) or 'none'}){notes}")
    return 0
