"""Capacity benchmark (a script, not a test): unit costs of the real pipeline, a scale-out run
and the first bottleneck, the figures behind docs/capacity.md and ``groundwatch capacity``.

    .venv/bin/python -m benchmarks.capacity                      # default run, under 10 minutes
    .venv/bin/python -m benchmarks.capacity --seen 100000 --eval 400 --scaleout 600
    .venv/bin/python -m benchmarks.capacity --only seen,prom     # some phases only
    .venv/bin/python -m benchmarks.capacity --json build/capacity/capacity.json

Everything is real: the Tansu broker and redis-server (tests/infra.py starts them on free
loopback ports and stops them), and each replica is ``groundwatch serve`` as deployed (HTTP API,
Kafka consumer, Redis windows, results and dead-letter topics), configured only through
``GROUNDWATCH_*`` variables, pinned with ``taskset`` to one core, one judge thread
(``GROUNDWATCH_JUDGE__WORKERS=1``) and one ONNX thread (``GROUNDWATCH_EMBEDDING__THREADS=1``).

Phases (``--only``):

- ``seen``: sampling rate 0, every trace only counted. Replica CPU seconds per seen trace; Redis
  commands (client-issued and executed inside the update script), round trips
  (``total_reads_processed``), bytes written (``total_net_input_bytes``) per trace, from
  ``INFO`` deltas; dead-letter bytes per bad message (2 % of the messages are cut in half);
  the partitions' offset sets (Kafka dedup) at the end of the flood: records per partition
  (the re-send window plus what was delivered and not committed) and ``MEMORY USAGE`` per
  record. Redis memory "in state" is ``used_memory`` read right after ``CONFIG RESETSTAT``:
  without Redis 7's per-command latency histograms (~24.7 kB for each command name run since
  the last reset, whatever the traffic).
- ``http``: the same traces sent over HTTP (``POST /v1/rag-traces``, sampling rate 0): the
  (tenant, trace_id) dedup marker each leaves for ``redis.dedup_ttl_s``, by ``MEMORY USAGE``
  and by ``used_memory`` in state per trace.
- ``series``: 2 replicas with Redis and no slice key: the series on the one that holds the
  window-export lease and on the other (process, pipeline and consumer series only).
- ``embedded`` / ``verifier``: sampling rate 1 with that judge (warm cache: a warm-up batch is
  evaluated before the measured one). CPU seconds, Redis commands/round trips/bytes per
  evaluated trace, results-topic bytes per record, memory per finding (``MEMORY USAGE`` of the
  findings keys), per dedup marker, per slice x bucket (bucket hashes / (buckets x slices)).
- ``prom``: series on ``/metrics`` as slice values grow (10, 100, 1,000 within ``top_n``),
  ``/metrics`` bytes and scrape time (window report computed during the scrape:
  ``report_refresh_s=0``, the worst case; min_samples=1 so every slice is exported).
- ``scaleout``: 4 partitions, 1 then 2 replicas of one group, each on its own core, the whole
  backlog produced before they start (fed faster than they evaluate); evaluated traces/s between
  10 % and 90 % of the backlog, the ratio, Redis CPU, lag, and the reconciliation (windows,
  results topic and findings against what was produced).
- ``flood``: sampling rate 0 with 2 replicas (all the cores this machine has): traces/s and the
  CPU share of each component (replicas, broker, Redis) to name what saturates first.
- ``cluster``: the flood against a 3-master Redis Cluster: commands per master (how the ``all``
  slice of the hot bucket hashes spreads over the ``cluster_shards`` hash tags) and the round
  trips a batch costs there.
- ``cluster-scaleout``: the scale-out run (1 then 2 replicas, reconciled) against that Cluster.

The machine is shared (2 cores, other jobs): quote CPU seconds per trace and ratios from one run;
wall-clock rates swing between runs. The figures are printed and written as JSON (``--json``).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import signal
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import redis  # noqa: E402
from kafka import KafkaProducer  # noqa: E402

from benchmarks.workload import make_workload  # noqa: E402
from tests.consumer_support import read_topic  # noqa: E402
from tests.infra import KafkaBroker, RedisClusterServers, RedisServer, free_port  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")
SLICE_KEYS = ["tenant", "intent"]
INTENTS = ["billing", "security", "api", "other"]
BAD_EVERY = 50  # every 50th message is malformed: 2 % to the dead-letter topic
OUT: dict[str, Any] = {}


def emit(section: str, **figures: Any) -> None:
    """Print one result line and keep it for the JSON file."""
    OUT.setdefault(section, {}).update(figures)
    shown = ", ".join(f"{k}={_fmt(v)}" for k, v in figures.items())
    print(f"[{section}] {shown}", flush=True)


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


# --------------------------------------------------------------------------- processes


def proc_cpu_s(pid: int) -> float:
    """utime + stime of a process (all its threads), seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@dataclass
class Replica:
    """One ``groundwatch serve`` process (HTTP API + Kafka consumer) pinned to one core."""

    name: str
    port: int
    proc: subprocess.Popen[bytes]
    log: Path

    @classmethod
    def start(cls, name: str, env: dict[str, str], core: int | None, logdir: Path) -> Replica:
        port = free_port()
        full = {
            **os.environ,
            **env,
            "GROUNDWATCH_API__HOST": "127.0.0.1",
            "GROUNDWATCH_API__PORT": str(port),
            "GROUNDWATCH_KAFKA__CLIENT_ID": name,
            "GROUNDWATCH_LOG_LEVEL": "WARNING",
        }
        exe = str(Path(sys.executable).parent / "groundwatch")
        cmd = [exe, "serve"]
        if core is not None:
            cmd = ["taskset", "-c", str(core), *cmd]  # taskset execs: the pid is the service
        log = logdir / f"{name}.log"
        with log.open("wb") as fh:
            proc = subprocess.Popen(cmd, env=full, stdout=fh, stderr=subprocess.STDOUT)
        return cls(name, port, proc, log)

    def get(self, path: str, timeout: float = 30.0) -> tuple[int, bytes, float]:
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(
                f"http://127.0.0.1:{self.port}{path}", timeout=timeout
            ) as r:
                body = r.read()
                return r.status, body, time.perf_counter() - t0
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read(), time.perf_counter() - t0

    def wait_ready(self, timeout: float = 300.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited: {self.log.read_text()[-2000:]}")
            with contextlib.suppress(OSError):
                if self.get("/readyz", 5)[0] == 200:
                    return
            time.sleep(0.3)
        raise TimeoutError(
            f"{self.name} not ready after {timeout}s: {self.log.read_text()[-2000:]}"
        )

    def cpu_s(self) -> float:
        return proc_cpu_s(self.proc.pid)

    def rss_mb(self) -> float:
        return proc_rss_mb(self.proc.pid)

    def metric(self, name: str, text: str | None = None) -> float:
        """Sum of every sample of ``name`` on /metrics."""
        text = text if text is not None else self.get("/metrics")[1].decode()
        total = 0.0
        for line in text.splitlines():
            if line.startswith(name) and line[len(name) : len(name) + 1] in ("{", " "):
                total += float(line.rsplit(" ", 1)[1])
        return total

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@contextlib.contextmanager
def replicas(
    n: int, env: dict[str, str], logdir: Path, cores: Sequence[int] | None = None
) -> Iterator[list[Replica]]:
    cores = list(cores) if cores is not None else _cores()
    started: list[Replica] = []
    try:
        for i in range(n):
            started.append(Replica.start(f"replica-{i}", env, cores[i % len(cores)], logdir))
        for r in started:
            r.wait_ready()
        yield started
    finally:
        for r in started:
            r.stop()


def _cores() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def service_env(
    broker: KafkaBroker, redis_url: str, topic: str, prefix: str, **extra: str
) -> dict[str, str]:
    env = {
        "GROUNDWATCH_STATE": "redis",
        "GROUNDWATCH_REDIS__URL": redis_url,
        "GROUNDWATCH_REDIS__KEY_PREFIX": prefix,
        "GROUNDWATCH_KAFKA__BOOTSTRAP_SERVERS": broker.bootstrap,
        "GROUNDWATCH_KAFKA__TOPIC": topic,
        "GROUNDWATCH_KAFKA__DLQ_TOPIC": f"{topic}.dlq",
        "GROUNDWATCH_KAFKA__RESULTS_TOPIC": f"{topic}.results",
        "GROUNDWATCH_KAFKA__GROUP_ID": f"{prefix}-{uuid.uuid4().hex[:6]}",
        "GROUNDWATCH_KAFKA__SESSION_TIMEOUT_MS": "6000",
        "GROUNDWATCH_KAFKA__HEARTBEAT_INTERVAL_MS": "1000",
        "GROUNDWATCH_JUDGE__WORKERS": "1",
        "GROUNDWATCH_EMBEDDING__THREADS": "1",
        "GROUNDWATCH_WINDOWS__SLICE_KEYS": json.dumps(SLICE_KEYS),
    }
    env.update(extra)
    return env


# --------------------------------------------------------------------------- traffic


class Traffic:
    """Workload traces as Kafka messages: distinct evaluated traces, or seen-only copies."""

    def __init__(self, n_distinct: int, seed: int = 7) -> None:
        self.workload = make_workload(n_traces=n_distinct, seed=seed)
        self.used = 0

    def message(self, i: int, run: str, fresh: bool) -> tuple[str, bytes]:
        """Message ``i`` of ``run``: a new workload trace when ``fresh`` (no cache reuse across
        runs), else a copy of one with a new trace_id. Every ``BAD_EVERY``-th is malformed."""
        if fresh:
            trace = self.workload.traces[self.used % len(self.workload.traces)]
            self.used += 1
        else:
            trace = self.workload.traces[i % len(self.workload.traces)]
        body = trace.model_dump(mode="json", exclude_none=True)
        # 32 hex digits, a W3C trace id: the dedup markers' keys have their real length.
        body["trace_id"] = hashlib.md5(f"{run}-{i}".encode()).hexdigest()
        body["attributes"] = {"tenant": f"tenant-{i % 8}", "intent": INTENTS[i % 4]}
        value = json.dumps(body).encode()
        if (i + 1) % BAD_EVERY == 0:
            value = value[: len(value) // 2]
        return body["trace_id"], value

    def produce(
        self, bootstrap: str, topic: str, n: int, run: str, *, fresh: bool, start: int = 0
    ) -> dict[str, int]:
        producer = KafkaProducer(
            bootstrap_servers=bootstrap, linger_ms=20, batch_size=1 << 20, acks=1
        )
        counts = {"messages": 0, "bad": 0, "bytes": 0}
        for i in range(start, start + n):
            key, value = self.message(i, run, fresh)
            producer.send(topic, value, key=key.encode())
            counts["messages"] += 1
            counts["bytes"] += len(value) + len(key)
            counts["bad"] += int((i + 1) % BAD_EVERY == 0)
        producer.flush()
        producer.close()
        return counts


def committed(bootstrap: str, group: str, topic: str) -> int:
    """Sum of the group's committed offsets on ``topic`` (offsets start at 0: messages done),
    read with a probe that never joins the group."""
    from kafka import KafkaConsumer
    from kafka.structs import TopicPartition

    probe = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False)
    try:
        parts = probe.partitions_for_topic(topic) or set()
        return sum(probe.committed(TopicPartition(topic, p)) or 0 for p in parts)
    finally:
        probe.close(autocommit=False)


def wait_committed(bootstrap: str, group: str, topic: str, n: int, timeout: float) -> float:
    t0 = time.monotonic()
    while (done := committed(bootstrap, group, topic)) < n:
        if time.monotonic() - t0 > timeout:
            raise TimeoutError(f"group {group}: {done} < {n} committed after {timeout}s")
        time.sleep(0.5)
    return time.monotonic() - t0


def topic_bytes(bootstrap: str, topic: str, expect: int) -> tuple[int, int, list[Any]]:
    msgs = read_topic(bootstrap, topic, expect=expect, timeout_s=60)
    size = sum(
        len(m.key or b"") + len(m.value or b"") + sum(len(k) + len(v) for k, v in m.headers.items())
        for m in msgs
    )
    return len(msgs), size, msgs


# --------------------------------------------------------------------------- redis


@dataclass
class RedisNodes:
    """INFO deltas over one Redis or every master of a cluster."""

    ports: list[int]
    clients: list[redis.Redis] = field(default_factory=list)
    idle_cpu_rate: float = 0.0  # CPU s/s an idle server spends (cron): subtracted from deltas

    def __post_init__(self) -> None:
        self.clients = [redis.Redis(port=p) for p in self.ports]

    def measure_idle(self, seconds: float = 5.0) -> float:
        a, t0 = self.snapshot(), time.monotonic()
        time.sleep(seconds)
        d = self.delta(a, self.snapshot())
        self.idle_cpu_rate = d["cpu"] / (time.monotonic() - t0)
        return self.idle_cpu_rate

    def snapshot(self) -> list[dict[str, Any]]:
        return [{**c.info("everything"), "_t": time.monotonic()} for c in self.clients]

    def delta(self, a: list[dict[str, Any]], b: list[dict[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {"per_node_commands": [], "cmd": {}}
        totals = {"reads": 0, "net_in": 0, "cpu": 0.0, "used_memory": 0}
        for x, y in zip(a, b, strict=True):
            node_cmds = 0
            for k, v in y.items():
                if not k.startswith("cmdstat_"):
                    continue
                name = k[len("cmdstat_") :]
                if name in ("info", "ping", "client", "cluster", "memory", "scan", "hello"):
                    continue
                calls = int(v["calls"]) - int(x.get(k, {"calls": 0})["calls"])
                if calls:
                    out["cmd"][name] = out["cmd"].get(name, 0) + calls
                    node_cmds += calls
            out["per_node_commands"].append(node_cmds)
            totals["reads"] += int(y["total_reads_processed"]) - int(x["total_reads_processed"]) - 1
            totals["net_in"] += int(y["total_net_input_bytes"]) - int(x["total_net_input_bytes"])
            totals["cpu"] += sum(
                float(y[f]) - float(x[f]) for f in ("used_cpu_sys", "used_cpu_user")
            )
            totals["used_memory"] += int(y["used_memory"]) - int(x["used_memory"])
        totals["cpu"] = max(0.0, totals["cpu"] - self.idle_cpu_rate * (b[0]["_t"] - a[0]["_t"]))
        out.update(totals)
        out["commands"] = sum(out["cmd"].values())
        # Client-issued: scripts and reads; the rest ran inside a script.
        client_side = ("evalsha", "eval", "hgetall", "get", "zrevrangebyscore", "hmget", "zrange")
        out["client_commands"] = sum(out["cmd"].get(c, 0) for c in client_side)
        return out

    def state_memory(self) -> int:
        """``used_memory`` over the nodes right after ``CONFIG RESETSTAT``: without the
        per-command latency histograms (what is left is the reset's own, alike every time).
        Resets the command statistics: take it before a snapshot, never between two."""
        total = 0
        for c in self.clients:
            c.config_resetstat()
            total += int(c.info("memory")["used_memory"])
        return total

    def records(self, pattern: str) -> tuple[int, int, int]:
        """(offset sets matching, their 16-byte records, their ``MEMORY USAGE`` bytes)."""
        sets = records = used = 0
        for c, k in self.keys(pattern):
            n = int(c.strlen(k))
            sets += 1
            records += (n - n % 2) // (16 if n % 2 else 32)  # 32: the earlier hex format
            used += int(c.memory_usage(k, samples=0) or 0)
        return sets, records, used

    def keys(self, pattern: str) -> list[tuple[redis.Redis, bytes]]:
        return [(c, k) for c in self.clients for k in c.scan_iter(match=pattern, count=1000)]

    def memory(self, pattern: str, sample: int = 0) -> tuple[int, int]:
        """(keys matching, their MEMORY USAGE bytes; estimated from ``sample`` keys when set)."""
        found = self.keys(pattern)
        if not found:
            return 0, 0
        picked = found[:sample] if sample else found
        used = sum(int(c.memory_usage(k, samples=0) or 0) for c, k in picked)
        return len(found), round(used * len(found) / len(picked))

    def close(self) -> None:
        for c in self.clients:
            c.close()


def window_totals(nodes: RedisNodes, prefix: str, fields: Sequence[str]) -> dict[str, float]:
    """The ``all`` slice's counters summed over the fine buckets (and cluster shards)."""
    out = dict.fromkeys(fields, 0.0)
    for pattern in (f"{prefix}:w:f:*", f"{prefix}:{{{prefix}:s*}}:w:f:*"):
        for c, k in nodes.keys(pattern):
            values = c.hmget(k, [f"all\x1fall\x1fn:{f}" for f in fields])
            for f, v in zip(fields, values, strict=True):
                out[f] += float(v or 0)
    return out


# --------------------------------------------------------------------------- phases


@dataclass
class Ctx:
    args: argparse.Namespace
    broker: KafkaBroker
    redis_url: str
    nodes: RedisNodes
    traffic: Traffic
    logdir: Path

    def topic(self, name: str, partitions: int = 4) -> str:
        topic = f"cap.{name}.{uuid.uuid4().hex[:6]}"
        self.broker.create_topic(topic, partitions)
        self.broker.create_topic(f"{topic}.dlq", 1)
        self.broker.create_topic(f"{topic}.results", 1)
        return topic


def phase_seen(ctx: Ctx) -> None:
    n = ctx.args.seen
    topic = ctx.topic("seen")
    env = service_env(ctx.broker, ctx.redis_url, topic, "seen", GROUNDWATCH_SAMPLING__RATE="0")
    with replicas(1, env, ctx.logdir) as (rep,):
        idle0, t_idle = rep.cpu_s(), time.monotonic()
        time.sleep(3)
        idle_rate = (rep.cpu_s() - idle0) / (time.monotonic() - t_idle)
        state0 = ctx.nodes.state_memory()
        r0, c0 = ctx.nodes.snapshot(), rep.cpu_s()
        t0 = time.monotonic()
        sent = ctx.traffic.produce(ctx.broker.bootstrap, topic, n, "seen", fresh=False)
        took = wait_committed(
            ctx.broker.bootstrap, env["GROUNDWATCH_KAFKA__GROUP_ID"], topic, n, 600
        )
        wall = time.monotonic() - t0
        cpu = rep.cpu_s() - c0
        rd = ctx.nodes.delta(r0, ctx.nodes.snapshot())
        state = ctx.nodes.state_memory() - state0
        rss = rep.rss_mb()
        good = n - sent["bad"]
        emit(
            "seen",
            traces=n,
            valid=good,
            dead_lettered=sent["bad"],
            wall_s=round(wall, 1),
            idle_cpu_share=round(idle_rate, 4),
            cpu_us_per_seen=round(cpu / n * 1e6, 1),
            traces_per_cpu_s=round(n / cpu),
            traces_per_s_wall=round(n / took),
            rss_mb=round(rss, 1),
            message_bytes=round(sent["bytes"] / n),
        )
        emit(
            "seen.redis",
            commands_per_trace=round(rd["commands"] / good, 3),
            client_commands_per_trace=round(rd["client_commands"] / good, 4),
            round_trips_per_trace=round(rd["reads"] / good, 4),
            bytes_in_per_trace=round(rd["net_in"] / good, 1),
            redis_cpu_us_per_trace=round(rd["cpu"] / good * 1e6, 2),
            used_memory_per_trace=round(rd["used_memory"] / good, 1),
            commands=rd["cmd"],
        )
        count, size, _ = topic_bytes(ctx.broker.bootstrap, f"{topic}.dlq", sent["bad"])
        emit("seen.kafka", dlq_records=count, dlq_bytes_per_record=round(size / max(1, count)))
        sets, records, used = ctx.nodes.records("seen:o:i:*")
        markers, _ = ctx.nodes.memory("seen:d:*")
        emit(
            "seen.offsets",
            partitions=4,
            offset_sets=sets,
            records_per_partition=round(records / 4),
            resend_window=1000,
            inflight_per_partition=round(records / 4) - 1000,
            bytes_per_record=round(used / max(1, records), 2),
            set_bytes_per_partition=round(used / 4),
            dedup_markers=markers,
            used_memory_state=state,
            used_memory_state_per_trace=round(state / good, 1),
        )


def phase_http(ctx: Ctx) -> None:
    """The dedup marker an HTTP trace leaves: the ``seen`` traces posted to /v1/rag-traces."""
    n = ctx.args.http
    topic = ctx.topic("http", 1)
    prefix = "http"
    env = service_env(ctx.broker, ctx.redis_url, topic, prefix, GROUNDWATCH_SAMPLING__RATE="0")
    with replicas(1, env, ctx.logdir) as (rep,):
        state0 = ctx.nodes.state_memory()
        c0, t0 = rep.cpu_s(), time.monotonic()
        sent = 0
        for start in range(0, n, 100):
            batch = []
            for i in range(start, min(n, start + 100)):
                if (i + 1) % BAD_EVERY == 0:
                    continue  # the DLQ share is the Kafka path's
                batch.append(json.loads(ctx.traffic.message(i, "http", fresh=False)[1]))
            body = json.dumps(batch).encode()
            for _ in range(600):
                req = urllib.request.Request(
                    f"http://127.0.0.1:{rep.port}/v1/rag-traces",
                    body,
                    {"Content-Type": "application/json"},
                )
                try:
                    with urllib.request.urlopen(req, timeout=60) as r:
                        r.read()
                    break
                except urllib.error.HTTPError as exc:
                    if exc.code != 503:  # the queue is full: wait for it
                        raise
                    time.sleep(0.2)
            sent += len(batch)
        deadline = time.monotonic() + 300
        while rep.metric("groundwatch_traces_received_total") < sent:
            if time.monotonic() > deadline:
                raise TimeoutError("http: traces not all counted")
            time.sleep(0.5)
        time.sleep(1.0)
        wall, cpu = time.monotonic() - t0, rep.cpu_s() - c0
        state = ctx.nodes.state_memory() - state0
        markers, used = ctx.nodes.memory(f"{prefix}:d:*", sample=500)
    emit(
        "http",
        traces=sent,
        wall_s=round(wall, 1),
        cpu_us_per_trace=round(cpu / sent * 1e6, 1),
        dedup_markers=markers,
        bytes_per_marker_memory_usage=round(used / max(1, markers), 1),
        used_memory_state=state,
        used_memory_state_per_trace=round(state / sent, 1),
    )


def phase_series(ctx: Ctx) -> None:
    """Series on the window exporter and on another replica (2 replicas, Redis, no slices)."""
    topic = ctx.topic("series", 2)
    env = service_env(
        ctx.broker,
        ctx.redis_url,
        topic,
        "ser",
        GROUNDWATCH_SAMPLING__RATE="0",
        GROUNDWATCH_WINDOWS__SLICE_KEYS="[]",
    )
    ctx.traffic.produce(ctx.broker.bootstrap, topic, 200, "series", fresh=False)
    with replicas(2, env, ctx.logdir) as reps:
        wait_committed(ctx.broker.bootstrap, env["GROUNDWATCH_KAFKA__GROUP_ID"], topic, 200, 120)
        deadline = time.monotonic() + 60
        while True:  # one replica takes the lease within a third of its TTL
            texts = [r.get("/metrics")[1].decode() for r in reps]
            holders = [
                r.metric("groundwatch_window_exporter", t) for r, t in zip(reps, texts, strict=True)
            ]
            if sorted(holders) == [0.0, 1.0] or time.monotonic() > deadline:
                break
            time.sleep(1.0)
        time.sleep(11.0)  # a report refresh after the traffic (windows.report_refresh_s = 10)
        texts = [r.get("/metrics")[1].decode() for r in reps]
        holders = [
            r.metric("groundwatch_window_exporter", t) for r, t in zip(reps, texts, strict=True)
        ]
    series = [sum(1 for ln in t.splitlines() if ln and ln[0] != "#") for t in texts]
    exporter = series[holders.index(1.0)] if 1.0 in holders else None
    other = series[holders.index(0.0)] if 0.0 in holders else None
    emit(
        "series",
        replicas=2,
        exporters=int(sum(holders)),
        series_exporter=exporter,
        series_other=other,
        bytes_other=len(texts[holders.index(0.0)]) if 0.0 in holders else None,
    )


def phase_eval(ctx: Ctx, judge: str) -> None:
    n, warm = ctx.args.eval, ctx.args.warm
    topic = ctx.topic(judge)
    prefix = f"ev{judge[:3]}"
    env = service_env(
        ctx.broker,
        ctx.redis_url,
        topic,
        prefix,
        GROUNDWATCH_SAMPLING__RATE="1",
        GROUNDWATCH_JUDGE__BACKEND=judge,
    )
    group = env["GROUNDWATCH_KAFKA__GROUP_ID"]
    with replicas(1, env, ctx.logdir) as (rep,):
        ready_rss = rep.rss_mb()
        ctx.traffic.produce(ctx.broker.bootstrap, topic, warm, judge, fresh=True)
        wait_committed(ctx.broker.bootstrap, group, topic, warm, 900)
        r0, c0, t0 = ctx.nodes.snapshot(), rep.cpu_s(), time.monotonic()
        sent = ctx.traffic.produce(ctx.broker.bootstrap, topic, n, judge, fresh=True, start=warm)
        wait_committed(ctx.broker.bootstrap, group, topic, warm + n, 1800)
        wall = time.monotonic() - t0
        cpu = rep.cpu_s() - c0
        rd = ctx.nodes.delta(r0, ctx.nodes.snapshot())
        text = rep.get("/metrics")[1].decode()
        evaluated = rep.metric("groundwatch_traces_evaluated_total", text)
        rss = rep.rss_mb()
    good = n - sent["bad"]
    emit(
        judge,
        evaluated=good,
        wall_s=round(wall, 1),
        cpu_ms_per_evaluated=round(cpu / good * 1e3, 1),
        evaluated_per_cpu_s=round(good / cpu, 2),
        evaluated_per_s_wall=round(good / wall, 2),
        rss_mb_ready=round(ready_rss, 1),
        rss_mb_after=round(rss, 1),
        evaluated_counter=evaluated,
    )
    emit(
        f"{judge}.redis",
        commands_per_trace=round(rd["commands"] / good, 2),
        client_commands_per_trace=round(rd["client_commands"] / good, 3),
        round_trips_per_trace=round(rd["reads"] / good, 3),
        bytes_in_per_trace=round(rd["net_in"] / good, 1),
        redis_cpu_us_per_trace=round(rd["cpu"] / good * 1e6, 1),
        commands=rd["cmd"],
    )
    total = warm + n
    valid = total - (total // BAD_EVERY)
    count, size, msgs = topic_bytes(ctx.broker.bootstrap, f"{topic}.results", valid)
    contradicted = {}
    for m in msgs:
        rec = json.loads(m.value or b"{}")
        contradicted[rec.get("trace_id")] = int(rec.get("contradicted_claims") or 0)
    emit(f"{judge}.kafka", results_records=count, results_bytes_per_record=round(size / count))
    fnd_n = sum(int(c.hlen(f"{prefix}:f:data")) for c in ctx.nodes.clients)
    _, fnd_b = ctx.nodes.memory(f"{prefix}:f:*")
    ded_n, ded_b = ctx.nodes.memory(f"{prefix}:d:*", sample=500)
    bk_n, bk_b = ctx.nodes.memory(f"{prefix}:w:*")
    slices = 1 + 8 + 4  # all + tenant-0..7 + four intents: groups per bucket
    emit(
        f"{judge}.memory",
        findings=fnd_n,
        contradicted_claims_in_results=sum(contradicted.values()),
        bytes_per_finding=round(fnd_b / max(1, fnd_n)),
        dedup_markers=ded_n,
        bytes_per_dedup_marker=round(ded_b / max(1, ded_n)),
        bucket_keys=bk_n,
        bytes_per_slice_bucket=round(bk_b / max(1, bk_n * slices)),
        evaluated_traces=total - total // BAD_EVERY,
    )


def phase_prom(ctx: Ctx) -> None:
    from groundwatch.contract.record import EvaluationRecord
    from groundwatch.sections.connections import RedisSettings
    from groundwatch.sections.windows import WindowSettings
    from groundwatch.settings import Settings
    from groundwatch.state.redis_store import RedisWindowStore, redis_client

    topic = ctx.topic("prom", 1)
    prefix = "prom"
    top_n = max(ctx.args.prom_slices)
    env = service_env(
        ctx.broker,
        ctx.redis_url,
        topic,
        prefix,
        GROUNDWATCH_SAMPLING__RATE="0",
        GROUNDWATCH_WINDOWS__SLICE_KEYS='["tenant"]',
        GROUNDWATCH_WINDOWS__TOP_N=str(top_n),
        GROUNDWATCH_WINDOWS__MIN_SAMPLES="1",
        GROUNDWATCH_WINDOWS__REPORT_REFRESH_S="0",
    )
    settings = Settings(
        redis=RedisSettings(url=ctx.redis_url, key_prefix=prefix),  # type: ignore[arg-type]
        windows=WindowSettings(slice_keys=["tenant"], top_n=top_n, min_samples=1),
    )
    store = RedisWindowStore(redis_client(settings.redis), settings.windows, settings.redis)
    record = EvaluationRecord.model_validate_json(_sample_record())
    now = time.time()
    done = 0

    def grow(k: int) -> None:
        nonlocal done
        items = []
        for v in range(done, k):
            for j, ts in enumerate((now - 7200, now - 7100, now - 30, now - 20)):
                rec = record.model_copy(update={"trace_id": f"prom-{v}-{j}"})
                items.append((rec, {"tenant": f"tenant-{v:05d}"}, ts))
        for i in range(0, len(items), 500):
            store.observe_evaluations(items[i : i + 500])
        done = k

    with replicas(1, env, ctx.logdir) as (rep,):
        rows = []
        for k in [0, *ctx.args.prom_slices]:
            grow(k)
            rep.get("/metrics")  # first scrape after the change (cache fill)
            times, size, series = [], 0, 0
            for _ in range(5):
                _, body, took = rep.get("/metrics", 120)
                times.append(took)
                size = len(body)
                series = sum(1 for ln in body.decode().splitlines() if ln and ln[0] != "#")
            rows.append((k, series, size, statistics.median(times)))
            emit(
                f"prom.{k}",
                slice_values=k,
                series=series,
                metrics_bytes=size,
                scrape_ms_median=round(statistics.median(times) * 1e3, 1),
                rss_mb=round(rep.rss_mb(), 1),
            )
    (k1, s1, b1, _), (k2, s2, b2, _) = rows[-2], rows[-1]
    emit(
        "prom",
        series_per_replica_no_slices=rows[0][1],
        series_per_slice_value=round((s2 - s1) / (k2 - k1), 2),
        bytes_per_slice_value=round((b2 - b1) / (k2 - k1)),
    )


def phase_evalstore(ctx: Ctx) -> None:
    """The evaluation update alone at a rate where Redis's idle CPU does not blur it: the
    service's RedisWindowStore applies evaluation records in batches of the consumer's size."""
    from groundwatch.contract.record import EvaluationRecord
    from groundwatch.sections.connections import RedisSettings
    from groundwatch.sections.windows import WindowSettings
    from groundwatch.settings import Settings
    from groundwatch.state.redis_store import RedisWindowStore, redis_client

    prefix, n, batch = "es", ctx.args.evalstore, ctx.args.eval_batch
    settings = Settings(
        redis=RedisSettings(url=ctx.redis_url, key_prefix=prefix),  # type: ignore[arg-type]
        windows=WindowSettings(slice_keys=SLICE_KEYS),
    )
    client = redis_client(settings.redis)
    store = RedisWindowStore(client, settings.windows, settings.redis)
    record = EvaluationRecord.model_validate_json(_sample_record())
    items = [
        (
            record.model_copy(update={"trace_id": hashlib.md5(f"es-{i}".encode()).hexdigest()}),
            {"tenant": f"tenant-{i % 8}", "intent": INTENTS[i % 4]},
            time.time(),
        )
        for i in range(n)
    ]
    store.observe_evaluations(items[:batch])  # script load
    r0, t0 = ctx.nodes.snapshot(), time.monotonic()
    for i in range(batch, n, batch):
        store.observe_evaluations(items[i : i + batch])
    wall = time.monotonic() - t0
    rd = ctx.nodes.delta(r0, ctx.nodes.snapshot())
    done = n - batch
    emit(
        "evalstore.redis",
        updates=done,
        batch=batch,
        per_s=round(done / wall),
        redis_cpu_us_per_trace=round(rd["cpu"] / done * 1e6, 1),
        commands_per_trace=round(rd["commands"] / done, 2),
        round_trips_per_trace=round(rd["reads"] / done, 3),
        bytes_in_per_trace=round(rd["net_in"] / done, 1),
        commands=rd["cmd"],
    )
    client.close()


def _sample_record() -> str:
    """One evaluation record as the embedded judge writes it (scored, two claims)."""
    from groundwatch.contract.record import ClaimResult, ContextResult, EvaluationRecord

    rec = EvaluationRecord(
        trace_id="sample",
        evaluated_at="2026-01-01T00:00:00Z",  # type: ignore[arg-type]
        metric_version="bench",
        status="scored",
        faithfulness=0.5,
        claims=[
            ClaimResult(text="a", verdict="supported", score=0.9),
            ClaimResult(text="b", verdict="contradicted", score=0.1),
        ],
        contradicted_claims=1,
        context_precision=0.6,
        contexts=[ContextResult(index=0, relevance=0.8, relevant=True)],
        first_relevant_rank=1,
        context_tokens=400,
        answer_relevance=0.8,
        refusal=False,
        citation_support=1.0,
        attributes={},
        latency_ms=30.0,
    )
    return rec.model_dump_json()


def _sum_metric(reps: Sequence[Replica], name: str) -> float:
    return sum(r.metric(name) for r in reps)


def phase_scaleout(ctx: Ctx, n_rep: int, label: str, redis_url: str, nodes: RedisNodes) -> float:
    per = ctx.args.scaleout
    n = per * n_rep
    topic = ctx.topic(f"so{n_rep}{label}", 4)
    prefix = f"so{n_rep}{label}"
    env = service_env(
        ctx.broker,
        redis_url,
        topic,
        prefix,
        GROUNDWATCH_SAMPLING__RATE="1",
        GROUNDWATCH_JUDGE__BACKEND=ctx.args.judge,
    )
    group = env["GROUNDWATCH_KAFKA__GROUP_ID"]
    sent = ctx.traffic.produce(ctx.broker.bootstrap, topic, n, prefix, fresh=False)
    valid = n - sent["bad"]
    with replicas(n_rep, env, ctx.logdir) as reps:
        r0 = nodes.snapshot()
        c0 = [r.cpu_s() for r in reps]
        t0 = time.monotonic()
        marks: dict[str, tuple[float, float, list[float]]] = {}
        lags: list[float] = []
        while True:
            done = _sum_metric(reps, "groundwatch_traces_evaluated_total")
            lags.append(_sum_metric(reps, "groundwatch_consumer_lag"))
            now = time.monotonic()
            for name, share in (("lo", 0.1), ("hi", 0.9)):
                if name not in marks and done >= share * valid:
                    marks[name] = (now, done, [r.cpu_s() for r in reps])
            if done >= valid or now - t0 > ctx.args.scaleout_timeout:
                break
            time.sleep(2)
        wait_committed(ctx.broker.bootstrap, group, topic, n, 120)
        wall = time.monotonic() - t0
        cpu = [r.cpu_s() - c for r, c in zip(reps, c0, strict=True)]
        rd = nodes.delta(r0, nodes.snapshot())
        dups = _sum_metric(reps, "groundwatch_duplicate_traces_total")
        evaluated = _sum_metric(reps, "groundwatch_traces_evaluated_total")
        rss = [round(r.rss_mb(), 1) for r in reps]
    (t_lo, d_lo, cpu_lo), (t_hi, d_hi, cpu_hi) = marks["lo"], marks["hi"]
    rate = (d_hi - d_lo) / (t_hi - t_lo)
    cpu_share = [(b - a) / (t_hi - t_lo) for a, b in zip(cpu_lo, cpu_hi, strict=True)]
    count, _, msgs = topic_bytes(ctx.broker.bootstrap, f"{topic}.results", valid)
    ids: dict[str, int] = {}
    contradicted = 0
    for m in msgs:
        rec = json.loads(m.value or b"{}")
        if rec["trace_id"] not in ids:
            contradicted += int(rec.get("contradicted_claims") or 0)
        ids[rec["trace_id"]] = ids.get(rec["trace_id"], 0) + 1
    win = window_totals(nodes, prefix, ["received", "evaluated"])
    findings = sum(
        int(c.hlen(k))
        for pattern in (f"{prefix}:f:data", f"{prefix}:{{{prefix}:f}}:f:data")
        for c, k in nodes.keys(pattern)
    )
    emit(
        f"scaleout.{n_rep}{label}",
        replicas=n_rep,
        produced=n,
        valid=valid,
        evaluated_per_s=round(rate, 2),
        per_replica_cpu_share=[round(c, 2) for c in cpu_share],
        evaluated_per_cpu_s=round(evaluated / sum(cpu), 2),
        wall_s=round(wall, 1),
        redis_cpu_share=round(rd["cpu"] / wall, 4),
        redis_round_trips_per_s=round(rd["reads"] / wall, 1),
        redis_cpu_us_per_evaluated=round(rd["cpu"] / valid * 1e6, 1),
        redis_round_trips_per_evaluated=round(rd["reads"] / valid, 3),
        lag_max=max(lags),
        lag_end=lags[-1],
        rss_mb=rss,
    )
    ok = (
        win["received"] == valid
        and win["evaluated"] == valid
        and len(ids) == valid
        and findings == contradicted
        and evaluated >= valid
    )
    emit(
        f"scaleout.{n_rep}{label}.reconcile",
        window_received=int(win["received"]),
        window_evaluated=int(win["evaluated"]),
        results_distinct=len(ids),
        results_records=count,
        redelivered_records=count - len(ids),
        findings=findings,
        contradicted_in_results=contradicted,
        duplicates_counter=int(dups),
        ok=ok,
    )
    return rate


def phase_flood(ctx: Ctx, label: str, redis_url: str, nodes: RedisNodes, n_rep: int) -> None:
    n = ctx.args.flood
    topic = ctx.topic(f"flood{n_rep}{label}", 4)
    prefix = f"fl{n_rep}{label.strip('.')[:2]}"
    env = service_env(ctx.broker, redis_url, topic, prefix, GROUNDWATCH_SAMPLING__RATE="0")
    group = env["GROUNDWATCH_KAFKA__GROUP_ID"]
    t_p = time.monotonic()
    bk0 = proc_cpu_s(ctx.broker.proc.pid)
    ctx.traffic.produce(ctx.broker.bootstrap, topic, n, prefix, fresh=False)
    produce_s = time.monotonic() - t_p
    produce_rate = n / produce_s
    broker_produce_cpu = proc_cpu_s(ctx.broker.proc.pid) - bk0
    broker_pid = ctx.broker.proc.pid
    with replicas(n_rep, env, ctx.logdir) as reps:
        # The backlog is there before the replicas join, and they may start on it before they
        # report ready: measure between 10 % and 90 % of the committed backlog.
        marks: dict[str, tuple[float, int, list[float], float, list[dict[str, Any]]]] = {}
        t0 = time.monotonic()
        while True:
            done = committed(ctx.broker.bootstrap, group, topic)
            now = time.monotonic()
            for name, share in (("lo", 0.1), ("hi", 0.9)):
                if name not in marks and done >= share * n:
                    marks[name] = (
                        now,
                        done,
                        [r.cpu_s() for r in reps],
                        proc_cpu_s(broker_pid),
                        nodes.snapshot(),
                    )
            if done >= n:
                break
            if now - t0 > 900:
                raise TimeoutError(f"flood: {done} < {n} committed after 900 s")
            time.sleep(0.2)
        rss = [round(r.rss_mb(), 1) for r in reps]
    (t_lo, d_lo, c_lo, b_lo, r_lo), (t_hi, d_hi, c_hi, b_hi, r_hi) = marks["lo"], marks["hi"]
    wall, n = max(1e-3, t_hi - t_lo), d_hi - d_lo
    cpu = [b - a for a, b in zip(c_lo, c_hi, strict=True)]
    broker_cpu = b_hi - b_lo
    rd = nodes.delta(r_lo, r_hi)
    good = n * (1 - 1 / BAD_EVERY)
    emit(
        f"flood.{n_rep}{label}",
        replicas=n_rep,
        traces=ctx.args.flood,
        measured=n,
        traces_per_s=round(n / wall),
        wall_s=round(wall, 1),
        replica_cpu_share=[round(c / wall, 2) for c in cpu],
        replica_cpu_us_per_trace=round(sum(cpu) / n * 1e6, 1),
        broker_cpu_share=round(broker_cpu / wall, 3),
        broker_cpu_us_per_trace_consume=round(broker_cpu / n * 1e6, 1),
        broker_cpu_us_per_trace_produce=round(broker_produce_cpu / ctx.args.flood * 1e6, 1),
        produce_traces_per_s=round(produce_rate),
        redis_cpu_share=round(rd["cpu"] / wall, 3),
        redis_cpu_us_per_trace=round(rd["cpu"] / good * 1e6, 2),
        redis_commands_per_s=round(rd["commands"] / wall),
        redis_round_trips_per_trace=round(rd["reads"] / good, 4),
        redis_per_node_commands=rd["per_node_commands"],
        rss_mb=rss,
        cores=len(_cores()),
        load_avg_1m=round(os.getloadavg()[0], 2),
    )
    if label:
        counts: dict[str, int] = {}
        for c, _k in nodes.keys(f"{prefix}:{{{prefix}:s*}}:w:*"):
            port = c.connection_pool.connection_kwargs["port"]
            counts[str(port)] = counts.get(str(port), 0) + 1
        emit(f"flood.{n_rep}{label}.keys", bucket_keys_per_node=counts)


# --------------------------------------------------------------------------- main


PHASES = (
    "seen",
    "http",
    "series",
    "embedded",
    "verifier",
    "evalstore",
    "prom",
    "scaleout",
    "flood",
    "cluster",
    "cluster-scaleout",
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seen", type=int, default=20_000, help="traces in the seen-only phase")
    ap.add_argument("--http", type=int, default=20_000, help="traces posted in the http phase")
    ap.add_argument("--eval", type=int, default=100, help="evaluated traces measured per judge")
    ap.add_argument("--warm", type=int, default=40, help="warm-up traces before measuring")
    ap.add_argument("--scaleout", type=int, default=150, help="backlog per replica (evaluated)")
    ap.add_argument("--scaleout-timeout", type=float, default=600.0)
    ap.add_argument("--judge", default="embedded", help="judge of the scale-out run")
    ap.add_argument("--flood", type=int, default=40_000, help="traces in the rate-0 flood")
    ap.add_argument("--evalstore", type=int, default=4000, help="evaluation updates replayed")
    ap.add_argument("--eval-batch", type=int, default=4, help="records per update (consumer's)")
    ap.add_argument("--prom-slices", type=int, nargs="+", default=[10, 100, 1000])
    ap.add_argument("--only", default=",".join(PHASES), help=f"comma list of {PHASES}")
    ap.add_argument("--json", type=Path, default=ROOT / "build/capacity/capacity.json")
    args = ap.parse_args(argv)
    only = set(args.only.split(","))
    logdir = args.json.parent
    logdir.mkdir(parents=True, exist_ok=True)
    print(
        f"cores={len(_cores())} load_avg_1m={os.getloadavg()[0]:.2f} "
        f"(shared machine: quote CPU per trace and ratios)",
        flush=True,
    )
    t_start = time.monotonic()
    traffic = Traffic(n_distinct=max(400, args.warm * 2 + args.eval * 2 + 50))
    with RedisServer.start() as rs, KafkaBroker.start() as broker:
        nodes = RedisNodes([rs.port])
        print(f"redis idle cpu {nodes.measure_idle():.4f} s/s (subtracted)", flush=True)
        ctx = Ctx(args, broker, rs.url, nodes, traffic, logdir)
        try:
            if "seen" in only:
                phase_seen(ctx)
            if "http" in only:
                phase_http(ctx)
            if "series" in only:
                phase_series(ctx)
            for judge in ("embedded", "verifier"):
                if judge in only:
                    phase_eval(ctx, judge)
            if "evalstore" in only:
                phase_evalstore(ctx)
            if "prom" in only:
                phase_prom(ctx)
            if "scaleout" in only:
                one = phase_scaleout(ctx, 1, "", rs.url, nodes)
                two = phase_scaleout(ctx, 2, "", rs.url, nodes)
                emit("scaleout", ratio_2_over_1=round(two / one, 3), ideal=2.0)
            if "flood" in only:
                phase_flood(ctx, "", rs.url, nodes, 1)
                phase_flood(ctx, "", rs.url, nodes, len(_cores()))
            if only & {"cluster", "cluster-scaleout"}:
                with RedisClusterServers.start() as cluster:
                    cnodes = RedisNodes([n.port for n in cluster.nodes])
                    cnodes.measure_idle(3.0)
                    try:
                        if "cluster" in only:
                            phase_flood(ctx, ".cluster", cluster.url, cnodes, len(_cores()))
                        if "cluster-scaleout" in only:
                            one = phase_scaleout(ctx, 1, "c", cluster.url, cnodes)
                            two = phase_scaleout(ctx, 2, "c", cluster.url, cnodes)
                            emit("scaleout.cluster", ratio_2_over_1=round(two / one, 3))
                    finally:
                        cnodes.close()
        finally:
            nodes.close()
            OUT["run_s"] = round(time.monotonic() - t_start)
            args.json.write_text(json.dumps(OUT, indent=1, sort_keys=True, default=str))
            print(f"wrote {args.json} ({OUT['run_s']} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
