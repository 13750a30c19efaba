"""Docker HEALTHCHECK for the platform image: exit 0 when the process's grpc.health.v1 overall
status ("") is SERVING on 127.0.0.1:$SCICUSTOM_GRPC_PORT. Kubernetes probes the same service
with the chart's grpc probes and does not run this."""

from __future__ import annotations

import os
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


def main() -> int:
    address = f"127.0.0.1:{os.environ.get('SCICUSTOM_GRPC_PORT', '50051')}"
    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""), timeout=3)
        except grpc.RpcError as exc:
            print(f"unhealthy: {address} answered {exc.code().name}", file=sys.stderr)
            return 1
    if reply.status != health_pb2.HealthCheckResponse.SERVING:
        print(f"unhealthy: {address} is {health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
