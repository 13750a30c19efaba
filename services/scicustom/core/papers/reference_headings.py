"""Headings that start a paper's back matter: everything from one of them on is not body text."""

from __future__ import annotations

import re

_BACK_MATTER = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?\s*)?(references|bibliography|literature cited|works cited"
                          r"|reference list|citations)\s*:?\s*$", re.IGNORECASE)


def starts_back_matter(heading: str) -> bool:
    return bool(_BACK_MATTER.match(heading))
