# groundwatch: HTTP/OTLP API, Kafka consumer and evaluator in one image.
#   docker build -t groundwatch .
#   docker run -p 8080:8080 -e GROUNDWATCH_API__TOKENS=<a long random token> groundwatch
# The API binds 0.0.0.0 in the container, so it refuses to start without a token
# (or GROUNDWATCH_API__ALLOW_OPEN_NETWORK=true). The embedded judge's model ships in the
# installed packages: no model download at start-up, no network needed.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
RUN python -m venv /opt/venv
COPY pyproject.toml README.md constraints.txt ./
COPY service ./service
COPY consumers ./consumers
# torch first, from the CPU index (as scripts/run does): the model package's sentence-transformers
# dependency would otherwise pull a multi-GB CUDA build. The embedded judge itself runs on
# onnxruntime; torch is only the optional `torch` embedding runtime.
RUN /opt/venv/bin/pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0
# Pinned by constraints.txt; `pip install .` also installs the embedded model packages.
RUN /opt/venv/bin/pip install --constraint constraints.txt .

FROM python:3.11-slim
LABEL org.opencontainers.image.title="groundwatch" \
      org.opencontainers.image.description="Reference-free monitoring of RAG assistants in production" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN groupadd --gid 10001 groundwatch \
    && useradd --uid 10001 --gid 10001 --home-dir /home/groundwatch --create-home \
       --shell /usr/sbin/nologin groundwatch
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOME=/home/groundwatch \
    GROUNDWATCH_API__HOST=0.0.0.0 \
    GROUNDWATCH_API__PORT=8080
USER 10001:10001
WORKDIR /home/groundwatch
EXPOSE 8080
# Model load happens before the port opens: allow for it in start-period.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('GROUNDWATCH_API__PORT', '8080'), timeout=4)" || exit 1
ENTRYPOINT ["groundwatch"]
CMD ["serve"]
