"""`scicustom serve tagger`: the KServe ModelServer with the tagger model, bound where asked.

kserve 0.21 binds REST to 0.0.0.0 and gRPC to [::]; tests and laptops want loopback, so `start`
builds the same REST and gRPC servers with the host given. The model loads in a background thread
after the servers are up, so /v2/health/ready and /v2/models/tagger/ready say false until it is
loaded (Kubernetes readiness sees the truth).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent import futures
from pathlib import Path
from typing import Any

from grpc import aio
from kserve import ModelServer
from kserve.errors import InferenceError, InvalidInput
from kserve.model_server import FASTAPI_APP_IMPORT_STRING
from kserve.model_server import args as kserve_args
from kserve.protocol.dataplane import DataPlane
from kserve.protocol.grpc import grpc_predict_v2_pb2_grpc
from kserve.protocol.grpc.interceptors import ExceptionToStatusInterceptor, LoggingInterceptor
from kserve.protocol.grpc.server import GRPCServer
from kserve.protocol.grpc.servicer import InferenceServicer
from kserve.protocol.rest.server import RESTServer

from scicustom.tagger.kserve_model import DEFAULT_MAX_BATCH, TaggerModel

log = logging.getLogger(__name__)
MAX_MESSAGE_BYTES = 64 * 1024 * 1024


class _StrictDataPlane(DataPlane):
    """kserve decodes binary REST BYTES inputs as UTF-8 before the model runs and reports a failure
    as a server error (500); it is the client's input that is wrong, so answer 400 naming it."""

    def decode_inference_request(self, body: Any, headers: Any, model_name: str) -> Any:
        try:
            return super().decode_inference_request(body, headers, model_name)
        except InferenceError as exc:
            if isinstance(exc.__context__, UnicodeDecodeError):
                raise InvalidInput(f"text is not valid UTF-8 (byte {exc.__context__.start})") from None
            raise


class _BoundGRPCServer(GRPCServer):
    def __init__(self, host: str, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self._host = host

    async def start(self, max_workers: int) -> None:
        servicer = InferenceServicer(self._data_plane, self._model_repository_extension)
        self._server = aio.server(
            futures.ThreadPoolExecutor(max_workers=max_workers),
            interceptors=(LoggingInterceptor(), ExceptionToStatusInterceptor()),
            options=[("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
                     ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES)],
        )
        grpc_predict_v2_pb2_grpc.add_GRPCInferenceServiceServicer_to_server(servicer, self._server)
        address = f"{self._host}:{self._port}"
        if self._server.add_insecure_port(address) == 0:
            raise OSError(f"cannot bind gRPC to {address}")
        log.info("gRPC on %s", address)
        await self._server.start()
        await self._server.wait_for_termination()


class BoundModelServer(ModelServer):
    def __init__(self, host: str, http_port: int, grpc_port: int, max_threads: int = 4) -> None:
        super().__init__(http_port=http_port, grpc_port=grpc_port, workers=1, max_threads=max_threads,
                         enable_latency_logging=False)
        self.host = host
        self.dataplane = _StrictDataPlane(model_registry=self.registered_models)

    def start_with_background_load(self, model: TaggerModel) -> None:
        """Register the (not yet ready) model, start REST + gRPC, load the model in a thread."""
        self.register_model(model)
        self._rest_server = RESTServer(FASTAPI_APP_IMPORT_STRING, self.dataplane, self.model_repository_extension,
                                       self.http_port, workers=1, grace_period=self.grace_period,
                                       event_loop=self.event_loop, timeout_keep_alive=self.timeout_keep_alive)
        self._rest_server.config.host = self.host
        self.servers.append(self._rest_server.start())
        self._grpc_server = _BoundGRPCServer(self.host, self.grpc_port, self.dataplane,
                                             self.model_repository_extension, kwargs=vars(kserve_args),
                                             grace_period=self.grace_period)
        self.servers.append(self._grpc_server.start(self.max_threads))
        threading.Thread(target=model.load, name="tagger-load", daemon=True).start()
        self.setup_event_loop()
        self.register_signal_handler()
        asyncio.run(self._serve())


def serve(artifact_dir: Path, host: str, http_port: int, grpc_port: int, max_batch: int = DEFAULT_MAX_BATCH,
          threads: int | None = None) -> None:
    model = TaggerModel(artifact_dir, max_batch=max_batch, threads=threads)
    BoundModelServer(host, http_port, grpc_port).start_with_background_load(model)
