"""Soak benchmark (a script, not a test): the real service (`groundwatch serve`, embedded judge,
Redis windows, Kafka consumer) under mixed traffic for a long time, sampling what must stay
bounded.

    nice -n 10 .venv/bin/python -m benchmarks.soak --minutes 30 --out build/soak

Traffic: Kafka and HTTP, valid and bad (malformed JSON, schema errors), several tenants with
thousands of distinct slice values (``user_segment`` is unique per trace: it must fold into
"other", not grow label cardinality). Every ``--sample-s`` seconds the script records the
service's RSS and open files, Redis ``used_memory``, the number of series on ``/metrics`` and the
consumer lag into ``soak.csv``, and draws ``soak.png``. Needs redis-server and Tansu
(tests/infra.py starts them on free loopback ports and stops them at the end).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.infra import KafkaBroker, RedisServer, free_port, wait_port  # noqa: E402

FIELDS = [
    "t_s",
    "rss_mb",
    "open_files",
    "redis_used_mb",
    "metric_series",
    "consumer_lag",
    "kafka_sent",
    "http_sent",
    "http_errors",
]


def _template() -> dict[str, Any]:
    path = ROOT / "service/groundwatch/data/sample_traces.jsonl"
    return dict(json.loads(path.read_text().splitlines()[0]))


def make_trace(base: dict[str, Any], i: int, rng: random.Random) -> dict[str, Any]:
    trace = json.loads(json.dumps(base))
    trace["trace_id"] = f"soak-{i}-{rng.getrandbits(32):08x}"
    trace["attributes"] = {
        "tenant": f"tenant-{rng.randrange(8)}",
        "intent": rng.choice(["billing", "security", "api", "other"]),
        "user_segment": f"seg-{i}",  # unbounded values: must fold into "other"
    }
    return trace


def _metrics(port: int) -> tuple[int, float]:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    series = 0
    lag = 0.0
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        series += 1
        if line.startswith("groundwatch_consumer_lag{"):
            lag += float(line.rsplit(" ", 1)[1])
    return series, lag


def _proc(pid: int) -> tuple[float, int]:
    rss_kb = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss_kb = int(line.split()[1])
    return rss_kb / 1024, len(os.listdir(f"/proc/{pid}/fd"))


def _redis_used_mb(port: int) -> float:
    out = subprocess.run(
        ["redis-cli", "-p", str(port), "info", "memory"], capture_output=True, text=True, check=True
    ).stdout
    for line in out.splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":")[1]) / 1e6
    return 0.0


def chart(rows: list[dict[str, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = ["rss_mb", "open_files", "redis_used_mb", "metric_series", "consumer_lag"]
    fig, axes = plt.subplots(len(keys), 1, figsize=(8, 2 * len(keys)), sharex=True)
    t = [r["t_s"] / 60 for r in rows]
    for ax, key in zip(axes, keys, strict=True):
        ax.plot(t, [r[key] for r in rows], marker=".")
        ax.set_ylabel(key, fontsize=8)
        ax.set_ylim(bottom=0)
    axes[-1].set_xlabel("minutes")
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--sample-s", type=float, default=30.0)
    ap.add_argument("--kafka-rate", type=float, default=4.0, help="traces/s on Kafka")
    ap.add_argument("--http-rate", type=float, default=1.0, help="requests/s on HTTP")
    ap.add_argument("--out", type=Path, default=ROOT / "build/soak")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    from kafka import KafkaProducer

    rng = random.Random(15)
    base = _template()
    with RedisServer.start() as redis, KafkaBroker.start() as broker:
        broker.create_topic("soak.traces", 3)
        broker.create_topic("soak.traces.dlq", 1)
        port = free_port()
        env = {
            **os.environ,
            "GROUNDWATCH_API__PORT": str(port),
            "GROUNDWATCH_REDIS__URL": redis.url,
            "GROUNDWATCH_KAFKA__BOOTSTRAP_SERVERS": broker.bootstrap,
            "GROUNDWATCH_KAFKA__TOPIC": "soak.traces",
            "GROUNDWATCH_KAFKA__DLQ_TOPIC": "soak.traces.dlq",
            "GROUNDWATCH_KAFKA__GROUP_ID": "soak",
            "GROUNDWATCH_WINDOWS__SLICE_KEYS": '["tenant","intent","user_segment"]',
        }
        log = (args.out / "service.log").open("wb")
        service = subprocess.Popen(
            [str(Path(sys.executable).parent / "groundwatch"), "serve"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        rows: list[dict[str, float]] = []
        try:
            wait_port(port, timeout=300)
            producer = KafkaProducer(bootstrap_servers=broker.bootstrap, linger_ms=20)
            start = time.monotonic()
            next_sample = start
            kafka_sent = http_sent = http_errors = i = 0
            with (args.out / "soak.csv").open("w", newline="") as fh:
                writer = csv.DictWriter(fh, fieldnames=FIELDS)
                writer.writeheader()
                while time.monotonic() - start < args.minutes * 60:
                    tick = time.monotonic()
                    for _ in range(max(1, round(args.kafka_rate))):
                        i += 1
                        value = json.dumps(make_trace(base, i, rng)).encode()
                        if (kafka_sent + 1) % 20 == 0:  # 5 % of Kafka messages
                            value = value[: len(value) // 2]  # malformed: dead-lettered
                        producer.send("soak.traces", value)
                        kafka_sent += 1
                    if rng.random() < args.http_rate:
                        i += 1
                        body = make_trace(base, i, rng)
                        if (http_sent + 1) % 10 == 0:  # 10 % of HTTP requests
                            body.pop("question")  # schema error: 4xx
                        req = urllib.request.Request(
                            f"http://127.0.0.1:{port}/v1/evaluate",
                            data=json.dumps(body).encode(),
                            headers={"content-type": "application/json"},
                        )
                        try:
                            urllib.request.urlopen(req, timeout=30).read()
                        except Exception:
                            http_errors += 1
                        http_sent += 1
                    if time.monotonic() >= next_sample:
                        rss, files = _proc(service.pid)
                        series, lag = _metrics(port)
                        row = {
                            "t_s": round(time.monotonic() - start, 1),
                            "rss_mb": round(rss, 1),
                            "open_files": files,
                            "redis_used_mb": round(_redis_used_mb(redis.port), 2),
                            "metric_series": series,
                            "consumer_lag": lag,
                            "kafka_sent": kafka_sent,
                            "http_sent": http_sent,
                            "http_errors": http_errors,
                        }
                        rows.append(row)
                        writer.writerow(row)
                        fh.flush()
                        print(json.dumps(row), flush=True)
                        next_sample += args.sample_s
                    time.sleep(max(0.0, 1.0 - (time.monotonic() - tick)))
            producer.close()
        finally:
            service.terminate()
            try:
                service.wait(60)
            except subprocess.TimeoutExpired:
                service.kill()
            log.close()
    if rows:
        chart(rows, args.out / "soak.png")
        peak = max(r["rss_mb"] for r in rows)
        print(
            json.dumps(
                {
                    "minutes": args.minutes,
                    "samples": len(rows),
                    "peak_rss_mb": peak,
                    "rss_first_last_mb": [rows[0]["rss_mb"], rows[-1]["rss_mb"]],
                    "series_first_last": [rows[0]["metric_series"], rows[-1]["metric_series"]],
                    "open_files_max": max(r["open_files"] for r in rows),
                    "redis_used_mb_first_last": [
                        rows[0]["redis_used_mb"],
                        rows[-1]["redis_used_mb"],
                    ],
                    "lag_last": rows[-1]["consumer_lag"],
                }
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
