"""Tenants: whose a build, an artifact or a submitted paper is.

A tenant id comes from the caller's credential (grpc_server/authentication.py) and scopes every
object key the platform writes for it: `tenants/<tenant>/builds/<id>/...`. With authentication off
(the embedded profile, a single-user service) every caller is the one implicit tenant LOCAL_TENANT,
whose keys keep the original, un-prefixed layout (`builds/<id>/...`), so nothing written before
tenancy moves. LOCAL_TENANT is reserved: no credential can name it.
"""

from __future__ import annotations

import re

from scicustom.core.errors import InvalidInput

LOCAL_TENANT = "local"
TENANTS_PREFIX = "tenants/"
# One key segment: lowercase letters, digits and inner hyphens (a DNS label, at most 40 characters).
_TENANT = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?")


def is_tenant(text: str) -> bool:
    return _TENANT.fullmatch(text) is not None


def checked_tenant(tenant: str, field: str = "tenant") -> str:
    """A tenant a credential may name: a plain key segment, not the reserved implicit tenant."""
    if not is_tenant(tenant):
        raise InvalidInput(field, f"{tenant[:60]!r} is not a tenant id (1-40 of a-z, 0-9 and inner '-')")
    if tenant == LOCAL_TENANT:
        raise InvalidInput(field, f"{LOCAL_TENANT!r} is reserved for the implicit tenant of an unauthenticated "
                                  "platform")
    return tenant


def tenant_prefix(tenant: str) -> str:
    """The key prefix of a tenant's objects; "" (the original layout) for the implicit tenant.

    An empty tenant is the implicit one too: events published before tenancy carry none."""
    if tenant in ("", LOCAL_TENANT):
        return ""
    if not is_tenant(tenant):  # never build a key from an unchecked tenant
        raise InvalidInput("tenant", f"{tenant[:60]!r} is not a tenant id")
    return f"{TENANTS_PREFIX}{tenant}/"
