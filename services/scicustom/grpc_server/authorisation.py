"""Which RPCs a token's role allows (SECURITY.md, "Roles").

Every authenticated tenant may use its own builds and papers and the stateless services. The RPCs
below change (or report on) state that every tenant shares, the corpus, the search index, the
ontologies and the stage topics, so one tenant could change what every other one builds from:
they need a token with the admin role, and a tenant's token gets PERMISSION_DENIED naming the method.
IngestService is the operators' ingest path as a whole: its batches are theirs, so GetBatch is too.
PaperService stays open to tenants by design: a submission is scoped to its tenant's view
(app/papers/tenant_papers.py) and goes through the same checks as any tenant input.
"""

from __future__ import annotations

from scicustom.grpc_server.auth_tokens import Role

ADMIN_METHODS = frozenset({
    "/scicustom.ingest.v1.IngestService/SubmitPaper",
    "/scicustom.ingest.v1.IngestService/ImportCorpus",
    "/scicustom.ingest.v1.IngestService/GetBatch",
    "/scicustom.ontology.v1.OntologyService/ImportOntology",
    "/scicustom.builds.v1.BuildService/RedriveDeadLetters",
})


def refusal(method: str, role: Role) -> str | None:
    """Why `role` may not call `method` ('/package.Service/Method'); None when it may."""
    if method in ADMIN_METHODS and role is not Role.ADMIN:
        return (f"{method.lstrip('/')} changes state shared by every tenant and needs a token with the "
                "admin role")
    return None
