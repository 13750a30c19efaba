"""XML parsing for untrusted papers: no DTD loading, no entity expansion, no network, no huge trees.

A document that declares entities is refused outright (the "billion laughs" family), and so is one
that lxml cannot parse; both raise UnreadablePaper with the reason.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree

from scicustom.core.papers.document import UnreadablePaper

_ENTITY_DECLARATION = re.compile(rb"<!ENTITY", re.IGNORECASE)


def parser() -> Any:
    return etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, load_dtd=False,
                           dtd_validation=False, remove_comments=True, remove_pis=True, recover=False)


def parse_xml(data: bytes) -> Any:
    """The root element of `data`; UnreadablePaper for entity declarations or malformed XML."""
    if _ENTITY_DECLARATION.search(data[:1_000_000]):
        raise UnreadablePaper("XML declares entities (refused: entity expansion attacks)")
    try:
        root = etree.fromstring(data, parser())
    except etree.XMLSyntaxError as exc:
        raise UnreadablePaper(f"malformed XML: {exc}") from None
    if root is None:
        raise UnreadablePaper("empty XML document")
    return root


def local(tag: Any) -> str:
    """The local name of an element's tag (namespace dropped); '' for comments and the like."""
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


def text_of(element: Any, skip: frozenset[str] = frozenset()) -> str:
    """The element's text, descendants included, without the subtrees named in `skip` (tails kept)."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        if node.text:
            parts.append(node.text)
        for child in node:
            if local(child.tag) not in skip:
                walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(element)
    return " ".join("".join(parts).split())


def children(element: Any, name: str) -> list[Any]:
    return [c for c in element if local(c.tag) == name]


def descendants(element: Any, name: str) -> list[Any]:
    return [c for c in element.iter() if local(c.tag) == name]


def first(element: Any, *path: str) -> Any | None:
    """The first element down `path` of local names (each step a child), or None."""
    node = element
    for name in path:
        found = children(node, name)
        if not found:
            return None
        node = found[0]
    return node
