"""A local OpenAI-compatible chat server that answers from recorded replies.

No LLM is reachable here, so LLM paths are tested through litellm against this server:
each rule maps a substring of the last user message to a reply; `fail_next` injects HTTP 500s;
`faults` injects one fault per request, in order ("429": rate limited, "500": server error,
"timeout": the reply comes only after `stall_s`, past the caller's timeout); `always` repeats one
fault on every request (a provider that stays down).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = str | Callable[[list[dict[str, str]]], str]


@dataclass
class RecordedLLMServer:
    rules: list[tuple[str, Reply]] = field(default_factory=list)
    default: Reply = "I cannot answer."
    calls: list[dict[str, Any]] = field(default_factory=list)
    fail_next: int = 0
    faults: list[str] = field(default_factory=list)
    always: str | None = None
    stall_s: float = 2.0

    def __post_init__(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                return

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                server.calls.append(body)
                if server.fail_next > 0:
                    server.fail_next -= 1
                    self._send(500, {"error": {"message": "injected failure", "type": "server_error"}})
                    return
                fault = server.faults.pop(0) if server.faults else server.always
                if fault == "timeout":
                    time.sleep(server.stall_s)  # the caller has given up by now; the reply goes nowhere
                elif fault is not None:
                    status = int(fault)
                    kind = "rate_limit_error" if status == 429 else "server_error"
                    self._send(status, {"error": {"message": f"injected {status}", "type": kind}})
                    return
                text = server.reply_for(body.get("messages", []))
                self._send(200, {
                    "id": f"chatcmpl-{len(server.calls)}", "object": "chat.completion", "created": 0,
                    "model": body.get("model", "recorded"),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                })

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def reply_for(self, messages: list[dict[str, str]]) -> str:
        last = next((m.get("content", "") for m in reversed(messages) if m.get("role") == "user"), "")
        for needle, reply in self.rules:
            if needle in last:
                return reply(messages) if callable(reply) else reply
        return self.default(messages) if callable(self.default) else self.default

    @property
    def api_base(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def __enter__(self) -> RecordedLLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
