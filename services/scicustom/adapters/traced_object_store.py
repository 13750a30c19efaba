"""The ObjectStore port with a span per call, delegating to any ObjectStore."""

from __future__ import annotations

from scicustom.telemetry.port_spans import TracedPort


class TracedObjectStore(TracedPort):
    """Spans `store.<method>` with the key (or prefix), byte sizes and result counts. Results and
    exceptions pass through unchanged; other attributes of the wrapped store are reachable here."""

    def put_bytes(self, key: str, data: bytes) -> None:
        with self._spans.span("store.put_bytes", {"scicustom.store.key": key, "scicustom.store.bytes": len(data)}):
            self.inner.put_bytes(key, data)

    def get_bytes(self, key: str) -> bytes:
        with self._spans.span("store.get_bytes", {"scicustom.store.key": key}) as span:
            data = self.inner.get_bytes(key)
            span.set_attribute("scicustom.store.bytes", len(data))
            return data

    def exists(self, key: str) -> bool:
        with self._spans.span("store.exists", {"scicustom.store.key": key}) as span:
            found = self.inner.exists(key)
            span.set_attribute("scicustom.store.exists", found)
            return found

    def list_keys(self, prefix: str) -> list[str]:
        with self._spans.span("store.list_keys", {"scicustom.store.prefix": prefix}) as span:
            keys = self.inner.list_keys(prefix)
            span.set_attribute("scicustom.store.keys", len(keys))
            return keys

    def delete(self, key: str) -> None:
        with self._spans.span("store.delete", {"scicustom.store.key": key}):
            self.inner.delete(key)
