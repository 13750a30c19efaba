"""The ontologies that ship in registry packages (DESIGN.md section 4), by source name, each read
from the package cache."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from scicustom.adapters import ontology_arxiv, ontology_cellxgene, ontology_edam, ontology_go_db
from scicustom.adapters import ontology_nasa_thesaurus as nasa
from scicustom.adapters.ontology_package_cache import PackageCache
from scicustom.core.ontology.dag import OntologyDAG, SourceInfo

SourceReader = Callable[[PackageCache], tuple[SourceInfo, OntologyDAG]]


def _cellxgene(prefix: str, cache: PackageCache) -> tuple[SourceInfo, OntologyDAG]:
    wheel = cache.wheel(ontology_cellxgene.PACKAGE, ontology_cellxgene.VERSION)
    return ontology_cellxgene.read_cellxgene(wheel, prefix)


def _go(cache: PackageCache) -> tuple[SourceInfo, OntologyDAG]:
    tree = cache.deb_tree(ontology_go_db.DEB_PACKAGE)
    return ontology_go_db.read_go_sqlite(ontology_go_db.find_go_sqlite(tree),
                                         cache.deb_version(ontology_go_db.DEB_PACKAGE))


def _nasa(cache: PackageCache) -> tuple[SourceInfo, OntologyDAG]:
    return nasa.read_nasa_thesaurus(cache.wheel(nasa.PACKAGE, nasa.VERSION))


def _edam(cache: PackageCache) -> tuple[SourceInfo, OntologyDAG]:
    return ontology_edam.read_edam(cache.wheel(ontology_edam.PACKAGE, ontology_edam.VERSION))


def _arxiv(cache: PackageCache) -> tuple[SourceInfo, OntologyDAG]:
    return ontology_arxiv.read_arxiv_taxonomy(cache.wheel(ontology_arxiv.PACKAGE, ontology_arxiv.VERSION))


PACKAGED_SOURCES: dict[str, SourceReader] = {
    **{prefix.lower(): partial(_cellxgene, prefix) for prefix in ontology_cellxgene.PREFIXES},
    "go": _go,
    "nasa": _nasa,
    "edam": _edam,
    "arxiv": _arxiv,
}


def packaged_sources(cache: PackageCache) -> dict[str, Callable[[], tuple[SourceInfo, OntologyDAG]]]:
    """Every packaged source's reader bound to `cache`, in import order."""
    return {name: partial(reader, cache) for name, reader in PACKAGED_SOURCES.items()}
