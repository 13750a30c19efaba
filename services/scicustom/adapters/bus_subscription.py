"""`EventBus.subscribe` for any bus: a daemon thread that polls one group member, hands each event
to the handler, then commits the batch.

A handler that raises stops the subscription before the commit, so the batch goes back to the
group (at-least-once); the exception is kept in `error` rather than lost in a thread. A record that
is not an event at all (not a UTF-8 JSON object) would stop it on every redelivery: it goes to
`<topic>.dead-letter` with the reason in a header instead, and the subscription goes on.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from scicustom.adapters.event_json import UndecodableEvent, decode_event
from scicustom.ports import BusConsumer, BusMessage, Event

log = logging.getLogger(__name__)
ERROR_HEADER = "scicustom-error"
DeadLetters = Callable[[BusMessage, str], None]


def dead_letter_topic(topic: str) -> str:
    return f"{topic}.dead-letter"


def dead_letters_via(send: Callable[..., None]) -> DeadLetters:
    """`send` (an EventBus's) puts a record that is not an event on `<topic>.dead-letter`, its bytes
    and headers unchanged."""
    def put_aside(message: BusMessage, reason: str) -> None:
        send(dead_letter_topic(message.topic), message.value, key=message.key,
             headers={**message.headers, ERROR_HEADER: reason[:2000]})
    return put_aside


class Subscription:
    def __init__(self, consumer: BusConsumer, handler: Callable[[Event], None], name: str,
                 poll_timeout_s: float = 0.2, dead_letters: DeadLetters | None = None) -> None:
        self._consumer = consumer
        self._handler = handler
        self._dead_letters = dead_letters
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
                    try:
                        event = decode_event(message)
                    except UndecodableEvent as exc:
                        log.error("subscription %s: %s; dead-lettered", self._thread.name, exc)
                        if self._dead_letters is not None:
                            self._dead_letters(message, str(exc))
                        continue
                    self._handler(event)
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
