"""Use cases name a bad field as the gRPC request does (e.g. `select_units.model`); an entry point
that names its inputs differently (the CLI's flags) renames the field when it reports the error."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from scicustom.core.errors import InvalidInput


@contextmanager
def fields_renamed(names: Mapping[str, str]) -> Iterator[None]:
    """Re-raise an InvalidInput whose field is in `names` under the caller's name for it."""
    try:
        yield
    except InvalidInput as exc:
        if exc.field not in names:
            raise
        raise InvalidInput(names[exc.field], exc.problem) from exc
