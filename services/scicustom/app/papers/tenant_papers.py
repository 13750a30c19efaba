"""Which tenant submitted which paper: what PaperService shows a caller.

A paper's records stay where the paper stages keep them (`papers/<id>/`, paper_records.py): a paper
becomes items of the shared corpus, so its content is everyone's once indexed. What is scoped is
the view: each submission leaves a marker `tenants/<tenant>/papers/<id>.json`, and a tenant can get,
watch and list only the papers it submitted (another's id is NotFound, as an unknown id). A tenant
submits stored objects only from its own `tenants/<tenant>/incoming/` prefix. The implicit tenant
of an unauthenticated platform sees every paper, as before tenancy.
"""

from __future__ import annotations

from scicustom.app.papers.paper_records import check_paper_id
from scicustom.app.stored_json import read_json, write_json
from scicustom.app.tenancy import tenant_prefix
from scicustom.core.errors import InvalidInput, NotFound
from scicustom.ports import ObjectStore

MARKERS = "papers/"
INCOMING = "incoming/"


class TenantPapers:
    def __init__(self, store: ObjectStore, tenant: str) -> None:
        self._store = store
        self._prefix = tenant_prefix(tenant)
        self.tenant = tenant

    @property
    def scoped(self) -> bool:
        """False for the implicit tenant, which sees every paper."""
        return bool(self._prefix)

    def _marker(self, paper_id: str) -> str:
        return f"{self._prefix}{MARKERS}{paper_id}.json"

    def claim(self, paper_id: str, file_name: str) -> None:
        """Record that this tenant submitted the paper (a repeated submission rewrites the same marker)."""
        if self.scoped and read_json(self._store, self._marker(paper_id)) is None:
            write_json(self._store, self._marker(paper_id), {"paper_id": paper_id, "file_name": file_name})

    def check_visible(self, paper_id: str) -> str:
        """The paper id when this tenant may see the paper; NotFound otherwise (as for an unknown id)."""
        check_paper_id(paper_id)
        if self.scoped and not self._store.exists(self._marker(paper_id)):
            raise NotFound("paper_id", f"no paper {paper_id}")
        return paper_id

    def visible_ids(self) -> set[str] | None:
        """The ids this tenant submitted; None: every paper (the implicit tenant)."""
        if not self.scoped:
            return None
        prefix = f"{self._prefix}{MARKERS}"
        return {key[len(prefix):-len(".json")] for key in self._store.list_keys(prefix) if key.endswith(".json")}

    def check_object_key(self, key: str) -> str:
        """A stored object this tenant may submit as a paper: one under its own incoming prefix."""
        incoming = f"{self._prefix}{INCOMING}"
        if self.scoped and not key.startswith(incoming):
            raise InvalidInput("object_key", f"must be under {incoming} (the tenant's own upload prefix)")
        return key
