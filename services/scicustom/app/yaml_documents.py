"""YAML from users, read safely: plain data only, no anchors or aliases.

`yaml.safe_load` already refuses arbitrary objects, but it expands aliases: a few hundred bytes of
nested aliases ("billion laughs") become gigabytes in anything that re-serialises or walks the
document. No document of ours needs them, so any anchor or alias is refused before loading. Nesting is
bounded too: PyYAML composes a document recursively, so "- - - ..." a few thousand levels deep
would end in RecursionError instead of a clear error.
"""

from __future__ import annotations

from typing import Any

import yaml

from scicustom.core.errors import InvalidInput

MAX_DEPTH = 64


def load_plain_yaml(text: str, field: str, subject: str = "") -> Any:
    """`subject`: what the problem names before its text (e.g. the file's path and a space)."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise InvalidInput(field, f"{subject}uses YAML anchors or aliases (&, *), which are not accepted")
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise InvalidInput(field, f"{subject}nests lists and mappings deeper than {MAX_DEPTH} levels")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InvalidInput(field, f"{subject}is not valid YAML ({type(exc).__name__})") from None
