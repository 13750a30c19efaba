"""Event envelopes on the wire: protobuf values, with the type and event id also in the headers.

Event ids are derived from what the event means (build id + type), so a stage that runs twice
after a crash publishes the same id again and consumers can tell a redelivery from a new event.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from google.protobuf.message import DecodeError

from scicustom.app.tenancy import LOCAL_TENANT
from scicustom.events.v1 import events_pb2 as ev
from scicustom.ports import BusMessage, EventBus, ObjectStore
from scicustom.telemetry.kafka_context import inject_headers, producer_span

SCHEMA_VERSION = 1
TYPE_HEADER = "scicustom-event-type"
ID_HEADER = "scicustom-event-id"


class PoisonEvent(ValueError):
    """A record no retry can fix: undecodable, unknown schema version, or missing its payload."""


def event_id(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


def envelope(event_type: str, *, build_id: str = "", batch_id: str = "", tenant: str = "",
             **body: Any) -> ev.Envelope:
    """`tenant`: whose build a build event is about (its keys' prefix, app/tenancy.py)."""
    # Two tenants' builds are two builds even under one id; the implicit tenant's ids are unchanged.
    parts = (event_type, build_id, batch_id) + ((tenant,) if tenant not in ("", LOCAL_TENANT) else ())
    message = ev.Envelope(event_id=event_id(*parts), type=event_type,
                          build_id=build_id, batch_id=batch_id, schema_version=SCHEMA_VERSION, tenant=tenant,
                          **body)
    message.time.FromDatetime(datetime.now(UTC))
    return message


def headers_for(message: ev.Envelope) -> dict[str, str]:
    return {TYPE_HEADER: message.type, ID_HEADER: message.event_id}


def publish(bus: EventBus, topic: str, key: str, message: ev.Envelope) -> None:
    """Send `message` under a PRODUCER span whose context rides in the headers."""
    with producer_span(topic, key=key):
        bus.send(topic, message.SerializeToString(), key=key, headers=inject_headers(headers_for(message)))


def decode(record: BusMessage) -> ev.Envelope:
    message = ev.Envelope()
    try:
        message.ParseFromString(record.value)
    except DecodeError as exc:
        raise PoisonEvent(f"undecodable event on {record.topic}@{record.partition}:{record.offset}: {exc}") from None
    if message.schema_version != SCHEMA_VERSION:
        raise PoisonEvent(f"schema version {message.schema_version} is not {SCHEMA_VERSION}")
    if not message.event_id or not message.type or message.WhichOneof("body") is None:
        raise PoisonEvent("event without id, type or body")
    return message


# Artifacts: canonical JSON (core.canonical_json) in the store, referenced by key and SHA-256 ------------
def put_artifact(store: ObjectStore, key: str, data: bytes) -> ev.ArtifactRef:
    store.put_bytes(key, data)
    return ev.ArtifactRef(key=key, sha256=hashlib.sha256(data).hexdigest(), size_bytes=len(data))


def ref_of(store: ObjectStore, key: str) -> ev.ArtifactRef:
    data = store.get_bytes(key)
    return ev.ArtifactRef(key=key, sha256=hashlib.sha256(data).hexdigest(), size_bytes=len(data))


def get_artifact(store: ObjectStore, ref: ev.ArtifactRef) -> bytes:
    """The referenced bytes; PoisonEvent when absent or when they no longer match the hash."""
    try:
        data = store.get_bytes(ref.key)
    except KeyError:
        raise PoisonEvent(f"artifact {ref.key} is missing") from None
    if hashlib.sha256(data).hexdigest() != ref.sha256:
        raise PoisonEvent(f"artifact {ref.key} does not match its sha256 {ref.sha256}")
    return data
