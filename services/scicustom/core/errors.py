"""Domain errors. Edges translate them: CLI exit 2, gRPC INVALID_ARGUMENT / FAILED_PRECONDITION."""

from __future__ import annotations


class InvalidInput(ValueError):
    """Input that the caller must fix; `field` names what is wrong."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


class PreconditionFailed(RuntimeError):
    """The system is not in a state to do this yet (e.g. no corpus imported)."""


class NotFound(LookupError):
    """A named thing (a build, a unit, an item) does not exist; `what` names the field that named it."""

    def __init__(self, what: str, problem: str) -> None:
        super().__init__(f"{what}: {problem}")
        self.field = what
        self.problem = problem


class QuotaExceeded(RuntimeError):
    """The caller already holds as much of a shared resource as it may (a tenant's active builds);
    worth a retry once some of it is given back."""


class LLMCallFailed(RuntimeError):
    """An LLM call failed after its retries (provider down, rate limited, bad reply)."""


class RemoteTaggerError(RuntimeError):
    """The tagger model server could not be reached or failed after the retries (worth a retry later)."""


class UnreadableBatch(ValueError):
    """A stored ingest batch no retry can read (not UTF-8, too many records): its event is dead-lettered."""
