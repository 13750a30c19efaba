"""TaggerClient: texts -> knowledge units through TaggerService, as typed results."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scicustom.client.connection import ClientOptions, ServiceClient
from scicustom.tagger.v1 import tagger_pb2 as pb
from scicustom.tagger.v1 import tagger_pb2_grpc as pb_grpc


@dataclass(frozen=True)
class TaggedUnit:
    unit_id: str      # e.g. "ku_580"
    unit_name: str    # e.g. "Virology"
    score: float      # the tagger's confidence, comparable within one tagger version


@dataclass(frozen=True)
class TagResult:
    """The units of each text (best first), in the order of the texts, and the tagger that chose them."""

    units: tuple[tuple[TaggedUnit, ...], ...]
    tagger_version: str


def _units(tags: pb.TextTags) -> tuple[TaggedUnit, ...]:
    return tuple(TaggedUnit(u.unit_id, u.unit_name, u.score) for u in tags.units)


class TaggerClient(ServiceClient):
    """TaggerService at `address`. Tagging is a read: every call is retried on UNAVAILABLE (which
    is also what the service answers while its model server is down)."""

    SERVICE = "TaggerService"

    def __init__(self, address: str, options: ClientOptions | None = None, *,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        super().__init__(address, options, sleep=sleep)
        self._stub = pb_grpc.TaggerServiceStub(self.channel)  # type: ignore[no-untyped-call]

    def tag(self, texts: str | Sequence[str], top_k: int = 0, *, timeout_s: float | None = None) -> TagResult:
        """One text or up to 256; `top_k` 0 keeps every unit the tagger assigns."""
        if isinstance(texts, str):
            one = self._unary(self._stub.Tag, pb.TagRequest(text=texts, top_k=top_k), idempotent=True,
                              timeout_s=timeout_s)
            return TagResult((_units(one.tags),), one.tagger_version)
        many = self._unary(self._stub.TagBatch, pb.TagBatchRequest(texts=list(texts), top_k=top_k), idempotent=True,
                           timeout_s=timeout_s)
        return TagResult(tuple(_units(t) for t in many.tags), many.tagger_version)
