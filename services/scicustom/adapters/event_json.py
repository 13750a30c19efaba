"""`Event` <-> bus message bytes: the payload as canonical JSON (sorted keys, no spaces, UTF-8)."""

from __future__ import annotations

import json

from scicustom.ports import BusMessage, Event


def encode_payload(event: Event) -> bytes:
    return json.dumps(event.payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def decode_event(message: BusMessage) -> Event:
    return Event(topic=message.topic, key=message.key or "", payload=json.loads(message.value),
                 headers=dict(message.headers))
