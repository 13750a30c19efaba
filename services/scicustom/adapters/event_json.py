"""`Event` <-> bus message bytes: the payload as canonical JSON (sorted keys, no spaces, UTF-8)."""

from __future__ import annotations

import json

from scicustom.core.jsonl import NotJSON, json_loads
from scicustom.ports import BusMessage, Event


class UndecodableEvent(ValueError):
    """A record whose value is not a UTF-8 JSON object: no handler can ever take it."""


def encode_payload(event: Event) -> bytes:
    return json.dumps(event.payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def decode_event(message: BusMessage) -> Event:
    where = f"{message.topic}@{message.partition}:{message.offset}"
    try:
        payload = json_loads(message.value.decode("utf-8"))
    except UnicodeDecodeError:
        raise UndecodableEvent(f"{where}: the value is not UTF-8") from None
    except NotJSON as exc:
        raise UndecodableEvent(f"{where}: the value is not JSON ({exc})") from None
    if not isinstance(payload, dict):
        raise UndecodableEvent(f"{where}: the payload is a JSON {type(payload).__name__}, not an object")
    return Event(topic=message.topic, key=message.key or "", payload=payload, headers=dict(message.headers))
