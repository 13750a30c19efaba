"""`scicustom auth ...`: bearer tokens of the platform's gRPC services (SECURITY.md).

  auth token --tenant T [--append FILE]   a new random token for tenant T, and the tokens-file line
                                          (its SHA-256) that lets it in; --append adds the line to FILE
  auth check FILE                         read a tokens file as a service would (before a rotation)

The token is printed once, on stdout; only its digest goes into the file (the Secret), so the file
lets no one in. Tokens are never taken as arguments (argv is visible to every user of the host).
"""

from __future__ import annotations

import argparse
import sys
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
    token.add_argument("--append", type=Path, metavar="FILE",
                       help="also append the line to this tokens file (created if missing)")
    token.set_defaults(handler=_token)
    check = actions.add_parser("check", help="read a tokens file as the services do; exit 2 naming a bad line")
    check.add_argument("file", type=Path)
    check.set_defaults(handler=_check)


def _token(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.grpc_server.auth_tokens import new_token, read_tokens, token_line

    token = new_token()
    line = token_line(args.tenant, token)  # checks the tenant id first
    if args.append is not None:
        if args.append.exists():
            read_tokens(args.append)  # never append to a file the services would refuse
        with open(args.append, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
    emit(args, {"tenant": args.tenant, "token": token, "line": line}, lambda: token)
    if not getattr(args, "json", False):  # stdout is the token alone, for `TOKEN=$(scicustom auth token ...)`
        print(f"added to {args.append}: {line}" if args.append is not None else
              f"add this line to the tokens file (SCICUSTOM_AUTH_TOKENS_FILE):\n{line}", file=sys.stderr)
    return 0


def _check(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.grpc_server.auth_tokens import read_tokens

    table = read_tokens(args.file)
    tenants = sorted(table.tenants)
    emit(args, {"file": str(args.file), "tokens": len(table.tenants_by_digest), "tenants": tenants},
         lambda: f"{args.file}: {len(table.tenants_by_digest)} tokens of {len(tenants)} tenants "
                 f"({', '.join(tenants) or 'none'})")
    return 0
