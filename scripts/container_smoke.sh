#!/usr/bin/env bash
# Build the groundwatch image from the Dockerfile with podman, run it, and smoke-test it:
# /readyz, the HEALTHCHECK, POST /v1/evaluate (auth enforced, a contradicted and a supported trace
# scored by the embedded judge on onnxruntime), the shipped claim verifier and "no torch" inside
# the container, GET /metrics. Prints the image size and the start-up time (seconds from
# `podman run` to a ready /readyz). The container is removed on exit, also on failure.
#
#   scripts/container_smoke.sh
#
# Exit 0: passed. Exit 1: a check failed. Exit 0 with "SKIP: <reason>": no podman, or no base
# image can be had (no local one, no registry, no debootstrap).
#
# Offline by design: the wheels are prepared on the host (pip wheel, from the package index) into
# wheelhouse/ and the build installs from there with --no-index. The base image is, in order:
# $GW_BASE_IMAGE; python:3.11-slim if present locally or pullable (the Dockerfile's default);
# localhost/debian-base:12 if present; else one made here with debootstrap (Debian 12 with
# python3, python3-venv, python3-pip) and `podman import`, cached as localhost/debian-base:12.
#
# Environment:
#   GW_IMAGE          image tag to build and run (default localhost/groundwatch:smoke)
#   GW_REUSE=1        run $GW_IMAGE as it is if it exists (no build)
#   GW_BASE_IMAGE     base image for the first FROM (podman build --from)
#   GW_WHEELHOUSE=0   do not prepare wheelhouse/; the build installs from the package index
#   GW_PODMAN_FLAGS   global podman flags (default on these machines, where runc is installed:
#                     "--runtime runc --cgroup-manager=cgroupfs"; crun fails on their cgroups)
#   GW_READY_TIMEOUT  seconds to wait for /readyz (default 180)
#   GW_PULL_TIMEOUT   seconds to try pulling python:3.11-slim (default 60; 0 = do not try)
#   GW_ROOTFS_DIR     where debootstrap builds the root file system (default /tmp/gw-debian-rootfs)
#   GW_DEBIAN_MIRROR  debootstrap mirror (default http://deb.debian.org/debian)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

IMAGE="${GW_IMAGE:-localhost/groundwatch:smoke}"
READY_TIMEOUT="${GW_READY_TIMEOUT:-180}"
PULL_TIMEOUT="${GW_PULL_TIMEOUT:-60}"
DEFAULT_BASE="docker.io/library/python:3.11-slim"
LOCAL_BASE="localhost/debian-base:12"
NAME="gw-smoke-$$"
WORK="$(mktemp -d /tmp/gw-smoke.XXXXXX)"

skip() { echo "SKIP: $*"; exit 0; }
fail() { echo "FAIL: $*" >&2; exit 1; }
log() { echo "== $*"; }

cleanup() {
  local rc=$?
  if [ -n "${STARTED:-}" ]; then
    if [ "$rc" -ne 0 ]; then
      echo "-- container logs (last 40 lines):" >&2
      podman "${PFLAGS[@]}" logs --tail 40 "$NAME" >&2 2>&1 || true
    fi
    podman "${PFLAGS[@]}" rm -f -t 5 "$NAME" >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- podman ---------------------------------------------------------------------------------
command -v podman >/dev/null 2>&1 || skip "podman is not installed (apt-get install -y podman runc)"
if [ -n "${GW_PODMAN_FLAGS+x}" ]; then
  read -r -a PFLAGS <<<"$GW_PODMAN_FLAGS"
elif command -v runc >/dev/null 2>&1; then
  PFLAGS=(--runtime runc --cgroup-manager=cgroupfs)
else
  PFLAGS=()
fi
if [ -z "${CONTAINERS_CONF:-}" ]; then
  # Debian's podman sets rlimits by default, which fails on these machines.
  printf '[containers]\ndefault_ulimits = []\n' >"$WORK/containers.conf"
  export CONTAINERS_CONF="$WORK/containers.conf"
fi
if ! err="$(podman "${PFLAGS[@]}" info 2>&1 >/dev/null)"; then
  skip "podman does not work here: $(echo "$err" | tail -1)"
fi
P=(podman "${PFLAGS[@]}")
have_image() { "${P[@]}" image exists "$1"; }

# --- host Python for the wheelhouse and the checks --------------------------------------------
PY=""
for cand in "${GW_PYTHON:-}" "${GROUNDWATCH_VENV:-}/bin/python" "$ROOT/.venv/bin/python" python3; do
  if [ -n "$cand" ] && command -v "$cand" >/dev/null 2>&1; then PY="$cand"; break; fi
done
[ -n "$PY" ] || fail "no python3 on the host"

# --- base image -------------------------------------------------------------------------------
make_debian_base() {
  # Debian 12 root file system with python3 + venv + pip, from the Debian package mirror.
  command -v debootstrap >/dev/null 2>&1 || return 1
  [ "$(id -u)" -eq 0 ] || return 1
  local rootfs="${GW_ROOTFS_DIR:-/tmp/gw-debian-rootfs}"
  if [ ! -x "$rootfs/usr/bin/python3" ] || [ ! -f "$rootfs/usr/lib/python3.11/ensurepip/__init__.py" ]; then
    rm -rf "$rootfs"
    log "debootstrap bookworm into $rootfs (log: $rootfs.log)"
    nice -n 10 debootstrap --variant=minbase --include=python3,python3-venv,python3-pip,passwd,ca-certificates \
      bookworm "$rootfs" "${GW_DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$rootfs.log" 2>&1 || {
      echo "debootstrap failed: $(tail -3 "$rootfs.log")" >&2
      return 1
    }
  fi
  log "podman import $rootfs as $LOCAL_BASE"
  tar -C "$rootfs" --exclude='./var/cache/apt/archives/*.deb' --exclude='./var/lib/apt/lists/*' \
    --exclude='./usr/share/doc/*' --exclude='./usr/share/man/*' --exclude='./usr/share/locale/*' \
    --exclude='./usr/share/info/*' -c . | "${P[@]}" import -q --change 'CMD ["/bin/bash"]' - "$LOCAL_BASE" >/dev/null
}

pick_base() {
  if [ -n "${GW_BASE_IMAGE:-}" ]; then
    have_image "$GW_BASE_IMAGE" || "${P[@]}" pull "$GW_BASE_IMAGE" >/dev/null ||
      fail "GW_BASE_IMAGE=$GW_BASE_IMAGE is neither local nor pullable"
    BASE="$GW_BASE_IMAGE"
  elif have_image "$DEFAULT_BASE"; then
    BASE="$DEFAULT_BASE"
  elif have_image "$LOCAL_BASE"; then
    BASE="$LOCAL_BASE"
  elif [ "$PULL_TIMEOUT" != 0 ] && log "trying podman pull $DEFAULT_BASE (${PULL_TIMEOUT}s at most)" &&
    timeout "$PULL_TIMEOUT" "${P[@]}" pull -q "$DEFAULT_BASE" >/dev/null 2>"$WORK/pull.err"; then
    BASE="$DEFAULT_BASE"
  elif make_debian_base; then
    BASE="$LOCAL_BASE"
  else
    skip "no base image: $DEFAULT_BASE is not local and could not be pulled ($(tail -1 "$WORK/pull.err" 2>/dev/null || echo 'pull not tried')), no $LOCAL_BASE, and debootstrap is unavailable or failed"
  fi
}

# --- wheelhouse (host side, from the package index) ---------------------------------------------
prepare_wheelhouse() {
  local stamp wh="$ROOT/wheelhouse"
  stamp="$(cat pyproject.toml constraints.txt | sha256sum | cut -c1-16)"
  if [ -f "$wh/.stamp" ] && [ "$(cat "$wh/.stamp")" = "$stamp" ]; then
    log "wheelhouse up to date ($(find "$wh" -maxdepth 1 -name "*.whl" | wc -l) wheels)"
    return
  fi
  log "pip wheel into wheelhouse/ (host: $("$PY" -V 2>&1))"
  "$PY" - >"$WORK/requirements.txt" <<'EOF'
import tomllib
deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]
print("\n".join(deps))
EOF
  # async-timeout: redis needs it on Python < 3.11.3 (Debian 12's python3 is 3.11.2), which a
  # newer host Python would not resolve. setuptools and wheel: the build backend, offline.
  nice -n 10 "$PY" -m pip wheel -q --disable-pip-version-check --wheel-dir "$wh" -c constraints.txt \
    -r "$WORK/requirements.txt" "setuptools>=77" wheel "async-timeout>=4.0.3" >"$WORK/pip.log" 2>&1 ||
    { grep -v 'is ignored' "$WORK/pip.log" | tail -20 >&2; fail "pip wheel failed"; }
  echo "$stamp" >"$wh/.stamp"
}

# --- build ------------------------------------------------------------------------------------
BUILD="reused"
if [ "${GW_REUSE:-0}" = 1 ] && have_image "$IMAGE"; then
  log "reusing $IMAGE"
else
  pick_base
  log "base image: $BASE"
  if [ "${GW_WHEELHOUSE:-1}" != 0 ]; then prepare_wheelhouse; fi
  from=()
  [ "$BASE" = "$DEFAULT_BASE" ] || from=(--from "$BASE")
  log "podman build -t $IMAGE (log: $WORK/build.log, kept on failure in /tmp/gw-smoke-build.log)"
  t0=$(date +%s)
  if ! nice -n 10 "${P[@]}" build --format docker --pull=never "${from[@]}" -t "$IMAGE" . >"$WORK/build.log" 2>&1; then
    cp "$WORK/build.log" /tmp/gw-smoke-build.log
    tail -20 "$WORK/build.log" >&2
    fail "podman build failed (full log: /tmp/gw-smoke-build.log)"
  fi
  BUILD="built in $(($(date +%s) - t0))s"
fi
SIZE_B="$("${P[@]}" image inspect --format '{{.Size}}' "$IMAGE")"

# --- run --------------------------------------------------------------------------------------
PORT="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
TOKEN="$("$PY" -c 'import secrets; print(secrets.token_urlsafe(24))')"
URL="http://127.0.0.1:$PORT"
log "podman run $IMAGE on 127.0.0.1:$PORT (read-only root, no capabilities)"
t0=$(date +%s.%N)
STARTED=1
"${P[@]}" run -d --name "$NAME" -p "127.0.0.1:$PORT:8080" \
  --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges --health-interval disable \
  -e GROUNDWATCH_API__TOKENS="$TOKEN" "$IMAGE" >/dev/null 2>"$WORK/run.err" ||
  fail "podman run failed: $(cat "$WORK/run.err")"

ready=""
deadline=$(($(date +%s) + READY_TIMEOUT))
while [ "$(date +%s)" -lt "$deadline" ]; do
  if curl -fsS -m 2 "$URL/readyz" >"$WORK/readyz.json" 2>/dev/null; then ready=1; break; fi
  state="$("${P[@]}" inspect --format '{{.State.Status}}' "$NAME" 2>/dev/null || echo gone)"
  [ "$state" = running ] || [ "$state" = created ] || fail "container is $state before /readyz"
  sleep 0.2
done
STARTUP_S="$("$PY" -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.1f}')" "$t0")"
[ -n "$ready" ] || fail "/readyz not ready after ${READY_TIMEOUT}s"
"$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["ready"] is True, r' "$WORK/readyz.json" ||
  fail "/readyz: $(cat "$WORK/readyz.json")"
echo "ok   /readyz $(cat "$WORK/readyz.json")"

# HEALTHCHECK (kept by --format docker). Run on demand: podman's timer needs systemd, which these
# machines lack, hence --health-interval disable above.
"${P[@]}" healthcheck run "$NAME" >/dev/null 2>"$WORK/hc.err" ||
  fail "HEALTHCHECK failed: $(grep -v 'systemd' "$WORK/hc.err" | tail -1)"
echo "ok   HEALTHCHECK"

uid="$("${P[@]}" exec "$NAME" id -u)"
[ "$uid" = 10001 ] || fail "runs as uid $uid, not 10001"
echo "ok   non-root (uid $uid)"

# --- /v1/evaluate -------------------------------------------------------------------------------
trace() {  # trace_id answer
  printf '{"trace_id": "%s", "question": "How long is the refund window for annual plans?", "contexts": [{"id": "kb-1", "text": "Annual plans can be refunded within 30 days of purchase.", "score": 0.82}], "answer": "%s", "attributes": {"intent": "billing", "tenant": "smoke"}}' "$1" "$2"
}
code="$(curl -s -o /dev/null -w '%{http_code}' -m 30 "$URL/v1/evaluate" -H 'content-type: application/json' -d "$(trace t-noauth 'x')")"
[ "$code" = 401 ] || fail "/v1/evaluate without a token answered $code, not 401"
echo "ok   /v1/evaluate without a token -> 401"

evaluate() {  # trace_id answer out
  curl -fsS -m 60 "$URL/v1/evaluate?record=true" -H "authorization: Bearer $TOKEN" \
    -H 'content-type: application/json' -d "$(trace "$1" "$2")" >"$3" || fail "/v1/evaluate $1 failed"
}
evaluate smoke-bad "Annual plans can be refunded within 90 days." "$WORK/bad.json"
evaluate smoke-good "Annual plans can be refunded within 30 days of purchase." "$WORK/good.json"
"$PY" - "$WORK/bad.json" "$WORK/good.json" <<'EOF' || fail "/v1/evaluate scores are wrong"
import json, sys
bad, good = (json.load(open(p)) for p in sys.argv[1:3])
for r in (bad, good):
    assert r["status"] == "scored", r
    assert "onnx-int8" in r["metric_version"], r["metric_version"]
assert bad["contradicted_claims"] == 1 and bad["faithfulness"] == 0.0, bad
assert [c["verdict"] for c in bad["claims"]] == ["contradicted"], bad["claims"]
assert good["contradicted_claims"] == 0 and good["faithfulness"] == 1.0, good
assert [c["verdict"] for c in good["claims"]] == ["supported"], good["claims"]
print(f"ok   /v1/evaluate: 90-day answer contradicted (faithfulness {bad['faithfulness']}, "
      f"{bad['claims'][0]['reason']!r}), 30-day answer supported (faithfulness "
      f"{good['faithfulness']}); {bad['metric_version']}, {bad['latency_ms']:.0f} ms")
EOF

# --- the verifier judge and "no torch", inside the container -------------------------------------
# Loads the shipped claim verifier (sha256 checked) and scores one trace with the `verifier`
# backend. Checks that it runs and gives a verdict, not which one: the model is retrained often.
"${P[@]}" exec -i "$NAME" python - >"$WORK/verifier.out" 2>&1 <<'PYEOF' || { cat "$WORK/verifier.out" >&2; fail "verifier judge check failed inside the container"; }
import importlib.util

import numpy as np

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.factory import build_judge
from groundwatch.judges.verifier import ClaimVerifier
from groundwatch.sections.judging import JudgeSettings

for mod in ("torch", "sentence_transformers", "transformers"):
    assert importlib.util.find_spec(mod) is None, mod + " is installed"
w = "Annual plans can be refunded within 30 days of purchase."
claim = "Annual plans can be refunded within 90 days."
p = ClaimVerifier.shipped().predict([(w, claim)])
assert p.shape == (1, 3) and np.isfinite(p).all() and abs(float(p.sum()) - 1) < 1e-4, p
judge = build_judge(JudgeSettings(backend="verifier"))
judge.load()
trace = RagTrace.model_validate({"trace_id": "v-1", "question": "How long is the refund window?",
                                 "contexts": [{"id": "kb-1", "text": w}], "answer": claim})
(j,) = judge.judge_batch([trace])
verdicts = [c.verdict for c in j.claims]
assert len(verdicts) == 1 and verdicts[0] in ("supported", "contradicted", "not_found"), j
print(f"ok   verifier judge in the container ({judge.version}): 90-day claim -> {verdicts[0]}; "
      f"verifier P(sup, contra, nf) = {', '.join(f'{x:.2f}' for x in p[0])}; no torch, transformers, "
      "sentence-transformers installed")
PYEOF
grep -v 'telemetry device ID' "$WORK/verifier.out"

# --- /metrics -----------------------------------------------------------------------------------
curl -fsS -m 10 "$URL/metrics" >"$WORK/metrics.txt" || fail "/metrics failed"
grep -Eq '^groundwatch_traces_evaluated_total\{status="scored"\} 2(\.0)?$' "$WORK/metrics.txt" ||
  fail "/metrics: groundwatch_traces_evaluated_total{status=\"scored\"} is not 2: $(grep traces_evaluated_total "$WORK/metrics.txt")"
echo "ok   /metrics ($(grep -c '^groundwatch_' "$WORK/metrics.txt") groundwatch_ samples; traces_evaluated_total{status=\"scored\"} 2)"

# --- stop -----------------------------------------------------------------------------------------
"${P[@]}" stop -t 10 "$NAME" >/dev/null 2>"$WORK/stop.err" || fail "podman stop failed: $(cat "$WORK/stop.err")"
exit_code="$("${P[@]}" inspect --format '{{.State.ExitCode}}' "$NAME")"
[ "$exit_code" = 0 ] || fail "container exited $exit_code on SIGTERM"
echo "ok   stopped on SIGTERM, exit 0"

echo "PASS: image $IMAGE, $((SIZE_B / 1000000)) MB, ${BUILD}, start-up ${STARTUP_S}s (podman run -> /readyz ready)"
