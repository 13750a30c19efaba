"""`EventBus.subscribe` for any bus: a daemon thread that polls one group member, hands each event
to the handler, then commits the batch.

A handler that raises stops the subscription before the commit, so the batch goes back to the
group (at-least-once); the exception is kept in `error` rather than lost in a thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from scicustom.adapters.event_json import decode_event
from scicustom.ports import BusConsumer, Event

log = logging.getLogger(__name__)


class Subscription:
    def __init__(self, consumer: BusConsumer, handler: Callable[[Event], None], name: str,
                 poll_timeout_s: float = 0.2) -> None:
        self._consumer = consumer
        self._handler = handler
        self._poll_timeout_s = poll_timeout_s
        self._stop = threading.Event()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                batch = self._consumer.poll(100, self._poll_timeout_s)
                for message in batch:
                    self._handler(decode_event(message))
                if batch:
                    self._consumer.commit()
        except Exception as exc:
            self.error = exc
            log.exception("subscription %s stopped: its handler failed", self._thread.name)
        finally:
            self._consumer.close()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout_s: float = 30.0) -> None:
        self._stop.set()
        self._thread.join(timeout_s)
